"""Math-family primitives: elementwise math, comparison/logic, reductions and scans, each with its bprop.

Bprops follow MindSpore's contract `bprop(*inputs, out, dout, **attrs)` and are written in mindseed
primitives, so they are differentiable again. A primitive with no bprop has a zero gradient
(rounding, comparisons, integer ops); the engine un-broadcasts and casts every gradient.
"""
import math
from functools import partial

from mindseed._backend import _lazy
from mindseed._backend.kernels import math as K
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims.core import (
    add_p,
    broadcast_to_p,
    cast_p,
    conj_if_complex,
    div_p,
    equal_p,
    exp_p,
    greater_equal_p,
    greater_p,
    less_equal_p,
    less_p,
    log_p,
    mul_p,
    neg_p,
    not_equal_p,
    ones_like_p,
    reduce_sum_p,
    reshape_p,
    sign_p,
    sub_p,
    transpose_p,
    where_p,
    zeros_like_p,
)
from mindseed.ops import _infer as I
from mindseed.ops import _sharding as S
from mindseed.ops._api import public
from mindseed.ops._registry import Prim

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = math.sqrt(math.pi) / 2.0


def _mask(cond, like):
    """A boolean tensor as 0/1 of like's dtype."""
    return cast_p(cond, dtype=like.dtype.name)


def _safe_x(x):
    """x with zeros replaced by ones (the double-where trick keeps gradients of x/x-like terms finite)."""
    zero = equal_p(x, 0)
    return zero, where_p(zero, ones_like_p(x), x)


def _unary(name, kernel, grad=None, infer=I.to_float):
    """A unary primitive whose bprop is dout * grad(x, out); by default a float function (bool and integer
    inputs give float32)."""
    p = Prim(name, kernel, infer=infer, sharding=S.elementwise)
    if grad is not None:   # a complex input's gradient is dout * conj(f'(x)) (MindSpore's rule)
        p.def_bprop(lambda x, out, dout: (mul_p(dout, conj_if_complex(grad(x, out))),))
    return p


# ---------------------------------------------------------------- unary: powers and roots
abs_p = Prim("Abs", K.abs_, infer=I.same, sharding=S.elementwise)
abs_p.def_bprop(lambda x, out, dout: (mul_p(dout, sgn_p(x)),))  # sgn: sign for reals, z/|z| for complex
sqrt_p = _unary("Sqrt", K.sqrt, lambda x, out: div_p(0.5, out))
# NOTE: d/dx x^(-1/2) = -out^3 / 2 reuses out instead of dividing by x
rsqrt_p = _unary("Rsqrt", K.rsqrt, lambda x, out: mul_p(mul_p(out, mul_p(out, out)), -0.5))
square_p = _unary("Square", K.square, lambda x, out: mul_p(x, 2.0), infer=None)  # bool -> int64: the kernel knows
reciprocal_p = _unary("Reciprocal", K.reciprocal, lambda x, out: neg_p(mul_p(out, out)))
inv_p = _unary("Inv", K.inv, lambda x, out: neg_p(mul_p(out, out)), infer=I.same)  # integers stay integers

# ---------------------------------------------------------------- unary: trigonometric and hyperbolic
sin_p = Prim("Sin", K.sin, infer=I.to_float, sharding=S.elementwise)
cos_p = Prim("Cos", K.cos, infer=I.to_float, sharding=S.elementwise)
sin_p.def_bprop(lambda x, out, dout: (mul_p(dout, conj_if_complex(cos_p(x))),))
cos_p.def_bprop(lambda x, out, dout: (neg_p(mul_p(dout, conj_if_complex(sin_p(x)))),))
tan_p = _unary("Tan", K.tan, lambda x, out: add_p(1.0, mul_p(out, out)))
asin_p = _unary("Asin", K.asin, lambda x, out: rsqrt_p(sub_p(1.0, mul_p(x, x))))
acos_p = _unary("ACos", K.acos, lambda x, out: neg_p(rsqrt_p(sub_p(1.0, mul_p(x, x)))))
atan_p = _unary("Atan", K.atan, lambda x, out: reciprocal_p(add_p(mul_p(x, x), 1.0)))
sinh_p = Prim("Sinh", K.sinh, infer=I.to_float, sharding=S.elementwise)
cosh_p = Prim("Cosh", K.cosh, infer=I.to_float, sharding=S.elementwise)
sinh_p.def_bprop(lambda x, out, dout: (mul_p(dout, conj_if_complex(cosh_p(x))),))
cosh_p.def_bprop(lambda x, out, dout: (mul_p(dout, conj_if_complex(sinh_p(x))),))
tanh_p = _unary("Tanh", K.tanh, lambda x, out: sub_p(1.0, mul_p(out, out)))
asinh_p = _unary("Asinh", K.asinh, lambda x, out: rsqrt_p(add_p(mul_p(x, x), 1.0)))
acosh_p = _unary("Acosh", K.acosh, lambda x, out: rsqrt_p(sub_p(mul_p(x, x), 1.0)))
atanh_p = _unary("Atanh", K.atanh, lambda x, out: reciprocal_p(sub_p(1.0, mul_p(x, x))))
sigmoid_p = _unary("Sigmoid", K.sigmoid, lambda x, out: mul_p(out, sub_p(1.0, out)))

# ---------------------------------------------------------------- unary: exponentials, logarithms, errors
erf_p = _unary("Erf", K.erf, lambda x, out: mul_p(exp_p(neg_p(mul_p(x, x))), _TWO_OVER_SQRT_PI))
erfc_p = _unary("Erfc", K.erfc, lambda x, out: mul_p(exp_p(neg_p(mul_p(x, x))), -_TWO_OVER_SQRT_PI))
erfinv_p = _unary("Erfinv", K.erfinv, lambda x, out: mul_p(exp_p(mul_p(out, out)), _HALF_SQRT_PI))
log1p_p = _unary("Log1p", K.log1p, lambda x, out: reciprocal_p(add_p(x, 1.0)))
expm1_p = _unary("Expm1", K.expm1, lambda x, out: add_p(out, 1.0))
log2_p = _unary("Log2", K.log2, lambda x, out: reciprocal_p(mul_p(x, _LN2)))
log10_p = _unary("Log10", K.log10, lambda x, out: reciprocal_p(mul_p(x, _LN10)))
exp2_p = _unary("Exp2", K.exp2, lambda x, out: mul_p(out, _LN2))

# ---------------------------------------------------------------- unary: rounding and sign (zero gradient)
floor_p = Prim("Floor", K.floor, infer=I.same, sharding=S.elementwise)
ceil_p = Prim("Ceil", K.ceil, infer=I.same, sharding=S.elementwise)
round_p = Prim("Round", K.round_, infer=I.same, sharding=S.elementwise)
trunc_p = Prim("Trunc", K.trunc, infer=I.same, sharding=S.elementwise)
frac_p = Prim("Frac", K.frac, infer=I.same, sharding=S.elementwise)
frac_p.def_bprop(lambda x, out, dout: (dout,))
signbit_p = Prim("SignBit", K.signbit, sharding=S.elementwise)
sgn_p = Prim("Sgn", K.sgn, infer=I.same, sharding=S.elementwise)

# ---------------------------------------------------------------- unary: special functions
sinc_p = Prim("Sinc", K.sinc, infer=I.to_float, sharding=S.elementwise)


@sinc_p.def_bprop
def _sinc_bprop(x, out, dout):
    # (cos(pi x) - sinc(x)) / x; at 0 its Taylor term -pi^2 x / 3 keeps the second derivative right
    zero, xs = _safe_x(x)
    g = div_p(sub_p(cos_p(mul_p(xs, math.pi)), out), xs)
    return (mul_p(dout, where_p(zero, mul_p(x, -math.pi ** 2 / 3.0), g)),)


polygamma_p = Prim("Polygamma", K.polygamma, sharding=S.elementwise)
polygamma_p.def_bprop(lambda x, out, dout, n: (mul_p(dout, polygamma_p(x, n=n + 1)),))
digamma_p = _unary("Digamma", K.digamma, lambda x, out: polygamma_p(x, n=1))
lgamma_p = _unary("Lgamma", K.lgamma, lambda x, out: digamma_p(x))


def _bessel(name, torch_name):
    return Prim(name, _lazy.made(K.bessel, torch_name), sharding=S.elementwise)


bessel_i0_p = _bessel("BesselI0", "i0")
bessel_i1_p = _bessel("BesselI1", "i1")
bessel_i0e_p = _bessel("BesselI0e", "i0e")
bessel_i1e_p = _bessel("BesselI1e", "i1e")
bessel_j0_p = _bessel("BesselJ0", "bessel_j0")
bessel_j1_p = _bessel("BesselJ1", "bessel_j1")
bessel_y0_p = _bessel("BesselY0", "bessel_y0")
bessel_y1_p = _bessel("BesselY1", "bessel_y1")
bessel_k0_p = _bessel("BesselK0", "modified_bessel_k0")
bessel_k1_p = _bessel("BesselK1", "modified_bessel_k1")
bessel_k0e_p = _bessel("BesselK0e", "scaled_modified_bessel_k0")
bessel_k1e_p = _bessel("BesselK1e", "scaled_modified_bessel_k1")


def _order1_grad(lower):
    """d/dx f1(x) = f0(x) - f1(x)/x for first-order Bessel functions, with limit 1/2 at 0 (I1, J1)."""
    def bprop(x, out, dout):
        zero, xs = _safe_x(x)
        g = sub_p(lower(xs), div_p(out, xs))
        return (mul_p(dout, where_p(zero, mul_p(ones_like_p(g), 0.5), g)),)
    return bprop


bessel_i0_p.def_bprop(lambda x, out, dout: (mul_p(dout, bessel_i1_p(x)),))
bessel_i1_p.def_bprop(_order1_grad(bessel_i0_p))
bessel_j0_p.def_bprop(lambda x, out, dout: (neg_p(mul_p(dout, bessel_j1_p(x))),))
bessel_j1_p.def_bprop(_order1_grad(bessel_j0_p))
bessel_y0_p.def_bprop(lambda x, out, dout: (neg_p(mul_p(dout, bessel_y1_p(x))),))
bessel_y1_p.def_bprop(lambda x, out, dout: (mul_p(dout, sub_p(bessel_y0_p(x), div_p(out, x))),))
bessel_k0_p.def_bprop(lambda x, out, dout: (neg_p(mul_p(dout, bessel_k1_p(x))),))
bessel_k1_p.def_bprop(lambda x, out, dout: (neg_p(mul_p(dout, add_p(bessel_k0_p(x), div_p(out, x)))),))
bessel_i0e_p.def_bprop(lambda x, out, dout: (mul_p(dout, sub_p(bessel_i1e_p(x), mul_p(sign_p(x), out))),))
bessel_k0e_p.def_bprop(lambda x, out, dout: (mul_p(dout, sub_p(out, bessel_k1e_p(x))),))
# MindSpore's form, out * (1 - 1/x) - k0e(x): the same float16 roundings as its kernel
bessel_k1e_p.def_bprop(lambda x, out, dout: (
    mul_p(dout, sub_p(mul_p(out, add_p(neg_p(reciprocal_p(x)), 1.0)), bessel_k0e_p(x))),))


@bessel_i1e_p.def_bprop
def _bessel_i1e_bprop(x, out, dout):
    # i0e(x) - i1e(x) * (sign(x) + 1/x), limit 1/2 at 0
    zero, xs = _safe_x(x)
    g = sub_p(bessel_i0e_p(xs), mul_p(out, add_p(sign_p(xs), reciprocal_p(xs))))
    return (mul_p(dout, where_p(zero, mul_p(ones_like_p(g), 0.5), g)),)


# ---------------------------------------------------------------- unary: complex parts, cleaning, tests
real_p = Prim("Real", K.real, sharding=S.elementwise)
real_p.def_bprop(lambda x, out, dout: (dout,))  # the engine casts the real cotangent to x's complex dtype
imag_p = Prim("Imag", K.imag, sharding=S.elementwise)


@imag_p.def_bprop
def _imag_bprop(x, out, dout):
    return (mul_p(dout, 1j),) if x.is_complex() else (None,)


conj_p = Prim("Conj", K.conj, sharding=S.elementwise)
conj_p.def_bprop(lambda x, out, dout: (conj_p(dout),))
angle_p = Prim("Angle", K.angle, sharding=S.elementwise)


@angle_p.def_bprop
def _angle_bprop(x, out, dout):
    # d atan2(y, x): dout * i z / |z|^2 for a complex z (MindSpore); a real input's angle is piecewise constant
    if not mstype.is_complex(x.dtype):
        return (zeros_like_p(x),)
    return (mul_p(dout, div_p(mul_p(x, 1j), mul_p(x, conj_p(x)))),)


complex_p = Prim("Complex", K.complex_, sharding=S.elementwise)
complex_p.def_bprop(lambda re, im, out, dout: (real_p(dout), imag_p(dout)))

nan_to_num_p = Prim("NanToNum", K.nan_to_num, sharding=S.elementwise)
is_finite_p = Prim("IsFinite", K.isfinite, infer=I.predicate, sharding=S.elementwise)
nan_to_num_p.def_bprop(
    lambda x, out, dout, nan=0.0, posinf=None, neginf=None: (where_p(is_finite_p(x), dout, zeros_like_p(dout)),))
is_nan_p = Prim("IsNan", K.isnan, infer=I.predicate, sharding=S.elementwise)
is_inf_p = Prim("IsInf", K.isinf, infer=I.predicate, sharding=S.elementwise)
is_neg_inf_p = Prim("IsNegInf", K.isneginf, sharding=S.elementwise)
is_pos_inf_p = Prim("IsPosInf", K.isposinf, sharding=S.elementwise)
is_real_p = Prim("IsReal", K.isreal, sharding=S.elementwise)
logical_not_p = Prim("LogicalNot", K.logical_not, infer=I.predicate, sharding=S.elementwise)
bitwise_not_p = Prim("BitwiseNot", K.bitwise_not, sharding=S.elementwise)
population_count_p = Prim("PopulationCount", K.population_count, sharding=S.elementwise)

# ---------------------------------------------------------------- binary: division and remainders
floor_div_p = Prim("FloorDiv", K.floor_divide, sharding=S.elementwise)
truncate_div_p = Prim("TruncateDiv", K.truncate_div, sharding=S.elementwise)
floor_mod_p = Prim("FloorMod", K.floor_mod, sharding=S.elementwise)
mod_p = Prim("Mod", K.fmod, sharding=S.elementwise)  # C's fmod: the sign of the dividend


def _remainder_bprop(quotient):
    def bprop(x, y, out, dout):
        dy = neg_p(mul_p(dout, quotient(x, y))) if isinstance(y, Tensor) else None
        return dout, dy
    return bprop


floor_mod_p.def_bprop(_remainder_bprop(floor_div_p))
mod_p.def_bprop(_remainder_bprop(truncate_div_p))

xdivy_p = Prim("Xdivy", K.xdivy, sharding=S.elementwise)


@xdivy_p.def_bprop
def _xdivy_bprop(x, y, out, dout):
    dx = mul_p(dout, xdivy_p(_mask(not_equal_p(x, 0), out), y)) if isinstance(x, Tensor) else None
    dy = neg_p(mul_p(dout, xdivy_p(out, y))) if isinstance(y, Tensor) else None
    return dx, dy


div_no_nan_p = Prim("DivNoNan", K.div_no_nan, sharding=S.elementwise)


@div_no_nan_p.def_bprop
def _div_no_nan_bprop(x, y, out, dout):
    dx = div_no_nan_p(dout, y)
    dy = neg_p(mul_p(dx, out)) if isinstance(y, Tensor) else None
    return dx, dy


xlogy_p = Prim("Xlogy", K.xlogy, sharding=S.elementwise)


@xlogy_p.def_bprop
def _xlogy_bprop(x, y, out, dout):
    dx = mul_p(dout, xlogy_p(_mask(not_equal_p(x, 0), out), y)) if isinstance(x, Tensor) else None
    dy = mul_p(dout, xdivy_p(x, y)) if isinstance(y, Tensor) else None
    return dx, dy


# ---------------------------------------------------------------- binary: smooth functions
atan2_p = Prim("Atan2", K.atan2, sharding=S.elementwise)


@atan2_p.def_bprop
def _atan2_bprop(x, y, out, dout):
    scale = div_p(dout, add_p(mul_p(x, x), mul_p(y, y)))
    return mul_p(scale, y), neg_p(mul_p(scale, x))


hypot_p = Prim("Hypot", K.hypot, sharding=S.elementwise)


@hypot_p.def_bprop
def _hypot_bprop(x, y, out, dout):
    scale = div_p(dout, out)
    return mul_p(scale, x), mul_p(scale, y)


logaddexp_p = Prim("LogAddExp", K.logaddexp, sharding=S.elementwise)
logaddexp2_p = Prim("LogAddExp2", K.logaddexp2, sharding=S.elementwise)
logaddexp_p.def_bprop(lambda x, y, out, dout: (mul_p(dout, exp_p(sub_p(x, out))), mul_p(dout, exp_p(sub_p(y, out)))))
logaddexp2_p.def_bprop(
    lambda x, y, out, dout: (mul_p(dout, exp2_p(sub_p(x, out))), mul_p(dout, exp2_p(sub_p(y, out)))))

copysign_p = Prim("CopySign", K.copysign, sharding=S.elementwise)


@copysign_p.def_bprop
def _copysign_bprop(x, y, out, dout):
    return mul_p(dout, mul_p(sign_p(x), copysign_p(ones_like_p(x), y))), None


fmax_p = Prim("Fmax", K.fmax, sharding=S.elementwise)
fmin_p = Prim("Fmin", K.fmin, sharding=S.elementwise)


def _nan_select_bprop(pick_x):
    """fmax/fmin: the gradient goes to the chosen operand, to x where y is NaN."""
    def bprop(x, y, out, dout):
        y_nan = is_nan_p(y) if isinstance(y, Tensor) else equal_p(zeros_like_p(dout), 1)
        dx = where_p(logical_or_p(pick_x(x, y), y_nan), dout, zeros_like_p(dout))
        return dx, sub_p(dout, dx)
    return bprop


# ---------------------------------------------------------------- binary: integer, bitwise, logical (no gradient)
gcd_p = Prim("Gcd", K.gcd, sharding=S.elementwise)
lcm_p = Prim("Lcm", K.lcm, sharding=S.elementwise)
bitwise_and_p = Prim("BitwiseAnd", K.bitwise_and, sharding=S.elementwise)
bitwise_or_p = Prim("BitwiseOr", K.bitwise_or, sharding=S.elementwise)
bitwise_xor_p = Prim("BitwiseXor", K.bitwise_xor, sharding=S.elementwise)
left_shift_p = Prim("LeftShift", K.bitwise_left_shift, sharding=S.elementwise)
right_shift_p = Prim("RightShift", K.bitwise_right_shift, sharding=S.elementwise)
logical_and_p = Prim("LogicalAnd", K.logical_and, infer=I.compare, sharding=S.elementwise)
logical_or_p = Prim("LogicalOr", K.logical_or, infer=I.compare, sharding=S.elementwise)
logical_xor_p = Prim("LogicalXor", K.logical_xor, infer=I.compare, sharding=S.elementwise)
heaviside_p = Prim("Heaviside", K.heaviside, sharding=S.elementwise)
is_close_p = Prim("IsClose", K.isclose, sharding=S.elementwise)
next_after_p = Prim("NextAfter", K.nextafter, sharding=S.elementwise)

fmax_p.def_bprop(_nan_select_bprop(greater_equal_p))
fmin_p.def_bprop(_nan_select_bprop(less_equal_p))

# ---------------------------------------------------------------- binary: special functions
igamma_p = Prim("Igamma", K.igamma, sharding=S.elementwise)
igammac_p = Prim("Igammac", K.igammac, sharding=S.elementwise)


def _igamma_x_grad(a, x):
    # d/dx P(a, x) = x^(a-1) e^(-x) / Gamma(a)
    return exp_p(sub_p(sub_p(mul_p(sub_p(a, 1.0), log_p(x)), x), lgamma_p(a)))


# NOTE: the gradient w.r.t. `a` (a series in a) is not provided: a is treated as a constant.
igamma_p.def_bprop(lambda a, x, out, dout: (None, mul_p(dout, _igamma_x_grad(a, x))))
igammac_p.def_bprop(lambda a, x, out, dout: (None, neg_p(mul_p(dout, _igamma_x_grad(a, x)))))

zeta_p = Prim("Zeta", K.zeta, sharding=S.elementwise)
# d/dq zeta(x, q) = -x zeta(x + 1, q); the derivative in x has no closed form and is not provided
zeta_p.def_bprop(lambda x, q, out, dout: (None, neg_p(mul_p(dout, mul_p(x, zeta_p(add_p(x, 1.0), q))))))

# ---------------------------------------------------------------- clamp
clamp_p = Prim("Clamp", K.clamp, sharding=S.elementwise)


@clamp_p.def_bprop
def _clamp_bprop(x, lo, hi, out, dout):
    zeros = zeros_like_p(dout)
    keep = ones_like_p(dout)
    keep = cast_p(keep, dtype="Bool")
    if lo is not None:
        keep = logical_and_p(keep, greater_equal_p(x, lo))
    if hi is not None:
        keep = logical_and_p(keep, less_equal_p(x, hi))
    dx = where_p(keep, dout, zeros)
    dlo = where_p(less_p(x, lo), dout, zeros) if isinstance(lo, Tensor) else None
    dhi = where_p(greater_p(x, hi), dout, zeros) if isinstance(hi, Tensor) else None
    return dx, dlo, dhi


# ---------------------------------------------------------------- reductions
def _kept_shape(x, axis):
    """x's shape with the reduced axes set to 1 (axis None: all)."""
    if axis is None:
        return (1,) * x.ndim
    axes = (axis,) if isinstance(axis, int) else axis
    kept = list(x.shape)
    for a in axes:
        kept[a] = 1
    return tuple(kept)


def _expand(t, x, axis, keep_dims):
    """A reduced tensor broadcast back to x's shape."""
    if not keep_dims:
        t = reshape_p(t, shape=_kept_shape(x, axis))
    return broadcast_to_p(t, shape=x.shape)


reduce_mean_p = Prim("ReduceMean", K.reduce_mean, infer=I.reduce, sharding=S.reduction_mean)


@reduce_mean_p.def_bprop
def _reduce_mean_bprop(x, out, dout, axis=None, keep_dims=False):
    n = x.size // max(out.size, 1)
    return (div_p(_expand(dout, x, axis, keep_dims), float(n)),)


def _extreme_bprop(x, out, dout, axis=None, keep_dims=False):
    # MindSpore's rule: ties share the gradient equally
    hit = _mask(equal_p(x, _expand(out, x, axis, keep_dims)), dout)
    count = reduce_sum_p(hit, axis=axis, keep_dims=True)
    return (mul_p(div_p(hit, count), _expand(dout, x, axis, keep_dims)),)


reduce_max_p = Prim("ReduceMax", K.reduce_max, infer=I.reduce, sharding=S.reduction_whole)
reduce_min_p = Prim("ReduceMin", K.reduce_min, infer=I.reduce, sharding=S.reduction_whole)
reduce_max_p.def_bprop(_extreme_bprop)
reduce_min_p.def_bprop(_extreme_bprop)

reduce_prod_p = Prim("ReduceProd", K.reduce_prod, sharding=S.reduction_whole)
cumprod_p = Prim("CumProd", K.cumprod, sharding=S.scan)
cumsum_p = Prim("CumSum", K.cumsum, sharding=S.scan)


@reduce_prod_p.def_bprop
def _reduce_prod_bprop(x, out, dout, axis=None, keep_dims=False, dtype=None):
    # the product of the other elements, from exclusive cumulative products from both ends (exact with zeros)
    if x.ndim == 0:
        return (dout,)
    axes = tuple(range(x.ndim)) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    rest = tuple(i for i in range(x.ndim) if i not in axes)
    perm = rest + axes
    xt = transpose_p(x, perm=perm)
    n = 1
    for a in axes:
        n *= x.shape[a]
    flat = reshape_p(xt, shape=xt.shape[:len(rest)] + (n,))
    last = len(rest)
    others = mul_p(cumprod_p(flat, axis=last, exclusive=True), cumprod_p(flat, axis=last, exclusive=True,
                                                                              reverse=True))
    others = reshape_p(others, shape=xt.shape)
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    others = transpose_p(others, perm=tuple(inv))
    return (mul_p(others, _expand(dout, x, axis, keep_dims)),)


@cumsum_p.def_bprop
def _cumsum_bprop(x, out, dout, axis=0, exclusive=False, reverse=False, dtype=None):
    return (cumsum_p(dout, axis=axis, exclusive=exclusive, reverse=not reverse),)


@cumprod_p.def_bprop
def _cumprod_bprop(x, out, dout, axis=0, exclusive=False, reverse=False, dtype=None):
    # NOTE: divides by x, so the gradient is not defined where x has zeros (as in MindSpore)
    s = cumsum_p(mul_p(dout, out), axis=axis, exclusive=exclusive, reverse=not reverse)
    return (div_p(s, x),)


reduce_all_p = Prim("ReduceAll", K.reduce_all, infer=I.reduce_bool, sharding=S.reduction_whole)
reduce_any_p = Prim("ReduceAny", K.reduce_any, infer=I.reduce_bool, sharding=S.reduction_whole)
count_nonzero_p = Prim("CountNonZero", K.count_nonzero)

reduce_var_p = Prim("ReduceVar", K.reduce_var)


@reduce_var_p.def_bprop
def _reduce_var_bprop(x, out, dout, axis=None, ddof=0, keep_dims=False):
    n = x.size // max(out.size, 1)
    centered = sub_p(x, reduce_mean_p(x, axis=axis, keep_dims=True))
    return (mul_p(centered, mul_p(_expand(dout, x, axis, keep_dims), 2.0 / (n - ddof))),)


logsumexp_p = Prim("ReduceLogSumExp", K.logsumexp)


@logsumexp_p.def_bprop
def _logsumexp_bprop(x, out, dout, axis=None, keep_dims=False):
    return (mul_p(_expand(dout, x, axis, keep_dims), exp_p(sub_p(x, _expand(out, x, axis, keep_dims)))),)


logcumsumexp_p = Prim("CumulativeLogsumexp", K.logcumsumexp)


@logcumsumexp_p.def_bprop
def _logcumsumexp_bprop(x, out, dout, axis=0, exclusive=False, reverse=False):
    # sum_i dout_i exp(x_k - out_i), split by the sign of dout so that it stays in log space.
    # NOTE: log(0) is replaced by a huge finite negative number: -inf would give inf - inf = NaN in
    # the second-order gradient, while exp(-1e30 + finite) is exactly 0 all the same.
    tiny = -1e30 if dout.dtype.name in ("Float32", "Float64") else -3e4

    def part(d):
        pos = greater_p(d, 0)
        log_d = where_p(pos, log_p(where_p(pos, d, ones_like_p(d))), mul_p(ones_like_p(d), tiny))
        return exp_p(add_p(x, logcumsumexp_p(sub_p(log_d, out), axis=axis, exclusive=exclusive,
                                             reverse=not reverse)))
    return (sub_p(part(dout), part(neg_p(dout))),)


# ---------------------------------------------------------------- index-returning reductions
argmax_p = Prim("Argmax", partial(K.arg_reduce, largest=True), sharding=S.arg_reduction)
argmin_p = Prim("Argmin", partial(K.arg_reduce, largest=False), sharding=S.arg_reduction)

arg_reduce_grad_p = Prim("ArgReduceGrad", K.arg_reduce_grad, sharding=S.arg_reduce_grad)
arg_reduce_take_p = Prim("ArgReduceTake", K.arg_reduce_take, sharding=S.arg_reduce_take)


@arg_reduce_grad_p.def_bprop
def _arg_reduce_grad_bprop(dout, index, out, ddout, shape=(), axis=0, keep_dims=False):
    return arg_reduce_take_p(ddout, index, axis=axis, keep_dims=keep_dims), None


@arg_reduce_take_p.def_bprop
def _arg_reduce_take_bprop(x, index, out, dout, axis=0, keep_dims=False):
    return arg_reduce_grad_p(dout, index, shape=x.shape, axis=axis, keep_dims=keep_dims), None


def _scatter_back(x, dvalues, index, axis, keep_dims):
    return arg_reduce_grad_p(dvalues, index, shape=x.shape, axis=axis % max(x.ndim, 1), keep_dims=keep_dims)


# outputs (index, values), MindSpore's order
argmax_with_value_p = Prim("ArgMaxWithValue", partial(K.arg_with_value, largest=True), multi_output=True,
                            sharding=S.arg_with_value)
argmin_with_value_p = Prim("ArgMinWithValue", partial(K.arg_with_value, largest=False), multi_output=True,
                            sharding=S.arg_with_value)


def _arg_with_value_bprop(x, out, dout, axis=0, keep_dims=False, index_dtype="Int64"):
    return (_scatter_back(x, dout[1], out[0], axis, keep_dims),)


argmax_with_value_p.def_bprop(_arg_with_value_bprop)
argmin_with_value_p.def_bprop(_arg_with_value_bprop)

# outputs (values, indices)
median_p = Prim("Median", K.median, multi_output=True)
median_p.def_bprop(lambda x, out, dout, axis=-1, keep_dims=False, ignore_nan=False:
                   (_scatter_back(x, dout[0], out[1], axis, keep_dims),))
cummax_p = Prim("Cummax", partial(K.cum_extreme, largest=True), multi_output=True, sharding=S.scan_pair)
cummin_p = Prim("Cummin", partial(K.cum_extreme, largest=False), multi_output=True, sharding=S.scan_pair)


def _cum_extreme_bprop(x, out, dout, axis=0):
    return (_scatter_back(x, dout[0], out[1], axis, True),)


cummax_p.def_bprop(_cum_extreme_bprop)
cummin_p.def_bprop(_cum_extreme_bprop)


# ---------------------------------------------------------------- quantiles: piecewise linear in x
quantile_p = Prim("Quantile", K.quantile)
quantile_grad_p = Prim("QuantileGrad", K.quantile_grad)
quantile_take_p = Prim("QuantileTake", K.quantile_take)  # v interpolated where x's quantiles are


@quantile_p.def_bprop
def _quantile_bprop(x, out, dout, q=0.5, axis=None, keep_dims=False, ignore_nan=False):
    return (quantile_grad_p(dout, x, q=q, axis=axis, keep_dims=keep_dims, ignore_nan=ignore_nan),)


@quantile_grad_p.def_bprop
def _quantile_grad_bprop(dout, x, out, ddx, q=0.5, axis=None, keep_dims=False, ignore_nan=False):
    return quantile_take_p(ddx, x, q=q, axis=axis, keep_dims=keep_dims, ignore_nan=ignore_nan), None


@quantile_take_p.def_bprop
def _quantile_take_bprop(v, x, out, dout, q=0.5, axis=None, keep_dims=False, ignore_nan=False):
    return quantile_grad_p(dout, x, q=q, axis=axis, keep_dims=keep_dims, ignore_nan=ignore_nan), None


# ---------------------------------------------------------------- segment reductions
segment_sum_p = Prim("UnsortedSegmentSum", partial(K.unsorted_segment, mode="sum"), sharding=S.segment_sum)
segment_max_p = Prim("UnsortedSegmentMax", partial(K.unsorted_segment, mode="amax"), sharding=S.segment_reduce)
segment_min_p = Prim("UnsortedSegmentMin", partial(K.unsorted_segment, mode="amin"), sharding=S.segment_reduce)
segment_prod_p = Prim("UnsortedSegmentProd", partial(K.unsorted_segment, mode="prod"), sharding=S.segment_reduce)
segment_gather_p = Prim("SegmentGather", K.segment_gather, sharding=S.segment_gather)


@segment_sum_p.def_bprop
def _segment_sum_bprop(x, ids, out, dout, num_segments=1):
    return segment_gather_p(dout, ids, num_segments=num_segments), None


@segment_gather_p.def_bprop
def _segment_gather_bprop(v, ids, out, dout, num_segments=1):
    return segment_sum_p(dout, ids, num_segments=num_segments), None


def _segment_extreme_bprop(x, ids, out, dout, num_segments=1):
    # MindSpore's rule: the elements equal to their segment's extreme share its gradient
    hit = _mask(equal_p(x, segment_gather_p(out, ids, num_segments=num_segments)), dout)
    count = segment_sum_p(hit, ids, num_segments=num_segments)
    share = div_p(dout, where_p(equal_p(count, 0), ones_like_p(count), count))
    return mul_p(hit, segment_gather_p(share, ids, num_segments=num_segments)), None


segment_max_p.def_bprop(_segment_extreme_bprop)
segment_min_p.def_bprop(_segment_extreme_bprop)


@segment_prod_p.def_bprop
def _segment_prod_bprop(x, ids, out, dout, num_segments=1):
    # the product of the other elements of the segment, exact where x has zeros (TensorFlow's rule)
    zero = equal_p(x, 0)
    zeros_in_segment = segment_gather_p(segment_sum_p(cast_p(zero, dtype="Int64"), ids, num_segments=num_segments),
                                        ids, num_segments=num_segments)
    safe_x = where_p(zero, ones_like_p(x), x)
    nonzero_prod = segment_gather_p(segment_prod_p(safe_x, ids, num_segments=num_segments), ids,
                                    num_segments=num_segments)
    others = where_p(zero, nonzero_prod, div_p(segment_gather_p(out, ids, num_segments=num_segments), safe_x))
    others = where_p(greater_p(zeros_in_segment, 1), zeros_like_p(others), others)
    return mul_p(others, segment_gather_p(dout, ids, num_segments=num_segments)), None


# ---------------------------------------------------------------- dtype rules, checked only after a kernel failed
def _require(prim, allowed, what):
    def check(*args, **attrs):
        for a in args:
            if isinstance(a, Tensor) and not allowed(a.dtype):
                raise TypeError(f"For '{prim.name}', the input must be a Tensor of {what} type, but got {a.dtype}.")
    prim.def_check(check)


def _is_int(dt):
    return dt.name.startswith(("Int", "UInt"))


def _is_int_or_bool(dt):
    return _is_int(dt) or dt.name == "Bool"


def _is_real(dt):
    return not dt.name.startswith("Complex")


for _p in (gcd_p, lcm_p, left_shift_p, right_shift_p, population_count_p):
    _require(_p, _is_int, "int")
for _p in (bitwise_and_p, bitwise_or_p, bitwise_xor_p, bitwise_not_p):
    _require(_p, _is_int_or_bool, "int or bool")
for _p in (erf_p, erfc_p, erfinv_p, lgamma_p, digamma_p, polygamma_p, floor_p, ceil_p, round_p, trunc_p, frac_p,
           floor_div_p, floor_mod_p, mod_p, truncate_div_p, atan2_p, hypot_p, logaddexp_p, logaddexp2_p,
           copysign_p, fmax_p, fmin_p, heaviside_p, next_after_p, igamma_p, igammac_p, zeta_p, clamp_p, signbit_p,
           reduce_max_p, reduce_min_p, argmax_p, argmin_p, argmax_with_value_p, argmin_with_value_p, median_p,
           cummax_p, cummin_p, logcumsumexp_p, sinc_p, bessel_i0_p, bessel_i1_p, bessel_i0e_p, bessel_i1e_p,
           bessel_j0_p, bessel_j1_p, bessel_y0_p, bessel_y1_p, bessel_k0_p, bessel_k1_p, bessel_k0e_p, bessel_k1e_p):
    _require(_p, _is_real, "real number")


# ------------------------------------------------------- public names: ops.<function>, Tensor.<method>, ops.<Class>
public(abs_p, "abs(input)", "absolute(input)", tensor=True, cls=("Abs", "ComplexAbs"), doc="|input| elementwise.")
public(sqrt_p, "sqrt(x)", tensor=True, cls="Sqrt", doc="Square root (integer inputs give Float32).")
public(rsqrt_p, "rsqrt(input)", tensor=True, cls="Rsqrt", doc="1 / sqrt(input).", check="inexact")
public(square_p, "square(input)", tensor=True, cls="Square", doc="input * input.")
public(reciprocal_p, "reciprocal(input)", tensor=True, cls="Reciprocal", doc="1 / input (integer inputs give Float32).")
public(inv_p, "inv(x)", tensor=True, cls="Inv",
       doc="1 / x; an integer x gives its truncated reciprocal (1, -1 or 0) in its own dtype.")
public(sin_p, "sin(input)", tensor=True, cls="Sin", doc="Sine.", check="inexact")
public(cos_p, "cos(input)", tensor=True, cls="Cos", doc="Cosine.", check="inexact")
public(tan_p, "tan(input)", tensor=True, cls="Tan", doc="Tangent.", check="inexact")
public(asin_p, "asin(input)", "arcsin(x)", tensor=True, cls="Asin", doc="Arcsine.", check="inexact")
public(acos_p, "acos(input)", "arccos(input)", tensor=True, cls="ACos", doc="Arccosine.", check="inexact")
public(atan_p, "atan(input)", "arctan(input)", tensor=True, cls="Atan", doc="Arctangent.", check="inexact")
public(sinh_p, "sinh(input)", tensor=True, cls="Sinh", doc="Hyperbolic sine.", check="inexact")
public(cosh_p, "cosh(input)", tensor=True, cls="Cosh", doc="Hyperbolic cosine.", check="inexact")
public(tanh_p, "tanh(input)", tensor=True, cls="Tanh", doc="Hyperbolic tangent.", check="inexact")
public(asinh_p, "asinh(input)", "arcsinh(input)", tensor=True, cls="Asinh", doc="Inverse hyperbolic sine.",
       check="inexact")
public(acosh_p, "acosh(input)", "arccosh(input)", tensor=True, cls="Acosh", doc="Inverse hyperbolic cosine.",
       check="inexact")
public(atanh_p, "atanh(input)", "arctanh(input)", tensor=True, cls="Atanh", doc="Inverse hyperbolic tangent.",
       check="inexact")
public(sigmoid_p, "sigmoid(input)", tensor=True, cls="Sigmoid", doc="1 / (1 + exp(-input)).", check="inexact")
public(erf_p, "erf(input)", tensor=True, cls="Erf", doc="Gauss error function.", check="inexact")
public(erfc_p, "erfc(input)", tensor=True, cls="Erfc", doc="1 - erf(input).", check="inexact")
public(erfinv_p, "erfinv(input)", tensor=True, cls="Erfinv", doc="Inverse error function on (-1, 1).", check="inexact")
public(log1p_p, "log1p(input)", tensor=True, cls="Log1p", doc="log(1 + input), accurate near 0.", check="inexact")
public(expm1_p, "expm1(input)", "tensor_expm1(input)", tensor=("expm1",), cls="Expm1",
       doc="exp(input) - 1, accurate near 0.", check="inexact")
public(log2_p, "log2(input)", tensor=True, doc="Base-2 logarithm.", check="inexact")
public(log10_p, "log10(input)", tensor=True, doc="Base-10 logarithm.", check="inexact")
public(exp2_p, "exp2(input)", tensor=True, doc="2 ** input.")
public(floor_p, "floor(input)", tensor=True, cls="Floor", doc="Largest integer not greater than each element.")
public(ceil_p, "ceil(input)", tensor=True, cls="Ceil", doc="Smallest integer not less than each element.")
public(trunc_p, "trunc(input)", tensor=True, cls="Trunc", doc="Round toward zero.")
public(frac_p, "frac(x)", tensor=True, doc="The fractional part, x - trunc(x).")
public(sgn_p, "sgn(input)", tensor=True, doc="sign for real inputs; input / |input| (0 at 0) for complex ones.")
public(signbit_p, "signbit(input)", tensor=True, doc="True where the sign bit is set (negative numbers, -0.0).")
public(sinc_p, "sinc(input)", tensor=True, cls="Sinc", doc="sin(pi x) / (pi x), 1 at 0.")
public(digamma_p, "digamma(input)", tensor=True, cls="Digamma", doc="The logarithmic derivative of the gamma function.")
public(lgamma_p, "lgamma(input)", tensor=True, cls="Lgamma", doc="log |Gamma(input)|.")
public(angle_p, "angle(input)", tensor=True, cls="Angle", doc="The argument of each complex element (0 or pi for "
       "real ones).")
public(imag_p, "imag(input)", tensor=True, cls="Imag", doc="The imaginary part (zeros for a real input).")
public(bessel_i0_p, "bessel_i0(x)", "i0(input)", tensor=("i0",), cls="BesselI0",
       doc="Modified Bessel function of the first kind, order 0.")
public(bessel_i1_p, "bessel_i1(x)", cls="BesselI1", doc="Modified Bessel function of the first kind, order 1.")
public(bessel_i0e_p, "bessel_i0e(x)", cls="BesselI0e", doc="exp(-|x|) * bessel_i0(x).")
public(bessel_i1e_p, "bessel_i1e(x)", cls="BesselI1e", doc="exp(-|x|) * bessel_i1(x).")
public(bessel_j0_p, "bessel_j0(x)", cls="BesselJ0", doc="Bessel function of the first kind, order 0.")
public(bessel_j1_p, "bessel_j1(x)", cls="BesselJ1", doc="Bessel function of the first kind, order 1.")
public(bessel_y0_p, "bessel_y0(x)", cls="BesselY0", doc="Bessel function of the second kind, order 0.")
public(bessel_y1_p, "bessel_y1(x)", cls="BesselY1", doc="Bessel function of the second kind, order 1.")
public(bessel_k0_p, "bessel_k0(x)", cls="BesselK0", doc="Modified Bessel function of the second kind, order 0.")
public(bessel_k1_p, "bessel_k1(x)", cls="BesselK1", doc="Modified Bessel function of the second kind, order 1.")
public(bessel_k0e_p, "bessel_k0e(x)", cls="BesselK0e", doc="exp(x) * bessel_k0(x).")
public(bessel_k1e_p, "bessel_k1e(x)", cls="BesselK1e", doc="exp(x) * bessel_k1(x).")

public(floor_div_p, "floor_divide(input, other)", "floor_div(x, y)", "floordiv(input, other)",
       "tensor_floordiv(input, other)", tensor=("floor_divide",), cls="FloorDiv", check="operands", numbers=True,
       doc="floor(input / other), Python's `//` (integer inputs stay integer).")
public(floor_mod_p, "remainder(input, other)", "floor_mod(x, y)", "floormod(x, y)", "tensor_mod(x, y)",
       tensor=("remainder",), cls="FloorMod", check="operands", numbers=True,
       doc="Python's `%`: the remainder with the sign of the divisor.")
public(mod_p, "fmod(input, other)", "truncate_mod(x, y)", tensor=("fmod",), cls=("Mod", "TruncateMod"),
       check="operands", doc="C's fmod: the remainder with the sign of the dividend.")
public(truncate_div_p, "truncate_div(x, y)", cls="TruncateDiv", check="operands", doc="x / y rounded toward zero.")
public(xdivy_p, "xdivy(x, y)", tensor=True, cls="Xdivy", check="operands", doc="x / y, and 0 where x is 0.")
public(xlogy_p, "xlogy(input, other)", tensor=True, cls="Xlogy", check="operands", number_pair=True,
       doc="input * log(other), and 0 where input is 0.")
public(atan2_p, "atan2(input, other)", "arctan2(input, other)", tensor=True, cls="Atan2", check="operands",
       numbers=True, number_pair=False, doc="The angle of the point (other, input), in (-pi, pi].")
public(hypot_p, "hypot(input, other)", tensor=True, cls="Hypot", check="operands", doc="sqrt(input ** 2 + other ** 2).")
public(logaddexp_p, "logaddexp(input, other)", tensor=True, check="operands",
       doc="log(exp(input) + exp(other)), computed stably.")
public(logaddexp2_p, "logaddexp2(input, other)", tensor=True, check="operands",
       doc="log2(2 ** input + 2 ** other), computed stably.")
public(copysign_p, "copysign(x, other)", tensor=True, check="operands", doc="|x| with the sign of `other` (a float "
       "result).")
public(heaviside_p, "heaviside(input, values)", tensor=True, cls="Heaviside", check="operands", numbers=True,
       doc="0 where input < 0, `values` where input == 0, 1 where input > 0.")
public(fmax_p, "fmax(input, other)", tensor=True, cls="Fmax", check="operands",
       doc="Elementwise maximum that ignores NaN (NaN only where both are NaN).")
public(fmin_p, "fmin(input, other)", tensor=True, cls="Fmin", check="operands",
       doc="Elementwise minimum that ignores NaN.")
public(igamma_p, "igamma(input, other)", tensor=True, cls="Igamma", check="operands",
       doc="The regularized lower incomplete gamma function P(input, other).")
public(igammac_p, "igammac(input, other)", tensor=True, cls="Igammac", check="operands",
       doc="The regularized upper incomplete gamma function Q(input, other).")
public(zeta_p, "zeta(input, other)", cls="Zeta", check="operands", doc="The Hurwitz zeta function zeta(input, other).")
public(next_after_p, "nextafter(input, other)", tensor=True, cls="NextAfter", check="operands",
       doc="The next floating-point value after `input` toward `other`.")

public(gcd_p, "gcd(input, other)", tensor=True, cls="Gcd", check="operands", doc="Greatest common divisor of integer "
       "tensors.")
public(lcm_p, "lcm(input, other)", tensor=True, cls="Lcm", check="operands", doc="Least common multiple of integer "
       "tensors.")
public(bitwise_and_p, "bitwise_and(input, other)", tensor=True, cls="BitwiseAnd", check="operands",
       doc="input & other for integer or bool tensors.")
public(bitwise_or_p, "bitwise_or(input, other)", tensor=True, cls="BitwiseOr", check="operands",
       doc="input | other for integer or bool tensors.")
public(bitwise_xor_p, "bitwise_xor(input, other)", tensor=True, cls="BitwiseXor", check="operands",
       doc="input ^ other for integer or bool tensors.")
public(bitwise_not_p, "bitwise_not(input)", "invert(x)", tensor=True, cls="Invert",
       doc="~input for integer tensors (logical not for bool).")
public(left_shift_p, "bitwise_left_shift(input, other)", tensor=True, cls="LeftShift", check="operands",
       doc="input << other.")
public(right_shift_p, "bitwise_right_shift(input, other)", tensor=True, cls="RightShift", check="operands",
       doc="input >> other (arithmetic shift for signed types).")
public(population_count_p, "population_count(input_x)", cls="PopulationCount",
       doc="The number of 1 bits of each element (UInt8).")
public(logical_and_p, "logical_and(input, other)", tensor=True, cls="LogicalAnd", check="operands",
       doc="Elementwise logical AND (any dtype; nonzero is True).")
public(logical_or_p, "logical_or(input, other)", tensor=True, cls="LogicalOr", check="operands",
       doc="Elementwise logical OR.")
public(logical_xor_p, "logical_xor(input, other)", tensor=True, cls="LogicalXor", check="operands",
       doc="Elementwise logical XOR.")
public(logical_not_p, "logical_not(input)", tensor=True, cls="LogicalNot", doc="Elementwise logical NOT.")
public(is_nan_p, "isnan(input)", "isnan_ext(tensor)", tensor=("isnan",), cls="IsNan", doc="True where input is NaN.")
public(is_inf_p, "isinf(input)", tensor=True, cls="IsInf", doc="True where input is +inf or -inf.")
public(is_finite_p, "isfinite(input)", tensor=True, cls="IsFinite", doc="True where input is neither NaN nor infinite.")
public(is_neg_inf_p, "isneginf(input)", tensor=True, doc="True where input is -inf.")
public(is_pos_inf_p, "isposinf(input)", tensor=True, doc="True where input is +inf.")
public(is_real_p, "isreal(input)", tensor=True, doc="True where the imaginary part is 0 (everywhere for real inputs).")
