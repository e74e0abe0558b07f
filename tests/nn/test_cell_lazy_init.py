"""MindSpore's first call of a cell initializes its own Parameters made under `nn.utils.no_init_parameters` (PyNative
and GRAPH_MODE): the values of the same network made eagerly with the same seed; an abstract recording of the
parallel partitioner leaves them waiting (a run on processes initializes them in slices)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from mindseed.nn.utils import no_init_parameters
from mindseed.parallel._spmd import record


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 3)
        self.scale = ms.Parameter(ms.common.initializer.initializer("normal", [3], ms.float32), name="scale")

    def construct(self, x):
        return self.fc(x) * self.scale


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_the_first_call_initializes_the_cells_parameters(mode):
    ms.set_context(mode=mode)
    try:
        ms.set_seed(3)
        with no_init_parameters():
            lazy = Net()
        assert all(p.has_init for p in lazy.get_parameters())
        x = ms.ops.ones((4, 2), ms.float32)
        out = lazy(x)
        assert not any(p.has_init for p in lazy.get_parameters())
        # the outer cell's own parameter is drawn at its call, the Dense's at the Dense's (after it)
        want = (x.asnumpy() @ lazy.fc.weight.asnumpy().T + lazy.fc.bias.asnumpy()) * lazy.scale.asnumpy()
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
        assert lazy.fc.weight.asnumpy().std() > 0 and lazy.scale.asnumpy().std() > 0
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_the_values_are_the_eager_ones():
    ms.set_seed(3)
    with no_init_parameters():
        lazy = nn.Dense(2, 3)
    lazy(ms.ops.ones((1, 2), ms.float32))
    ms.set_seed(3)
    eager = nn.Dense(2, 3)
    np.testing.assert_array_equal(lazy.weight.asnumpy(), eager.weight.asnumpy())
    np.testing.assert_array_equal(lazy.bias.asnumpy(), eager.bias.asnumpy())


def test_an_abstract_recording_leaves_them_waiting():
    with no_init_parameters():
        lazy = nn.Dense(2, 3)
    program = record(lambda x: lazy(x), ms.ops.ones((1, 2), ms.float32), abstract=True)
    assert [c.prim.name for c in program.calls] == ["Dense"]
    assert lazy.weight.has_init and lazy.bias.has_init
    lazy(ms.ops.ones((1, 2), ms.float32))
    assert not lazy.weight.has_init
