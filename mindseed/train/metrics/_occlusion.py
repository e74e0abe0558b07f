"""OcclusionSensitivity: how much a model's score for the label drops when each region of the input is masked."""
import numpy as np

from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.train.metrics.metric import Metric, _check_type, rearrange_inputs

__all__ = ["OcclusionSensitivity"]


class OcclusionSensitivity(Metric):
    """Occlusion sensitivity map of a classification model for one input image.

    For every position, a window of `margin` around it is set to `pad_val` and the model is run; the
    map holds baseline score - occluded score of the label.

    Args:
        pad_val (float): the value put into the occluded window. Default: ``0.0``.
        margin (Union[int, list]): half width of the window. Default: ``2``.
        n_batch (int): occluded images per model call. Default: ``128``.
        b_box (list): [min, max] per dimension (after the batch) restricting the positions. Default: ``None``.
    """

    def __init__(self, pad_val=0.0, margin=2, n_batch=128, b_box=None):
        super().__init__()
        self.pad_val = _check_type("pad_val", pad_val, [float], "OcclusionSensitivity")
        self.margin = _check_type("margin", margin, [int, list], "OcclusionSensitivity")
        self.n_batch = _check_type("n_batch", n_batch, [int], "OcclusionSensitivity")
        self.b_box = b_box if b_box is None else _check_type("b_box", b_box, [list], "OcclusionSensitivity")
        self.clear()

    def clear(self):
        """Forget the map."""
        self._baseline = 0
        self._sensitivity_im = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        """Compute the map for (model, image of batch size 1, label)."""
        if len(inputs) != 3:
            raise ValueError(f"For 'OcclusionSensitivity.update', it needs 3 inputs (classification model, predicted "
                             f"value, label), but got {len(inputs)}.")
        model = inputs[0]
        y_pred = self._convert_data(inputs[1])
        label = inputs[2] if isinstance(inputs[2], int) else self._convert_data(inputs[2])
        if not isinstance(model, Cell):
            raise TypeError(f"For 'OcclusionSensitivity.update', the 'model' must be a Cell, but got {type(model)}.")
        if y_pred.shape[0] > 1:
            raise RuntimeError(f"For 'OcclusionSensitivity.update', the shape at index 0 of the predicted value "
                               f"(input[1]) must be 1, but got {y_pred.shape[0]}.")
        if isinstance(label, int):
            label = np.array([[label]], dtype=int)
        elif np.prod(label.shape) != y_pred.shape[0]:
            raise RuntimeError(f"For 'OcclusionSensitivity.update', the number of the label (input[2]) must be same "
                               f"as the batches, but got the label number {np.prod(label.shape)}, and batches "
                               f"{y_pred.shape[0]}.")
        im_shape = np.array(y_pred.shape[1:])
        b_min, b_max = _bounding_box(self.b_box, im_shape)
        self._baseline = model(Tensor(y_pred)).asnumpy()[0, label].item()
        out_shape = im_shape if self.b_box is None else b_max - b_min + 1
        total = int(np.prod(out_shape))
        images, scores = [], []
        for i in range(total):
            idx = np.array(np.unravel_index(i, out_shape))
            if b_min is not None:
                idx = idx + b_min
            lo = [max(0, k - self.margin) for k in idx]
            hi = [min(j, k + self.margin) for k, j in zip(idx, im_shape)]
            occluded = y_pred.copy()
            occluded[(...,) + tuple(slice(a, b) for a, b in zip(lo, hi))] = self.pad_val
            images.append(occluded)
            if len(images) == self.n_batch or i == total - 1:
                out = model(Tensor(np.vstack(images))).asnumpy()
                scores.append(out[np.arange(len(images)), int(np.asarray(label).reshape(-1)[0])])
                images = []
        self._sensitivity_im = np.concatenate(scores).reshape(out_shape)
        self._is_update = True

    def eval(self):
        """The sensitivity map: baseline score - occluded score, shaped like the image (or the box)."""
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        return self._baseline - np.squeeze(self._sensitivity_im)


def _bounding_box(b_box, im_shape):
    if b_box is None:
        return None, None
    if len(b_box) != 2 * len(im_shape):
        raise ValueError(f"For 'OcclusionSensitivity', the bounding box must contain upper and lower for all "
                         f"dimensions (except batch number), and the length of 'b_box' must be twice as long as "
                         f"predicted value's (except batch number), but got 'b_box' length {len(b_box)}, predicted "
                         f"value length (except batch number) {len(im_shape)}.")
    b_min, b_max = np.array(b_box[::2]), np.array(b_box[1::2])
    b_min[b_min < 0] = 0
    b_max[b_max < 0] = im_shape[b_max < 0] - 1
    if np.any(b_max >= im_shape):
        raise ValueError("For 'OcclusionSensitivity', maximum bounding box must be smaller than image size for all "
                         "values.")
    if np.any(b_min > b_max):
        raise ValueError("For 'OcclusionSensitivity', minimum bounding box must be smaller than maximum bounding box "
                         "for all values.")
    return b_min, b_max
