"""Functional names of MindSpore's graph machinery and inference kernels, with their eager meaning: in-place
gradient stops (`stop_gradient_`), shape reductions and broadcasts of the AD rules
(`array_reduce`, `distribute`), symbolic keys of gradient environments (`embed`, `ref_to_embed`), tensor
conditions (`is_tensor_bool_cond`), virtual implementations (`get_vm_impl_fn`, `vm_impl_registry`), the primitive
argument decorator (`prim_arg_register`), and the MoE / ring-attention / fused-attention composites
(`moe_token_permute`, `moe_token_unpermute`, `moe_init_routing_v2`,
`ring_attention_update`, `speed_fusion_attention`)."""
import functools
import inspect

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.functional import _core

__all__ = ["stop_gradient_", "array_reduce", "distribute", "embed", "ref_to_embed", "is_tensor_bool_cond",
           "get_vm_impl_fn", "vm_impl_registry", "prim_arg_register", "moe_token_permute", "moe_token_unpermute",
           "moe_init_routing_v2",
           "ring_attention_update", "speed_fusion_attention"]


def _tensor(api, name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{api}', the '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


# ---------------------------------------------------------------- autodiff machinery
def stop_gradient_(input):  # noqa: A002 -- MindSpore's argument name
    """Stop the gradient at `input` in place: later uses of it (and what was computed from it after this call)
    contribute no gradient to what `input` was computed from.

    >>> import mindseed as ms
    >>> def f(x):
    ...     y = x * 3
    ...     ms.ops.stop_gradient_(y)
    ...     return x * 2 + y
    >>> ms.grad(f)(ms.Tensor(1.0))
    Tensor(shape=[], dtype=Float32, value= 2)
    """
    _tensor("stop_gradient_", "input", input)
    _core.update_in_place(input, F.stop_gradient)


def _reduce_axes(api, shape, target):
    target = tuple(target)
    lead = len(shape) - len(target)
    if lead < 0 or any(t not in (1, s) for s, t in zip(shape[lead:], target)):
        raise ValueError(f"For '{api}', the shape {tuple(shape)} can not be reduced to {target}.")
    return tuple(range(lead)) + tuple(lead + i for i, (s, t) in enumerate(zip(shape[lead:], target))
                                      if t == 1 and s != 1)


def array_reduce(fn, x, shp):
    """Reduce `x` to shape `shp` with the binary function `fn` (e.g. `F.scalar_add`: a sum), folding the
    leading dims `shp` lacks and the dims where `shp` has 1: the gradient of `distribute`.

    Raises:
        TypeError: `fn` is not callable or `x` is not a Tensor.
        ValueError: `x`'s shape cannot be reduced to `shp`.
    """
    if not callable(fn):
        raise TypeError(f"For 'array_reduce', 'fn' must be a callable binary function, but got {type(fn).__name__}.")
    _tensor("array_reduce", "x", x)
    axes = _reduce_axes("array_reduce", x.shape, shp)
    out = x
    for axis in sorted(axes, reverse=True):
        parts = F.unbind(out, axis) if out.shape[axis] else ()
        if not parts:
            raise ValueError("For 'array_reduce', an empty dim has no value to reduce.")
        out = functools.reduce(fn, parts)
    return F.reshape(out, tuple(shp))


def distribute(x, shp):
    """`x` broadcast to shape `shp` (the forward of `array_reduce`)."""
    _tensor("distribute", "x", x)
    if not isinstance(shp, (tuple, list)):
        raise TypeError(f"For 'distribute', the 'shp' must be a tuple or list of ints, but got {type(shp).__name__}.")
    return F.broadcast_to(x, tuple(shp))


class SymbolicKey:
    """The key of a value in a gradient environment (`environ_get`/`environ_set`): equal for the same Parameter (or
    object)."""

    __slots__ = ("target",)

    def __init__(self, target):
        self.target = target

    def __eq__(self, other):
        return isinstance(other, SymbolicKey) and other.target is self.target

    def __hash__(self):
        return id(self.target)

    def __repr__(self):
        name = getattr(self.target, "name", None)
        return f"SymbolicKey({name or type(self.target).__name__})"


def embed(x):
    """The symbolic key of `x` (the same key for the same object)."""
    return SymbolicKey(x)


def ref_to_embed(variable):
    """The symbolic key of a Parameter (`RefToEmbed`): its gradient's key in an environment.

    Raises:
        TypeError: `variable` not a Parameter.
    """
    if not isinstance(variable, Parameter):
        raise TypeError(f"For 'RefToEmbed', the 'variable' must be a Parameter, but got {type(variable).__name__}.")
    return SymbolicKey(variable)


def is_tensor_bool_cond(x):
    """Whether `x` can be the condition of an `if`: a Tensor of one element (True); a Tensor of more raises as
    MindSpore does.

    Raises:
        ValueError: a Tensor of more than one element.
    """
    if not isinstance(x, Tensor):
        return False
    if x.size != 1:
        raise ValueError(f"The truth value of an array with more than one element is ambiguous: only a Tensor of one "
                         f"element (shape () or (1,)) can be a condition, but got shape {x.shape}.")
    return True


# ---------------------------------------------------------------- virtual implementations
class _Registry(dict):
    """Name -> fn(prim) returning the primitive's implementation on numpy arrays (MindSpore's vm_impl_registry)."""

    def register(self, prim):
        name = prim if isinstance(prim, str) else prim.__name__ if isinstance(prim, type) else prim.name

        def deco(fn):
            self[name] = fn
            return fn
        return deco

    def get(self, prim, default=None):
        name = prim if isinstance(prim, str) else getattr(prim, "name", None)
        return super().get(name, default)


vm_impl_registry = _Registry()


def get_vm_impl_fn(prim):
    """The virtual implementation of a primitive (object or name): the function registered in `vm_impl_registry`
    for it, called with `prim`; for a Primitive object without one, a function running it on numpy arrays (numpy
    in, numpy out). None for an unknown name.

    >>> from mindseed.ops import vm_impl_registry, get_vm_impl_fn
    >>> @vm_impl_registry.register("Type")
    ... def vm_impl_dtype(self):
    ...     return lambda x: type(x)
    >>> get_vm_impl_fn("Type")(1.0)
    <class 'float'>
    """
    registered = vm_impl_registry.get(prim)
    if registered is not None:
        return registered(prim)
    if isinstance(prim, str) or not callable(prim):
        return None

    def run(*args):
        out = prim(*[Tensor(a) if isinstance(a, np.ndarray) else a for a in args])
        if isinstance(out, (tuple, list)):
            return type(out)(o.asnumpy() if isinstance(o, Tensor) else o for o in out)
        return out.asnumpy() if isinstance(out, Tensor) else out
    return run


def prim_arg_register(fn):
    """Decorator of a Primitive subclass's `__init__`: initializes the Primitive under its class name (or its
    `substitute_name`) and records every `__init__` argument (defaults included) as an attribute, then runs
    `__init__`."""
    from mindseed.ops.operations._base import Primitive  # noqa: PLC0415 -- operations imports functional

    @functools.wraps(fn)
    def deco(self, *args, **kwargs):
        Primitive.__init__(self, getattr(type(self), "substitute_name", type(self).__name__))
        bound = inspect.signature(fn).bind(self, *args, **kwargs)
        bound.apply_defaults()
        for k, v in list(bound.arguments.items())[1:]:
            self.add_prim_attr(k, v)
        fn(self, *args, **kwargs)
    return deco


# ---------------------------------------------------------------- MoE token routing
def moe_token_permute(tokens, indices, num_out_tokens=None, padded_mode=False):
    """Group the tokens by expert: each (token, k) pair is placed by the order of its expert index (stable), so
    `permuted_tokens[j] = tokens[argsort(indices.flatten())[j] // topk]`; `sorted_indices[i]` is the row of flat
    pair i in the output (int32). `num_out_tokens` keeps only that many rows (the tokens not dropped).

    Raises:
        TypeError: non-Tensor inputs, `indices` not int32/int64, `num_out_tokens` not int, `padded_mode` not bool.
        ValueError: `tokens` not 2-D, `indices` not 1-D/2-D, topk > 512, or `padded_mode` True.
    """
    api = "moe_token_permute"
    _tensor(api, "tokens", tokens)
    _tensor(api, "indices", indices)
    if indices.dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For '{api}', the dtype of 'indices' must be int32 or int64, but got {indices.dtype}.")
    if num_out_tokens is not None and (not isinstance(num_out_tokens, int) or isinstance(num_out_tokens, bool)):
        raise TypeError(f"For '{api}', the 'num_out_tokens' must be an int, but got {type(num_out_tokens).__name__}.")
    if not isinstance(padded_mode, bool):
        raise TypeError(f"For '{api}', the 'padded_mode' must be a bool, but got {type(padded_mode).__name__}.")
    if padded_mode:
        raise ValueError(f"For '{api}', the 'padded_mode' can only be False.")
    if tokens.ndim != 2 or indices.ndim not in (1, 2):
        raise ValueError(f"For '{api}', 'tokens' must be 2-D and 'indices' 1-D or 2-D, but got shapes {tokens.shape} "
                         f"and {indices.shape}.")
    topk = 1 if indices.ndim == 1 else indices.shape[1]
    if topk > 512:
        raise ValueError(f"For '{api}', the second dim of 'indices' must be <= 512, but got {topk}.")
    if indices.shape[0] != tokens.shape[0]:
        raise RuntimeError(f"For '{api}', the first dims of 'tokens' {tokens.shape} and 'indices' {indices.shape} "
                           f"must be equal.")
    flat = indices.asnumpy().reshape(-1)
    order = np.argsort(flat, kind="stable")
    n_out = flat.size if num_out_tokens is None else min(max(num_out_tokens, 0), flat.size)
    permuted = F.gather(tokens, Tensor(order[:n_out] // topk), 0)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    return permuted, Tensor(inverse.astype(np.int32))


def moe_token_unpermute(permuted_tokens, sorted_indices, probs=None, padded_mode=False, restore_shape=None):
    """Undo `moe_token_permute`: row i of the flat (token, k) pairs is `permuted_tokens[sorted_indices[i]]` (zero
    for a dropped row); with `probs` (num_tokens, topk) the k rows of a token are summed weighted by them.

    Raises:
        TypeError: non-Tensor inputs.
        ValueError: `padded_mode` True, or `sorted_indices` not matching `probs`.
    """
    api = "moe_token_unpermute"
    _tensor(api, "permuted_tokens", permuted_tokens)
    _tensor(api, "sorted_indices", sorted_indices)
    if padded_mode:
        raise ValueError(f"For '{api}', only 'padded_mode' False is supported.")
    if permuted_tokens.ndim != 2:
        raise ValueError(f"For '{api}', the 'permuted_tokens' must be 2-D (rows, hidden), but got shape "
                         f"{permuted_tokens.shape}.")
    n_pairs = sorted_indices.size
    topk = 1 if probs is None else probs.shape[-1]
    if probs is not None and probs.size != n_pairs:
        raise ValueError(f"For '{api}', 'probs' {probs.shape} must have one weight per entry of 'sorted_indices' "
                         f"({n_pairs}).")
    rows = permuted_tokens.shape[0]
    idx = sorted_indices.asnumpy().reshape(-1).astype(np.int64)
    kept = idx < rows
    gathered = F.gather(permuted_tokens, Tensor(np.where(kept, idx, 0)), 0)
    if not kept.all():
        gathered = gathered * Tensor(kept.astype(np.float32)[:, None]).astype(gathered.dtype)
    if probs is None:
        return gathered
    out = F.reshape(gathered, (n_pairs // topk, topk, -1)) * F.expand_dims(probs.astype(gathered.dtype), -1)
    return out.sum(1)


def _int_arg(api, name, value, low=0):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"For '{api}', the '{name}' must be an int, but got {type(value).__name__}.")
    if value < low:
        raise ValueError(f"For '{api}', the '{name}' must be >= {low}, but got {value}.")
    return value


def moe_init_routing_v2_op(x, expert_idx, active_num, expert_capacity, expert_num, drop_pad_mode,
                           expert_tokens_count_or_cumsum_flag, expert_tokens_before_capacity_flag):
    """The four outputs of MindSpore's `MoeInitRoutingV2` (see `moe_init_routing_v2`); an output that was not asked
    for is zeros."""
    api = "moe_init_routing_v2"
    _tensor(api, "x", x)
    _tensor(api, "expert_idx", expert_idx)
    for name, v in (("active_num", active_num), ("expert_capacity", expert_capacity), ("expert_num", expert_num)):
        _int_arg(api, name, v)
    if drop_pad_mode not in (0, 1) or isinstance(drop_pad_mode, bool):
        raise ValueError(f"For '{api}', the 'drop_pad_mode' must be 0 or 1, but got {drop_pad_mode!r}.")
    if expert_tokens_count_or_cumsum_flag not in (0, 1, 2) or isinstance(expert_tokens_count_or_cumsum_flag, bool):
        raise ValueError(f"For '{api}', the 'expert_tokens_count_or_cumsum_flag' must be 0, 1 or 2, but got "
                         f"{expert_tokens_count_or_cumsum_flag!r}.")
    if x.ndim != 2 or expert_idx.ndim != 2 or x.shape[0] != expert_idx.shape[0]:
        raise ValueError(f"For '{api}', 'x' must be (NUM_ROWS, H) and 'expert_idx' (NUM_ROWS, K), but got shapes "
                         f"{x.shape} and {expert_idx.shape}.")
    if expert_idx.dtype != mstype.int32:
        raise TypeError(f"For '{api}', the dtype of 'expert_idx' must be int32, but got {expert_idx.dtype}.")
    rows, topk = expert_idx.shape
    flat = expert_idx.asnumpy().reshape(-1).astype(np.int64)
    if (drop_pad_mode == 1 or expert_tokens_count_or_cumsum_flag) and (
            expert_num <= 0 or flat.size and (flat.min() < 0 or flat.max() >= expert_num)):
        raise ValueError(f"For '{api}', every 'expert_idx' must be in [0, expert_num) with 'expert_num' > 0 here, "
                         f"but got expert_num {expert_num} and indices in [{flat.min()}, {flat.max()}].")
    if flat.size and flat.min() < 0:
        raise ValueError(f"For '{api}', every 'expert_idx' must be >= 0, but got {flat.min()}.")
    order = np.argsort(flat, kind="stable")              # the (token, k) pairs grouped by expert, in token order
    counts = np.bincount(flat, minlength=max(expert_num, 1))[:expert_num] if expert_num else np.zeros(0, np.int64)
    row_idx = np.empty(flat.size, np.int64)
    if drop_pad_mode == 0:
        row_idx[order] = np.arange(flat.size)
        n_out = flat.size if active_num == 0 else min(active_num, flat.size)
        expanded = F.gather(x, Tensor((order[:n_out] // topk).astype(np.int32)), 0)
    else:
        if not 0 < expert_capacity <= rows:
            raise ValueError(f"For '{api}', in the Drop/Pad mode 'expert_capacity' must be in (0, NUM_ROWS = {rows}], "
                             f"but got {expert_capacity}.")
        rank = np.arange(flat.size) - np.concatenate([[0], np.cumsum(counts)[:-1]])[flat[order]]  # place in expert
        kept = rank < expert_capacity
        slots = flat[order] * expert_capacity + rank
        row_idx[order] = np.where(kept, slots, -1)
        source = np.full(expert_num * expert_capacity, -1, np.int64)
        source[slots[kept]] = order[kept] // topk
        expanded = F.gather(x, Tensor(np.maximum(source, 0).astype(np.int32)), 0)
        expanded = expanded * Tensor((source >= 0).astype(np.float32)[:, None]).astype(x.dtype)
        expanded = F.reshape(expanded, (expert_num, expert_capacity, x.shape[1]))
    tokens = {1: np.cumsum(counts), 2: counts}.get(expert_tokens_count_or_cumsum_flag, np.zeros_like(counts))
    before = counts if drop_pad_mode == 1 and expert_tokens_before_capacity_flag else np.zeros_like(counts)
    return (expanded, Tensor(row_idx.astype(np.int32)), Tensor(np.asarray(tokens, np.int32)),
            Tensor(np.asarray(before, np.int32)))


def moe_init_routing_v2(x, expert_idx, active_num, expert_capacity, expert_num, drop_pad_mode,
                        expert_tokens_count_or_cumsum_flag, expert_tokens_before_capacity_flag):
    """Route tokens to their experts (MindSpore's MoeInitRoutingV2): the (token, k) pairs of `expert_idx`
    (NUM_ROWS, K) are grouped by expert, in token order within an expert.

    * `drop_pad_mode` 0: `expanded_x` (NUM_ROWS*K, H) holds the token of each pair in that order (only the first
      `active_num` rows when `active_num` > 0); `expanded_row_idx[i]` is the row of flat pair i.
    * `drop_pad_mode` 1: `expanded_x` (expert_num, expert_capacity, H): each expert keeps its first
      `expert_capacity` pairs, the rest is zeros; `expanded_row_idx[i]` is `expert * expert_capacity + place`, or
      -1 for a dropped pair.

    Returns (expanded_x, expanded_row_idx), plus the tokens per expert (cumulative with flag 1, counts with flag 2)
    in mode 0 when `expert_tokens_count_or_cumsum_flag` is set, or the counts before dropping in mode 1 when
    `expert_tokens_before_capacity_flag` is set (int32, (expert_num,)).

    Raises:
        TypeError: non-Tensor inputs, `expert_idx` not int32, non-int sizes.
        ValueError: shapes, negative sizes, flags out of range, an expert index out of [0, expert_num) where the
            counts or the Drop/Pad mode need it, a capacity outside (0, NUM_ROWS] in the Drop/Pad mode.
    """
    expanded_x, expanded_row_idx, tokens, before = moe_init_routing_v2_op(
        x, expert_idx, active_num, expert_capacity, expert_num, drop_pad_mode, expert_tokens_count_or_cumsum_flag,
        expert_tokens_before_capacity_flag)
    if drop_pad_mode == 1 and expert_tokens_before_capacity_flag:
        return expanded_x, expanded_row_idx, before
    if drop_pad_mode == 0 and expert_tokens_count_or_cumsum_flag != 0:
        return expanded_x, expanded_row_idx, tokens
    return expanded_x, expanded_row_idx


# ---------------------------------------------------------------- attention composites
def ring_attention_update(prev_attn_out, prev_softmax_max, prev_softmax_sum, cur_attn_out, cur_softmax_max,
                          cur_softmax_sum, actual_seq_qlen=None, layout="SBH"):
    """Merge two partial attention results over disjoint key blocks (ring attention): with m = max(m1, m2),
    s = s1 exp(m1 - m) + s2 exp(m2 - m) and out = (out1 s1 exp(m1 - m) + out2 s2 exp(m2 - m)) / s. Returns
    (attn_out, softmax_max, softmax_sum); softmax tensors carry 8 equal copies in their last dim.

    Raises:
        ValueError: a layout other than 'SBH' / 'TND', or 'TND' without `actual_seq_qlen`.
    """
    api = "ring_attention_update"
    for name, t in (("prev_attn_out", prev_attn_out), ("prev_softmax_max", prev_softmax_max),
                    ("prev_softmax_sum", prev_softmax_sum), ("cur_attn_out", cur_attn_out),
                    ("cur_softmax_max", cur_softmax_max), ("cur_softmax_sum", cur_softmax_sum)):
        _tensor(api, name, t)
    if layout not in ("SBH", "TND"):
        raise ValueError(f"For '{api}', the 'layout' must be 'SBH' or 'TND', but got {layout!r}.")
    if layout == "TND" and actual_seq_qlen is None:
        raise ValueError(f"For '{api}', 'actual_seq_qlen' is required when 'layout' is 'TND'.")
    # SBH: attention outputs (S, B, H), softmax statistics (B, N, S, 8); TND: (T, N, D) and (T, N, 8)
    ranks = (3, 4) if layout == "SBH" else (3, 3)
    for name, t, rank in (("prev_attn_out", prev_attn_out, ranks[0]), ("cur_attn_out", cur_attn_out, ranks[0]),
                          ("prev_softmax_max", prev_softmax_max, ranks[1]),
                          ("prev_softmax_sum", prev_softmax_sum, ranks[1]),
                          ("cur_softmax_max", cur_softmax_max, ranks[1]),
                          ("cur_softmax_sum", cur_softmax_sum, ranks[1])):
        if t.ndim != rank:
            raise ValueError(f"For '{api}', with layout '{layout}' the '{name}' must be {rank}-D, but got shape "
                             f"{t.shape}.")
    m = F.maximum(prev_softmax_max, cur_softmax_max)
    w1 = prev_softmax_sum * F.exp(prev_softmax_max - m)
    w2 = cur_softmax_sum * F.exp(cur_softmax_max - m)
    s = w1 + w2
    a1, a2 = (w1 / s)[..., 0], (w2 / s)[..., 0]     # SBH: (B, N, S); TND: (T, N)
    if layout == "SBH":
        seq, batch, hidden = prev_attn_out.shape
        heads = a1.shape[1]

        def per(t):
            return F.reshape(F.transpose(t, (2, 0, 1)), (seq, batch, heads, 1))
        shape4 = (seq, batch, heads, hidden // heads)
        out = F.reshape(prev_attn_out, shape4) * per(a1).astype(prev_attn_out.dtype) + \
            F.reshape(cur_attn_out, shape4) * per(a2).astype(cur_attn_out.dtype)
        out = F.reshape(out, prev_attn_out.shape)
    else:
        out = prev_attn_out * F.expand_dims(a1, -1).astype(prev_attn_out.dtype) + \
            cur_attn_out * F.expand_dims(a2, -1).astype(cur_attn_out.dtype)
    return out, m, s


_LAYOUTS = ("BSH", "SBH", "BSND", "BNSD", "TND")


def _to_bnsd(x, layout, heads):
    if layout == "BNSD":
        return x
    if layout == "BSND":
        return F.transpose(x, (0, 2, 1, 3))
    if layout == "SBH":
        x = F.transpose(x, (1, 0, 2))
    b, s, h = x.shape
    return F.transpose(F.reshape(x, (b, s, heads, h // heads)), (0, 2, 1, 3))


def _from_bnsd(x, layout):
    if layout == "BNSD":
        return x
    if layout == "BSND":
        return F.transpose(x, (0, 2, 1, 3))
    b, n, s, d = x.shape
    x = F.reshape(F.transpose(x, (0, 2, 1, 3)), (b, s, n * d))
    return F.transpose(x, (1, 0, 2)) if layout == "SBH" else x


def speed_fusion_attention(query, key, value, head_num, input_layout, *, pse=None, padding_mask=None,
                           atten_mask=None, scale=1.0, keep_prob=1.0, pre_tokens=2147483647,
                           next_tokens=2147483647, inner_precise=0, prefix=None, actual_seq_qlen=None,
                           actual_seq_kvlen=None, sparse_mode=0, gen_mask_parallel=True, sync=False, pse_type=1,
                           q_start_idx=None, kv_start_idx=None):
    """Fused attention softmax(q k^T * scale + pse, masked) v in `input_layout` ('BSH', 'SBH', 'BSND', 'BNSD'),
    with grouped key/value heads. Returns (attention_out, softmax_max, softmax_sum, softmax_out, seed, offset,
    numels): the row max and the row sum of exp(scores - max) as (B, N, S, 8), an empty softmax_out, and zero
    dropout seed/offset/numels (no dropout is drawn at keep_prob 1).

    Raises:
        TypeError: non-Tensor q/k/v.
        ValueError: an unknown layout, head_num not dividing the hidden size, keep_prob other than 1, or
            variable-length ('TND') inputs.
    """
    api = "speed_fusion_attention"
    for name, t in (("query", query), ("key", key), ("value", value)):
        _tensor(api, name, t)
    if input_layout not in _LAYOUTS:
        raise ValueError(f"For '{api}', the 'input_layout' must be one of {_LAYOUTS}, but got {input_layout!r}.")
    if input_layout == "TND" or actual_seq_qlen is not None or actual_seq_kvlen is not None:
        raise ValueError(f"For '{api}', variable-length sequences (layout 'TND', actual_seq_qlen/kvlen) are given "
                         f"here as padded batches with 'atten_mask': pass a 'BSND' batch.")
    if keep_prob != 1.0:
        raise ValueError(f"For '{api}', attention dropout (keep_prob={keep_prob}) is applied by ops.dropout on "
                         f"the result here; keep_prob must be 1.0.")
    q = _to_bnsd(query, input_layout, head_num)
    kv_heads = {"BNSD": key.shape[1], "BSND": key.shape[2]}.get(input_layout, key.shape[-1] // q.shape[-1])
    k, v = _to_bnsd(key, input_layout, kv_heads), _to_bnsd(value, input_layout, kv_heads)
    if head_num % k.shape[1]:
        raise ValueError(f"For '{api}', the 'head_num' {head_num} must be a multiple of the key/value heads "
                         f"{k.shape[1]}.")
    if k.shape[1] != head_num:
        k = F.repeat_interleave(k, head_num // k.shape[1], 1)
        v = F.repeat_interleave(v, head_num // v.shape[1], 1)
    scores = F.matmul(q, F.swapaxes(k, -1, -2)) * scale
    if pse is not None:
        scores = scores + pse.astype(scores.dtype)
    if sparse_mode in (2, 3) and atten_mask is None:
        s_q, s_k = scores.shape[-2:]
        atten_mask = Tensor(np.triu(np.ones((s_q, s_k), bool), 1))
    if atten_mask is not None:
        scores = F.masked_fill(scores, atten_mask.astype(mstype.bool_), float("-inf"))
    row_max = scores.max(-1, keepdims=True)
    e = F.exp(scores - row_max)
    row_sum = e.sum(-1, keepdims=True)
    out = _from_bnsd(F.matmul(e / row_sum, v), input_layout)
    eight = (1,) * 3 + (8,)
    zero = Tensor(np.zeros([], np.int64))
    return (out, F.tile(row_max.astype(mstype.float32), eight), F.tile(row_sum.astype(mstype.float32), eight),
            Tensor(np.zeros([0], np.float32)).astype(query.dtype), zero, zero, zero)
