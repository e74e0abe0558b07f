"""`mindspore.dataset.transforms.py_transforms_util`: the helpers behind the Python transforms (Compose,
RandomApply, RandomChoice, RandomOrder, OneHot label smoothing) as plain functions. Randomness comes from the
dataset's seeded generator (`mindseed.dataset.config.set_seed`)."""
from enum import IntEnum

import numpy as np

from mindseed.dataset._random import rng

__all__ = ["all_numpy", "compose", "one_hot_encoding", "random_order", "random_apply", "random_choice",
           "FuncWrapper", "Implementation"]


class Implementation(IntEnum):
    """Where a transform is implemented (MindSpore: C++ `C` or Python `PY`). mindseed's transforms are all Python;
    the attribute is kept for code that sets or reads it (mindnlp's tokenizers set `PY`)."""
    C = 0
    PY = 1


def all_numpy(args):
    """Whether `args` (one value or a tuple) are all numpy arrays."""
    values = args if isinstance(args, tuple) else (args,)
    return all(isinstance(v, np.ndarray) for v in values)


def compose(transforms, *args):
    """Apply `transforms` in turn to `args`; the result is always a tuple."""
    for transform in transforms:
        args = transform(*args)
        args = args if isinstance(args, tuple) else (args,)
    return args


def one_hot_encoding(label, num_classes, epsilon):
    """One-hot `label` (integer array) over `num_classes`, smoothed: (1 - epsilon) * onehot + epsilon / n."""
    if not isinstance(label, np.ndarray):
        raise ValueError("the input is invalid, it should be numpy.ndarray.")
    if label.dtype.kind not in "iu":
        raise ValueError(f"the input numpy type should be int, but the input is: {label.dtype}")
    if label.size and int(label.max()) >= num_classes:
        raise ValueError(f"the num_classes:{num_classes} is smaller than the category number:{int(label.max())}")
    one_hot = (label[..., None] == np.arange(num_classes)).astype(int)
    return (1 - epsilon) * one_hot + epsilon / num_classes


def random_order(img, transforms):
    """Apply `transforms` to `img` in a random order."""
    for i in rng().permutation(len(transforms)):
        img = transforms[int(i)](img)
    return img


def random_apply(img, transforms, prob):
    """Apply all of `transforms` to `img` with probability `prob`."""
    if prob < rng().random():
        return img
    for transform in transforms:
        img = transform(img)
    return img


def random_choice(img, transforms):
    """Apply one of `transforms`, chosen uniformly, to `img`."""
    return transforms[int(rng().integers(len(transforms)))](img)


class FuncWrapper:
    """A Python function as a transform: its errors name the function (MindSpore wraps map functions so)."""

    def __init__(self, transform):
        if not callable(transform):
            raise ValueError(f"Input fn should be callable, but got {type(transform).__name__}.")
        self.transform = transform

    def __call__(self, *args):
        try:
            return self.transform(*args)
        except Exception as e:
            name = getattr(self.transform, "__name__", type(self.transform).__name__)
            raise RuntimeError(f"Python function {name} raised {type(e).__name__}: {e}") from e
