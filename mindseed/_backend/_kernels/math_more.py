"""Kernels of MindSpore's remaining math primitives: the regularized incomplete beta function (Betainc), the matrix
logarithm, ragged ranges and edit distance."""
import torch

from mindseed._backend._core import torch_dtype

_TINY = 1e-30


def _betacf(a, b, x, iters=300):
    """The continued fraction of I_x(a, b) (modified Lentz), valid where x < (a + 1) / (a + b + 2)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = torch.ones_like(x)
    d = 1.0 - qab * x / qap
    d = torch.where(d.abs() < _TINY, torch.full_like(d, _TINY), d)
    d = 1.0 / d
    h = d.clone()
    for m in range(1, iters + 1):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = torch.where(d.abs() < _TINY, torch.full_like(d, _TINY), d)
            c = 1.0 + aa / c
            c = torch.where(c.abs() < _TINY, torch.full_like(c, _TINY), c)
            d = 1.0 / d
            delta = d * c
            h = h * delta
        if bool(((delta - 1.0).abs() < 1e-15).all()):
            break
    return h


def betainc(a, b, x):
    """I_x(a, b), computed in float64; NaN outside a, b > 0, 0 <= x <= 1."""
    dtype = a.dtype
    a, b, x = (t.to(torch.float64) for t in torch.broadcast_tensors(a, b, x))
    log_front = torch.lgamma(a + b) - torch.lgamma(a) - torch.lgamma(b) + a * torch.log(x) + b * torch.log1p(-x)
    flip = x > (a + 1.0) / (a + b + 2.0)
    aa, bb, xx = torch.where(flip, b, a), torch.where(flip, a, b), torch.where(flip, 1.0 - x, x)
    cf = _betacf(aa, bb, xx)
    part = torch.exp(log_front) * cf / aa
    out = torch.where(flip, 1.0 - part, part)
    out = torch.where(x <= 0, torch.zeros_like(out), torch.where(x >= 1, torch.ones_like(out), out))
    out = torch.where((a <= 0) | (b <= 0) | (x < 0) | (x > 1) | a.isnan() | b.isnan() | x.isnan(),
                      torch.full_like(out, float("nan")), out)
    return out.to(dtype)


def betainc_dx(a, b, x):
    """d I_x(a, b) / dx = x^(a-1) (1-x)^(b-1) / B(a, b)."""
    return torch.exp((a - 1) * torch.log(x) + (b - 1) * torch.log1p(-x) + torch.lgamma(a + b) - torch.lgamma(a)
                     - torch.lgamma(b))


def matrix_logarithm(x):
    """The principal logarithm of each square matrix (complex), by its eigendecomposition."""
    vals, vecs = torch.linalg.eig(x)
    return (vecs @ torch.diag_embed(torch.log(vals)) @ torch.linalg.inv(vecs)).to(x.dtype)


def ragged_range(starts, limits, deltas, splits_dtype):
    """(row splits, values) of the ragged tensor whose row i is range(starts[i], limits[i], deltas[i])."""
    s, lim, d = (t.reshape(-1) for t in torch.broadcast_tensors(starts, limits, deltas))
    if bool((d == 0).any()):
        raise ValueError("requires input delta != 0")
    if s.dtype.is_floating_point:
        sizes = torch.ceil((lim - s) / d).clamp(min=0).to(torch.int64)
    else:
        sizes = torch.where(d > 0, (lim - s + d - 1).div(d, rounding_mode="floor"),
                            (s - lim - d - 1).div(-d, rounding_mode="floor")).clamp(min=0).to(torch.int64)
    splits = torch.zeros(sizes.numel() + 1, dtype=torch.int64, device=s.device)
    splits[1:] = torch.cumsum(sizes, 0)
    row = torch.repeat_interleave(torch.arange(sizes.numel(), device=s.device), sizes)
    step = torch.arange(int(splits[-1]), device=s.device) - splits[:-1][row]
    values = s[row] + step.to(s.dtype) * d[row]
    return splits.to(torch_dtype(splits_dtype)), values


def _levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, ai in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, bj in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ai != bj))
        prev = cur
    return prev[-1]


def edit_distance(h_indices, h_values, h_shape, t_indices, t_values, t_shape, normalize):
    """Levenshtein distance between the sequences of two sparse tensors, per position of their leading dims (the
    last dim indexes the sequence); normalized by the truth's length (inf for an empty truth, 0 when both are
    empty)."""
    h_shape, t_shape = [int(v) for v in h_shape.tolist()], [int(v) for v in t_shape.tolist()]
    out_shape = [max(p, q) for p, q in zip(h_shape[:-1], t_shape[:-1])]

    def groups(indices, values):
        seqs = {}
        for idx, v in sorted(zip(map(tuple, indices.tolist()), values.tolist())):
            seqs.setdefault(idx[:-1], []).append(v)
        return seqs

    hyp, truth = groups(h_indices, h_values), groups(t_indices, t_values)
    out = torch.zeros(out_shape, dtype=torch.float32)
    for pos in set(hyp) | set(truth):
        a, b = hyp.get(pos, []), truth.get(pos, [])
        dist = float(_levenshtein(a, b))
        if normalize:
            dist = dist / len(b) if b else (float("inf") if a else 0.0)
        out[pos] = dist
    return out
