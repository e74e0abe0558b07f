"""Elementwise math: values vs numpy/mpmath, gradients vs finite differences, bad input, broadcasting fuzz."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import mindseed as ms
from mindseed import ops
from _harness import (ErrorSpec, OpSpec, away_from_zero, bools, ints, make_error_tests, make_tests, positive,
                      unit_open)

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy references divide by zero on purpose


def _vec(fn):
    """A scalar reference (math/mpmath) applied elementwise, in the input's dtype."""
    def ref(*arrays):
        out = np.vectorize(lambda *v: float(fn(*v)), otypes=[np.float64])(*arrays)
        return out.astype(np.result_type(*arrays))
    return ref


def _uniform(lo, hi):
    return lambda r, s: r.uniform(lo, hi, s)


def _non_integer(r, s):
    # away from the jumps of frac and the rounding functions
    return r.randint(-3, 3, s) + r.uniform(0.1, 0.4, s) * r.choice([-1, 1], s)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


UNARY = [
    OpSpec("abs", ops.abs, np.abs, gen=away_from_zero, grad2=True),
    OpSpec("absolute", ops.absolute, np.abs, gen=away_from_zero),
    OpSpec("sqrt", ops.sqrt, np.sqrt, gen=positive, grad2=True),
    OpSpec("rsqrt", ops.rsqrt, lambda x: 1 / np.sqrt(x), gen=positive, grad2=True),
    OpSpec("square", ops.square, np.square, grad2=True),
    OpSpec("reciprocal", ops.reciprocal, np.reciprocal, gen=away_from_zero, grad2=True),
    OpSpec("inv", ops.inv, np.reciprocal, gen=away_from_zero),
    OpSpec("sin", ops.sin, np.sin, grad2=True),
    OpSpec("cos", ops.cos, np.cos, grad2=True),
    OpSpec("tan", ops.tan, np.tan, gen=unit_open, grad2=True),
    OpSpec("asin", ops.asin, np.arcsin, gen=unit_open, grad2=True),
    OpSpec("arcsin", ops.arcsin, np.arcsin, gen=unit_open),
    OpSpec("acos", ops.acos, np.arccos, gen=unit_open, grad2=True),
    OpSpec("arccos", ops.arccos, np.arccos, gen=unit_open),
    OpSpec("atan", ops.atan, np.arctan, grad2=True),
    OpSpec("arctan", ops.arctan, np.arctan),
    OpSpec("sinh", ops.sinh, np.sinh, grad2=True),
    OpSpec("cosh", ops.cosh, np.cosh, grad2=True),
    OpSpec("tanh", ops.tanh, np.tanh, grad2=True),
    OpSpec("asinh", ops.asinh, np.arcsinh, grad2=True),
    OpSpec("arcsinh", ops.arcsinh, np.arcsinh),
    OpSpec("acosh", ops.acosh, np.arccosh, gen=_uniform(1.5, 3.0), grad2=True),
    OpSpec("arccosh", ops.arccosh, np.arccosh, gen=_uniform(1.5, 3.0)),
    OpSpec("atanh", ops.atanh, np.arctanh, gen=unit_open, grad2=True),
    OpSpec("arctanh", ops.arctanh, np.arctanh, gen=unit_open),
    OpSpec("sigmoid", ops.sigmoid, _sigmoid, grad2=True),
    OpSpec("erf", ops.erf, _vec(math.erf), grad2=True),
    OpSpec("erfc", ops.erfc, _vec(math.erfc), grad2=True),
    OpSpec("erfinv", ops.erfinv, _vec(mpmath.erfinv), gen=unit_open, grad2=True),
    OpSpec("log1p", ops.log1p, np.log1p, gen=positive, grad2=True),
    OpSpec("expm1", ops.expm1, np.expm1, grad2=True),
    OpSpec("log2", ops.log2, np.log2, gen=positive, grad2=True),
    OpSpec("log10", ops.log10, np.log10, gen=positive, grad2=True),
    OpSpec("exp2", ops.exp2, np.exp2, grad2=True),
    OpSpec("frac", ops.frac, lambda x: x - np.trunc(x), gen=_non_integer),
    OpSpec("floor", ops.floor, np.floor, gen=_non_integer, grad=False),
    OpSpec("ceil", ops.ceil, np.ceil, gen=_non_integer, grad=False),
    OpSpec("trunc", ops.trunc, np.trunc, gen=_non_integer, grad=False),
    OpSpec("round", ops.round, np.round, grad=False),
    OpSpec("round_half_even", ops.round, np.round, gen=lambda r, s: r.randint(-4, 4, s) + 0.5, grad=False),
    OpSpec("round_decimals", lambda x: ops.round(x, decimals=2), lambda x: np.round(x, 2), grad=False),
    OpSpec("sgn", ops.sgn, np.sign, grad=False),
    OpSpec("signbit", ops.signbit, np.signbit, grad=False),
    OpSpec("deg2rad", ops.deg2rad, np.deg2rad, grad2=True),
    OpSpec("rad2deg", ops.rad2deg, np.rad2deg),
    OpSpec("logit", ops.logit, lambda x: np.log(x / (1 - x)), gen=_uniform(0.1, 0.9), grad2=True),
    OpSpec("logit_eps", lambda x: ops.logit(x, 0.2), lambda x: np.log(np.clip(x, 0.2, 0.8) / np.clip(1 - x, 0.2, 0.8)),
           gen=lambda r, s: r.choice([0.05, 0.3, 0.5, 0.7, 0.95], s) + r.uniform(-0.02, 0.02, s)),
    OpSpec("sinc", ops.sinc, np.sinc, grad2=True),
    OpSpec("sinc_at_zero", ops.sinc, np.sinc, gen=lambda r, s: r.choice([0.0, 0.5, -1.5], s), grad2=True),
    OpSpec("digamma", ops.digamma, _vec(mpmath.digamma), gen=positive, grad2=True),
    OpSpec("lgamma", ops.lgamma, _vec(math.lgamma), gen=positive, grad2=True),
    OpSpec("polygamma", lambda x: ops.polygamma(2, x), _vec(lambda v: mpmath.psi(2, v)), gen=positive, grad2=True),
    OpSpec("polygamma_tensor_n", lambda x: ops.polygamma(ms.Tensor(1), x), _vec(lambda v: mpmath.psi(1, v)),
           gen=positive),
    OpSpec("mvlgamma", lambda x: ops.mvlgamma(x, 3), _vec(lambda v: 3 * math.log(math.pi) / 2 + sum(
        math.lgamma(v - j / 2) for j in range(3))), gen=_uniform(1.5, 3.0), grad2=True),
    OpSpec("i0", ops.i0, np.i0, grad2=True),
    OpSpec("bessel_i0", ops.bessel_i0, np.i0),
    OpSpec("bessel_i1", ops.bessel_i1, _vec(lambda v: mpmath.besseli(1, v)), grad2=True),
    OpSpec("bessel_i1_at_zero", ops.bessel_i1, _vec(lambda v: mpmath.besseli(1, v)),
           gen=lambda r, s: r.choice([0.0, 1.0], s), grad2=True),
    OpSpec("bessel_i0e", ops.bessel_i0e, _vec(lambda v: mpmath.besseli(0, v) * mpmath.exp(-abs(v))),
           gen=away_from_zero, grad2=True),
    OpSpec("bessel_i1e", ops.bessel_i1e, _vec(lambda v: mpmath.besseli(1, v) * mpmath.exp(-abs(v))),
           gen=away_from_zero, grad2=True),
    OpSpec("bessel_j0", ops.bessel_j0, _vec(lambda v: mpmath.besselj(0, v)), grad2=True),
    OpSpec("bessel_j1", ops.bessel_j1, _vec(lambda v: mpmath.besselj(1, v)), grad2=True),
    OpSpec("bessel_y0", ops.bessel_y0, _vec(lambda v: mpmath.bessely(0, v)), gen=positive, grad2=True),
    OpSpec("bessel_y1", ops.bessel_y1, _vec(lambda v: mpmath.bessely(1, v)), gen=positive, grad2=True),
    OpSpec("bessel_k0", ops.bessel_k0, _vec(lambda v: mpmath.besselk(0, v)), gen=positive, grad2=True),
    OpSpec("bessel_k1", ops.bessel_k1, _vec(lambda v: mpmath.besselk(1, v)), gen=positive, grad2=True),
    OpSpec("bessel_k0e", ops.bessel_k0e, _vec(lambda v: mpmath.besselk(0, v) * mpmath.exp(v)), gen=positive,
           grad2=True),
    OpSpec("bessel_k1e", ops.bessel_k1e, _vec(lambda v: mpmath.besselk(1, v) * mpmath.exp(v)), gen=positive,
           grad2=True),
    OpSpec("nan_to_num", ops.nan_to_num, np.nan_to_num),
    OpSpec("nan_to_num_values", lambda x: ops.nan_to_num(x / (x > 0), 1.0, 9.0, -9.0),
           lambda x: np.nan_to_num(x / (x > 0), nan=1.0, posinf=9.0, neginf=-9.0),
           gen=lambda r, s: r.choice([-1.0, 0.0, 2.0], s), grad=False),
    OpSpec("positive", ops.positive, np.positive),
    OpSpec("real", ops.real, np.real),
    OpSpec("imag", ops.imag, np.imag, grad=False),
    OpSpec("conj", ops.conj, np.conj),
    OpSpec("angle", ops.angle, np.angle, grad=False),
]

BINARY = [
    OpSpec("atan2", ops.atan2, np.arctan2, shapes=[(3, 4), (4,)], grad2=True),
    OpSpec("arctan2", ops.arctan2, np.arctan2, shapes=[(3, 4), (3, 4)]),
    OpSpec("hypot", ops.hypot, np.hypot, shapes=[(3, 4), (3, 1)], gen=away_from_zero, grad2=True),
    OpSpec("logaddexp", ops.logaddexp, np.logaddexp, shapes=[(3, 4), (4,)], grad2=True),
    OpSpec("logaddexp2", ops.logaddexp2, np.logaddexp2, shapes=[(3, 4), (3, 4)], grad2=True),
    OpSpec("xlogy", ops.xlogy, lambda x, y: x * np.log(y), shapes=[(3, 4), (3, 4)], gen=[None, positive], grad2=True),
    OpSpec("xlogy_zero", ops.xlogy, lambda x, y: np.where(x == 0, 0.0, x * np.log(y)),
           shapes=[(3, 4), (3, 4)], gen=[lambda r, s: r.choice([0.0, 1.5], s), lambda r, s: r.choice([0.0, 2.0], s)],
           grad=False),
    OpSpec("xdivy", ops.xdivy, np.divide, shapes=[(3, 4), (4,)], gen=[None, away_from_zero], grad2=True),
    OpSpec("xdivy_zero", ops.xdivy, lambda x, y: np.where(x == 0, 0.0, x / y),
           shapes=[(3, 4), (3, 4)], gen=[lambda r, s: r.choice([0.0, 1.5], s), lambda r, s: r.choice([0.0, 2.0], s)],
           grad=False),
    OpSpec("floor_divide", ops.floor_divide, np.floor_divide, shapes=[(3, 4), (4,)], gen=[None, away_from_zero],
           grad=False),
    OpSpec("floor_div", ops.floor_div, np.floor_divide, shapes=[(3, 4), (3, 4)], gen=[None, away_from_zero],
           grad=False),
    OpSpec("floor_mod", ops.floor_mod, np.mod, shapes=[(3, 4), (4,)], gen=[None, away_from_zero], grad2=True),
    OpSpec("remainder", ops.remainder, np.mod, shapes=[(3, 4), (3, 4)], gen=[None, away_from_zero]),
    OpSpec("fmod", ops.fmod, np.fmod, shapes=[(3, 4), (4,)], gen=[None, away_from_zero], grad2=True),
    OpSpec("truncate_div", ops.truncate_div, lambda x, y: np.trunc(x / y), shapes=[(3, 4), (3, 4)],
           gen=[None, away_from_zero], grad=False),
    OpSpec("truncate_mod", ops.truncate_mod, np.fmod, shapes=[(3, 4), (3, 4)], gen=[None, away_from_zero]),
    OpSpec("copysign", ops.copysign, np.copysign, shapes=[(3, 4), (4,)], gen=[away_from_zero, away_from_zero]),
    OpSpec("fmax", ops.fmax, np.fmax, shapes=[(3, 4), (3, 4)]),
    OpSpec("fmin", ops.fmin, np.fmin, shapes=[(3, 4), (4,)]),
    OpSpec("lerp", ops.lerp, lambda a, b, w: a + w * (b - a), shapes=[(3, 4), (3, 4), (4,)], grad2=True),
    OpSpec("lerp_float_weight", lambda a, b: ops.lerp(a, b, 0.3), lambda a, b: a + 0.3 * (b - a),
           shapes=[(3, 4), (4,)]),
    OpSpec("addcmul", lambda a, b, c: ops.addcmul(a, b, c, 0.5), lambda a, b, c: a + 0.5 * b * c,
           shapes=[(3, 4), (3, 4), (4,)], grad2=True),
    OpSpec("addcdiv", lambda a, b, c: ops.addcdiv(a, b, c, 2), lambda a, b, c: a + 2 * b / c,
           shapes=[(3, 4), (3, 4), (4,)], gen=[None, None, away_from_zero], grad2=True),
    OpSpec("ldexp", lambda x, e: ops.ldexp(x, e), lambda x, e: np.ldexp(x, e), shapes=[(3, 4), (3, 4)],
           gen=[None, ints(-2, 3)], grad_inputs=(0,)),
    OpSpec("float_power", ops.float_power, lambda x, y: np.float_power(x, y), shapes=[(3, 4), (3, 4)],
           gen=[positive, None]),
    OpSpec("clamp_scalars", lambda x: ops.clamp(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5), grad2=True),
    OpSpec("clamp_min_only", lambda x: ops.clamp(x, min=0.1), lambda x: np.maximum(x, 0.1)),
    OpSpec("clamp_tensors", ops.clamp, np.clip, shapes=[(3, 4), (4,), (3, 1)],
           gen=[None, _uniform(-1.0, -0.2), _uniform(0.2, 1.0)]),
    OpSpec("clip", lambda x: ops.clip(x, None, 0.3), lambda x: np.minimum(x, 0.3)),
    OpSpec("clip_by_value", lambda x: ops.clip_by_value(x, -0.4, 0.4), lambda x: np.clip(x, -0.4, 0.4)),
    OpSpec("igamma", ops.igamma, _vec(lambda a, x: mpmath.gammainc(a, 0, x, regularized=True)),
           shapes=[(2, 3), (2, 3)], gen=[positive, positive], grad_inputs=(1,)),
    OpSpec("igammac", ops.igammac, _vec(lambda a, x: mpmath.gammainc(a, x, mpmath.inf, regularized=True)),
           shapes=[(2, 3), (2, 3)], gen=[positive, positive], grad_inputs=(1,)),
    OpSpec("zeta", ops.zeta, _vec(mpmath.zeta), shapes=[(2, 3), (2, 3)], gen=[_uniform(1.5, 3.0), positive],
           grad_inputs=(1,)),
    OpSpec("addn", lambda a, b, c: ops.addn([a, b, c]), lambda a, b, c: a + b + c, shapes=[(2, 3)] * 3),
    OpSpec("heaviside", ops.heaviside, np.heaviside, shapes=[(3, 4), (4,)],
           gen=[lambda r, s: r.choice([-1.0, 0.0, 2.0], s), None], grad=False),
    OpSpec("nextafter", ops.nextafter, np.nextafter, shapes=[(3, 4), (3, 4)], grad=False, atol=0, rtol=0),
    OpSpec("div_no_nan", lambda x, y: ops.DivNoNan()(x, y), np.divide, shapes=[(3, 4), (4,)],
           gen=[None, away_from_zero], grad2=True),
    # y = 0 gives 0; finite differences of y across its zeros are meaningless, so only x's gradient is checked there
    OpSpec("div_no_nan_zeros", lambda x, y: ops.DivNoNan()(x, y), lambda x, y: np.where(y == 0, 0.0, x / np.where(
        y == 0, 1.0, y)), shapes=[(3, 4), (3, 4)], gen=[None, lambda r, s: r.choice([-2.0, 0.0, 0.5, 1.5], s)],
           grad_inputs=(0,)),
    # conj(a + ib) - (c + id) = (a - c) - i(b + d): complex numbers built, conjugated and taken apart
    OpSpec("complex_conj_parts", lambda a, b, c, d: _conj_minus(ops.Complex()(a, b), ops.Complex()(c, d)),
           lambda a, b, c, d: [a - c, -b - d], shapes=[(3, 4)] * 4, grad2=True),
]


def _conj_minus(z, w):
    p = ops.conj(z) - w
    return ops.real(p), ops.imag(p)

_INT = ("float64",)  # integer and bool cases: the dtype label is irrelevant, run once
LOGIC = [
    OpSpec("floor_divide_int", ops.floor_divide, np.floor_divide, shapes=[(3, 4), (4,)],
           gen=[ints(-9, 9), lambda r, s: r.choice([-3, -2, 2, 5], s)], grad=False, dtypes=_INT),
    OpSpec("remainder_int", ops.remainder, np.mod, shapes=[(3, 4), (4,)],
           gen=[ints(-9, 9), lambda r, s: r.choice([-3, -2, 2, 5], s)], grad=False, dtypes=_INT),
    OpSpec("fmod_int", ops.fmod, np.fmod, shapes=[(3, 4), (4,)],
           gen=[ints(-9, 9), lambda r, s: r.choice([-3, -2, 2, 5], s)], grad=False, dtypes=_INT),
    OpSpec("inv_int", lambda x: ops.Inv()(x), np.reciprocal,
           gen=lambda r, s: r.choice([-7, -1, 1, 2, 9], s).astype(np.int32), grad=False, dtypes=_INT),
    OpSpec("gcd", ops.gcd, np.gcd, shapes=[(3, 4), (4,)], gen=ints(-20, 20), grad=False, dtypes=_INT),
    OpSpec("lcm", ops.lcm, np.lcm, shapes=[(3, 4), (3, 4)], gen=ints(-20, 20), grad=False, dtypes=_INT),
    OpSpec("bitwise_and", ops.bitwise_and, np.bitwise_and, shapes=[(3, 4), (4,)], gen=ints(-20, 20), grad=False,
           dtypes=_INT),
    OpSpec("bitwise_or", ops.bitwise_or, np.bitwise_or, shapes=[(3, 4), (3, 4)], gen=ints(-20, 20), grad=False,
           dtypes=_INT),
    OpSpec("bitwise_xor", ops.bitwise_xor, np.bitwise_xor, shapes=[(3, 4), (3, 4)], gen=ints(-20, 20), grad=False,
           dtypes=_INT),
    OpSpec("bitwise_and_bool", ops.bitwise_and, np.bitwise_and, shapes=[(3, 4), (3, 4)], gen=bools, grad=False,
           dtypes=_INT),
    OpSpec("bitwise_not", ops.bitwise_not, np.invert, gen=ints(-20, 20), grad=False, dtypes=_INT),
    OpSpec("invert", ops.invert, np.invert, gen=ints(-20, 20), grad=False, dtypes=_INT),
    OpSpec("left_shift", ops.bitwise_left_shift, np.left_shift, shapes=[(3, 4), (4,)],
           gen=[ints(-20, 20), ints(0, 4)], grad=False, dtypes=_INT),
    OpSpec("right_shift", ops.bitwise_right_shift, np.right_shift, shapes=[(3, 4), (3, 4)],
           gen=[ints(-20, 20), ints(0, 4)], grad=False, dtypes=_INT),
    OpSpec("population_count", ops.population_count, lambda x: np.vectorize(lambda v: bin(int(v) & 0xFFFF).count("1"))(
        x).astype(np.uint8), gen=ints(-300, 300, np.int16), grad=False, dtypes=_INT),
    OpSpec("logical_and", ops.logical_and, np.logical_and, shapes=[(3, 4), (4,)], gen=bools, grad=False,
           dtypes=_INT),
    OpSpec("logical_or", ops.logical_or, np.logical_or, shapes=[(3, 4), (3, 4)], gen=ints(-1, 2), grad=False),
    OpSpec("logical_xor", ops.logical_xor, np.logical_xor, shapes=[(3, 4), (3, 4)], gen=bools, grad=False,
           dtypes=_INT),
    OpSpec("logical_not", ops.logical_not, np.logical_not, gen=ints(-1, 2), grad=False),
    OpSpec("isclose", lambda a, b: ops.isclose(a, a + b * 1e-3, rtol=1e-3), lambda a, b: np.isclose(
        a, a + b * 1e-3, rtol=1e-3), shapes=[(3, 4), (3, 4)], grad=False),
    OpSpec("approximate_equal", lambda a, b: ops.approximate_equal(a, a + b * 0.1, 0.1), lambda a, b: np.abs(
        b * 0.1) < 0.1, shapes=[(3, 4), (3, 4)], grad=False, dtypes=("float64",)),
    OpSpec("isnan", lambda x: ops.isnan(x / (x > 0)), lambda x: np.isnan(x / (x > 0)),
           gen=lambda r, s: r.choice([-1.0, 0.0, 2.0], s), grad=False),
    OpSpec("isinf", lambda x: ops.isinf(x / (x > 0)), lambda x: np.isinf(x / (x > 0)),
           gen=lambda r, s: r.choice([-1.0, 0.0, 2.0], s), grad=False),
    OpSpec("isfinite", lambda x: ops.isfinite(x / (x > 0)), lambda x: np.isfinite(x / (x > 0)),
           gen=lambda r, s: r.choice([-1.0, 0.0, 2.0], s), grad=False),
    OpSpec("isneginf", lambda x: ops.isneginf(x / (x > 1)), lambda x: np.isneginf(x / (x > 1)),
           gen=lambda r, s: r.choice([-1.0, 0.0, 2.0], s), grad=False),
    OpSpec("isposinf", lambda x: ops.isposinf(x / (x > 1)), lambda x: np.isposinf(x / (x > 1)),
           gen=lambda r, s: r.choice([-1.0, 0.0, 2.0], s), grad=False),
    OpSpec("isreal", ops.isreal, np.isreal, grad=False),
]

test_value, test_grad, test_grad2, test_graph = make_tests(UNARY + BINARY + LOGIC)

_x = ms.Tensor(np.ones((2, 3), np.float32))
_f = ms.Tensor([1.5, -2.0])
_i = ms.Tensor([1, 2])
ERRORS = [
    ErrorSpec("sqrt_not_tensor", lambda: ops.sqrt([1.0, 4.0]), TypeError, "For 'Sqrt', the 'x' must be a Tensor"),
    ErrorSpec("sin_scalar", lambda: ops.sin(1.0), TypeError, "For 'Sin'"),
    ErrorSpec("erf_complex", lambda: ops.erf(ms.Tensor([1 + 1j])), TypeError, "For 'Erf'"),
    ErrorSpec("atan2_bcast", lambda: ops.atan2(_x, ms.Tensor(np.ones(4, np.float32))), ValueError, "For 'Atan2'"),
    ErrorSpec("atan2_type", lambda: ops.atan2(_x, "a"), TypeError, "For 'Atan2', the 'other'"),
    ErrorSpec("fmod_scalars", lambda: ops.fmod(5, 3), TypeError, "For 'Mod'"),  # ops.remainder(5, 3) is 2
    ErrorSpec("bitwise_and_float", lambda: ops.bitwise_and(_f, _f), TypeError,
              "For 'BitwiseAnd', the input must be a Tensor of int or bool type, but got Float32."),
    ErrorSpec("shift_float", lambda: ops.bitwise_left_shift(_f, 1), TypeError, "For 'LeftShift'"),
    ErrorSpec("gcd_float", lambda: ops.gcd(_f, _f), TypeError, "For 'Gcd', the input must be a Tensor of int type"),
    ErrorSpec("clamp_no_bounds", lambda: ops.clamp(_f), ValueError, "For 'Clamp', at least one of 'min' or 'max'"),
    ErrorSpec("clamp_bad_bound", lambda: ops.clamp(_f, "0"), TypeError, "For 'Clamp', the 'min'"),
    ErrorSpec("clamp_bool_bound", lambda: ops.clamp(_f, 5, True), ValueError,
              "For Clamp, the dtype of 'input', 'min' and 'max' must not be bool."),
    ErrorSpec("clamp_bool_input", lambda: ops.clamp(ms.Tensor([True, False]), 0, 1), ValueError, "must not be bool"),
    ErrorSpec("round_decimals", lambda: ops.round(_f, decimals=1.5), TypeError, "For 'Round', the 'decimals'"),
    ErrorSpec("polygamma_n_float", lambda: ops.polygamma(ms.Tensor(1.5), _f), TypeError, "For 'Polygamma', the 'n'"),
    ErrorSpec("polygamma_n_negative", lambda: ops.polygamma(-1, _f), ValueError, "For 'Polygamma'"),
    ErrorSpec("mvlgamma_domain", lambda: ops.mvlgamma(ms.Tensor([0.2]), 2), ValueError, "For 'Mvlgamma'"),
    ErrorSpec("isclose_dtypes", lambda: ops.isclose(_f, _i), TypeError, "For 'IsClose'"),
    ErrorSpec("lerp_weight", lambda: ops.lerp(_f, _f, "w"), TypeError, "For 'Lerp', the 'weight'"),
    ErrorSpec("approx_shape", lambda: ops.approximate_equal(_f, _x), RuntimeError,
              "For 'ApproximateEqual', arg 'x1' must have the same shape as 'x2'"),
    ErrorSpec("approx_rank", lambda: ops.approximate_equal(ops.ones((1,) * 8), ops.ones((1,) * 8)), RuntimeError,
              "the x's rank should be less than 8"),
    ErrorSpec("approx_tolerance", lambda: ops.ApproximateEqual(1), TypeError,
              "For 'ApproximateEqual', the type of 'tolerance' should be 'float', but got type 'int'"),
    ErrorSpec("addn_shapes", lambda: ops.addn([_f, _x]), ValueError, "For 'AddN'"),
    ErrorSpec("nan_to_num_type", lambda: ops.nan_to_num(_f, nan="0"), TypeError, "For 'NanToNum'"),
    ErrorSpec("digamma_complex", lambda: ops.digamma(ms.Tensor([1j])), TypeError, "For 'Digamma'"),
]
test_bad_input = make_error_tests(ERRORS)


# ---------------------------------------------------------------- dtypes and MindSpore semantics
@pytest.mark.parametrize("fn,dtype,want", [
    (ops.sqrt, ms.int32, ms.float32), (ops.sin, ms.float64, ms.float64), (ops.exp2, ms.int32, ms.float32),
    (ops.abs, ms.int32, ms.int32), (ops.abs, ms.bool_, ms.bool_), (ops.reciprocal, ms.int32, ms.float32),
    (ops.round, ms.int32, ms.int32), (ops.trunc, ms.int64, ms.int64), (ops.frac, ms.int32, ms.int32),
    (ops.signbit, ms.float16, ms.bool_), (ops.sigmoid, ms.float16, ms.float16), (ops.sinc, ms.int32, ms.float32),
    (ops.erf, ms.float64, ms.float64), (ops.isnan, ms.int32, ms.bool_), (ops.isinf, ms.int32, ms.bool_),
    (ops.sgn, ms.int32, ms.int32), (ops.lgamma, ms.int32, ms.float32),
])
def test_unary_dtypes(fn, dtype, want):
    assert fn(ms.Tensor([1, 0, 2], dtype)).dtype == want


def test_python_floor_semantics():
    a = ms.Tensor([-7.5, 7.0, -7.0])
    np.testing.assert_array_equal((a // 2).asnumpy(), [-4.0, 3.0, -4.0])
    np.testing.assert_array_equal((a % 2).asnumpy(), [0.5, 1.0, 1.0])
    i = ms.Tensor([-7, 7])
    assert (i // 2).dtype == ms.int64 and (i // 2).asnumpy().tolist() == [-4, 3]
    assert (i % -3).asnumpy().tolist() == [-1, -2]
    assert ops.remainder(5, ms.Tensor([-7, 7])).asnumpy().tolist() == [-2, 5]
    assert (7 // ms.Tensor([2.0])).asnumpy().tolist() == [3.0]
    assert ops.truncate_div(ms.Tensor([-7, 7]), ms.Tensor([2, -2])).asnumpy().tolist() == [-3, -3]


def test_bitwise_operators():
    a, b = ms.Tensor([12, 10]), ms.Tensor([10, 6])
    assert (a & b).asnumpy().tolist() == [8, 2]
    assert (a | b).asnumpy().tolist() == [14, 14]
    assert (a ^ b).asnumpy().tolist() == [6, 12]
    # MindSpore's `~` is a logical not whatever the dtype; invert() is the bitwise one
    assert (~a).asnumpy().tolist() == [False, False] and (~ms.Tensor([0, 3])).asnumpy().tolist() == [True, False]
    assert a.invert().asnumpy().tolist() == [-13, -11]
    t, f = ms.Tensor([True, False]), ms.Tensor([True, True])
    assert (t & f).asnumpy().tolist() == [True, False]
    assert (~t).asnumpy().tolist() == [False, True]
    assert abs(ms.Tensor([-1.5])).asnumpy().tolist() == [1.5]


def test_clamp_dtypes():
    i = ms.Tensor([1, 5, 3], ms.int32)
    assert ops.clamp(i, 2, 4).dtype == ms.int32
    out = ops.clamp(i, 1.5, 4.5)
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [1.5, 4.5, 3.0]
    kept = ops.clip_by_value(i, 2.5, 4)
    assert kept.dtype == ms.int32 and kept.asnumpy().tolist() == [2, 4, 3]
    pair = ops.clip_by_value([ms.Tensor([-2.0]), ms.Tensor([2.0])], -1.0, 1.0)
    assert [p.asnumpy().tolist() for p in pair] == [[-1.0], [1.0]]


def test_clamp_grad_flows_to_tensor_bounds():
    x = ms.Tensor([-2.0, 0.0, 2.0])
    lo, hi = ms.Tensor([-1.0, -1.0, -1.0]), ms.Tensor(1.0)
    gx, glo, ghi = ms.grad(lambda x, lo, hi: ops.clamp(x, lo, hi).sum(), grad_position=(0, 1, 2))(x, lo, hi)
    assert gx.asnumpy().tolist() == [0.0, 1.0, 0.0]
    assert glo.asnumpy().tolist() == [1.0, 0.0, 0.0]
    assert ghi.asnumpy().tolist() == 1.0


def test_zero_gradient_of_rounding():
    x = ms.Tensor([0.3, 1.7])
    for fn in (ops.floor, ops.ceil, ops.round, ops.trunc, ops.sgn):
        assert ms.grad(lambda v, fn=fn: fn(v).sum())(x).asnumpy().tolist() == [0.0, 0.0]


def test_predicates_return_python_bools():
    assert ops.is_floating_point(ms.Tensor([1.0])) is True
    assert ops.is_floating_point(ms.Tensor([1])) is False
    assert ops.is_complex(ms.Tensor([1.0])) is False
    assert ops.allclose(ms.Tensor([1.0]), ms.Tensor([1.0 + 1e-9])) is True
    assert ms.Tensor([1.0]).allclose(ms.Tensor([2.0])) is False


def test_float_power_is_double():
    assert ops.float_power(ms.Tensor([2.0], ms.float32), 2).dtype == ms.float64
    assert ops.float_power(ms.Tensor([2]), ms.Tensor([0.5])).dtype == ms.float64


def test_complex_parts():
    z = ms.Tensor(np.array([3 + 4j, -1 + 0j], np.complex64))
    np.testing.assert_allclose(ops.real(z).asnumpy(), [3, -1])
    np.testing.assert_allclose(ops.imag(z).asnumpy(), [4, 0])
    np.testing.assert_allclose(ops.conj(z).asnumpy(), [3 - 4j, -1])
    np.testing.assert_allclose(ops.angle(z).asnumpy(), np.angle([3 + 4j, -1]), rtol=1e-6)
    np.testing.assert_allclose(ops.abs(z).asnumpy(), [5, 1])
    np.testing.assert_allclose(ops.sgn(z).asnumpy(), [0.6 + 0.8j, -1], rtol=1e-6)
    assert ops.isreal(z).asnumpy().tolist() == [False, True]


# ---------------------------------------------------------------- broadcasting fuzz
_FUZZ_BINARY = [
    (ops.atan2, np.arctan2, None), (ops.hypot, np.hypot, None), (ops.logaddexp, np.logaddexp, None),
    (ops.fmax, np.fmax, None), (ops.xdivy, np.divide, away_from_zero), (ops.remainder, np.mod, away_from_zero),
    (ops.copysign, np.copysign, away_from_zero),
]


@settings(max_examples=30, deadline=None)
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
       which=st.integers(0, len(_FUZZ_BINARY) - 1), seed=st.integers(0, 2 ** 16))
def test_binary_broadcasting_fuzz(shapes, which, seed):
    fn, ref, gen_y = _FUZZ_BINARY[which]
    r = np.random.RandomState(seed)
    (sx, sy), out_shape = shapes.input_shapes, shapes.result_shape
    a = r.standard_normal(sx)
    b = (gen_y or (lambda rr, s: rr.standard_normal(s)))(r, sy)
    x, y = ms.Tensor(np.asarray(a)), ms.Tensor(np.asarray(b))
    out = fn(x, y)
    assert out.shape == tuple(out_shape)
    np.testing.assert_allclose(out.asnumpy(), ref(a, b), rtol=1e-6, atol=1e-9)
    gx, gy = ms.grad(lambda u, v: fn(u, v).sum(), grad_position=(0, 1))(x, y)
    assert gx.shape == tuple(sx) and gy.shape == tuple(sy)


def test_xlogy_complex_operands():
    # torch's xlogy takes no complex input; MindSpore's Xlogy does: x * log(y), 0 where x is 0
    x = np.array([[0, 1 + 1j], [2, 3 - 1j]], np.complex128)
    y = np.array([[2, 3 + 0.5j], [0.5, 1j]], np.complex128)
    out = ops.Xlogy()(ms.Tensor(x), ms.Tensor(y)).asnumpy()
    assert out.dtype == np.complex128
    np.testing.assert_allclose(out, np.where(x == 0, 0, x * np.log(y)), rtol=1e-12)


def test_bessel_functions_round_their_double_precision_values():
    # float32: y0 near its zero at 3.96 keeps full relative accuracy (torch's float32 series lose 1e-5 there)
    y0 = ops.bessel_y0(ms.Tensor(np.array([1, 2, 3, 4], np.float32))).asnumpy()
    np.testing.assert_allclose(y0, [0.088256964, 0.51037567, 0.37685001, -0.016940739], rtol=1e-6)
    # float16: the correctly rounded values and MindSpore's float16 gradient of k1e, out * (1 - 1/x) - k0e(x)
    x = ms.Tensor(np.array([0.5, 1, 3, 3.2], np.float16))
    assert ops.bessel_i0e(x).asnumpy().tolist() == np.array([0.645, 0.4658, 0.243, 0.2343], np.float16).tolist()
    sens = ms.Tensor(np.array([0.5, 1, 3, 3.2], np.float16))
    grad = ms.grad(lambda x, sens: (ops.bessel_k1e(x) * sens).sum())(x, sens)
    assert grad.asnumpy().tolist() == np.array([-2.127, -1.145, -0.479, -0.4592], np.float16).tolist()


def test_pow_exponent_gradient_at_a_zero_base():
    # d(x ** y)/dy = x ** y log(x): 0 where x == 0 and y >= 0 (no nan from 0 * log 0), -inf for y < 0, nan for x < 0
    y = ms.Tensor(np.array([0.5, -1.0, 0.0, 2.0], np.float32))
    g = ms.ops.grad(lambda a, b: ms.mint.pow(a, b), 1)
    np.testing.assert_array_equal(g(0, y).asnumpy(), [0, -np.inf, 0, 0])
    assert np.isnan(g(-2, y).asnumpy()).all()
    np.testing.assert_allclose(g(2, y).asnumpy(), 2.0 ** y.asnumpy() * np.log(2.0), rtol=1e-6)
    x = ms.Tensor(np.array([0.0, 0.0, 0.0, -2.0], np.float32))
    out = g(x, y).asnumpy()
    np.testing.assert_array_equal(out[:3], [0, -np.inf, 0])
    assert np.isnan(out[3])


def test_sgn_complex_divides_the_parts():
    # MindSpore 2.10 prints 0.6+0.8j for sgn(15+20j) (torch's complex division gives 0.59999996+0.79999995j)
    z = ms.Tensor(np.array([[3 + 4j, 7 - 24j, 0, 6 + 8j, 8], [15 + 20j, 7 - 24j, 0, 3 + 4j, 20]]), ms.complex64)
    assert str(ops.sgn(z)) == ("[[0.6 +0.8j  0.28-0.96j 0.  +0.j   0.6 +0.8j  1.  +0.j  ]\n"
                               " [0.6 +0.8j  0.28-0.96j 0.  +0.j   0.6 +0.8j  1.  +0.j  ]]")
    np.testing.assert_array_equal(ops.sgn(ms.Tensor([-2.0, 0.0, 3.0])).asnumpy(), [-1.0, 0.0, 1.0])
