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
    SparseApplyAdagradV2, SparseApplyFtrl, SparseApplyFtrlV2, SparseApplyProximalAdagrad, SparseApplyRMSProp,
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
    "SparseApplyRMSProp", "SparseSoftmaxCrossEntropyWithLogits", "Tanh", "TripletMarginLoss", "UpsampleNearest3D",
    "UpsampleTrilinear3D", "ApplyRotaryPosEmb", "DeformableOffsets", "GroupTopk", "PagedAttention",
    "PagedAttentionMask", "ReshapeAndCache"]
