"""Python-data sources: the mappable-source base, GeneratorDataset, NumpySlicesDataset, PaddedDataset."""
import enum
import itertools
import types

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.dataset import _validate as V
from mindseed.dataset import config as _cfg
from mindseed.dataset import _std_random as R
from mindseed.dataset import samplers as S
from mindseed.dataset._engine import SourceDataset, UnionBaseDataset, reraise_worker, to_array, to_row
from mindseed.dataset._workers import ProcessMap, ThreadMap, WorkerError, format_exception

__all__ = ["Shuffle", "MappableSource", "GeneratorDataset", "NumpySlicesDataset", "PaddedDataset"]


class Shuffle(str, enum.Enum):
    """Shuffle levels of non-mappable file sources."""
    GLOBAL = "global"
    FILES = "files"
    INFILE = "infile"


class MappableSource(SourceDataset):
    """A source whose rows are addressed by id: sampler, shuffle, sharding and split come from here.

    Subclasses give `_num_rows()`, `_fetch(ids)` (rows of those ids) and optionally `_arrays()` (column arrays
    indexed by row id, which enables vectorised batching) and `_class_labels()` (for PKSampler).
    """

    _mappable = True
    _mindrecord = False     # MindDataset: shuffled by MindRecord's reader, not by the sampler's C++ stream

    def __init__(self, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None):
        V.check_num_samples(num_samples)
        V.check_workers(num_parallel_workers)
        if shuffle is not None and not isinstance(shuffle, bool):
            raise TypeError(f"Argument shuffle with value {shuffle!r} is not of type [<class 'bool'>], "
                            f"but got {type(shuffle)}.")
        V.check_sharding(num_shards, shard_id)
        super().__init__(None, num_parallel_workers)
        self.num_samples = num_samples
        self.shuffle_flag = shuffle
        self.num_shards = num_shards
        self.shard_id = shard_id
        self.sampler = S.select_sampler(num_samples, sampler, shuffle, num_shards, shard_id)
        self._split = None

    def _num_rows(self):
        raise TypeError(f"{type(self).__name__} does not define its row count.")

    def _arrays(self):
        return None

    def _class_labels(self):
        return None

    def is_shuffled(self):
        return self.sampler.is_shuffled()

    def is_sharded(self):
        return self.sampler.is_sharded()

    def use_sampler(self, new_sampler):
        """Replace the sampler."""
        self.sampler = S._resolve(new_sampler)
        self._size_cache = None

    def add_sampler(self, new_sampler):
        """Chain `new_sampler` on top of the current sampler."""
        new_sampler = S._resolve(new_sampler)
        new_sampler.add_child(self.sampler)
        self.sampler = new_sampler
        self._size_cache = None

    def _split_ids(self, ids):
        """This split's part of the rows the dataset's own sampler chose (MindSpore chains, over that sampler, a
        RandomSampler that does not reshuffle (one std::shuffle seeded with the seed) when randomized, then the
        part's SequentialSampler(start, size))."""
        seed, start, size = self._split
        if seed is not None:
            ids = ids[R.shuffle(np.arange(len(ids), dtype=np.int64), seed)]
        return ids[start:start + size]

    def _ids(self, ctx):
        n = self._num_rows()
        rng = S.Draws(ctx.rng(self), ctx.seed, ctx.pass_index(self), ctx.state, self._mindrecord)
        ids = self.sampler._ids(n, rng, self)
        return ids if self._split is None else self._split_ids(np.asarray(ids, np.int64))

    def _size(self):
        n = self._num_rows()
        if self._split is not None:
            _, start, size = self._split
            return max(0, min(size, self.sampler._count(n, self) - start))
        return self.sampler._count(n, self)

    def _fetch(self, ids):
        arrays = self._arrays()
        for i in ids:
            # a[i, ...] keeps 0-d rows as arrays; the copy keeps user code from writing into the source
            yield [a[i, ...].copy() for a in arrays]

    def _rows(self, ctx):
        return self._fetch(self._ids(ctx))

    def _block_ok(self):
        return self._arrays() is not None

    def _blocks(self, ctx, n):
        arrays = self._arrays()
        ids = self._ids(ctx)
        for s in range(0, len(ids), n):
            sel = ids[s:s + n]
            yield [a[sel] for a in arrays]


# ---------------------------------------------------------------------------- GeneratorDataset
def _check_generator_sampling(num_samples, sampler, shuffle, num_shards, shard_id):
    """GeneratorDataset's checks of its sampling arguments: ValueErrors, where other sources raise RuntimeErrors."""
    if (num_shards is None) != (shard_id is None):
        raise ValueError("num_shards and shard_id need to be passed in together.")
    if num_shards is not None:
        V.type_check(num_shards, (int,), "num_shards")
        V.type_check(shard_id, (int,), "shard_id")
        V.check_range(num_shards, 1, V.INT32_MAX, "num_shards")
        if shard_id >= num_shards:
            raise ValueError("shard_id should be less than num_shards.")
    if isinstance(sampler, S.BuiltinSampler) and any(a is not None for a in (num_shards, shard_id, shuffle,
                                                                              num_samples)):
        raise ValueError(f"Conflicting arguments during sampler assignments. num_samples: {num_samples}, num_shards: "
                         f"{num_shards}, shard_id: {shard_id}, shuffle: {shuffle}.")


def _cast_row(row, types):
    if types is None:
        return row
    return [a if t is None else a.astype(mstype.dtype_to_nptype(t), copy=False) for a, t in zip(row, types)]


def _no_pk_sampler(sampler):
    """GeneratorDataset and NumpySlicesDataset (a GeneratorDataset in MindSpore) have no class labels."""
    if isinstance(sampler, S.PKSampler):
        raise ValueError("GeneratorDataset doesn't support PKSampler.")


class _ReiterableGenerator:
    """A generator object that can be read once per epoch (MindSpore's): each `iter()` reads a fresh copy of what
    the generator yields, kept by itertools.tee."""

    def __init__(self, generator):
        self._generator = generator
        self._current = iter(())

    def __iter__(self):
        self._current, self._generator = itertools.tee(self._generator)
        return self

    def __next__(self):
        return next(self._current)


class GeneratorDataset(MappableSource, UnionBaseDataset):
    """Rows from Python: a generator function, an iterable, or a random-access object (`__getitem__` + `__len__`).

    Args:
        source (Union[Callable, Iterable, Random Accessible]): the data.
        column_names (Union[str, list[str]], optional): column names. Default: ``None`` (from `schema`).
        column_types (list[mindspore.dtype], optional): cast the columns to these types. Default: ``None``.
        schema (Schema, optional): columns from a Schema. Default: ``None``.
        num_samples (int, optional): at most this many rows. Default: ``None`` (all).
        num_parallel_workers (int, optional): workers reading a random-access source. Default: ``1``.
        shuffle (bool, optional): random order (random-access sources only). Default: ``None`` (True there).
        sampler (Union[Sampler, Iterable], optional): row ids to read (random-access only). Default: ``None``.
        num_shards (int, optional): number of shards. Default: ``None``.
        shard_id (int, optional): this shard. Default: ``None``.
        python_multiprocessing (bool, optional): worker processes instead of threads. Default: ``True``.
        max_rowsize (int, optional): accepted for compatibility. Default: ``None``.

    Raises:
        RuntimeError: the source raises (the message holds its original traceback).
        ValueError: shuffle, sampler or sharding is asked of a source that is not random-access.
    """

    def __init__(self, source, column_names=None, column_types=None, schema=None, num_samples=None,
                 num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 python_multiprocessing=True, max_rowsize=None, batch_sampler=None, collate_fn=None):
        if not (callable(source) or hasattr(source, "__iter__") or hasattr(source, "__getitem__")):
            raise TypeError("Input `source` function of GeneratorDataset should be callable, iterable or random "
                            "accessible, commonly it should implement one of the method like yield, __getitem__ or "
                            "__next__(__iter__).")
        if column_names is None and schema is None:
            raise ValueError("Neither columns_names nor schema are provided.")
        if isinstance(source, zip):
            source = list(source)       # a zip can be read once: its rows are kept (as MindSpore does)
        elif isinstance(source, types.GeneratorType):
            source = _ReiterableGenerator(source)
        _no_pk_sampler(sampler)
        if schema is not None:
            names = [c["name"] for c in schema.columns] if hasattr(schema, "columns") else None
            column_names = column_names or names
            if column_types is None and hasattr(schema, "columns"):
                column_types = [c.get("type") for c in schema.columns]
        self.column_names_ = V.check_columns(column_names, "column_names")
        if column_types is not None:
            if not isinstance(column_types, list):
                raise TypeError("column_types should be a list of mindspore.dtype.")
            column_types = [None if t is None else (t if isinstance(t, mstype.Type) else mstype.pytype_to_dtype(t))
                            for t in column_types]
        self.column_types = column_types
        self.random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        self._mappable = self.random_access
        if not self.random_access:
            if shuffle:
                raise ValueError("shuffle is not supported for a source that is not random accessible "
                                 "(it needs __getitem__ and __len__).")
            if sampler is not None:
                raise ValueError("sampler is not supported for a source that is not random accessible "
                                 "(it needs __getitem__ and __len__).")
            if num_shards is not None:
                raise ValueError("num_shards is not supported for a source that is not random accessible "
                                 "(it needs __getitem__ and __len__).")
        V.check_bool(python_multiprocessing, "python_multiprocessing")
        _check_generator_sampling(num_samples, sampler, shuffle, num_shards, shard_id)
        if sampler is not None:
            shuffle = None      # a list of ids given with shuffle: MindSpore reads the ids in their order
        super().__init__(num_samples, num_parallel_workers, shuffle if self.random_access else False,
                         sampler, num_shards, shard_id)
        self.source = source
        self.python_multiprocessing = python_multiprocessing
        self.max_rowsize = max_rowsize

    def _col_names(self):
        return self.column_names_

    def _num_rows(self):
        try:
            return len(self.source)
        except Exception as e:  # noqa: BLE001
            raise reraise_worker(e, "GeneratorDataset: [__len__]") from None

    def _size(self):
        if self.random_access:
            return super()._size()
        if hasattr(self.source, "__len__"):
            n = self._num_rows()
        else:
            n = self._count_rows()
        return n if self.num_samples is None else min(n, self.num_samples)

    def _read(self, i):
        try:
            item = self.source[int(i)]
        except Exception as e:  # noqa: BLE001
            raise WorkerError(f"GeneratorDataset: [__getitem__] of index {int(i)} failed. Error description:\n"
                              f"{format_exception(e)}", type(e)) from None
        return _cast_row(to_row(item, len(self.column_names_)), self.column_types)

    def _rows(self, ctx):
        if not self.random_access:
            yield from self._iterable_rows()
            return
        ids = self._ids(ctx)
        workers = self.num_parallel_workers or 1
        try:
            if workers <= 1:
                for i in ids:
                    yield self._read(i)
                return
            chunk = 8
            chunks = (ids[s:s + chunk] for s in range(0, len(ids), chunk))
            if self.python_multiprocessing:
                pool = ProcessMap(lambda rows: [self._read(r[0]) for r in rows], workers,
                                   shared_memory=_cfg.get_enable_shared_mem())
                for rows in pool.imap([[np.int64(i)] for i in c] for c in chunks):
                    yield from rows
            else:
                pool = ThreadMap(lambda c: [self._read(i) for i in c], workers)
                for rows in pool.imap(chunks):
                    yield from rows
        except WorkerError as e:
            raise reraise_worker(e) from None

    def _iterable_rows(self):
        try:
            it = iter(self.source() if callable(self.source) and not hasattr(self.source, "__iter__")
                      else self.source)
        except Exception as e:  # noqa: BLE001
            raise reraise_worker(e) from None
        ncols = len(self.column_names_)
        limit = self.num_samples
        count = 0
        while limit is None or count < limit:
            try:
                item = next(it)
            except StopIteration:
                return
            except Exception as e:  # noqa: BLE001
                raise reraise_worker(e) from None
            try:
                row = to_row(item, ncols)
            except (TypeError, RuntimeError) as e:
                raise reraise_worker(e, "GeneratorDataset: converting the source's output") from None
            yield _cast_row(row, self.column_types)
            count += 1

    def _block_ok(self):
        return False


# ---------------------------------------------------------------------------- NumpySlicesDataset
class NumpySlicesDataset(MappableSource, UnionBaseDataset):
    """Rows sliced along the first axis of in-memory data (list, tuple of arrays, dict of arrays, ndarray).

    Args:
        data (Union[list, tuple, dict, numpy.ndarray]): a list/ndarray is one column; a tuple is one column
            per element; a dict is one column per key.
        column_names (list[str], optional): names. Default: ``None`` (dict keys, else column_0, column_1, ...).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as GeneratorDataset.
    """

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None):
        _no_pk_sampler(sampler)
        if isinstance(data, dict):
            names = [str(k) for k in data]
            cols = [V.to_array(v, f"data[{k!r}]") for k, v in data.items()]
        elif isinstance(data, tuple):
            cols = [V.to_array(v, f"data[{i}]") for i, v in enumerate(data)]
            names = None
        elif isinstance(data, (list, np.ndarray)):
            cols = [V.to_array(data, "data")]
            names = None
        else:
            raise TypeError(f"Unsupported data type: {type(data).__name__}, only support some common python data "
                            f"type, like list, tuple, dict, and numpy array.")
        for c in cols:
            if c.dtype.hasobject:
                raise TypeError("NumpySlicesDataset: data with ragged or object elements cannot be sliced; give "
                                "arrays of one shape and a numeric, bool or string dtype.")
            if c.ndim == 0:
                raise ValueError("NumpySlicesDataset: every column must have at least one dimension to slice.")
        if len({len(c) for c in cols}) > 1:
            raise ValueError(f"NumpySlicesDataset: all columns must have the same number of rows, but got "
                             f"{[len(c) for c in cols]}.")
        if column_names is not None:
            names = V.check_columns(column_names, "column_names")
            if len(names) != len(cols):
                raise ValueError(f"NumpySlicesDataset: {len(names)} column names for {len(cols)} columns.")
        elif names is None:
            names = [f"column_{i}" for i in range(len(cols))]
        _check_generator_sampling(num_samples, sampler, shuffle, num_shards, shard_id)     # a GeneratorDataset there
        super().__init__(num_samples, num_parallel_workers, None if sampler is not None else shuffle, sampler,
                         num_shards, shard_id)
        self.column_names_ = names
        self.columns = cols

    def _col_names(self):
        return self.column_names_

    def _num_rows(self):
        return len(self.columns[0])

    def _arrays(self):
        return self.columns


class PaddedDataset(MappableSource, UnionBaseDataset):
    """Rows given as a list of dicts {column: value} (used to pad shards, e.g. with MindDataset)."""

    def __init__(self, padded_samples):
        if not isinstance(padded_samples, list) or not padded_samples:
            raise TypeError("padded_samples should be a non-empty list of dict.")
        for s in padded_samples:
            if not isinstance(s, dict):
                raise TypeError("padded_samples should be a list of dict.")
        names = list(padded_samples[0])
        for s in padded_samples:
            if sorted(s) != sorted(names):
                raise ValueError("All dicts of padded_samples must have the same keys.")
        super().__init__(shuffle=False)
        self.column_names_ = names
        self.samples = [[to_array(s[k]) for k in names] for s in padded_samples]

    def _col_names(self):
        return self.column_names_

    def _num_rows(self):
        return len(self.samples)

    def _fetch(self, ids):
        for i in ids:
            yield list(self.samples[i])

    def _block_ok(self):
        return False
