"""More Primitive classes of MindSpore, one table row each over a functional op or a small composite below:
boxes, windows, space/batch reshuffles, diagonals, data formats, sparse-to-dense, colour spaces, truncated normals,
loops, hooks. Every composite is made of differentiable ops where its inputs are real values."""
import functools
import math

import numpy as np

from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.functional._array_shape import tensor_identity
from mindseed.ops._prims import core as P
from mindseed.ops.operations._table import REQUIRED, primitive_class

_F32 = mstype.float32


def _host(x):
    return x.asnumpy() if isinstance(x, Tensor) else np.asarray(x)


def _ints(x):
    return tuple(int(v) for v in np.ravel(_host(x)))


# ---------------------------------------------------------------- small composites of the rows
def _nth_element(x, n, reverse=False):
    if isinstance(n, Tensor):
        n = int(n.item())
    if not 0 <= n < x.shape[-1]:
        raise ValueError(f"For 'NthElement', the 'n' must be in [0, {x.shape[-1]}), but got {n}.")
    return F.sort(x, -1, reverse)[0][..., n]


def _invert_permutation(x):
    # MindSpore's InvertPermutation works on constants: a tuple (or list) of ints in, a tuple out
    if isinstance(x, Tensor):
        raise ValueError(f"For 'InvertPermutation', the value of 'input_x' must be non-Tensor, but got "
                         f"Tensor[{x.dtype}].")
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"For 'InvertPermutation', the 'input_x' must be a tuple or list of int, but got "
                        f"{type(x).__name__}.")
    for i, v in enumerate(x):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"For 'InvertPermutation', the type of 'input[{i}]' should be 'int', but got type "
                            f"'{type(v).__name__}'.")
    if sorted(x) != list(range(len(x))):
        raise ValueError(f"For 'InvertPermutation', the 'input_x' must be a permutation of 0..n-1, but got {x}.")
    out = [0] * len(x)
    for i, v in enumerate(x):
        out[v] = i
    return tuple(out)


def _unravel_index(indices, dims):
    idx, shape = _host(indices), _ints(dims)
    if idx.size and (idx.min() < 0 or idx.max() >= int(np.prod(shape))):
        raise ValueError(f"For 'UnravelIndex', the 'indices' must be in [0, {int(np.prod(shape))}), but got {idx}.")
    return Tensor(np.stack(np.unravel_index(idx, shape)).astype(idx.dtype))


def _list_diff(x, y, out_idx=mstype.int32):
    a, b = _host(x), set(_host(y).tolist())
    keep = np.array([i for i, v in enumerate(a.tolist()) if v not in b], np.int64)
    return Tensor(a[keep] if keep.size else a[:0]), Tensor(keep, out_idx)


def _concat_offset_v1(axis, x):
    shapes = [_host(v).astype(np.int64).ravel() for v in x]
    rank, ax = shapes[0].size, int(_host(axis))
    for i, s in enumerate(shapes[1:], 1):
        if s.size != rank:
            raise ValueError(f"For 'ConcatOffsetV1', tensor{i} element num in input x should be {rank}, which is "
                             f"element num of tensor0, but got {s.size}.")
    if not -rank <= ax < rank:
        raise RuntimeError(f"For 'ConcatOffsetV1', the 'axis' must be fall in range [{-rank}, {rank}), "
                           f"but got 'axis': {ax}")
    ax %= rank
    for i, s in enumerate(shapes[1:], 1):
        for d in range(rank):
            if d != ax and s[d] != shapes[0][d]:
                raise RuntimeError(f"For 'ConcatOffsetV1', except for the {ax}th axis, all elements in other axes "
                                   f"should be equal, but for the {d}th axis, element in input x{i} is {s[d]}, "
                                   f"and element in input x0 is {shapes[0][d]}")
    starts = np.concatenate([[0], np.cumsum([s[ax] for s in shapes])[:-1]])
    return tuple(Tensor(np.eye(rank, dtype=np.int32)[ax] * int(o)) for o in starts)


def _format_check(api, src_format, dst_format):
    if sorted(src_format) != sorted(dst_format) or len(src_format) != 4:
        raise ValueError(f"For '{api}', 'src_format' and 'dst_format' must be permutations of one 4-letter format, "
                         f"but got '{src_format}' and '{dst_format}'.")


def _dim_map(x, src_format="NHWC", dst_format="NCHW"):
    _format_check("DataFormatDimMap", src_format, dst_format)
    table = np.array([src_format.index(c) for c in dst_format])     # MindSpore's mapping: NHWC->NCHW [0, 3, 1, 2]
    d = _host(x)
    return Tensor(table[np.mod(d, 4)].astype(d.dtype))


def _vec_permute(x, src_format="NHWC", dst_format="NCHW"):
    _format_check("DataFormatVecPermute", src_format, dst_format)
    return F.gather(x, Tensor([src_format.index(c) for c in dst_format], mstype.int32), 0)


def _compare_and_bitpack(x, threshold):
    if x.shape[-1] % 8:
        raise ValueError(f"For 'CompareAndBitpack', the last dim of 'x' must be a multiple of 8, but got {x.shape}.")
    return Tensor(np.packbits(_host(x) > _host(threshold), axis=-1))


def _histogram_fixed_width(x, value_range, nbins=100, dtype="int32"):
    lo, hi = (float(v) for v in _host(value_range))
    if hi <= lo:
        raise ValueError(f"For 'HistogramFixedWidth', the 'range' must be increasing, but got [{lo}, {hi}].")
    idx = np.clip(np.floor((_host(x).ravel() - lo) / (hi - lo) * nbins), 0, nbins - 1).astype(np.int64)
    return Tensor(np.bincount(idx, minlength=nbins).astype(dtype))


def _confusion_matrix(labels, predictions, weights=None, num_classes=REQUIRED, dtype="int32"):
    lab, pred = _host(labels).astype(np.int64), _host(predictions).astype(np.int64)
    w = np.ones(lab.shape) if weights is None else _host(weights)
    out = np.zeros((num_classes, num_classes), np.float64)
    np.add.at(out, (lab, pred), w)
    return Tensor(out.astype(dtype))


def _tridiagonal_matmul(superdiag, maindiag, subdiag, rhs):
    up, mid, low = (F.swapaxes(d, -1, -2) for d in (superdiag, maindiag, subdiag))   # (..., M, 1)
    zero = F.zeros_like(rhs[..., :1, :])
    below = F.concat([rhs[..., 1:, :], zero], -2)
    above = F.concat([zero, rhs[..., :-1, :]], -2)
    return mid * rhs + up * below + low * above


def _sparse_dense_matmul(indices, values, sparse_shape, dense, adjoint_st=False, adjoint_dt=False):
    a = F.scatter_nd(F.cast(indices, mstype.int64), values, _ints(sparse_shape))
    a = F.swapaxes(a, 0, 1) if adjoint_st else a
    return F.matmul(a, F.swapaxes(dense, 0, 1) if adjoint_dt else dense)


def _rgb_to_hsv(images):
    r, g, b = images[..., 0], images[..., 1], images[..., 2]
    v = F.maximum(F.maximum(r, g), b)
    c = v - F.minimum(F.minimum(r, g), b)
    safe_c = F.where(c > 0, c, F.ones_like(c))
    s = F.where(v > 0, c / F.where(v > 0, v, F.ones_like(v)), F.zeros_like(v))
    h = F.where(v == r, F.floor_mod((g - b) / safe_c, 6.0), F.where(v == g, (b - r) / safe_c + 2, (r - g) / safe_c + 4))
    h = F.where(c > 0, h / 6.0, F.zeros_like(h))
    return F.stack([h, s, v], -1)


def _hsv_to_rgb(images):
    h, s, v = images[..., 0], images[..., 1], images[..., 2]
    channel = []
    for n in (5.0, 3.0, 1.0):
        k = F.floor_mod(h * 6.0 + n, 6.0)
        channel.append(v - v * s * F.clamp(F.minimum(k, 4.0 - k), 0.0, 1.0))
    return F.stack(channel, -1)


def _adjust_hue(image, delta):
    hsv = _rgb_to_hsv(image)
    return _hsv_to_rgb(F.stack([F.floor_mod(hsv[..., 0] + delta, 1.0), hsv[..., 1], hsv[..., 2]], -1))


def _adjust_saturation(image, scale):
    hsv = _rgb_to_hsv(image)
    return _hsv_to_rgb(F.stack([hsv[..., 0], F.clamp(hsv[..., 1] * scale, 0.0, 1.0), hsv[..., 2]], -1))


def _adjust_contrast_v2(images, contrast_factor):
    op = "AdjustContrastv2"
    if images.dtype not in (mstype.float16, mstype.float32):
        raise TypeError(f"For primitive[{op}], the input argument[images] must be a type of {{Tensor[Float16], "
                        f"Tensor[Float32]}}, but got Tensor[{images.dtype}].")
    if contrast_factor.dtype != mstype.float32:
        raise TypeError(f"For primitive[{op}], the input argument[contrast_factor] must be a type of "
                        f"{{Tensor[Float32]}}, but got Tensor[{contrast_factor.dtype}].")
    if images.ndim < 3:
        raise ValueError(f"For primitive[{op}], the dimension of {op} input images must be greater than or equal to "
                         f"3, but got {images.ndim}.")
    if contrast_factor.ndim != 0:
        raise ValueError(f"For primitive[{op}], the dimension of {op} input contrast_factor must be equal to 0, but "
                         f"got {contrast_factor.ndim}.")
    x = F.cast(images, mstype.float32)          # per channel: (x - its mean over H and W) * factor + that mean
    mean = F.mean(x, (-3, -2), True)
    return F.cast((x - mean) * contrast_factor + mean, images.dtype)


def _depthwise_conv2d(x, weight, channel_multiplier=REQUIRED, kernel_size=REQUIRED, mode=3, pad_mode="valid", pad=0,
                      stride=1, dilation=1, group=1):
    k, c, kh, kw = weight.shape
    if c != x.shape[1] or k != channel_multiplier:
        raise ValueError(f"For 'DepthwiseConv2dNative', the 'weight' must have shape (channel_multiplier="
                         f"{channel_multiplier}, in_channels={x.shape[1]}, kh, kw), but got {weight.shape}.")
    w = F.reshape(F.transpose(weight, (1, 0, 2, 3)), (c * k, 1, kh, kw))
    return F.conv2d(x, w, None, stride, pad_mode, pad, dilation, c)


def _phi(z):
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def _truncated_normal(shape, seed=0, seed2=0, dtype=_F32):
    lo, hi = _phi(-2.0), _phi(2.0)
    u = F.cast(F.uniform(_ints(shape), Tensor(lo, _F32), Tensor(hi, _F32), seed=seed or seed2 or None),
               mstype.float64)
    return F.cast(math.sqrt(2.0) * F.erfinv(2.0 * u - 1.0), dtype)


def _parameterized_truncated_normal(shape, mean, stdevs, min, max, seed=0, seed2=0):  # noqa: A002 -- MindSpore's
    dims = _ints(shape)
    per = (dims[0],) + (1,) * (len(dims) - 1)

    def col(t):
        return F.reshape(F.cast(t, mstype.float64), per) if t.size > 1 else F.cast(F.reshape(t, ()), mstype.float64)
    mu, sd = col(mean), col(stdevs)
    cdf = [0.5 * (1.0 + F.erf((col(b) - mu) / (sd * math.sqrt(2.0)))) for b in (min, max)]
    u = F.cast(F.uniform(dims, Tensor(0.0, _F32), Tensor(1.0, _F32), seed=seed or seed2 or None), mstype.float64)
    p = cdf[0] + u * (cdf[1] - cdf[0])
    return F.cast(mu + sd * math.sqrt(2.0) * F.erfinv(2.0 * p - 1.0), mean.dtype)


def _assert(condition, input_data, summarize=3):
    if not bool(np.all(_host(condition))):
        shown = [np.ravel(_host(d))[:summarize].tolist() for d in input_data]
        # MindSpore's kernel fails at launch (RuntimeError: "assert failed")
        raise RuntimeError(f"For 'Assert', assert failed: the condition is false; input data (first {summarize} of "
                           f"each): {shown}.")


def _fori_loop(lower, upper, loop_func, init_val, unroll=True):
    # unrolled or not, the loop computes the same values (a bound that is a graph tensor is read when tracing)
    val = init_val
    for i in range(int(lower), int(upper)):
        val = loop_func(i, val)
    return val


def _while_loop(cond_func, loop_func, init_val):
    val = init_val
    while cond_func(val):
        val = loop_func(val)
    return val


def _scan(loop_func, init, xs, length=None, unroll=1):
    carry, ys = init, []
    for x in (range(length) if xs is None else xs):
        carry, y = loop_func(carry, x)
        ys.append(y)
    return carry, ys


def _hook_backward(*inputs, hook_fn=REQUIRED, cell_id=""):
    if _state.tracing is not None:
        # as MindSpore's: a compiled graph (graph mode or @jit) keeps the identity and never calls the hook
        return inputs[0] if len(inputs) == 1 else inputs
    out = P.hook_backward_p(*inputs, hook=hook_fn)
    return out[0] if len(inputs) == 1 else out


def _insert_gradient_of(x, f=REQUIRED):
    if not isinstance(x, Tensor):
        return x    # a Python scalar has no gradient to change (MindSpore gives it back as it is)
    return P.hook_backward_p(x, hook=lambda dout: f(dout[0] if isinstance(dout, tuple) else dout))[0]


def _log_softmax_ext(x, dim=None, dtype=None):
    if dim is None:
        dim = 0 if x.ndim in (0, 1, 3) else 1
    return F.log_softmax(x if dtype is None else F.cast(x, dtype), dim)


_SUMMARY_SINKS = []    # where the summary ops put their values: SummaryRecord's module registers its cache here


def _summary(kind, check):
    def record(name, value):
        if not isinstance(name, str) or not name:
            raise TypeError(f"For '{kind}Summary', the 'name' must be a non-empty str, but got {name!r}.")
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{kind}Summary', the 'value' must be a Tensor, but got {type(value).__name__}.")
        if not check(value):
            raise ValueError(f"For '{kind}Summary', the 'value' of shape {value.shape} is not a {kind.lower()} "
                             f"value.")
        # one side-effect node in a compiled graph: each run of the graph records that run's value, as MindSpore's
        # summary ops do (a cached graph called again still records)
        _state.opaque_call(_record_summary, (f"{name}[:{kind}]", value))
    return record


def _record_summary(tag, value):
    for sink in _SUMMARY_SINKS:
        sink(tag, value)


def _float_status(x):
    return Tensor([0.0 if bool(np.all(np.isfinite(_host(x)))) else 1.0], _F32)


def _py_func(*inputs, fn=REQUIRED, in_types=REQUIRED, in_shapes=REQUIRED, out_types=REQUIRED, out_shapes=REQUIRED,
             stateful=True):
    # as MindSpore's kernel: each input reaches fn as its declared shape and dtype, a Python scalar where that
    # shape is () (an action (1,) declared () arrives as an int)
    if not len(inputs) == len(in_types) == len(in_shapes):
        raise ValueError(f"For 'PyFunc', the number of inputs ({len(inputs)}), of 'in_types' ({len(in_types)}) and of "
                         f"'in_shapes' ({len(in_shapes)}) must be the same.")
    args = []
    for x, t, shape in zip(inputs, in_types, in_shapes):
        arr = _host(x).astype(mstype.dtype_to_nptype(t), copy=False)
        args.append(arr.reshape(-1)[0].item() if tuple(shape) == () else arr.reshape(tuple(shape)))
    outs = fn(*args)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    return tuple(Tensor(np.asarray(o).reshape(s), t) for o, t, s in zip(outs, out_types, out_shapes))


def _dropout_gen_mask(shape, keep_prob, Seed0=0, Seed1=0):  # noqa: N803 -- MindSpore's attribute names
    n = int(np.prod(_ints(shape)))
    padded = -(-n // 128) * 128
    keep = F.uniform((padded,), Tensor(0.0, _F32), Tensor(1.0, _F32), seed=Seed0 or Seed1 or None).asnumpy() \
        < float(_host(keep_prob))
    keep[n:] = False
    return Tensor(np.packbits(keep, bitorder="little"))


def _dropout_do_mask(x, mask, keep_prob):
    bits = np.unpackbits(_host(mask), bitorder="little")[:x.size].reshape(x.shape)
    return x * Tensor(bits, x.dtype) / keep_prob


def _nms(order, overlap, max_output_size, threshold):
    keep = []
    for i in order:
        if len(keep) == int(max_output_size):
            break
        if all(overlap(i, j) <= threshold for j in keep):
            keep.append(i)
    return Tensor(np.array(keep, np.int32))


def _nms_v3(boxes, scores, max_output_size, iou_threshold, score_threshold):
    b, s = _host(boxes).astype(np.float64), _host(scores)
    y0, x0 = np.minimum(b[:, 0], b[:, 2]), np.minimum(b[:, 1], b[:, 3])
    y1, x1 = np.maximum(b[:, 0], b[:, 2]), np.maximum(b[:, 1], b[:, 3])
    area = (y1 - y0) * (x1 - x0)

    def iou(i, j):
        inter = max(0.0, min(y1[i], y1[j]) - max(y0[i], y0[j])) * max(0.0, min(x1[i], x1[j]) - max(x0[i], x0[j]))
        union = area[i] + area[j] - inter
        return inter / union if union > 0 else 0.0
    order = [i for i in np.argsort(-s, kind="stable") if s[i] > float(_host(score_threshold))]
    return _nms(order, iou, _host(max_output_size), float(_host(iou_threshold)))


def _nms_overlaps(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
    o, s = _host(overlaps), _host(scores)
    order = [i for i in np.argsort(-s, kind="stable") if s[i] > float(_host(score_threshold))]
    return _nms(order, lambda i, j: o[i, j], _host(max_output_size), float(_host(overlap_threshold)))


def _sparse_slice(indices, values, shape, start, size):
    idx, dims, lo, n = _host(indices), _host(shape), _host(start), _host(size)
    hi = np.minimum(lo + n, dims)
    keep = np.nonzero(np.all((idx >= lo) & (idx < hi), axis=1))[0]
    return (Tensor((idx[keep] - lo).astype(idx.dtype)), F.gather(values, Tensor(keep.astype(np.int64)), 0),
            Tensor(np.maximum(hi - lo, 0).astype(dims.dtype)))


def _window(fn):
    return lambda window_length, periodic=True, dtype=_F32, **kw: fn(window_length, periodic, dtype=dtype, **kw)


_BOX_MEANS, _BOX_STDS = ("means", (0.0, 0.0, 0.0, 0.0)), ("stds", (1.0, 1.0, 1.0, 1.0))
_ALIGN = ("align", "RIGHT_LEFT")
_FORMATS = (("src_format", "NHWC"), ("dst_format", "NCHW"))
_SEEDS = (("seed", 0), ("seed2", 0))

# name: (function, constructor attributes, call inputs or None for any, doc)
_ROWS = {
    "IOU": (F.iou, (("mode", "iou"),), ("anchor_boxes", "gt_boxes"), None),
    "BoundingBoxEncode": (F.bounding_box_encode, (_BOX_MEANS, _BOX_STDS), ("anchor_box", "groundtruth_box"), None),
    "BoundingBoxDecode": (F.bounding_box_decode, (("max_shape", REQUIRED), _BOX_MEANS, _BOX_STDS,
                                                  ("wh_ratio_clip", 0.016)), ("anchor_box", "deltas"), None),
    "CheckValid": (F.check_valid, (), ("bboxes", "img_metas"), None),
    "Eps": (F.eps, (), ("x",), None),
    "BartlettWindow": (_window(F.bartlett_window), (("periodic", True), ("dtype", _F32)), ("window_length",),
                       "The Bartlett window (see ops.bartlett_window)."),
    "BlackmanWindow": (_window(F.blackman_window), (("periodic", True), ("dtype", _F32)), ("window_length",),
                       "The Blackman window (see ops.blackman_window)."),
    "HammingWindow": (_window(F.hamming_window), (("periodic", True), ("alpha", 0.54), ("beta", 0.46),
                                                  ("dtype", _F32)), ("window_length",),
                      "The generalised Hamming window (see ops.hamming_window)."),
    "BatchToSpaceND": (lambda x, block_shape, crops: F.batch_to_space_nd(x, block_shape, crops),
                       (("block_shape", REQUIRED), ("crops", REQUIRED)), ("input_x",), "Batch to space, N-D."),
    "BatchToSpaceNDV2": (F.batch_to_space_nd, (), ("input_x", "block_shape", "crops"), "Batch to space, N-D."),
    "BatchToSpace": (lambda x, block_size, crops: F.batch_to_space_nd(x, [block_size] * 2, crops),
                     (("block_size", REQUIRED), ("crops", REQUIRED)), ("input_x",), "Batch to space in H and W."),
    "SpaceToBatchND": (lambda x, block_shape, paddings: F.space_to_batch_nd(x, block_shape, paddings),
                       (("block_shape", REQUIRED), ("paddings", REQUIRED)), ("input_x",), "Space to batch, N-D."),
    "SpaceToBatch": (lambda x, block_size, paddings: F.space_to_batch_nd(x, [block_size] * 2, paddings),
                     (("block_size", REQUIRED), ("paddings", REQUIRED)), ("input_x",), "Space to batch in H and W."),
    "Renorm": (lambda x, p, dim, maxnorm: F.renorm(x, p, dim, maxnorm),
               (("p", REQUIRED), ("dim", REQUIRED), ("maxnorm", REQUIRED)), ("input",),
               "Sub-tensors along `dim` rescaled to p-norm at most `maxnorm`."),
    "Expand": (F.broadcast_to, (), ("input_x", "shape"), "input_x broadcast to `shape`."),
    "FillV2": (lambda shape, value: F.fill(value.dtype, _ints(shape), value.item()), (), ("shape", "value"),
               "A Tensor of `shape` filled with the 0-D Tensor `value`."),
    "IdentityN": (lambda xs: tuple(tensor_identity(x) for x in xs), (), ("x",), "Each Tensor of a list, unchanged."),
    "MatrixDiagV3": (F.matrix_diag, (_ALIGN,), ("x", "k", "num_rows", "num_cols", "padding_value"), None),
    "MatrixDiagPartV3": (F.matrix_diag_part, (_ALIGN,), ("x", "k", "padding_value"), None),
    "MatrixSetDiagV3": (F.matrix_set_diag, (_ALIGN,), ("x", "diagonal", "k"), None),
    "LogSoftmaxExt": (_log_softmax_ext, (), None, "log_softmax(input, dim=None, dtype=None)."),
    "ScalarCast": (F.scalar_cast, (), ("input_x", "input_y"), None),
    "ScalarToArray": (F.scalar_to_tensor, (), ("input_x",), "A 0-D Tensor of a Python number."),
    "TensorDump": (lambda file, x, input_output="out": F.tensordump(file, x, input_output),
                   (("input_output", "out"),), ("file", "input_x"), "Save `input_x` to the numpy file `file`."),
    "MoveTo": (F.move_to, (), None, "move_to(input, to, blocking=True)."),
    "Partial": (functools.partial, (), None, "fn with its first arguments bound: Partial()(fn, *args)."),
    "Assert": (_assert, (("summarize", 3),), ("condition", "input_data"),
               "Raise ValueError (showing `summarize` values of each input) when `condition` is not all true."),
    "NthElement": (_nth_element, (("reverse", False),), ("input", "n"),
                   "The n-th smallest (reverse: largest) value along the last dim."),
    "InvertPermutation": (_invert_permutation, (), ("input_x",), "The inverse of a permutation."),
    "UnravelIndex": (_unravel_index, (), ("indices", "dims"), "Flat indices as coordinates of `dims`: (ndim, N)."),
    "ListDiff": (_list_diff, (("out_idx", mstype.int32),), ("x", "y"),
                 "(values of x not in y, their positions in x)."),
    "ConcatOffsetV1": (_concat_offset_v1, (), ("axis", "x"),
                       "The offsets of each input along `axis` in their concatenation, one int32 shape vector each."),
    "DataFormatDimMap": (_dim_map, _FORMATS, ("input_x",),
                         "Dim indices mapped between formats (NHWC->NCHW: [0, 3, 1, 2])."),
    "DataFormatVecPermute": (_vec_permute, _FORMATS, ("x",), "A 4-vector in src_format order permuted to dst."),
    "CompareAndBitpack": (_compare_and_bitpack, (), ("x", "threshold"),
                          "x > threshold packed 8 to a uint8 along the last dim (first element the highest bit)."),
    "HistogramFixedWidth": (_histogram_fixed_width, (("nbins", REQUIRED), ("dtype", "int32")), ("x", "range"),
                            "Counts of x in `nbins` equal bins of `range` (outside values in the end bins)."),
    "ConfusionMatrix": (_confusion_matrix, (("num_classes", REQUIRED), ("dtype", "int32")), None,
                        "matrix[label, prediction] summed (weights or 1)."),
    "TridiagonalMatMul": (_tridiagonal_matmul, (), ("superdiag", "maindiag", "subdiag", "rhs"),
                          "The tridiagonal matrix of the three diagonals (..., 1, M) times rhs (..., M, N)."),
    "SparseToDense": (lambda indices, values, shape: F.scatter_nd(F.cast(indices, mstype.int64), values,
                                                                  _ints(shape)), (),
                      ("indices", "values", "sparse_shape"), "The dense Tensor of COO indices and values."),
    "SparseTensorDenseAdd": (lambda indices, values, shape, x2: F.tensor_scatter_add(
        x2, F.cast(indices, mstype.int64), values), (), ("x1_indices", "x1_values", "x1_shape", "x2"),
        "A COO sparse tensor plus the dense x2."),
    "SparseTensorDenseMatmul": (_sparse_dense_matmul, (("adjoint_st", False), ("adjoint_dt", False)),
                                ("indices", "values", "sparse_shape", "dense"),
                                "A COO sparse matrix (adjoint_st: transposed) times dense (adjoint_dt: transposed)."),
    "RGBToHSV": (_rgb_to_hsv, (), ("images",), "RGB in [0, 1] (last dim) to HSV, hue in [0, 1)."),
    "HSVToRGB": (_hsv_to_rgb, (), ("x",), "HSV (hue in [0, 1)) to RGB."),
    "AdjustHue": (_adjust_hue, (), ("image", "delta"), "The hue of RGB images rotated by `delta` (of a turn)."),
    "AdjustSaturation": (_adjust_saturation, (), ("image", "scale"), "The saturation of RGB images scaled."),
    "AdjustContrastv2": (_adjust_contrast_v2, (), ("images", "contrast_factor"),
                         "Each channel of [..., H, W, C] images moved away from its mean by contrast_factor."),
    "DepthwiseConv2dNative": (_depthwise_conv2d, (("channel_multiplier", REQUIRED), ("kernel_size", REQUIRED),
                                                  ("mode", 3), ("pad_mode", "valid"), ("pad", 0), ("stride", 1),
                                                  ("dilation", 1), ("group", 1)), ("x", "weight"),
                              "Depthwise 2-D convolution, weight (channel_multiplier, in_channels, kh, kw)."),
    "TruncatedNormal": (_truncated_normal, _SEEDS + (("dtype", _F32),), ("shape",),
                        "Standard normal samples truncated to [-2, 2]."),
    "ParameterizedTruncatedNormal": (_parameterized_truncated_normal, _SEEDS,
                                     ("shape", "mean", "stdevs", "min", "max"),
                                     "Normal samples of per-batch mean/stdevs truncated to [min, max]."),
    "ForiLoop": (_fori_loop, (), None, "ForiLoop()(lower, upper, loop_func, init_val, unroll=True): "
                 "val = loop_func(i, val) for i in range(lower, upper)."),
    "WhileLoop": (_while_loop, (), ("cond_func", "loop_func", "init_val"),
                  "val = loop_func(val) while cond_func(val)."),
    "Scan": (_scan, (), None, "Scan()(loop_func, init, xs, length=None, unroll=1) -> (carry, [y per step])."),
    "HookBackward": (_hook_backward, (("hook_fn", REQUIRED), ("cell_id", "")), None,
                     "Identity; in the backward pass hook_fn(grads) sees (and may replace) the inputs' gradients."),
    "InsertGradientOf": (_insert_gradient_of, (("f", REQUIRED),), ("x",),
                         "Identity; the gradient flowing back through it is f(gradient)."),
    "ScalarSummary": (_summary("Scalar", lambda v: v.size == 1), (), ("name", "value"),
                      "Record a scalar for the SummaryRecord of the step (tag 'name[:Scalar]')."),
    "TensorSummary": (_summary("Tensor", lambda v: True), (), ("name", "value"),
                      "Record a tensor for the SummaryRecord of the step."),
    "ImageSummary": (_summary("Image", lambda v: v.ndim == 4), (), ("name", "value"),
                     "Record NCHW images for the SummaryRecord of the step."),
    "HistogramSummary": (_summary("Histogram", lambda v: True), (), ("name", "value"),
                         "Record a histogram of a tensor for the SummaryRecord of the step."),
    "CropAndResize": (F.crop_and_resize, (("method", "bilinear"), ("extrapolation_value", 0.0)),
                      ("x", "boxes", "box_index", "crop_size"), None),
    "Coalesce": (F.coalesce, (), ("x_indices", "x_values", "x_shape"), None),
    "ParallelConcat": (lambda values: F.concat(values, 0), (), ("values",), "The Tensors joined along dim 0."),
    "TransposeView": (F.transpose, (), ("input", "input_perm"), "input with its dims permuted."),
    "TransposeExtView": (F.swapaxes, (), ("input", "dim0", "dim1"), "input with two dims swapped."),
    "FloatStatus": (_float_status, (), ("x",), "[0.] when every element is finite, else [1.] (overflow)."),
    "PyFunc": (_py_func, (("fn", REQUIRED), ("in_types", REQUIRED), ("in_shapes", REQUIRED), ("out_types", REQUIRED),
                          ("out_shapes", REQUIRED), ("stateful", True)), None,
               "fn run on the inputs as numpy arrays; its outputs as Tensors of out_types and out_shapes."),
    "DropoutGenMask": (_dropout_gen_mask, (("Seed0", 0), ("Seed1", 0)), ("shape", "keep_prob"),
                       "A random bit mask (1 = keep, probability keep_prob), packed 8 to a uint8, 128-bit blocks."),
    "DropoutDoMask": (_dropout_do_mask, (), ("input_x", "mask", "keep_prob"),
                      "input_x where the DropoutGenMask bit is set, scaled by 1 / keep_prob; 0 elsewhere."),
    "NonMaxSuppressionV3": (_nms_v3, (), ("boxes", "scores", "max_output_size", "iou_threshold", "score_threshold"),
                            "Greedy non-maximum suppression: indices of kept boxes (y0, x0, y1, x1), best first."),
    "NonMaxSuppressionWithOverlaps": (_nms_overlaps, (), ("overlaps", "scores", "max_output_size",
                                                          "overlap_threshold", "score_threshold"),
                                      "Greedy non-maximum suppression on a given overlap matrix."),
    "SparseSlice": (_sparse_slice, (), ("indices", "values", "shape", "start", "size"),
                    "The COO entries inside the box [start, start + size), re-indexed from start."),
}

globals().update({_name: primitive_class(_name, _fn, _attrs, _inputs, doc=_doc)
                  for _name, (_fn, _attrs, _inputs, _doc) in _ROWS.items()})
__all__ = list(_ROWS)
