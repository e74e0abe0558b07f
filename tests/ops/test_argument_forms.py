"""How primitives take their arguments: a non-Tensor input is MindSpore's 'Failed calling' TypeError; an integer
Tensor (a `mutable` inside a graph) given for a pooling window is read as its value."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops


@pytest.mark.parametrize("call, op, arg, got", [
    (lambda: ops.acos("str"), "ACos", "input", "String"),
    (lambda: ops.diagonal(1.0, 1, 1, -3), "Diagonal", "input", "Float32"),
    (lambda: ops.sin([1.0]), "Sin", "input", "List"),
])
def test_non_tensor_input_is_a_failed_calling_type_error(call, op, arg, got):
    with pytest.raises(TypeError) as info:
        call()
    msg = str(info.value)
    assert msg.startswith(f'Failed calling {op} with "{arg}={got}".')
    assert f'The valid calling should be: "{arg}=<Tensor>".' in msg
    assert f"For '{op}', the '{arg}' must be a Tensor" in msg


class _PoolWithArgs(nn.Cell):
    def construct(self, x, k, s):
        return ops.AvgPool(k, s, "VALID", "NCHW")(x)


def _avg_pool_ref(x, k, s):
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.empty((n, c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = x[:, :, i * s:i * s + k, j * s:j * s + k].mean(axis=(2, 3))
    return out


def test_pool_window_given_as_mutable_ints_in_a_graph():
    x = np.arange(2 * 3 * 5 * 6, dtype=np.float32).reshape(2, 3, 5, 6)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _PoolWithArgs()
        for k, s in ((1, 1), (2, 2), (3, 1)):
            out = net(ms.Tensor(x), ms.mutable(k), ms.mutable(s)).asnumpy()
            np.testing.assert_allclose(out, _avg_pool_ref(x, k, s), rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_reduce_attributes_and_axes_given_as_mutable_in_a_graph():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

    @ms.jit
    def reduce_sum(a, axis, keep_dims):
        return ops.ReduceSum(keep_dims=keep_dims)(x=a, axis=axis)

    @ms.jit
    def reduce_max(a, axis, keep_dims):
        return ops.ReduceMax(keep_dims)(a, axis)

    for axis, keep in ((1, True), ((1, 2), False)):
        for a, k in ((axis, keep), (ms.mutable(axis), ms.mutable(keep))):
            np.testing.assert_allclose(reduce_sum(ms.Tensor(x), a, k).asnumpy(), x.sum(axis, keepdims=keep))
            np.testing.assert_allclose(reduce_max(ms.Tensor(x), a, k).asnumpy(), x.max(axis, keepdims=keep))


def test_table_primitives_take_keyword_inputs():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    bound = ops.Partial()(ops.ReduceSum(keep_dims=True), axis=(-1,))
    np.testing.assert_allclose(bound(x=ms.Tensor(x)).asnumpy(), x.sum(-1, keepdims=True))
    np.testing.assert_allclose(ms.jit(lambda a: bound(x=a))(ms.Tensor(x)).asnumpy(), x.sum(-1, keepdims=True))
    # a primitive of the table with named inputs binds them by name
    a = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="a")
    ops.AssignAdd()(value=ms.Tensor(np.ones(3, np.float32)), variable=a)
    np.testing.assert_array_equal(a.asnumpy(), np.ones(3))


def test_nd_scatters_take_indices_of_rank_two():
    p = ms.Parameter(ms.Tensor(np.ones((5, 5), np.float32)), name="p")
    idx, upd = ms.Tensor(np.ones([1], np.int32)), ms.Tensor(np.ones([5], np.float32))
    with pytest.raises(ValueError, match="For primitive\\[ScatterNdUpdate\\], the dimension of 'indices' must be "
                                         "greater than or equal to 2"):
        ops.ScatterNdUpdate()(p, idx, upd)
    with pytest.raises(ValueError, match="For TensorScatterUpdate, the dimension of 'indices' cannot be less than 2"):
        ops.tensor_scatter_update(ms.Tensor(np.ones((5, 5), np.float32)), idx, upd)
    ops.ScatterNdUpdate()(p, ms.Tensor([[1]], ms.int32), ms.Tensor(np.full((1, 5), 7.0, np.float32)))
    np.testing.assert_array_equal(p.asnumpy()[1], np.full(5, 7.0))


@pytest.mark.parametrize("param_dtype, upd_dtype, ok", [
    (np.float32, np.float16, True), (np.float32, np.int32, True), (np.float16, np.float32, False),
    (np.int32, np.int64, False), (np.int8, np.float32, False)])
def test_in_place_scatter_never_converts_its_parameter(param_dtype, upd_dtype, ok):
    p = ms.Parameter(ms.Tensor(np.ones((3, 2), param_dtype)), name="p")
    idx = ms.Tensor(np.array([[0], [2]], np.int32))
    upd = ms.Tensor(np.full((2, 2), 2, upd_dtype))
    if ok:
        out = ops.ScatterNdAdd()(p, idx, upd)
        assert out.dtype == p.dtype
        np.testing.assert_array_equal(p.asnumpy(), [[3, 3], [1, 1], [3, 3]])
        return
    with pytest.raises(TypeError, match="Data type conversion is not supported for a 'Parameter', nor for the input "
                                        "tensor of an in-place operator, the argument\\[x\\]'s data type of "
                                        "primitive\\[ScatterNdAdd\\]"):
        ops.ScatterNdAdd()(p, idx, upd)
    with pytest.raises(TypeError, match="primitive\\[ScatterDiv\\]"):
        ops.ScatterDiv()(p, ms.Tensor(np.array([0, 2], np.int32)), upd)
