"""Argument checks of mindspore.scipy's functions, with the function's name in the message."""
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor

REAL = (mstype.int32, mstype.int64, mstype.float32, mstype.float64)


def check_type(func, value, types, name):
    if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise TypeError(f"For '{func}', the type of '{name}' must be {types}, but got bool.")
    if not isinstance(value, types):
        raise TypeError(f"For '{func}', the type of '{name}' must be {types}, but got {type(value).__name__}.")
    return value


def check_tensor(func, x, name="a", dtypes=REAL):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{func}', the '{name}' must be a Tensor, but got {type(x).__name__}.")
    if x.dtype not in dtypes:
        raise TypeError(f"For '{func}', the data type of '{name}' must be in {[str(d) for d in dtypes]}, but got "
                        f"{x.dtype}.")
    return x


def check_square(func, x, name="a"):
    if x.ndim != 2:
        raise ValueError(f"For '{func}', the dimension of '{name}' must be 2, but got {x.ndim}.")
    if x.shape[0] != x.shape[1]:
        raise ValueError(f"For '{func}', the '{name}' must be a square matrix, but got shape {x.shape}.")
    return x


def check_solve(func, a, b, a_name="a", b_name="b"):
    check_square(func, a, a_name)
    if b.ndim not in (1, 2):
        raise ValueError(f"For '{func}', the dimension of '{b_name}' must be 1 or 2, but got {b.ndim}.")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"For '{func}', the last two dimensions of '{a_name}' {a.shape} and '{b_name}' {b.shape} "
                         f"do not match for a solve.")
    if a.dtype != b.dtype:
        raise TypeError(f"For '{func}', the data type of '{a_name}' {a.dtype} and '{b_name}' {b.dtype} must be the "
                        f"same.")
