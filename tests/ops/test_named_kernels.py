"""Kernels reached through a user's own Primitive declaration of their name (MindSpore's backend-only kernels)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from mindseed.ops import PrimitiveWithInfer, prim_attr_register
from _graph import graph_mode


class Shift(PrimitiveWithInfer):
    @prim_attr_register
    def __init__(self, periods=1, axis=-1):
        self.init_prim_io_names(inputs=["x", "fill_value"], outputs=["output"])


class _Net(nn.Cell):
    def __init__(self, periods, axis):
        super().__init__()
        self.shift = Shift(periods, axis)

    def construct(self, x, fill_value):
        return self.shift(x, fill_value)


def _np_shift(a, periods, axis, fill):
    out = np.full_like(a, fill)
    n = a.shape[axis]
    p = max(-n, min(n, periods))
    src = [slice(None)] * a.ndim
    dst = [slice(None)] * a.ndim
    src[axis], dst[axis] = (slice(0, n - p), slice(p, n)) if p >= 0 else (slice(-p, n), slice(0, n + p))
    out[tuple(dst)] = a[tuple(src)]
    return out


@pytest.mark.parametrize("graph", [False, True])
@pytest.mark.parametrize("periods, axis", [(2, 1), (-3, 0), (0, 1), (9, -1), (-40, 0)])
def test_shift_by_name_matches_numpy(graph, periods, axis):
    a = np.random.RandomState(0).randn(5, 6).astype(np.float32)
    net = _Net(periods, axis)
    if graph:
        with graph_mode():
            out = net(ms.Tensor(a), np.nan)
    else:
        out = net(ms.Tensor(a), np.nan)
    np.testing.assert_array_equal(out.asnumpy(), _np_shift(a, periods, axis, np.nan))


def test_shift_keeps_int_and_bool_dtypes():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = Shift(1, 1)(ms.Tensor(a), -4)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [[-4, 0, 1], [-4, 3, 4]]
    b = np.array([True, False, True])
    assert Shift(-1, 0)(ms.Tensor(b), False).asnumpy().tolist() == [False, True, False]


def test_a_primitive_of_an_unknown_name_still_says_it_has_no_implementation():
    class NoSuchKernel(PrimitiveWithInfer):
        @prim_attr_register
        def __init__(self):
            pass

    with pytest.raises(TypeError, match="Primitive 'NoSuchKernel' has no implementation"):
        NoSuchKernel()(ms.Tensor([1.0]))
