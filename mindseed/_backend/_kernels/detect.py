"""Kernels of MindSpore's detection and decoding primitives: NMSWithMask, CombinedNonMaxSuppression, ResizeArea,
ComputeAccidentalHits, NoRepeatNGram, ExtractGlimpse and the gradients of CropAndResize."""
import math

import torch

from mindseed._backend._core import torch_dtype


def _iou_matrix(a, b):
    """IoU of boxes (x1, y1, x2, y2) / (y1, x1, y2, x2) corners (either order: the formula is symmetric)."""
    lo = torch.maximum(a[:, None, :2], b[None, :, :2])
    hi = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = (hi - lo).clamp(min=0).prod(-1)
    area_a = (a[:, 2:] - a[:, :2]).prod(-1)
    area_b = (b[:, 2:] - b[:, :2]).prod(-1)
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def _greedy_keep(boxes, threshold, limit=None):
    """Greedy NMS over boxes already sorted best first: a box is kept when its IoU with every kept box is at most
    `threshold`. Returns the keep mask."""
    iou = _iou_matrix(boxes, boxes)
    keep = torch.zeros(boxes.shape[0], dtype=torch.bool, device=boxes.device)
    kept = 0
    for i in range(boxes.shape[0]):
        if limit is not None and kept >= limit:
            break
        if not bool((iou[i, :i][keep[:i]] > threshold).any()):
            keep[i] = True
            kept += 1
    return keep


def nms_with_mask(bboxes, iou_threshold):
    """(boxes sorted by score, best first; their positions 0..N-1; the keep mask), MindSpore's CPU outputs."""
    order = torch.argsort(bboxes[:, 4], descending=True, stable=True)
    boxes = bboxes[order]
    keep = _greedy_keep(boxes[:, :4].float(), iou_threshold)
    return boxes, torch.arange(boxes.shape[0], dtype=torch.int32, device=boxes.device), keep


def combined_nms(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold, score_threshold,
                 pad_per_class, clip_boxes):
    """Per image and class greedy NMS (corners normalised to min/max order), then the best `max_total_size` of all
    classes: (boxes, scores, classes, valid_detections)."""
    per_class, total = int(max_output_size_per_class), int(max_total_size)
    iou_t, score_t = float(iou_threshold), float(score_threshold)
    batch, n, q = boxes.shape[:3]
    classes = scores.shape[2]
    size = min(total, per_class * classes) if pad_per_class else total
    out_boxes = torch.zeros(batch, size, 4, dtype=torch.float32)
    out_scores = torch.zeros(batch, size, dtype=torch.float32)
    out_classes = torch.zeros(batch, size, dtype=torch.float32)
    valid = torch.zeros(batch, dtype=torch.int32)
    for img in range(batch):
        found = []
        for c in range(classes):
            b = boxes[img, :, c if q > 1 else 0].float()
            corners = torch.cat([torch.minimum(b[:, :2], b[:, 2:]), torch.maximum(b[:, :2], b[:, 2:])], -1)
            s = scores[img, :, c].float()
            cand = torch.nonzero(s > score_t).reshape(-1)
            cand = cand[torch.argsort(s[cand], descending=True, stable=True)]
            keep = _greedy_keep(corners[cand], iou_t, per_class)
            found += [(float(s[i]), c, i) for i in cand[keep].tolist()]
        found.sort(key=lambda t: -t[0])
        found = found[:size]
        for k, (s, c, i) in enumerate(found):
            box = boxes[img, i, c if q > 1 else 0].float()
            out_boxes[img, k] = box.clamp(0, 1) if clip_boxes else box
            out_scores[img, k], out_classes[img, k] = s, c
        valid[img] = len(found)
    return out_boxes, out_scores, out_classes, valid


def _area_weights(in_size, out_size, align_corners):
    """(out, in) weights of the area resize along one dim (TensorFlow's ResizeArea)."""
    scale = (in_size - 1) / (out_size - 1) if align_corners and out_size > 1 else in_size / out_size
    w = torch.zeros(out_size, in_size, dtype=torch.float64)
    for o in range(out_size):
        lo, hi = o * scale, (o + 1) * scale
        for i in range(int(math.floor(lo)), int(math.ceil(hi))):
            w[o, min(max(i, 0), in_size - 1)] += min(i + 1, hi) - max(i, lo)
    return w / scale


def resize_area(images, size, align_corners):
    """NHWC images resized to `size` (new_height, new_width) by averaging the covered input area (float32)."""
    h, w = (int(v) for v in size.reshape(-1).tolist())
    wy = _area_weights(images.shape[1], h, align_corners)
    wx = _area_weights(images.shape[2], w, align_corners)
    out = torch.einsum("yi,xj,nijc->nyxc", wy, wx, images.to(torch.float64))
    return out.to(torch.float32)


def compute_accidental_hits(true_classes, sampled_candidates, num_true):
    """(row, sampled position, -FLT_MAX) for every (true class of a row, sampled candidate) pair that match, in the
    order row, true class, candidate."""
    if true_classes.shape[1] != num_true:
        raise ValueError(f"the second dim of 'true_classes' must be num_true {num_true}, but got "
                         f"{true_classes.shape[1]}")
    hit = true_classes[:, :, None] == sampled_candidates.reshape(-1)[None, None, :]
    rows, _, ids = torch.nonzero(hit, as_tuple=True)
    weights = torch.full((rows.numel(),), -torch.finfo(torch.float32).max, dtype=torch.float32)
    return rows.to(torch.int32), ids.to(sampled_candidates.dtype), weights


def no_repeat_ngram(state_seq, log_probs, ngram_size):
    """log_probs with -FLT_MAX at every word that would complete an n-gram already in state_seq."""
    out = log_probs.clone()
    low = torch.finfo(log_probs.dtype).max * -1 if log_probs.dtype.is_floating_point else None
    seqs = state_seq.reshape(-1, state_seq.shape[-1]).tolist()
    flat = out.reshape(-1, out.shape[-1])
    n = ngram_size
    for r, seq in enumerate(seqs):
        tail = seq[len(seq) - n + 1:] if n > 1 else []
        for start in range(len(seq) - n + 1):
            if seq[start:start + n - 1] == tail:
                flat[r, seq[start + n - 1]] = low
    return out


def extract_glimpse(x, size, offsets, centered, normalized):
    """(glimpses (N, h, w, C), inside mask (N, h, w, 1)) of NHWC images around the (y, x) offsets, TensorFlow's
    placement: normalized offsets scale by the image size, centered ones count from the image centre (in [-1, 1]),
    the window's corner truncated toward zero."""
    n, height, width, _ = x.shape
    h, w = (int(v) for v in size.reshape(-1).tolist())
    out = torch.zeros((n, h, w, x.shape[3]), dtype=x.dtype, device=x.device)
    inside = torch.zeros((n, h, w, 1), dtype=torch.bool, device=x.device)
    for i, (y0, x0) in enumerate(offsets.reshape(n, 2).tolist()):
        if normalized:
            x0, y0 = x0 * width, y0 * height
        if centered:
            x0, y0 = x0 / 2 + width / 2, y0 / 2 + height / 2
        top, left = int(y0 - h / 2), int(x0 - w / 2)
        r0, r1 = max(top, 0), min(top + h, height)
        c0, c1 = max(left, 0), min(left + w, width)
        if r0 < r1 and c0 < c1:
            out[i, r0 - top:r1 - top, c0 - left:c1 - left] = x[i, r0:r1, c0:c1]
            inside[i, r0 - top:r1 - top, c0 - left:c1 - left] = True
    return out, inside


def _crop_axis(lo, hi, size, n):
    """The sample coordinates (num_boxes, n) of CropAndResize along one axis, in the boxes' dtype as MindSpore's
    gradient kernels compute them: lo (size - 1) + i (hi - lo) (size - 1) / (n - 1), the box center when n == 1.
    Returns (coordinate, floor index, ceil index, fraction, inside the image)."""
    if n > 1:
        scale = (hi - lo) * (size - 1) / (n - 1)
        at = lo[:, None] * (size - 1) + torch.arange(n, dtype=lo.dtype, device=lo.device)[None, :] * scale[:, None]
    else:
        at = (0.5 * (lo + hi) * (size - 1))[:, None]
    inside = (at >= 0) & (at <= size - 1)
    low = torch.floor(at)
    return at, low.long(), torch.ceil(at).long(), at - low, inside


def crop_and_resize_grad_image(grads, boxes, box_index, image_size, out_dtype, method):
    """The gradient of CropAndResize for its images: each crop sample's gradient spread onto the image pixels it read
    (bilinear: the four neighbours by their weights; nearest: the pixel at the rounded coordinate, halves away from
    zero), samples outside the image dropped. Computed in float32 as MindSpore's CPU kernel (whatever the inputs'
    dtype); returns (batch, H, W, depth) of `out_dtype` (a MindSpore dtype name)."""
    out_dtype = torch_dtype(out_dtype)
    batch, h, w, depth = (int(v) for v in image_size.reshape(-1).tolist())
    nb, ch, cw, _ = grads.shape
    idx = box_index.reshape(-1).long()
    if nb and (idx.min() < 0 or idx.max() >= batch):
        raise ValueError(f"For 'CropAndResizeGradImage', the 'box_index' must be in [0, {batch}), but got "
                         f"{idx.tolist()}.")
    grads, boxes = grads.float(), boxes.float()
    y, top, bottom, ylerp, yin = _crop_axis(boxes[:, 0], boxes[:, 2], h, ch)
    x, left, right, xlerp, xin = _crop_axis(boxes[:, 1], boxes[:, 3], w, cw)
    keep = (yin[:, :, None] & xin[:, None, :])[..., None]                      # (nb, ch, cw, 1)
    g = torch.where(keep, grads, torch.zeros((), dtype=grads.dtype, device=grads.device))
    # each product cast to the output dtype and added there, sample by sample in the kernel's order (top-left,
    # top-right, bottom-left, bottom-right): float16 results round as MindSpore's do
    out = torch.zeros((batch * h * w, depth), dtype=out_dtype, device=grads.device)
    base = idx[:, None, None] * (h * w)

    def flat(rows, cols):
        return base + rows.clamp(0, h - 1)[:, :, None] * w + cols.clamp(0, w - 1)[:, None, :]    # (nb, ch, cw)

    if method == "nearest":
        ry = torch.where(y - torch.floor(y) >= 0.5, torch.ceil(y), torch.floor(y)).long()
        rx = torch.where(x - torch.floor(x) >= 0.5, torch.ceil(x), torch.floor(x)).long()
        where, values = flat(ry, rx)[..., None], g[..., None, :]
    else:
        ylerp, xlerp = ylerp[:, :, None, None], xlerp[:, None, :, None]
        dtop, dbottom = g * (1 - ylerp), g * ylerp
        where = torch.stack([flat(top, left), flat(top, right), flat(bottom, left), flat(bottom, right)], -1)
        values = torch.stack([(1 - xlerp) * dtop, xlerp * dtop, (1 - xlerp) * dbottom, xlerp * dbottom], -2)
    out.index_put_((where.reshape(-1),), values.reshape(-1, depth).to(out_dtype), accumulate=True)
    return out.reshape(batch, h, w, depth).to(out_dtype)


def crop_and_resize_grad_boxes(grads, images, boxes, box_index):
    """The gradient of bilinear CropAndResize for its boxes (num_boxes, 4) [y1, x1, y2, x2]: per sample inside the
    image, the image's local slope along y and x times the incoming gradient, times how the sample coordinate moves
    with each corner; summed per box. Boxes whose index is outside the batch get zeros. Computed in float32 as
    MindSpore's CPU kernel; returned in the grads' dtype."""
    batch, h, w, depth = images.shape
    nb, ch, cw, _ = grads.shape
    out_dtype, dt = grads.dtype, torch.float32
    grads, boxes = grads.float(), boxes.float()
    idx = box_index.reshape(-1).long()
    valid = (idx >= 0) & (idx < batch)
    img = images[idx.clamp(0, max(batch - 1, 0))].to(dt)                      # (nb, H, W, depth)
    _, top, bottom, ylerp, yin = _crop_axis(boxes[:, 0], boxes[:, 2], h, ch)
    _, left, right, xlerp, xin = _crop_axis(boxes[:, 1], boxes[:, 3], w, cw)
    top, bottom, left, right = top.clamp(0, h - 1), bottom.clamp(0, h - 1), left.clamp(0, w - 1), right.clamp(0, w - 1)
    rows = torch.arange(nb, device=img.device)[:, None, None]

    def at(r, c):
        return img[rows, r[:, :, None], c[:, None, :]]                         # (nb, ch, cw, depth)

    tl, tr, bl, br = at(top, left), at(top, right), at(bottom, left), at(bottom, right)
    yl, xl = ylerp[:, :, None, None], xlerp[:, None, :, None]
    ygrad = ((1 - xl) * (bl - tl) + xl * (br - tr)) * grads
    xgrad = ((1 - yl) * (tr - tl) + yl * (br - bl)) * grads
    keep = yin[:, :, None, None] & xin[:, None, :, None] & valid[:, None, None, None]
    zero = torch.zeros((), dtype=dt, device=img.device)
    ygrad, xgrad = torch.where(keep, ygrad, zero), torch.where(keep, xgrad, zero)

    def weights(n, size):
        # d(coordinate)/d(lo) and d(coordinate)/d(hi) of each sample along an axis (float32, as the kernel)
        if n > 1:
            step = torch.arange(n, dtype=dt, device=img.device) * torch.tensor((size - 1) / (n - 1), dtype=dt)
            return (size - 1) - step, step
        half = torch.full((1,), 0.5 * (size - 1), dtype=dt, device=img.device)
        return half, half

    wy1, wy2 = (v[None, :, None, None] for v in weights(ch, h))
    wx1, wx2 = (v[None, None, :, None] for v in weights(cw, w))
    # the float32 products summed in float64 (the kernel adds them one by one in float32)
    out = torch.stack([(g * wt).double().sum((1, 2, 3)) for g, wt in ((ygrad, wy1), (xgrad, wx1), (ygrad, wy2),
                                                                       (xgrad, wx2))], dim=1)
    return out.to(dt).to(out_dtype)
