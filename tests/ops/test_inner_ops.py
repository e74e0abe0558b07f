"""ops.operations._inner_ops primitives: ConvertToDynamic passes values and gradients through."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from mindseed.ops.operations import _inner_ops as inner
from _graph import graph_mode


class _Square(nn.Cell):
    def __init__(self):
        super().__init__()
        self.convert = inner.ConvertToDynamic(is_dynamic_rank=True).add_prim_attr("primitive_target", "CPU")

    def construct(self, x):
        y = self.convert(x)
        return y * y


@pytest.mark.parametrize("graph", [False, True])
def test_convert_to_dynamic_is_the_identity_for_values_and_gradients(graph):
    x = ms.Tensor(np.array([[1.0, -2.0, 3.0]], np.float32))
    net = _Square()
    grad = ops.GradOperation(get_all=True)(net)
    if graph:
        with graph_mode():
            out, (dx,) = net(x), grad(x)
    else:
        out, (dx,) = net(x), grad(x)
    np.testing.assert_array_equal(out.asnumpy(), [[1.0, 4.0, 9.0]])
    np.testing.assert_array_equal(dx.asnumpy(), [[2.0, -4.0, 6.0]])
    assert inner.ConvertToDynamic().attrs["is_dynamic_rank"] is False


def test_convert_to_dynamic_checks_its_arguments():
    with pytest.raises(TypeError, match="'is_dynamic_rank' must be bool"):
        inner.ConvertToDynamic(1)
    with pytest.raises(TypeError, match="'input' must be a Tensor"):
        inner.ConvertToDynamic()([1.0])
