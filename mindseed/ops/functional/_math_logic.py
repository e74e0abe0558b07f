"""Elementwise tests of mindspore.ops that need more than one primitive call (isclose, allclose, ...).

The integer, bitwise and logical ops and the isnan family are rows of `ops/_prims/math.py`."""
from mindseed.common import dtype as mstype
from mindseed.ops._prims import core as C
from mindseed.ops._prims import math as P
from mindseed.ops.functional._math_elementwise import _tensor

__all__ = [
    "isclose", "allclose", "approximate_equal", "is_floating_point", "is_complex", "is_nonzero",
]


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other| elementwise.

    Raises:
        TypeError: the inputs are not Tensors of the same dtype.
    """
    _tensor("IsClose", input)
    _tensor("IsClose", other, "other")
    if input.dtype != other.dtype:
        raise TypeError(f"For 'IsClose', the 'input' and 'other' must have the same dtype, but got {input.dtype} "
                        f"and {other.dtype}.")
    return P.is_close_p(input, other, rtol=float(rtol), atol=float(atol), equal_nan=bool(equal_nan))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when `isclose` holds for every element (a Python bool)."""
    return bool(P.reduce_all_p(isclose(input, other, rtol, atol, equal_nan)))


def approximate_equal(x, y, tolerance=1e-05):
    """|x - y| < tolerance elementwise."""
    _tensor("ApproximateEqual", x, "x")
    _tensor("ApproximateEqual", y, "y")
    if not isinstance(tolerance, (int, float)) or isinstance(tolerance, bool):
        raise TypeError(f"For 'ApproximateEqual', the 'tolerance' must be a float, but got {type(tolerance).__name__}.")
    if x.ndim >= 8:            # MindSpore's kernel checks these while it runs: RuntimeErrors
        raise RuntimeError(f"For 'ApproximateEqual', the x's rank should be less than 8, but got {x.ndim}.")
    if x.shape != y.shape:
        raise RuntimeError(f"For 'ApproximateEqual', arg 'x1' must have the same shape as 'x2'. But got 'x1' shape: "
                           f"{x.shape}, 'x2' shape: {y.shape}.")
    return C.less_p(P.abs_p(C.sub_p(x, y)), float(tolerance))


def is_floating_point(input):
    """True when input's dtype is a float type (a Python bool)."""
    _tensor("is_floating_point", input)
    return mstype.is_float(input.dtype)


def is_complex(input):
    """True when input's dtype is complex (a Python bool)."""
    _tensor("is_complex", input)
    return mstype.is_complex(input.dtype)


def is_nonzero(input):
    """Whether the single element of `input` is nonzero (a Python bool).

    Raises:
        RuntimeError: `input` does not have exactly one element.
    """
    _tensor("is_nonzero", input)
    if input.size != 1:
        raise RuntimeError(f"For 'is_nonzero', the input must have exactly one element, but got shape {input.shape}.")
    return bool(input.item())
