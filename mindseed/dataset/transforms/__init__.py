"""`mindspore.dataset.transforms`: transforms for any data type (Compose, TypeCast, OneHot, ...)."""
from mindseed.dataset.transforms import transforms  # noqa: F401  (mindspore's submodule name)
from mindseed.dataset.transforms import py_transforms_util, validators  # noqa: F401
from mindseed.dataset.transforms._base import PyTensorOperation, TensorOperation  # noqa: F401
from mindseed.dataset.transforms._transforms import (Compose, Concatenate, Duplicate, Fill, Mask, OneHot,  # noqa: F401
                                                     PadEnd, PyFunc, RandomApply, RandomChoice, RandomOrder,
                                                     Relational, Slice, TypeCast, Unique, not_random)

__all__ = ["Compose", "Concatenate", "Duplicate", "Fill", "Mask", "OneHot", "PadEnd", "RandomApply", "RandomChoice",
           "RandomOrder", "Relational", "Slice", "TypeCast", "Unique", "not_random", "transforms",
           "py_transforms_util", "validators", "vision"]


def __getattr__(name):
    # `mindspore.dataset.transforms.vision` is the vision package (imported lazily: vision imports this package)
    if name == "vision":
        from mindseed.dataset import vision
        return vision
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
