"""mint functions whose torch-style signature needs real code: overloads, argument translation, compositions.

Each is a composition of existing ops (functional ops, Tensor methods, primitives): no kernel is written here.
"""
import numbers

import numpy as np

from mindseed import ops as _ops
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops.functional._array_index import _topk
from mindseed.ops.functional._core import _shape_arg, full_ext, update_in_place
from mindseed.ops.functional._linalg import _outer_1d

__all__ = ["any_rank_softmax", "extreme", "median", "norm", "diag", "vdot", "where", "conv", "conv_tbc", "cdist",
           "equal", "linspace",
           "dims", "creation_size", "batch_norm_stats", "batch_norm_elemt", "batch_norm_gather_stats_with_counts",
           "inplace", "check_tensor", "long", "with_long_indices", "full_ext", "outer",
           "implicit_softmax_dim"]


def outer(input, vec2):
    """The outer product of two 1-D tensors (ops.outer flattens its input; mint's takes only 1-D)."""
    return _outer_1d("outer", input, vec2)


def check_tensor(op, name, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For 'mint.{op}', the '{name}' must be a Tensor, but got {type(value).__name__}.")
    return value


def inplace(input, fn, *others):
    """`input` made to hold fn(input) (the `foo_` and `inplace=True` forms); returns `input`."""
    update_in_place(input, fn, *others)
    return input


def long(t):
    """Indices and counts as Int64, as mint returns them."""
    return t if t.dtype == mstype.int64 else _ops.cast(t, mstype.int64)


def with_long_indices(out):
    """(values, indices) with the indices as Int64."""
    return out[0], long(out[1])


def topk(input, k, dim=-1, largest=True, sorted=True):
    """mint.topk: as ops.topk but k may be 0 (empty results), with Int64 indices."""
    return with_long_indices(_topk(input, k, dim, largest, sorted))


def dims(dim):
    """mint's `dim=()` (every dimension) as the ops' `None`; an int or a tuple as it is."""
    return None if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0) else dim


def creation_size(op, size):
    """`zeros((2, 3))`, `zeros([2, 3])`, `zeros(2)`: the shape as a tuple of ints."""
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        return (int(size),)
    if isinstance(size, Tensor):
        return _shape_arg(f"mint.{op}", size, "size")
    if isinstance(size, (tuple, list)) and all(isinstance(s, (int, np.integer)) and not isinstance(s, bool)
                                               for s in size):
        return tuple(int(s) for s in size)
    raise TypeError(f"For 'mint.{op}', the 'size' must be an int or a tuple/list of ints, but got {size!r}.")


def extreme(op, input, args, kwargs):
    """mint.max / mint.min: `(input)` -> the value; `(input, dim, keepdim=False)` -> (values, indices);
    `(input, other)` -> the elementwise maximum/minimum."""
    check_tensor(op, "input", input)
    largest = op == "max"
    if not args and not kwargs:
        return _ops.amax(input) if largest else _ops.amin(input)
    other = kwargs.pop("other", args[0] if args and isinstance(args[0], Tensor) else None)
    if other is not None:
        if kwargs or len(args) > 1:
            raise TypeError(f"For 'mint.{op}', the form ({op}(input, other)) takes no further arguments, but got "
                            f"{args[1:] or kwargs}.")
        return _ops.maximum(input, other) if largest else _ops.minimum(input, other)
    params = dict(zip(("dim", "keepdim"), args))
    if len(args) > 2 or set(kwargs) - {"dim", "keepdim"} or set(params) & set(kwargs):
        raise TypeError(f"For 'mint.{op}', the arguments must be (input), (input, other) or (input, dim, "
                        f"keepdim=False), but got {args} and {kwargs}.")
    params.update(kwargs)
    dim = params.get("dim")
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"For 'mint.{op}', the 'dim' must be an int, but got {type(dim).__name__}.")
    fn = _ops.max if largest else _ops.min
    values, indices = fn(input, int(dim), params.get("keepdim", False))
    return values, indices


def median(input, dim=None, keepdim=False):
    """The lower median of all elements (dim None), or (values, indices) along `dim`."""
    check_tensor("median", "input", input)
    if dim is None:
        return _ops.median(_ops.reshape(input, (-1,)), 0, False)[0]
    return _ops.median(input, dim, keepdim)


def norm(input, p="fro", dim=None, keepdim=False, *, dtype=None):
    """torch.norm: 'fro' (the 2-norm of the elements over `dim`), 'nuc' (nuclear norm of matrices), or a number
    (the vector p-norm over `dim`, all elements when None)."""
    check_tensor("norm", "input", input)
    if dtype is not None:
        input = _ops.cast(input, dtype)
    if isinstance(dim, (int, np.integer)) and not isinstance(dim, bool):
        dim = (int(dim),)
    if dim is not None and not isinstance(dim, (tuple, list)):
        raise TypeError(f"For 'mint.norm', the 'dim' must be None, an int or a tuple of ints, but got "
                        f"{type(dim).__name__}.")
    if p == "fro":
        if dim is not None and len(dim) > 2:
            raise ValueError(f"For 'mint.norm', 'fro' norm takes at most 2 dimensions, but got 'dim' {dim}.")
        return _ops.vector_norm(input, 2, dim, keepdim)
    if p == "nuc":
        return _ops.matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)
    if isinstance(p, str) or not isinstance(p, numbers.Real):
        raise ValueError(f"For 'mint.norm', the 'p' must be 'fro', 'nuc' or a number, but got {p!r}.")
    return _ops.vector_norm(input, float(p), dim, keepdim)


def diag(input, diagonal=0):
    """1-D input: the square matrix with it on the `diagonal`-th diagonal; 2-D input: that diagonal as 1-D."""
    check_tensor("diag", "input", input)
    if input.ndim == 1:
        return _ops.diag_embed(input, diagonal)
    if input.ndim == 2:
        return _ops.diagonal(input, diagonal)
    raise ValueError(f"For 'mint.diag', the 'input' must be 1-D or 2-D, but got {input.ndim}-D.")


def _vectors(op, input, other):
    for name, v in (("input", input), ("other", other)):
        check_tensor(op, name, v)
        if v.ndim != 1:
            raise ValueError(f"For 'mint.{op}', the '{name}' must be 1-D, but got shape {v.shape}.")
    if input.shape != other.shape:
        raise ValueError(f"For 'mint.{op}', 'input' {input.shape} and 'other' {other.shape} must have one size.")


def dot(input, other):
    """sum(input * other) of two 1-D tensors of one dtype (a 0-D Tensor of that dtype)."""
    _vectors("dot", input, other)
    if input.dtype != other.dtype:
        raise TypeError(f"For 'mint.dot', 'input' and 'other' must have one dtype, but got {input.dtype} and "
                        f"{other.dtype}.")
    return _ops.cast(_ops.sum(_ops.mul(input, other)), input.dtype)


def vdot(input, other):
    """sum(conj(input) * other) of two 1-D tensors."""
    _vectors("vdot", input, other)
    if mstype.is_complex(input.dtype):
        input = _ops.conj(input)
    return _ops.sum(_ops.mul(input, other))


def where(condition, input=None, other=None):
    """where(condition, input, other) elementwise; where(condition) the indices of True as a tuple."""
    if input is None and other is None:
        return _ops.nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("For 'mint.where', 'input' and 'other' must be both given or both omitted.")
    return _ops.where(condition, input, other)


def conv(fn, nd, input, weight, bias, stride, padding, dilation, groups):
    """torch-style padding (an int, a tuple of one int per spatial dimension, 'same' or 'valid') on the ops'
    (pad_mode, padding)."""
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"For 'mint conv{nd}d', the 'padding' string must be 'same' or 'valid', but got "
                             f"{padding!r}.")
        return fn(input, weight, bias, stride, padding, 0, dilation, groups)
    if isinstance(padding, (tuple, list)):
        if len(padding) != nd:
            raise ValueError(f"For 'mint conv{nd}d', the 'padding' must be an int or {nd} ints, but got {padding}.")
        padding = tuple(int(p) for p in padding for _ in range(2))
    return fn(input, weight, bias, stride, "pad", padding, dilation, groups)


def conv_tbc(input, weight, bias, pad=0):
    """1-D convolution in (time, batch, channel) layout: input (T, B, Cin), weight (K, Cin, Cout), bias (Cout)."""
    for name, v, rank in (("input", input, 3), ("weight", weight, 3), ("bias", bias, 1)):
        check_tensor("conv_tbc", name, v)
        if v.ndim != rank:
            raise ValueError(f"For 'mint.conv_tbc', the '{name}' must be {rank}-D, but got shape {v.shape}.")
    out = _ops.conv1d(_ops.permute(input, (1, 2, 0)), _ops.permute(weight, (2, 1, 0)), bias, 1, "pad", pad)
    return _ops.permute(out, (2, 0, 1))


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    modes = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")
    if compute_mode not in modes:
        raise ValueError(f"For 'mint.cdist', the 'compute_mode' must be one of {modes}, but got {compute_mode!r}.")
    return _ops.cdist(x1, x2, p)


def equal(input, other):
    """Whether both have one shape and equal elements: a Python bool, as MindSpore's mint.equal."""
    check_tensor("equal", "input", input)
    check_tensor("equal", "other", other)
    if input.shape != other.shape:
        return False
    return bool(_ops.all(_ops.equal(input, other)).item())


def linspace(start, end, steps, *, dtype=None):
    out = _ops.linspace(start, end, steps)
    return out if dtype is None else _ops.cast(out, dtype)


# ---------------------------------------------------------------- statistics of (synchronised) batch norm
def _channel_view(v, ndim):
    return _ops.reshape(v, (1, -1) + (1,) * (ndim - 2))


def _not_channel(input):
    return tuple(d for d in range(input.ndim) if d != 1)


def batch_norm_stats(input, eps):
    """(mean, 1 / sqrt(biased variance + eps)) per channel (dimension 1)."""
    check_tensor("batch_norm_stats", "input", input)
    if input.ndim < 2:
        raise ValueError(f"For 'mint.batch_norm_stats', the 'input' must have at least 2 dims, but got {input.shape}.")
    axes = _not_channel(input)
    mean = _ops.mean(input, axes)
    var = _ops.var(input, axes, 0)
    return mean, _ops.rsqrt(_ops.add(var, eps))


def batch_norm_elemt(input, weight=None, bias=None, mean=None, invstd=None, eps=1e-5):
    """(input - mean) * invstd * weight + bias, per channel."""
    check_tensor("batch_norm_elemt", "input", input)
    for name, v in (("mean", mean), ("invstd", invstd)):
        check_tensor("batch_norm_elemt", name, v)
    out = _ops.mul(_ops.sub(input, _channel_view(mean, input.ndim)), _channel_view(invstd, input.ndim))
    if weight is not None:
        out = _ops.mul(out, _channel_view(weight, input.ndim))
    if bias is not None:
        out = _ops.add(out, _channel_view(bias, input.ndim))
    return out


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean=None, running_var=None, momentum=0.1,
                                        eps=1e-5, counts=None):
    """Per-channel statistics of several devices' (mean, invstd, count) rows combined into the global (mean,
    invstd); the running statistics (unbiased variance) are updated in place."""
    for name, v in (("input", input), ("mean", mean), ("invstd", invstd), ("counts", counts)):
        check_tensor("batch_norm_gather_stats_with_counts", name, v)
    c = _ops.reshape(_ops.cast(counts, mean.dtype), (-1, 1))
    total = _ops.sum(c)
    g_mean = _ops.div(_ops.sum(_ops.mul(mean, c), 0), total)
    var_i = _ops.sub(_ops.reciprocal(_ops.square(invstd)), eps)
    second = _ops.div(_ops.sum(_ops.mul(_ops.add(var_i, _ops.square(mean)), c), 0), total)
    g_var = _ops.sub(second, _ops.square(g_mean))
    g_invstd = _ops.rsqrt(_ops.add(g_var, eps))
    if running_mean is not None:
        inplace(running_mean, lambda old: _ops.add(_ops.mul(old, 1 - momentum), _ops.mul(g_mean, momentum)))
    if running_var is not None:
        unbiased = _ops.mul(g_var, _ops.div(total, _ops.sub(total, 1)))
        inplace(running_var, lambda old: _ops.add(_ops.mul(old, 1 - momentum), _ops.mul(unbiased, momentum)))
    return g_mean, g_invstd


def implicit_softmax_dim(input, dim):
    """softmax's `dim`, None meaning torch's implicit one: 0 for 0-, 1- and 3-D input, else 1."""
    if dim is None and isinstance(input, Tensor):
        return 0 if input.ndim in (0, 1, 3) else 1
    return dim


def any_rank_softmax(fn, input, dim, **kwargs):
    """fn (ops.softmax / log_softmax) along `dim`, a 0-d input taken as torch takes it (ops' refuse it)."""
    if isinstance(input, Tensor) and input.ndim == 0:
        return _ops.reshape(fn(_ops.reshape(input, (1,)), dim, **kwargs), ())
    return fn(input, dim, **kwargs)
