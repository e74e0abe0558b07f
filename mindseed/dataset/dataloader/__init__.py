"""mindspore.dataset.dataloader: a DataLoader over map- and iterable-style Python datasets, with samplers, collate
functions and worker processes, as MindSpore 2.10 has it."""
from mindseed.dataset.dataloader._utils.collate import default_collate, default_convert
from mindseed.dataset.dataloader._utils.worker import get_worker_info
from mindseed.dataset.dataloader.dataloader import DataLoader
from mindseed.dataset.dataloader.dataset import Dataset, IterableDataset, TensorDataset
from mindseed.dataset.dataloader.sampler import (BatchSampler, DistributedSampler, RandomSampler, Sampler,
                                                 SequentialSampler)

__all__ = ["BatchSampler", "DataLoader", "Dataset", "DistributedSampler", "IterableDataset", "RandomSampler",
           "Sampler", "SequentialSampler", "TensorDataset", "default_collate", "default_convert", "get_worker_info"]
