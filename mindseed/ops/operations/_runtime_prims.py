"""Primitive classes of MindSpore's runtime and inference kernels, with their CPU meaning: the overflow status
register (NPUAllocFloatStatus / NPUClearFloatStatus / NPUGetFloatStatus), dataflow switch and merge (GeSwitch,
Merge), state and graph markers (UpdateState, Reusing), Python execution (PyExecute), views and gradient dumps
(SelectView, DumpGradient), embedding-cache index maps (MapUniform), and the paged-KV-cache inference kernels
(ReshapeAndCache, KVCacheScatterUpdate, PagedAttention, PagedAttentionMask, ApplyRotaryPosEmb, GroupTopk). Every
tensor computation is a composite of differentiable ops."""
import math

import numpy as np

from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.functional._core import update_in_place
from mindseed.ops.functional._deform import deformable_offsets
from mindseed.ops.operations._table import REQUIRED, primitive_class

__all__ = []


def _tensor(api, name, x, dtypes=None):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{api}', the '{name}' must be a Tensor, but got {type(x).__name__}.")
    if dtypes is not None and x.dtype not in dtypes:
        raise TypeError(f"For '{api}', the dtype of '{name}' must be one of {[str(d) for d in dtypes]}, but got "
                        f"{x.dtype}.")
    return x


def _int(api, name, v, low=None):
    if isinstance(v, Tensor) and v.size == 1 and mstype.is_integral(v.dtype):
        v = int(v.item())
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"For '{api}', the '{name}' must be an int, but got {type(v).__name__}.")
    if low is not None and v < low:
        raise ValueError(f"For '{api}', the '{name}' must be >= {low}, but got {v}.")
    return v


# ---------------------------------------------------------------- the overflow status register
class _OverflowWatch:
    """The float status register of the CPU: armed by NPUClearFloatStatus, it sees every primitive's outputs (and
    every compiled graph's outputs) until NPUGetFloatStatus reads it, and notes any inf or NaN among them. It sits
    on the dispatcher's hook stack (`_state.profiling`, the profiler's protocol), so nothing is paid when unarmed."""

    def __init__(self):
        self.overflow = 0

    def _see(self, out):
        for o in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(o, Tensor) and mstype.is_float(o.dtype) and not bool(F.isfinite(o).all()):
                self.overflow = 1
                return

    def run_op(self, prim, args, attrs):
        stack = _state.profiling
        stack.pop()
        try:
            out = prim(*args, **attrs)
            self._see(out)
            return out
        finally:
            stack.append(self)

    def run_cell(self, cell, call):
        return call()

    def kernel(self, op_type, name, t0, t1):
        return None

    def run_graph(self, name, call):
        out = call()
        stack = _state.profiling
        stack.remove(self)
        try:
            self._see(out)
        finally:
            stack.append(self)
        return out


_WATCH = _OverflowWatch()


def _alloc_status():
    return F.zeros((8,), mstype.float32)


def _clear_status(x):
    _tensor("NPUClearFloatStatus", "x", x, (mstype.float16, mstype.float32))
    _WATCH.overflow = 0
    if _WATCH not in _state.profiling:
        _state.profiling.append(_WATCH)
    return F.zeros_like(x)


def _get_status(x):
    _tensor("NPUGetFloatStatus", "x", x, (mstype.float16, mstype.float32))
    if _WATCH in _state.profiling:
        _state.profiling.remove(_WATCH)
    status = np.zeros(x.shape, mstype.dtype_to_nptype(x.dtype))
    status.reshape(-1)[0] = _WATCH.overflow
    out = Tensor(status)
    x.assign_value(out)
    return out


# ---------------------------------------------------------------- dataflow switch / merge
def _geswitch(data, pred):
    if not isinstance(data, (Tensor, int, float)) or isinstance(data, bool):
        raise TypeError(f"For 'GeSwitch', the 'data' must be a Tensor or a number, but got {type(data).__name__}.")
    _tensor("GeSwitch", "pred", pred, (mstype.bool_,))
    if pred.ndim > 1 or pred.size != 1:
        raise ValueError(f"For 'GeSwitch', the 'pred' must be a scalar (rank 0 or 1, one element), but got shape "
                         f"{pred.shape}.")
    return (None, data) if bool(pred.asnumpy().reshape(-1)[0]) else (data, None)


def _merge(inputs):
    if not isinstance(inputs, (tuple, list)):
        raise TypeError(f"For 'Merge', the 'inputs' must be a tuple or list, but got {type(inputs).__name__}.")
    live = [i for i, v in enumerate(inputs) if v is not None]
    if len(live) != 1:
        raise ValueError(f"For 'Merge', exactly one input must carry data (the branch GeSwitch took), but {len(live)} "
                         f"of {len(inputs)} do.")
    return inputs[live[0]], Tensor(np.array([live[0]], np.int32))


# ---------------------------------------------------------------- markers and Python
def _update_state(*args):
    if not args:
        raise TypeError("For 'UpdateState', at least the state input is required.")
    return args[0]


def _load(variable, u=None):
    """The value of a Parameter at this point of the program (a copy: later assignments do not change it)."""
    if not isinstance(variable, Tensor):
        raise TypeError(f"For 'Load', the 'variable' must be a Parameter or Tensor, but got "
                        f"{type(variable).__name__}.")
    return variable.copy()


def _reusing(x):
    if not callable(x):
        raise TypeError(f"For 'Reusing', the 'input_x' must be a function, but got {type(x).__name__}.")
    x.__dict__.setdefault("_ms_compile_hints", {})["no_inline"] = True     # ms.no_inline's mark
    return x


def _py_execute(script, keys=(), values=()):
    if not isinstance(script, str):
        raise TypeError(f"For 'PyExecute', the 'script' must be a str, but got {type(script).__name__}.")
    if len(keys) != len(values):
        raise ValueError(f"For 'PyExecute', the local names ({len(keys)}) and values ({len(values)}) must pair up.")
    return eval(script, {"np": np, "Tensor": Tensor}, dict(zip(keys, values)))  # noqa: S307 -- PyExecute's job


def _select_view(input_tensor, input_indices, axis):
    _tensor("SelectView", "input_tensor", input_tensor)
    axis = _int("SelectView", "axis", axis)
    index = _int("SelectView", "input_indices", input_indices)
    rank = input_tensor.ndim
    if not -rank <= axis < rank:
        raise ValueError(f"For 'SelectView', the 'axis' must be in [{-rank}, {rank}), but got {axis}.")
    n = input_tensor.shape[axis]
    if not -n <= index < n:
        raise IndexError(f"For 'SelectView', the index {index} is out of range for dim {axis} of size {n}.")
    return F.squeeze(F.narrow(input_tensor, axis, index % n, 1), axis % rank)


def _dump_gradient(path, x, input_output):
    from mindseed.ops.operations import InsertGradientOf  # noqa: PLC0415 -- the package imports this module
    if not isinstance(path, str):
        raise TypeError(f"For 'DumpGradient', the 'path' must be a str, but got {type(path).__name__}.")
    if input_output not in ("in", "out"):
        raise ValueError(f"For 'DumpGradient', the 'input_output' must be 'in' or 'out', but got {input_output!r}.")
    _tensor("DumpGradient", "x", x)

    def dump(dout):
        F.tensordump(path, dout, input_output)
        return dout
    return InsertGradientOf(dump)(x)


def _map_uniform(x, per_group_size, group_num):
    _tensor("MapUniform", "input", x)
    if not mstype.is_integral(x.dtype):
        raise TypeError(f"For 'MapUniform', the dtype of 'input' must be an int type, but got {x.dtype}.")
    per_group_size = _int("MapUniform", "per_group_size", per_group_size, 1)
    group_num = _int("MapUniform", "group_num", group_num, 1)
    return x % group_num * per_group_size + x // group_num


# ---------------------------------------------------------------- paged KV cache inference kernels
def _reshape_and_cache(key, value=None, key_cache=None, value_cache=None, slot_mapping=None):
    """cache.view(-1, *cache.shape[2:])[slot] = token, in place, for key (and value); slot < 0: skipped."""
    _tensor("ReshapeAndCache", "key", key)
    _tensor("ReshapeAndCache", "key_cache", key_cache)
    _tensor("ReshapeAndCache", "slot_mapping", slot_mapping)
    if not mstype.is_integral(slot_mapping.dtype):
        raise TypeError(f"For 'ReshapeAndCache', the 'slot_mapping' must be int32 or int64, but got "
                        f"{slot_mapping.dtype}.")
    slots = slot_mapping.asnumpy().reshape(-1).astype(np.int64)
    keep = np.nonzero(slots >= 0)[0]
    for name, tokens, cache in (("key", key, key_cache), ("value", value, value_cache)):
        if tokens is None:
            continue
        _tensor("ReshapeAndCache", f"{name}_cache", cache)
        per_slot = cache.shape[2:]
        n_slots = cache.shape[0] * cache.shape[1]
        if tokens.size != slots.size * math.prod(per_slot):
            raise ValueError(f"For 'ReshapeAndCache', the '{name}' {tokens.shape} must hold one "
                             f"{tuple(per_slot)} entry per slot of 'slot_mapping' ({slots.size}).")
        if keep.size and slots[keep].max() >= n_slots:
            raise ValueError(f"For 'ReshapeAndCache', a slot of 'slot_mapping' ({slots.max()}) is beyond the "
                             f"{n_slots} slots of '{name}_cache' {cache.shape}.")
        rows = F.reshape(tokens, (slots.size,) + tuple(per_slot))
        flat = F.reshape(cache, (n_slots,) + tuple(per_slot))
        idx = Tensor(slots[keep].reshape(-1, 1))
        new = F.reshape(F.tensor_scatter_update(flat, idx, F.gather(rows, Tensor(keep), 0).astype(cache.dtype)),
                        cache.shape)
        # in place: a compiled graph writes the cache it was given at each call (mindformers' paged caches)
        update_in_place(cache, lambda old, new=new: new)
    return key_cache


def _kv_cache_scatter_update(var, indices, updates, axis, reduce="none"):
    """For each batch row b: var[b, ..., indices[b] : indices[b] + n, ...] = updates[b] along `axis` (-1 or -2; n
    is updates' size there), in place; returns `var`."""
    api = "KVCacheScatterUpdate"
    _tensor(api, "var", var)
    _tensor(api, "indices", indices)
    _tensor(api, "updates", updates)
    axis = _int(api, "axis", axis)
    if axis not in (-1, -2):
        raise ValueError(f"For '{api}', the 'axis' must be -1 or -2, but got {axis}.")
    if reduce not in ("none", "update"):
        raise ValueError(f"For '{api}', the 'reduce' must be 'none' or 'update', but got {reduce!r}.")
    if not mstype.is_integral(indices.dtype) or indices.ndim != 1:
        raise TypeError(f"For '{api}', the 'indices' must be a 1-D int32 or int64 Tensor, but got {indices.ndim}-D "
                        f"{indices.dtype}.")
    ax = var.ndim + axis
    if ax < 1:
        raise ValueError(f"For '{api}', the 'var' must have a batch axis before axis {axis}, but got {var.ndim}-D.")
    if updates.ndim != var.ndim or updates.dtype != var.dtype:
        raise ValueError(f"For '{api}', the 'updates' must have the rank and dtype of 'var' ({var.ndim}-D "
                         f"{var.dtype}), but got {updates.ndim}-D {updates.dtype}.")
    others = [d for d in range(var.ndim) if d not in (0, ax)]
    if [updates.shape[d] for d in others] != [var.shape[d] for d in others] or updates.shape[0] != indices.shape[0] \
            or updates.shape[0] > var.shape[0]:
        raise ValueError(f"For '{api}', the 'updates' {updates.shape} must match 'var' {var.shape} outside axis 0 "
                         f"and {axis}, with one batch row per index ({indices.shape[0]}).")
    n = updates.shape[ax]
    starts = indices.asnumpy().astype(np.int64)
    if starts.size and (starts.min() < 0 or starts.max() + n > var.shape[ax]):
        raise ValueError(f"For '{api}', the 'indices' {starts.tolist()} plus {n} updated positions must lie within "
                         f"the {var.shape[ax]} positions of 'var' along axis {axis}.")
    new = var
    for b, start in enumerate(starts.tolist()):
        # var[b] with positions start .. start + n of its axis replaced by updates[b]
        row = new[b]
        parts = [F.narrow(row, ax - 1, 0, start), updates[b],
                 F.narrow(row, ax - 1, start + n, var.shape[ax] - start - n)]
        row = F.concat(parts, ax - 1)
        new = F.concat([new[:b], F.expand_dims(row, 0), new[b + 1:]], 0)
    update_in_place(var, lambda old, new=new: new)
    return var


def _gather_kv(cache, block_table, length):
    """The first `length` tokens of one sequence from a (num_blocks, block_size, heads, dim) cache."""
    block_size = cache.shape[1]
    blocks = block_table[: -(-length // block_size)]
    kv = F.gather(cache, Tensor(np.asarray(blocks, np.int64)), 0)
    return F.reshape(kv, (-1,) + tuple(cache.shape[2:]))[:length]       # (length, heads, dim)


def _paged_attention(api, query, key_cache, value_cache, block_tables, context_lens, head_num, scale_value,
                     kv_head_num, attn_mask=None, alibi_mask=None, mla_v_dim=0):
    """With `mla_v_dim` (multi-latent attention) the values are the first mla_v_dim channels of the cached keys.
    A mask or bias of one row serves every sequence (the decode placeholder mindformers passes)."""
    for name, t in (("query", query), ("key_cache", key_cache), ("value_cache", value_cache),
                    ("block_tables", block_tables), ("context_lens", context_lens)):
        _tensor(api, name, t)
    if key_cache.ndim != 4:
        raise ValueError(f"For '{api}', the 'key_cache' must be 4-D (num_blocks, block_size, kv_head_num, head_dim), "
                         f"but got shape {key_cache.shape}.")
    head_num = _int(api, "head_num", head_num, 1)
    kv_heads = key_cache.shape[2]
    if kv_head_num and kv_head_num != kv_heads or head_num % kv_heads:
        raise ValueError(f"For '{api}', the 'head_num' {head_num} must be a multiple of the caches' kv heads "
                         f"{kv_heads} (kv_head_num={kv_head_num}).")
    dim = key_cache.shape[3]
    mla_v_dim = _int(api, "mla_v_dim", mla_v_dim, 0)
    if mla_v_dim > dim:
        raise ValueError(f"For '{api}', the 'mla_v_dim' {mla_v_dim} must not exceed the head dim {dim} of the cache.")
    batch = block_tables.shape[0]
    q = F.reshape(query, (batch, -1, head_num, dim))       # (B, S, N, D): BSH or (tokens, N, D)
    tables, lens = block_tables.asnumpy(), context_lens.asnumpy().reshape(-1)
    outs = []
    for b in range(batch):
        length = int(lens[b])
        k = _gather_kv(key_cache, tables[b], length)
        v = k[..., :mla_v_dim] if mla_v_dim else _gather_kv(value_cache, tables[b], length)
        if head_num != kv_heads:
            k = F.repeat_interleave(k, head_num // kv_heads, 1)
            v = F.repeat_interleave(v, head_num // kv_heads, 1)
        qb = F.transpose(q[b], (1, 0, 2))                               # (N, S, D)
        scores = F.matmul(qb, F.transpose(k, (1, 2, 0)).astype(qb.dtype)) * scale_value   # (N, S, L)
        for bias in (attn_mask, alibi_mask):
            if bias is not None:
                row = bias[b if bias.shape[0] > 1 else 0]
                scores = scores + row[..., :length].astype(scores.dtype)
        probs = F.softmax(scores, -1)
        outs.append(F.transpose(F.matmul(probs, F.transpose(v, (1, 0, 2)).astype(probs.dtype)), (1, 0, 2)))
    return F.reshape(F.stack(outs), query.shape[:-1] + (-1,))


def _paged_attention_fn(query, key_cache, value_cache=None, block_tables=None, context_lens=None,
                        antiquant_scale=None, antiquant_offset=None, attn_mask=None, q_seq_lens=None,
                        alibi_mask=None, *, head_num, scale_value, kv_head_num, kv_cache_quant_mode="DEFAULT",
                        mask_mode="MASK_DEFAULT", mla_v_dim=0):
    if antiquant_scale is not None or antiquant_offset is not None:
        raise ValueError("For 'PagedAttention', quantized caches (antiquant_scale/antiquant_offset) take int8 caches "
                         "with their scales: dequantize the caches (cache * scale + offset) and pass them as floats.")
    return _paged_attention("PagedAttention", query, key_cache, value_cache, block_tables, context_lens, head_num,
                            scale_value, kv_head_num, attn_mask=attn_mask, alibi_mask=alibi_mask, mla_v_dim=mla_v_dim)


def _paged_attention_mask_fn(query, key_cache, value_cache, block_tables, context_lens, antiquant_scale=None,
                             antiquant_offset=None, alibi_mask=None, *, head_num, scale_value, kv_head_num,
                             kv_cache_quant_mode="DEFAULT"):
    if antiquant_scale is not None or antiquant_offset is not None:
        raise ValueError("For 'PagedAttentionMask', quantized caches (antiquant_scale/antiquant_offset) take int8 "
                         "caches with their scales: dequantize the caches and pass them as floats.")
    return _paged_attention("PagedAttentionMask", query, key_cache, value_cache, block_tables, context_lens,
                            head_num, scale_value, kv_head_num, alibi_mask=alibi_mask)


def _rotate(x, interleaved):
    if interleaved:
        even, odd = x[..., 0::2], x[..., 1::2]
        return F.reshape(F.stack((-odd, even), -1), x.shape)
    half = x.shape[-1] // 2
    return F.concat((-x[..., half:], x[..., :half]), -1)


def _rope_rows(api, tokens, rows, position_ids):
    """The row of the cos/sin table each of `tokens` tokens takes. `position_ids` holds one position per token, or
    the valid length of each sequence (what mindformers passes): the sequences packed one after another (the lengths
    sum to the tokens) or padded to one length, each token at its place in its sequence."""
    ids = None if position_ids is None else position_ids.asnumpy().reshape(-1).astype(np.int64)
    if ids is not None and ids.size == tokens:
        places = ids
    elif ids is not None and ids.min(initial=0) >= 0 and ids.sum() == tokens:
        places = np.concatenate([np.arange(n) for n in ids])
    elif ids is not None and tokens % ids.size == 0:
        places = np.tile(np.arange(tokens // ids.size), ids.size)
    elif ids is None and tokens % rows == 0:
        places = np.tile(np.arange(rows), tokens // rows)
    else:
        raise ValueError(f"For '{api}', the {tokens} tokens of the query cannot be matched to the rows of 'cos' "
                         f"({rows}) with the 'position_ids' {None if ids is None else ids.tolist()}.")
    if places.size and places.max() >= rows:
        raise ValueError(f"For '{api}', a position {int(places.max())} is beyond the {rows} rows of 'cos'.")
    return Tensor(places)


def _apply_rotary_pos_emb(query, key, cos, sin, position_ids, cos_format=0):
    """(q * cos + rotate(q) * sin, k * cos + rotate(k) * sin) per head; cos_format 0, 2: rotate-half (GPT-NeoX),
    1, 3: interleaved pairs (GPT-J). cos/sin hold a row per token, or are a table whose rows the tokens pick by
    `position_ids` (a position per token, or each sequence's length: see _rope_rows)."""
    for name, t in (("query", query), ("key", key), ("cos", cos), ("sin", sin)):
        _tensor("ApplyRotaryPosEmb", name, t)
    if cos_format not in (0, 1, 2, 3):
        raise ValueError(f"For 'ApplyRotaryPosEmb', the 'cos_format' must be 0, 1, 2 or 3, but got {cos_format}.")
    dim = cos.shape[-1]
    cos2, sin2 = F.reshape(cos, (-1, dim)), F.reshape(sin, (-1, dim))
    tokens = query.size // query.shape[-1] if query.ndim > 1 else 1
    if cos2.shape[0] != tokens:
        idx = _rope_rows("ApplyRotaryPosEmb", tokens, cos2.shape[0], position_ids)
        cos2, sin2 = F.gather(cos2, idx, 0), F.gather(sin2, idx, 0)
    out = []
    for x in (query, key):
        if x.shape[-1] % dim:
            raise ValueError(f"For 'ApplyRotaryPosEmb', the last dim of the input {x.shape} must be a multiple of the "
                             f"head dim {dim} of 'cos'.")
        h = F.reshape(x, (cos2.shape[0], -1, dim))
        c, s = F.expand_dims(cos2, 1).astype(h.dtype), F.expand_dims(sin2, 1).astype(h.dtype)
        out.append(F.reshape(h * c + _rotate(h, cos_format in (1, 3)) * s, x.shape))
    return tuple(out)


def _group_topk(token, idx_arr, group_num, k, k_inner=1):
    """token (tokens, experts) in place: the experts of all but the k best groups (a group's score: the sum of its
    k_inner largest) set to 0."""
    _tensor("GroupTopk", "token", token)
    if token.ndim != 2:
        raise ValueError(f"For 'GroupTopk', the 'token' must be 2-D (tokens, experts), but got shape {token.shape}.")
    group_num = _int("GroupTopk", "group_num", group_num, 1)
    k = _int("GroupTopk", "k", k, 1)
    k_inner = _int("GroupTopk", "k_inner", k_inner, 1)
    n, experts = token.shape
    if experts % group_num or not k <= group_num <= experts or k_inner > experts // group_num:
        raise ValueError(f"For 'GroupTopk', expert_num >= group_num >= k >= 1 with expert_num divisible by group_num "
                         f"and k_inner <= expert_num / group_num are required, but got expert_num={experts}, "
                         f"group_num={group_num}, k={k}, k_inner={k_inner}.")
    groups = F.reshape(token, (n, group_num, experts // group_num))
    score = F.topk(groups, k_inner)[0].sum(-1)                                   # (n, group_num)
    chosen = F.topk(score, k)[1]                                                 # (n, k)
    keep = F.zeros((n, group_num), mstype.float32)
    keep = F.tensor_scatter_elements(keep, chosen, F.ones(chosen.shape, mstype.float32), 1)
    out = F.reshape(groups * F.expand_dims(keep, -1).astype(token.dtype), token.shape)
    token.assign_value(out)
    return token


_ROWS = {
    "NPUAllocFloatStatus": (_alloc_status, (), (), "The overflow status flag: 8 zeros (float32)."),
    "NPUClearFloatStatus": (_clear_status, (), ("x",),
                            "Clear the overflow status register and watch every later op's outputs for inf/NaN; "
                            "returns zeros shaped like `x`."),
    "NPUGetFloatStatus": (_get_status, (), ("x",),
                          "The overflow status since NPUClearFloatStatus, written into `x` and returned: a positive "
                          "sum means some op produced inf or NaN."),
    "GeSwitch": (_geswitch, (), ("data", "pred"),
                 "(false_output, true_output): `data` flows to the branch `pred` selects; the other is None."),
    "Merge": (_merge, (), ("inputs",), "(the one input carrying data, its index as int32)."),
    "UpdateState": (_update_state, (), None, "The state input, ordered after the expression."),
    "Load": (_load, (), ("variable", "u"), "The Parameter's value at this point (ordered by the monad `u`)."),
    "Reusing": (_reusing, (), ("input_x",), "The function, marked to be compiled once and called (no inline)."),
    "PyExecute": (_py_execute, (), None, "PyExecute()(script, keys, values): eval(script) with those local names."),
    "SelectView": (_select_view, (), ("input_tensor", "input_indices", "axis"),
                   "The slice of `input_tensor` at index `input_indices` of `axis` (that axis removed)."),
    "DumpGradient": (_dump_gradient, (), ("path", "x", "input_output"),
                     "Identity on `x`; its gradient is saved to the .npy file `path` in the backward pass."),
    "MapUniform": (_map_uniform, (), ("input", "per_group_size", "group_num"),
                   "input % group_num * per_group_size + input // group_num."),
    "ReshapeAndCache": (_reshape_and_cache, (), None,
                        "ReshapeAndCache()(key, value, key_cache, value_cache, slot_mapping): each token's key and "
                        "value written into the cache slot slot_mapping gives (in place)."),
    "KVCacheScatterUpdate": (_kv_cache_scatter_update, (), None,
                             "KVCacheScatterUpdate()(var, indices, updates, axis, reduce='none'): "
                             "var[b, ..., indices[b] : indices[b] + n, ...] = updates[b] along axis (-1 or -2) for "
                             "each batch row b, in place."),
    "PagedAttention": (_paged_attention_fn, (("head_num", REQUIRED), ("scale_value", REQUIRED),
                                             ("kv_head_num", REQUIRED), ("kv_cache_quant_mode", "DEFAULT"),
                                             ("mask_mode", "MASK_DEFAULT"), ("mla_v_dim", 0)), None,
                       "Attention of each sequence's queries over its first context_lens tokens in the paged caches "
                       "(block_tables: the blocks of each sequence)."),
    "PagedAttentionMask": (_paged_attention_mask_fn, (("head_num", REQUIRED), ("scale_value", REQUIRED),
                                                      ("kv_head_num", REQUIRED), ("kv_cache_quant_mode", "DEFAULT")),
                           None, "PagedAttention with an additive (ALiBi) bias per sequence."),
    "ApplyRotaryPosEmb": (_apply_rotary_pos_emb, (("cos_format", 0),), ("query", "key", "cos", "sin", "position_ids"),
                          "Rotary position embedding of query and key."),
    "DeformableOffsets": (deformable_offsets, (("strides", REQUIRED), ("pads", REQUIRED), ("ksize", REQUIRED),
                                               ("dilations", (1, 1, 1, 1)), ("data_format", "NCHW"),
                                               ("deformable_groups", 1), ("modulated", True)), ("x", "offsets"),
                          "The deformed, mask-scaled patches of x laid out (N, C, H_out * kh, W_out * kw) for a "
                          "convolution with stride = kernel size (deformable_conv2d)."),
    "GroupTopk": (_group_topk, (), None,
                  "GroupTopk()(token, idx_arr, group_num, k, k_inner=1): the experts outside the k best groups set "
                  "to 0 (in place)."),
}

globals().update({_name: primitive_class(_name, _fn, _attrs, _inputs, doc=_doc)
                  for _name, (_fn, _attrs, _inputs, _doc) in _ROWS.items()})

# MindSpore's functional names of the dataflow primitives are instances
geswitch = globals()["GeSwitch"]()
merge = globals()["Merge"]()
__all__ = list(_ROWS) + ["geswitch", "merge"]
