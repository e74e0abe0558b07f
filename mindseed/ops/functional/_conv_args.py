"""Argument normalization shared by the convolution, pooling and resampling functions."""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor

_INT = (int, np.integer)


def _is_int(v):
    return isinstance(v, _INT) and not isinstance(v, bool)


def check_tensor(op, name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the '{name}' must be a Tensor, but got {type(x).__name__}.")


def int_tuple(op, name, v, n, minimum=1):
    """An int or a sequence of `n` ints, each >= minimum, as a tuple of `n` Python ints. An integer Tensor (a
    `mutable` argument inside a graph) gives its value."""
    if isinstance(v, Tensor) and v.ndim <= 1 and mstype.is_integral(v.dtype) and v.dtype != mstype.bool_:
        v = v.item() if v.ndim == 0 else tuple(v.tolist())
    elif isinstance(v, (tuple, list)):
        v = type(v)(i.item() if isinstance(i, Tensor) and i.ndim == 0 and mstype.is_integral(i.dtype) else i for i in v)
    if _is_int(v):
        v = (int(v),) * n
    elif isinstance(v, (tuple, list)) and len(v) == n and all(_is_int(i) for i in v):
        v = tuple(int(i) for i in v)
    elif isinstance(v, (tuple, list)):
        raise ValueError(f"For '{op}', the '{name}' must be an int or a tuple of {n} ints, but got {v}.")
    else:
        raise TypeError(f"For '{op}', the '{name}' must be an int or a tuple of {n} ints, but got "
                        f"{type(v).__name__}.")
    for i in v:
        if i < minimum:
            raise ValueError(f"For '{op}', the '{name}' must be ints not less than {minimum}, but got {v}.")
    return v


def pad_pairs(op, name, padding, n):
    """An int, `n` ints (each used on both sides) or `2n` ints (lo, hi per dimension) -> flat (lo, hi) pairs."""
    if _is_int(padding):
        padding = (int(padding),) * (2 * n)
    elif isinstance(padding, (tuple, list)) and len(padding) in (n, 2 * n) and all(_is_int(p) for p in padding):
        padding = tuple(int(p) for p in padding)
        if len(padding) == n:
            padding = tuple(p for p in padding for _ in (0, 1))
    else:
        raise ValueError(f"For '{op}', the '{name}' must be an int or a tuple of {n} or {2 * n} ints, but got "
                         f"{padding}.")
    if min(padding) < 0:
        raise ValueError(f"For '{op}', the '{name}' must be non-negative, but got {padding}.")
    return padding


def same_pads(in_spatial, kernel, stride, dilation):
    """MindSpore/TF 'same' padding as flat (lo, hi) pairs: output = ceil(in / stride), extra cell at the end.

    total = max((ceil(in / stride) - 1) * stride + (kernel - 1) * dilation + 1 - in, 0), lo = total // 2.
    """
    pads = []
    for n, k, s, d in zip(in_spatial, kernel, stride, dilation):
        total = max((-(-n // s) - 1) * s + (k - 1) * d + 1 - n, 0)
        pads.append(total // 2)
        pads.append(total - total // 2)
    return tuple(pads)


def mode_pads(op, pad_mode, padding, in_spatial, kernel, stride, dilation):
    """Flat (lo, hi) pads for MindSpore's pad_mode 'valid' / 'same' / 'pad' (case-insensitive)."""
    n = len(kernel)
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode == "pad":
        return pad_pairs(op, "padding", padding, n)
    if mode not in ("valid", "same"):
        raise ValueError(f"For '{op}', the 'pad_mode' must be str and must be in ['valid', 'same', 'pad'], but got "
                         f"'{pad_mode}'.")
    if not (padding == 0 or (isinstance(padding, (tuple, list)) and not any(padding))):
        raise ValueError(f"For '{op}', the 'padding' must be zero when 'pad_mode' is not 'pad', but got "
                         f"'padding': {padding} and 'pad_mode': {pad_mode}.")
    if mode == "valid":
        return (0,) * (2 * n)
    return same_pads(in_spatial, kernel, stride, dilation)


def out_size(op, in_spatial, kernel, stride, pads, dilation, ceil_mode=False):
    """Spatial output size of a sliding window; ValueError when the window does not fit."""
    out = []
    for i, (n, k, s, d) in enumerate(zip(in_spatial, kernel, stride, dilation)):
        span = n + pads[2 * i] + pads[2 * i + 1] - d * (k - 1) - 1
        if span < 0:
            raise ValueError(f"For '{op}', the input spatial shape {tuple(in_spatial)} with padding {tuple(pads)} "
                             f"is smaller than the (dilated) kernel size {tuple(kernel)}.")
        o = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (o - 1) * s >= n + pads[2 * i]:
            o -= 1  # the last window must start inside the input or the left padding
        out.append(o)
    return tuple(out)


def check_rank(op, x, ranks, name="input"):
    check_tensor(op, name, x)
    if x.ndim not in ranks:
        want = " or ".join(f"{r}D" for r in ranks)
        raise ValueError(f"For '{op}', the '{name}' must be a {want} Tensor, but got a {x.ndim}D Tensor with shape "
                         f"{x.shape}.")


def check_float(op, x, name="input"):
    if not mstype.is_float(x.dtype):
        raise TypeError(f"For '{op}', the '{name}' must be a float Tensor, but got {x.dtype}.")
