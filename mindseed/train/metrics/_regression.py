"""Regression, loss, similarity, ROC/AUC, Dice, perplexity and BLEU metrics."""
import math
from collections import Counter

import numpy as np

from mindseed.train.metrics.metric import Metric, _binary_clf_curve, _check_string, _check_type, rearrange_inputs

__all__ = ["MAE", "MSE", "Loss", "Dice", "ROC", "auc", "CosineSimilarity", "Perplexity", "BleuScore"]


def _need(name, inputs, n, what="(predicted value, true value)"):
    if len(inputs) != n:
        raise ValueError(f"For '{name}.update', it needs {n} inputs {what}, but got {len(inputs)}.")


def _empty(name):
    return RuntimeError(f"The '{name}' can not be calculated, because the number of samples is 0, please check whether "
                        f"your inputs(predicted value, true value) are empty, or has called update method before "
                        f"calling eval method.")


class _MeanError(Metric):
    """The sum over all elements of an error of (y - y_pred), divided by the number of samples (first axis)."""

    _name = "MAE"

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        """Reset the sums."""
        self._error_sum = 0
        self._samples_num = 0

    @staticmethod
    def _error(diff):
        return np.abs(diff)

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch: (predictions, targets)."""
        _need(self._name, inputs, 2)
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        self._error_sum += float(self._error(y.reshape(y_pred.shape) - y_pred).sum())
        self._samples_num += y.shape[0]

    def eval(self):
        """The mean error."""
        if self._samples_num == 0:
            raise _empty(self._name)
        return self._error_sum / self._samples_num


class MAE(_MeanError):
    """Mean absolute error: sum |y - y_pred| over all elements / number of samples (first axis).

    >>> import numpy as np
    >>> from mindseed.train import MAE
    >>> round(float(MAE()(np.array([0.1, 0.2, 0.6, 0.9]), np.array([0.1, 0.25, 0.7, 0.9]))), 6)
    0.0375
    """

    _name = "MAE"

    @staticmethod
    def _error(diff):
        return np.abs(diff)


class MSE(_MeanError):
    """Mean squared error: sum (y - y_pred)^2 over all elements / number of samples (first axis).

    >>> import numpy as np
    >>> from mindseed.train import MSE
    >>> round(float(MSE()(np.array([0.1, 0.2, 0.6, 0.9]), np.array([0.1, 0.25, 0.7, 0.9]))), 6)
    0.003125
    """

    _name = "MSE"

    @staticmethod
    def _error(diff):
        return np.power(diff, 2)


class Loss(Metric):
    """The average of the losses passed to `update` (each batch's loss averaged first).

    >>> import numpy as np
    >>> from mindseed.train import Loss
    >>> m = Loss(); m.update(np.array(0.5)); m.update(np.array([1.0, 2.0]))
    >>> float(m.eval())
    1.0
    """

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        """Reset the sums."""
        self._sum_loss = 0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """Add one loss value (a scalar or a 1-D array)."""
        if len(inputs) != 1:
            raise ValueError(f"For 'Loss.update', it needs 1 input (loss), but got {len(inputs)}")
        loss = self._convert_data(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(f"For 'Loss.update', the dimension of your input (loss) must be 1, but got {loss.ndim}.")
        # sums in float64 (MindSpore's numpy 1.x promotes float32 scalars added to Python numbers)
        self._sum_loss += float(loss.mean(-1))
        self._total_num += 1

    def eval(self):
        """The mean loss."""
        if self._total_num == 0:
            raise RuntimeError("The 'Loss' can not be calculated, because the number of samples is 0, please check "
                               "whether has called update method before calling eval method.")
        return self._sum_loss / self._total_num


class Dice(Metric):
    """Mean Dice coefficient 2 |X.Y| / (|X|^2 + |Y|^2 + smooth) of the batches.

    Args:
        smooth (float): added to the denominator (> 0). Default: ``1e-5``.

    >>> import numpy as np
    >>> from mindseed.train import Dice
    >>> round(Dice()(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([[0, 1], [1, 0], [0, 1]])), 4)
    0.2047
    """

    def __init__(self, smooth=1e-5):
        super().__init__()
        if not isinstance(smooth, float) or isinstance(smooth, bool) or not smooth > 0:
            raise ValueError(f"For 'Dice', the 'smooth' must be a positive float, but got {smooth}.")
        self.smooth = smooth
        self.clear()

    def clear(self):
        """Reset the sums."""
        self._dice_coeff_sum = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch: (predictions, targets) of the same shape."""
        _need("Dice", inputs, 2)
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        self._samples_num += y.shape[0]
        if y_pred.shape != y.shape:
            raise ValueError(f"For 'Dice.update', predicted value (input[0]) and true value (input[1]) should have "
                             f"same shape, but got predicted value shape: {y_pred.shape}, true value shape: "
                             f"{y.shape}.")
        a, b = y_pred.flatten(), y.flatten()
        intersection = np.dot(a, b)
        unionset = np.dot(a, a) + np.dot(b, b)
        self._dice_coeff_sum += 2 * float(intersection) / float(unionset + self.smooth)

    def eval(self):
        """The Dice coefficient."""
        if self._samples_num == 0:
            raise RuntimeError("The 'Dice coefficient' can not be calculated, because the number of samples is 0, "
                               "please check whether your inputs(predicted value, true value) are empty, or has "
                               "called update method before calling eval method.")
        return self._dice_coeff_sum / float(self._samples_num)


def _curve_inputs(y_pred, y, class_num, pos_label):
    if not (y_pred.ndim == y.ndim or y_pred.ndim == y.ndim + 1):
        raise ValueError(f"For 'ROC', predicted value (input[0]) and true value (input[1]) must have same dimensions, "
                         f"or the dimension of predicted value equal the dimension of true value add 1, but got "
                         f"predicted value ndim: {y_pred.ndim}, true value ndim: {y.ndim}.")
    if y_pred.ndim == y.ndim:
        if class_num is not None and class_num != 1:
            raise ValueError(f"For 'ROC', when predicted value (input[0]) and true value (input[1]) have the same "
                             f"shape, the 'class_num' must be 1, but got {class_num}.")
        return y_pred.flatten(), y.flatten(), 1, 1 if pos_label is None else pos_label
    if pos_label is not None:
        raise ValueError(f"For 'ROC', when the dimension of predicted value (input[0]) equals the dimension of true "
                         f"value (input[1]) add 1, the 'pos_label' must be None, but got {pos_label}.")
    if class_num != y_pred.shape[1]:
        raise ValueError(f"For 'ROC', the 'class_num' must equal the number of classes from predicted value "
                         f"(input[0]), but got 'class_num' {class_num}, the number of classes from predicted value "
                         f"{y_pred.shape[1]}.")
    # NOTE: MindSpore reshapes (N, C) to (C, N) without transposing, which only agrees with this when N == C
    return np.moveaxis(y_pred, 1, -1).reshape(-1, class_num), y.flatten(), class_num, pos_label


class ROC(Metric):
    """Receiver operating characteristic: (fpr, tpr, thresholds), per class for multi-class logits.

    Args:
        class_num (int): number of classes (``None``: binary, inferred). Default: ``None``.
        pos_label (int): the positive label of binary inputs (``None``: 1). Default: ``None``.

    >>> import numpy as np
    >>> from mindseed.train import ROC
    >>> fpr, tpr, thr = ROC(pos_label=2)(np.array([0.0, 1.0, 2.0, 3.0]), np.array([0, 1, 2, 2]))
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.0, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0, 1.0])
    """

    def __init__(self, class_num=None, pos_label=None):
        super().__init__()
        self.class_num = class_num if class_num is None else _check_type("class_num", class_num, [int], "ROC")
        self.pos_label = pos_label if pos_label is None else _check_type("pos_label", pos_label, [int], "ROC")
        self.clear()

    def clear(self):
        """Forget the stored batch."""
        self.y_pred = 0
        self.y = 0
        self.sample_weights = None
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        """Store a batch: (scores, labels); the curve uses the last batch given."""
        _need("ROC", inputs, 2)
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        self.y_pred, self.y, self.class_num, self.pos_label = _curve_inputs(y_pred, y, self.class_num, self.pos_label)
        self._is_update = True

    def _roc_eval(self, y_pred, y, class_num, pos_label, sample_weights=None):
        if class_num == 1:
            fps, tps, thresholds = _binary_clf_curve(y_pred, y, sample_weights=sample_weights, pos_label=pos_label)
            tps = np.squeeze(np.hstack([np.zeros(1, dtype=tps.dtype), tps]))
            fps = np.squeeze(np.hstack([np.zeros(1, dtype=fps.dtype), fps]))
            thresholds = np.hstack([thresholds[0][None] + 1, thresholds])
            if fps[-1] <= 0:
                raise ValueError("For 'ROC.eval', there is no negative samples in true value, false positive value is "
                                 "meaningless.")
            if tps[-1] <= 0:
                raise ValueError("For 'ROC.eval', there is no positive samples in true value, true positive value is "
                                 "meaningless.")
            return fps / fps[-1], tps / tps[-1], thresholds
        fpr, tpr, thresholds = [], [], []
        for c in range(class_num):
            res = self._roc_eval(y_pred[:, c], y, 1, c, sample_weights)
            fpr.append(res[0])
            tpr.append(res[1])
            thresholds.append(res[2])
        return fpr, tpr, thresholds

    def eval(self):
        """(fpr, tpr, thresholds) arrays, or lists of them per class."""
        if self._is_update is False:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        return self._roc_eval(np.squeeze(self.y_pred), np.squeeze(self.y), self.class_num, self.pos_label)


def auc(x, y, reorder=False):
    """Area under a curve by the trapezoidal rule (e.g. of ROC's fpr, tpr).

    Args:
        x (numpy.ndarray): monotonic x coordinates (any order with ``reorder=True``).
        y (numpy.ndarray): y coordinates.
        reorder (bool): sort by x (ties by y) first. Default: ``False``.

    Raises:
        TypeError: x or y is not a numpy array.
        ValueError: lengths differ, fewer than 2 points, or x is not monotonic.

    >>> import numpy as np
    >>> from mindseed.train import auc
    >>> float(auc(np.array([0.0, 0.5, 1.0]), np.array([0.0, 1.0, 1.0])))
    0.75
    """
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(f"For 'auc', the argument 'x' and 'y' must all be np.ndarray, but got {type(x)}, {type(y)}")
    for a in (x, y):
        if a.ndim == 0:
            raise TypeError(f"Singleton array {a} cannot be considered as a valid collection.")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: {[x.shape[0], y.shape[0]]}.")
    x, y = _column_or_1d(x), _column_or_1d(y)
    if x.shape[0] < 2:
        raise ValueError(f"For 'auc', the shape of the argument 'x' in axis 0 must be greater than 2, but got "
                         f"{x.shape[0]}.")
    direction = 1
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        dx = np.diff(x)
        if np.any(dx < 0):
            if np.all(dx <= 0):
                direction = -1
            else:
                raise ValueError(f"For 'auc', if the argument is False, the argument 'x' array must be increasing or "
                                 f"decreasing, but got 'x': {x}")
    return direction * np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2.0)


def _column_or_1d(y):
    if y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1):
        return np.ravel(y)
    raise ValueError(f"For 'auc', the input must be a 1-dimensional array, or a 2-dimensional array with the second "
                     f"dimension of 1, but got shape {y.shape}.")


class CosineSimilarity(Metric):
    """Pairwise similarity matrix of the rows of one input ('cosine' or 'dot'), optionally reduced per row.

    Args:
        similarity (str): ``'cosine'`` or ``'dot'``. Default: ``'cosine'``.
        reduction (str): ``'none'``, ``'sum'`` or ``'mean'`` over the last axis. Default: ``'none'``.
        zero_diagonal (bool): set the diagonal to 0. Default: ``True``.

    >>> import numpy as np
    >>> from mindseed.train import CosineSimilarity
    >>> m = CosineSimilarity(); m.update(np.array([[1.0, 0.0], [1.0, 1.0]]))
    >>> np.round(m.eval(), 4).tolist()
    [[0.0, 0.7071], [0.7071, 0.0]]
    """

    def __init__(self, similarity="cosine", reduction="none", zero_diagonal=True):
        super().__init__()
        _check_type("similarity", similarity, [str], "CosineSimilarity")
        self.similarity = _check_string("similarity", similarity, ["dot", "cosine"], "CosineSimilarity")
        _check_type("reduction", reduction, [str], "CosineSimilarity")
        self.reduction = _check_string("reduction", reduction, ["none", "sum", "mean"], "CosineSimilarity")
        self.zero_diagonal = _check_type("zero_diagonal", zero_diagonal, [bool], "CosineSimilarity")
        self.clear()

    def clear(self):
        """Forget the stored matrix."""
        self.sqr_mtx_res = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, inputs):
        """Compute the similarity matrix of the rows of `inputs` (N, D)."""
        x = self._convert_data(inputs)
        if self.similarity == "cosine":
            x = x / np.expand_dims(np.linalg.norm(x, ord=2, axis=1), 1)
        self.sqr_mtx_res = np.dot(x, x.transpose(1, 0))
        self._is_update = True

    def eval(self):
        """The (N, N) matrix, or its row sums / means."""
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        if self.zero_diagonal:
            np.fill_diagonal(self.sqr_mtx_res, 0)
        if self.reduction == "mean":
            self.sqr_mtx_res = np.mean(self.sqr_mtx_res, axis=-1)
        if self.reduction == "sum":
            self.sqr_mtx_res = np.sum(self.sqr_mtx_res, axis=-1)
        return self.sqr_mtx_res


class Perplexity(Metric):
    """Perplexity exp(-mean log p(label)) of predicted probabilities.

    Args:
        ignore_label (int): a label whose positions are not counted. Default: ``None``.

    >>> import numpy as np
    >>> from mindseed.train import Perplexity
    >>> round(Perplexity()(np.array([[0.6, 0.5, 0.1], [0.3, 0.6, 0.05]]), np.array([0, 1])), 4)
    1.6667
    """

    def __init__(self, ignore_label=None):
        super().__init__()
        self.ignore_label = None if ignore_label is None else _check_type("ignore_label", ignore_label, [int],
                                                                          "Perplexity")
        self.clear()

    def clear(self):
        """Reset the sums."""
        self._sum_metric = 0.0
        self._num_inst = 0

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch: (probabilities (..., C), labels (...))."""
        _need("Perplexity", inputs, 2, "(predicted value, label)")
        pred = self._convert_data(inputs[0])
        label = self._convert_data(inputs[1])
        if label.size != pred.size / pred.shape[-1]:
            raise RuntimeError(f"For 'Perplexity.update', predicted value (input[0]) and label (input[1]) should have "
                               f"the same shape, but got predicted value shape {pred.shape}, label shape "
                               f"{label.shape}.")
        label = label.reshape((label.size,))
        idx = np.expand_dims(label.astype(int), axis=1)
        pred = np.squeeze(pred.reshape(-1, pred.shape[-1])[np.arange(idx.shape[0])[:, None], idx])
        num = 0
        if self.ignore_label is not None:
            ignore = (label == self.ignore_label).astype(pred.dtype)
            num -= np.sum(ignore)
            pred = pred * (1 - ignore) + ignore
        self._sum_metric -= float(np.sum(np.log(np.maximum(1e-10, pred))))
        self._num_inst += num + pred.size

    def eval(self):
        """The perplexity."""
        if self._num_inst == 0:
            raise RuntimeError("The 'Perplexity' can not be calculated, because the number of samples is 0, please "
                               "check whether the update method has been called before calling eval method.")
        return math.exp(self._sum_metric / self._num_inst)


class BleuScore(Metric):
    """Corpus BLEU of tokenized candidates against lists of tokenized references.

    Args:
        n_gram (int): the largest n-gram order, 1..4. Default: ``4``.
        smooth (bool): add-one smoothing of the n-gram precisions. Default: ``False``.

    >>> from mindseed.train import BleuScore
    >>> m = BleuScore(); m.update([["the", "cat", "is", "on", "the", "mat"]],
    ...                           [[["the", "cat", "is", "on", "the", "mat"]]])
    >>> float(m.eval())
    1.0
    """

    def __init__(self, n_gram=4, smooth=False):
        super().__init__()
        self.n_gram = _check_type("n_gram", n_gram, [int], "BleuScore")
        if self.n_gram > 4 or self.n_gram < 1:
            raise ValueError(f"For 'BleuScore', the argument 'n_gram' should range from 1 to 4, but got {n_gram}.")
        self.smooth = _check_type("smooth", smooth, [bool], "BleuScore")
        self.clear()

    def clear(self):
        """Reset the counts."""
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._precision_scores = np.zeros(self.n_gram)
        self._c = 0.0
        self._r = 0.0
        self._trans_len = 0
        self._ref_len = 0
        self._is_update = False

    def _count_ngram(self, tokens, n_gram):
        counter = Counter()
        for i in range(1, n_gram + 1):
            for j in range(len(tokens) - i + 1):
                counter[tuple(tokens[j:i + j])] += 1
        return counter

    @rearrange_inputs
    def update(self, *inputs):
        """Add (candidate_corpus, reference_corpus): a list of token lists and a list of lists of them."""
        if len(inputs) != 2:
            raise ValueError(f"For 'BleuScore.update', it needs 2 inputs (candidate_corpus, reference_corpus), but "
                             f"got {len(inputs)}.")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError(f"For 'BleuScore.update', 'translate_corpus' (inputs[0]) and 'reference_corpus' "
                             f"(inputs[1]) should be equal in length, but got {len(candidates)}, {len(references)}")
        for candidate, refs in zip(candidates, references):
            self._c += len(candidate)
            ref_lens = [len(r) for r in refs]
            diffs = [abs(len(candidate) - n) for n in ref_lens]
            self._r += ref_lens[diffs.index(min(diffs))]
            translation = self._count_ngram(candidate, self.n_gram)
            reference = Counter()
            for r in refs:
                reference |= self._count_ngram(r, self.n_gram)
            clipped = translation & reference
            for gram in clipped:
                self._numerator[len(gram) - 1] += clipped[gram]
            for gram in translation:
                self._denominator[len(gram) - 1] += translation[gram]
        self._trans_len = np.array(self._c)
        self._ref_len = np.array(self._r)
        self._is_update = True

    def eval(self):
        """The BLEU score (a numpy scalar)."""
        if self._is_update is False:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        if min(self._numerator) == 0.0:
            return np.array(0.0)
        if self.smooth:
            precision = (self._numerator + 1) / (self._denominator + 1)
        else:
            precision = self._numerator / self._denominator
        geometric_mean = np.exp(np.sum(np.array([1.0 / self.n_gram] * self.n_gram) * np.log(precision)))
        brevity = np.array(1.0) if self._c > self._r else np.exp(1 - self._ref_len / self._trans_len)
        return brevity * geometric_mean
