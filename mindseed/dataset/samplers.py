"""Samplers: which row ids a mappable source reads, in which order (`mindspore.dataset.*Sampler`).

A sampler turns the source's row count into an array of ids for one epoch. `add_child` chains
samplers: the child picks ids from the dataset and the parent picks positions among the child's ids.

RandomSampler, SubsetRandomSampler and DistributedSampler draw their orders from MindSpore's own C++ streams
(`_std_random`): with a seed set, a pipeline reads its rows in the order MindSpore reads them, epoch after epoch.
"""
import numbers

import numpy as np

from mindseed.dataset import _std_random as R
from mindseed.dataset import _validate as V
from mindseed.dataset import config as _cfg

__all__ = ["Sampler", "BuiltinSampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "SubsetSampler", "WeightedRandomSampler", "PKSampler", "DistributedSampler"]


def _check_num_samples(num_samples, name="num_samples"):
    if num_samples is None:
        return
    if isinstance(num_samples, bool) or not isinstance(num_samples, int):
        raise TypeError(f"{name} must be an integer but was: {num_samples}.")
    if num_samples < 0 or num_samples > 9223372036854775807:
        raise ValueError(f"{name} exceeds the boundary between 0 and 9223372036854775807(INT64_MAX)!")


class Draws:
    """What a sampler draws from in one pass over its source: the pass's numpy generator (its methods are this
    object's), and for the samplers that follow MindSpore's C++ streams the pipeline seed, the number of passes
    before this one, and the iterator's state where a chain of per-pass shuffles is kept."""

    __slots__ = ("gen", "seed", "pass_index", "state", "mindrecord")

    def __init__(self, gen, seed, pass_index=0, state=None, mindrecord=False):
        self.gen, self.seed, self.pass_index = gen, seed, pass_index
        self.state = {} if state is None else state
        self.mindrecord = mindrecord    # a MindDataset: its reader shuffles (MindRecord's ShardShuffle)

    def __getattr__(self, name):
        return getattr(self.gen, name)

    def chained(self, owner, first, step):
        """`first` transformed by `step(ids, p)` for each pass p = 0 .. pass_index (MindSpore reshuffles the
        previous pass's order); the last result is kept so that the next pass costs one step."""
        key = ("chain", id(owner), len(first))
        done, ids = self.state.get(key, (-1, first))
        if done > self.pass_index:
            done, ids = -1, first
        for p in range(done + 1, self.pass_index + 1):
            ids = step(ids, p)
        self.state[key] = (self.pass_index, ids)
        return ids


class BuiltinSampler:
    """Base of the built-in samplers: child chaining and the epoch's ids."""

    def __init__(self, num_samples=None):
        self.child_sampler = None
        self.num_samples = num_samples

    def add_child(self, sampler):
        """Chain `sampler` below this one: it picks ids first, this sampler picks among them.

        Raises:
            TypeError: `sampler` is not a sampler.
            RuntimeError: this sampler already has a child.
        """
        if not isinstance(sampler, BuiltinSampler):
            raise TypeError("Input `sampler` must be an instance of Sampler or BuiltinSampler.")
        if self.child_sampler is not None:
            raise RuntimeError("Cannot add child sampler, this sampler already has a child.")
        self.child_sampler = sampler

    def get_child(self):
        """The child sampler, or None."""
        return self.child_sampler

    def get_num_samples(self):
        """The num_samples setting (None means all)."""
        return self.num_samples

    def is_shuffled(self):
        """Whether the order is random."""
        return False

    def is_sharded(self):
        """Whether this sampler (or its child) shards the data."""
        return self.child_sampler.is_sharded() if self.child_sampler is not None else False

    # ---------------------------------------------------------------- engine interface
    def _ids(self, n, rng, source=None):
        """np.int64 ids of one epoch over a source of `n` rows."""
        if self.child_sampler is None:
            return self._own_ids(n, rng, source)
        base = np.asarray(self.child_sampler._ids(n, rng, source), dtype=np.int64)
        return base[self._own_ids(len(base), rng, None)]

    def _count(self, n, source=None):
        """How many ids an epoch yields over `n` rows (without drawing them)."""
        if self.child_sampler is not None:
            return self._own_count(self.child_sampler._count(n, source))
        return self._own_count(n, source) if isinstance(self, PKSampler) else self._own_count(n)

    def _own_count(self, n):
        return n if not self.num_samples else min(n, self.num_samples)

    def _own_ids(self, n, rng, source):
        raise TypeError(f"{type(self).__name__} is not a concrete sampler.")

    def __repr__(self):
        return f"{type(self).__name__}(num_samples={self.num_samples})"


class Sampler(BuiltinSampler):
    """Base of user samplers: override `__iter__` to yield row ids; `self.dataset_size` is set before.

    >>> class Reverse(Sampler):
    ...     def __iter__(self):
    ...         return iter(range(self.dataset_size - 1, -1, -1))
    """

    def __init__(self, num_samples=None):
        _check_num_samples(num_samples)
        super().__init__(num_samples)
        self.dataset_size = 0

    def __iter__(self):
        raise TypeError(f"{type(self).__name__}: a user Sampler must define __iter__ yielding row ids.")

    def _own_ids(self, n, rng, source):
        self.dataset_size = n
        ids = []
        limit = self.num_samples
        for i in iter(self):
            if limit and len(ids) >= limit:
                break
            ids.append(int(i))
        return _checked(np.asarray(ids, dtype=np.int64), n, type(self).__name__)

    def _own_count(self, n):
        self.dataset_size = n
        if hasattr(self, "__len__"):
            count = len(self)
        else:
            count = sum(1 for _ in iter(self))
        return count if not self.num_samples else min(count, self.num_samples)


class _IterableSampler(BuiltinSampler):
    """A plain iterable of ids (list, range, numpy array) given as `sampler=`."""

    def __init__(self, ids):
        super().__init__(None)
        self._ids_list = ids

    def _own_ids(self, n, rng, source):
        return _checked(np.asarray([int(i) for i in self._ids_list], dtype=np.int64), n, "sampler")

    def _own_count(self, n):
        return len(self._ids_list) if hasattr(self._ids_list, "__len__") else sum(1 for _ in self._ids_list)


def _checked(ids, n, who):
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        bad = int(ids[(ids < 0) | (ids >= n)][0])
        raise RuntimeError(f"{who}: sample id {bad} is out of bound, expected range [0, {n - 1}].")
    return ids


class SequentialSampler(BuiltinSampler):
    """Rows in order from `start_index`.

    Args:
        start_index (int, optional): first row id. Default: ``None`` (0).
        num_samples (int, optional): how many rows. Default: ``None`` (all).
    """

    def __init__(self, start_index=None, num_samples=None):
        _check_num_samples(num_samples)
        if start_index is not None:
            if isinstance(start_index, bool) or not isinstance(start_index, int):
                raise TypeError(f"start_index must be an integer but was: {start_index}.")
        super().__init__(num_samples)
        self.start_index = start_index or 0

    def _check_built(self):
        # as MindSpore: a negative start_index is refused when the pipeline is built
        if self.start_index < 0:
            raise RuntimeError(f"SequentialSampler: start_index_ must be greater than or equal to 0, but got: "
                               f"{self.start_index}")

    def _own_count(self, n):
        self._check_built()
        rest = max(0, n - self.start_index)
        return rest if not self.num_samples else min(rest, self.num_samples)

    def _own_ids(self, n, rng, source):
        self._check_built()
        if n and self.start_index >= n:
            raise RuntimeError(f"SequentialSampler: start_index {self.start_index} is out of bound, expected "
                               f"range [0, {n - 1}].")
        return np.arange(self.start_index, self.start_index + self._own_count(n), dtype=np.int64)


class _RandomDraws(BuiltinSampler):
    """A sampler drawing row ids at random, with or without replacement."""

    def __init__(self, replacement, num_samples):
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement must be a boolean value but was: {replacement}.")
        _check_num_samples(num_samples)
        super().__init__(num_samples)
        self.replacement = replacement

    def is_shuffled(self):
        return True


class RandomSampler(_RandomDraws):
    """Rows in a random order (a new order every epoch).

    Args:
        replacement (bool, optional): draw with replacement. Default: ``False``.
        num_samples (int, optional): how many rows. Default: ``None`` (all).
    """

    def __init__(self, replacement=False, num_samples=None, shuffle=True):
        super().__init__(replacement, num_samples)
        self.reshuffle_each_epoch = True

    def _own_ids(self, n, rng, source):
        # MindSpore's RandomSampler: std::mt19937 seeded with the pipeline seed, plus one per pass when it
        # reshuffles each epoch; without replacement each pass shuffles the previous pass's order again
        count = self._own_count(n)
        if n == 0:
            return np.zeros(0, np.int64)
        if self.replacement:
            return R.uniform_ints(rng.seed + (rng.pass_index if self.reshuffle_each_epoch else 0), n, count)
        if rng.mindrecord:  # std::default_random_engine seeded with one more than the pipeline seed per pass
            return rng.chained(self, np.arange(n, dtype=np.int64),
                               lambda ids, p: R.shuffle(ids, rng.seed + 1 + p, "minstd_rand0"))[:count]
        if not self.reshuffle_each_epoch:
            return R.shuffle(np.arange(n, dtype=np.int64), rng.seed)[:count]
        return rng.chained(self, np.arange(n, dtype=np.int64), lambda ids, p: R.shuffle(ids, rng.seed + p))[:count]


class SubsetSampler(BuiltinSampler):
    """The given row ids, in the given order.

    Args:
        indices (Iterable[int]): row ids.
        num_samples (int, optional): how many of them. Default: ``None`` (all).
    """

    def __init__(self, indices, num_samples=None):
        if not isinstance(indices, (list, tuple, range, np.ndarray)):
            try:
                indices = list(indices)
            except TypeError:
                raise TypeError(f"Unsupported indices type: {type(indices).__name__}.") from None
        for i in indices:
            if not isinstance(i, numbers.Integral) or isinstance(i, bool):
                raise TypeError(f"SubsetSampler: type of indices element must be int, but got {i!r} of type "
                                f"{type(i).__name__}.")
        _check_num_samples(num_samples)
        super().__init__(num_samples)
        self.indices = np.asarray(list(indices), dtype=np.int64)

    def _own_count(self, n):
        k = len(self.indices)
        return k if not self.num_samples else min(k, self.num_samples)

    def _own_ids(self, n, rng, source):
        return _checked(self.indices[:self._own_count(n)], n, type(self).__name__)


class SubsetRandomSampler(SubsetSampler):
    """The given row ids in a random order (new every epoch)."""

    def is_shuffled(self):
        return True

    def _own_ids(self, n, rng, source):
        # MindSpore reseeds with the pipeline seed at every pass and shuffles the previous pass's order again
        ids = rng.chained(self, self.indices, lambda ids, p: R.shuffle(ids, rng.seed))
        return _checked(ids[:self._own_count(n)], n, type(self).__name__)


class WeightedRandomSampler(_RandomDraws):
    """Row ids drawn with probability proportional to `weights`.

    Args:
        weights (list[float]): one non-negative weight per row.
        num_samples (int, optional): how many draws. Default: ``None`` (len(weights)).
        replacement (bool, optional): draw with replacement. Default: ``True``.
    """

    def __init__(self, weights, num_samples=None, replacement=True):
        if not isinstance(weights, (list, tuple, np.ndarray)):
            raise TypeError(f"weights should be a list of numbers, but got {type(weights).__name__}.")
        w = V.to_array(weights, "weights", np.float64)
        if w.ndim > 1:
            raise TypeError(f"weights should be a list of numbers, but got an array of shape {w.shape}.")
        super().__init__(replacement, num_samples)
        self.weights = w

    def _check_built(self):
        # as MindSpore: the weights' values are checked when the pipeline is built
        w = self.weights
        if w.size == 0:
            raise RuntimeError("WeightedRandomSampler: weights vector must not be empty")
        if (w < 0).any():
            k = int(np.argmax(w < 0))
            raise RuntimeError(f"WeightedRandomSampler: weights vector must not contain negative numbers, got: "
                               f"weights[{k}] = {w[k]:.6f}")
        if not w.any():
            raise RuntimeError("WeightedRandomSampler: elements of weights vector must not be all zero")

    def _own_count(self, n):
        self._check_built()
        return self.num_samples if self.num_samples else len(self.weights)

    def _own_ids(self, n, rng, source):
        self._check_built()
        w = self.weights[:n] if len(self.weights) > n else self.weights
        count = self._own_count(n)
        if not self.replacement and count > np.count_nonzero(w):
            raise RuntimeError(f"WeightedRandomSampler: num_samples {count} is larger than the number of rows with "
                               f"a positive weight ({np.count_nonzero(w)}) while replacement is False.")
        return rng.choice(len(w), size=count, replace=self.replacement, p=w / w.sum()).astype(np.int64)


class PKSampler(BuiltinSampler):
    """`num_val` rows of each class (P classes x K rows), reading the source's labels.

    Args:
        num_val (int): rows per class.
        num_class (int, optional): not supported by MindSpore either; must be None.
        shuffle (bool, optional): random classes order and rows. Default: ``False``.
        class_column (str, optional): the label column. Default: ``'label'``.
        num_samples (int, optional): total rows. Default: ``None`` (all).
    """

    def __init__(self, num_val, num_class=None, shuffle=False, class_column='label', num_samples=None):
        if isinstance(num_val, bool) or not isinstance(num_val, int):
            raise TypeError(f"num_val must be an integer but was: {num_val}.")
        if num_val <= 0:
            raise ValueError(f"num_val should be a positive integer value, but got num_val: {num_val}.")
        if num_class is not None:
            raise NotImplementedError("Not supported to specify num_class for PKSampler.")
        if not isinstance(shuffle, bool):
            raise TypeError(f"shuffle must be a boolean value but was: {shuffle}.")
        if not isinstance(class_column, str):
            raise TypeError(f"class_column must be a str but was: {class_column}.")
        _check_num_samples(num_samples)
        super().__init__(num_samples)
        self.num_val = num_val
        self.shuffle = shuffle
        self.class_column = class_column

    def is_shuffled(self):
        return self.shuffle

    def _labels(self, source):
        labels = getattr(source, "_class_labels", lambda: None)() if source is not None else None
        if labels is None:
            raise RuntimeError("PKSampler: the dataset has no class labels to sample from; use it with a source "
                               "that has a label column (MnistDataset, Cifar10Dataset, ImageFolderDataset, ...).")
        return np.asarray(labels).reshape(-1)

    def _own_count(self, n, source=None):
        if source is None:
            return n if not self.num_samples else min(n, self.num_samples)
        classes = np.unique(self._labels(source)[:n])
        total = len(classes) * self.num_val
        return total if not self.num_samples else min(total, self.num_samples)

    def _own_ids(self, n, rng, source):
        labels = self._labels(source)[:n]
        classes = np.unique(labels)
        if self.shuffle:
            classes = classes[rng.permutation(len(classes))]
        out = []
        for c in classes:
            rows = np.flatnonzero(labels == c)
            if self.shuffle:
                rows = rng.choice(rows, size=self.num_val, replace=len(rows) < self.num_val)
            else:
                rows = np.resize(rows, self.num_val)
            out.append(rows)
        ids = np.concatenate(out).astype(np.int64) if out else np.zeros(0, np.int64)
        return ids[:self.num_samples] if self.num_samples else ids


class DistributedSampler(BuiltinSampler):
    """One shard of the rows for data-parallel training: shard `shard_id` of `num_shards`.

    Every shard gets ceil(n / num_shards) rows (the last ones wrap to the start), row i of the
    (optionally shuffled, same order on every shard) ids going to shard i % num_shards.

    Args:
        num_shards (int): number of shards.
        shard_id (int): this shard, in [0, num_shards).
        shuffle (bool, optional): shuffle before sharding. Default: ``True``.
        num_samples (int, optional): at most this many rows per shard. Default: ``None``.
        offset (int, optional): first shard to receive rows (-1: shard 0). Default: ``-1``.
    """

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        if isinstance(num_shards, bool) or not isinstance(num_shards, int):
            raise TypeError(f"num_shards must be an integer but was: {num_shards}.")
        if isinstance(shard_id, bool) or not isinstance(shard_id, int):
            raise TypeError(f"shard_id must be an integer but was: {shard_id}.")
        # as MindSpore: the ranges are checked when the pipeline is built (a RuntimeError), not here
        self._invalid = None
        if num_shards <= 0:
            self._invalid = f"num_shards should be a positive integer value, but got num_shards: {num_shards}."
        elif shard_id < 0 or shard_id >= num_shards:
            self._invalid = f"shard_id should in range [0, {num_shards}], but got shard_id: {shard_id}."
        if not isinstance(shuffle, bool):
            raise TypeError(f"shuffle should be a boolean value, but got shuffle: {shuffle}.")
        _check_num_samples(num_samples)
        if not isinstance(offset, int) or isinstance(offset, bool):
            raise TypeError(f"offset must be an integer but was: {offset}.")
        if offset > num_shards and self._invalid is None:
            self._invalid = f"offset should be no more than num_shards: {num_shards}, but got offset: {offset}."
        super().__init__(num_samples)
        self.num_shards = num_shards
        self.shard_id = shard_id
        self.shuffle = shuffle
        self.offset = offset
        # MindSpore takes the pipeline seed when the sampler is made (5489 when none was set) and shuffles with
        # one more than it
        self.seed = _cfg.get_seed()

    def is_shuffled(self):
        return self.shuffle

    def is_sharded(self):
        return True

    def _check_built(self):
        if self._invalid is not None:
            raise RuntimeError(f"Invalid input, {self._invalid}")

    def _shard_size(self, n):
        if self.offset == -1:       # every shard gets ceil(n / num_shards) rows, the last ones wrapping around
            return -(-n // self.num_shards)
        # from shard `offset` on: rows offset.. go to shards in turn, with no wrapping
        size = (n + self.offset) // self.num_shards
        size += self.shard_id < (n + self.offset) % self.num_shards
        return size - (self.shard_id < self.offset)

    def _own_count(self, n):
        self._check_built()
        per = self._shard_size(n)
        return per if not self.num_samples else min(per, self.num_samples)

    def _own_ids(self, n, rng, source):
        self._check_built()
        if n == 0:
            return np.zeros(0, np.int64)
        base = np.arange(n, dtype=np.int64)
        if self.shuffle:    # the same order on every shard: seeded by the sampler's seed, reshuffled every pass
            base = rng.chained(self, base, lambda ids, p: R.shuffle(ids, self.seed + 1 + p))
        first = self.shard_id - max(self.offset, 0)
        if first < 0:
            first += self.num_shards
        pos = first + self.num_shards * np.arange(self._own_count(n), dtype=np.int64)
        return base[pos % n]


def _resolve(sampler):
    """A sampler object from what a user may pass as `sampler=`."""
    if sampler is None or isinstance(sampler, BuiltinSampler):
        return sampler
    if isinstance(sampler, (list, tuple, range, np.ndarray)) or hasattr(sampler, "__iter__"):
        return _IterableSampler(sampler)
    raise TypeError(f"Unsupported sampler object of type ({type(sampler)})")


def select_sampler(num_samples, input_sampler, shuffle, num_shards, shard_id):
    """MindSpore's rule for a source's sampler from (num_samples, sampler, shuffle, num_shards, shard_id)."""
    if input_sampler is not None:
        if shuffle is not None:
            raise RuntimeError("sampler and shuffle cannot be specified at the same time.")
        if num_shards is not None or shard_id is not None:
            raise RuntimeError("sampler and sharding cannot be specified at the same time.")
        sampler = _resolve(input_sampler)
        if num_samples is not None and isinstance(sampler, BuiltinSampler) and not sampler.num_samples:
            sampler.num_samples = num_samples
        return sampler
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle=True if shuffle is None else bool(shuffle),
                                  num_samples=num_samples)
    if shuffle is None or shuffle:
        # as MindSpore: a shuffled source with num_samples draws its rows with replacement
        return RandomSampler(replacement=num_samples is not None, num_samples=num_samples)
    return SequentialSampler(num_samples=num_samples)
