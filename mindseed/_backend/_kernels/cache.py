"""Kernels of MindSpore's embedding-cache primitives (PadAndShift, SubAndFilter, UpdateCache) and of the
float16-variable AdamWeightDecay (FusedCastAdamWeightDecay)."""
import math

import torch

from mindseed._backend._kernels import optim as D


def _int(x, what):
    if isinstance(x, torch.Tensor):
        if x.numel() != 1:
            raise ValueError(f"'{what}' must be a scalar, but got a tensor of shape {tuple(x.shape)}")
        return int(x.item())
    return int(x)


def pad_and_shift(x, cum_sum_arr, shift_idx):
    """out = [-1] * cum_sum_arr[-1]; out[start:end] = x[:end - start], start/end = cum_sum_arr[shift_idx (+1)]."""
    cum = cum_sum_arr.reshape(-1)
    idx = _int(shift_idx, "shift_idx")
    if not 0 <= idx < cum.numel() - 1:
        raise ValueError(f"'shift_idx' must be in [0, {cum.numel() - 1}) (the length of 'cum_sum_arr' minus 1), "
                         f"but got {idx}")
    total, start, end = int(cum[-1]), int(cum[idx]), int(cum[idx + 1])
    if not 0 <= start <= end <= total or end - start > x.numel():
        raise ValueError(f"the slice [{start}, {end}) of 'cum_sum_arr' must lie in [0, {total}] and hold at most "
                         f"{x.numel()} elements of 'input_x'")
    out = torch.full((total,), -1, dtype=x.dtype, device=x.device)
    out[start:end] = x.reshape(-1)[:end - start]
    return out


def sub_and_filter(x, max_num, offset):
    """(x - offset) where it lies in [0, max_num), and the positions of those elements (x's dtype)."""
    sub = x.reshape(-1) - _int(offset, "offset")
    keep = (sub >= 0) & (sub < _int(max_num, "max_num"))
    return sub[keep], torch.nonzero(keep).reshape(-1).to(x.dtype)


def update_cache_(x, indices, updates, max_num):
    """Rows of `x` (viewed flat in rows of `updates.shape[1]` elements, MindSpore's CPU kernel's view) set from
    `updates`: row `indices[i]` gets the i-th row of `updates`; an index outside [0, max_num) (or past the end of
    x) is skipped."""
    width = updates.shape[1] if updates.dim() > 1 else 1
    idx = indices.reshape(-1).long()
    if x.numel() % width or updates.numel() < idx.numel() * width:
        raise ValueError(f"'updates' of shape {tuple(updates.shape)} must hold one row of {width} elements per index "
                         f"({idx.numel()} indices), and rows of {width} must tile 'input_x' of shape "
                         f"{tuple(x.shape)}")
    flat = x.view(-1, width)
    rows = updates.reshape(-1)[:idx.numel() * width].reshape(idx.numel(), width)
    keep = (idx >= 0) & (idx < min(_int(max_num, "max_num"), flat.shape[0]))
    flat.index_copy_(0, idx[keep], rows[keep].to(x.dtype))


def fused_cast_adam_weight_decay_(var, m, v, grad, lr, beta1, beta2, eps, decay, global_norm):
    """AdamWeightDecay computed in the moments' dtype on a variable of any float dtype (float16 here is cast up
    and back), the gradient divided by `global_norm` first (when positive)."""
    g = grad.to(m.dtype)
    if global_norm > 0:
        g = g / global_norm
    w = var.to(m.dtype)
    D.adam_weight_decay_([w], [g], [m], [v], lr, beta1, beta2, eps, max(decay, 0.0))
    var.copy_(w)


_GOLDEN_RATIO = 0.6180339    # MindSpore's embedding-cache hash (cache_embedding_hashmap_struct.h)


def _hash(key, length):
    return int((_GOLDEN_RATIO * key - math.floor(_GOLDEN_RATIO * key)) * length)


def _compress(rows, entry):
    """Move the entries after the freed `entry` of a linear-probing run back towards their home slots."""
    length = len(rows)
    i, off = (entry + 1) % length, 1
    while rows[i][3] != 0:
        if rows[i][3] > off:
            rows[entry][:3] = rows[i][:3]
            rows[entry][3] = rows[i][3] - off
            rows[i][3] = 0
            off, entry = 0, i
        i, off = (i + 1) % length, off + 1


def map_cache_idx_(hashmap, indices, step, emb_max_num, offset):
    """MindSpore's MapCacheIdx CPU kernel: look the ids `indices - offset` up in the cache's open-addressing
    `hashmap` (rows [key, value, step, tag], tag 0 = empty); each miss takes the slot of an entry not used in the
    last two steps. Updates `hashmap` and `step` (+1) in place; returns (cache_idx, old_emb_idx, miss_emb_idx,
    swap_cache_idx)."""
    rows = hashmap.tolist()
    length = len(rows)
    ids = indices.reshape(-1).tolist()
    now = int(step.reshape(-1)[0])
    emb_max, off = _int(emb_max_num, "emb_max_num"), _int(offset, "offset")
    cache_idx, miss_pos, miss = [], [], []
    for pos, raw in enumerate(ids):
        key = raw - off
        if key >= emb_max or key < 0:
            cache_idx.append(-1)
            continue
        entry, count = _hash(key, length), 1
        while rows[entry][3] != 0 and rows[entry][0] != key:
            entry = (entry + 1) % length
            if count > length:
                raise ValueError("For 'MapCacheIdx', hashmap is full, search cache idx failed, please set a larger "
                                   "vocab_cache_size!")
            count += 1
        if rows[entry][3] == 0:
            miss_pos.append(pos)
            miss.append(key)
            cache_idx.append(-1)
        else:
            cache_idx.append(rows[entry][1])
            rows[entry][2] = now
    old, swap = [], []
    for key in miss:
        entry, tag = _hash(key, length), 1
        while rows[entry][3] != 0:
            entry = (entry + 1) % length
            if tag > length:
                raise ValueError("For 'MapCacheIdx', hashmap is full, insert new key failed, please set a larger "
                                   "vocab_cache_size!")
            tag += 1
        rows[entry][0], rows[entry][2], rows[entry][3] = key, now, tag
        victim, count = (entry + 1) % length, 1
        while rows[victim][3] == 0 or rows[victim][2] >= now - 1:
            victim = (victim + 1) % length
            if count > length:
                raise ValueError("For 'MapCacheIdx', hashmap is full, delete old key failed, please set a larger "
                                   "vocab_cache_size!")
            count += 1
        swap.append(rows[victim][1])
        old.append(rows[victim][0])
        rows[entry][1] = rows[victim][1]
        rows[victim][3] = 0
        _compress(rows, victim)
    for pos, slot in zip(miss_pos, swap):
        cache_idx[pos] = slot
    hashmap.copy_(torch.tensor(rows, dtype=hashmap.dtype))
    step.view(-1)[0] += 1

    def out(values):
        return torch.tensor(values, dtype=hashmap.dtype, device=hashmap.device)
    return out(cache_idx).reshape(indices.shape), out(old), out(miss), out(swap)
