"""Base classes of the data transforms (MindSpore's unified 2.x interface).

A transform is a callable object: in a pipeline `map` calls it on the column values, and it can be called
eagerly on numpy arrays (or PIL images, for image transforms). Transforms that are elementwise and
deterministic also define `_batch_apply(batch)`, which gives the same values on a stacked batch: the engine
uses it to run them once per batch instead of once per row.
"""
import numpy as np

from mindseed.common.tensor import Tensor

__all__ = ["TensorOperation", "PyTensorOperation", "flatten_compose", "to_numpy_input"]


def to_numpy_input(x):
    """An eager input as the transforms take it: Tensors and Python data become numpy, PIL images stay."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, Tensor):
        return x.asnumpy()
    if hasattr(x, "getbands"):  # PIL image
        return x
    if isinstance(x, (list, tuple, int, float, bool, str, bytes, np.generic)):
        return np.asarray(x)
    return x


class TensorOperation:
    """Base of every transform; `__call__` runs it eagerly (or inside map)."""

    #: name used in pipeline error messages ("map operation: [Name] failed")
    @property
    def _op_name(self):
        return type(self).__name__

    #: whether an eager call converts its inputs to tensors first, as MindSpore's C++ transforms do (a Python
    #: object that is no array, number, string or image is then a TypeError); Python transforms take anything
    _tensor_inputs = True

    def __call__(self, *input_tensor_list):
        args = [to_numpy_input(x) for x in input_tensor_list]
        if self._tensor_inputs:
            for x, a in zip(input_tensor_list, args):
                if a is x and not isinstance(x, np.ndarray) and not hasattr(x, "getbands"):
                    raise TypeError(f"Invalid user input. Got {type(x)}: {x}, cannot be converted into tensor.")
        return self._apply(*args)

    def _apply(self, *args):
        raise TypeError(f"{type(self).__name__} is an abstract transform and cannot be applied.")

    def __repr__(self):
        attrs = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({attrs})"


class PyTensorOperation(TensorOperation):
    """Base of the transforms MindSpore implements in Python (they also work on PIL images)."""

    _tensor_inputs = False


def flatten_compose(ops):
    """A map's operation list with Compose objects expanded (so batchable tails stay visible)."""
    from mindseed.dataset.transforms._transforms import Compose
    out = []
    for op in ops:
        if isinstance(op, Compose):
            out += flatten_compose(op.transforms)
        else:
            out.append(op)
    return out
