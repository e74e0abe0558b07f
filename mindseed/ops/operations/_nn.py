"""Class API of the nn family (`ops.Softmax(axis=-1)(x)`, `ops.LayerNorm(1, 1, 1e-7)(x, g, b)`, ...)."""
from mindseed import _backend as B
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._api import G
from mindseed.ops._prims import core as P
from mindseed.ops._prims import nn as N
from mindseed.ops._prims import nn_loss as L
from mindseed.ops._prims import nn_norm as NN
from mindseed.ops.functional import _nn as F
from mindseed.ops.functional import _nn_loss as FL
from mindseed.ops.functional import _nn_norm as FN
from mindseed.ops.operations._base import AttrPrimitive, attr_primitive

__all__ = [
    "Softmax", "LogSoftmax", "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", "ReLU6", "Elu",
    "SeLU", "CeLU", "GeLU", "Gelu", "FastGeLU", "FastGelu", "HSwish", "HSigmoid", "HShrink", "SoftShrink", "Mish",
    "Softplus", "Softsign", "GLU", "PReLU", "LayerNorm", "BatchNorm", "Dropout", "Dropout2D", "Dropout3D", "BiasAdd",
    "Dense", "L2Normalize", "L2Loss", "LRN", "RmsNorm", "BCEWithLogitsLoss", "BinaryCrossEntropy", "KLDivLoss",
    "NLLLoss", "SmoothL1Loss", "SoftMarginLoss", "MultiMarginLoss", "MultilabelMarginLoss", "TripletMarginLoss",
    "SigmoidCrossEntropyWithLogits", "CTCLossV2", "CTCGreedyDecoder", "InTopK", "Pdist", "Cdist",
]


ReLU6 = attr_primitive("ReLU6", F.relu6, "min(max(x, 0), 6).")
SeLU = attr_primitive("SeLU", F.selu, "Scaled exponential linear unit.")
# MindSpore's GeLU primitive computes the tanh approximation (ops.gelu's default is the exact form)
GeLU = attr_primitive("GeLU", lambda x: F.gelu(x, approximate="tanh"),
              "Gaussian error linear unit, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).")
Gelu = attr_primitive("Gelu", lambda x: F.gelu(x, approximate="tanh"), "Deprecated spelling of GeLU.")
FastGeLU = attr_primitive("FastGeLU", G.fast_gelu, "x * sigmoid(1.702 x).")
FastGelu = attr_primitive("FastGelu", G.fast_gelu, "Deprecated spelling of FastGeLU.")
HSwish = attr_primitive("HSwish", G.hardswish, "x * relu6(x + 3) / 6.")
HSigmoid = attr_primitive("HSigmoid", G.hardsigmoid, "relu6(x + 3) / 6.")
Mish = attr_primitive("Mish", G.mish, "x * tanh(softplus(x)).")
Softplus = attr_primitive("Softplus", F.softplus, "log(1 + exp(x)).")
Softsign = attr_primitive("Softsign", G.softsign, "x / (1 + |x|).")
L2Loss = attr_primitive("L2Loss", lambda x: P.mul_p(P.reduce_sum_p(P.mul_p(x, x)), 0.5), "sum(x^2) / 2.")


def _single_axis(op, axis):
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            raise ValueError(f"For '{op}', the 'axis' must be an int or a tuple of one int, but got {axis}.")
        axis = axis[0]
    return axis


class Softmax(AttrPrimitive):
    """softmax along `axis` (an int or a tuple of one int; kept as a tuple, as MindSpore keeps it)."""
    _params = (("axis", -1),)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if isinstance(self.axis, int) and not isinstance(self.axis, bool):
            self.axis = (self.axis,)
            self.add_prim_attr("axis", self.axis)

    def __call__(self, input):
        return F.softmax(input, _single_axis("Softmax", self.axis))


class LogSoftmax(AttrPrimitive):
    """log_softmax along `axis`."""
    _params = (("axis", -1),)

    def __call__(self, logits):
        return F.log_softmax(logits, _single_axis("LogSoftmax", self.axis))


Elu = attr_primitive("Elu", F.elu, "elu(x, alpha).", (("alpha", 1.0),))
CeLU = attr_primitive("CeLU", F.celu, "celu(x, alpha).", (("alpha", 1.0),))
HShrink = attr_primitive("HShrink", F.hardshrink, "hardshrink(x, lambd).", (("lambd", 0.5),))
SoftShrink = attr_primitive("SoftShrink", F.softshrink, "softshrink(x, lambd).", (("lambd", 0.5),))
GLU = attr_primitive("GLU", F.glu, "glu(x, axis): first half times sigmoid of the second.", (("axis", -1),))


class PReLU(AttrPrimitive):
    """prelu(x, weight) with per-channel slopes."""
    def __call__(self, input, weight):
        return F.prelu(input, weight)


class BiasAdd(AttrPrimitive):
    """x + bias along the channel axis of `data_format`."""
    _params = (("data_format", "NCHW"),)

    def __call__(self, input_x, bias):
        if isinstance(input_x, Tensor) and isinstance(bias, Tensor) and input_x.dtype != bias.dtype:
            raise TypeError(f"For primitive[BiasAdd], the input type must be same.\nname:[bias]:Tensor[{bias.dtype}]."
                            f"\nname:[input_x]:Tensor[{input_x.dtype}].")
        if self.data_format not in ("NCHW", "NCDHW", "NHWC"):
            raise ValueError(f"For 'BiasAdd', the 'data_format' must be 'NCHW', 'NCDHW' or 'NHWC', but got "
                             f"{self.data_format}.")
        if self.data_format == "NHWC":
            if bias.ndim != 1 or bias.shape[0] != input_x.shape[-1]:
                raise ValueError(f"For 'BiasAdd', the 'bias' shape {bias.shape} must be (C,) with C the last "
                                 f"dimension of 'input_x' {input_x.shape}.")
            return P.add_p(input_x, bias)
        return F.bias_add(input_x, bias)


class Dense(AttrPrimitive):
    """x @ weight.T + bias."""
    def __call__(self, input, weight, bias=None):
        return F.dense(input, weight, bias)


Pdist = attr_primitive("Pdist", F.pdist, "p-norm distances between the rows of x.", (("p", 2.0),))


class Cdist(AttrPrimitive):
    """p-norm distances between the rows of x1 and x2."""
    _params = (("p", 2.0),)

    def __call__(self, x1, x2):
        return F.cdist(x1, x2, self.p)


# ---------------------------------------------------------------- softmax cross entropy
class SoftmaxCrossEntropyWithLogits(AttrPrimitive):
    """(loss per sample, gradient softmax - labels) for 2-D logits and one-hot (or soft) labels."""

    def __call__(self, logits, labels):
        FL._check_float("SoftmaxCrossEntropyWithLogits", "logits", logits)
        FL._check_float("SoftmaxCrossEntropyWithLogits", "labels", labels)
        if logits.ndim != 2 or logits.shape != labels.shape:
            raise ValueError(f"For 'SoftmaxCrossEntropyWithLogits', the 'logits' and 'labels' must be 2-D of the same "
                             f"shape, but got {logits.shape} and {labels.shape}.")
        if labels.dtype != logits.dtype:
            labels = P.cast_p(labels, dtype=logits.dtype.name)
        return L.sce_p(logits, labels)


class SparseSoftmaxCrossEntropyWithLogits(AttrPrimitive):
    """Mean cross entropy of 2-D logits and class indices; with `is_grad`, its gradient w.r.t. the logits."""
    _params = (("is_grad", False),)

    def __call__(self, logits, labels):
        op = "SparseSoftmaxCrossEntropyWithLogits"
        FL._check_float(op, "logits", logits)
        if logits.ndim != 2 or labels.shape != logits.shape[:1]:
            raise ValueError(f"For '{op}', the 'logits' must be (N, C) and 'labels' (N,), but got {logits.shape} and "
                             f"{labels.shape}.")
        if not self.is_grad:
            return FL.cross_entropy(logits, labels)
        hot = FL._one_hot_rows(labels, logits.shape[1], logits)
        return P.mul_p(P.sub_p(N.softmax_p(logits, axis=-1), hot), 1.0 / logits.shape[0])


class SigmoidCrossEntropyWithLogits(AttrPrimitive):
    """Elementwise binary cross entropy of sigmoid(logits) and label (no reduction)."""

    def __call__(self, logits, label):
        return FL.binary_cross_entropy_with_logits(logits, label, reduction="none")


# ---------------------------------------------------------------- normalization
def check_layer_norm_axes(rank, begin_norm_axis, begin_params_axis):
    """MindSpore's LayerNorm takes begin axes in [-1, rank) only (its shape inference raises a RuntimeError)."""
    for name, v in (("begin_norm_axis", begin_norm_axis), ("begin_params_axis", begin_params_axis)):
        if not -1 <= v < rank:
            raise RuntimeError(f"For primitive[LayerNorm], input_x's rank is {rank}, while the '{name}' value should "
                               f"be in the range [-1, {rank}), but got {v}")


class LayerNorm(AttrPrimitive):
    """(y, mean, variance) of layer normalization over the axes from `begin_norm_axis` on.

    gamma and beta have the shape of the input from `begin_params_axis` on.
    """
    _params = (("begin_norm_axis", 1), ("begin_params_axis", 1), ("epsilon", 1e-7))

    def __call__(self, input_x, gamma, beta):
        op = "LayerNorm"
        FN._check_float(op, "input_x", input_x)
        nd = input_x.ndim
        check_layer_norm_axes(nd, self.begin_norm_axis, self.begin_params_axis)
        norm_axis, params_axis = self.begin_norm_axis % max(nd, 1), self.begin_params_axis % max(nd, 1)
        ns = input_x.shape[norm_axis:]
        ps = input_x.shape[params_axis:]
        for name, t in (("gamma", gamma), ("beta", beta)):
            if t.shape != ps:
                raise ValueError(f"For '{op}', the '{name}' shape must be {ps}, but got {t.shape}.")
        if ps == ns:
            y, mean, rstd = NN.layer_norm_p(input_x, gamma, beta, normalized_shape=ns, eps=float(self.epsilon))
        else:
            y, mean, rstd = NN.layer_norm_p(input_x, None, None, normalized_shape=ns, eps=float(self.epsilon))
            y = P.add_p(P.mul_p(y, gamma), beta)
        variance = P.sub_p(P.pow_p(rstd, -2.0), float(self.epsilon))
        return y, mean, variance


class BatchNorm(AttrPrimitive):
    """(y, batch_mean, batch_variance, reserve_1, reserve_2); in training, mean and variance are updated."""
    _params = (("is_training", False), ("epsilon", 1e-5), ("momentum", 0.1), ("data_format", "NCHW"))

    def __call__(self, input_x, scale, bias, mean, variance):
        if self.data_format != "NCHW":
            raise ValueError(f"For 'BatchNorm', the 'data_format' must be 'NCHW', but got {self.data_format}.")
        y = FN.batch_norm(input_x, mean, variance, scale, bias, self.is_training, self.momentum, self.epsilon)
        if not self.is_training:
            return y, mean, variance, mean, variance
        axes = (0,) + tuple(range(2, input_x.ndim))
        m = 1.0 / (input_x.size // max(input_x.shape[1], 1))
        bmean = P.mul_p(P.reduce_sum_p(input_x, axis=axes), m)
        shape = (input_x.shape[1],) + (1,) * (input_x.ndim - 2)
        xc = P.sub_p(input_x, P.reshape_p(bmean, shape=shape))
        bvar = P.mul_p(P.reduce_sum_p(P.mul_p(xc, xc), axis=axes), m)
        return y, bmean, bvar, bmean, bvar


class RmsNorm(AttrPrimitive):
    """(y, rstd) of root-mean-square normalization."""
    _params = (("epsilon", 1e-6),)

    def __call__(self, x, gamma):
        return FN.rms_norm(x, gamma, self.epsilon)


class L2Normalize(AttrPrimitive):
    """x / sqrt(max(sum(x^2, axis), epsilon))."""
    _params = (("axis", 0), ("epsilon", 1e-4))

    def __call__(self, x):
        if isinstance(self.axis, (tuple, list)) and len(self.axis) != 1:
            raise TypeError(f"For 'L2Normalize', the length of 'axis' must be 1, but got {len(self.axis)}, later will "
                            f"support multiple axis!")
        return FN._l2_normalize(x, _single_axis("L2Normalize", self.axis), self.epsilon)


class LRN(AttrPrimitive):
    """Local response normalization across channels."""
    _params = (("depth_radius", 5), ("bias", 1.0), ("alpha", 1.0), ("beta", 0.5), ("norm_region", "ACROSS_CHANNELS"))

    def __call__(self, x):
        return FN.lrn(x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)


# ---------------------------------------------------------------- dropout
def _check_keep_prob(op, keep_prob, low_inclusive=False):
    ok = isinstance(keep_prob, (int, float)) and not isinstance(keep_prob, bool) and (
        0 <= keep_prob <= 1 if low_inclusive else 0 < keep_prob <= 1)
    if not ok:
        bound = "[" if low_inclusive else "("
        raise ValueError(f"For '{op}', the 'keep_prob' must be a float in range {bound}0, 1], but got {keep_prob}.")
    return float(keep_prob)


class Dropout(AttrPrimitive):
    """(x * mask / keep_prob, mask) with mask ~ Bernoulli(keep_prob), in x's dtype."""
    _params = (("keep_prob", 0.5), ("Seed0", 0), ("Seed1", 0))

    def __call__(self, x):
        keep = _check_keep_prob("Dropout", self.keep_prob)
        F._check_float("Dropout", "x", x)
        engines = self.__dict__.get("_engines")
        if engines is None:     # MindSpore's kernels of this primitive: one per shape, seeded by (Seed0, Seed1)
            engines = self._engines = B.KernelEngines(int(self.Seed0), int(self.Seed1))
        return N.dropout_p(x, p=1.0 - keep, generator=engines)


class _ChannelDropout(AttrPrimitive):
    _params = (("keep_prob", 0.5),)
    _ndim = 4

    def __call__(self, x):
        op = type(self).__name__
        keep = _check_keep_prob(op, self.keep_prob, low_inclusive=True)  # keep_prob=0 drops every channel
        if not isinstance(x, Tensor) or x.ndim != self._ndim:
            raise ValueError(f"For '{op}', the input must be a {self._ndim}-D Tensor, but got "
                             f"{getattr(x, 'shape', type(x).__name__)}.")
        out, mask = N.dropout_p(x, p=1.0 - keep, generator=F._channel_dropout_engines(x.ndim, keep), channel_dims=2)
        return out, P.cast_p(P.broadcast_to_p(mask, shape=x.shape), dtype=mstype.bool_.name)


class Dropout2D(_ChannelDropout):
    """(output, bool mask) zeroing whole channels of an NCHW input."""
    _ndim = 4


class Dropout3D(_ChannelDropout):
    """(output, bool mask) zeroing whole channels of an NCDHW input."""
    _ndim = 5


def _philox_key(seed, offset):
    """One 64-bit generator seed from MindSpore's (seed, offset) pair (splitmix64 of both): the stream a
    counter-based op draws is a function of the pair alone."""
    z = (seed * 0x9E3779B97F4A7C15 + offset + 0x632BE59BD9B4E019) % 0x1_0000_0000_0000_0000
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 0x1_0000_0000_0000_0000
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 0x1_0000_0000_0000_0000
    return (z ^ (z >> 31)) >> 1  # torch seeds are non-negative int64s


def _scalar_int(op, name, value):
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype.name.startswith(("Int", "UInt")):
        return int(value.asnumpy())
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise TypeError(f"For '{op}', the '{name}' must be an integer scalar Tensor (from Generator._step), but got "
                    f"{value!r}.")


class DropoutExt(AttrPrimitive):
    """(output, mask): each element zeroed with probability `p`, the rest scaled by 1 / (1 - p); the bool mask marks
    the kept ones. The mask is a function of (seed, offset) alone (MindSpore's Philox counter), so the same pair
    gives the same mask; the gradient flows through the mask."""

    def __call__(self, input, p, seed, offset):
        F._check_float("DropoutExt", "input", input)
        if isinstance(p, bool) or not isinstance(p, (float, int)) or not 0 <= p <= 1:
            raise ValueError(f"For 'DropoutExt', the 'p' must be a float in range [0, 1], but got {p!r}.")
        key = _philox_key(_scalar_int("DropoutExt", "seed", seed), _scalar_int("DropoutExt", "offset", offset))
        out, mask = N.dropout_p(input, p=float(p), generator=B.Generator(key))
        return out, P.cast_p(mask, dtype=mstype.bool_.name)


# ---------------------------------------------------------------- losses
class BCEWithLogitsLoss(AttrPrimitive):
    """binary_cross_entropy_with_logits with a fixed reduction."""
    _params = (("reduction", "mean"),)

    def __call__(self, input, target, weight=None, posWeight=None):
        return FL.binary_cross_entropy_with_logits(input, target, weight, posWeight, self.reduction)


class BinaryCrossEntropy(AttrPrimitive):
    """binary_cross_entropy with a fixed reduction."""
    _params = (("reduction", "mean"),)

    def __call__(self, input, target, weight=None):
        return FL.binary_cross_entropy(input, target, weight, self.reduction)


class KLDivLoss(AttrPrimitive):
    """kl_div with a fixed reduction."""
    _params = (("reduction", "mean"),)

    def __call__(self, logits, labels):
        return FL.kl_div(logits, labels, self.reduction)


class NLLLoss(AttrPrimitive):
    """(loss, total_weight) of the negative log likelihood of 2-D log-probabilities."""
    _params = (("reduction", "mean"), ("ignore_index", -100))

    def __call__(self, logits, labels, weight):
        loss = FL.nll_loss(logits, labels, weight, self.ignore_index, self.reduction)
        _, total = L.nll_loss_p(logits, labels, weight, reduction="mean", ignore_index=self.ignore_index)
        return loss, P.stop_gradient_p(total)


class SmoothL1Loss(AttrPrimitive):
    """smooth_l1_loss with fixed beta and reduction."""
    _params = (("beta", 1.0), ("reduction", "none"))

    def __call__(self, prediction, target):
        return FL.smooth_l1_loss(prediction, target, self.beta, self.reduction)


class SoftMarginLoss(AttrPrimitive):
    """soft_margin_loss with a fixed reduction."""
    _params = (("reduction", "mean"),)

    def __call__(self, input, target):
        return FL.soft_margin_loss(input, target, self.reduction)


class MultiMarginLoss(AttrPrimitive):
    """multi_margin_loss with fixed p, margin and reduction."""
    _params = (("p", 1), ("margin", 1.0), ("reduction", "mean"))

    def __call__(self, x, target, weight=None):
        margin = self.margin
        if isinstance(margin, float) and margin.is_integer():
            margin = int(margin)
        return FL.multi_margin_loss(x, target, self.p, margin, weight, self.reduction)


class MultilabelMarginLoss(AttrPrimitive):
    """(loss, is_target) of the multi-label hinge loss."""
    _params = (("reduction", "mean"),)

    def __call__(self, x, target):
        loss = FL.multilabel_margin_loss(x, target, self.reduction)
        _, is_target = L.multilabel_margin_counts_p(target, num_classes=x.shape[-1])
        if x.ndim == 1:
            is_target = P.reshape_p(is_target, shape=x.shape)
        return loss, P.cast_p(is_target, dtype=target.dtype.name)


class TripletMarginLoss(AttrPrimitive):
    """triplet_margin_loss; the margin is an input."""
    _params = (("p", 2), ("swap", False), ("eps", 1e-6), ("reduction", "mean"))

    def __call__(self, x, positive, negative, margin):
        return FL.triplet_margin_loss(x, positive, negative, margin, self.p, self.eps, self.swap, self.reduction)


class CTCLossV2(AttrPrimitive):
    """(loss, log_alpha) of the CTC loss of (T, N, C) log-probabilities."""
    _params = (("blank", 0), ("reduction", "none"), ("zero_infinity", False))

    def __call__(self, log_probs, targets, input_lengths, target_lengths):
        return FL.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                           self.zero_infinity)


class CTCGreedyDecoder(AttrPrimitive):
    """(decoded_indices, decoded_values, decoded_shape, log_probability) of greedy CTC decoding."""
    _params = (("merge_repeated", True),)

    def __call__(self, inputs, sequence_length):
        return FL.ctc_greedy_decoder(inputs, sequence_length, self.merge_repeated)


class InTopK(AttrPrimitive):
    """Whether each target is in the top k of its row."""
    _params = (("k", 1),)

    def __call__(self, x1, x2):
        return FL.intopk(x1, x2, self.k)
