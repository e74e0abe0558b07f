"""Numeric helpers of MindSpore's distributions: exp and log of any numeric Tensor (integers computed in float32;
log is nan below zero and -inf at zero) and broadcasting to another Tensor's shape."""
import numpy as np

from mindseed import ops
from mindseed.common import dtype as mstype
from mindseed.nn.probability.distribution._utils.utils import CheckTensor

__all__ = ["exp_generic", "log_generic", "log_generic_with_check", "log1p_generic", "broadcast_to"]


def _as_float(x):
    return x if mstype.is_float(x.dtype) else ops.cast(x, mstype.float32)


def exp_generic(input_x):
    """exp(x), an integer x computed in float32."""
    return ops.exp(_as_float(input_x))


def log_generic(input_x):
    """log(x), an integer x computed in float32: nan where x < 0 and -inf where x == 0."""
    x = _as_float(input_x)
    nan = ops.fill(x.dtype, x.shape, np.nan)
    neginf = ops.fill(x.dtype, x.shape, -np.inf)
    result = ops.select(x <= 0.0, neginf, ops.log(x))
    return ops.select(x < 0.0, nan, result)


def log_generic_with_check(x):
    """log_generic of a Tensor (TypeError for anything else)."""
    CheckTensor()(x, "the input of log_generic")
    return log_generic(x)


def log1p_generic(x):
    """log(1 + x) as log_generic."""
    return log_generic(x + 1.0)


def broadcast_to(x, target):
    """x broadcast to the shape of `target` (x itself when the shapes agree)."""
    if x.shape == target.shape:
        return x
    return ops.broadcast_to(x, target.shape)
