"""mindspore.dataset.transforms.transforms: the transforms of `mindspore.dataset.transforms`, under MindSpore's
module name."""
from mindseed.dataset.transforms._transforms import *  # noqa: F401,F403
from mindseed.dataset.transforms._transforms import __all__  # noqa: F401
