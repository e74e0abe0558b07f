"""A Python float operand of an arithmetic op becomes a float32 scalar first, as in MindSpore: beside a float64 or
complex128 tensor it keeps float32's precision. Values from real MindSpore 2.10."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

F32_1_1 = float(np.float32(1.1))         # 1.100000023841858


def _f64(*values):
    return ms.Tensor(np.array(values, np.float64))


@pytest.mark.parametrize("compute, expected", [
    (lambda t: t * 1.1, 2.200000047683716),
    (lambda t: 1.1 * t, 2.200000047683716),
    (lambda t: t / 0.3, 6.666666401757145),
    (lambda t: 0.3 / t, 0.15000000596046448),
    (lambda t: t - 0.3, 1.699999988079071),
    (lambda t: 0.3 - t, -1.699999988079071),
    (lambda t: t + 0.3, 2.300000011920929),
    (lambda t: t ** 1.1, 2.143546960496664),
    (lambda t: 1.1 ** t, 1.210000052452088),
    (lambda t: t % 0.3, 0.19999992847442627),
    (lambda t: ops.maximum(t, 2.1), 2.0999999046325684),
    (lambda t: ops.minimum(t, 1.9), 1.899999976158142),
    (lambda t: t.clamp(min=2.1), 2.0999999046325684),
    (lambda t: ms.mint.mul(t, 0.3), 0.6000000238418579),
    (lambda t: t.div(0.3), 6.666666401757145),
    (lambda t: t * np.float64(1.1), 2.200000047683716),
    (lambda t: t * 1e300, np.inf),
    (lambda t: t + 1e-50, 2.0),
])
def test_a_python_float_beside_float64_has_float32_precision(compute, expected):
    out = compute(_f64(2.0))
    assert out.dtype == ms.float64
    assert out.asnumpy()[0] == expected


def test_comparisons_setitem_and_complex():
    t = _f64(2.0)
    assert (t == 2.0000000001).asnumpy()[0] and not (t > 2.0000000001).asnumpy()[0]
    t[0] = 0.3
    assert t.asnumpy()[0] == 0.30000001192092896
    c = ms.Tensor(np.array([1 + 1j], np.complex128))
    assert (c * 1.1).asnumpy()[0] == complex(F32_1_1, F32_1_1)
    assert (c + 0.1).asnumpy()[0] == complex(float(np.float32(0.1)) + 1.0, 1.0)


def test_what_keeps_full_precision():
    t = _f64(2.0)
    # a float64 Tensor operand, Fill/full with a float64 dtype, where(), float32 tensors and integers
    assert (t * ms.Tensor(1.1, ms.float64)).asnumpy()[0] == 2.2
    assert ops.fill(ms.float64, (1,), 0.3).asnumpy()[0] == 0.3
    assert ops.full((1,), 0.3, dtype=ms.float64).asnumpy()[0] == 0.3
    assert ops.where(t > 0, 0.3, t).asnumpy()[0] == 0.3
    assert (ms.Tensor(np.array([2.0], np.float32)) * 1.1).asnumpy()[0] == np.float32(2.2)
    big = ms.Tensor(np.array([2 ** 40 + 1], np.int64))
    assert (big * 3).asnumpy()[0] == 3 * (2 ** 40 + 1)
    # an int tensor with a float gives float32, as MindSpore's default float
    out = ms.Tensor(np.array([1, 2])) * np.float64(1.1)
    assert out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), np.array([1.1, 2.2], np.float32))


def test_graph_mode_rounds_the_same_way():
    f = ms.jit(lambda t: t * 1.1 + 0.3)
    assert f(_f64(2.0)).asnumpy()[0] == (_f64(2.0) * 1.1 + 0.3).asnumpy()[0]
    assert f(_f64(2.0)).asnumpy()[0] != 2.0 * 1.1 + 0.3
