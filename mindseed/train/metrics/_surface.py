"""Segmentation surface metrics: HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance.

The edge maps and distances are computed in numpy here (no scipy): an edge is a foreground element
with a background neighbour along some axis (scipy's `binary_erosion` with the default cross
structure and a zero border); distances are exact Euclidean / chessboard / taxicab distances to the
nearest edge element of the other map, which is what scipy's distance transforms give.
"""
import numpy as np

from mindseed.train.metrics.metric import Metric, _check_string, _check_type, rearrange_inputs

__all__ = ["HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"]

_METRICS = ["euclidean", "chessboard", "taxicab"]


def _binary_erosion(mask):
    """scipy.ndimage.binary_erosion(mask) with the cross-shaped structuring element and border 0."""
    mask = np.asarray(mask, bool)
    if mask.ndim == 0:
        return np.zeros_like(mask)
    padded = np.pad(mask, 1, constant_values=False)
    core = [slice(1, -1)] * mask.ndim
    out = mask.copy()
    for axis in range(mask.ndim):
        for shift in (-1, 1):
            window = list(core)
            window[axis] = slice(1 + shift, padded.shape[axis] - 1 + shift)
            out &= padded[tuple(window)]
    return out


def _edges(mask):
    return _binary_erosion(mask) ^ mask


def _distances_to(points_mask, target_mask, metric):
    """Distance from each True element of `points_mask` to the nearest True element of `target_mask`."""
    pts = np.argwhere(points_mask).astype(np.float64)
    tgt = np.argwhere(target_mask).astype(np.float64)
    out = np.empty(len(pts))
    step = max(1, 2 ** 22 // max(1, len(tgt) * max(1, pts.shape[1])))
    for i in range(0, len(pts), step):
        d = np.abs(pts[i:i + step, None, :] - tgt[None, :, :])
        if metric == "euclidean":
            dist = np.sqrt((d * d).sum(-1))
        elif metric == "chessboard":
            dist = d.max(-1)
        else:
            dist = d.sum(-1)
        out[i:i + step] = dist.min(axis=1)
    return out


def _surface_distance(y_pred_edges, y_edges, metric):
    if not np.any(y_pred_edges):
        return np.array([])
    if not np.any(y_edges):
        return np.full(int(np.count_nonzero(y_pred_edges)), np.inf)
    return _distances_to(y_pred_edges, y_edges, metric)


def _binarize(name, inputs, convert):
    if len(inputs) != 3:
        raise ValueError(f"For '{name}.update', it needs 3 inputs (predicted value, true value, label index), but got "
                         f"{len(inputs)}.")
    y_pred, y, label_idx = convert(inputs[0]), convert(inputs[1]), inputs[2]
    if not isinstance(label_idx, (int, float)):
        raise ValueError(f"For '{name}.update', the label index (input[2]) must be int or float, but got "
                         f"{type(label_idx)}.")
    if label_idx not in y_pred and label_idx not in y:
        raise ValueError(f"For '{name}.update', the label index (input[2]) must be in predicted value (input[0]) or "
                         f"true value (input[1]), but {label_idx} is not.")
    if y_pred.size == 0 or y_pred.shape != y.shape:
        raise ValueError(f"For '{name}.update', the size of predicted value (input[0]) and true value (input[1]) must "
                         f"be greater than 0, in addition to that, predicted value and true value must have the same "
                         f"shape, but got predicted value size: {y_pred.size}, shape: {y_pred.shape}, true value "
                         f"size: {y.size}, shape: {y.shape}.")
    if y_pred.dtype != bool:
        y_pred = y_pred == label_idx
    if y.dtype != bool:
        y = y == label_idx
    return y_pred, y


class HausdorffDistance(Metric):
    """Hausdorff distance between the boundaries of a predicted and a true segmentation (of one label).

    Args:
        distance_metric (str): ``'euclidean'``, ``'chessboard'`` or ``'taxicab'``. Default: ``'euclidean'``.
        percentile (float): use this percentile of the distances instead of the maximum. Default: ``None``.
        directed (bool): only prediction -> truth distances. Default: ``False``.
        crop (bool): crop both masks to the bounding box of their union first. Default: ``True``.

    >>> import numpy as np
    >>> from mindseed.train import HausdorffDistance
    >>> a = np.zeros((4, 4), int); a[1:3, 1:3] = 1
    >>> b = np.zeros((4, 4), int); b[1:3, 1:4] = 1
    >>> float(HausdorffDistance()(a, b, 1))
    1.0
    """

    def __init__(self, distance_metric="euclidean", percentile=None, directed=False, crop=True):
        super().__init__()
        _check_type("distance_metric", distance_metric, [str], "HausdorffDistance")
        self.distance_metric = _check_string("distance_metric", distance_metric, _METRICS, "HausdorffDistance")
        self.percentile = None if percentile is None else _check_type("percentile", percentile, [float],
                                                                      "HausdorffDistance")
        self.directed = _check_type("directed", directed, [bool], "HausdorffDistance")
        self.crop = _check_type("crop", crop, [bool], "HausdorffDistance")
        self.clear()

    def clear(self):
        """Forget the stored edges."""
        self.y_pred_edges = 0
        self.y_edges = 0
        self._is_update = False

    def _crop(self, y_pred, y):
        union = y_pred | y
        if not np.any(union):
            return np.zeros_like(y_pred), np.zeros_like(y)
        nz = np.nonzero(union)
        box = tuple(slice(int(idx.min()), int(idx.max()) + 1) for idx in nz)
        # MindSpore squeezes the cropped masks, dropping dims the box reduced to size 1
        return np.squeeze(y_pred[box]), np.squeeze(y[box])

    def _percent_distance(self, a, b):
        d = _surface_distance(a, b, self.distance_metric)
        if d.shape == (0,):
            return np.inf
        if not self.percentile:
            return d.max()
        if 0 <= self.percentile <= 100:
            return np.percentile(d, self.percentile)
        raise ValueError(f"For 'HausdorffDistance', the value of the argument 'percentile' must be [0, 100], but got "
                         f"{self.percentile}.")

    @rearrange_inputs
    def update(self, *inputs):
        """Store the boundaries of (prediction, truth, label index)."""
        self._is_update = True
        y_pred, y = _binarize("HausdorffDistance", inputs, self._convert_data)
        if self.crop:
            y_pred, y = self._crop(y_pred, y)
        self.y_pred_edges, self.y_edges = _edges(y_pred), _edges(y)

    def eval(self):
        """The (percentile) Hausdorff distance; inf when a boundary is empty."""
        if self._is_update is False:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        hd = self._percent_distance(self.y_pred_edges, self.y_edges)
        if self.directed:
            return hd
        return max(hd, self._percent_distance(self.y_edges, self.y_pred_edges))


class _SurfaceMetric(Metric):
    _name = ""

    def __init__(self, symmetric=False, distance_metric="euclidean"):
        super().__init__()
        _check_type("distance_metric", distance_metric, [str], self._name)
        self.distance_metric = _check_string("distance_metric", distance_metric, _METRICS, self._name)
        self.symmetric = _check_type("symmetric", symmetric, [bool], self._name)
        self.clear()

    def clear(self):
        """Forget the stored edges."""
        self._y_pred_edges = 0
        self._y_edges = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        """Store the boundaries of (prediction, truth, label index)."""
        y_pred, y = _binarize(self._name, inputs, self._convert_data)
        self._y_pred_edges, self._y_edges = _edges(y_pred), _edges(y)
        self._is_update = True

    def _distances(self):
        if self._is_update is False:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        return (_surface_distance(self._y_pred_edges, self._y_edges, self.distance_metric),
                _surface_distance(self._y_edges, self._y_pred_edges, self.distance_metric) if self.symmetric else None)


class MeanSurfaceDistance(_SurfaceMetric):
    """Mean distance from the predicted boundary to the true one (averaged both ways if `symmetric`).

    Args:
        symmetric (bool): average of both directions. Default: ``False``.
        distance_metric (str): ``'euclidean'``, ``'chessboard'`` or ``'taxicab'``. Default: ``'euclidean'``.

    >>> import numpy as np
    >>> from mindseed.train import MeanSurfaceDistance
    >>> a = np.zeros((4, 4), int); a[1:3, 1:3] = 1
    >>> b = np.zeros((4, 4), int); b[1:3, 1:4] = 1
    >>> round(float(MeanSurfaceDistance(symmetric=True)(a, b, 1)), 4)
    0.1667
    """

    _name = "MeanSurfaceDistance"

    def eval(self):
        """The mean surface distance; inf when a boundary is empty."""
        d, back = self._distances()
        if d.shape == (0,):
            return np.inf
        if not self.symmetric:
            return d.mean()
        if back.shape == (0,):
            return np.inf
        return np.mean((d.mean(), back.mean()))


class RootMeanSquareDistance(_SurfaceMetric):
    """Mean squared boundary distance (symmetric: the root of the mean of both directions).

    Args:
        symmetric (bool): both directions, then the square root. Default: ``False``.
        distance_metric (str): as in `MeanSurfaceDistance`.

    >>> import numpy as np
    >>> from mindseed.train import RootMeanSquareDistance
    >>> a = np.zeros((4, 4), int); a[1:3, 1:3] = 1
    >>> b = np.zeros((4, 4), int); b[1:3, 1:4] = 1
    >>> round(float(RootMeanSquareDistance()(b, a, 1)), 4)  # from b's boundary to a's only
    0.3333
    >>> round(float(RootMeanSquareDistance(symmetric=True)(a, b, 1)), 4)
    0.4082
    """

    _name = "RootMeanSquareDistance"

    @rearrange_inputs
    def update(self, *inputs):
        """Store the boundaries of (prediction, truth, label index)."""
        if len(inputs) == 3 and not isinstance(inputs[2], (int, float)):
            raise TypeError(f"For 'RootMeanSquareDistance.update', the label index (input[2]) must be int or float, "
                            f"but got label index type: {type(inputs[2])}.")
        super().update.__wrapped__(self, *inputs)

    def eval(self):
        """The (root) mean square surface distance; inf when a boundary is empty."""
        d, back = self._distances()
        if d.shape == (0,):
            return np.inf
        rms = (d ** 2).mean()
        if not self.symmetric:
            return rms
        if back.shape == (0,):
            return np.inf
        return np.sqrt(np.mean((rms, (back ** 2).mean())))
