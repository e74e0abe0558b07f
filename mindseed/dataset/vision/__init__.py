"""`mindspore.dataset.vision`: image transforms on numpy HWC arrays and PIL images."""
from mindseed.dataset.transforms._transforms import not_random as _not_random
from mindseed.dataset.vision import py_transforms_util, transforms, utils, validators  # noqa: F401
from mindseed.dataset.vision.transforms import *  # noqa: F401,F403
from mindseed.dataset.vision.transforms import __all__ as _transforms_all
from mindseed.dataset.vision.utils import *  # noqa: F401,F403
from mindseed.dataset.vision.utils import __all__ as _utils_all


def not_random(func):
    """Mark a Python function as deterministic (MindSpore's vision.not_random; transforms.not_random's twin)."""
    return _not_random(func)


__all__ = list(_transforms_all) + list(_utils_all) + ["not_random", "py_transforms_util", "transforms", "utils",
                                                      "validators"]
