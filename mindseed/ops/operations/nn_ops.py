"""mindspore.ops.operations.nn_ops: activation, loss, normalization, convolution, pooling and optimizer-update
primitives, by MindSpore's module layout (the same classes as `mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    Adam, AdamNoUpdateParam, AdamWeightDecay, AdaptiveAvgPool2D, AdaptiveAvgPool3D, AdaptiveMaxPool2D,
    AdaptiveMaxPool3D, ApplyAdaMax, ApplyAdadelta, ApplyAdagrad, ApplyAdagradDA, ApplyAdagradV2,
    ApplyAdamWithAmsgrad, ApplyAdamWithAmsgradV2, ApplyAddSign, ApplyCenteredRMSProp, ApplyFtrl,
    ApplyGradientDescent, ApplyKerasMomentum, ApplyMomentum, ApplyPowerSign, ApplyProximalAdagrad,
    ApplyProximalGradientDescent, ApplyRMSProp, AvgPool, AvgPool3D, BCEWithLogitsLoss, BatchNorm, BiasAdd,
    BinaryCrossEntropy, CTCGreedyDecoder, CTCLoss, CTCLossV2, CeLU, ChannelShuffle, ComputeAccidentalHits, Conv2D,
    Conv2DBackpropInput, Conv2DTranspose, Conv3D, Conv3DTranspose, DataFormatDimMap, DataFormatVecPermute, Dense,
    DepthwiseConv2dNative, Dropout, Dropout2D, Dropout3D, Elu, FastGeLU, FastGelu, Flatten,
    FractionalMaxPoolWithFixedKsize, FusedSparseAdam, FusedSparseFtrl, FusedSparseLazyAdam,
    FusedSparseProximalAdagrad, GLU, GeLU, Gelu, GridSampler2D, GridSampler3D, HShrink, HSigmoid, HSwish, InTopK,
    KLDivLoss, L2Loss, L2Normalize, LARSUpdate, LRN, LSTM, LayerNorm, LogSoftmax, LogSoftmaxExt, MaxPool, MaxPool3D,
    MaxPool3DWithArgmax, MaxPoolWithArgmax, MaxPoolWithArgmaxV2, MaxUnpool2D, MaxUnpool3D, MirrorPad, Mish,
    MultiMarginLoss, MultilabelMarginLoss, NLLLoss, NthElement, OneHot, PReLU, Pad, PadV3, Pdist, ROIAlign, ReLU,
    ReLU6, ResizeLinear1D, RmsNorm, SGD, SeLU, Sigmoid, SigmoidCrossEntropyWithLogits, SmoothL1Loss, SoftMarginLoss,
    SoftShrink, Softmax, SoftmaxCrossEntropyWithLogits, Softplus, Softsign, SparseApplyAdadelta, SparseApplyAdagrad,
    SparseApplyAdagradDA, SparseApplyAdagradV2, SparseApplyCenteredRMSProp, SparseApplyFtrl, SparseApplyFtrlV2,
    SparseApplyMomentum, SparseApplyProximalAdagrad, SparseApplyProximalGradientDescent, SparseApplyRMSProp,
    SparseSoftmaxCrossEntropyWithLogits, Tanh, TripletMarginLoss, UpsampleNearest3D, UpsampleTrilinear3D)
from mindseed.ops.operations._runtime_prims import (  # noqa: F401
    ApplyRotaryPosEmb, DeformableOffsets, GroupTopk, PagedAttention, PagedAttentionMask, ReshapeAndCache)
from mindseed.ops.operations._mint_prims import FlashAttentionScore  # noqa: F401

__all__ = [
    "Adam", "AdamNoUpdateParam", "AdamWeightDecay", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool2D",
    "AdaptiveMaxPool3D", "ApplyAdaMax", "ApplyAdadelta", "ApplyAdagrad", "ApplyAdagradDA", "ApplyAdagradV2",
    "ApplyAdamWithAmsgrad", "ApplyAdamWithAmsgradV2", "ApplyAddSign", "ApplyCenteredRMSProp", "ApplyFtrl",
    "ApplyGradientDescent", "ApplyKerasMomentum", "ApplyMomentum", "ApplyPowerSign", "ApplyProximalAdagrad",
    "ApplyProximalGradientDescent", "ApplyRMSProp", "AvgPool", "AvgPool3D", "BCEWithLogitsLoss", "BatchNorm",
    "BiasAdd", "BinaryCrossEntropy", "CTCGreedyDecoder", "CTCLoss", "CTCLossV2", "CeLU", "ChannelShuffle",
    "ComputeAccidentalHits", "Conv2D", "Conv2DBackpropInput", "Conv2DTranspose", "Conv3D", "Conv3DTranspose",
    "DataFormatDimMap", "DataFormatVecPermute", "Dense", "DepthwiseConv2dNative", "Dropout", "Dropout2D",
    "Dropout3D", "Elu", "FastGeLU", "FastGelu", "Flatten", "FractionalMaxPoolWithFixedKsize", "FusedSparseAdam",
    "FusedSparseFtrl", "FusedSparseLazyAdam", "FusedSparseProximalAdagrad", "GLU", "GeLU", "Gelu", "GridSampler2D",
    "GridSampler3D", "HShrink", "HSigmoid", "HSwish", "InTopK", "KLDivLoss", "L2Loss", "L2Normalize", "LARSUpdate",
    "LRN", "LSTM", "LayerNorm", "LogSoftmax", "LogSoftmaxExt", "MaxPool", "MaxPool3D", "MaxPool3DWithArgmax",
    "MaxPoolWithArgmax", "MaxPoolWithArgmaxV2", "MaxUnpool2D", "MaxUnpool3D", "MirrorPad", "Mish",
    "MultiMarginLoss", "MultilabelMarginLoss", "NLLLoss", "NthElement", "OneHot", "PReLU", "Pad", "PadV3", "Pdist",
    "ROIAlign", "ReLU", "ReLU6", "ResizeLinear1D", "RmsNorm", "SGD", "SeLU", "Sigmoid",
    "SigmoidCrossEntropyWithLogits", "SmoothL1Loss", "SoftMarginLoss", "SoftShrink", "Softmax",
    "SoftmaxCrossEntropyWithLogits", "Softplus", "Softsign", "SparseApplyAdadelta", "SparseApplyAdagrad",
    "SparseApplyAdagradV2", "SparseApplyFtrl", "SparseApplyFtrlV2", "SparseApplyProximalAdagrad",
    "SparseApplyRMSProp", "SparseApplyCenteredRMSProp", "SparseApplyMomentum",
    "SparseApplyProximalGradientDescent", "SparseApplyAdagradDA", "SparseSoftmaxCrossEntropyWithLogits", "Tanh",
    "TripletMarginLoss", "UpsampleNearest3D",
    "UpsampleTrilinear3D", "ApplyRotaryPosEmb", "DeformableOffsets", "GroupTopk", "PagedAttention",
    "PagedAttentionMask", "ReshapeAndCache"]

from mindseed.common import dtype as _mstype  # noqa: E402
from mindseed.common.tensor import Tensor as _Tensor  # noqa: E402
from mindseed.ops import functional as _F  # noqa: E402
from mindseed.ops.operations._base import Primitive as _Primitive  # noqa: E402


class SparseSoftmaxCrossEntropyWithLogitsV2(_Primitive):
    """`SparseSoftmaxCrossEntropyWithLogitsV2()(logits, labels)`: (loss, backprop) per sample: loss = -log
    softmax(logits)[label] (N,) and its gradient for the logits, softmax(logits) - one_hot(label) (N, C).

    Raises:
        TypeError: `logits` not float16 / float32, `labels` not int32 / int64.
        ValueError: `logits` not (N, C) or `labels` not (N,).
    """

    def __init__(self):
        super().__init__("SparseSoftmaxCrossEntropyWithLogitsV2")
        self.init_prim_io_names(inputs=["features", "labels"], outputs=["loss", "backprop"])

    def __call__(self, logits, labels):
        name = self.name
        if not isinstance(logits, _Tensor) or logits.dtype not in (_mstype.float16, _mstype.float32):
            raise TypeError(f"For '{name}', the 'logits' must be a Tensor of float16 or float32, but got "
                            f"{getattr(logits, 'dtype', type(logits).__name__)}.")
        if not isinstance(labels, _Tensor) or labels.dtype not in (_mstype.int32, _mstype.int64):
            raise TypeError(f"For '{name}', the 'labels' must be a Tensor of int32 or int64, but got "
                            f"{getattr(labels, 'dtype', type(labels).__name__)}.")
        if logits.ndim != 2 or labels.shape != logits.shape[:1]:
            raise ValueError(f"For '{name}', the 'logits' must be [batch x classes] and 'labels' [batch], but got "
                             f"{logits.shape} and {labels.shape}.")
        log_p = _F.log_softmax(logits, -1)
        onehot = _F.one_hot(labels, logits.shape[1], _F.ones((), logits.dtype), _F.zeros((), logits.dtype))
        loss = -_F.sum(log_p * onehot, -1)
        return loss, _F.exp(log_p) - onehot


__all__ += ["SparseSoftmaxCrossEntropyWithLogitsV2"]

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import Primitive, PrimitiveWithCheck, PrimitiveWithInfer  # noqa: E402,F401
from mindseed.ops.operations import (  # noqa: E402,F401
    BasicLSTMCell, Dilation2D, DynamicGRUV2, DynamicRNN, FractionalAvgPool, FractionalMaxPool,
    FractionalMaxPool3DWithFixedKsize, GetNext, NuclearNorm, RNNTLoss)
__all__ += ["BasicLSTMCell", "Dilation2D", "DynamicGRUV2", "DynamicRNN", "FractionalAvgPool", "FractionalMaxPool",
            "FractionalMaxPool3DWithFixedKsize", "GetNext", "RNNTLoss"]
