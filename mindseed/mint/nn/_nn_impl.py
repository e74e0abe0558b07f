"""mint.nn.functional names whose torch-style signature needs real code; compositions of existing ops."""
import math
import numbers

import numpy as np

from mindseed import ops as _ops
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.mint._impl import any_rank_softmax, check_tensor, implicit_softmax_dim, inplace
from mindseed.ops.functional._nn import _hardtanh, _leaky_relu

__all__ = ["activation", "hardtanh", "leaky_relu", "softmax", "resize", "adaptive_max_pool1d",
           "batch_norm", "kl_div", "normalize", "one_hot"]

_REDUCTIONS = ("none", "mean", "sum", "batchmean")


def activation(input, in_place, fn):
    """fn(input), or `input` updated to it when `in_place` (the `inplace=True` and `foo_` forms)."""
    check_tensor(getattr(fn, "__name__", "activation"), "input", input)
    if in_place:
        return inplace(input, fn)
    return fn(input)


def hardtanh(input, min_val, max_val):
    """Clamp to [min_val, max_val] with torch's gradient: 0 on a bound (ops.hardtanh splits it there)."""
    return _hardtanh(input, min_val, max_val, False)


def leaky_relu(input, negative_slope):
    """x if x > 0 else negative_slope * x, with torch's gradient: negative_slope at 0."""
    return _leaky_relu(input, negative_slope, False)


def softmax(fn, input, dim, dtype):
    """softmax / log_softmax with torch's implicit `dim` (0 for 0-, 1- and 3-D input, else 1) and `dtype` (the
    input cast first)."""
    check_tensor(fn.__name__, "input", input)
    dim = implicit_softmax_dim(input, dim)
    if dtype is not None:
        input = _ops.cast(input, dtype)
    return any_rank_softmax(fn, input, dim)


def adaptive_avg_pool1d(input, output_size):
    """Mean over adaptive windows of the last dimension of (N, C, L) or (C, L): window i is
    [floor(i L / n), ceil((i + 1) L / n)), so `output_size` need not divide L (ops.adaptive_avg_pool1d's must)."""
    check_tensor("adaptive_avg_pool1d", "input", input)
    if input.ndim not in (2, 3):
        raise ValueError(f"For 'mint.adaptive_avg_pool1d', the 'input' must be 2-D or 3-D, but got {input.shape}.")
    if isinstance(output_size, (tuple, list)) and len(output_size) == 1:
        output_size = output_size[0]
    if isinstance(output_size, bool) or not isinstance(output_size, (int, np.integer)):
        raise TypeError(f"For 'mint.adaptive_avg_pool1d', the 'output_size' must be an int, but got "
                        f"{type(output_size).__name__}.")
    return _ops.squeeze(_ops.adaptive_avg_pool2d(_ops.unsqueeze(input, -2), (1, int(output_size))), -2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max over len(input) / output_size adaptive windows of the last dimension of (N, C, L) or (C, L)."""
    check_tensor("adaptive_max_pool1d", "input", input)
    if input.ndim not in (2, 3):
        raise ValueError(f"For 'mint.adaptive_max_pool1d', the 'input' must be 2-D or 3-D, but got {input.shape}.")
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 1:
            raise ValueError(f"For 'mint.adaptive_max_pool1d', 'output_size' must be an int or 1 int, but got "
                             f"{output_size}.")
        output_size = output_size[0]
    if isinstance(output_size, bool) or not isinstance(output_size, (int, np.integer)):
        raise TypeError(f"For 'mint.adaptive_max_pool1d', the 'output_size' must be an int, but got "
                        f"{type(output_size).__name__}.")
    out = _ops.adaptive_max_pool2d(_ops.unsqueeze(input, -2), (1, int(output_size)), True)
    values, indices = (_ops.squeeze(o, -2) for o in out)
    return (values, indices) if return_indices else values


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    check_tensor("batch_norm", "input", input)
    if input.ndim < 2:
        raise ValueError(f"For 'mint.batch_norm', the 'input' must have at least 2 dims, but got {input.shape}.")
    c = input.shape[1]
    if weight is None:
        weight = _ops.ones((c,), input.dtype)
    if bias is None:
        bias = _ops.zeros((c,), input.dtype)
    return _ops.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def kl_div(input, target, reduction="mean", log_target=False):
    """Pointwise target * (log(target) - input) (or exp(target) * (target - input) with log_target), reduced by
    'none', 'mean' (over elements), 'sum' or 'batchmean' (sum / batch size)."""
    check_tensor("kl_div", "input", input)
    check_tensor("kl_div", "target", target)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"For 'mint.kl_div', the 'reduction' must be one of {_REDUCTIONS}, but got {reduction!r}.")
    if log_target:
        loss = _ops.mul(_ops.exp(target), _ops.sub(target, input))
    else:
        loss = _ops.sub(_ops.xlogy(target, target), _ops.mul(target, input))
    if reduction == "none":
        return loss
    total = _ops.sum(loss)
    if reduction == "sum":
        return total
    n = input.shape[0] if reduction == "batchmean" and input.ndim else loss.size
    return _ops.div(total, n)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    check_tensor("normalize", "input", input)
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"For 'mint.normalize', the 'p' must be a number, but got {type(p).__name__}.")
    n = _ops.vector_norm(input, float(p), dim, True)
    return _ops.div(input, _ops.clamp(n, min=eps))


def one_hot(tensor, num_classes=-1):
    check_tensor("one_hot", "tensor", tensor)
    if tensor.dtype not in (mstype.int32, mstype.int64, mstype.uint8, mstype.int16, mstype.int8):
        raise TypeError(f"For 'mint.one_hot', the 'tensor' must be of an int type, but got {tensor.dtype}.")
    if isinstance(num_classes, bool) or not isinstance(num_classes, (int, np.integer)):
        raise TypeError(f"For 'mint.one_hot', the 'num_classes' must be an int, but got {type(num_classes).__name__}.")
    if num_classes == -1:
        num_classes = int(_ops.amax(tensor).item()) + 1 if tensor.size else 0
    elif num_classes < 0:
        raise ValueError(f"For 'mint.one_hot', the 'num_classes' must be -1 or non-negative, but got {num_classes}.")
    one, zero = Tensor(1, mstype.int64), Tensor(0, mstype.int64)
    return _ops.one_hot(_ops.cast(tensor, mstype.int64), int(num_classes), one, zero)


def resize(input, size, scale_factor, mode, align_corners):
    """interpolate to `size`, or to floor(input size * scale_factor) of each spatial dimension."""
    check_tensor("Upsampling", "input", input)
    if (size is None) == (scale_factor is None):
        raise ValueError("For 'mint.nn Upsampling', exactly one of 'size' and 'scale_factor' must be given.")
    if size is None:
        spatial = input.shape[2:]
        scales = scale_factor if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * len(spatial)
        if len(scales) != len(spatial):
            raise ValueError(f"For 'mint.nn Upsampling', 'scale_factor' must give {len(spatial)} values, but got "
                             f"{scale_factor}.")
        size = tuple(int(math.floor(d * float(s))) for d, s in zip(spatial, scales))
    return _ops.interpolate(input, size=size, mode=mode, align_corners=align_corners)
