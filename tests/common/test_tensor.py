"""Tensor construction, attributes, numpy interop, printing, Python protocol; Parameter; dtype; context."""
import copy

import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed.common.initializer import (Constant, Dirac, HeNormal, HeUniform, Identity, Normal, Orthogonal,
                                         TruncatedNormal, Uniform, XavierNormal, XavierUniform, Zero, initializer)


@pytest.mark.parametrize("data,dtype", [
    ([[3, 1], [4, 1]], ms.int64), ([0.5, -1.25], ms.float32), ([True, False], ms.bool_), (7.5, ms.float32),
    (3, ms.int64), ([1, 2.5], ms.float32), (np.zeros((2,), np.float64), ms.float64),
    (np.zeros((2,), np.int32), ms.int32), (np.zeros((2,), np.uint8), ms.uint8), ((1, 2), ms.int64),
])
def test_dtype_inference(data, dtype):
    assert ms.Tensor(data).dtype == dtype


def test_explicit_dtype_and_lazy_init():
    assert ms.Tensor([1, 2, 3], dtype=ms.float16).dtype == ms.float16
    t = ms.Tensor(shape=(2, 3), dtype=ms.float32, init=Constant(0.25))
    np.testing.assert_array_equal(t.asnumpy(), np.full((2, 3), 0.25, np.float32))
    assert ms.Tensor(shape=(3,), dtype=ms.int32, init=Zero()).dtype == ms.int32
    assert ms.Tensor([1.5], ms.bfloat16).dtype == ms.bfloat16


def test_attributes():
    t = ms.Tensor(np.zeros((2, 3), np.float32))
    assert (t.shape, t.ndim, t.size, t.itemsize, t.nbytes, t.strides) == ((2, 3), 2, 6, 4, 24, (12, 4))
    s = ms.Tensor(7.5)
    assert (s.shape, s.ndim, s.size, s.strides) == ((), 0, 1, ())
    assert ms.Tensor([1, 2], ms.float16).strides == (2,)


def test_from_numpy_shares_and_tensor_copies():
    src = np.array([1.0, 2.0, 3.0], np.float32)
    shared, copied = ms.Tensor.from_numpy(src), ms.Tensor(src)
    src[1] = 42.0
    assert shared.asnumpy()[1] == 42.0 and copied.asnumpy()[1] == 2.0


def test_repr_matches_mindspore():
    # strings printed by real MindSpore 2.10
    assert repr(ms.Tensor([1, 2, 3])) == "Tensor(shape=[3], dtype=Int64, value= [1, 2, 3])"
    assert repr(ms.Tensor(7.5)) == "Tensor(shape=[], dtype=Float32, value= 7.5)"
    assert repr(ms.Tensor([0.5, -1.25, 2.0])) == \
        "Tensor(shape=[3], dtype=Float32, value= [ 5.00000000e-01, -1.25000000e+00,  2.00000000e+00])"
    assert repr(ms.Tensor([[1.5, 2], [3, 4]])) == ("Tensor(shape=[2, 2], dtype=Float32, value=\n"
                                                   "[[ 1.50000000e+00,  2.00000000e+00],\n"
                                                   " [ 3.00000000e+00,  4.00000000e+00]])")
    assert repr(ms.Tensor([1.5, 2], ms.float16)) == \
        "Tensor(shape=[2], dtype=Float16, value= [ 1.5000e+00,  2.0000e+00])"
    assert repr(ms.Tensor([True, False])) == "Tensor(shape=[2], dtype=Bool, value= [ True, False])"
    assert str(ms.Tensor([[1.5, 2], [3, 4]])) == "[[1.5 2. ]\n [3.  4. ]]"
    assert str(ms.Tensor(7.5)) == "7.5"
    long = repr(ms.Tensor(np.arange(2000, dtype=np.float32)))
    assert long.endswith("2.00000000e+00 ...  1.99700000e+03,  1.99800000e+03,  1.99900000e+03])")


def test_python_protocol():
    t = ms.Tensor([[1, 2], [3, 4]])
    assert len(t) == 2
    assert [r.tolist() for r in t] == [[1, 2], [3, 4]]
    assert t.tolist() == [[1, 2], [3, 4]]
    assert bool(ms.Tensor([1.0])) is True
    with pytest.raises(ValueError):
        bool(t)
    assert [10, 20, 30][ms.Tensor(1)] == 20
    assert np.asarray(t).dtype == np.int64
    assert ms.Tensor(2.5).item() == 2.5 and int(ms.Tensor(3)) == 3 and float(ms.Tensor(2)) == 2.0
    c = copy.deepcopy(t)
    c[0, 0] = 9
    assert t.asnumpy()[0, 0] == 1


def test_operators_and_reflected():
    a = ms.Tensor([7.0, -5.0])
    np.testing.assert_allclose((3 - a).asnumpy(), [-4, 8])
    np.testing.assert_allclose((2 / a).asnumpy(), [2 / 7, -0.4], rtol=1e-6)
    np.testing.assert_allclose((2 ** ms.Tensor([1.0, 3.0])).asnumpy(), [2, 8])
    b = a
    b += 1
    np.testing.assert_allclose(b.asnumpy(), [8, -4])
    np.testing.assert_allclose(a.asnumpy(), [7, -5])  # += makes a new tensor, as in MindSpore
    assert (a == ms.Tensor([7.0, 0.0])).tolist() == [True, False]
    assert (a @ ms.Tensor([1.0, 1.0])).item() == 2.0


def test_setitem_variants():
    x = ms.Tensor(np.zeros((3, 4), np.float32))
    x[0] = 1
    x[1, 1:3] = ms.Tensor([5.0, 6.0])
    x[x > 5] = -1
    x[[2, 2], [0, 3]] = 8
    want = np.zeros((3, 4), np.float32)
    want[0] = 1
    want[1, 1:3] = [5, -1]
    want[2, [0, 3]] = 8
    np.testing.assert_array_equal(x.asnumpy(), want)


def test_a_write_into_a_basic_slice_lands_in_the_indexed_tensor():
    want = np.arange(12.0).reshape(3, 4)
    x = ms.Tensor(want.copy())
    x[0][1] = -1.0                  # x[0] is a view of x, as in MindSpore's PyNative
    want[0][1] = -1.0
    row = x[2]
    x[2, 3] = 50.0                  # the base changes after the slice was taken ...
    row[0] = 40.0                   # ... and a write into the slice keeps that change
    want[2, 3], want[2, 0] = 50.0, 40.0
    np.testing.assert_array_equal(row.asnumpy(), want[2])
    x[1:, ::2][0, 1] = 7.0          # a slice of a slice
    want[1:, ::2][0, 1] = 7.0
    x[..., None][0, 2, 0] = 8.0
    want[0, 2] = 8.0
    np.testing.assert_array_equal(x.asnumpy(), want)
    # advanced indexing copies
    picked = x[ms.Tensor([0, 1])]
    picked[0, 0] = 99.0
    x[[0]][0, 0] = 99.0
    np.testing.assert_array_equal(x.asnumpy(), want)
    # copy_ then a write into a row
    y = ms.Tensor(np.zeros((2, 2), np.int64))
    z = y.copy_(ms.Tensor([5.0, 6.0]))
    y[0][0] = 0
    np.testing.assert_array_equal(z.asnumpy(), [[0, 6], [5, 6]])
    assert z.dtype == ms.int64


def test_a_slice_of_a_slice_keeps_only_the_root_alive_and_writes_reach_it():
    import weakref
    x = ms.Tensor(np.arange(24.0).reshape(2, 3, 4))
    y = x[1:]
    mid = weakref.ref(y)
    for _ in range(2):
        y = y[0]                    # a chain of slices: only x and the path are held, not each copy
    assert mid() is None
    y[1] = -5.0                     # x[1:][0][0][1] is x[1, 0, 1]
    want = np.arange(24.0).reshape(2, 3, 4)
    want[1, 0, 1] = -5.0
    np.testing.assert_array_equal(x.asnumpy(), want)
    np.testing.assert_array_equal(y.asnumpy(), want[1, 0])


def test_a_write_into_a_slice_of_a_gradient_input_is_refused():
    def f(x):
        row = x[0]
        row[0] = 1.0
        return row.sum()
    with pytest.raises(RuntimeError, match="Can not modify tensor id of input tensor"):
        ms.grad(f)(ms.Tensor(np.ones((2, 3), np.float32)))

    def g(x):       # a slice of an intermediate: the write is part of the computation
        z = x * 2
        z[0][1] = 0.0
        return (z * z).sum()
    x = np.arange(6.0).reshape(2, 3)
    grad = ms.grad(g)(ms.Tensor(x))
    want = 8 * x
    want[0, 1] = 0.0
    np.testing.assert_allclose(grad.asnumpy(), want)


def test_astype_and_bfloat16_roundtrip():
    a = ms.Tensor([7.9, -5.5, 0.0])
    assert a.astype(ms.int32).tolist() == [7, -5, 0]
    assert ms.Tensor([0.0, 1.5]).astype(ms.bool_).tolist() == [False, True]
    b = a.astype(ms.bfloat16)
    assert b.dtype == ms.bfloat16
    np.testing.assert_allclose(b.astype(ms.float32).asnumpy(), [7.90625, -5.5, 0.0])
    assert str(b.asnumpy().dtype) == "bfloat16"  # ml_dtypes' numpy bfloat16, as MindSpore's np_dtype


def test_parameter_basics():
    p = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    assert repr(p) == "Parameter (name=w, shape=(2,), dtype=Float32, requires_grad=True)"
    assert isinstance(p, ms.Tensor) and p.requires_grad
    p.set_data(ms.Tensor([3.0, 4.0]))
    assert p.tolist() == [3.0, 4.0]
    # a value of another shape replaces the parameter's shape too (MindSpore 2.10)
    p.set_data(ms.Tensor([1.0, 2.0, 3.0]))
    assert p.shape == (3,) and p.tolist() == [1.0, 2.0, 3.0]
    p.set_data(ms.Tensor([3.0, 4.0]))
    q = ms.Parameter(ms.Tensor([1.0]), requires_grad=False)
    assert q.name.startswith("Parameter#") and not q.requires_grad
    with pytest.raises(TypeError):
        ms.ParameterTuple([p, ms.Tensor([1.0])])
    a, b = ms.Parameter(ms.Tensor([1.0]), name="same"), ms.Parameter(ms.Tensor([2.0]), name="same")
    with pytest.raises(ValueError, match="its name 'same' already exists. Please set a unique name"):
        ms.ParameterTuple((a, b))
    unnamed = ms.ParameterTuple([ms.Parameter(ms.Tensor([1.0])), ms.Parameter(ms.Tensor([2.0])), a, a])
    assert [x.tolist() for x in unnamed] == [[1.0], [2.0], [1.0], [1.0]]


def test_parameter_tuple_refuses_two_parameters_of_one_name():
    a, b = ms.Parameter(ms.Tensor(1.0), name="a"), ms.Parameter(ms.Tensor(2.0), name="a")
    with pytest.raises(ValueError) as info:
        ms.ParameterTuple([a, b])
    assert str(info.value) == ("The value Parameter (name=a, shape=(), dtype=Float32, requires_grad=True) , its name "
                               "'a' already exists. Please set a unique name for the parameter.")
    # the same Parameter twice is one parameter, kept twice
    assert len(ms.ParameterTuple([a, a])) == 2


def test_initializer_fans_and_statistics():
    ms.set_seed(3)
    shape = (400, 300)
    fan_in, fan_out = 300, 400
    checks = [
        (Normal(sigma=0.02), 0.02), (Uniform(scale=0.1), 0.1 / np.sqrt(3)),
        (XavierUniform(), np.sqrt(6 / (fan_in + fan_out)) / np.sqrt(3)),
        (XavierNormal(), np.sqrt(2 / (fan_in + fan_out))),
        (HeUniform(), np.sqrt(2.0) * np.sqrt(3 / fan_in) / np.sqrt(3)), (HeNormal(), np.sqrt(2.0 / fan_in)),
        (HeUniform(negative_slope=np.sqrt(5)), np.sqrt(2 / 6) * np.sqrt(3 / fan_in) / np.sqrt(3)),
    ]
    for init, std in checks:
        a = initializer(init, shape, ms.float32).asnumpy()
        assert abs(a.std() - std) < 0.03 * std, type(init).__name__
        assert abs(a.mean()) < 0.05 * std
    tn = initializer(TruncatedNormal(sigma=1.0), (10000,), ms.float32).asnumpy()
    assert tn.min() >= -2 and tn.max() <= 2
    assert initializer("ones", (2, 2), ms.int32).asnumpy().tolist() == [[1, 1], [1, 1]]
    np.testing.assert_array_equal(initializer(Identity(), (2, 3)).asnumpy(), np.eye(2, 3))
    q = initializer(Orthogonal(), (4, 6)).asnumpy()
    np.testing.assert_allclose(q @ q.T, np.eye(4), atol=1e-5)
    d = initializer(Dirac(), (2, 2, 3, 3)).asnumpy()
    assert d[0, 0, 1, 1] == 1 and d[1, 1, 1, 1] == 1 and d.sum() == 2
    with pytest.raises(ValueError, match="init"):
        initializer("bogus", (2,))
    with pytest.raises(ValueError, match="fan"):
        initializer(XavierUniform(), (3,))


def test_set_seed_reproducible_initializers():
    ms.set_seed(11)
    a = initializer(Normal(), (5,)).asnumpy()
    ms.set_seed(11)
    b = initializer(Normal(), (5,)).asnumpy()
    c = initializer(Normal(), (5,)).asnumpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(b, c)


def test_dtype_objects():
    assert str(ms.float32) == "Float32" and str(ms.int8) == "Int8" and str(ms.bool_) == "Bool"
    # repr is the name in the mindspore namespace (values MindSpore 2.10 printed)
    assert [repr(t) for t in (ms.float32, ms.bool_, ms.string, ms.list_, ms.float8_e4m3fn, ms.qint4x2)] == [
        "mindspore.float32", "mindspore.bool", "mindspore.string_", "mindspore.list_", "mindspore.float8_e4m3fn",
        "mindspore.int4"]
    assert repr(ms.TensorType(ms.float32)) == "mindspore.tensor[float32]" and str([ms.int64]) == "[mindspore.int64]"
    assert ms.dtype.float32 is ms.float32 and ms.double == ms.float64
    # MindSpore's float_ / int_ / uint are the generic kinds, equal to no sized type
    assert (str(ms.float_), repr(ms.float_), str(ms.int_), repr(ms.uint)) == ("Float", "mindspore.float", "Int",
                                                                              "mindspore.uint")
    assert ms.float_ != ms.float32 and ms.int_ != ms.int64
    with pytest.raises(TypeError):
        ms.Tensor([1.0], ms.float_)
    assert ms.dtype_to_nptype(ms.int16) == np.int16 if hasattr(ms, "dtype_to_nptype") else True
    assert ms.dtype.dtype_to_nptype(ms.float16) == np.float16
    assert ms.dtype.pytype_to_dtype(bool) == ms.bool_


def test_get_py_obj_dtype_of_values_and_types():
    d = ms.dtype
    for obj, want in ((1.5, d.float64), (float, d.float64), (100, d.int64), (int, d.int64), (False, d.bool_),
                      (bool, d.bool_), (0.1 + 3j, d.complex128), ([1], d.list_), (list, d.list_), ((1,), d.tuple_),
                      (tuple, d.tuple_), (None, d.type_none), ("s", d.string), (np.float32(1), d.float32),
                      (lambda: 0, d.function), (ms.nn.Cell, d.function), (ms.float16, d.type_type)):
        assert d.get_py_obj_dtype(obj) == want, obj
    assert d.get_py_obj_dtype(ms.Tensor([1.0])) == d.TensorType(ms.float32)
    with pytest.raises(NotImplementedError, match="cannot be converted to MindSpore type"):
        d.get_py_obj_dtype({})
    with pytest.raises(NotImplementedError):
        d.get_py_obj_dtype(type(float))
    with pytest.raises(TypeError, match="must be a python type object"):
        d.pytype_to_dtype(3)
    # a graph's float scalar is Float32
    assert ms.ops.typeof(1.5) == ms.float32 and ms.ops.typeof(2) == ms.int64


def test_context_keys():
    ms.set_context(mode=ms.GRAPH_MODE)
    assert ms.get_context("mode") == ms.GRAPH_MODE
    ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=True, max_call_depth=2000, jit_config={"jit_level": "O0"})
    assert ms.get_context("save_graphs") == 2 and ms.get_context("max_call_depth") == 2000
    assert ms.get_context("device_target") == "CPU"
    with pytest.raises(ValueError, match="not recognized"):
        ms.set_context(bogus_key=1)
    with pytest.raises(ValueError, match="mode"):
        ms.set_context(mode=5)
    with pytest.raises(ValueError, match="ascend_config"):
        ms.set_context(precision_mode="x")
    ms.set_device("CPU")
    from mindseed.common import context
    assert not context._deterministic_configured
    try:
        ms.set_deterministic(True)
        assert ms.get_context("deterministic") == "ON"
        with pytest.raises(RuntimeError, match="The 'mindspore.set_deterministic' can not be set repeatedly."):
            ms.set_deterministic(False)       # once per process, as in MindSpore
        assert ms.get_context("deterministic") == "ON"
    finally:
        context._deterministic_configured.clear()
        ms.set_context(deterministic="OFF")
    ms.set_context(save_graphs=False)


def test_sparse_tensors():
    csr = ms.CSRTensor(ms.Tensor([0, 2, 2, 3], ms.int32), ms.Tensor([1, 3, 0], ms.int32),
                       ms.Tensor([1.5, -2.0, 4.0]), (3, 4))
    np.testing.assert_array_equal(csr.to_dense().asnumpy(), [[0, 1.5, 0, -2], [0, 0, 0, 0], [4, 0, 0, 0]])
    coo = ms.COOTensor(ms.Tensor([[0, 1], [1, 2]], ms.int32), ms.Tensor([3.0, -1.0]), (2, 3))
    np.testing.assert_array_equal(coo.to_dense().asnumpy(), [[0, 3, 0], [0, 0, -1]])
    assert coo.astype(ms.int32).dtype == ms.int32


def test_getitem_errors():
    x = ops.ones((2, 3))
    with pytest.raises(IndexError):
        x[2]
    with pytest.raises(IndexError):
        x[ms.Tensor([0.5])]


def test_astype_takes_dtype_names_and_numpy_types():
    x = ms.Tensor(np.array([1.5, -2.5], np.float32))
    for dtype, want in (("float16", ms.float16), ("bfloat16", ms.bfloat16), ("int32", ms.int32),
                        (np.float64, ms.float64), (np.dtype("int8"), ms.int8), (ms.bool_, ms.bool_)):
        assert x.astype(dtype).dtype == want
    assert ms.jit(lambda x: x.astype("float16"))(x).dtype == ms.float16
    with pytest.raises(NotImplementedError, match="cannot be converted to MindSpore type"):
        x.astype(object)     # as MindSpore: pytype_to_dtype's error
    with pytest.raises(TypeError, match="For 'Tensor', the 'dtype'"):
        ms.Tensor([1.5], dtype=object)


def test_parameter_set_data_casts_any_tensor_to_the_parameter_dtype():
    p = ms.Parameter(ms.Tensor([1], ms.int64), name="p")
    p.set_data(ms.Tensor([3], ms.int32))
    assert p.dtype == ms.int64 and p.asnumpy().tolist() == [3]
    p.set_data(ms.Tensor([3.75], ms.float32))      # MindSpore 2.10 casts (truncating), where 2.2 refused
    assert p.dtype == ms.int64 and p.asnumpy().tolist() == [3]

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.param = ms.Parameter(ms.Tensor([1], ms.int64), name="param")

        def construct(self, x):
            self.param = x * 2
            return self.param

    net = Net()
    assert net(ms.Tensor([1], ms.int32)).asnumpy().tolist() == [2] and net.param.dtype == ms.int64


def test_python_ints_out_of_a_dtype_range_as_mindspore():
    # wrapped into an integer dtype as a C cast does; past int64 without dtype UInt64; past 64 bits a RuntimeError
    assert ms.Tensor(300, ms.uint8).asnumpy().item() == 44
    assert ms.Tensor(2 ** 63, ms.int64).asnumpy().item() == -2 ** 63
    assert ms.Tensor(70000, ms.int16).asnumpy().item() == 4464
    big = ms.Tensor(2 ** 63)
    assert big.dtype == ms.uint64 and big.asnumpy().item() == 2 ** 63
    with pytest.raises(RuntimeError, match="fits no 64-bit integer"):
        ms.Tensor(2 ** 64, ms.int64)
    with pytest.raises(TypeError, match="contain unsupported element"):
        ms.Tensor([2 ** 64], ms.int64)


def test_tensor_select_takes_a_dim_and_index_or_a_condition_and_y():
    x = ms.Tensor(np.arange(6).reshape(2, 3))
    assert x.select(1, 2).asnumpy().tolist() == [2, 5] and x.select(1, ms.Tensor(2)).asnumpy().tolist() == [2, 5]
    f = ms.Tensor([2.0, 3.0], ms.float32)
    cond = ms.Tensor([True, False])
    assert f.select(cond, ms.Tensor([1.0, 2.0])).asnumpy().tolist() == [2.0, 2.0]
    assert f.select(cond, 1.5).asnumpy().tolist() == [2.0, 1.5]
    assert ms.Tensor([2, 3], ms.int32).select(cond, 1).asnumpy().tolist() == [2, 1]
    with pytest.raises(TypeError, match="if the argument 'y' is int, then the tensor type should be int32"):
        f.select(cond, 1)
    with pytest.raises(TypeError, match="Failed calling select"):
        f.select(1, ms.Tensor([1.0, 2.0]))


def test_tensor_split_takes_both_spellings():
    x = ms.Tensor(np.arange(12).reshape(4, 3))
    assert [t.shape for t in x.split(split_size=2, dim=0)] == [(2, 3), (2, 3)]
    assert [t.shape for t in x.split(split_size_or_sections=(1, 2), axis=1)] == [(4, 1), (4, 2)]
    assert [t.shape for t in x.split(3)] == [(3, 3), (1, 3)]


def test_offload_and_load_hints_keep_the_values():
    x = ms.Tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x._offload() is None and x._offload() is None
    p = ms.Parameter(ms.Tensor(1.0))
    assert p._load() is None
    assert (x * 2).asnumpy().tolist() == [[2.0, 4.0], [6.0, 8.0]] and float(p.asnumpy()) == 1.0


def test_tensor_min_max_numpy_form_argument_types():
    x = ms.Tensor(np.arange(4).reshape((2, 2)).astype(np.float32))
    where = ms.Tensor([False, True])
    assert x.min(axis=0, keepdims=False, initial=9.0, where=where).asnumpy().tolist() == [9.0, 1.0]
    assert x.max(axis=0, initial=-1.0).asnumpy().tolist() == [2.0, 3.0]
    with pytest.raises(TypeError):
        x.min(axis=0, initial=9, where=None)
    with pytest.raises(TypeError, match="'return_indices' must be bool"):
        x.min(axis=0, initial=9, where=where, return_indices=1)
