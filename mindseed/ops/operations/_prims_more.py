"""Primitive classes over the primitives of `ops/_prims/math_more.py` (`ops.Betainc()(a, b, x)`,
`ops.CTCLoss()(x, labels_indices, labels_values, sequence_length)`, `ops.NMSWithMask(0.5)(bboxes)`, ...), one table
row each: constructor attributes, inputs, and the checks MindSpore makes before its kernel runs. `DtypeToEnum`, which
runs no kernel, is written out at the end."""
from mindseed import _checkparam as validator
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops._prims import math_more as P
from mindseed.ops.operations._base import Primitive
from mindseed.ops.operations._table import REQUIRED, primitive_class

__all__ = ["DtypeToEnum"]

_FLOATS = (mstype.float32, mstype.float64)
_INTS = (mstype.int32, mstype.int64)


def _dtype(name, arg, x, allowed, what=None):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got {type(x).__name__}.")
    if x.dtype not in allowed:
        kinds = ", ".join(f"Tensor[{d}]" for d in allowed)
        raise TypeError(f"For primitive[{name}], the input argument[{arg}] must be a type of {{{kinds}}}"
                        f"{what or ''}, but got Tensor[{x.dtype}].")


def _rank(name, arg, x, ranks):
    if x.ndim not in ranks:
        raise ValueError(f"For '{name}', the rank of '{arg}' must be in {list(ranks)}, but got {x.ndim}.")


def _scalar(x):
    return x.item() if isinstance(x, Tensor) else x


def _betainc(a, b, x):
    for arg, t in (("a", a), ("b", b), ("x", x)):
        _dtype("Betainc", arg, t, _FLOATS)
    if not a.dtype == b.dtype == x.dtype:
        raise TypeError("For primitive[Betainc], the input type must be same.")
    for arg, t in (("b", b), ("x", x)):
        if t.shape != a.shape:
            raise ValueError(f"For 'Betainc', shape of {arg} {t.shape} are not consistent with the shape a "
                             f"{a.shape}.")
    return P.betainc_p(a, b, x)


def _matrix_logarithm(x):
    _dtype("MatrixLogarithm", "x", x, (mstype.complex64, mstype.complex128))
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"For 'MatrixLogarithm', 'x' must be a batch of square matrices, but got shape {x.shape}.")
    return P.matrix_logarithm_p(x)


def _ragged_range(starts, limits, deltas, Tsplits):  # noqa: N803 -- MindSpore's attribute name
    if Tsplits not in _INTS:
        raise TypeError(f"For 'RaggedRange', the 'Tsplits' should be one of [mindspore.int64, mindspore.int32], but "
                        f"got 'mindspore.{Tsplits}'.")
    for arg, t in (("starts", starts), ("limits", limits), ("deltas", deltas)):
        _dtype("RaggedRange", arg, t, _INTS + _FLOATS)
        _rank("RaggedRange", arg, t, (0, 1))
    if not starts.dtype == limits.dtype == deltas.dtype:
        raise TypeError(f"For 'RaggedRange', 'starts', 'limits' and 'deltas' must have the same dtype, but got "
                        f"{starts.dtype}, {limits.dtype} and {deltas.dtype}.")
    if not starts.shape == limits.shape == deltas.shape:
        raise ValueError(f"For 'RaggedRange', 'starts', 'limits' and 'deltas' must have the same shape, but got "
                         f"{starts.shape}, {limits.shape} and {deltas.shape}.")
    if bool((deltas == 0).any()):
        raise ValueError("For 'RaggedRange', requires input delta != 0.")
    return P.ragged_range_p(starts, limits, deltas, splits_dtype=Tsplits.name)


def _edit_distance(hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices, truth_values,
                   truth_shape, normalize=True):
    for side, (ind, val, shp) in (("hypothesis", (hypothesis_indices, hypothesis_values, hypothesis_shape)),
                                  ("truth", (truth_indices, truth_values, truth_shape))):
        _dtype("EditDistance", f"{side}_indices", ind, (mstype.int64,))
        _dtype("EditDistance", f"{side}_shape", shp, (mstype.int64,))
        if ind.ndim != 2 or val.ndim != 1 or ind.shape[0] != val.shape[0] or shp.shape != (ind.shape[1],):
            raise ValueError(f"For 'EditDistance', the {side} must be a sparse tensor: indices (N, R), values (N,), "
                             f"shape (R,); but got {ind.shape}, {val.shape} and {shp.shape}.")
    if hypothesis_values.dtype != truth_values.dtype or hypothesis_shape.shape != truth_shape.shape:
        raise TypeError("For 'EditDistance', hypothesis and truth must have the same values dtype and rank.")
    return P.edit_distance_p(hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices, truth_values,
                             truth_shape, normalize=normalize)


def _nms_with_mask(bboxes, iou_threshold=0.5):
    _dtype("NMSWithMask", "bboxes", bboxes, (mstype.float16, mstype.float32))
    if bboxes.ndim != 2 or bboxes.shape[1] != 5:
        raise ValueError(f" For NMSWithMask, the 2nd dim in shape of bboxes should equal to 5 or 8, but got "
                         f"{bboxes.shape[-1] if bboxes.ndim else bboxes.shape}")
    return P.nms_with_mask_p(bboxes, iou_threshold=iou_threshold)


def _combined_nms(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold, score_threshold,
                  pad_per_class=False, clip_boxes=True):
    name = "CombinedNonMaxSuppression"
    _dtype(name, "boxes", boxes, (mstype.float16, mstype.float32))
    _dtype(name, "scores", scores, (mstype.float16, mstype.float32))
    if boxes.ndim != 4 or boxes.shape[3] != 4 or scores.ndim != 3 or scores.shape[:2] != boxes.shape[:2] \
            or boxes.shape[2] not in (1, scores.shape[2]):
        raise ValueError(f"For '{name}', 'boxes' must be (batch, num_boxes, q, 4) with q 1 or num_classes and "
                         f"'scores' (batch, num_boxes, num_classes), but got {boxes.shape} and {scores.shape}.")
    sizes = [_scalar(v) for v in (max_output_size_per_class, max_total_size)]
    if any(isinstance(v, bool) or not isinstance(v, int) or v <= 0 for v in sizes):
        raise ValueError(f"For '{name}', 'max_output_size_per_class' and 'max_total_size' must be positive ints, "
                         f"but got {sizes}.")
    iou, score = _scalar(iou_threshold), _scalar(score_threshold)
    if not 0 <= iou <= 1:
        raise ValueError(f"For '{name}', 'iou_threshold' must be in [0, 1], but got {iou}.")
    return P.combined_nms_p(boxes, scores, sizes[0], sizes[1], iou, score, pad_per_class=pad_per_class,
                            clip_boxes=clip_boxes)


def _resize_area(images, size, align_corners=False):
    if not isinstance(images, Tensor) or images.ndim != 4:
        raise ValueError(f"For 'ResizeArea', 'images' must be a 4-D (N, H, W, C) Tensor, but got "
                         f"{getattr(images, 'shape', type(images).__name__)}.")
    _dtype("ResizeArea", "size", size, (mstype.int32,))
    if size.shape != (2,) or bool((size <= 0).any()):
        raise ValueError(f"For 'ResizeArea', 'size' must be 2 positive ints (new_height, new_width), but got "
                         f"{size.asnumpy().tolist()}.")
    return P.resize_area_p(images, size, align_corners=align_corners)


def _accidental_hits(true_classes, sampled_candidates, num_true=1):
    _dtype("ComputeAccidentalHits", "true_classes", true_classes, _INTS)
    _dtype("ComputeAccidentalHits", "sampled_candidates", sampled_candidates, _INTS)
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true or sampled_candidates.ndim != 1:
        raise ValueError(f"For 'ComputeAccidentalHits', 'true_classes' must be (batch_size, num_true={num_true}) and "
                         f"'sampled_candidates' 1-D, but got {true_classes.shape} and {sampled_candidates.shape}.")
    return P.compute_accidental_hits_p(true_classes, sampled_candidates, num_true=num_true)


def _no_repeat_ngram(state_seq, log_probs, ngram_size=1):
    _dtype("NoRepeatNGram", "state_seq", state_seq, _INTS)
    _dtype("NoRepeatNGram", "log_probs", log_probs, (mstype.float16, mstype.float32, mstype.float64))
    if state_seq.ndim != 3 or log_probs.ndim != 3 or state_seq.shape[:2] != log_probs.shape[:2]:
        raise ValueError(f"For 'NoRepeatNGram', 'state_seq' and 'log_probs' must be 3-D with the same batch_size and "
                         f"beam_width, but got {state_seq.shape} and {log_probs.shape}.")
    if not 0 < ngram_size <= state_seq.shape[2]:
        raise ValueError(f"For 'NoRepeatNGram', 'ngram_size' must be in (0, {state_seq.shape[2]}], but got "
                         f"{ngram_size}.")
    return P.no_repeat_ngram_p(state_seq, log_probs, ngram_size=ngram_size)


def _extract_glimpse(x, size, offsets, centered=True, normalized=True, uniform_noise=True, noise="uniform"):
    name = "ExtractGlimpse"
    _dtype(name, "x", x, _FLOATS)
    _dtype(name, "size", size, (mstype.int32,))
    _dtype(name, "offsets", offsets, _FLOATS)
    if x.ndim != 4 or offsets.shape != (x.shape[0], 2) or size.shape != (2,) or bool((size <= 0).any()):
        raise ValueError(f"For '{name}', need x (batch, height, width, channels), size 2 positive ints and offsets "
                         f"(batch, 2), but got {x.shape}, {size.shape} and {offsets.shape}.")
    out, inside = P.extract_glimpse_p(x, size, offsets, centered=centered, normalized=normalized)
    if noise == "zero" and not uniform_noise:
        return out
    # outside the image: noise drawn per image, uniform over its value range or normal of its mean and deviation
    axes = (1, 2, 3)
    if uniform_noise or noise == "uniform":
        low, high = F.amin(x, axes, True), F.amax(x, axes, True)
        fill = low + F.rand_like(out) * (high - low)
    elif noise == "gaussian":
        fill = F.mean(x, axes, True) + F.randn_like(out) * F.std(x, axes, keepdims=True)
    else:
        fill = F.zeros_like(out)
    return F.select(F.broadcast_to(inside, out.shape), out, fill)


_CROP_IMAGES = (mstype.float16, mstype.float32, mstype.float64, mstype.int16, mstype.int32, mstype.int64,
                mstype.int8, mstype.uint16, mstype.uint8)


def _crop_grad_inputs(name, grads, boxes, box_index):
    _dtype(name, "grads", grads, _FLOATS)
    _dtype(name, "boxes", boxes, _FLOATS)
    _dtype(name, "box_index", box_index, (mstype.int32,))
    if grads.ndim != 4:
        raise ValueError(f"For '{name}', the rank of 'grads' must be 4, but got {grads.ndim}.")
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(f"For '{name}', the 'boxes' must be a 2-D Tensor of shape (num_boxes, 4), but got "
                         f"{boxes.shape}.")
    if box_index.ndim != 1 or box_index.shape[0] != boxes.shape[0] or grads.shape[0] != boxes.shape[0]:
        raise ValueError(f"For '{name}', the 'box_index' must be 1-D of length num_boxes {boxes.shape[0]} (the "
                         f"first dim of 'boxes' and 'grads'), but got 'box_index' {box_index.shape} and 'grads' "
                         f"{grads.shape}.")


def _crop_and_resize_grad_image(grads, boxes, box_index, image_size, T=None, method="bilinear"):
    name = "CropAndResizeGradImage"
    _crop_grad_inputs(name, grads, boxes, box_index)
    _dtype(name, "image_size", image_size, (mstype.int32,))
    if image_size.shape != (4,):
        raise ValueError(f"For '{name}', the 'image_size' must be a 1-D Tensor of 4 elements [batch, image_height, "
                         f"image_width, depth], but got shape {image_size.shape}.")
    batch, height, width, depth = image_size.asnumpy().tolist()
    if height <= 0 or width <= 0 or batch < 0:
        raise ValueError(f"For '{name}', image_height and image_width of 'image_size' must be positive, but got "
                         f"{[batch, height, width, depth]}.")
    if depth != grads.shape[3]:
        raise ValueError(f"For '{name}', shape[3] of 'grads' and image_size[3] must be equal, but got "
                         f"{grads.shape[3]} and {depth}.")
    return P.crop_and_resize_grad_image_p(grads, boxes, box_index, image_size, out_dtype=T.name, method=method)


def _crop_and_resize_grad_boxes(grads, images, boxes, box_index, method="bilinear"):
    name = "CropAndResizeGradBoxes"
    _crop_grad_inputs(name, grads, boxes, box_index)
    _dtype(name, "images", images, _CROP_IMAGES)
    if images.ndim != 4 or images.shape[1] <= 0 or images.shape[2] <= 0:
        raise ValueError(f"For '{name}', the 'images' must be a 4-D Tensor (batch, image_height, image_width, depth) "
                         f"with positive height and width, but got {images.shape}.")
    if images.shape[3] != grads.shape[3]:
        raise ValueError(f"For '{name}', shape[3] of 'grads' and 'images' must be equal, but got {grads.shape[3]} "
                         f"and {images.shape[3]}.")
    return P.crop_and_resize_grad_boxes_p(grads, images, boxes, box_index)


def _ctc_loss(x, labels_indices, labels_values, sequence_length, preprocess_collapse_repeated=False,
              ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False):
    flags = {"preprocess_collapse_repeated": preprocess_collapse_repeated, "ctc_merge_repeated": ctc_merge_repeated,
             "ignore_longer_outputs_than_inputs": ignore_longer_outputs_than_inputs}
    _dtype("CTCLoss", "x", x, (mstype.float16, mstype.float32, mstype.float64))
    _dtype("CTCLoss", "labels_indices", labels_indices, (mstype.int64,))
    _dtype("CTCLoss", "labels_values", labels_values, (mstype.int32,))
    _dtype("CTCLoss", "sequence_length", sequence_length, (mstype.int32,))
    if x.ndim != 3 or labels_indices.ndim != 2 or labels_indices.shape[1] != 2 or labels_values.ndim != 1 \
            or labels_values.shape[0] != labels_indices.shape[0] or sequence_length.shape != (x.shape[1],):
        raise ValueError(f"For 'CTCLoss', 'x' must be (max_time, batch_size, num_classes), 'labels_indices' (M, 2), "
                         f"'labels_values' (M,) and 'sequence_length' (batch_size,), but got {x.shape}, "
                         f"{labels_indices.shape}, {labels_values.shape} and {sequence_length.shape}.")
    return P.ctc_loss_p(x, labels_indices, labels_values, sequence_length, **flags)


def _rnnt_loss(acts, labels, input_lengths, label_lengths, blank_label=0):
    _dtype("RNNTLoss", "acts", acts, (mstype.float16, mstype.float32, mstype.float64))
    for arg, t in (("labels", labels), ("input_lengths", input_lengths), ("label_lengths", label_lengths)):
        _dtype("RNNTLoss", arg, t, (mstype.int32,))
    batch = acts.shape[0] if acts.ndim == 4 else None
    if batch is None or labels.shape != (batch, acts.shape[2] - 1) or input_lengths.shape != (batch,) \
            or label_lengths.shape != (batch,):
        raise ValueError(f"For 'RNNTLoss', need acts (B, T, U, V), labels (B, U - 1), input_lengths and "
                         f"label_lengths (B,), but got {acts.shape}, {labels.shape}, {input_lengths.shape} and "
                         f"{label_lengths.shape}.")
    if not 0 <= blank_label < acts.shape[3]:
        raise ValueError(f"For 'RNNTLoss', 'blank_label' must be in [0, {acts.shape[3]}), but got {blank_label}.")
    return P.rnnt_loss_p(acts, labels, input_lengths, label_lengths, blank_label=blank_label)


def _stft(x, window, n_fft=REQUIRED, hop_length=REQUIRED, win_length=REQUIRED, normalized=REQUIRED,
          onesided=REQUIRED, return_complex=REQUIRED):
    if not isinstance(window, Tensor):
        raise TypeError(f"For Primitive[STFT], the type of input argument[window] must be Tensor but got "
                        f"{type(window).__name__}.")
    _dtype("STFT", "x", x, (mstype.float32, mstype.float64, mstype.complex64, mstype.complex128))
    _rank("STFT", "x", x, (1, 2))
    if window.shape != (win_length,) or not 0 < win_length <= n_fft or hop_length <= 0 or n_fft > x.shape[-1]:
        raise ValueError(f"For 'STFT', need 0 < win_length <= n_fft <= the signal length {x.shape[-1]}, "
                         f"hop_length > 0 and a window of shape ({win_length},), but got n_fft={n_fft}, "
                         f"hop_length={hop_length}, win_length={win_length}, window {window.shape}.")
    return P.stft_p(x, window, n_fft=n_fft, hop_length=hop_length, win_length=win_length, normalized=normalized,
                    onesided=onesided, return_complex=return_complex)


_ROWS = {
    # name: (function, constructor attributes, inputs, doc)
    "Betainc": (_betainc, (), ("a", "b", "x"), "The regularized incomplete beta function I_x(a, b)."),
    "MatrixLogarithm": (_matrix_logarithm, (), ("x",), "The principal logarithm of each complex square matrix."),
    "RaggedRange": (_ragged_range, (("Tsplits", REQUIRED),), ("starts", "limits", "deltas"),
                    "(rt_nested_splits, rt_dense_values) of the ragged rows range(starts[i], limits[i], deltas[i])."),
    "EditDistance": (_edit_distance, (("normalize", True),),
                     ("hypothesis_indices", "hypothesis_values", "hypothesis_shape", "truth_indices",
                      "truth_values", "truth_shape"),
                     "Levenshtein distance of two sparse batches of sequences (normalized by the truth's length)."),
    "NMSWithMask": (_nms_with_mask, (("iou_threshold", 0.5),), ("bboxes",),
                    "Greedy NMS of (x1, y1, x2, y2, score) rows: (boxes by score, their positions, keep mask)."),
    "CombinedNonMaxSuppression": (
        _combined_nms, (("pad_per_class", False), ("clip_boxes", True)),
        ("boxes", "scores", "max_output_size_per_class", "max_total_size", "iou_threshold", "score_threshold"),
        "Per class NMS, then the best max_total_size: (nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)."),
    "ResizeArea": (_resize_area, (("align_corners", False),), ("images", "size"),
                   "NHWC images resized by area averaging (float32)."),
    "ComputeAccidentalHits": (_accidental_hits, (("num_true", 1),), ("true_classes", "sampled_candidates"),
                              "(row, sampled position, -FLT_MAX weight) of every sampled candidate that is a true "
                              "class of its row."),
    "NoRepeatNGram": (_no_repeat_ngram, (("ngram_size", 1),), ("state_seq", "log_probs"),
                      "log_probs with -FLT_MAX at the words that would repeat an n-gram of state_seq."),
    "ExtractGlimpse": (_extract_glimpse, (("centered", True), ("normalized", True), ("uniform_noise", True),
                                          ("noise", "uniform")), ("x", "size", "offsets"),
                       "Glimpses (batch, h, w, channels) of NHWC images around (y, x) offsets; outside the image, "
                       "noise ('uniform', 'gaussian' or 'zero')."),
    "CropAndResizeGradImage": (
        _crop_and_resize_grad_image, (("T", REQUIRED), ("method", "bilinear")),
        ("grads", "boxes", "box_index", "image_size"),
        "The gradient of CropAndResize for its images: (batch, image_height, image_width, depth) of dtype T."),
    "CropAndResizeGradBoxes": (_crop_and_resize_grad_boxes, (("method", "bilinear"),),
                               ("grads", "images", "boxes", "box_index"),
                               "The gradient of bilinear CropAndResize for its boxes: (num_boxes, 4)."),
    "CTCLoss": (_ctc_loss, (("preprocess_collapse_repeated", False), ("ctc_merge_repeated", True),
                            ("ignore_longer_outputs_than_inputs", False)),
                ("x", "labels_indices", "labels_values", "sequence_length"),
                "CTC loss of logits (max_time, batch, classes), blank = the last class: (loss, gradient)."),
    "RNNTLoss": (_rnnt_loss, (("blank_label", 0),), ("acts", "labels", "input_lengths", "label_lengths"),
                 "RNN transducer loss of logits acts (B, T, U, V): (costs, gradient for acts)."),
    "STFT": (_stft, tuple((k, REQUIRED) for k in ("n_fft", "hop_length", "win_length", "normalized", "onesided",
                                                   "return_complex")), ("x", "window"),
             "Short-time Fourier transform (frames from the signal's start, no centering)."),
}

# the attribute types each class checks at construction, as MindSpore's __init__
_ATTR_TYPES = {"EditDistance": {"normalize": bool},
               "ExtractGlimpse": {"centered": bool, "normalized": bool, "uniform_noise": bool, "noise": str},
               "NMSWithMask": {"iou_threshold": float},
               "CombinedNonMaxSuppression": {"pad_per_class": bool, "clip_boxes": bool},
               "ResizeArea": {"align_corners": bool}, "CropAndResizeGradImage": {"method": str},
               "CropAndResizeGradBoxes": {"method": str}, "ComputeAccidentalHits": {"num_true": int},
               "NoRepeatNGram": {"ngram_size": int}, "RNNTLoss": {"blank_label": int},
               "CTCLoss": dict.fromkeys(("preprocess_collapse_repeated", "ctc_merge_repeated",
                                         "ignore_longer_outputs_than_inputs"), bool),
               "STFT": {"n_fft": int, "hop_length": int, "win_length": int, "normalized": bool, "onesided": bool,
                        "return_complex": bool}}


def _attr_check(name):
    def check(attrs):
        for k, kind in _ATTR_TYPES.get(name, {}).items():
            validator.check_value_type(k, attrs[k], [kind], name)
        if name == "ExtractGlimpse":
            validator.check_string(attrs["noise"], ["uniform", "gaussian", "zero"], "noise", name)
        if name == "CropAndResizeGradImage":
            if attrs["method"] not in ("bilinear", "nearest"):
                raise ValueError(f"For '{name}', the 'method' should be in expected: ('bilinear', 'nearest'), but "
                                 f"got {attrs['method']}.")
            if attrs["T"] not in (mstype.float16, mstype.float32, mstype.float64):
                raise ValueError(f"For '{name}', the 'T' should be in expected: (mindspore.float16, "
                                 f"mindspore.float32, mindspore.float64), but got {attrs['T']}.")
        if name == "CropAndResizeGradBoxes":
            validator.check_string(attrs["method"], ["bilinear"], "method", name)
    return check


globals().update({_name: primitive_class(_name, _fn, _attrs, _inputs, doc=_doc, check=_attr_check(_name))
                  for _name, (_fn, _attrs, _inputs, _doc) in _ROWS.items()})
__all__ += list(_ROWS)

# MindSpore's type ids, what DtypeToEnum answers
_TYPE_IDS = {mstype.bool_: 30, mstype.int8: 32, mstype.int16: 33, mstype.int32: 34, mstype.int64: 35,
             mstype.uint8: 37, mstype.uint16: 38, mstype.uint32: 39, mstype.uint64: 40, mstype.float16: 42,
             mstype.float32: 43, mstype.float64: 44, mstype.bfloat16: 45, mstype.complex64: 51,
             mstype.complex128: 52}


class DtypeToEnum(Primitive):
    """`DtypeToEnum()(op_name, arg_name, dtype)`: MindSpore's type id (an int) of a mindspore dtype.

    >>> import mindseed as ms
    >>> ms.ops.DtypeToEnum()("Cast", "dtype", ms.float32)
    43
    """

    def __init__(self):
        super().__init__("DtypeToEnum")

    def __call__(self, op_name, arg_name, dtype):
        if dtype not in _TYPE_IDS:
            raise TypeError(f"For '{op_name}', the input '{arg_name}' should be mindspore dtype, but got {dtype}.")
        return _TYPE_IDS[dtype]
