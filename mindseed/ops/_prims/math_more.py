"""The remaining math, detection and sequence primitives of MindSpore's class API: Betainc, MatrixLogarithm,
RaggedRange, EditDistance, NMSWithMask, CombinedNonMaxSuppression, ResizeArea, ComputeAccidentalHits, NoRepeatNGram,
ExtractGlimpse, CropAndResizeGradImage/Boxes, CTCLoss, RNNTLoss and STFT. Their classes are the table rows of
`ops/operations/_prims_more.py`."""
from mindseed._backend.kernels import ctc_stft as KC
from mindseed._backend.kernels import detect as KD
from mindseed._backend.kernels import math_more as K
from mindseed.ops._prims.core import add_p, exp_p, log_p, mul_p, reshape_p, sub_p, zeros_like_p
from mindseed.ops._prims.math import lgamma_p, log1p_p
from mindseed.ops._registry import Prim

__all__ = []

betainc_p = Prim("Betainc", K.betainc)


@betainc_p.def_bprop
def _betainc_bprop(a, b, x, out, dout):
    # MindSpore differentiates x only: dI/dx = x^(a-1) (1-x)^(b-1) / B(a, b); a and b get zeros
    log_dx = add_p(add_p(mul_p(sub_p(a, 1.0), log_p(x)), mul_p(sub_p(b, 1.0), log1p_p(mul_p(x, -1.0)))),
                   sub_p(lgamma_p(add_p(a, b)), add_p(lgamma_p(a), lgamma_p(b))))
    return zeros_like_p(a), zeros_like_p(b), mul_p(dout, exp_p(log_dx))


matrix_logarithm_p = Prim("MatrixLogarithm", K.matrix_logarithm)
ragged_range_p = Prim("RaggedRange", K.ragged_range, multi_output=True)
edit_distance_p = Prim("EditDistance", K.edit_distance)
nms_with_mask_p = Prim("NMSWithMask", KD.nms_with_mask, multi_output=True)
combined_nms_p = Prim("CombinedNonMaxSuppression", KD.combined_nms, multi_output=True)
resize_area_p = Prim("ResizeArea", KD.resize_area)
compute_accidental_hits_p = Prim("ComputeAccidentalHits", KD.compute_accidental_hits, multi_output=True)
no_repeat_ngram_p = Prim("NoRepeatNGram", KD.no_repeat_ngram)
extract_glimpse_p = Prim("ExtractGlimpse", KD.extract_glimpse, multi_output=True)
crop_and_resize_grad_image_p = Prim("CropAndResizeGradImage", KD.crop_and_resize_grad_image)
crop_and_resize_grad_boxes_p = Prim("CropAndResizeGradBoxes", KD.crop_and_resize_grad_boxes)
stft_p = Prim("STFT", KC.stft)
ctc_loss_p = Prim("CTCLoss", KC.ctc_loss, multi_output=True, residual_outputs=(1,))   # (loss, dloss/dlogits)


rnnt_loss_p = Prim("RNNTLoss", KC.rnnt_loss, multi_output=True, residual_outputs=(1,))  # (costs, dcosts/dacts)


@rnnt_loss_p.def_bprop
def _rnnt_loss_bprop(acts, labels, input_lengths, label_lengths, out, dout, **attrs):
    return mul_p(out[1], reshape_p(dout[0], (acts.shape[0], 1, 1, 1))), None, None, None


@ctc_loss_p.def_bprop
def _ctc_loss_bprop(x, labels_indices, labels_values, sequence_length, out, dout, **attrs):
    # the kernel's second output is the loss's gradient for the logits; scaled per sequence by the loss's cotangent
    dloss = reshape_p(dout[0], (1, x.shape[1], 1))
    return mul_p(out[1], dloss), None, None, None
