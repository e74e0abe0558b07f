"""The reinforcement-learning primitives mindspore-rl builds on: ops.BufferAppend/BufferGetItem/BufferSample,
ops.operations._rl_inner_ops (replay buffers, BatchAssign, DiscountedReturn, CudnnGRU) and _tensor_array, against
numpy references of MindSpore's kernels."""
import warnings

import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed.ops.operations import _rl_inner_ops as rl
from mindseed.ops.operations import _tensor_array as ta


def _fifo(capacity):
    data = [ms.Parameter(ms.Tensor(np.zeros((capacity, 2), np.float32)), name="s"),
            ms.Parameter(ms.Tensor(np.zeros((capacity, 1), np.int32)), name="a")]
    return data, ms.Parameter(ms.Tensor(0, ms.int32), name="count"), ms.Parameter(ms.Tensor(0, ms.int32), name="head")


def test_buffer_append_is_first_in_first_out_and_get_item_counts_from_the_oldest():
    data, count, head = _fifo(4)
    append = ops.BufferAppend(4, [(2,), (1,)], [ms.float32, ms.int32])
    for v in range(6):
        append(data, [ms.Tensor([v, -v], ms.float32), ms.Tensor([v], ms.int32)], count, head)
    # rows 0..3 got 0..3, then 4 and 5 replaced the two oldest
    np.testing.assert_array_equal(data[0].asnumpy()[:, 0], [4, 5, 2, 3])
    assert (int(count), int(head)) == (4, 2)
    get = ops.BufferGetItem(4, [(2,), (1,)], [ms.float32, ms.int32])
    assert [int(get(data, count, head, i)[1].asnumpy()[0]) for i in (0, 1, 2, 3, -1)] == [2, 3, 4, 5, 5]
    # a batch of two at once
    append(data, [ms.Tensor([[6, 0], [7, 0]], ms.float32), ms.Tensor([[6], [7]], ms.int32)], count, head)
    np.testing.assert_array_equal(data[1].asnumpy()[:, 0], [4, 5, 6, 7])


def test_buffer_sample_draws_filled_rows_only():
    data, count, head = _fifo(100)
    append = ops.BufferAppend(100, [(2,), (1,)], [ms.float32, ms.int32])
    for v in range(3):
        append(data, [ms.Tensor([v, v], ms.float32), ms.Tensor([v], ms.int32)], count, head)
    sample = ops.BufferSample(100, 64, [(2,), (1,)], [ms.float32, ms.int32], seed=5)
    states, actions = sample(data, count, head)
    assert states.shape == (64, 2) and actions.shape == (64, 1)
    assert set(actions.asnumpy().ravel()) == {0, 1, 2}
    np.testing.assert_array_equal(states.asnumpy()[:, 0], actions.asnumpy()[:, 0])
    unique = ops.BufferSample(100, 3, [(2,), (1,)], [ms.float32, ms.int32], seed=5, unique=True)
    assert sorted(unique(data, count, head)[1].asnumpy().ravel()) == [0, 1, 2]
    with pytest.raises(ValueError, match="batchsize"):
        ops.BufferSample(10, 11, [(2,)], [ms.float32])
    with pytest.raises(ValueError, match="exp"):
        append(data, [ms.Tensor([1.0, 2.0, 3.0], ms.float32), ms.Tensor([1], ms.int32)], count, head)


def test_buffer_ops_repeat_inside_a_compiled_function():
    data, count, head = _fifo(3)
    append = ops.BufferAppend(3, [(2,), (1,)], [ms.float32, ms.int32])

    @ms.jit
    def push(s, a):
        append(data, [s, a], count, head)
        return count + 0

    for v in range(4):
        push(ms.Tensor([v, v], ms.float32), ms.Tensor([v], ms.int32))
    np.testing.assert_array_equal(data[1].asnumpy()[:, 0], [3, 1, 2])


def _priority_reference(priorities, alpha, beta, uniforms):
    """numpy's proportional prioritized sampling: indices and normalised importance weights."""
    p = np.asarray(priorities, np.float64) ** alpha
    total, size, batch = p.sum(), len(p), len(uniforms)
    mass = (np.asarray(uniforms) + np.arange(batch)) * total / batch
    idx = np.searchsorted(np.cumsum(p), mass)
    w = (p[idx] / total * size) ** -beta / (p.min() / total * size) ** -beta
    return idx, w


def test_priority_replay_buffer_samples_in_proportion_to_priorities():
    create = rl.PriorityReplayBufferCreate(8, 0.6, [(2,)], [ms.float32], 0, 3)
    handle = int(create().asnumpy()[0])
    assert int(create().asnumpy()[0]) == handle        # the same buffer at every call
    push = rl.PriorityReplayBufferPush(handle)
    for v in range(5):
        push((ms.Tensor([v, 10 * v], ms.float32),))
    rl.PriorityReplayBufferUpdate(handle)(ms.Tensor(np.arange(5), ms.int64),
                                          ms.Tensor(np.array([1, 2, 3, 4, 10], np.float32)))
    sample = rl.PriorityReplayBufferSample(handle, 4, [(2,)], [ms.float32])
    indices, weights, states = sample(0.4)
    uniforms = np.random.default_rng(3).random(4)
    want_idx, want_w = _priority_reference([1, 2, 3, 4, 10], 0.6, 0.4, uniforms)
    np.testing.assert_array_equal(indices.asnumpy(), want_idx)
    np.testing.assert_allclose(weights.asnumpy(), want_w, rtol=1e-6)
    np.testing.assert_array_equal(states.asnumpy()[:, 0], want_idx)
    assert indices.dtype == ms.int64 and weights.dtype == ms.float32
    # a new transition gets the largest priority seen (10)
    push((ms.Tensor([5, 50], ms.float32),))
    buf = rl._buffers[handle]
    np.testing.assert_allclose(buf.priorities[5], 10 ** 0.6)
    rl.PriorityReplayBufferDestroy(handle)()
    with pytest.raises(RuntimeError, match="PriorityReplayBufferSample"):
        sample(0.4)
    with pytest.raises(ValueError, match="alpha"):
        rl.PriorityReplayBufferCreate(8, 1.5, [(2,)], [ms.float32], 0, 0)


def test_reservoir_replay_buffer_keeps_an_unbiased_sample():
    handle = int(rl.ReservoirReplayBufferCreate(50, [(1,)], [ms.int32], 0, 11)().asnumpy()[0])
    push = rl.ReservoirReplayBufferPush(handle)
    for v in range(2000):
        push((ms.Tensor([v], ms.int32),))
    kept = rl._buffers[handle].items[0].ravel()
    assert len(set(kept)) == 50 and kept.mean() > 400        # not only the first 50
    (values,) = rl.ReservoirReplayBufferSample(handle, 16, [(1,)], [ms.int32])()
    assert values.shape == (16, 1) and set(values.asnumpy().ravel()) <= set(kept)
    rl.ReservoirReplayBufferDestroy(handle)()


def test_batch_assign_and_discounted_return():
    dst = (ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="d0"),
           ms.Parameter(ms.Tensor(np.zeros((2, 2), np.float32)), name="d1"))
    src = (ms.Tensor(np.arange(3, dtype=np.float32)), ms.Tensor(np.ones((2, 2), np.float32)))
    rl.BatchAssign()(dst, src)
    np.testing.assert_array_equal(dst[0].asnumpy(), [0, 1, 2])
    np.testing.assert_array_equal(dst[1].asnumpy(), np.ones((2, 2)))
    with pytest.raises(ValueError, match="BatchAssign"):
        rl.BatchAssign()(dst, src[::-1])

    rng = np.random.default_rng(0)
    reward, done = rng.random((5, 3)).astype(np.float32), rng.random((5, 3)) < 0.3
    last = rng.random(3).astype(np.float32)
    want, g = np.zeros_like(reward), last.astype(np.float64)
    for t in range(4, -1, -1):
        g = reward[t] + 0.9 * (1 - done[t]) * g
        want[t] = g
    got = rl.DiscountedReturn(0.9)(ms.Tensor(reward), ms.Tensor(done), ms.Tensor(last))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    with pytest.raises(TypeError, match="done"):
        rl.DiscountedReturn(0.9)(ms.Tensor(reward), ms.Tensor(done.astype(np.float32)), ms.Tensor(last))


def _gru_reference(x, h, layers, hidden):
    """A stacked GRU in numpy: layers is a list of (w_ih, w_hh, b_ih, b_hh)."""
    def sigmoid(v):
        return 1 / (1 + np.exp(-v))
    inp, h_n = x.astype(np.float64), []
    for k, (w_ih, w_hh, b_ih, b_hh) in enumerate(layers):
        state, outs = h[k].astype(np.float64), []
        for t in range(inp.shape[0]):
            gi, gh = inp[t] @ w_ih.T + b_ih, state @ w_hh.T + b_hh
            r = sigmoid(gi[:, :hidden] + gh[:, :hidden])
            z = sigmoid(gi[:, hidden:2 * hidden] + gh[:, hidden:2 * hidden])
            n = np.tanh(gi[:, 2 * hidden:] + r * gh[:, 2 * hidden:])
            state = n + z * (state - n)
            outs.append(state)
        inp = np.stack(outs)
        h_n.append(state)
    return inp, np.stack(h_n)


def test_cudnn_gru_reads_cudnn_flat_weight():
    rng = np.random.default_rng(1)
    inp, hid, seq, batch = 3, 4, 5, 2
    layers, flat = [], []
    for width in (inp, hid):
        parts = [rng.normal(0, 0.5, s).astype(np.float32) for s in ((3 * hid, width), (3 * hid, hid), (3 * hid,),
                                                                     (3 * hid,))]
        layers.append(parts)
        flat.extend(p.ravel() for p in parts)
    w = np.concatenate(flat).reshape(-1, 1, 1)
    x, h = rng.normal(size=(seq, batch, inp)).astype(np.float32), rng.normal(size=(2, batch, hid)).astype(np.float32)
    out, h_n, _, _ = rl.CudnnGRU(inp, hid, 2, True, False, 0.0)(ms.Tensor(x), ms.Tensor(h), ms.Tensor(w))
    want_out, want_h = _gru_reference(x, h, layers, hid)
    np.testing.assert_allclose(out.asnumpy(), want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h_n.asnumpy(), want_h, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="'w' must hold"):
        rl.CudnnGRU(inp, hid, 2, True, False, 0.0)(ms.Tensor(x), ms.Tensor(h), ms.Tensor(w[:-1]))


def test_builtin_environments_have_gpu_kernels_only():
    op = rl.EnvCreate("Tag", predator_num=2)
    assert op.attrs["predator_num"] == 2
    with pytest.raises(RuntimeError, match="GPU"):
        op()
    with pytest.raises(TypeError, match="handle"):
        rl.EnvReset("0", [(2,)], ms.float32)


def test_tensor_array_write_read_stack():
    handle = ta.TensorArray(ms.float32, (2,))()
    write = ta.TensorArrayWrite()
    for i in range(3):
        write(handle, i, ms.Tensor([i, -i], ms.float32))
    np.testing.assert_array_equal(ta.TensorArrayRead(ms.float32, (2,))(handle, 1).asnumpy(), [1, -1])
    np.testing.assert_array_equal(ta.TensorArrayStack(ms.float32, (2,), True, 0)(handle).asnumpy()[:, 0], [0, 1, 2])
    np.testing.assert_array_equal(ta.TensorArrayGather(ms.float32, (2,))(handle, ms.Tensor([2, 0])).asnumpy()[:, 0],
                                  [2, 0])
    assert int(ta.TensorArraySize()(handle)) == 3
    ta.TensorArrayClear()(handle)
    assert int(ta.TensorArraySize()(handle)) == 0
    with pytest.raises(ValueError, match="TensorArrayWrite"):
        write(handle, 0, ms.Tensor([1.0, 2.0, 3.0], ms.float32))
    ta.TensorArrayClose()(handle)
    with pytest.raises(RuntimeError, match="TensorArraySize"):
        ta.TensorArraySize()(handle)


def test_tensor_array_write_takes_a_python_number_as_a_scalar_of_its_dtype():
    handle = ta.TensorArray(ms.int32, ())()
    write = ta.TensorArrayWrite()
    write(handle, 0, 1)
    write(handle, 1, 2)
    out = ta.TensorArrayStack(ms.int32, (), True, 0)(handle)
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [1, 2])
    with pytest.raises(TypeError, match="TensorArrayWrite"):
        write(handle, 2, "3")
    vec = ta.TensorArray(ms.float32, (2,))()
    with pytest.raises(ValueError, match="TensorArrayWrite"):
        write(vec, 0, 1.5)         # a number is a scalar, not an element of shape (2,)
    ta.TensorArrayClose()(handle)
    ta.TensorArrayClose()(vec)


def test_tensors_queue_is_a_ring_of_size_slots():
    """MindSpore's TensorsQueue: `size` slots hold size - 1 elements; a put into a full queue is dropped (a
    warning), get reads the front, pop_after_get removes it; clear empties it, close frees it."""
    shapes = ((2,), ())
    handle = rl.TensorsQueueCreate(ms.float32, shapes, 3, "q")()
    assert handle.dtype == ms.int64 and handle.shape == ()
    put, size = rl.TensorsQueuePut(ms.float32, shapes), rl.TensorsQueueSize()
    get, pop = rl.TensorsQueueGet(ms.float32, shapes), rl.TensorsQueueGet(ms.float32, shapes, pop_after_get=True)
    for v in range(3):                       # the third put finds the queue full
        put(handle, (ms.Tensor([v, 2 * v], ms.float32), ms.Tensor(10.0 * v, ms.float32)))
    assert int(size(handle).asnumpy()) == 2
    front = get(handle)
    np.testing.assert_array_equal(front[0].asnumpy(), [0, 0])
    assert int(size(handle).asnumpy()) == 2
    pop(handle)
    second = pop(handle)
    np.testing.assert_array_equal(second[0].asnumpy(), [1, 2])
    assert float(second[1].asnumpy()) == 10.0 and int(size(handle).asnumpy()) == 0
    put(handle, (ms.Tensor([7, 8], ms.float32), ms.Tensor(9.0, ms.float32)))     # wraps around the ring
    np.testing.assert_array_equal(get(handle)[0].asnumpy(), [7, 8])
    rl.TensorsQueueClear()(handle)
    assert int(size(handle).asnumpy()) == 0
    np.testing.assert_array_equal(get(handle)[0].asnumpy(), [0, 0])           # empty: zeros
    with pytest.raises(ValueError, match="TensorsQueuePut"):
        put(handle, (ms.Tensor([1.0, 2.0, 3.0], ms.float32), ms.Tensor(1.0, ms.float32)))
    with pytest.raises(ValueError, match="TensorsQueuePut"):
        put(handle, (ms.Tensor([1.0, 2.0], ms.float32),))
    with pytest.raises(TypeError, match="TensorsQueueCreate"):
        rl.TensorsQueueCreate(ms.string, shapes, 3)
    rl.TensorsQueueClose()(handle)
    with pytest.raises(RuntimeError, match="TensorsQueueSize"):
        size(handle)


def test_tensors_queue_ops_repeat_inside_a_compiled_function():
    shapes = ((2,),)
    handle = rl.TensorsQueueCreate(ms.float32, shapes, 8)()
    put, pop = rl.TensorsQueuePut(ms.float32, shapes), rl.TensorsQueueGet(ms.float32, shapes, True)
    size = rl.TensorsQueueSize()

    @ms.jit
    def step(x):
        put(handle, (x,))
        put(handle, (x * 2,))
        return pop(handle)[0] + size(handle)

    outs = [step(ms.Tensor([v, v + 1], ms.float32)).asnumpy() for v in range(3)]
    # call k puts x_k and 2 x_k, pops the front (x_0, 2 x_0, x_1 in turn) and adds the k + 1 elements left
    np.testing.assert_array_equal(np.stack(outs), [[1, 2], [2, 4], [4, 5]])
    rl.TensorsQueueClose()(handle)


def test_tensor_array_ops_compile_into_the_graph_and_closing_twice_is_an_error():
    handle = ta.TensorArray(ms.float32, (2,))()
    write, size, read = ta.TensorArrayWrite(), ta.TensorArraySize(), ta.TensorArrayRead(ms.float32, (2,))

    @ms.jit
    def step(i, x):
        write(handle, i, x)
        return read(handle, i) + size(handle)

    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no fallback to the interpreter
        outs = [step(ms.Tensor(k, ms.int64), ms.Tensor([k, 2 * k], ms.float32)).asnumpy() for k in range(3)]
    np.testing.assert_array_equal(np.stack(outs), [[1, 1], [3, 4], [5, 7]])
    ta.TensorArrayClose()(handle)
    with pytest.raises(RuntimeError, match="TensorArrayClose"):
        ta.TensorArrayClose()(handle)
    queue = rl.TensorsQueueCreate(ms.float32, ((1,),), 2)()
    rl.TensorsQueueClose()(queue)
    with pytest.raises(RuntimeError, match="TensorsQueueClose"):
        rl.TensorsQueueClose()(queue)
