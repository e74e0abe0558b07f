"""Kernels of MindSpore's CTCLoss (TensorFlow's convention: blank = last class, labels as a sparse tensor; the loss and
its gradient with respect to the logits in one pass) and STFT."""
import torch

_NEG = -float("inf")


def _logsumexp(*terms):
    stacked = torch.stack(terms)
    top = stacked.max(0).values
    safe = torch.where(torch.isinf(top), torch.zeros_like(top), top)
    return safe + torch.log(torch.exp(stacked - safe).sum(0))


def _labels(labels_indices, labels_values, batch):
    seqs = [[] for _ in range(batch)]
    for (b, _), v in sorted(zip(map(tuple, labels_indices.tolist()), labels_values.tolist())):
        seqs[b].append(v)
    return seqs


def _one(logp, label, t_len, blank, merge_repeated):
    """Loss and d loss / d logits of one sequence: logp (T, C) log-softmax; alpha-beta in log space."""
    T, C = logp.shape
    ext = [blank]
    for v in label:
        ext += [v, blank]
    S = len(ext)
    ext_t = torch.tensor(ext, dtype=torch.long)
    skip = torch.zeros(S, dtype=torch.bool)
    for s in range(2, S):
        skip[s] = ext[s] != blank and (not merge_repeated or ext[s] != ext[s - 2])
    # without merging, a label lasts one frame (a repeat in the output is a repeat in the labels): no self-loop
    stay = torch.tensor([merge_repeated or v == blank for v in ext])
    lp = logp[:t_len, ext_t]                                   # (t_len, S)
    alpha = torch.full((t_len, S), _NEG, dtype=logp.dtype)
    alpha[0, 0] = lp[0, 0]
    if S > 1:
        alpha[0, 1] = lp[0, 1]
    neg = torch.full((1,), _NEG, dtype=logp.dtype)
    for t in range(1, t_len):
        prev = alpha[t - 1]
        one = torch.cat([neg, prev[:-1]])
        two = torch.where(skip, torch.cat([neg, neg, prev[:-2]]), torch.full_like(prev, _NEG))
        alpha[t] = _logsumexp(torch.where(stay, prev, torch.full_like(prev, _NEG)), one, two) + lp[t]
    beta = torch.full((t_len, S), _NEG, dtype=logp.dtype)
    beta[-1, -1] = lp[-1, -1]
    if S > 1:
        beta[-1, -2] = lp[-1, -2]
    skip_next = torch.cat([skip[2:], torch.zeros(2, dtype=torch.bool)])
    for t in range(t_len - 2, -1, -1):
        nxt = beta[t + 1]
        one = torch.cat([nxt[1:], neg])
        two = torch.where(skip_next, torch.cat([nxt[2:], neg, neg]), torch.full_like(nxt, _NEG))
        beta[t] = _logsumexp(torch.where(stay, nxt, torch.full_like(nxt, _NEG)), one, two) + lp[t]
    log_p = _logsumexp(alpha[-1, -1], alpha[-1, -2]) if S > 1 else alpha[-1, -1]
    ab = alpha + beta - lp                                      # log of sum over paths through (t, s)
    occupancy = torch.full((t_len, C), _NEG, dtype=logp.dtype)
    for s in range(S):
        occupancy[:, ext[s]] = _logsumexp(occupancy[:, ext[s]], ab[:, s])
    grad = torch.zeros((T, C), dtype=logp.dtype)
    grad[:t_len] = torch.exp(logp[:t_len]) - torch.exp(occupancy - log_p)
    return -log_p, grad


def ctc_loss(x, labels_indices, labels_values, sequence_length, preprocess_collapse_repeated, ctc_merge_repeated,
             ignore_longer_outputs_than_inputs):
    """(loss (N,), gradient (T, N, C)) of CTC over logits x (T, N, C), blank = C - 1."""
    T, N, C = x.shape
    logp = torch.log_softmax(x.to(torch.float64), -1)
    lengths = [int(v) for v in sequence_length.reshape(-1).tolist()]
    loss = torch.zeros(N, dtype=torch.float64)
    grad = torch.zeros((T, N, C), dtype=torch.float64)
    for b, label in enumerate(_labels(labels_indices, labels_values, N)):
        if preprocess_collapse_repeated:
            label = [v for i, v in enumerate(label) if i == 0 or v != label[i - 1]]
        if any(v < 0 or v >= C - 1 for v in label):
            raise ValueError(f"labels must be in [0, {C - 1}) (class {C - 1} is the blank), but got {label}")
        if not 0 < lengths[b] <= T:
            raise ValueError(f"sequence_length[{b}] must be in (0, {T}], but got {lengths[b]}")
        need = len(label) + sum(1 for i in range(1, len(label)) if label[i] == label[i - 1] and ctc_merge_repeated)
        if need > lengths[b]:
            if ignore_longer_outputs_than_inputs:
                continue
            raise ValueError(f"the labels of batch {b} need {need} time steps, but sequence_length is {lengths[b]}")
        loss[b], grad[:, b] = _one(logp[:, b], label, lengths[b], C - 1, ctc_merge_repeated)
    return loss.to(x.dtype), grad.to(x.dtype)


def stft(x, window, n_fft, hop_length, win_length, normalized, onesided, return_complex):
    """torch.stft without centering (MindSpore's STFT), the window zero-padded to n_fft in the middle."""
    real_out = not x.is_complex() and onesided
    out = torch.stft(x, n_fft, hop_length=hop_length, win_length=win_length, window=window, center=False,
                     normalized=normalized, onesided=real_out, return_complex=True)
    return out if return_complex else torch.view_as_real(out)


def rnnt_loss(acts, labels, input_lengths, label_lengths, blank_label):
    """(costs (B,), d cost / d acts (B, T, U, V)) of the RNN transducer loss over logits acts (log-softmax inside)."""
    logp = torch.log_softmax(acts.to(torch.float64), -1)
    costs = torch.zeros(acts.shape[0], dtype=torch.float64)
    grads = torch.zeros(logp.shape, dtype=torch.float64)
    for b in range(acts.shape[0]):
        t_len, u_len = int(input_lengths[b]), int(label_lengths[b]) + 1
        if not 0 < t_len <= acts.shape[1] or not 0 < u_len <= acts.shape[2]:
            raise ValueError(f"input_lengths[{b}] = {t_len} and label_lengths[{b}] = {u_len - 1} must fit acts of "
                             f"shape {tuple(acts.shape)}")
        lp = logp[b, :t_len, :u_len]
        ys = labels[b, :u_len - 1].long()
        blank = lp[:, :, blank_label]                                         # (T, U)
        emit = lp[:, :-1].gather(-1, ys.reshape(1, -1, 1).expand(t_len, -1, 1)).squeeze(-1)   # (T, U-1)
        alpha = torch.full((t_len, u_len), _NEG, dtype=torch.float64)
        beta = torch.full((t_len, u_len), _NEG, dtype=torch.float64)
        for t in range(t_len):
            for u in range(u_len):
                if t == 0 and u == 0:
                    alpha[t, u] = 0.0
                    continue
                terms = []
                if t > 0:
                    terms.append(alpha[t - 1, u] + blank[t - 1, u])
                if u > 0:
                    terms.append(alpha[t, u - 1] + emit[t, u - 1])
                alpha[t, u] = _logsumexp(*terms)
        for t in range(t_len - 1, -1, -1):
            for u in range(u_len - 1, -1, -1):
                if t == t_len - 1 and u == u_len - 1:
                    beta[t, u] = blank[t, u]
                    continue
                terms = []
                if t < t_len - 1:
                    terms.append(beta[t + 1, u] + blank[t, u])
                if u < u_len - 1:
                    terms.append(beta[t, u + 1] + emit[t, u])
                beta[t, u] = _logsumexp(*terms)
        ll = beta[0, 0]
        costs[b] = -ll
        # d(-ll)/d logp, then through log_softmax: g_acts = softmax * sum(g_logp) - g_logp, sum(g_logp) = -occupancy
        g = torch.zeros((t_len, u_len, acts.shape[3]), dtype=torch.float64)
        nxt = torch.cat([beta[1:], torch.full((1, u_len), _NEG, dtype=torch.float64)])
        g[:, :, blank_label] = -torch.exp(alpha + blank + nxt - ll)
        g[-1, -1, blank_label] = -torch.exp(alpha[-1, -1] + blank[-1, -1] - ll)
        g_emit = -torch.exp(alpha[:, :-1] + emit + beta[:, 1:] - ll)
        g[:, :-1].scatter_add_(-1, ys.reshape(1, -1, 1).expand(t_len, -1, 1), g_emit.unsqueeze(-1))
        grads[b, :t_len, :u_len] = torch.exp(lp) * (-g.sum(-1, keepdim=True)) + g
    return costs.to(acts.dtype), grads.to(acts.dtype)
