"""Classification metrics: Accuracy, Precision, Recall, Fbeta/F1, top-k accuracy, ConfusionMatrix."""
import sys

import numpy as np

from mindseed._utils.errors import host_alloc
from mindseed.train.metrics.metric import EvaluationBase, Metric, _check_onehot_data, _check_type, rearrange_inputs

__all__ = ["Accuracy", "Precision", "Recall", "Fbeta", "F1", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy",
           "Top5CategoricalAccuracy", "ConfusionMatrix"]


def _need(name, inputs, n, what="(predicted value, true value)"):
    if len(inputs) != n:
        raise ValueError(f"For '{name}.update', it needs {n} inputs {what}, but got {len(inputs)}.")


def _empty(name, what="inputs(predicted value, true value) are empty, or has called update method"):
    return RuntimeError(f"The '{name}' can not be calculated, because the number of samples is 0, please check whether "
                        f"your {what} before calling eval method.")


def _one_hot_pair(y_pred, y, c):
    """(one-hot of the logits' argmax, one-hot of the labels), both (N, c)."""
    return np.eye(c)[y_pred.argmax(axis=1).reshape(-1)], np.eye(c)[y.reshape(-1).astype(np.int64)]


class Accuracy(EvaluationBase):
    """Fraction of samples classified correctly (argmax of the logits; all labels equal for 'multilabel').

    Args:
        eval_type (str): ``'classification'`` (logits (N, C, ...), labels (N, ...) or one-hot) or
            ``'multilabel'`` (0/1 arrays of the same shape). Default: ``'classification'``.

    >>> import numpy as np
    >>> from mindseed.train import Accuracy
    >>> float(Accuracy()(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1])))
    0.6666666666666666
    """

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.clear()

    def clear(self):
        """Reset the counts."""
        self._correct_num = 0
        self._total_num = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch: (logits, labels)."""
        y_pred, y = _read_batch(self, "Accuracy", inputs, self._type == "classification")
        if self._type == "classification":
            result = (np.equal(y_pred.argmax(axis=1), y) * 1).reshape(-1)
        else:
            last = y_pred.ndim - 1
            y_pred = y_pred.swapaxes(1, last).reshape(-1, self._class_num)
            y = y.swapaxes(1, last).reshape(-1, self._class_num)
            result = np.equal(y_pred, y).all(axis=1) * 1
        self._correct_num += result.sum()
        self._total_num += result.shape[0]

    def eval(self):
        """Correct / total as a float."""
        if self._total_num == 0:
            raise _empty("Accuracy")
        return self._correct_num / self._total_num


class _PrecisionRecall(EvaluationBase):
    _name = ""

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.eps = sys.float_info.min
        self.clear()

    def clear(self):
        """Reset the counts."""
        self._class_num = 0
        if self._type == "multilabel":
            self._true_positives = np.empty(0)
            self._denominator = np.empty(0)
            self._true_positives_average = 0
            self._denominator_average = 0
        else:
            self._true_positives = 0
            self._denominator = 0

    def _counts(self, inputs):
        y_pred, y = _read_batch(self, self._name, inputs, self._type == "classification")
        c = self._class_num
        if self._type == "classification":
            if y.max() + 1 > c:
                raise ValueError(f"For '{self._name}.update', predicted value (input[0]) should have the same classes "
                                 f"number as true value (input[1]), but got predicted value classes {c}, true value "
                                 f"classes {y.max() + 1}.")
            y_pred, y = _one_hot_pair(y_pred, y, c)
        else:
            y_pred = y_pred.swapaxes(1, 0).reshape(c, -1)
            y = y.swapaxes(1, 0).reshape(c, -1)
        return y_pred, y

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch: (logits, labels)."""
        y_pred, y = self._counts(inputs)
        self._accumulate((y * y_pred).sum(axis=0), self._positives_of(y_pred, y).sum(axis=0))

    def _accumulate(self, true_positives, denominator):
        if self._type == "multilabel":
            with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 classes give NaN, as in MindSpore
                self._true_positives_average += np.sum(true_positives / (denominator + self.eps))
            self._denominator_average += len(denominator)
            self._true_positives = np.concatenate((self._true_positives, true_positives), axis=0)
            self._denominator = np.concatenate((self._denominator, denominator), axis=0)
        else:
            self._true_positives += true_positives
            self._denominator += denominator

    def eval(self, average=False):
        """Per-class values (numpy array), or their mean with ``average=True``."""
        if self._class_num == 0:
            raise _empty(self._name, "inputs (predicted value, true value) are empty, or has called update method")
        _check_type("average", average, [bool], self._name)
        result = self._true_positives / (self._denominator + self.eps)
        if average:
            if self._type == "multilabel":
                result = self._true_positives_average / (self._denominator_average + self.eps)
            return result.mean()
        return result


class Precision(_PrecisionRecall):
    """Precision TP / (TP + FP) per class (``eval(average=True)``: the mean).

    >>> import numpy as np
    >>> from mindseed.train import Precision
    >>> m = Precision(); m.update(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1]))
    >>> m.eval()
    array([0.5, 1. ])
    """

    _name = "Precision"

    @staticmethod
    def _positives_of(y_pred, y):
        return y_pred  # the denominator counts predicted positives (TP + FP)


class Recall(_PrecisionRecall):
    """Recall TP / (TP + FN) per class (``eval(average=True)``: the mean).

    >>> import numpy as np
    >>> from mindseed.train import Recall
    >>> recall = Recall()
    >>> recall.update(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1]))
    >>> print(recall.eval())
    [1.  0.5]
    """

    _name = "Recall"

    @staticmethod
    def _positives_of(y_pred, y):
        return y  # the denominator counts actual positives (TP + FN)


class Fbeta(Metric):
    """F-beta score per class: (1 + b^2) TP / (b^2 (TP + FN) + TP + FP).

    Args:
        beta (Union[float, int]): weight of recall (> 0).

    >>> import numpy as np
    >>> from mindseed.train import Fbeta
    >>> m = Fbeta(1); m.update(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1]))
    >>> m.eval()
    array([0.66666667, 0.66666667])
    """

    def __init__(self, beta):
        super().__init__()
        self.eps = sys.float_info.min
        if isinstance(beta, bool) or not isinstance(beta, (int, float)):
            raise TypeError(f"For 'Fbeta', the argument 'beta' must be a number, but got {type(beta).__name__}.")
        if not beta > 0:
            raise ValueError(f"For 'Fbeta', the argument 'beta' must be greater than 0, but got {beta}.")
        self.beta = beta
        self.clear()

    def clear(self):
        """Reset the counts."""
        self._true_positives = 0
        self._actual_positives = 0
        self._positives = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch: (logits, labels)."""
        y_pred, y = _read_batch(self, "Fbeta", inputs, True, checked=False)
        c = self._class_num
        if y.max() + 1 > c:
            raise ValueError(f"For 'Fbeta.update', predicted value(inputs[0]) and true value(inputs[1]) should contain "
                             f"same classes, but got predicted value contains {c} classes and true value contains "
                             f"{y.max() + 1} classes.")
        y_pred, y = _one_hot_pair(y_pred, y, c)
        self._true_positives += (y * y_pred).sum(axis=0)
        self._positives += y_pred.sum(axis=0)
        self._actual_positives += y.sum(axis=0)

    def eval(self, average=False):
        """Per-class F-beta (numpy array), or the mean with ``average=True``."""
        _check_type("average", average, [bool], type(self).__name__)
        if self._class_num == 0:
            raise _empty("Fbeta")
        b2 = self.beta ** 2
        fbeta = (1.0 + b2) * self._true_positives / (b2 * self._actual_positives + self._positives + self.eps)
        return fbeta.mean() if average else fbeta


class F1(Fbeta):
    """F1 score per class (Fbeta with beta = 1)."""

    def __init__(self):
        super().__init__(1.0)


class TopKCategoricalAccuracy(Metric):
    """Fraction of samples whose label is among the k highest logits.

    Args:
        k (int): how many top predictions count (>= 1).

    >>> import numpy as np
    >>> from mindseed.train import TopKCategoricalAccuracy
    >>> float(TopKCategoricalAccuracy(2)(np.array([[0.2, 0.5, 0.3], [0.3, 0.1, 0.6]]), np.array([2, 1])))
    0.5
    """

    def __init__(self, k):
        super().__init__()
        if not isinstance(k, int) or isinstance(k, bool):
            raise TypeError(f"For 'TopKCategoricalAccuracy', the type of the argument 'k' should be int, but got 'k' "
                            f"type: {type(k)}.")
        if k < 1:
            raise ValueError(f"For 'TopKCategoricalAccuracy', the argument 'k' must be at least 1, but got 'k' value: "
                             f"{k}.")
        self.k = k
        self.clear()

    def clear(self):
        """Reset the counts."""
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch: (logits (N, C), labels (N,) or one-hot)."""
        if len(inputs) != 2:
            raise ValueError(f"For 'TopKCategoricalAccuracy.update', it needs 2 inputs (predicted value, true value), "
                             f"but got 'inputs' size: {len(inputs)}.")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and _check_onehot_data(y):
            y = y.argmax(axis=1)
        indices = np.argsort(-y_pred, axis=1, kind="stable")[:, :self.k]
        repeated_y = y.reshape(-1, 1).repeat(self.k, axis=1)
        self._correct_num += np.equal(indices, repeated_y).sum(axis=1).sum()
        self._samples_num += repeated_y.shape[0]

    def eval(self):
        """Correct / total as a float."""
        if self._samples_num == 0:
            raise _empty("TopKCategoricalAccuracy", "inputs (predicted value, true value) are empty, or has called "
                                                    "update method")
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """Top-1 categorical accuracy."""

    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """Top-5 categorical accuracy."""

    def __init__(self):
        super().__init__(5)


class ConfusionMatrix(Metric):
    """The confusion matrix: rows are true classes, columns predicted classes.

    Args:
        num_classes (int): number of classes.
        normalize (str): ``'no_norm'``, ``'target'`` (rows sum to 1), ``'prediction'`` (columns) or ``'all'``.
        threshold (float): for same-shape float predictions, the value at or above which a prediction is 1.

    >>> import numpy as np
    >>> from mindseed.train import ConfusionMatrix
    >>> ConfusionMatrix(2)(np.array([1, 0, 1, 0]), np.array([1, 0, 0, 1]))
    array([[1., 1.],
           [1., 1.]])
    """

    def __init__(self, num_classes, normalize="no_norm", threshold=0.5):
        super().__init__()
        self.num_classes = _check_type("num_classes", num_classes, [int], "ConfusionMatrix")
        if num_classes <= 0:
            raise ValueError(f"For 'ConfusionMatrix', the argument 'num_classes' must be a positive int, but got "
                             f"{num_classes}.")
        if normalize not in ("target", "prediction", "all", "no_norm"):
            raise ValueError(f"For 'ConfusionMatrix', the argument 'normalize' must be in ['all', 'prediction', "
                             f"'label', 'no_norm'(None)], but got {normalize}.")
        self.normalize = normalize
        self.threshold = _check_type("threshold", threshold, [float], "ConfusionMatrix")
        self.clear()

    def clear(self):
        """Reset the matrix."""
        self.confusion_matrix = host_alloc("ConfusionMatrix", np.zeros, (self.num_classes, self.num_classes))
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch: (predictions or logits, labels)."""
        _need("ConfusionMatrix", inputs, 2)
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if not (y_pred.ndim == y.ndim or y_pred.ndim == y.ndim + 1):
            raise ValueError(f"For 'ConfusionMatrix.update', predicted value (input[0]) and true value (input[1]) "
                             f"should have same dimensions, or the dimension of predicted value equals the dimension "
                             f"of true value add 1, but got predicted value ndim: {y_pred.ndim}, true value ndim: "
                             f"{y.ndim}.")
        if y_pred.ndim == y.ndim + 1:
            y_pred = np.argmax(y_pred, axis=1)
        if y_pred.ndim == y.ndim and y_pred.dtype in (np.float16, np.float32, np.float64):
            y_pred = (y_pred >= self.threshold).astype(int)
        trans = (y.reshape(-1) * self.num_classes + y_pred.reshape(-1)).astype(int)
        counts = np.bincount(trans, minlength=self.num_classes ** 2)
        self.confusion_matrix += counts.reshape(self.num_classes, self.num_classes)
        self._is_update = True

    def eval(self):
        """The (num_classes, num_classes) matrix, normalized as asked (NaN from empty rows/columns -> 0)."""
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        cm = self.confusion_matrix.astype(float)
        if self.normalize == "no_norm":
            return cm
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.normalize == "target":
                matrix = cm / cm.sum(axis=1, keepdims=True)
            elif self.normalize == "prediction":
                matrix = cm / cm.sum(axis=0, keepdims=True)
            else:
                matrix = cm / cm.sum()
        matrix[np.isnan(matrix)] = 0
        return matrix


def _read_batch(metric, name, inputs, classification, checked=True):
    """(y_pred, y) of an update's inputs as numpy, one-hot labels turned into indices (`classification`), shapes
    and values checked (`checked`), and the class count fixed by the first batch."""
    _need(name, inputs, 2)
    y_pred = metric._convert_data(inputs[0])
    y = metric._convert_data(inputs[1])
    if classification and y_pred.ndim == y.ndim and _check_onehot_data(y):
        y = y.argmax(axis=1)
    if checked:
        metric._check_shape(y_pred, y)
        metric._check_value(y_pred, y)
    if metric._class_num == 0:
        metric._class_num = y_pred.shape[1]
    elif y_pred.shape[1] != metric._class_num:
        raise ValueError(f"For '{name}.update', class number not match, last input predicted data contain "
                         f"{metric._class_num} classes, but current predicted data contain {y_pred.shape[1]} "
                         f"classes, please check your predicted value(inputs[0]).")
    return y_pred, y
