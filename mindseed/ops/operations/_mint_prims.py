"""The Primitive classes of MindSpore's generated operators with `mint`'s signatures (`ops.auto_generate.AddExt()(x,
y, alpha)`, `SumExt()(x, dim, keepdim, dtype)`, `StackExt(dim)(tensors)`, `Swiglu()(x, dim)`, ...), which model code
(mindformers) builds its layers from, and the fused operators it calls: `GroupedMatmul`, `MoeFinalizeRouting`,
`FlashAttentionScore` (the attention math of `ops.flash_attention_score`, with the softmax statistics MindSpore's
kernel returns beside the output).

`mint` sits above `ops`: the mint functions are looked up at call time through the registration of
`ops.auto_generate._ext` (`SOURCES`), so each class here is the mint function of its name."""
from mindseed import _backend as B
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.functional import _attention
from mindseed.ops.operations._base import REQUIRED, AttrPrimitive, simple_primitive

__all__ = ["AddExt", "SubExt", "SumExt", "MeanExt", "CumsumExt", "ZerosLikeExt", "OnesLikeExt", "BatchMatMulExt",
           "SplitWithSize", "Chunk", "Outer", "IndexSelect", "SortExt", "TopkExt", "SiLU", "Muls", "FmodScalar",
           "Scatter", "ScatterValue", "StackExt", "OneHotExt", "Swiglu", "SwigluGrad", "GroupedMatmul",
           "MoeFinalizeRouting",
           "FusedAddTopKDiv", "QuantV2", "DynamicQuantExt", "QuantBatchMatmul", "Arange", "ClampScalar", "TrilExt",
           "RepeatInterleaveTensor", "SliceExt", "SliceExtView", "InplaceCopy", "WeightQuantBatchMatmul",
           "FlashAttentionScore", "GroupedMatmulV4"]


def _mint(name):
    """mint's (or mint.nn.functional's) function `name`."""
    # imported here: the auto_generate package lists ops.operations' classes when it is first imported
    from mindseed.ops.auto_generate import _ext  # noqa: PLC0415
    return next(getattr(source, name) for source in _ext.sources() if hasattr(source, name))


def _mint_fn(name):
    def call(*args, **kwargs):
        return _mint(name)(*args, **kwargs)
    return call


def _alpha(name):
    def call(input, other, alpha=1):
        return _mint(name)(input, other, alpha=alpha)
    return call


def _sum(input, dim=None, keepdim=False, dtype=None):
    return _mint("sum")(input, dim, keepdim, dtype=dtype)


def _mean(input, dim=None, keepdim=False, dtype=None):
    return _mint("mean")(input, dim, keepdim, dtype=dtype)


def _zeros_like(input, dtype=None):
    return _mint("zeros_like")(input, dtype=dtype)


def _ones_like(input, dtype=None):
    return _mint("ones_like")(input, dtype=dtype)


def _sort(input, dim=-1, descending=False, stable=False):
    return _mint("sort")(input, dim=dim, descending=descending, stable=stable)


def _silu(input):
    return _mint("silu")(input)


def _muls(input, other):
    return F.mul(input, other)


def _scatter(input, dim, index, src, reduce="none"):
    """input with src (a Tensor or a number) written (or added, multiplied) at `index` along `dim`."""
    reductions = {"none": "none", "add": "add", "multiply": "mul"}
    if reduce not in reductions:
        raise ValueError(f"For 'Scatter', 'reduce' must be one of {tuple(reductions)}, but got {reduce!r}.")
    if not isinstance(src, Tensor):
        src = F.fill(input.dtype, index.shape, src)
    if reduce != "multiply":
        return F.tensor_scatter_elements(input, index, src, dim, reductions[reduce])
    # the product: each element of src multiplies input at its full coordinate (index along dim, its own elsewhere)
    dim = dim % input.ndim
    coords = [index if d == dim else F.broadcast_to(F.reshape(F.arange(0, index.shape[d], dtype=index.dtype),
                                                              tuple(-1 if e == d else 1 for e in range(index.ndim))),
                                                    index.shape) for d in range(input.ndim)]
    src = src[tuple(slice(0, n) for n in index.shape)]
    return F.tensor_scatter_mul(input, F.stack(coords, -1), src)


def _swiglu_grad(grad_output, input, dim=-1):
    """The gradient of swiglu(input, dim) = silu(a) * b with respect to input = [a, b] along dim."""
    a, b = F.chunk(input, 2, dim)
    sig = F.sigmoid(a)
    da = grad_output * b * sig * (1 + a * (1 - sig))
    return F.cat((da, grad_output * a * sig), dim)


_DOC = "`{0}()(...)`: MindSpore's generated `{0}`, the `mint.{1}` form (same arguments and result)."
_SIMPLE = (("CumsumExt", "cumsum"), ("BatchMatMulExt", "bmm"), ("SplitWithSize", "split"), ("Chunk", "chunk"),
           ("Outer", "outer"), ("IndexSelect", "index_select"), ("TopkExt", "topk"), ("FmodScalar", "fmod"))
CumsumExt, BatchMatMulExt, SplitWithSize, Chunk, Outer, IndexSelect, TopkExt, FmodScalar = (
    simple_primitive(cls, _mint_fn(fn), _DOC.format(cls, fn)) for cls, fn in _SIMPLE)
AddExt = simple_primitive("AddExt", _alpha("add"), _DOC.format("AddExt", "add"))
SubExt = simple_primitive("SubExt", _alpha("sub"), _DOC.format("SubExt", "sub"))
SumExt = simple_primitive("SumExt", _sum, _DOC.format("SumExt", "sum"))
MeanExt = simple_primitive("MeanExt", _mean, _DOC.format("MeanExt", "mean"))
ZerosLikeExt = simple_primitive("ZerosLikeExt", _zeros_like, _DOC.format("ZerosLikeExt", "zeros_like"))
OnesLikeExt = simple_primitive("OnesLikeExt", _ones_like, _DOC.format("OnesLikeExt", "ones_like"))
SortExt = simple_primitive("SortExt", _sort, _DOC.format("SortExt", "sort"))
SiLU = simple_primitive("SiLU", _silu, "`SiLU()(input)`: input * sigmoid(input).")
Muls = simple_primitive("Muls", _muls, "`Muls()(input, other)`: input times the number `other`.")
Scatter = simple_primitive("Scatter", _scatter, "`Scatter()(input, dim, index, src, reduce='none')`: `src` written "
                           "into `input` at `index` along `dim` ('add' adds it, 'multiply' multiplies by it).")
ScatterValue = simple_primitive("ScatterValue", _scatter, "`ScatterValue()(input, dim, index, src, reduce='none')`: "
                                "`Scatter` with the number `src` written at every position of `index`.")
Swiglu = simple_primitive("Swiglu", lambda input, dim=-1: F.swiglu(input, dim),
                          "`Swiglu()(input, dim=-1)`: silu(a) * b of the halves a, b of `input` along `dim`.")
def _slice_ext(input, dim, start, end, step):
    """input[start:end:step] along `dim`."""
    if step <= 0:
        raise ValueError(f"For 'SliceExt', 'step' must be positive, but got {step}.")
    return input[(slice(None),) * (dim % input.ndim) + (slice(start, end, step),)]


def _inplace_copy(input, src, non_blocking=False):
    """input <- src (broadcast to input's shape, cast to its dtype); returns input."""
    return input.copy_(src)


# MindSpore's generated view operators (`ops.auto_generate` only): the results of their plain forms
_VIEW_DOC = "`{0}()(input, ...)`: MindSpore's generated view operator, the result of `mint.{1}`."
BroadcastToView = simple_primitive("BroadcastToView", lambda input, shape: _mint("broadcast_to")(input, shape),
                                   _VIEW_DOC.format("BroadcastToView", "broadcast_to"))
ExpandDimsView = simple_primitive("ExpandDimsView", lambda input, dim: _mint("unsqueeze")(input, dim),
                                  _VIEW_DOC.format("ExpandDimsView", "unsqueeze"))
NarrowView = simple_primitive("NarrowView", lambda input, dim, start, length: _mint("narrow")(input, dim, start,
                                                                                              length),
                              _VIEW_DOC.format("NarrowView", "narrow"))
SelectExtView = simple_primitive("SelectExtView", lambda input, dim, index: _mint("select")(input, dim, index),
                                 _VIEW_DOC.format("SelectExtView", "select"))
SplitTensorView = simple_primitive("SplitTensorView", lambda input, split_size, dim=0: _mint("split")(
    input, split_size, dim), _VIEW_DOC.format("SplitTensorView", "split"))
SplitWithSizeView = simple_primitive("SplitWithSizeView", lambda input, split_size, dim=0: _mint("split")(
    input, tuple(split_size), dim), _VIEW_DOC.format("SplitWithSizeView", "split"))
ChunkView = simple_primitive("ChunkView", lambda input, chunks, dim=0: _mint("chunk")(input, chunks, dim),
                             _VIEW_DOC.format("ChunkView", "chunk"))
UnstackExtView = simple_primitive("UnstackExtView", lambda input, dim=0: _mint("unbind")(input, dim),
                                  _VIEW_DOC.format("UnstackExtView", "unbind"))
DiagonalView = simple_primitive("DiagonalView", lambda input, offset=0, dim1=0, dim2=1: F.diagonal(
    input, offset, dim1, dim2), "`DiagonalView()(input, offset=0, dim1=0, dim2=1)`: the diagonal of `input`.")
SliceExtView = simple_primitive("SliceExtView", lambda input, dim, start, end, step: _slice_ext(
    input, dim, start, end, step), "`SliceExtView()(input, dim, start, end, step)`: input[start:end:step] along dim.")
VIEWS = ("BroadcastToView", "ExpandDimsView", "NarrowView", "SelectExtView", "SplitTensorView", "SplitWithSizeView",
         "ChunkView", "UnstackExtView", "DiagonalView", "SliceExtView")


Arange = simple_primitive("Arange", lambda start, end, step, dtype=None: _mint("arange")(start, end, step, dtype=dtype),
                          _DOC.format("Arange", "arange"))
ClampScalar = simple_primitive("ClampScalar", lambda input, min=None, max=None: _mint("clamp")(input, min, max),
                               "`ClampScalar()(input, min=None, max=None)`: `mint.clamp` with number bounds.")
TrilExt = simple_primitive("TrilExt", lambda input, diagonal=0: _mint("tril")(input, diagonal),
                           _DOC.format("TrilExt", "tril"))
RepeatInterleaveTensor = simple_primitive(
    "RepeatInterleaveTensor", lambda input, repeats, dim=None, output_size=None: _mint("repeat_interleave")(
        input, repeats, dim, output_size=output_size), _DOC.format("RepeatInterleaveTensor", "repeat_interleave"))
SliceExt = simple_primitive("SliceExt", _slice_ext, "`SliceExt()(input, dim, start, end, step)`: " + _slice_ext.__doc__)
SliceExtView = simple_primitive("SliceExtView", _slice_ext, "`SliceExtView()(input, dim, start, end, step)`: the "
                                "view form of SliceExt, " + _slice_ext.__doc__)
InplaceCopy = simple_primitive("InplaceCopy", _inplace_copy, "`InplaceCopy()(input, src, non_blocking=False)`: "
                               + _inplace_copy.__doc__)
SwigluGrad = simple_primitive("SwigluGrad", _swiglu_grad, "`SwigluGrad()(grad_output, input, dim=-1)`: the "
                              "gradient of Swiglu with respect to its input.")


class StackExt(AttrPrimitive):
    """`StackExt(dim=0)(tensors)`: the tensors stacked along a new axis `dim`."""
    _params = (("dim", 0),)

    def __call__(self, tensors):
        return _mint("stack")(tensors, self.dim)


class OneHotExt(AttrPrimitive):
    """`OneHotExt(axis=-1)(tensor, num_classes, on_value, off_value)`: the one-hot encoding of the indices."""
    _params = (("axis", -1),)

    def __call__(self, tensor, num_classes, on_value, off_value):
        return F.one_hot(tensor, num_classes, on_value, off_value, self.axis)


class GroupedMatmul(AttrPrimitive):
    """`GroupedMatmul(split_item=0, group_type=-1, transpose_a=False, transpose_b=False)(x, weight, bias=None, ...,
    group_list=None)`: a matrix product per group.

    group_type -1: `x` and `weight` are lists of equal length and the i-th output is x[i] @ weight[i] (+ bias[i]).
    group_type 0: `x` holds one (M, K) matrix whose rows are split into groups by `group_list` (the running ends of
    the groups, as MindSpore's kernel takes them), `weight` one (E, K, N) tensor; group e's rows are multiplied by
    weight[e]. With split_item 2 or 3 the result is one tensor (rows in x's order), else a list per group.
    Quantised (scale, offset) and anti-quantised weights are MindSpore's Ascend-only forms: a ValueError here.
    """
    _params = (("split_item", 0), ("group_type", -1), ("transpose_a", False), ("transpose_b", False))

    def __call__(self, x, weight, bias=None, scale=None, offset=None, antiquant_scale=None, antiquant_offset=None,
                 group_list=None):
        if any(t is not None for t in (scale, offset, antiquant_scale, antiquant_offset)):
            raise ValueError("For 'GroupedMatmul', quantised inputs (scale, offset, antiquant_scale, "
                             "antiquant_offset) need Ascend's kernel; pass float weights.")
        xs, ws = list(x), list(weight)
        bs = list(bias) if bias is not None else None
        if self.group_type == -1:
            if len(xs) != len(ws):
                raise ValueError(f"For 'GroupedMatmul', with group_type -1 'x' and 'weight' must hold as many "
                                 f"tensors, but got {len(xs)} and {len(ws)}.")
            outs = [self._mm(a, w, None if bs is None else bs[i]) for i, (a, w) in enumerate(zip(xs, ws))]
        elif self.group_type == 0:
            if len(xs) != 1 or len(ws) != 1 or group_list is None:
                raise ValueError("For 'GroupedMatmul', group_type 0 takes one 'x', one 'weight' of shape (E, K, N) "
                                 "and a 'group_list'.")
            w = ws[0]
            n_ends = len(group_list) if not isinstance(group_list, Tensor) else group_list.shape[0]
            if n_ends != w.shape[0]:
                raise ValueError(f"For 'GroupedMatmul', 'group_list' must hold one end per expert ({w.shape[0]}), "
                                 f"but got {n_ends}.")
            if isinstance(group_list, Tensor) and _state.tracing is not None and self.split_item in (2, 3):
                return [self._rows_by_group(xs[0], w, group_list, None if bs is None else bs[0])]
            ends = [int(e) for e in (group_list.asnumpy() if isinstance(group_list, Tensor) else group_list)]
            starts = [0] + ends[:-1]
            outs = [self._mm(xs[0][s:e], w[i], None if bs is None else bs[0][i])
                    for i, (s, e) in enumerate(zip(starts, ends))]
            if self.split_item in (2, 3) and ends[-1] < xs[0].shape[0]:     # rows past the last group: zeros
                outs.append(F.zeros((xs[0].shape[0] - ends[-1], outs[0].shape[-1]), outs[0].dtype))
        else:
            raise ValueError(f"For 'GroupedMatmul', 'group_type' must be -1 or 0 here, but got {self.group_type}.")
        return [F.cat(outs, 0)] if self.split_item in (2, 3) else outs

    def _rows_by_group(self, x, w, ends, b):
        """The one-tensor group_type 0 product without reading `ends` (a compiled graph's shapes cannot depend on
        its values): every row times every group's weight, each row keeping its own group's product (rows past the
        last end: zeros). E times the arithmetic of the split form, which eager calls use."""
        m, e = x.shape[0], w.shape[0]
        row = F.reshape(F.arange(m), (m, 1))
        group = F.reduce_sum(F.cast(F.greater_equal(row, F.reshape(F.cast(ends, mstype.int64), (1, e))),
                                    mstype.int32), 1)                                   # the group of each row
        mine = F.cast(F.equal(F.reshape(group, (1, m)), F.reshape(F.arange(e, dtype=mstype.int32), (e, 1))),
                      x.dtype)                                                          # [E, M]
        full = self._mm(F.expand_dims(x, 0), w, None if b is None else F.expand_dims(b, 1))   # [E, M, N]
        return F.reduce_sum(full * F.expand_dims(mine, 2), 0)

    def _mm(self, a, w, b):
        a = F.swapaxes(a, -1, -2) if self.transpose_a else a
        w = F.swapaxes(w, -1, -2) if self.transpose_b else w
        out = F.matmul(a, w)
        return out if b is None else out + b


class GroupedMatmulV4(AttrPrimitive):
    """`GroupedMatmulV4()(x, weight, bias=None, scale=None, offset=None, antiquant_scale=None, antiquant_offset=None,
    pre_token_scale=None, group_list=None, activation_input=None, activation_quant_scale=None,
    activation_quant_offset=None, split_item=0, group_type=-1, group_list_type=0, act_type=0, output_dtype=None)`:
    `GroupedMatmul` with its options given at the call. `group_list_type` 0: `group_list` holds the running ends of
    the groups' rows, 1: the number of rows of each group. The quantised forms and the fused activation (act_type)
    are Ascend's: a ValueError here."""

    def __call__(self, x, weight, bias=None, scale=None, offset=None, antiquant_scale=None, antiquant_offset=None,
                 pre_token_scale=None, group_list=None, activation_input=None, activation_quant_scale=None,
                 activation_quant_offset=None, split_item=0, group_type=-1, group_list_type=0, act_type=0,
                 output_dtype=None):
        quantised = (scale, offset, antiquant_scale, antiquant_offset, pre_token_scale, activation_input,
                     activation_quant_scale, activation_quant_offset)
        if any(t is not None for t in quantised) or act_type != 0:
            raise ValueError("For 'GroupedMatmulV4', the quantised inputs and the fused activation (act_type) need "
                             "Ascend's kernel; pass float weights and apply the activation after.")
        if group_list_type not in (0, 1):
            raise ValueError(f"For 'GroupedMatmulV4', 'group_list_type' must be 0 (running ends) or 1 (counts), but "
                             f"got {group_list_type}.")
        if group_list is not None and group_list_type == 1:
            group_list = F.cumsum(group_list, 0) if isinstance(group_list, Tensor) else \
                [sum(group_list[:i + 1]) for i in range(len(group_list))]
        outs = GroupedMatmul(split_item, group_type)(x, weight, bias, None, None, None, None, group_list)
        return outs if output_dtype is None else [F.cast(o, output_dtype) for o in outs]


def _moe_finalize_routing(expanded_x, x1, x2=None, bias=None, scales=None, expanded_row_idx=None,
                          expanded_expert_idx=None):
    """out[i] = x1[i] + x2[i] + sum_k scales[i, k] * (expanded_x[expanded_row_idx[i + k * N]] + bias[expert[i, k]])
    for N tokens routed to K experts each (MindSpore's MoeFinalizeRouting)."""
    n = x1.shape[0]
    k = scales.shape[1] if scales is not None else expanded_x.shape[0] // n
    rows = F.reshape(F.gather(expanded_x, expanded_row_idx, 0), (k, n, -1))             # [K, N, H]
    if bias is not None:
        rows = rows + F.gather(bias, F.transpose(expanded_expert_idx, (1, 0)), 0)       # expert of (token, k)
    weights = F.transpose(scales, (1, 0))[..., None] if scales is not None else 1.0
    out = x1 + F.reduce_sum(rows * weights, 0)
    return out if x2 is None else out + x2


MoeFinalizeRouting = simple_primitive("MoeFinalizeRouting", _moe_finalize_routing, _moe_finalize_routing.__doc__)


def _fused_add_topk_div(x, add_num, group_num, group_topk, n, k, activate_type=0, is_norm=True, scale=2.5,
                        mapping_num=None, mapping_table=None, enable_expert_mapping=False):
    """Grouped top-k expert routing (DeepSeek-V3's): scores = sigmoid(x); the experts (columns) fall in `group_num`
    groups, each scored by the sum of its `n` largest `scores + add_num`; in the `group_topk` best groups the `k`
    largest `scores + add_num` are chosen. Returns (their scores, normalised to sum 1 and times `scale` when
    `is_norm`, float32 [tokens, k]; their expert indices, int32 [tokens, k])."""
    if enable_expert_mapping or mapping_num is not None or mapping_table is not None:
        raise ValueError("For 'FusedAddTopKDiv', the logical-expert mapping (enable_expert_mapping, mapping_num, "
                         "mapping_table) is not supported here: route to physical experts.")
    if activate_type != 0:
        raise ValueError(f"For 'FusedAddTopKDiv', 'activate_type' must be 0 (sigmoid), but got {activate_type}.")
    tokens, experts = x.shape
    if experts % group_num:
        raise ValueError(f"For 'FusedAddTopKDiv', the {experts} experts must divide into 'group_num' {group_num} "
                         f"groups.")
    scores = F.sigmoid(F.cast(x, mstype.float32))
    choice = scores + F.cast(add_num, mstype.float32)
    grouped = F.reshape(choice, (tokens, group_num, experts // group_num))
    group_scores = F.reduce_sum(F.topk(grouped, n)[0], -1)                               # [tokens, groups]
    kept = F.topk(group_scores, group_topk)[1]
    group_mask = F.reduce_sum(F.one_hot(kept, group_num, 1.0, 0.0), 1)                   # 1 for a kept group
    expert_mask = F.reshape(F.broadcast_to(group_mask[..., None], grouped.shape), (tokens, experts))
    masked = F.where(expert_mask > 0, choice, F.fill(mstype.float32, choice.shape, float("-inf")))
    indices = F.topk(masked, k)[1]
    weights = F.gather_elements(scores, 1, indices)
    if is_norm:
        weights = weights / F.sum(weights, -1, True) * scale
    return weights, F.cast(indices, mstype.int32)


FusedAddTopKDiv = simple_primitive("FusedAddTopKDiv", _fused_add_topk_div, _fused_add_topk_div.__doc__)


class FlashAttentionScore(AttrPrimitive):
    """`FlashAttentionScore(head_num, keep_prob=1.0, scale_value=1.0, pre_tokens, next_tokens, inner_precise=0,
    input_layout='BSH', sparse_mode=0)(query, key, value, real_shift, drop_mask, padding_mask, attn_mask, prefix,
    actual_seq_qlen, actual_seq_kvlen)` -> (softmax_max, softmax_sum, softmax_out, attention_out).

    attention_out is `ops.flash_attention_score` (softmax(scale * (real_shift + q k^T)) with `attn_mask` 1 excluded,
    times v); softmax_max and softmax_sum are the row maximum of the scores and the sum of exp(score - max), shape
    (B, N, S1, 8) float32 (the kernel's layout, the value repeated 8 times; (T1, N, 8) with the packed layouts
    'TND' / 'TH'); softmax_out is a zero of shape (1,) in the query's dtype, as MindSpore returns when it keeps no
    probabilities."""
    _params = (("head_num", REQUIRED), ("keep_prob", 1.0), ("scale_value", 1.0), ("pre_tokens", 2147483647),
               ("next_tokens", 2147483647), ("inner_precise", 0), ("input_layout", "BSH"), ("sparse_mode", 0))

    def __call__(self, query, key, value, real_shift=None, drop_mask=None, padding_mask=None, attn_mask=None,
                 prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None):
        _attention.check_fa_args(self.input_layout, self.sparse_mode, self.keep_prob, drop_mask, prefix,
                                 actual_seq_qlen, actual_seq_kvlen)
        if self.input_layout in _attention._VARLEN:
            out, scores = _attention.attend_varlen(query, key, value, self.head_num, self.input_layout,
                                                   self.scale_value, attn_mask, real_shift, self.sparse_mode,
                                                   actual_seq_qlen, actual_seq_kvlen)
            # per token: (T1, N, 1) from each sequence's (1, N, S1, 1)
            stats = [F.concat([F.transpose(t[0], (1, 0, 2)) for t in per_seq], 0)
                     for per_seq in zip(*map(_softmax_stats, scores))]
            stats = tuple(F.tile(t, (1, 1, 8)) for t in stats)
        else:
            out, scores = _attention.attend(query, key, value, self.head_num, self.input_layout, self.scale_value,
                                            attn_mask, real_shift, self.sparse_mode)
            stats = tuple(F.tile(t, (1, 1, 1, 8)) for t in _softmax_stats(scores))
        return stats + (F.zeros((1,), query.dtype), out)


def _softmax_stats(scores):
    """The row maximum of the scores and the sum of exp(score - max), float32, keeping the last axis."""
    scores = F.cast(scores, mstype.float32)
    row_max = F.amax(scores, -1, True)
    finite_max = F.where(F.isinf(row_max), F.zeros_like(row_max), row_max)
    return row_max, F.sum(F.exp(scores - finite_max), -1, True)


def _to_int8(y):
    return F.cast(F.clamp(F.round(y), -128.0, 127.0), mstype.int8)


def _quant_v2(x, scale, offset, sqrt_mode=False, rounding_mode="ROUND", dst_type=mstype.int8):
    """round(scale * x + offset) (scale applied twice with `sqrt_mode`), saturated to int8; `scale` and `offset` hold
    one value per channel of the last axis, or one value (shape (1,)) for the whole tensor. An int8 `offset` is
    Ascend's internal per-channel kernel, whose `scale` is the quantisation step: round(x / scale + offset) (the form
    Golden Stick's and mindformers' A8W8 layers store; a float offset goes to aclnn, which multiplies)."""
    if rounding_mode.upper() != "ROUND" or dst_type != mstype.int8:
        raise ValueError(f"For 'QuantV2', only rounding_mode 'ROUND' and dst_type int8 are supported, but got "
                         f"{rounding_mode!r} and {dst_type}.")
    for name, t in (("scale", scale), ("offset", offset)):
        # one value for the whole tensor (shape (1,), per-tensor quantisation) or one per last-axis channel
        if t.shape[-1:] not in ((1,), x.shape[-1:]):
            raise ValueError(f"For 'QuantV2', the last dimension of '{name}' must be 1 or that of x ({x.shape[-1]}), "
                             f"but got shape {t.shape}.")
    if offset.dtype == mstype.int8:
        # an int8 offset selects Ascend's internal per-channel kernel, whose scale is the quantisation step:
        # x / scale + offset (Golden Stick inverts the scale for the aclnn kernel, which multiplies, and not for it)
        y = F.cast(x, mstype.float32) / F.cast(scale * scale if sqrt_mode else scale, mstype.float32)
    else:
        y = x * scale * scale if sqrt_mode else x * scale
    return _to_int8(F.cast(y + offset, mstype.float32))


def _dynamic_quant(x, smooth_scales=None):
    """Symmetric int8 quantisation per row (token): x (times `smooth_scales`) divided by max|x| / 127 of its row.
    Returns (int8 values, the float32 scale of each row)."""
    x = F.cast(x if smooth_scales is None else x * smooth_scales, mstype.float32)
    scale = F.amax(F.abs(x), -1) / 127.0
    safe = F.where(scale > 0, scale, F.ones_like(scale))
    return _to_int8(x / safe[..., None]), scale


QuantV2 = simple_primitive("QuantV2", _quant_v2, _quant_v2.__doc__)
DynamicQuantExt = simple_primitive("DynamicQuantExt", _dynamic_quant, _dynamic_quant.__doc__)


def _float32_bits(scale):
    """The float32 values whose bit patterns are the low 32 bits of the int64 `scale` (the packed dequantisation
    scale of Ascend's quantized matmul), as float64; decoded arithmetically (exact in float64)."""
    bits = F.cast(scale, mstype.float64) % 4294967296.0
    sign = F.floor(bits / 2147483648.0)
    exponent = F.floor(bits / 8388608.0) % 256.0
    mantissa = bits % 8388608.0
    normal = (1.0 + mantissa / 8388608.0) * F.pow(2.0, exponent - 127.0)
    value = F.where(exponent == 0.0, mantissa / 8388608.0 * 2.0 ** -126, normal)
    value = F.where(exponent == 255.0, F.where(mantissa == 0.0, F.full_like(value, float("inf")),
                                               F.full_like(value, float("nan"))), value)
    return F.where(sign == 1.0, -value, value)


class QuantBatchMatmul(AttrPrimitive):
    """`QuantBatchMatmul(transpose_x1=False, transpose_x2=False, dtype=float16)(x1, x2, scale, offset=None,
    bias=None, pertokenScaleOptional=None)`: the int8 product x1 @ x2 accumulated exactly (int32), plus `bias`,
    times `scale` (per output column) and the per-token scale, then `offset`, in `dtype`. An int64 `scale` is
    Ascend's packed form: each value is the float32 whose bits are its low 32 bits."""
    _params = (("transpose_x1", False), ("transpose_x2", False), ("dtype", mstype.float16))

    def __call__(self, x1, x2, scale, offset=None, bias=None, pertokenScaleOptional=None):  # noqa: N803
        a = F.swapaxes(x1, -1, -2) if self.transpose_x1 else x1
        b = F.swapaxes(x2, -1, -2) if self.transpose_x2 else x2
        acc = F.cast(F.matmul(F.cast(a, mstype.float64), F.cast(b, mstype.float64)), mstype.float64)
        if bias is not None:
            acc = acc + F.cast(bias, mstype.float64)
        scale = _float32_bits(scale) if scale.dtype in (mstype.int64, mstype.uint64) else scale
        out = acc * F.cast(scale, mstype.float64)
        if pertokenScaleOptional is not None:
            out = out * F.cast(pertokenScaleOptional, mstype.float64)[..., None]
        if offset is not None:
            out = out + F.cast(offset, mstype.float64)
        return F.cast(out, self.dtype)


class WeightQuantBatchMatmul(AttrPrimitive):
    """`WeightQuantBatchMatmul(transpose_x=False, transpose_weight=False, antiquant_group_size=0)(x, weight,
    antiquant_scale, antiquant_offset=None, quant_scale=None, quant_offset=None, bias=None)`: x @ ((weight +
    antiquant_offset) * antiquant_scale) + bias in x's dtype, the int8 weight dequantized per tensor, per output
    channel (a vector of the output size, whichever way the weight is laid out) or per group of
    `antiquant_group_size` rows of the reduced dimension; with `quant_scale` the result is quantized to int8,
    round(y * quant_scale + quant_offset). A qint4x2 weight holds two 4-bit values per element (low bits first) along
    its last axis, which its logical shape doubles."""
    _params = (("transpose_x", False), ("transpose_weight", False), ("antiquant_group_size", 0))

    def _per_weight(self, t, weight):
        """The scale/offset `t` laid out to broadcast against the weight."""
        n_axis = 0 if self.transpose_weight else weight.ndim - 1
        k_axis = weight.ndim - 1 if self.transpose_weight else weight.ndim - 2
        group = self.antiquant_group_size
        if group:
            if t.shape[k_axis] * group < weight.shape[k_axis]:
                raise ValueError(f"For 'WeightQuantBatchMatmul', {t.shape[k_axis]} groups of "
                                 f"{group} do not cover the {weight.shape[k_axis]} rows of the weight.")
            t = F.repeat_interleave(t, group, k_axis)
            return F.narrow(t, k_axis, 0, weight.shape[k_axis])
        if t.ndim == 1 and t.shape[0] == weight.shape[n_axis] and self.transpose_weight:
            return F.reshape(t, (-1, 1))
        return t

    def __call__(self, x, weight, antiquant_scale, antiquant_offset=None, quant_scale=None, quant_offset=None,
                 bias=None):
        if weight.dtype == mstype.qint4x2:
            weight = Tensor._from_raw(B.unpack_int4(weight._data))
        w = F.cast(weight, x.dtype)
        if antiquant_offset is not None:
            w = w + F.cast(self._per_weight(antiquant_offset, weight), x.dtype)
        w = w * F.cast(self._per_weight(antiquant_scale, weight), x.dtype)
        a = F.swapaxes(x, -1, -2) if self.transpose_x else x
        b = F.swapaxes(w, -1, -2) if self.transpose_weight else w
        out = F.matmul(a, b)
        if bias is not None:
            out = out + F.cast(bias, out.dtype)
        if quant_scale is None:
            return out
        y = F.cast(out, mstype.float32) * F.cast(quant_scale, mstype.float32)
        if quant_offset is not None:
            y = y + F.cast(quant_offset, mstype.float32)
        return _to_int8(y)
