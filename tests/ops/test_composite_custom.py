"""ops.MultitypeFuncGraph / HyperMap / Map, ops.Custom("pyfunc"), ops.DType, Tensor.value: eager, grad and jit."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops


def t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def _overloaded():
    f = ops.MultitypeFuncGraph("f")

    @f.register("Number", "Number")
    def _(x, y):
        return x + y

    @f.register("Tensor", "Tensor")
    def _(x, y):
        return ops.mul(x, y)

    @f.register("Tensor", "Number")
    def _(x, y):
        return x - y
    return f


# ---------------------------------------------------------------- MultitypeFuncGraph
def test_multitype_dispatch_by_registered_types():
    f = _overloaded()
    assert f(1, 2) == 3
    np.testing.assert_allclose(f(t([1.0, 2.0]), t([3.0, 4.0])).asnumpy(), [3.0, 8.0])
    np.testing.assert_allclose(f(t([1.0]), 3).asnumpy(), [-2.0])


def test_multitype_first_registration_wins_and_type_lattice():
    s = ops.MultitypeFuncGraph("s")
    for name in ("Bool", "Int", "Number", "Float", "String", "None", "Tuple", "List", "Function"):
        s.register(name)(lambda x, name=name: name)
    # bool is registered before Number; a float matches Number before Float (registration order, as MindSpore)
    assert [s(v) for v in (True, 1, 1.5, "a", None, (1,), [1], len)] == \
        ["Bool", "Int", "Number", "String", "None", "Tuple", "List", "Function"]
    e = ops.MultitypeFuncGraph("e")
    e.register("Tensor[Int32]")(lambda x: "int32")
    e.register(ms.tensor_type(ms.float32))(lambda x: "float32")
    e.register(ms.number)(lambda x: "number")
    assert e(t([1], np.int32)) == "int32" and e(t([1.0])) == "float32" and e(np.float32(2.0)) == "number"
    i64 = ops.MultitypeFuncGraph("i64")
    i64.register("Int64")(lambda x: "i64")
    i64.register("Int32")(lambda x: "i32")
    assert i64(3) == "i64" and i64(np.int32(3)) == "i32"


def test_multitype_python_float_matches_float32_and_float64():
    # a Python float is MindSpore's Float32 scalar; a Float64-only registration takes it too (numpy keeps its width)
    f32, f64 = ops.MultitypeFuncGraph("f32"), ops.MultitypeFuncGraph("f64")
    for f in (f32, f64):
        f.register("Int64", "Int64")(lambda x, y: x - y)
    f32.register("Float32", "Float32")(lambda x, y: x + y)
    f64.register("Float64", "Float64")(lambda x, y: x * y)
    assert f32(1.5, 2.0) == 3.5 and f64(1.5, 2.0) == 3.0 and f32(5, 2) == 3
    assert ms.jit(lambda a, b: f32(a, b))(1.0, 2.0) == 3.0
    with pytest.raises(ValueError, match="cannot find fn match"):
        f32(np.float64(1.0), np.float64(2.0))


def test_multitype_errors():
    f = _overloaded()
    with pytest.raises(ValueError, match="For 'MultitypeFuncGraph', cannot find fn match given args"):
        f("a", 1)
    with pytest.raises(ValueError, match="cannot find fn match"):
        f(1, 2, 3)
    with pytest.raises(TypeError, match="can not be numpy.ndarray"):
        f(np.ones(2), 1)
    with pytest.raises(ValueError, match="Unsupported type name: Bad!"):
        f.register("Bad")(lambda x: x)
    with pytest.raises(TypeError, match="register only support str"):
        f.register(3)(lambda x: x)


# ---------------------------------------------------------------- HyperMap / Map
def test_hypermap_recurses_and_returns_tuples():
    f = _overloaded()
    assert ops.HyperMap()(f, (1, 2), (3, 4)) == (4, 6)
    assert ops.HyperMap(f)(((1, 2), (3,)), ((4, 5), (6,))) == ((5, 7), (9,))
    assert ops.HyperMap(f)((1, 2), (3,)) == (4,)  # shortest wins, as zip
    out = ops.HyperMap()(f, [t([1.0])], [t([2.0])])
    assert isinstance(out, tuple)
    np.testing.assert_allclose(out[0].asnumpy(), [2.0])
    assert ops.HyperMap()(lambda x, y: x * y, 2, 3) == 6  # leaves are applied directly


def test_map_one_level_only():
    f = _overloaded()
    assert ops.Map()(f, (1, 2), (3, 4)) == (4, 6)
    assert ops.Map()(lambda x: x * 2, [1, 2]) == (2, 4)
    assert ops.Map(f)((1, 2), (3, 4)) == (4, 6)
    with pytest.raises(ValueError, match="cannot find fn match"):
        ops.Map(f)(((1, 2),), ((3, 4),))
    with pytest.raises(TypeError, match="'ops' must be"):
        ops.Map(3)


def test_hypermap_in_jit_and_grad():
    scale = ops.MultitypeFuncGraph("scale")

    @scale.register("Number", "Tensor")
    def _(s, g):
        return g * s

    hyper = ops.HyperMap()

    @ms.jit
    def step(gs):
        return hyper(ops.partial(scale, 0.5), gs)

    gs = (t([2.0, 4.0]), t([[1.0]]))
    out = step(gs)
    np.testing.assert_allclose(out[0].asnumpy(), [1.0, 2.0])
    np.testing.assert_allclose(out[1].asnumpy(), [[0.5]])
    out = step((t([6.0, 8.0]), t([[3.0]])))  # the compiled graph runs again on new values
    np.testing.assert_allclose(out[0].asnumpy(), [3.0, 4.0])

    def loss(x):
        return ops.Map()(lambda a: (a * a).sum(), (x, x * 2))[1]
    np.testing.assert_allclose(ms.grad(loss)(t([1.0, 2.0])).asnumpy(), [8.0, 16.0])


# ---------------------------------------------------------------- DType / Tensor.value
def test_dtype_primitive_and_tensor_value():
    assert ops.DType()(t([1.0])) == ms.float32 and ops.DType()(t([1], np.int32)) == ms.int32
    assert repr(ops.DType()) == "Prim[DType]"
    with pytest.raises(TypeError, match="must be a Tensor, CSRTensor or COOTensor"):
        ops.DType()(1.0)
    x = t([1.0, 2.0])
    assert x.value() is x
    p = ms.Parameter(t([3.0]), name="p")
    assert type(p.value()) is ms.Tensor and p.value().item() == 3.0


# ---------------------------------------------------------------- Custom("pyfunc")
def _mul(a, b):
    assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
    return a * b


def _mul_bprop(a, b, out, dout):
    return dout * b, dout * a


X, Y = [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_custom_pyfunc_values(dtype):
    x, y = t(X, dtype), t(Y, dtype)
    by_fn = ops.Custom(_mul, lambda a, b: a, lambda a, b: a, "pyfunc")
    out = by_fn(x, y)
    assert out.dtype == x.dtype
    np.testing.assert_allclose(out.asnumpy(), np.multiply(X, Y))
    by_value = ops.Custom(_mul, (3,), ms.float32)
    assert by_value(x, y).dtype == ms.float32
    multi = ops.Custom(lambda a, b: (a + b, a - b), ((3,), (3,)), (ms.float32, ms.int32))
    s, d = multi(x, y)
    np.testing.assert_allclose(s.asnumpy(), np.add(X, Y))
    assert d.dtype == ms.int32 and d.asnumpy().tolist() == [-3, -3, -3]
    ints = ops.Custom(lambda a: a * 2, lambda s: s, lambda d: d)
    assert ints(t([1, 2], np.int32)).asnumpy().tolist() == [2, 4]


def test_custom_pyfunc_grad_via_bprop_and_second_order():
    x, y = t(X, np.float64), t(Y, np.float64)
    op = ops.Custom(_mul, lambda a, b: a, lambda a, b: a, "pyfunc", bprop=_mul_bprop)
    gx, gy = ms.grad(lambda a, b: op(a, b).sum(), (0, 1))(x, y)
    np.testing.assert_allclose(gx.asnumpy(), Y)
    np.testing.assert_allclose(gy.asnumpy(), X)
    # the bprop is written in mindseed ops, so it is differentiable itself: d/dx sum(d/dx sum(x*x*y)) = 2y
    g2 = ms.grad(ms.grad(lambda a: op(op(a, a), y).sum()))(x)
    np.testing.assert_allclose(g2.asnumpy(), 2 * np.array(Y))
    no_bprop = ops.Custom(_mul, lambda a, b: a, lambda a, b: a)
    with pytest.raises(ValueError, match="has no bprop"):
        ms.grad(lambda a: no_bprop(a, y).sum())(x)


def test_custom_pyfunc_under_jit_is_an_opaque_call():
    calls = []

    def f(a):
        calls.append(1)
        return np.sin(a)

    op = ops.Custom(f, lambda s: s, lambda d: d, bprop=lambda a, out, dout: (dout * ops.cos(a),))

    @ms.jit
    def g(a):
        return op(a * 2) + 1

    for vals in ([0.1, 0.2], [0.3, 0.4], [0.5, 0.6]):
        np.testing.assert_allclose(g(t(vals)).asnumpy(), np.sin(2 * np.array(vals, np.float32)) + 1, rtol=1e-6)
    assert len(calls) >= 3  # the function runs at every call of the compiled graph
    gx = ms.grad(lambda a: g(a).sum())(t([0.1, 0.2]))
    np.testing.assert_allclose(gx.asnumpy(), 2 * np.cos(2 * np.array([0.1, 0.2])), rtol=1e-6)


def test_custom_errors():
    for kind in ("aot", "hybrid", "akg", "tbe", "aicpu", "julia"):
        with pytest.raises(ValueError, match=f"only 'func_type' 'pyfunc' is supported on this backend, but got "
                                             f"'{kind}'"):
            ops.Custom(_mul, (3,), ms.float32, kind)
    with pytest.raises(TypeError, match="'func' must be of type function"):
        ops.Custom("lib.so:f", (3,), ms.float32)
    x = t(X)
    with pytest.raises(TypeError, match="'out_shape' must be one of"):
        ops.Custom(lambda a: a, None, ms.float32)(x)
    with pytest.raises(TypeError, match="'out_dtype' must be one of"):
        ops.Custom(lambda a: a, (3,), None)(x)
    with pytest.raises(ValueError, match=r"the output 0 of 'func' has shape \(2,\), but 'out_shape' is \(3,\)"):
        ops.Custom(lambda a: np.ones(2, np.float32), (3,), ms.float32)(x)
    assert ops.Custom(_mul, (3,), ms.float32, bprop=_mul_bprop).get_bprop() is _mul_bprop
