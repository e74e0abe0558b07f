"""`mindspore.dataset.engine`: MindSpore's package of the dataset classes; the same names as `mindspore.dataset`
(`from mindspore.dataset.engine import Dataset`)."""
from mindseed.dataset import *  # noqa: F401,F403
from mindseed.dataset import __all__  # noqa: F401
