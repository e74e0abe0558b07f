"""Metric base class, `rearrange_inputs` and helpers shared by the metrics (all computed in numpy)."""
import functools
from abc import ABCMeta, abstractmethod

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor

__all__ = ["Metric", "rearrange_inputs"]

_eval_types = {"classification", "multilabel"}


def rearrange_inputs(func):
    """Decorate `update` so that it receives the inputs picked and ordered by the metric's `indexes`.

    >>> from mindseed.train import rearrange_inputs
    >>> class Example:
    ...     indexes = [1, 0]
    ...     @rearrange_inputs
    ...     def update(self, *inputs):
    ...         return inputs
    >>> Example().update(5, 9)
    (9, 5)
    """
    @functools.wraps(func)
    def wrapper(self, *inputs):
        indexes = self.indexes
        inputs = inputs if not indexes else tuple(inputs[i] for i in indexes)
        return func(self, *inputs)
    return wrapper


class Metric(metaclass=ABCMeta):
    """Base class of metrics: `clear` resets, `update` accumulates a batch, `eval` gives the result.

    >>> import numpy as np
    >>> from mindseed.train import Metric
    >>> class MyMAE(Metric):
    ...     def clear(self):
    ...         self._sum, self._n = 0.0, 0
    ...     def update(self, *inputs):
    ...         self._sum += float(np.abs(inputs[0] - inputs[1]).sum()); self._n += len(inputs[0])
    ...     def eval(self):
    ...         return self._sum / self._n
    >>> MyMAE()(np.array([1.0, 2.0]), np.array([1.5, 2.0]))
    0.25
    """

    def __init__(self):
        self._indexes = None

    def _convert_data(self, data):
        """Tensor / list / numpy array -> numpy array."""
        if isinstance(data, Tensor):
            return data.asnumpy() if data.dtype != mstype.bfloat16 else data.astype(mstype.float32).asnumpy()
        if isinstance(data, list):
            return np.array(data)
        if isinstance(data, np.ndarray):
            return data
        raise TypeError(f"For 'Metric' and its derived classes, the input data type must be tensor, list or "
                        f"numpy.ndarray, but got {type(data)}.")

    @property
    def indexes(self):
        """The input order set by `set_indexes` (None: inputs as given)."""
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes):
        """Pick and order the inputs of `update`: with (label0, label1, logits), [2, 1] passes (logits, label1).

        Raises:
            ValueError: `indexes` is not a list of int.
        """
        if not isinstance(indexes, list) or not all(isinstance(i, int) for i in indexes):
            raise ValueError("For 'set_indexes', the argument 'indexes' must be a list and all its elements must "
                             "be int, please check whether it is correct.")
        self._indexes = indexes
        return self

    def __call__(self, *inputs):
        """clear + update + eval on one batch."""
        self.clear()
        self.update(*inputs)
        return self.eval()

    @abstractmethod
    def clear(self):
        """Reset the accumulated state."""

    @abstractmethod
    def eval(self):
        """The result over everything passed to `update` since `clear`."""

    @abstractmethod
    def update(self, *inputs):
        """Accumulate one batch (usually predictions and labels)."""


class EvaluationBase(Metric):
    """Base of metrics with an `eval_type` of 'classification' or 'multilabel' and shape checks."""

    def __init__(self, eval_type):
        super().__init__()
        if not isinstance(eval_type, str) or eval_type not in _eval_types:
            raise TypeError(f"The argument 'eval_type' must be in {_eval_types}, but got {eval_type}")
        self._type = eval_type

    def _check_shape(self, y_pred, y):
        if self._type == "classification":
            if y_pred.ndim != y.ndim + 1:
                raise ValueError(f"In classification case, the dimension of y_pred (predicted value) should equal to "
                                 f"the dimension of y (true value) add 1, but got y_pred dimension: {y_pred.ndim} and "
                                 f"y dimension: {y.ndim}.")
            if y.shape != (y_pred.shape[0],) + y_pred.shape[2:]:
                raise ValueError(f"In classification case, y_pred (predicted value) shape and y (true value) shape "
                                 f"can not match, y shape should be equal to y_pred shape that the value at index 1 "
                                 f"is deleted. Such as y_pred shape (1, 2, 3), then y shape should be (1, 3). "
                                 f"But got y_pred shape {y_pred.shape} and y shape {y.shape}")
        else:
            if y_pred.ndim != y.ndim:
                raise ValueError(f"In {self._type} case, the dimension of y_pred (predicted value) should equal to the "
                                 f"dimension of y (true value), but got y_pred dimension: {y_pred.ndim} and y "
                                 f"dimension: {y.ndim}.")
            if y_pred.shape != y.shape:
                raise ValueError(f"In {self._type} case, the shape of y_pred (predicted value) should equal to the "
                                 f"shape of y (true value), but got y_pred shape: {y_pred.shape} and y shape: "
                                 f"{y.shape}.")

    def _check_value(self, y_pred, y):
        if self._type != "classification" and not (np.equal(y_pred ** 2, y_pred).all() and np.equal(y ** 2, y).all()):
            raise ValueError("In multilabel case, all elements in y_pred (predicted value) and y (true value) should "
                             "be 0 or 1.Please check whether your inputs y_pred and y are correct.")

    def clear(self):
        """Reset the accumulated state (subclasses)."""
        raise NotImplementedError

    def update(self, *inputs):
        """Accumulate a batch (subclasses)."""
        raise NotImplementedError

    def eval(self):
        """The result (subclasses)."""
        raise NotImplementedError


def _check_onehot_data(data):
    """Whether `data` is one-hot along axis 1."""
    if data.ndim > 1 and np.equal(data ** 2, data).all():
        shp = (data.shape[0],) + data.shape[2:]
        if np.equal(np.ones(shp), data.sum(axis=1)).all():
            return True
    return False


def _binary_clf_curve(preds, target, sample_weights=None, pos_label=1):
    """(false positives, true positives, thresholds) at each distinct score, scores descending."""
    if sample_weights is not None and not isinstance(sample_weights, np.ndarray):
        sample_weights = np.array(sample_weights)
    if preds.ndim > target.ndim:
        preds = preds[:, 0]
    order = np.argsort(-preds, kind="stable")
    preds, target = preds[order], target[order]
    weight = sample_weights[order] if sample_weights is not None else 1.0
    distinct = np.where(preds[1:] - preds[:-1])[0]
    threshold_idxs = np.pad(distinct, (0, 1), constant_values=target.shape[0] - 1)
    target = np.array(target == pos_label).astype(np.int64)
    tps = np.cumsum(target * weight, axis=0)[threshold_idxs]
    if sample_weights is not None:
        fps = np.cumsum((1 - target) * weight, axis=0)[threshold_idxs]
    else:
        fps = 1 + threshold_idxs - tps
    return fps, tps, preds[threshold_idxs]


# ---------------------------------------------------------------- argument checks in MindSpore's phrasing
def _check_type(arg_name, value, types, cls_name):
    if isinstance(value, bool) and bool not in types:
        ok = False
    else:
        ok = isinstance(value, tuple(types))
    if not ok:
        names = [t.__name__ for t in types]
        raise TypeError(f"For '{cls_name}', the type of '{arg_name}' should be {names[0] if len(names) == 1 else names}"
                        f", but got '{value}' with type '{type(value).__name__}'.")
    return value


def _check_string(arg_name, value, valid, cls_name):
    if value not in valid:
        raise ValueError(f"For '{cls_name}', the '{arg_name}' should be str and must be in '{valid}', but got "
                         f"'{value}'.")
    return value
