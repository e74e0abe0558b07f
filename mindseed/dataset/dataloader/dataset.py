"""The datasets a DataLoader reads: map style (`Dataset`: __getitem__ and __len__), iterable style
(`IterableDataset`: __iter__) and `TensorDataset` (rows of Tensors)."""
from mindseed.common.tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset"]


class Dataset:
    """Base of map-style datasets: a subclass defines `__getitem__(index)` (and usually `__len__`)."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{self.__class__.__name__} must implement __getitem__ method.")


class IterableDataset(Dataset):
    """Base of iterable-style datasets: a subclass defines `__iter__`. With several DataLoader workers each worker
    iterates its own copy; `get_worker_info()` tells the code which worker it runs in, to split the data."""

    def __iter__(self):
        raise NotImplementedError(f"{self.__class__.__name__} must implement __iter__ method.")


class TensorDataset(Dataset):
    """Rows of the given Tensors, which must have the same first dimension: sample i is (t[i] for each t)."""

    def __init__(self, *tensors: Tensor):
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise ValueError("All tensors must have the same size in the first dimension.")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]
