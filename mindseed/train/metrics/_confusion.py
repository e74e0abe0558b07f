"""ConfusionMatrixMetric: metrics derived from per-class TP/FP/TN/FN counts (sensitivity, precision, MCC, ...)."""
import numpy as np

from mindseed.train.metrics.metric import Metric, _check_string, _check_type, rearrange_inputs

__all__ = ["ConfusionMatrixMetric"]

_METRIC_NAMES = {
    "sensitivity": "tpr", "recall": "tpr", "hit_rate": "tpr", "true_positive_rate": "tpr", "tpr": "tpr",
    "specificity": "tnr", "selectivity": "tnr", "true_negative_rate": "tnr", "tnr": "tnr",
    "precision": "ppv", "positive_predictive_value": "ppv", "ppv": "ppv",
    "negative_predictive_value": "npv", "npv": "npv",
    "miss_rate": "fnr", "false_negative_rate": "fnr", "fnr": "fnr",
    "fall_out": "fpr", "false_positive_rate": "fpr", "fpr": "fpr",
    "false_discovery_rate": "fdr", "fdr": "fdr", "false_omission_rate": "for", "for": "for",
    "prevalence_threshold": "pt", "pt": "pt",
    "threat_score": "ts", "critical_success_index": "ts", "ts": "ts", "csi": "ts",
    "accuracy": "acc", "acc": "acc", "balanced_accuracy": "ba", "ba": "ba", "f1_score": "f1", "f1": "f1",
    "matthews_correlation_coefficient": "mcc", "mcc": "mcc", "fowlkes_mallows_index": "fm", "fm": "fm",
    "informedness": "bm", "bookmaker_informedness": "bm", "bm": "bm", "markedness": "mk", "deltap": "mk", "mk": "mk",
}


def _rate(num, den):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


# (numerator, denominator) of the metrics that are one ratio of the counts tp, fp, tn, fn
_RATIOS = {
    "tpr": lambda tp, fp, tn, fn: (tp, tp + fn),
    "tnr": lambda tp, fp, tn, fn: (tn, fp + tn),
    "ppv": lambda tp, fp, tn, fn: (tp, tp + fp),
    "npv": lambda tp, fp, tn, fn: (tn, tn + fn),
    "fnr": lambda tp, fp, tn, fn: (fn, tp + fn),
    "fpr": lambda tp, fp, tn, fn: (fp, fp + tn),
    "fdr": lambda tp, fp, tn, fn: (fp, fp + tp),
    "for": lambda tp, fp, tn, fn: (fn, fn + tn),
    "ts": lambda tp, fp, tn, fn: (tp, tp + fn + fp),
    "acc": lambda tp, fp, tn, fn: (tp + tn, tp + fn + fp + tn),
    "f1": lambda tp, fp, tn, fn: (tp * 2.0, tp * 2.0 + fn + fp),
    "mcc": lambda tp, fp, tn, fn: (tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
}


def _fraction(metric, tp, fp, tn, fn):
    """(numerator, denominator) of one metric from the counts."""
    if metric in _RATIOS:
        return _RATIOS[metric](tp, fp, tn, fn)
    p, n = tp + fn, fp + tn
    tpr, tnr = _rate(tp, p), _rate(tn, n)
    if metric == "pt":
        return np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0
    if metric == "ba":
        return tpr + tnr, 2.0
    if metric == "fm":
        return np.sqrt(_rate(tp, tp + fp) * tpr), 1.0
    if metric == "bm":
        return tpr + tnr - 1.0, 1.0
    with np.errstate(divide="ignore", invalid="ignore"):  # mk: MindSpore divides tn / (tn + fn) unguarded
        return _rate(tp, tp + fp) + tn / (tn + fn) - 1.0, 1.0


def _check_metric_name(metric_name):
    metric = _METRIC_NAMES.get(metric_name.replace(" ", "_").lower())
    if metric is None:
        # MindSpore's error type and words for a metric name it does not know
        raise NotImplementedError(f"The metric is not implemented: For 'ConfusionMatrixMetric', the metric "
                                  f"'{metric_name}' is not supported.")
    return metric


def _compute_metric(metric_name, cm):
    metric = _check_metric_name(metric_name)
    if cm.ndim == 1:
        cm = np.expand_dims(cm, 0)
    if cm.shape[-1] != 4:
        raise ValueError(f"For 'ConfusionMatrix', the size of the last dimension of confusion_matrix must be 4, but "
                         f"got {cm.shape[-1]}.")
    num, den = _fraction(metric, cm[..., 0], cm[..., 1], cm[..., 2], cm[..., 3])
    if isinstance(den, np.ndarray):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den != 0, num / np.where(den != 0, den, 1), np.nan)
    return num / den


def _get_confusion_matrix(y_pred, y, skip_channel=True):
    if not skip_channel:
        y = y[:, 1:] if y.shape[1] > 1 else y
        y_pred = y_pred[:, 1:] if y_pred.shape[1] > 1 else y_pred
    y, y_pred = y.astype(float), y_pred.astype(float)
    if y.shape != y_pred.shape:
        raise ValueError(f"For 'ConfusionMatrixMetric.update', the shape of the true value {y.shape} must be the same "
                         f"as the predicted value {y_pred.shape}.")
    batch, n_class = y_pred.shape[:2]
    y_pred = y_pred.reshape(batch, n_class, -1)
    y = y.reshape(batch, n_class, -1)
    tp = (y_pred + y == 2).astype(float).sum(axis=2)
    tn = (y_pred + y == 0).astype(float).sum(axis=2)
    p = y.sum(axis=2)
    n = y.shape[-1] - p
    return np.stack([tp, n - tn, tn, p - tp], axis=-1)


def _decrease(chart, decrease="mean"):
    """Reduce a (batch, class[, 4]) chart ignoring NaNs: (chart, count of non-NaN entries)."""
    nans = np.isnan(chart)
    not_nans = (~nans).astype(float)
    chart = np.where(nans, 0, chart)
    if decrease == "mean":
        nn_ = not_nans.sum(axis=1)
        c = np.where(nn_ > 0, chart.sum(axis=1) / np.where(nn_ > 0, nn_, 1), 0.0)
        nn_ = (nn_ > 0).astype(float).sum(axis=0)
        return np.where(nn_ > 0, c.sum(axis=0) / np.where(nn_ > 0, nn_, 1), 0.0), nn_
    if decrease == "sum":
        return np.sum(chart, axis=(0, 1)), not_nans.sum(axis=(0, 1))
    if decrease in ("mean_batch", "mean_channel"):
        axis = 0 if decrease == "mean_batch" else 1
        nn_ = not_nans.sum(axis=axis)
        return np.where(nn_ > 0, chart.sum(axis=axis) / np.where(nn_ > 0, nn_, 1), 0.0), nn_
    if decrease in ("sum_batch", "sum_channel"):
        axis = 0 if decrease == "sum_batch" else 1
        return chart.sum(axis=axis), not_nans.sum(axis=axis)
    return chart, not_nans


class ConfusionMatrixMetric(Metric):
    """A metric of the confusion matrix of one-hot / binarized segmentation or classification outputs.

    Args:
        skip_channel (bool): include the first channel (background) in the counts. Default: ``True``.
        metric_name (str): e.g. ``'sensitivity'``, ``'specificity'``, ``'precision'``, ``'f1 score'``,
            ``'accuracy'``, ``'matthews correlation coefficient'``, ... Default: ``'sensitivity'``.
        calculation_method (bool): compute the metric per sample and average (True) or from the summed
            counts of the whole dataset (False). Default: ``False``.
        decrease (str): reduction of per-sample values with `calculation_method`: ``'none'``, ``'mean'``,
            ``'sum'``, ``'mean_batch'``, ``'sum_batch'``, ``'mean_channel'``, ``'sum_channel'``. Default: ``'mean'``.

    >>> import numpy as np
    >>> from mindseed.train import ConfusionMatrixMetric
    >>> m = ConfusionMatrixMetric(metric_name="tpr")
    >>> m.update(np.array([[[0], [1]], [[1], [0]]]), np.array([[[0], [1]], [[0], [1]]]))
    >>> m.eval().tolist()
    [0.5]
    """

    def __init__(self, skip_channel=True, metric_name="sensitivity", calculation_method=False, decrease="mean"):
        super().__init__()
        self.skip_channel = _check_type("skip_channel", skip_channel, [bool], "ConfusionMatrixMetric")
        self.calculation_method = _check_type("calculation_method", calculation_method, [bool],
                                              "ConfusionMatrixMetric")
        self.metric_name = _check_type("metric_name", metric_name, [str], "ConfusionMatrixMetric")
        _check_metric_name(metric_name)
        _check_type("decrease", decrease, [str], "ConfusionMatrixMetric")
        self.decrease = _check_string("decrease", decrease, ["none", "mean", "sum", "mean_batch", "sum_batch",
                                                             "mean_channel", "sum_channel"], "ConfusionMatrixMetric")
        self.clear()

    def clear(self):
        """Reset the counts."""
        self._total_num = 0
        self._class_num = 0
        self._total_tp = 0.0
        self._total_fp = 0.0
        self._total_tn = 0.0
        self._total_fn = 0.0

    @rearrange_inputs
    def update(self, *inputs):
        """Add a batch: (predictions, labels), both binarized with shape (N, C, ...)."""
        if len(inputs) != 2:
            raise ValueError(f"For 'ConfusionMatrixMetric.update', it needs 2 inputs (predicted value, true value), "
                             f"but got {len(inputs)}.")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if not np.all(y.astype(np.uint8) == y):
            raise ValueError("For 'ConfusionMatrix.update', the true value (input[1]) must be a binarized ndarray.")
        if y_pred.ndim < 2:
            raise ValueError(f"For 'ConfusionMatrix.update', the predicted value (input[0]) must have at least 2 "
                             f"dimensions, but got {y_pred.ndim}.")
        per_sample = self.calculation_method and not (y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1))
        cm = _get_confusion_matrix(y_pred, y, self.skip_channel)
        if per_sample:
            score, not_nans = _decrease(_compute_metric(self.metric_name, cm), self.decrease)
            if np.size(score) != 1:
                raise ValueError(f"For 'ConfusionMatrixMetric.update', the decrease '{self.decrease}' gives "
                                 f"{np.size(score)} values, which cannot be accumulated over batches; use 'mean' or "
                                 f"'sum'.")
            not_nans = int(np.asarray(not_nans).item())
            self._total_num += np.asarray(score).item() * not_nans
            self._class_num += not_nans
        else:
            cm, _ = _decrease(cm, "sum")
            self._total_tp += cm[0].item()
            self._total_fp += cm[1].item()
            self._total_tn += cm[2].item()
            self._total_fn += cm[3].item()

    def eval(self):
        """The metric (an array of one value, or the per-sample average with `calculation_method`)."""
        if self.calculation_method:
            if self._class_num == 0:
                raise RuntimeError("The 'ConfusionMatrixMetric' can not be calculated, because the number of samples "
                                   "is 0, please check whether your inputs(predicted value, true value) are empty, or "
                                   "has called update method before calling eval method.")
            return self._total_num / self._class_num
        cm = np.array([self._total_tp, self._total_fp, self._total_tn, self._total_fn])
        return _compute_metric(self.metric_name, cm)
