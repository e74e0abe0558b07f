"""`mindspore.dataset.engine.datasets`: MindSpore's module of the dataset classes (`Dataset`, `BatchDataset`,
`RepeatDataset`, ...); the same classes as `mindspore.dataset`."""
from mindseed.dataset import *  # noqa: F401,F403
from mindseed.dataset import BatchDataset, Dataset, PaddedBatchDataset, RepeatDataset  # noqa: F401
from mindseed.dataset import __all__  # noqa: F401
