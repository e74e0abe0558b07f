"""float8 dtypes, MindSpore's per-tensor flags, requires_grad_/index/to_/set_, and deferred parameter init."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from mindseed.common.initializer import initializer


def _float8_values(exp_bits, man_bits, bias, ieee_inf):
    """Every finite value of a float8 format, decoded from its bit patterns."""
    vals = []
    for bits in range(256):
        sign = -1.0 if bits >> 7 else 1.0
        e = (bits >> man_bits) & ((1 << exp_bits) - 1)
        m = bits & ((1 << man_bits) - 1)
        if ieee_inf and e == (1 << exp_bits) - 1:
            continue                                  # e5m2: inf / nan
        if not ieee_inf and e == (1 << exp_bits) - 1 and m == (1 << man_bits) - 1:
            continue                                  # e4m3fn: nan only
        if e == 0:
            vals.append(sign * m / (1 << man_bits) * 2.0 ** (1 - bias))
        else:
            vals.append(sign * (1 + m / (1 << man_bits)) * 2.0 ** (e - bias))
    return np.array(sorted(set(vals)))


@pytest.mark.parametrize("dtype,fmt", [(ms.float8_e4m3fn, (4, 3, 7, False)), (ms.float8_e5m2, (5, 2, 15, True))])
def test_float8_cast_rounds_to_the_nearest_representable_value(dtype, fmt):
    grid = _float8_values(*fmt)
    x = np.array([0.1, 1.5, -3.0, 0.3, 100.0, -0.013, 7.3, 0.0], np.float32)
    y = ms.Tensor(x).astype(dtype)
    assert y.dtype == dtype and str(dtype).startswith("Float8")
    back = y.astype(ms.float32).asnumpy()
    nearest = grid[np.abs(grid[None, :] - x[:, None].astype(np.float64)).argmin(axis=1)]
    np.testing.assert_array_equal(back, nearest.astype(np.float32))
    assert ms.Tensor(x, dtype).dtype == dtype
    with pytest.raises(TypeError, match="numpy has no"):
        y.asnumpy()


def test_float8_e4m3fn_tensor_overflow_is_nan():
    # MindSpore's Tensor(data, float8_e4m3fn): a value rounding past 448 (>= 464), infinities too, is NaN
    x = np.array([449.0, 463.0, 464.0, 480.0, -512.0, 1e6, np.inf, -np.inf, 1.5, 448.0], np.float32)
    want = np.array([448, 448, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, 1.5, 448], np.float32)
    for t in (ms.Tensor(x, ms.float8_e4m3fn), ms.Tensor(x.tolist(), ms.float8_e4m3fn)):
        got = t.astype(ms.float32).asnumpy()
        np.testing.assert_array_equal(got, want)
    assert np.isnan(ms.Tensor(512, ms.float8_e4m3fn).astype(ms.float32).asnumpy())
    assert ms.Tensor(448, ms.float8_e4m3fn).astype(ms.float32).asnumpy() == 448
    # float8_e5m2 has infinities: its overflow is inf
    assert np.isinf(ms.Tensor(65535, ms.float8_e5m2).astype(ms.float32).asnumpy())


def test_hifloat8_is_a_dtype_without_kernels():
    assert isinstance(ms.hifloat8, ms.Float) and isinstance(ms.qint4x2, ms.Int)
    assert ms.hifloat8 != ms.float8_e4m3fn and ms.float8_e5m2 == ms.float8_e5m2
    with pytest.raises(TypeError, match="HiFloat8 has no CPU/GPU kernels"):
        ms.Tensor([1.0, 2.0]).astype(ms.hifloat8)


def test_qint4x2_tensors_store_packed_bytes(tmp_path):
    """A qint4x2 tensor holds one byte per element (two packed int4, as Golden Stick's AWQ weights): made from data
    cast to int8 (MindSpore 2.10's CPU: 1.5 -> 1), copied, saved in a checkpoint as MindSpore writes it (tensor_type
    'Int4', the bytes), read back; it has no arithmetic and no cast, as on MindSpore."""
    raw = np.array([[1, -2, 3], [127, -128, 5]], np.int8)
    t = ms.Tensor(raw, ms.qint4x2)
    assert (t.shape, t.dtype, t.itemsize, t.nbytes) == ((2, 3), ms.qint4x2, 1, 6)
    assert t.asnumpy().dtype == np.int8
    np.testing.assert_array_equal(t.asnumpy(), raw)
    assert ms.Tensor([[1.5, 2.0]], ms.qint4x2).asnumpy().tolist() == [[1, 2]]
    assert ms.Tensor(np.array([[1.5, -2.7]], np.float32), ms.qint4x2).asnumpy().tolist() == [[1, -2]]
    p = ms.Parameter(t, name="w")
    raw[0, 0] = 9                                  # the tensor copied its data
    assert p.dtype == ms.qint4x2 and p.asnumpy()[0].tolist() == [1, -2, 3]
    ones = initializer("ones", (2, 2), ms.qint4x2)
    assert ones.dtype == ms.qint4x2 and ones.asnumpy().tolist() == [[1, 1], [1, 1]]
    path = str(tmp_path / "q.ckpt")
    ms.save_checkpoint([{"name": "w", "data": p}], path)
    with open(path, "rb") as f:
        assert b"\x12\x04Int4\x1a\x06\x01\xfe\x03\x7f\x80\x05" in f.read()   # dims 2, 3; type; the bytes
    back = ms.load_checkpoint(path)["w"]
    assert back.dtype == ms.qint4x2 and back.asnumpy().tolist() == [[1, -2, 3], [127, -128, 5]]
    with pytest.raises(TypeError, match="Int4"):
        t.astype(ms.int8)
    with pytest.raises(TypeError, match="Int4"):
        t + 1


def test_tensor_flags_have_mindspore_defaults_and_setters():
    t = ms.Tensor([1.0, 2.0])
    assert (t.const_arg, t.init_flag, t.virtual_flag, t.init_finished) == (False, False, False, True)
    assert t.param_info is None and t.symbolic_shape is None and t.parent_tensor_ is None
    assert t.set_const_arg() is t and t.const_arg is True
    assert ms.Tensor([1.0], const_arg=True).const_arg is True
    with pytest.raises(TypeError, match="const_arg"):
        t.set_const_arg(1)
    t.set_init_flag(True)
    assert t.init_flag is True and t.is_init() is True
    assert ms.Tensor([3.0]).init_flag is False         # flags belong to their tensor


def test_requires_grad_index_to_and_set():
    p = ms.Parameter(ms.Tensor([1.0]), name="p")
    assert p.requires_grad_(False) is p and p.requires_grad is False
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = ms.Tensor(x)
    np.testing.assert_array_equal(t.index([ms.Tensor([0, 2])]).asnumpy(), x[[0, 2]])
    np.testing.assert_array_equal(t.index([None, ms.Tensor([1, 3])]).asnumpy(), x[:, [1, 3]])
    with pytest.raises(TypeError, match="indices"):
        t.index(ms.Tensor([0]))
    assert t.to_("CPU") is t
    with pytest.raises(ValueError, match="device"):
        t.to_("NPU")
    s = ms.Tensor([0.0])
    s.set_(t, 1, (2, 2), (4, 1))
    np.testing.assert_array_equal(s.asnumpy(), [[1, 2], [5, 6]])
    s.set_(t)
    np.testing.assert_array_equal(s.asnumpy(), x)
    assert s.set_().shape == (0,)
    # MindSpore 2.10 refuses a source of another dtype
    target = ms.Tensor(np.zeros(3))
    with pytest.raises(RuntimeError, match="Could not set tensor of type Float32 to a tensor of type Float64"):
        target.set_(ms.Tensor([10, 20, 30], dtype=ms.float32))
    np.testing.assert_array_equal(target.asnumpy(), np.zeros(3))


def test_no_init_parameters_defers_until_init_data_or_checkpoint():
    with nn.no_init_parameters():
        dense = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
        kept = ms.Parameter(ms.Tensor([5.0]), name="kept")
    assert all(p.has_init and p.init_param is False and not p.init_finished for p in dense.get_parameters())
    assert not kept.has_init and kept.init_param
    dense.weight.set_data(ms.Tensor(np.full((2, 3), 2.0, np.float32)))     # as a checkpoint load does
    assert not dense.weight.has_init
    dense.init_parameters_data()
    assert not dense.bias.has_init and dense.bias.init_finished
    out = dense(ms.Tensor(np.ones((1, 3), np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [[6.0, 6.0]])
    w = initializer("ones", [2], ms.float32)
    assert w.asnumpy().tolist() == [1.0, 1.0]                 # outside the context: computed at once


def test_float8_tensors_print_and_build_from_lists():
    # numpy has no float8: the values print from float32 as MindSpore's printer does (C++ %g, aligned)
    t = ms.Tensor([[2.0 ** -16, 3.0], [1.0, 2.0]], ms.float8_e5m2)
    assert t.dtype == ms.float8_e5m2
    assert repr(t) == ("Tensor(shape=[2, 2], dtype=Float8E5M2, value=\n[[1.52588e-05,           3],\n"
                       " [          1,           2]])")
    assert repr(ms.Tensor([1.5, 3.0], ms.float8_e4m3fn)) == "Tensor(shape=[2], dtype=Float8E4M3FN, value= [1.5,   3])"
    assert repr(ms.Tensor(57344, ms.float8_e5m2)) == "Tensor(shape=[], dtype=Float8E5M2, value= 57344)"
    assert repr(ms.Tensor(2.0 ** -17, ms.float8_e5m2)) == "Tensor(shape=[], dtype=Float8E5M2, value= 0)"
    np.testing.assert_array_equal(t.astype(ms.float32).asnumpy(), [[2.0 ** -16, 3.0], [1.0, 2.0]])
