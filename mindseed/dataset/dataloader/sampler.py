"""Samplers of dataset indices for the DataLoader: sequential, random (numpy Generator), batches of indices, and the
distributed sampler splitting indices across ranks."""
import itertools
import math

import numpy as np

from mindseed.dataset.dataloader._utils import check_positive, check_type

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "BatchSampler", "DistributedSampler"]


class Sampler:
    """Base of the samplers: iterating one gives dataset indices (or lists of them)."""

    def __init__(self, data_source=None):
        pass


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        super().__init__(data_source)
        self.data_source = data_source

    def __iter__(self):
        yield from range(len(self.data_source))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Random indices from `generator` (a numpy Generator; default: a new one seeded from numpy's global state):
    permutations of the dataset, or with `replacement` uniform draws, `num_samples` of them (default: the
    dataset's length)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        super().__init__(data_source)
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement must be bool, but got: {type(replacement).__name__}")
        if num_samples is not None and not isinstance(num_samples, int):
            raise TypeError(f"num_samples must be int, but got: {type(num_samples).__name__}")
        if num_samples is not None and num_samples <= 0:
            raise ValueError(f"num_samples must be a positive integer value, but got num_samples = {num_samples}")
        if generator is not None and not isinstance(generator, np.random.Generator):
            raise TypeError(f"generator must be numpy.random.Generator, but got: {type(generator).__name__}")
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        g = self.generator
        if g is None:
            g = np.random.default_rng(np.random.randint(0, np.iinfo(np.int64).max, dtype=np.int64))
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from g.integers(low=0, high=n, size=(32,), dtype=np.int64).tolist()
            yield from g.integers(low=0, high=n, size=(self.num_samples % 32,), dtype=np.int64).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from g.permutation(n).tolist()
            yield from g.permutation(n).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of `batch_size` indices from `sampler`; the last shorter list is dropped when `drop_last`."""

    def __init__(self, sampler, batch_size, drop_last):
        super().__init__()
        check_type(batch_size, "batch_size", valid_type=int, invalid_type=bool)
        check_positive(batch_size, "batch_size")
        check_type(drop_last, "drop_last", valid_type=bool)
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        it = iter(self.sampler)
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) - 1) // self.batch_size + 1


class InfiniteSampler(Sampler):
    """The index stream of an iterable dataset (its samples come from its own iterator)."""

    def __iter__(self):
        return itertools.repeat(None)


class DistributedSampler(Sampler):
    """The indices of rank `rank` of `num_replicas` (default: the communication world's): every num_replicas-th
    index from position `rank` of the (shuffled with seed + epoch, when `shuffle`) indices, padded by repeating
    them to a multiple of num_replicas, or cut to one when `drop_last`."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        super().__init__(dataset)
        for name, value, kind in (("num_replicas", num_replicas, int), ("rank", rank, int)):
            if value is not None and not isinstance(value, kind):
                raise TypeError(f"{name} must be int, but got: {type(value).__name__}")
        for name, value, kind in (("shuffle", shuffle, bool), ("seed", seed, int), ("drop_last", drop_last, bool)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} must be {kind.__name__}, but got: {type(value).__name__}")
        if num_replicas is None or rank is None:
            from mindseed.communication import management as comm  # noqa: PLC0415 -- only when asked for
            num_replicas = comm.get_group_size() if num_replicas is None else num_replicas
            rank = comm.get_rank() if rank is None else rank
        if num_replicas <= 0:
            raise ValueError(f"Invalid num_replicas: {num_replicas}, num_replicas must be greater than 0.")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank: {rank}, rank must be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last, self.epoch = shuffle, seed, drop_last, 0
        if len(dataset) % num_replicas == 0 or not drop_last:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        else:
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        self.total_samples = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        indices = np.random.default_rng(self.seed + self.epoch).permutation(n).tolist() if self.shuffle \
            else list(range(n))
        if self.drop_last:
            indices = indices[:self.total_samples]
        else:
            pad = self.total_samples - n
            indices += (indices * math.ceil(pad / n))[:pad] if pad > n else indices[:pad]
        return iter(indices[self.rank:self.total_samples:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Shuffle with seed + `epoch` from now on (call it at each epoch so each epoch's order differs)."""
        if not isinstance(epoch, int):
            raise TypeError(f"epoch must be int, but got: {type(epoch).__name__}")
        self.epoch = epoch
