"""Functional ops: pooling (max, average, adaptive, LP, fractional) and max unpooling."""
from mindseed.common import dtype as mstype
from mindseed.common import seed as _seed
from mindseed.ops._prims import conv as C
from mindseed.ops._prims import core as P
from mindseed.ops.functional._conv_args import (_is_int, check_float, check_rank, check_tensor, int_tuple,
                                                mode_pads, out_size, pad_pairs)

__all__ = [
    "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d",
    "adaptive_avg_pool2d", "adaptive_avg_pool2d_ext", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "adaptive_max_pool3d", "lp_pool1d", "lp_pool2d", "max_unpool1d", "max_unpool2d",
    "max_unpool3d", "fractional_max_pool2d", "fractional_max_pool3d",
]


def _batched(x, nd):
    """x with a batch axis (unbatched (C, *spatial) inputs get one), and whether one was added."""
    if x.ndim == nd + 1:
        return P.reshape_p(x, shape=(1,) + x.shape), True
    return x, False


def _unbatch(out, added):
    if not added:
        return out
    if isinstance(out, tuple):
        return tuple(P.reshape_p(o, shape=o.shape[1:]) for o in out)
    return P.reshape_p(out, shape=out.shape[1:])


def _pool_window(op, x, kernel, stride):
    """Checks x's rank and dtype; (nd, kernel, stride) with one int per spatial dimension (stride None: kernel)."""
    nd = len(kernel)
    check_rank(op, x, (nd + 1, nd + 2))
    check_float(op, x)
    kernel = int_tuple(op, "kernel_size", kernel, nd)
    return nd, kernel, kernel if stride is None else int_tuple(op, "stride", stride, nd)


# ---------------------------------------------------------------- max pooling
def _max_pool_nd(x, kernel, stride, pad_mode="valid", padding=0, dilation=1, ceil_mode=False, return_indices=False,
                 op="MaxPool"):
    """Max pooling over the last len(kernel) dims with MindSpore's layer semantics, for nn.MaxPool1d/2d/3d.

    Args:
        x (Tensor): (N, C, *spatial) or unbatched (C, *spatial).
        kernel, stride (tuple[int]): one per spatial dimension (stride None: the kernel).
        pad_mode (str): 'valid', 'same' (output ceil(in / stride), padding with -inf, the odd cell at the end)
            or 'pad' (`padding`: an int, one per dim, or (lo, hi) pairs).
        dilation (Union[int, tuple[int]]), ceil_mode (bool): as in max_pool2d.
        return_indices (bool): also return the argmax, flat per (N, C) plane, int64.

    Raises:
        ValueError: wrong rank, bad pad_mode, window larger than the padded input.
    """
    nd, kernel, stride = _pool_window(op, x, kernel, stride)
    dilation = int_tuple(op, "dilation", dilation, nd)
    x, added = _batched(x, nd)
    pads = mode_pads(op, pad_mode, padding, x.shape[2:], kernel, stride, dilation)
    out_size(op, x.shape[2:], kernel, stride, pads, dilation, ceil_mode)
    if not return_indices:
        return _unbatch(C.max_pool_values(x, kernel, stride, pads, dilation, bool(ceil_mode)), added)
    out = C.max_pool_p(x, kernel=kernel, stride=stride, pads=pads, dilation=dilation, ceil_mode=bool(ceil_mode))
    return _unbatch(out, added)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    """2D max pooling of (N, C, H, W).

    Args:
        kernel_size (Union[int, tuple[int]]): window; stride defaults to it.
        padding (Union[int, tuple[int]]): implicit -inf padding on both sides.
        dilation (Union[int, tuple[int]]): spacing of the window's cells.
        return_indices (bool): also return the argmax (int64, flat index in the H * W plane).
        ceil_mode (bool): round the output size up.

    Raises:
        ValueError: input not 4D, window larger than the padded input.

    >>> import mindseed as ms
    >>> ms.ops.max_pool2d(ms.ops.ones((1, 1, 4, 4)), 2).shape
    (1, 1, 2, 2)
    """
    return _max_pool_nd_checked("max_pool2d", 2, x, kernel_size, stride, padding, dilation, return_indices, ceil_mode)


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3D max pooling of (N, C, D, H, W); see `max_pool2d`."""
    return _max_pool_nd_checked("max_pool3d", 3, x, kernel_size, stride, padding, dilation, return_indices, ceil_mode)


def _max_pool_nd_checked(op, nd, x, kernel_size, stride, padding, dilation, return_indices, ceil_mode):
    check_rank(op, x, (nd + 2,), "x")
    kernel = int_tuple(op, "kernel_size", kernel_size, nd)
    padding = int_tuple(op, "padding", padding, nd, minimum=0)
    return _max_pool_nd(x, kernel, stride, "pad", padding, dilation, ceil_mode, return_indices, op)


# ---------------------------------------------------------------- average pooling
def _avg_pool_nd(x, kernel, stride, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=0, op="AvgPool"):
    """Average pooling with MindSpore's layer semantics, for nn.AvgPool1d/2d/3d.

    Args:
        x (Tensor): (N, C, *spatial) or unbatched (C, *spatial).
        kernel, stride (tuple[int]): one per spatial dimension (stride None: the kernel).
        pad_mode (str): 'valid', 'same' (output ceil(in / stride), the odd cell of padding at the end) or 'pad'
            (`padding`: an int, one per dim, or (lo, hi) pairs). As in MindSpore, 1D/2D 'same' never counts the
            padded cells; 3D 'same' and 'pad' count them when count_include_pad.
        divisor_override (int): divide every window by this instead (0 or None: no override).

    Raises:
        ValueError: wrong rank, bad pad_mode, window larger than the padded input.
    """
    nd, kernel, stride = _pool_window(op, x, kernel, stride)
    x, added = _batched(x, nd)
    pads = mode_pads(op, pad_mode, padding, x.shape[2:], kernel, stride, (1,) * nd)
    if nd < 3 and isinstance(pad_mode, str) and pad_mode.lower() == "same":
        count_include_pad = False  # MindSpore's 1D/2D 'same' average excludes the padding; 3D counts it
    out_size(op, x.shape[2:], kernel, stride, pads, (1,) * nd, ceil_mode)
    if divisor_override is None:
        divisor_override = 0
    if not _is_int(divisor_override) or divisor_override < 0:
        raise ValueError(f"For '{op}', the 'divisor_override' must be a non-negative int, but got "
                         f"{divisor_override!r}.")
    out = C.avg_pool_p(x, kernel=kernel, stride=stride, pads=pads, ceil_mode=bool(ceil_mode),
                       count_include_pad=bool(count_include_pad), divisor_override=int(divisor_override))
    return _unbatch(out, added)


def _check_bools(op, **flags):
    for name, v in flags.items():
        if not isinstance(v, bool):
            raise TypeError(f"For '{op}', the '{name}' must be a bool, but got {type(v).__name__}.")


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True):
    """1D average pooling of (N, C, L); padding (an int) is counted in the divisor when count_include_pad.

    Raises:
        TypeError: kernel_size not an int, ceil_mode/count_include_pad not bools.
        ValueError: input not 3D, window larger than the padded input.
    """
    op = "avg_pool1d"
    check_rank(op, input_x, (3,), "input_x")
    if not _is_int(kernel_size):
        raise TypeError(f"For '{op}', the 'kernel_size' must be an int, but got {type(kernel_size).__name__}.")
    _check_bools(op, ceil_mode=ceil_mode, count_include_pad=count_include_pad)
    return _avg_pool_nd(input_x, (kernel_size,), int_tuple(op, "stride", stride, 1), "pad",
                        int_tuple(op, "padding", padding, 1, minimum=0), ceil_mode, count_include_pad, 0, op)


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    """2D average pooling of (N, C, H, W).

    Args:
        kernel_size, stride (Union[int, tuple[int]]): window and step.
        padding (Union[int, tuple[int]]): an int or (top, bottom, left, right) zero padding.
        ceil_mode (bool): round the output size up.
        count_include_pad (bool): count padded cells in the divisor.
        divisor_override (int): a fixed divisor (0: none).

    Raises:
        TypeError: flags not bools.
        ValueError: input not 4D, non-positive kernel/stride, negative padding, window larger than the input.

    >>> import mindseed as ms
    >>> ms.ops.avg_pool2d(ms.ops.ones((1, 1, 4, 4)), 2, 2).shape
    (1, 1, 2, 2)
    """
    return _avg_pool_nd_checked("avg_pool2d", 2, input_x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                divisor_override)


def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    """3D average pooling of (N, C, D, H, W); padding an int or (head, tail, top, bottom, left, right)."""
    return _avg_pool_nd_checked("avg_pool3d", 3, input_x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                divisor_override)


def _avg_pool_nd_checked(op, nd, input_x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                         divisor_override):
    check_rank(op, input_x, (nd + 2,), "input_x")
    _check_bools(op, ceil_mode=ceil_mode, count_include_pad=count_include_pad)
    kernel = int_tuple(op, "kernel_size", kernel_size, nd)
    return _avg_pool_nd(input_x, kernel, int_tuple(op, "stride", stride, nd), "pad", pad_pairs(op, "padding",
                        padding, nd), ceil_mode, count_include_pad, divisor_override, op)


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling of (N, C, L) or (C, L): (sum of x ** p over the window) ** (1 / p)."""
    return _lp_pool("lp_pool1d", 1, x, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling of (N, C, H, W): (sum of x ** p over the window) ** (1 / p).

    Raises:
        TypeError: norm_type not a number.
        ValueError: norm_type 0, wrong rank.
    """
    return _lp_pool("lp_pool2d", 2, x, norm_type, kernel_size, stride, ceil_mode)


def _lp_pool(op, nd, x, norm_type, kernel_size, stride, ceil_mode):
    if isinstance(norm_type, bool) or not isinstance(norm_type, (int, float)):
        raise TypeError(f"For '{op}', the type of 'norm_type' must be float or int, but got "
                        f"{type(norm_type).__name__}.")
    if norm_type == 0:
        raise ValueError(f"For '{op}', the value of 'norm_type' can not be 0.")
    check_rank(op, x, (nd + 1, nd + 2) if nd == 1 else (nd + 2,), "x")
    kernel = int_tuple(op, "kernel_size", kernel_size, nd)
    stride = kernel if stride is None else int_tuple(op, "stride", stride, nd)
    p = float(norm_type)
    avg = _avg_pool_nd(P.pow_p(x, p), kernel, stride, "valid", 0, ceil_mode, True, 0, op)
    size = 1
    for k in kernel:
        size *= k
    return P.pow_p(P.mul_p(avg, float(size)), 1.0 / p)


# ---------------------------------------------------------------- adaptive pooling
def _adaptive_size(op, output_size, spatial):
    nd = len(spatial)
    if _is_int(output_size):
        output_size = (output_size,) * nd
    if not isinstance(output_size, (tuple, list)) or len(output_size) != nd:
        raise ValueError(f"For '{op}', the 'output_size' must be an int or a tuple of {nd} ints or None, but got "
                         f"{output_size!r}.")
    out = []
    for s, n in zip(output_size, spatial):
        if s is None or s == -1:
            s = n
        if not _is_int(s) or s < 1:
            raise ValueError(f"For '{op}', the 'output_size' values must be positive ints or None, but got "
                             f"{tuple(output_size)}.")
        out.append(int(s))
    return tuple(out)


def _adaptive_1d_checks(op, input, output_size):
    check_rank(op, input, (3,))
    check_float(op, input)
    if not _is_int(output_size):
        raise TypeError(f"For '{op}', the 'output_size' must be an int, but got {type(output_size).__name__}.")
    if output_size < 1:
        raise ValueError(f"For '{op}', the 'output_size' must be positive, but got {output_size}.")
    length = input.shape[2]
    if length < output_size or length % output_size:
        raise ValueError(f"For '{op}', the input's last dimension {length} must be greater than or equal to and "
                         f"divisible by the output size {output_size}.")


def _adaptive_avg(op, nd, input, output_size):
    check_rank(op, input, (nd + 1, nd + 2))
    check_float(op, input)
    x, added = _batched(input, nd)
    size = _adaptive_size(op, output_size, x.shape[2:])
    return _unbatch(C.adaptive_avg_pool_p(x, output_size=size), added)


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of (N, C, L) to length `output_size` (L must be divisible by it, as in MindSpore)."""
    _adaptive_1d_checks("adaptive_avg_pool1d", input, output_size)
    return C.adaptive_avg_pool_p(input, output_size=(int(output_size),))


def adaptive_avg_pool2d(input, output_size):
    """Average pooling of (N, C, H, W) or (C, H, W) to `output_size` (an int or (h, w); None keeps a size).

    Windows are [floor(i * H / h), ceil((i + 1) * H / h)).

    Raises:
        TypeError: input not a float Tensor.
        ValueError: wrong rank, bad output_size.

    >>> import mindseed as ms
    >>> ms.ops.adaptive_avg_pool2d(ms.ops.ones((1, 3, 7, 9)), (2, None)).shape
    (1, 3, 2, 9)
    """
    return _adaptive_avg("adaptive_avg_pool2d", 2, input, output_size)


def adaptive_avg_pool2d_ext(input, output_size):
    """Alias of `adaptive_avg_pool2d` (MindSpore's torch-style spelling)."""
    return _adaptive_avg("adaptive_avg_pool2d", 2, input, output_size)


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of (N, C, D, H, W) or (C, D, H, W) to `output_size`; see `adaptive_avg_pool2d`."""
    return _adaptive_avg("adaptive_avg_pool3d", 3, input, output_size)


def _adaptive_max(op, nd, input, output_size, return_indices, index_dtype, ints=False):
    """`ints`: integer inputs are pooled too (exactly, through float64), keeping their dtype."""
    check_rank(op, input, (nd + 1, nd + 2))
    integral = ints and mstype.is_integral(input.dtype) and input.dtype != mstype.bool_
    if not integral:
        check_float(op, input)
    _check_bools(op, return_indices=return_indices)
    x, added = _batched(input, nd)
    size = _adaptive_size(op, output_size, x.shape[2:])
    out, idx = C.adaptive_max_pool_p(P.cast_p(x, dtype="Float64") if integral else x, output_size=size)
    if integral:
        out = P.cast_p(out, dtype=input.dtype.name)
    if not return_indices:
        return _unbatch(out, added)
    if index_dtype != "Int64":
        idx = P.cast_p(idx, dtype=index_dtype)
    return _unbatch((out, idx), added)


def adaptive_max_pool1d(input, output_size):
    """Max pooling of (N, C, L) to length `output_size` (L must be divisible by it, as in MindSpore)."""
    _adaptive_1d_checks("adaptive_max_pool1d", input, output_size)
    return C.adaptive_max_pool_p(input, output_size=(int(output_size),))[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling of (N, C, H, W) or (C, H, W) to `output_size`; with return_indices also the int64 argmax."""
    return _adaptive_max("adaptive_max_pool2d", 2, input, output_size, return_indices, "Int64")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pooling of (N, C, D, H, W) or (C, D, H, W) to `output_size` (float or integer input, as MindSpore's
    CPU kernel takes); with return_indices the int32 argmax."""
    if 0 in getattr(input, "shape", (1,)):  # MindSpore's kernel refuses it at run time
        raise RuntimeError(f"For 'adaptive_max_pool3d', the input must not be empty, but got shape {input.shape}.")
    return _adaptive_max("adaptive_max_pool3d", 3, input, output_size, return_indices, "Int32", ints=True)


# ---------------------------------------------------------------- max unpooling
def _max_unpool(op, nd, x, indices, kernel_size, stride, padding, output_size):
    check_rank(op, x, (nd + 1, nd + 2), "x")
    check_tensor(op, "indices", indices)
    if indices.shape != x.shape:
        raise ValueError(f"For '{op}', the shape of 'x' {x.shape} and 'indices' {indices.shape} must be equal.")
    if not mstype.is_integral(indices.dtype) or indices.dtype == mstype.bool_:
        raise TypeError(f"For '{op}', the 'indices' must be int32 or int64, but got {indices.dtype}.")
    kernel = int_tuple(op, "kernel_size", kernel_size, nd)
    stride = kernel if stride is None else int_tuple(op, "stride", stride, nd, minimum=0)
    stride = tuple(k if s == 0 else s for s, k in zip(stride, kernel))
    padding = int_tuple(op, "padding", padding, nd, minimum=0)
    x, added = _batched(x, nd)
    idx = P.reshape_p(indices, shape=x.shape) if added else indices
    default = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip(x.shape[2:], stride, padding, kernel))
    if output_size is None or (isinstance(output_size, (tuple, list)) and not output_size):
        spatial = default
    else:
        if not isinstance(output_size, (tuple, list)) or len(output_size) < nd:
            raise ValueError(f"For '{op}', the 'output_size' must be a tuple ending with the {nd} spatial sizes, but "
                             f"got {output_size!r}.")
        spatial = tuple(int(v) for v in output_size[-nd:])
        for want, d, s in zip(spatial, default, stride):
            if not d - s < want < d + s:
                raise ValueError(f"For '{op}', the 'output_size' {tuple(output_size)} must be within one stride of "
                                 f"the default output size {default}.")
    if min(default) < 1:
        raise ValueError(f"For '{op}', the computed output size {default} must be positive.")
    out = C.index_scatter_p(x, idx, shape=x.shape[:2] + spatial, accumulate=False)
    return _unbatch(out, added)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of max pooling over (N, C, L) or (C, L): x placed at `indices`, zeros elsewhere.

    L_out = (L - 1) * stride - 2 * padding + kernel_size unless `output_size` says otherwise.
    """
    return _max_unpool("max_unpool1d", 1, x, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of `max_pool2d` over (N, C, H, W) or (C, H, W): x placed at the flat plane `indices`.

    Raises:
        ValueError: shapes of x and indices differ, wrong rank, output_size not within a stride of the default.

    >>> import mindseed as ms
    >>> y, i = ms.ops.max_pool2d(ms.ops.ones((1, 1, 4, 4)), 2, return_indices=True)
    >>> ms.ops.max_unpool2d(y, i, 2).shape
    (1, 1, 4, 4)
    """
    return _max_unpool("max_unpool2d", 2, x, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of `max_pool3d` over (N, C, D, H, W) or (C, D, H, W); see `max_unpool2d`."""
    return _max_unpool("max_unpool3d", 3, x, indices, kernel_size, stride, padding, output_size)


# ---------------------------------------------------------------- fractional max pooling
def _fractional(op, nd, input, kernel_size, output_size, output_ratio, return_indices, random_samples):
    check_rank(op, input, (nd + 1, nd + 2))
    check_float(op, input)
    x, added = _batched(input, nd)
    kernel = int_tuple(op, "kernel_size", kernel_size, nd)
    if (output_size is None) == (output_ratio is None):
        raise ValueError(f"For '{op}', exactly one of 'output_size' and 'output_ratio' must be given.")
    if output_size is not None:
        size = int_tuple(op, "output_size", output_size, nd)
    else:
        ratio = (output_ratio,) * nd if isinstance(output_ratio, (int, float)) else tuple(output_ratio)
        if len(ratio) != nd or not all(0 < r < 1 for r in ratio):
            raise ValueError(f"For '{op}', the 'output_ratio' must be in (0, 1), but got {output_ratio}.")
        size = tuple(int(n * r) for n, r in zip(x.shape[2:], ratio))
    for n, k, s in zip(x.shape[2:], kernel, size):
        if s + k - 1 > n:
            raise ValueError(f"For '{op}', the output size {size} plus kernel size {kernel} minus 1 must not exceed "
                             f"the input size {x.shape[2:]}.")
    n, c = x.shape[:2]
    if random_samples is None:
        random_samples = C.uniform_samples_p(shape=(n, c, nd), dtype=x.dtype.name, generator=_seed.op_generator())
    else:
        check_tensor(op, "_random_samples", random_samples)
        if random_samples.shape != (n, c, nd):
            raise ValueError(f"For '{op}', the '_random_samples' shape must be {(n, c, nd)}, but got "
                             f"{random_samples.shape}.")
    out, idx = C.fractional_max_pool_p(x, random_samples, kernel=kernel, output_size=size)
    return _unbatch((out, idx) if return_indices else out, added)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling of (N, C, H, W) or (C, H, W) with pseudo-random window positions.

    Args:
        kernel_size (Union[int, tuple[int]]): window.
        output_size (Union[int, tuple[int]]) or output_ratio (Union[float, tuple[float]]): exactly one.
        return_indices (bool): also return the int64 argmax.
        _random_samples (Tensor): (N, C, 2) values in [0, 1) fixing the window positions (drawn when None).
    """
    return _fractional("fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling of (N, C, D, H, W) or (C, D, H, W); see `fractional_max_pool2d`."""
    return _fractional("fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)
