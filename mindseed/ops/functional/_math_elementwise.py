"""Elementwise math of mindspore.ops: unary functions, binary arithmetic, special functions, logic and tests."""
import math

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._api import _check_float, _check_tensor, _operands
from mindseed.ops._prims import core as C
from mindseed.ops._prims import math as P
from mindseed.ops._python_scalars import narrow
from mindseed.ops.functional import _core as FC

__all__ = [
    "round", "deg2rad", "rad2deg", "logit", "polygamma", "mvlgamma", "real", "conj", "nan_to_num", "positive",
    "lerp", "addcmul", "addcdiv", "ldexp", "float_power", "clamp", "clip", "clip_by_value", "addn", "accumulate_n",
    "polar", "float_power_ext", "pows", "tensor_add", "tensor_sub", "tensor_mul", "tensor_muls", "tensor_div",
    "tensor_pow", "tensor_exp", "tensor_gt", "tensor_ge", "tensor_lt", "tensor_le",
]

# ---------------------------------------------------------------- argument checks (cheap on the hot path)
def _tensor(op, x, name="input"):
    if not isinstance(x, Tensor):
        _check_tensor(op, name, x)


def _float_tensor(op, x, name="input"):
    _check_float(op, name, x)


# ---------------------------------------------------------------- unary

def round(input, *, decimals=0):
    """Round half to even, to `decimals` decimal places.

    >>> import mindseed as ms
    >>> ms.ops.round(ms.Tensor([0.5, 1.5, 2.5])).asnumpy().tolist()
    [0.0, 2.0, 2.0]
    """
    _tensor("Round", input)
    if isinstance(decimals, bool) or not isinstance(decimals, int):
        raise TypeError(f"For 'Round', the 'decimals' must be int, but got {type(decimals).__name__}.")
    return P.round_p(input, decimals=decimals)


def deg2rad(x):
    """Degrees to radians."""
    _tensor("deg2rad", x, "x")
    return C.mul_p(x, math.pi / 180.0) if mstype.is_float(x.dtype) else C.mul_p(C.cast_p(x, dtype="Float32"),
                                                                                    math.pi / 180.0)


def rad2deg(x):
    """Radians to degrees."""
    _tensor("rad2deg", x, "x")
    return C.mul_p(x, 180.0 / math.pi) if mstype.is_float(x.dtype) else C.mul_p(C.cast_p(x, dtype="Float32"),
                                                                                    180.0 / math.pi)


def logit(input, eps=None):
    """log(p / (1 - p)), with p = clamp(input, eps, 1 - eps) when `eps` is given."""
    _tensor("Logit", input)
    x = input if mstype.is_float(input.dtype) else C.cast_p(input, dtype="Float32")
    if eps is not None and (isinstance(eps, bool) or not isinstance(eps, (int, float))):
        raise TypeError(f"For 'Logit', the 'eps' must be a float or None, but got {type(eps).__name__}.")
    if eps is not None and eps >= 0:
        x = P.clamp_p(x, float(eps), 1.0 - float(eps))
    return C.log_p(C.div_p(x, C.sub_p(1.0, x)))


def polygamma(n, input):
    """The n-th derivative of digamma.

    Args:
        n (Union[int, Tensor]): the order, a non-negative integer (or integer scalar Tensor).
        input (Tensor): the points.
    """
    if isinstance(n, Tensor):
        if not mstype.is_integral(n.dtype) or n.dtype == mstype.bool_:
            raise TypeError(f"For 'Polygamma', the 'n' must be a Tensor of int32 or int64, but got {n.dtype}.")
        n = int(n.item())
    elif isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"For 'Polygamma', the 'n' must be an int or an int Tensor, but got {type(n).__name__}.")
    if n < 0:
        raise ValueError(f"For 'Polygamma', the 'n' must be non-negative, but got {n}.")
    _tensor("Polygamma", input)
    return P.polygamma_p(input, n=int(n))


def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension `p`.

    Raises:
        ValueError: `p` < 1, or an element of `input` <= (p - 1) / 2.
    """
    _tensor("Mvlgamma", input)
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise ValueError(f"For 'Mvlgamma', the 'p' must be an int >= 1, but got {p}.")
    if bool(P.reduce_any_p(C.less_equal_p(input, (p - 1) / 2))):
        raise ValueError(f"For 'Mvlgamma', all elements of 'input' must be greater than (p - 1) / 2 = "
                         f"{(p - 1) / 2}.")
    out = P.lgamma_p(input)
    for j in range(1, p):
        out = C.add_p(out, P.lgamma_p(C.sub_p(input, j / 2.0)))
    return C.add_p(out, p * (p - 1) / 4.0 * math.log(math.pi))


def real(input):
    """The real part (the input itself when it is real)."""
    _tensor("Real", input)
    return P.real_p(input) if mstype.is_complex(input.dtype) else input


def conj(input):
    """The complex conjugate (the input itself when it is real)."""
    _tensor("Conj", input)
    return P.conj_p(input) if mstype.is_complex(input.dtype) else input


def nan_to_num(input, nan=None, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced by `nan` (0.0), `posinf` and `neginf` (the dtype's largest/lowest values)."""
    _tensor("NanToNum", input)
    for name, v in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise TypeError(f"For 'NanToNum', the '{name}' must be a float or None, but got {type(v).__name__}.")
    return P.nan_to_num_p(input, nan=0.0 if nan is None else float(nan), posinf=posinf, neginf=neginf)


def positive(input):
    """The input itself."""
    _tensor("positive", input)
    return input


# ---------------------------------------------------------------- division and remainders

# ---------------------------------------------------------------- binary functions

def lerp(input, end, weight):
    """input + weight * (end - input).

    Raises:
        TypeError: `weight` is neither a float nor a Tensor.
    """
    _tensor("Lerp", input)
    _tensor("Lerp", end, "end")
    if not isinstance(weight, (Tensor, float)):
        raise TypeError(f"For 'Lerp', the 'weight' must be a float or a Tensor, but got {type(weight).__name__}.")
    return C.add_p(input, C.mul_p(weight, C.sub_p(end, input)))


def addcmul(input, tensor1, tensor2, value=1):
    """input + value * tensor1 * tensor2."""
    for name, t in (("input", input), ("tensor1", tensor1), ("tensor2", tensor2)):
        _tensor("Addcmul", t, name)
    return C.add_p(input, C.mul_p(C.mul_p(tensor1, tensor2), value))


def addcdiv(input, tensor1, tensor2, value=1):
    """input + value * tensor1 / tensor2."""
    for name, t in (("input", input), ("tensor1", tensor1), ("tensor2", tensor2)):
        _tensor("Addcdiv", t, name)
    return C.add_p(input, C.mul_p(C.div_p(tensor1, tensor2), value))


def ldexp(x, other):
    """x * 2 ** other."""
    _tensor("ldexp", x, "x")
    if not isinstance(other, Tensor):
        if isinstance(other, bool) or not isinstance(other, (int, float)):
            raise TypeError(f"For 'ldexp', the 'other' must be a Tensor, int or float, but got {type(other).__name__}.")
        try:
            scale = 2.0 ** other
        except OverflowError:   # 2 ** other beyond any float: the product overflows as the kernel's would
            scale = math.inf
        return C.mul_p(x, scale)
    scale = P.exp2_p(other)
    if mstype.is_float(x.dtype) and not mstype.is_float(other.dtype) and scale.dtype != x.dtype:
        scale = C.cast_p(scale, dtype=x.dtype.name)  # an integer exponent keeps x's precision
    return C.mul_p(x, scale)


def float_power(input, exponent):
    """input ** exponent computed in double precision (Float64, or Complex128 for complex inputs)."""
    input, exponent = _operands("float_power", input, exponent, ("input", "exponent"))
    cplx = any(isinstance(v, Tensor) and mstype.is_complex(v.dtype) for v in (input, exponent)) or \
        isinstance(input, complex) or isinstance(exponent, complex)
    target = "Complex128" if cplx else "Float64"
    if isinstance(input, Tensor) and input.dtype.name != target:
        input = C.cast_p(input, dtype=target)
    if isinstance(exponent, Tensor) and exponent.dtype.name != target:
        exponent = C.cast_p(exponent, dtype=target)
    if not isinstance(input, Tensor):
        input = C.fill_p(shape=(), value=input, dtype=target)
    return C.pow_p(input, exponent)


def _bound(op, name, v, like):
    if v is None or isinstance(v, Tensor):
        return v
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool):
        raise ValueError(f"For {op}, the dtype of 'input', 'min' and 'max' must not be bool.")
    if not isinstance(v, (int, float)):
        raise TypeError(f"For '{op}', the '{name}' must be a Tensor, float, int or None, but got {type(v).__name__}.")
    return v


def clamp(input, min=None, max=None):
    """Elements clipped to [min, max] (either bound may be None, a number or a broadcastable Tensor).

    Raises:
        ValueError: both `min` and `max` are None.

    >>> import mindseed as ms
    >>> ms.ops.clamp(ms.Tensor([-1.0, 0.5, 2.0]), 0, 1).asnumpy().tolist()
    [0.0, 0.5, 1.0]
    """
    _tensor("Clamp", input)
    if min is None and max is None:
        raise ValueError("For 'Clamp', at least one of 'min' or 'max' must not be None.")
    min, max = _bound("Clamp", "min", min, input), _bound("Clamp", "max", max, input)
    if any(isinstance(t, Tensor) and t.dtype == mstype.bool_ for t in (input, min, max)):
        raise ValueError("For Clamp, the dtype of 'input', 'min' and 'max' must not be bool.")
    if (isinstance(min, float) or isinstance(max, float)) and not mstype.is_float(input.dtype) and \
            not mstype.is_complex(input.dtype):
        input = C.cast_p(input, dtype="Float32")  # an integer tensor clamped to float bounds becomes Float32
    return P.clamp_p(input, narrow(min, input), narrow(max, input))


def clip(input, min=None, max=None):
    """Alias of `clamp`."""
    return clamp(input, min, max)


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """x clipped to [clip_value_min, clip_value_max]; a list or tuple of Tensors is clipped one by one.

    The result keeps x's dtype.
    """
    if isinstance(x, (list, tuple)):
        return type(x)(clip_by_value(t, clip_value_min, clip_value_max) for t in x)
    _tensor("clip_by_value", x, "x")
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("For 'clip_by_value', at least one of 'clip_value_min' or 'clip_value_max' must not be None.")
    lo = _bound("clip_by_value", "clip_value_min", clip_value_min, x)
    hi = _bound("clip_by_value", "clip_value_max", clip_value_max, x)
    if not mstype.is_float(x.dtype):
        lo = int(lo) if isinstance(lo, float) else lo
        hi = int(hi) if isinstance(hi, float) else hi
    # as MindSpore's composite min(max(x, lo), hi) with the bounds cast to x's dtype: on a bound, x and a Tensor
    # bound share the gradient (ops.clamp gives it all to x)
    out = x
    for bound, pick in ((lo, FC.maximum), (hi, FC.minimum)):
        if bound is not None:
            out = pick(out, C.cast_p(bound, dtype=x.dtype.name) if isinstance(bound, Tensor) and
                       bound.dtype != x.dtype else bound)
    return out if out.dtype == x.dtype else C.cast_p(out, dtype=x.dtype.name)


def addn(x):
    """The elementwise sum of a list or tuple of same-shaped Tensors."""
    if isinstance(x, Tensor):
        x = (x,)
    if not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"For 'AddN', the 'x' must be a non-empty list or tuple of Tensors, but got "
                        f"{type(x).__name__}.")
    for t in x:
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'AddN', every element of 'x' must be a Tensor, but got {type(t).__name__}.")
    out = x[0]
    for t in x[1:]:
        if t.shape != out.shape:
            raise ValueError(f"For 'AddN', all inputs must be Tensors of the same shape {out.shape}, but got "
                             f"{getattr(t, 'shape', type(t).__name__)}.")
        out = C.add_p(out, t)
    return out


def accumulate_n(x):
    """Alias of `addn`."""
    return addn(x)


def polar(abs, angle):
    """The complex numbers abs * (cos(angle) + i sin(angle))."""
    _tensor("Polar", abs, "abs")
    _tensor("Polar", angle, "angle")
    return P.complex_p(C.mul_p(abs, P.cos_p(angle)), C.mul_p(abs, P.sin_p(angle)))


def float_power_ext(input, exponent):
    """Alias of `float_power`."""
    return float_power(input, exponent)


# MindSpore's older tensor_* spellings of the arithmetic and comparison ops
pows = tensor_pow = FC.pow
tensor_add, tensor_sub, tensor_mul, tensor_muls = FC.add, FC.sub, FC.mul, FC.mul


def _integer_kind(v):
    """'bool' or 'int' for a bool or integer operand (Tensor or Python/numpy number), else None."""
    if isinstance(v, Tensor):
        return "bool" if v.dtype == mstype.bool_ else "int" if mstype.is_integral(v.dtype) else None
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    return "int" if isinstance(v, (int, np.integer)) else None


def tensor_div(x, y):
    """x / y as MindSpore's RealDiv: integer operands (a bool beside an integer) give the quotient rounded toward
    zero in their promoted integer dtype; with a float operand, true division.

    >>> import mindseed as ms
    >>> ms.ops.tensor_div(ms.Tensor([-3, 7], ms.int32), 2)
    Tensor(shape=[2], dtype=Int32, value= [-1  3])
    """
    kinds = {_integer_kind(x), _integer_kind(y)}
    if None not in kinds and kinds != {"bool"}:
        return P.truncate_div_p(x if isinstance(x, Tensor) or isinstance(y, Tensor) else Tensor(x), y)
    if isinstance(x, Tensor) and isinstance(y, Tensor) and x.dtype != y.dtype and (x.ndim == 0) != (y.ndim == 0):
        dt = mstype.promote_types(x.dtype, y.dtype).name   # RealDiv promotes a 0-d tensor like any tensor
        x, y = C.cast_p(x, dtype=dt), C.cast_p(y, dtype=dt)
    return FC.div(x, y)
tensor_exp = FC.exp
tensor_gt, tensor_ge, tensor_lt, tensor_le = FC.greater, FC.greater_equal, FC.less, FC.less_equal


