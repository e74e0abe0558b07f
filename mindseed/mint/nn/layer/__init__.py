"""mindspore.mint.nn layers: torch-style Cells (`Conv2d(in, out, k, padding=1, bias=True)`, `BatchNorm2d`, ...).

Cells whose MindSpore signature is mindseed.nn's own are those classes; parameter-free wrappers of one
functional call are one table line each (`_table`); layers holding parameters are written in `_params`.
"""
from mindseed import nn as _nn
from mindseed.mint.nn import _nn_impl as _n
from mindseed.mint.nn import functional as F
from mindseed.mint.nn.layer._params import (BatchNorm1d, BatchNorm2d, BatchNorm3d, Conv1d, Conv2d, Conv3d,
                                            ConvTranspose2d, Embedding, GroupNorm, LayerNorm, PReLU, SyncBatchNorm,
                                            ZeroPad1d, ZeroPad3d)
from mindseed.mint.nn.layer._table import compile_cells as _compile_cells

_SAME = {name: getattr(_nn, name) for name in """
AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool2d BCELoss ConstantPad1d ConstantPad2d
ConstantPad3d CosineEmbeddingLoss CrossEntropyLoss Flatten Fold Identity L1Loss Linear MSELoss MaxUnpool2d NLLLoss
PixelShuffle ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d ReplicationPad3d
SoftMarginLoss Upsample ZeroPad2d Cell
""".split()}

_TABLE = """
AdaptiveAvgPool1d(output_size) | input -> F.adaptive_avg_pool1d(input, self.output_size)  # 1-D adaptive average
    pooling of (N, C, L) or (C, L).
AdaptiveMaxPool1d(output_size, return_indices=False) | input -> F.adaptive_max_pool1d(input, self.output_size,
    self.return_indices)  # 1-D adaptive max pooling.
AvgPool1d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True) | input ->
    F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)  # 1-D
    average pooling.
AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None) |
    input -> F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
    self.count_include_pad, self.divisor_override)  # 2-D average pooling.
AvgPool3d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None) |
    input -> F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
    self.count_include_pad, self.divisor_override)  # 3-D average pooling.
MaxPool2d(kernel_size=1, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False) | input ->
    F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
    self.return_indices)  # 2-D max pooling.
BCEWithLogitsLoss(weight=None, reduction='mean', pos_weight=None) | input, target ->
    F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction, self.pos_weight)  # Binary cross
    entropy of logits.
KLDivLoss(reduction='mean', log_target=False) | input, target -> F.kl_div(input, target, self.reduction,
    self.log_target)  # KL divergence.
SmoothL1Loss(reduction='mean', beta=1.0) | input, target -> F.smooth_l1_loss(input, target, self.reduction,
    self.beta)  # Smooth L1 loss.
Dropout(p=0.5, inplace=False) | input -> F.dropout(input, self.p, self.training, self.inplace)  # Dropout while
    training.
Dropout2d(p=0.5, inplace=False) | input -> F.dropout2d(input, self.p, self.training, self.inplace)  # Channel
    dropout while training.
ELU(alpha=1.0, inplace=False) | input -> F.elu(input, self.alpha, self.inplace)  # ELU.
GELU(approximate='none') | input -> F.gelu(input, approximate=self.approximate)  # GELU.
GLU(dim=-1) | input -> F.glu(input, self.dim)  # Gated linear unit.
Hardshrink(lambd=0.5) | input -> F.hardshrink(input, self.lambd)  # 0 for |x| <= lambd, else x.
Hardsigmoid() | input -> F.hardsigmoid(input)  # Piecewise-linear sigmoid.
Hardswish() | input -> F.hardswish(input)  # x * hardsigmoid(x).
Hardtanh(min_val=-1.0, max_val=1.0, inplace=False) | input -> F.hardtanh(input, self.min_val, self.max_val,
    self.inplace)  # Clamp to [min_val, max_val].
LogSigmoid() | input -> F.logsigmoid(input)  # log(sigmoid(x)).
LogSoftmax(dim=None) | input -> F.log_softmax(input, self.dim)  # log(softmax(x)) along `dim`.
Mish() | input -> F.mish(input)  # x * tanh(softplus(x)).
ReLU() | input -> F.relu(input)  # max(x, 0).
ReLU6(inplace=False) | input -> F.relu6(input, self.inplace)  # min(max(x, 0), 6).
SELU() | input -> F.selu(input)  # Scaled ELU.
SiLU(inplace=False) | input -> F.silu(input, self.inplace)  # x * sigmoid(x).
Sigmoid() | input -> F.sigmoid(input)  # 1 / (1 + exp(-x)).
Softmax(dim=None) | input -> F.softmax(input, self.dim)  # Softmax along `dim`.
Softshrink(lambd=0.5) | input -> F.softshrink(input, self.lambd)  # x -+ lambd outside [-lambd, lambd], else 0.
Tanh() | input -> F.tanh(input)  # Hyperbolic tangent.
Threshold(threshold, value, inplace=False) | input -> F.threshold(input, self.threshold, self.value,
    self.inplace)  # x where x > threshold, else value.
Unfold(kernel_size, dilation=1, padding=0, stride=1) | input -> F.unfold(input, self.kernel_size, self.dilation,
    self.padding, self.stride)  # Sliding blocks as columns.
UpsamplingBilinear2d(size=None, scale_factor=None) | input -> _n.resize(input, self.size, self.scale_factor,
    'bilinear', True)  # Bilinear upsampling (corners aligned).
UpsamplingNearest2d(size=None, scale_factor=None) | input -> _n.resize(input, self.size, self.scale_factor,
    'nearest', None)  # Nearest-neighbour upsampling.
"""

_CELLS = dict(_SAME)
_CELLS.update(_compile_cells(_TABLE, {"F": F, "_n": _n}, __name__))
_CELLS.update({c.__name__: c for c in (BatchNorm1d, BatchNorm2d, BatchNorm3d, Conv1d, Conv2d, Conv3d, ConvTranspose2d,
                                       Embedding, GroupNorm, LayerNorm, PReLU, SyncBatchNorm, ZeroPad1d, ZeroPad3d)})
globals().update(_CELLS)
__all__ = sorted(_CELLS)
