"""An argument tensor whose value the traced Python reads (`n.item()`, `int(n)`, `n.asnumpy()`) is a constant of
the graph, as MindSpore computes such values: no fallback even under STRICT, and one graph per value."""
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
    return ops.one_hot(x, int(n.item()), ms.Tensor(1.0), ms.Tensor(0.0)) * 2


def test_an_argument_read_as_a_number_keys_the_graph_on_its_value(strict):
    f = ms.jit(_eye_rows)
    idx = ms.Tensor(np.array([0, 2], np.int32))
    for n in (3, 5, 3, 4):
        out = no_fallback(f, idx, ms.Tensor(n, ms.int32)).asnumpy()
        np.testing.assert_array_equal(out, 2 * np.eye(n, dtype=np.float32)[[0, 2]])
    assert f.traces == 3      # 3, 5, 4: the second call with 3 reuses its graph


def test_a_value_read_of_an_argument_under_strict_in_graph_mode_cells(strict):
    class Range(ms.nn.Cell):
        def construct(self, start, limit):
            return ops.arange(int(start.asnumpy()), int(limit.item()), 1) * 1.5

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Range()
        np.testing.assert_allclose(net(ms.Tensor(1), ms.Tensor(4)).asnumpy(), np.arange(1, 4) * 1.5)
        np.testing.assert_allclose(net(ms.Tensor(0), ms.Tensor(2)).asnumpy(), np.arange(0, 2) * 1.5)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_a_value_computed_in_the_graph_still_stops_strict(strict):
    @ms.jit
    def f(x):
        return ops.zeros(int((x * 2).sum().item()))

    with pytest.raises(RuntimeError, match="one graph"):
        f(ms.Tensor(np.array([1, 1], np.int32)))


def test_a_parameter_argument_is_not_a_constant(strict):
    @ms.jit
    def f(p):
        return ops.zeros(int(p.item()))

    with pytest.raises(RuntimeError, match="one graph"):
        f(ms.Parameter(ms.Tensor(3, ms.int32), name="n"))
