"""Loss cells with MindSpore's arguments and defaults; most are thin Cells over the functional losses.

LossBase.get_loss(x, weights) applies the configured reduction ('mean', 'sum' or 'none') in float32 and
casts back, as MindSpore does; custom losses subclass LossBase and call it.
"""
import math

from mindseed._backend.kernels import nn as _KN
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.layer.activation import LogSoftmax, get_activation
from mindseed.ops import functional as F
from mindseed.ops._prims import core as P
from mindseed.ops._prims import nn_loss as PL
from mindseed.ops.operations._random import UniformCandidateSampler

__all__ = ["LossBase", "L1Loss", "L1LossExt", "MSELoss", "RMSELoss", "MAELoss", "MarginRankingLoss", "SmoothL1Loss",
           "SoftMarginLoss", "SoftmaxCrossEntropyWithLogits", "DiceLoss", "MultiClassDiceLoss",
           "SampledSoftmaxLoss", "TripletMarginWithDistanceLoss", "PoissonNLLLoss", "MultiLabelSoftMarginLoss",
           "MultiMarginLoss", "BCELoss", "CosineEmbeddingLoss", "MultilabelMarginLoss", "BCEWithLogitsLoss",
           "FocalLoss", "HuberLoss", "TripletMarginLoss", "NLLLoss", "CrossEntropyLoss", "KLDivLoss", "CTCLoss",
           "GaussianNLLLoss", "HingeEmbeddingLoss"]


def _check_is_tensor(cls, name, x):
    if x is not None and not isinstance(x, Tensor):
        raise TypeError(f"For '{cls}', the '{name}' must be 'Tensor', but got '{type(x).__name__}'")


class LossBase(Cell):
    """Base class of losses: holds the reduction and applies it in `get_loss`.

    Args:
        reduction (str): ``'mean'``, ``'sum'`` or ``'none'``. Default ``'mean'``.

    >>> import mindseed as ms
    >>> class Abs(ms.nn.LossBase):
    ...     def construct(self, p, t):
    ...         return self.get_loss(ms.ops.abs(p - t))
    >>> float(Abs()(ms.Tensor([1.0, 3.0]), ms.Tensor([0.0, 0.0])))
    2.0
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"For '{type(self).__name__}', the 'reduction' must be in ['mean', 'sum', 'none'], but "
                             f"got {reduction}.")
        self.average = reduction != "sum"
        self.reduce = reduction != "none"

    def get_axis(self, x):
        """All the axes of x, as a tuple."""
        return tuple(range(x.ndim))

    def get_loss(self, x, weights=1.0):
        """weights * x reduced by the configured reduction (computed in float32, returned in x's dtype).

        Args:
            x (Tensor): the unreduced loss.
            weights (Union[Tensor, float]): broadcast against x. Default ``1.0``.
        """
        input_dtype = x.dtype
        # float64 stays float64 (MindSpore would round it through float32)
        work = mstype.float64 if input_dtype == mstype.float64 else mstype.float32
        if input_dtype != work:
            x = F.cast(x, work)
        if isinstance(weights, Tensor):
            x = P.mul_p(F.cast(weights, work), x)
        elif weights != 1.0:
            x = P.mul_p(x, float(weights))
        if self.reduce:
            x = F.mean(x) if self.average else F.sum(x)
        if input_dtype != work:
            x = F.cast(x, input_dtype)
        return x


class L1Loss(LossBase):
    """|logits - labels|, reduced.

    >>> import mindseed as ms
    >>> ms.nn.L1Loss()(ms.Tensor([1.0, 2.0]), ms.Tensor([0.0, 0.0])).asnumpy()
    array(1.5, dtype=float32)
    """

    def __init__(self, reduction="mean"):
        super().__init__(reduction)
        self.reduction = reduction

    def construct(self, logits, labels):
        return F.l1_loss(logits, labels, self.reduction)


class L1LossExt(L1Loss):
    """L1Loss (the PyTorch-style spelling)."""


class MSELoss(LossBase):
    """(logits - labels) ** 2, reduced."""

    def construct(self, logits, labels):
        _check_is_tensor("MSELoss", "logits", logits)
        _check_is_tensor("MSELoss", "labels", labels)
        diff = P.sub_p(logits, labels)
        return self.get_loss(P.mul_p(diff, diff))


class RMSELoss(LossBase):
    """sqrt(mean((logits - label) ** 2))."""

    def __init__(self):
        super().__init__()
        self.MSELoss = MSELoss()

    def construct(self, logits, label):
        for v in (logits, label):
            if v.dtype in (mstype.uint8, mstype.uint16, mstype.uint32, mstype.uint64):
                raise TypeError(f"For 'RMSELoss', the parameters data type must not be in [UInt8, UInt16, UInt32, "
                                f"UInt64], but got mindspore.{str(v.dtype).lower()}.")
        return F.sqrt(self.MSELoss(logits, label))


class MAELoss(LossBase):
    """|logits - label|, reduced (via get_loss)."""

    def construct(self, logits, label):
        _check_is_tensor("MAELoss", "logits", logits)
        _check_is_tensor("MAELoss", "labels", label)
        return self.get_loss(F.abs(P.sub_p(logits, label)))


class MarginRankingLoss(LossBase):
    """max(0, -target * (input1 - input2) + margin), reduced."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.reduction = reduction
        self.margin = margin

    def construct(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class SmoothL1Loss(LossBase):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta; reduction 'none' by default."""

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        self.beta = beta
        self.reduction = reduction

    def construct(self, logits, labels):
        return F.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class SoftMarginLoss(LossBase):
    """log(1 + exp(-labels * logits)), reduced."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction)
        self.reduction = reduction

    def construct(self, logits, labels):
        return F.soft_margin_loss(logits, labels, self.reduction)




class SoftmaxCrossEntropyWithLogits(LossBase):
    """-sum(labels * log_softmax(logits)) per sample; `sparse` labels are class indices.

    Args:
        sparse (bool): labels are class indices (N,) instead of (N, C) distributions. Default ``False``.
        reduction (str): Default ``'none'`` (!).
    """

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        if not isinstance(sparse, bool):
            raise TypeError(f"For 'SoftmaxCrossEntropyWithLogits', the 'sparse' must be bool, but got "
                            f"{type(sparse).__name__}.")
        self.sparse = sparse
        self.reduction = reduction

    def construct(self, logits, labels):
        _check_is_tensor("SoftmaxCrossEntropyWithLogits", "logits", logits)
        _check_is_tensor("SoftmaxCrossEntropyWithLogits", "labels", labels)
        if self.sparse:
            if labels.shape != logits.shape[:-1]:
                raise ValueError(f"For 'SparseSoftmaxCrossEntropyWithLogits', the shape of 'labels' must be "
                                 f"{logits.shape[:-1]}, but got {labels.shape}.")
            if not mstype.is_integral(labels.dtype) or labels.dtype == mstype.bool_:
                raise TypeError(f"For 'SparseSoftmaxCrossEntropyWithLogits', the 'labels' must be an int tensor of "
                                f"class indices, but got {labels.dtype}.")
            flat = labels if labels.dtype == mstype.int64 else F.cast(labels, mstype.int64)
            if self.reduction == "mean" and logits.ndim == 2 and logits.dtype in (mstype.float32, mstype.float64):
                # MindSpore's fused SparseSoftmaxCrossEntropyWithLogits: one kernel each way
                return PL.sparse_sce_p(logits, flat)[0]
            logp = F.log_softmax(logits, -1)
            # -logp[label] per sample: one NLLLoss kernel (its gradient one NLLLossGrad), on rows of classes
            n_classes = logits.shape[-1]
            rows = logp if logp.ndim == 2 else P.reshape_p(logp, shape=(-1, n_classes))
            if flat.ndim != 1:
                flat = P.reshape_p(flat, shape=(-1,))   # int64: one conversion for both passes
            x = PL.nll_loss_p(rows, flat, None, reduction="none", ignore_index=_KN.EVERY_CLASS)[0]
            if labels.ndim != 1:
                x = P.reshape_p(x, shape=labels.shape)
        else:
            if labels.shape != logits.shape:
                raise ValueError(f"For 'SoftmaxCrossEntropyWithLogits', the shape of 'logits' {logits.shape} and "
                                 f"'labels' {labels.shape} must be the same.")
            if labels.dtype != logits.dtype:
                raise TypeError(f"For primitive[SoftmaxCrossEntropyWithLogits], the input type must be same, but got "
                                f"'logits': {logits.dtype} and 'labels': {labels.dtype}.")
            if logits.ndim == 2 and mstype.is_float(logits.dtype):
                # MindSpore's fused kernel: its gradient is softmax - labels, which is the exact one only for labels
                # summing to 1 per row (soft labels that do not get MindSpore's gradient, not -sum(labels) dlogp)
                x = PL.sce_p(logits, labels if labels.dtype == logits.dtype else F.cast(labels, logits.dtype))[0]
            else:
                logp = F.log_softmax(logits, -1)
                x = P.neg_p(F.sum(P.mul_p(F.cast(labels, logp.dtype), logp), -1))
        return self.get_loss(x)


class DiceLoss(LossBase):
    """1 - 2 |X . Y| / (|X|^2 + |Y|^2 + smooth) over all elements."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        if isinstance(smooth, bool) or not isinstance(smooth, float) or smooth <= 0:
            raise ValueError(f"For 'DiceLoss', the 'smooth' must be a positive float, but got {smooth}.")
        self.smooth = smooth

    def construct(self, logits, label):
        _check_is_tensor("DiceLoss", "logits", logits)
        _check_is_tensor("DiceLoss", "labels", label)
        if logits.shape != label.shape:
            raise ValueError(f"For 'DiceLoss', the 'logits_shape' must be equal to 'label_shape', but got "
                             f"{logits.shape} and {label.shape}.")
        for name, v in (("logits", logits), ("labels", label)):
            if v.dtype == mstype.uint8:
                raise TypeError(f"For 'DiceLoss', the dtype of '{name}' can not be uint8.")
        a, b = P.reshape_p(logits, shape=(-1,)), P.reshape_p(label, shape=(-1,))
        intersection = F.sum(P.mul_p(a, b))
        union = P.add_p(F.sum(P.mul_p(a, a)), F.sum(P.mul_p(b, b)))
        return P.sub_p(1, P.div_p(P.mul_p(intersection, 2), P.add_p(union, self.smooth)))


class MultiClassDiceLoss(LossBase):
    """Mean over classes (axis 1) of the binary DiceLoss, after an optional activation; classes optionally
    weighted and one optionally ignored (`ignore_indiex`, MindSpore's spelling)."""

    def __init__(self, weights=None, ignore_indiex=None, activation="softmax"):
        super().__init__()
        activations = ["softmax", "logsoftmax", "relu", "relu6", "tanh", "sigmoid"]
        self.binarydiceloss = DiceLoss(smooth=1e-5)
        if weights is not None and not isinstance(weights, Tensor):
            raise TypeError(f"For 'MultiClassDiceLoss', the 'weights' must be Tensor, but got "
                            f"{type(weights).__name__}.")
        if isinstance(weights, Tensor) and weights.ndim != 2:
            raise ValueError(f"For 'MultiClassDiceLoss', the dimension of 'weights' must be 2, but got "
                             f"{weights.ndim}.")
        self.weights = weights
        if ignore_indiex is not None and (isinstance(ignore_indiex, bool) or not isinstance(ignore_indiex, int)):
            raise TypeError(f"For 'MultiClassDiceLoss', the 'ignore_indiex' must be int, but got "
                            f"{type(ignore_indiex).__name__}.")
        self.ignore_indiex = ignore_indiex
        if isinstance(activation, str) and activation not in activations:
            raise ValueError(f"For 'MultiClassDiceLoss', the 'activation' must be in {activations}, but got "
                             f"{activation}.")
        self.activation = get_activation(activation) if isinstance(activation, str) else activation
        if self.activation is not None and not isinstance(self.activation, Cell):
            raise TypeError(f"For 'MultiClassDiceLoss', the 'activation' must be str or Cell, but got "
                            f"{type(self.activation)}.")

    def construct(self, logits, label):
        _check_is_tensor("MultiClassDiceLoss", "logits", logits)
        _check_is_tensor("MultiClassDiceLoss", "labels", label)
        if logits.shape != label.shape:
            raise ValueError(f"For 'MultiClassDiceLoss', the 'logits_shape' must be equal to 'label_shape', but got "
                             f"{logits.shape} and {label.shape}.")
        if logits.ndim < 2 or label.ndim < 2:
            raise ValueError(f"For 'MultiClassDiceLoss', the 'logits' dimension must be greater than 1, but got "
                             f"{logits.ndim}.")
        if self.activation is not None:
            logits = self.activation(logits)
        total = 0
        for i in range(label.shape[1]):
            if i != self.ignore_indiex:
                dice = self.binarydiceloss(logits[:, i], label[:, i])
                if self.weights is not None:
                    if self.weights.shape[0] != label.shape[1]:
                        raise ValueError(f"For 'MultiClassDiceLoss', the weight_shape[0] must be equal to "
                                         f"label_shape[1], but got weight_shape[0]: {self.weights.shape[0]} and "
                                         f"label_shape[1]: {label.shape[1]}.")
                    dice = P.mul_p(dice, self.weights[i])
                total = P.add_p(dice, total) if isinstance(total, Tensor) else dice
        return P.div_p(total, label.shape[1])


class SampledSoftmaxLoss(LossBase):
    """Softmax cross entropy over the true classes and `num_sampled` classes drawn uniformly (with the
    log-expected-count correction), for large output layers.

    Inputs: weights (C, dim), biases (C,), labels (N, num_true) int, logits (N, dim) (the hidden activations).
    """

    def __init__(self, num_sampled, num_classes, num_true=1, sampled_values=None, remove_accidental_hits=True,
                 seed=0, reduction="none"):
        super().__init__(reduction)
        for name, v in (("num_sampled", num_sampled), ("num_classes", num_classes), ("num_true", num_true),
                        ("seed", seed)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'SampledSoftmaxLoss', the '{name}' must be an int, but got {type(v).__name__}.")
        if num_true < 1:
            raise ValueError(f"For 'SampledSoftmaxLoss', the 'num_true' must be greater than or equal to 1, but got "
                             f"{num_true}.")
        if seed < 0:
            raise ValueError(f"For 'SampledSoftmaxLoss', the 'seed' must be greater than or equal to 0, but got "
                             f"{seed}.")
        if num_sampled > num_classes:
            raise ValueError(f"For 'SampledSoftmaxLoss', the 'num_sampled' must be smaller than or equal to "
                             f"'num_classes', but got 'num_sampled': {num_sampled} and 'num_classes': {num_classes}.")
        if num_true > num_classes:
            raise ValueError(f"For 'SampledSoftmaxLoss', the 'num_true' must be smaller than or equal to "
                             f"'num_classes', but got 'num_true': {num_true} amd 'num_classes': {num_classes}.")
        if sampled_values is not None:
            if not isinstance(sampled_values, (list, tuple)):
                raise TypeError(f"For 'SampledSoftmaxLoss', the type of 'sampled_values' must be a list or tuple, "
                                f"but got {type(sampled_values).__name__}.")
            if len(sampled_values) != 3:
                raise ValueError(f"For 'SampledSoftmaxLoss', the length of 'sampled_values' must be equal to 3,but "
                                 f"got {len(sampled_values)}.")
        self.num_sampled, self.num_classes, self.num_true = num_sampled, num_classes, num_true
        self.sampled_values = sampled_values
        self.remove_accidental_hits = remove_accidental_hits
        self.seed = seed
        self.sampler = UniformCandidateSampler(num_true, num_sampled, True, num_classes, seed,
                                               remove_accidental_hits)   # one engine across calls, as MindSpore's

    def construct(self, weights, biases, labels, logits):
        for name, v in (("weights", weights), ("biases", biases), ("labels", labels), ("logits", logits)):
            _check_is_tensor("SampledSoftmaxLoss", name, v)
        if labels.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For 'SampledSoftmaxLoss', the 'labels' must be int32 or int64, but got {labels.dtype}.")
        out_logits, out_labels = self._compute_sampled_logits(weights, biases, labels, logits)
        x = P.neg_p(F.sum(P.mul_p(out_labels, F.log_softmax(out_logits, 1)), 1))
        return self.get_loss(x)

    def _compute_sampled_logits(self, weights, biases, labels, logits):
        num_true = self.num_true
        labels = P.reshape_p(F.cast(labels, mstype.int64), shape=(-1, num_true))
        if self.sampled_values is None:
            sampled, true_expected, sampled_expected = self.sampler(F.cast(labels, mstype.int32))
        else:
            sampled, true_expected, sampled_expected = self.sampled_values
        sampled = F.cast(sampled, mstype.int64)
        labels_flat = P.reshape_p(labels, shape=(-1,))
        true_w = F.gather(weights, labels_flat, 0)
        sampled_w = F.gather(weights, sampled, 0)
        sampled_logits = P.matmul_p(logits, sampled_w, transpose_b=True)
        true_logits = F.sum(P.mul_p(P.reshape_p(logits, shape=(logits.shape[0], 1, logits.shape[1])),
                                    P.reshape_p(true_w, shape=(-1, num_true, true_w.shape[1]))), 2)
        true_logits = P.add_p(true_logits, P.reshape_p(F.gather(biases, labels_flat, 0), shape=(-1, num_true)))
        sampled_logits = P.add_p(sampled_logits, F.gather(biases, sampled, 0))
        true_logits = P.sub_p(true_logits, F.log(F.cast(true_expected, true_logits.dtype)))
        sampled_logits = P.sub_p(sampled_logits, F.log(F.cast(sampled_expected, sampled_logits.dtype)))
        out_logits = F.concat((true_logits, sampled_logits), 1)
        out_labels = F.concat((P.div_p(P.ones_like_p(true_logits), num_true), P.zeros_like_p(sampled_logits)), 1)
        return out_logits, out_labels


def _pairwise_distance(x, y):
    d = F.abs(P.sub_p(x, y))
    if d.ndim == 0:
        raise ValueError(f"For 'pairwise_distance' in 'TripletMarginWithDistanceLoss', 'ndim' of the input must be "
                         f"positive, but got {d.ndim}")
    return F.sqrt(F.sum(P.mul_p(d, d), 1))


class TripletMarginWithDistanceLoss(LossBase):
    """max(d(x, positive) - d(x, negative) + margin, 0) with a custom distance (default: L2 over axis 1)."""

    def __init__(self, distance_function=None, swap=False, reduction="mean", margin=1.0):
        super().__init__(reduction=reduction)
        if isinstance(margin, bool) or not isinstance(margin, float):
            raise TypeError(f"For 'TripletMarginWithDistanceLoss', the 'margin' must be float, but got "
                            f"{type(margin).__name__}.")
        if not isinstance(swap, bool):
            raise TypeError(f"For 'TripletMarginWithDistanceLoss', the 'swap' must be bool, but got "
                            f"{type(swap).__name__}.")
        self.distance_function = distance_function if distance_function is not None else _pairwise_distance
        self.swap = swap
        self.reduction = reduction
        self.margin = margin

    def construct(self, x, positive, negative):
        for name, v in (("x", x), ("positive", positive), ("negative", negative)):
            _check_is_tensor("TripletMarginWithDistanceLoss", name, v)
        d1 = self.distance_function(x, positive)
        d2 = self.distance_function(x, negative)
        if self.swap:
            d2 = F.minimum(d2, self.distance_function(positive, negative))
        return self.get_loss(F.maximum(P.add_p(P.sub_p(d1, d2), self.margin), 0.0))


class PoissonNLLLoss(LossBase):
    """exp(input) - target * input (log_input) or input - target * log(input + eps), plus the Stirling term
    when `full`."""

    def __init__(self, log_input=True, full=False, eps=1e-08, reduction="mean"):
        super().__init__(reduction=reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def construct(self, input, target):
        _check_is_tensor("PoissonNLLLoss", "input", input)
        _check_is_tensor("PoissonNLLLoss", "target", target)
        target = F.cast(target, input.dtype)
        if self.log_input:
            loss = P.sub_p(F.exp(input), P.mul_p(target, input))
        else:
            loss = P.sub_p(input, P.mul_p(target, F.log(P.add_p(input, self.eps))))
        if self.full:
            target = F.maximum(target, self.eps)
            stirling = P.add_p(P.sub_p(P.mul_p(P.add_p(target, 0.5), F.log(target)), target),
                               0.5 * math.log(2 * math.pi))
            loss = P.add_p(loss, F.where(P.greater_p(target, 1), stirling, P.zeros_like_p(stirling)))
        return self.get_loss(loss)


class MultiLabelSoftMarginLoss(LossBase):
    """Per-class binary logistic loss averaged over classes, optionally class-weighted, then reduced."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight
        self.reduction = reduction

    def construct(self, x, target):
        return F.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class MultiMarginLoss(LossBase):
    """Multi-class hinge loss: sum over j != y of max(0, margin - x[y] + x[j]) ** p / C, optionally weighted."""

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__(reduction)
        if p not in (1, 2):
            raise ValueError(f"For 'MultiMarginLoss', the 'p' must be 1 or 2, but got {p}.")
        self.p, self.margin, self.reduction = p, margin, reduction
        self.weight = weight

    def construct(self, x, target, weight=None):
        _check_is_tensor("MultiMarginLoss", "x", x)
        _check_is_tensor("MultiMarginLoss", "target", target)
        if self.weight is not None:
            weight = self.weight
        _check_is_tensor("MultiMarginLoss", "weight", weight)
        if x.ndim != 2 or target.shape != x.shape[:1]:
            raise ValueError(f"For 'MultiMarginLoss', the 'x' must be (N, C) and 'target' (N,), but got {x.shape} "
                             f"and {target.shape}.")
        # the cell takes a float margin (MindSpore's primitive), ops.multi_margin_loss only an int one
        hot = F.one_hot(target, x.shape[1], Tensor(1.0, x.dtype), Tensor(0.0, x.dtype))
        xy = F.sum(P.mul_p(x, hot), 1, keepdim=True)
        h = P.mul_p(P.relu_p(P.add_p(P.sub_p(x, xy), float(self.margin))), P.sub_p(1.0, hot))
        if self.p == 2:
            h = P.mul_p(h, h)
        loss = P.div_p(F.sum(h, 1), x.shape[1])
        if weight is not None:
            loss = P.mul_p(loss, F.sum(P.mul_p(hot, F.cast(weight, x.dtype)), 1))
        return self.get_loss(loss)


class BCELoss(LossBase):
    """-w (y log(x) + (1 - y) log(1 - x)) on probabilities x, reduced."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.reduction = reduction
        self.weight = weight

    def construct(self, logits, labels):
        return F.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class CosineEmbeddingLoss(LossBase):
    """1 - cos(x1, x2) for labels 1, max(0, cos(x1, x2) - margin) for labels -1 (cosine over axis 1)."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        if isinstance(margin, bool) or not isinstance(margin, float):
            raise TypeError(f"For 'CosineEmbeddingLoss', the 'margin' must be float, but got "
                            f"{type(margin).__name__}.")
        if not -1.0 <= margin <= 1.0:
            raise ValueError(f"For 'CosineEmbeddingLoss', the 'margin' must be in range [-1.0, 1.0], but got "
                             f"{margin}.")
        self.margin = margin

    def construct(self, logits_x1, logits_x2, labels):
        for name, v in (("logits_x1", logits_x1), ("logits_x2", logits_x2), ("labels", labels)):
            _check_is_tensor("CosineEmbeddingLoss", name, v)
        if logits_x1.dtype != logits_x2.dtype or logits_x1.shape != logits_x2.shape:
            raise ValueError(f"For 'CosineEmbeddingLoss', 'logits_x1' and 'logits_x2' must have the same type and "
                             f"shape, but got {logits_x1.dtype}{logits_x1.shape} and {logits_x2.dtype}"
                             f"{logits_x2.shape}.")
        prod_sum = F.sum(P.mul_p(logits_x1, logits_x2), (1,))
        denom = P.mul_p(F.sqrt(F.sum(P.mul_p(logits_x1, logits_x1), (1,))),
                        F.sqrt(F.sum(P.mul_p(logits_x2, logits_x2), (1,))))
        cosine = P.div_p(prod_sum, denom)
        zeros = P.zeros_like_p(cosine)
        pos = F.where(P.equal_p(labels, 1), P.sub_p(1.0, cosine), zeros)
        neg = F.where(P.equal_p(labels, -1), F.maximum(P.sub_p(cosine, self.margin), 0.0), zeros)
        return self.get_loss(P.add_p(pos, neg))


class MultilabelMarginLoss(LossBase):
    """Multi-label hinge loss; targets are class indices padded with -1 after the last one."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction)
        self.reduction = reduction

    def construct(self, x, target):
        return F.multilabel_margin_loss(x, target, self.reduction)


class BCEWithLogitsLoss(LossBase):
    """Binary cross entropy on logits (sigmoid inside, numerically stable), with `weight` and `pos_weight`."""

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        self.reduction = reduction
        if isinstance(weight, Parameter):
            raise TypeError("For 'BCEWithLogitsLoss', the 'weight' can not be a Parameter.")
        if isinstance(pos_weight, Parameter):
            raise TypeError("For 'BCEWithLogitsLoss', the 'pos_weight' can not be a Parameter.")
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, input, target):
        _check_is_tensor("BCEWithLogitsLoss", "input", input)
        _check_is_tensor("BCEWithLogitsLoss", "target", target)
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.pos_weight, self.reduction)


class FocalLoss(LossBase):
    """-(1 - p)^gamma log(p) over classes (axis 1), for class-index labels (N, 1, ...) or one-hot labels.

    Args:
        weight (Tensor): per-class weights (C,). gamma (float): Default ``2.0``. reduction: Default ``'mean'``.
    """

    def __init__(self, weight=None, gamma=2.0, reduction="mean"):
        super().__init__(reduction=reduction)
        if isinstance(gamma, bool) or not isinstance(gamma, float):
            raise TypeError(f"For 'FocalLoss', the 'gamma' must be float, but got {type(gamma).__name__}.")
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"For 'FocalLoss', the type of 'weight' must be a Tensor, but got "
                            f"{type(weight).__name__}.")
        if isinstance(weight, Tensor) and weight.ndim != 1:
            raise ValueError(f"For 'FocalLoss', the dimension of 'weight' must be 1, but got {weight.ndim}.")
        self.gamma = gamma
        self.weight = weight
        self.logsoftmax = LogSoftmax(1)

    def construct(self, logits, labels):
        _check_is_tensor("FocalLoss", "logits", logits)
        _check_is_tensor("FocalLoss", "labels", labels)
        if not 2 <= logits.ndim <= 4 or not 2 <= labels.ndim <= 4:
            raise ValueError(f"For 'FocalLoss', the dimensions of 'logits' and 'labels' must be in [2, 4], but got "
                             f"{logits.ndim} and {labels.ndim}.")
        if logits.ndim != labels.ndim:
            raise ValueError(f"For 'FocalLoss', the dimensions of 'logits' and 'labels' must be equal, but got "
                             f"dimension of 'logits' {logits.ndim} and dimension of 'labels' {labels.ndim}.")
        c = logits.shape[1]
        if c == 1:
            raise ValueError(f"For 'FocalLoss', the 'logits'.shape[1] cannot be one, but got {c}.")
        if labels.shape[1] not in (1, c):
            raise ValueError(f"For 'FocalLoss', the 'labels'.shape[1] must be one or equal to 'logits'.shape[1]: "
                             f"{c}, but got {labels.shape[1]}.")
        if labels.dtype not in (mstype.int32, mstype.int64, mstype.float16, mstype.float32, mstype.float64):
            raise TypeError(f"For 'FocalLoss', the 'labels' type must be in [Int32, Int64, Float16, Float32], but "
                            f"got {labels.dtype}.")
        n = logits.shape[0]
        logits = P.reshape_p(logits, shape=(n, c, -1))
        # as MindSpore's: the labels keep their own batch; class indices gather from the first rows of the logits
        m = labels.shape[0]
        labelss = P.reshape_p(labels, shape=(m, labels.shape[1], -1))
        log_prob = self.logsoftmax(logits)
        sparse = labels.shape[1] == 1
        if sparse:
            idx = F.cast(labelss, mstype.int64)
            log_prob = P.reshape_p(F.gather_elements(log_prob, 1, idx), shape=(m, -1))
        prob = F.exp(log_prob)
        if self.weight is not None:
            w = P.reshape_p(F.cast(self.weight, logits.dtype), shape=(1, c, 1))
            w = P.broadcast_to_p(w, shape=(m, c, labelss.shape[2]))
            if sparse:
                w = P.reshape_p(F.gather_elements(w, 1, idx), shape=(m, -1))
            log_prob = P.mul_p(log_prob, w)
        focal = P.pow_p(P.sub_p(1.0, prob), self.gamma)
        if sparse:
            loss = F.mean(P.neg_p(P.mul_p(focal, log_prob)), 1)
        else:
            loss = F.mean(P.neg_p(P.mul_p(P.mul_p(focal, F.cast(labelss, log_prob.dtype)), log_prob)), -1)
        return self.get_loss(loss)


class HuberLoss(LossBase):
    """0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta); reduced."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.reduction = reduction
        self.delta = delta

    def construct(self, logits, labels):
        return F.huber_loss(logits, labels, self.reduction, self.delta)


class TripletMarginLoss(LossBase):
    """max(d(x, positive) - d(x, negative) + margin, 0) with the p-norm distance (eps-stabilised)."""

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean", margin=1.):
        super().__init__(reduction)
        self.p, self.swap, self.eps, self.reduction, self.margin = p, swap, eps, reduction, margin

    def construct(self, x, positive, negative, margin=1.):
        if self.margin != 1.0:
            margin = self.margin
        return F.triplet_margin_loss(x, positive, negative, margin=margin, p=self.p, eps=self.eps, swap=self.swap,
                                     reduction=self.reduction)


class NLLLoss(LossBase):
    """-logits[n, labels[n]] (log-probabilities in), class-weighted, ignoring `ignore_index`; reduced."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
            raise TypeError(f"For 'NLLLoss', the 'ignore_index' must be int, but got {type(ignore_index).__name__}.")
        if weight is not None:
            if not isinstance(weight, Tensor):
                raise TypeError(f"For 'NLLLoss', the 'weight' must be Tensor, but got {type(weight).__name__}.")
            if weight.dtype not in (mstype.float16, mstype.float32):
                raise TypeError(f"For 'NLLLoss', the 'weight' type must be in [Float16, Float32], but got "
                                f"{weight.dtype}.")
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction

    def construct(self, logits, labels):
        return F.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


def _check_cross_entropy_inputs(logits, labels):
    cls = "CrossEntropyLoss"
    if logits.dtype not in (mstype.float16, mstype.float32, mstype.float64):
        raise TypeError(f"For '{cls}', the 'logits' type must be in [Float16, Float32], but got {logits.dtype}.")
    if logits.ndim == labels.ndim:
        if labels.dtype not in (mstype.float16, mstype.float32, mstype.float64):
            raise TypeError(f"For '{cls}', the 'labels' type must be in [Float16, Float32], but got {labels.dtype}.")
        if logits.shape != labels.shape:
            raise ValueError(f"For '{cls}', the shape of 'logits' should be (N, C, d_0, d_1, ...), and the shape of "
                             f"'labels' should be (N, C, d_0, d_1, ...), but get 'logits' shape: {logits.shape} and "
                             f"'labels' shape: {labels.shape}.")
    elif labels.ndim == logits.ndim - 1:
        if labels.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{cls}', the 'labels' type must be in [Int32], but got {labels.dtype}.")
        if logits.ndim != 1 and (logits.shape[0],) + logits.shape[2:] != labels.shape:
            raise ValueError(f"For '{cls}', the shape of 'logits' should be (N, C, d_0, d_1, ...), and the shape of "
                             f"'labels' should be (N, d_0, d_1, ...), but get 'logits' shape: {logits.shape} and "
                             f"'labels' shape: {labels.shape}.")
    else:
        raise ValueError(f"For '{cls}', the rank of 'logits' and 'labels' should be:\n1. 'logits.ndim == "
                         f"labels.ndim' for probabilities, \n2. 'logits.ndim - 1 == labels.ndim' for class indices, \n"
                         f"but get 'logits' rank: {logits.ndim} and 'labels' rank: {labels.ndim}.")


class CrossEntropyLoss(LossBase):
    """Softmax cross entropy for class indices (N,) or class probabilities (N, C) (also (N, C, d...)).

    Args:
        weight (Tensor): per-class weights (C,). Default ``None``.
        ignore_index (int): class index that contributes nothing (indices only). Default ``-100``.
        reduction (str): Default ``'mean'`` (weighted mean over non-ignored targets for indices).
        label_smoothing (float): in [0, 1]. Default ``0.0``.

    >>> import mindseed as ms
    >>> loss = ms.nn.CrossEntropyLoss()
    >>> round(float(loss(ms.Tensor([[2.0, 0.0]]), ms.Tensor([0], ms.int32))), 4)
    0.1269
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
            raise TypeError(f"For 'CrossEntropyLoss', the 'ignore_index' must be int, but got "
                            f"{type(ignore_index).__name__}.")
        if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, float):
            raise TypeError(f"For 'CrossEntropyLoss', the 'label_smoothing' must be float, but got "
                            f"{type(label_smoothing).__name__}.")
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"For 'CrossEntropyLoss', the 'label_smoothing' must be in range [0.0, 1.0], but got "
                             f"{label_smoothing}.")
        if weight is not None:
            if not isinstance(weight, Tensor):
                raise TypeError(f"For 'CrossEntropyLoss', the 'weight' must be Tensor, but got "
                                f"{type(weight).__name__}.")
            if weight.dtype not in (mstype.float16, mstype.float32):
                raise TypeError(f"For 'CrossEntropyLoss', the 'weight' type must be in [Float16, Float32], but got "
                                f"{weight.dtype}.")
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction
        self.label_smoothing = label_smoothing

    def construct(self, logits, labels):
        _check_is_tensor("CrossEntropyLoss", "logits", logits)
        _check_is_tensor("CrossEntropyLoss", "labels", labels)
        _check_cross_entropy_inputs(logits, labels)
        return F.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction, self.label_smoothing)


class KLDivLoss(LossBase):
    """labels * (log(labels) - logits) (logits are log-probabilities); reduction also 'batchmean'."""

    def __init__(self, reduction="mean"):
        if reduction not in ("mean", "sum", "none", "batchmean"):
            raise ValueError(f"For 'KLDivLoss', the 'reduction' must be in ['mean', 'sum', 'none', 'batchmean'], "
                             f"but got {reduction}.")
        super().__init__()
        self.reduction = reduction

    def construct(self, logits, labels):
        _check_is_tensor("KLDivLoss", "logits", logits)
        _check_is_tensor("KLDivLoss", "labels", labels)
        return F.kl_div(logits, labels, self.reduction)


class CTCLoss(LossBase):
    """Connectionist temporal classification loss of (T, N, C) (or (T, C)) log-probabilities."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        _check_is_tensor("CTCLoss", "log_probs", log_probs)
        _check_is_tensor("CTCLoss", "targets", targets)
        if log_probs.ndim == 2:
            if targets.ndim > 2:
                raise ValueError(f"For CTCLoss, when the shape of log_probs is (T, C), the dimension of targets "
                                 f"shouldbe 1 or 2, but got {targets.ndim}.")
            if targets.ndim == 2 and targets.shape[0] != 1:
                raise ValueError(f"For CTCLoss, the first dimension of 2-D targets should be 1,but got "
                                 f"{targets.shape[0]}.")
            if targets.ndim == 1:
                targets = P.reshape_p(targets, shape=(1,) + targets.shape)
            log_probs = P.reshape_p(log_probs, shape=(log_probs.shape[0], 1, log_probs.shape[1]))
            loss, _ = F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                                 self.zero_infinity)
            return P.reshape_p(loss, shape=())
        loss, _ = F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                             self.zero_infinity)
        return loss


class GaussianNLLLoss(LossBase):
    """0.5 (log(max(var, eps)) + (logits - labels)^2 / max(var, eps)) (+ 0.5 log(2 pi) when `full`)."""

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__()
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 < eps < float("inf"):
            raise ValueError(f"For 'GaussianNLLLoss', the 'eps' must be in range (0, inf), but got {eps}.")
        if not isinstance(full, bool):
            raise TypeError(f"For 'GaussianNLLLoss', the 'full' must be bool, but got {type(full).__name__}.")
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"For 'gaussian_nll_loss', the 'reduction' must be in ['none', 'mean', 'sum'], but got "
                             f"{reduction}.")
        self.full, self.eps, self.reduction = full, eps, reduction

    def construct(self, logits, labels, var):
        for name, v in (("logits", logits), ("labels", labels), ("var", var)):
            _check_is_tensor("GaussianNLLLoss", name, v)
        return F.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class HingeEmbeddingLoss(LossBase):
    """x where labels == 1, max(0, margin - x) where labels == -1; reduced."""

    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__()
        if isinstance(margin, bool) or not isinstance(margin, (float, int)):
            raise TypeError(f"For 'HingeEmbeddingLoss', the 'margin' must be float or int, but got "
                            f"{type(margin).__name__}.")
        if reduction not in ("none", "sum", "mean"):
            raise ValueError(f"For 'HingeEmbeddingLoss', the 'reduction' must be in ['none', 'sum', 'mean'], but got "
                             f"{reduction}.")
        self.margin, self.reduction = margin, reduction

    def construct(self, logits, labels):
        return F.hinge_embedding_loss(logits, labels, self.margin, self.reduction)
