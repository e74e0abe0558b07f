"""Kernels of MindSpore's detection and decoding primitives: NMSWithMask, CombinedNonMaxSuppression, ResizeArea,
ComputeAccidentalHits and NoRepeatNGram."""
import math

import torch


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
