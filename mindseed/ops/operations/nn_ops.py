"""mindspore.ops.operations.nn_ops: activation, loss, normalization, convolution, pooling and optimizer-update
primitives, by MindSpore's module layout (the same classes as `mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    Adam, AdamWeightDecay, AdaptiveAvgPool2D, AdaptiveAvgPool3D, AdaptiveMaxPool2D, AdaptiveMaxPool3D,
    ApplyAdaMax, ApplyAdadelta, ApplyAdagrad, ApplyAdagradV2, ApplyAdamWithAmsgrad, ApplyAdamWithAmsgradV2,
    ApplyCenteredRMSProp, ApplyFtrl, ApplyGradientDescent, ApplyMomentum, ApplyProximalAdagrad, ApplyRMSProp,
    AvgPool, AvgPool3D, BCEWithLogitsLoss, BatchNorm, BiasAdd, BinaryCrossEntropy, CTCGreedyDecoder, CTCLossV2,
    CeLU, ChannelShuffle, Conv2D, Conv2DBackpropInput, Conv2DTranspose, Conv3D, Conv3DTranspose, Dense, Dropout,
    Dropout2D, Dropout3D, Elu, FastGeLU, FastGelu, Flatten, FractionalMaxPoolWithFixedKsize, GLU, GeLU, Gelu,
    GridSampler2D, GridSampler3D, HShrink, HSigmoid, HSwish, InTopK, KLDivLoss, L2Loss, L2Normalize, LARSUpdate,
    LRN, LayerNorm, LogSoftmax, MaxPool, MaxPool3D, MaxPool3DWithArgmax, MaxPoolWithArgmax, MaxPoolWithArgmaxV2,
    MaxUnpool2D, MaxUnpool3D, MirrorPad, Mish, MultiMarginLoss, MultilabelMarginLoss, NLLLoss, OneHot, PReLU,
    Pad, PadV3, Pdist, ROIAlign, ReLU, ReLU6, ResizeLinear1D, RmsNorm, SGD, SeLU, Sigmoid,
    SigmoidCrossEntropyWithLogits, SmoothL1Loss, SoftMarginLoss, SoftShrink, Softmax,
    SoftmaxCrossEntropyWithLogits, Softplus, Softsign, SparseSoftmaxCrossEntropyWithLogits, Tanh,
    TripletMarginLoss, UpsampleNearest3D, UpsampleTrilinear3D)

__all__ = [
    "Adam", "AdamWeightDecay", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool2D",
    "AdaptiveMaxPool3D", "ApplyAdaMax", "ApplyAdadelta", "ApplyAdagrad", "ApplyAdagradV2",
    "ApplyAdamWithAmsgrad", "ApplyAdamWithAmsgradV2", "ApplyCenteredRMSProp", "ApplyFtrl",
    "ApplyGradientDescent", "ApplyMomentum", "ApplyProximalAdagrad", "ApplyRMSProp", "AvgPool", "AvgPool3D",
    "BCEWithLogitsLoss", "BatchNorm", "BiasAdd", "BinaryCrossEntropy", "CTCGreedyDecoder", "CTCLossV2", "CeLU",
    "ChannelShuffle", "Conv2D", "Conv2DBackpropInput", "Conv2DTranspose", "Conv3D", "Conv3DTranspose", "Dense",
    "Dropout", "Dropout2D", "Dropout3D", "Elu", "FastGeLU", "FastGelu", "Flatten",
    "FractionalMaxPoolWithFixedKsize", "GLU", "GeLU", "Gelu", "GridSampler2D", "GridSampler3D", "HShrink",
    "HSigmoid", "HSwish", "InTopK", "KLDivLoss", "L2Loss", "L2Normalize", "LARSUpdate", "LRN", "LayerNorm",
    "LogSoftmax", "MaxPool", "MaxPool3D", "MaxPool3DWithArgmax", "MaxPoolWithArgmax", "MaxPoolWithArgmaxV2",
    "MaxUnpool2D", "MaxUnpool3D", "MirrorPad", "Mish", "MultiMarginLoss", "MultilabelMarginLoss", "NLLLoss",
    "OneHot", "PReLU", "Pad", "PadV3", "Pdist", "ROIAlign", "ReLU", "ReLU6", "ResizeLinear1D", "RmsNorm", "SGD",
    "SeLU", "Sigmoid", "SigmoidCrossEntropyWithLogits", "SmoothL1Loss", "SoftMarginLoss", "SoftShrink",
    "Softmax", "SoftmaxCrossEntropyWithLogits", "Softplus", "Softsign", "SparseSoftmaxCrossEntropyWithLogits",
    "Tanh", "TripletMarginLoss", "UpsampleNearest3D", "UpsampleTrilinear3D"]
