"""An op that takes a size, a bound or an axis as a tensor (`OneHot`'s depth, `range`'s bounds, a `mutable` axis)
reads its value where MindSpore's kernel reads it at run time. In a graph that value is a constant when the
arguments fix it (an argument, or computed from arguments only): the graph is compiled per value of those
arguments, without a fallback even under STRICT. The user's own reads of values (`asnumpy()`, `bool(t)` outside
a converted condition) are left to the fallback (or STRICT's error), as in MindSpore; under STRICT `t.item()` is a
scalar of the graph, as in MindSpore."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from _graph import no_fallback


@pytest.fixture
def strict():
    ms.set_context(jit_syntax_level=ms.STRICT)
    yield
    ms.set_context(jit_syntax_level=ms.LAX)


def _eye_rows(x, n):
    return ops.OneHot()(x, n, ms.Tensor(2.0), ms.Tensor(0.0))


def test_an_argument_an_op_reads_keys_the_graph_on_its_value(strict):
    f = ms.jit(_eye_rows)
    idx = ms.Tensor(np.array([0, 2], np.int32))
    for n in (3, 5, 3, 4):
        out = no_fallback(f, idx, ms.Tensor(n, ms.int32)).asnumpy()
        np.testing.assert_array_equal(out, 2 * np.eye(n, dtype=np.float32)[[0, 2]])
    assert f.traces == 3      # 3, 5, 4: the second call with 3 reuses its graph


def test_bounds_given_as_tensors_in_graph_mode_cells(strict):
    class Range(ms.nn.Cell):
        def construct(self, start, limit, delta):
            return ops.range(start, limit + 1, delta) * 2

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Range()
        for a, b, d in ((1, 6, 2), (0, 3, 1)):
            out = net(ms.Tensor([a]), ms.Tensor([b]), ms.Tensor([d])).asnumpy()
            np.testing.assert_array_equal(out, np.arange(a, b + 1, d) * 2)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_a_value_computed_from_arguments_only_is_keyed_on_them(strict):
    @ms.jit
    def f(x, n, w):
        return _eye_rows(x, n * 2 - 1) + w

    w = ms.Parameter(ms.Tensor(np.ones(1, np.float32)), name="w")
    idx = ms.Tensor(np.array([1], np.int32))
    for n in (2, 3, 2):
        out = no_fallback(f, idx, ms.Tensor(n, ms.int32), w).asnumpy()
        np.testing.assert_array_equal(out, 2 * np.eye(2 * n - 1, dtype=np.float32)[[1]] + 1)
    assert f.traces == 2


def test_parameters_random_draws_and_the_users_reads_stay_run_time_values(strict):
    idx = ms.Tensor(np.array([1], np.int32))
    depth = ms.Parameter(ms.Tensor(3, ms.int32), name="depth")
    with pytest.raises(RuntimeError, match="one graph"):
        ms.jit(_eye_rows)(idx, depth)
    with pytest.raises(RuntimeError, match="one graph"):
        ms.jit(lambda x: _eye_rows(x, (ops.rand(()) * 0 + 3).astype(ms.int32)))(idx)
    # under STRICT a user's item() is a scalar of the graph (MindSpore 2.10 gives [1. 1. 1.]), a size here
    sized = ms.jit(lambda x, n: ops.zeros(int(n.item())) + x)
    np.testing.assert_array_equal(sized(ms.Tensor(1.0), ms.Tensor(3)).asnumpy(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(sized(ms.Tensor(2.0), ms.Tensor(2)).asnumpy(), [2.0, 2.0])


def test_a_mutable_axis_read_by_an_op_under_dynamic_shapes(strict):
    class Shift(ms.nn.Cell):
        def construct(self, x, dim):
            return ops.fftshift(x, dim)

    net = Shift()
    net.set_inputs(ms.Tensor(shape=[None, None], dtype=ms.float32), ms.mutable(0))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        for shape, dim in (((2, 3), 0), ((4, 5), 0), ((4, 5), 1), ((6, 3), 1)):
            x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
            out = net(ms.Tensor(x), ms.mutable(dim)).asnumpy()
            np.testing.assert_array_equal(out, np.fft.fftshift(x, dim))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_arguments_whose_values_change_at_every_call_stop_being_keyed():
    f = ms.jit(_eye_rows)
    idx = ms.Tensor(np.array([0], np.int32))
    for n in range(1, 21):
        np.testing.assert_array_equal(f(idx, ms.Tensor(n, ms.int32)).asnumpy(), 2 * np.eye(n, dtype=np.float32)[[0]])
    assert f.traces <= 17
