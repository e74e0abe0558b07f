"""Batching operations: batch, padded_batch and bucket_batch_by_length."""
import itertools

import numpy as np

from mindseed.dataset import _validate as V
from mindseed.dataset._engine import BatchInfo, Dataset, _dict_item, pipeline_error, reraise_worker, to_array
from mindseed.dataset._ops import (MapDataset, sync_gates, _apply_batch_ops, _column_sources, _io_columns,
                                   _op_name, _place_columns)
from mindseed.dataset._workers import ThreadMap, WorkerError, format_exception, op_failure


# batches up to this size are built whole by one map worker (larger ones: rows in parallel, tail here)
_WORKER_BATCH_MAX = 256


class _Failed:
    """A pipeline error met in a worker, handed to the consumer to raise unchanged."""

    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


def _stack(values, col):
    if any(isinstance(v, dict) for v in values):
        return _stack_dicts(values, col)
    try:
        return np.stack(values)
    except ValueError:
        first = values[0].shape
        for v in values:
            if v.shape != first:
                raise pipeline_error(f"Cannot batch tensors with different shapes in column {col}. First element "
                                     f"had shape <{','.join(map(str, first))}> and this element had shape "
                                     f"<{','.join(map(str, v.shape))}>") from None
        raise


def _dict_rows(v):
    return isinstance(v, list) and bool(v) and all(type(x) is dict for x in v)


def _check_dict_outputs(res, outs):
    """MindSpore's rule for per_batch_map results holding Python dicts: a single dict goes with dicts or arrays
    only; next to rows of dicts, an array holds one item per row."""
    if any(type(v) is dict for v in res) and not all(type(v) is dict or isinstance(v, np.ndarray) for v in res):
        raise WorkerError(f"batch operation: mismatched types returned from per_batch_map: a dict can only be "
                          f"returned next to dicts or numpy arrays, but got {[type(v).__name__ for v in res]}.",
                          RuntimeError)
    rows = next((len(v) for v in res if _dict_rows(v)), None)
    if rows is None:
        return
    for name, v in zip(outs, res):
        if isinstance(v, np.ndarray) and (v.ndim == 0 or len(v) != rows):
            raise WorkerError(f"Invalid data, column: {name} expects: {rows} rows returned from 'per_batch_map', "
                              f"but got: {len(v) if v.ndim else 0}.", RuntimeError)


def _stack_dicts(values, col):
    """A batch of dict values: one dict of the batched values of each key (tuples stack into arrays)."""
    if not all(isinstance(v, dict) for v in values) or any(v.keys() != values[0].keys() for v in values):
        raise pipeline_error(f"Cannot batch the dicts of column {col}: every row must hold a dict of the same keys.")
    out = {}
    for k in values[0]:
        items = [v[k] for v in values]
        if isinstance(items[0], dict):
            out[k] = _stack_dicts(items, col)
            continue
        try:
            out[k] = np.stack([np.asarray(x) for x in items])
        except ValueError as e:
            raise pipeline_error(f"Batch: failed to create a NumPy array with primitive types from the values of key "
                                 f"{k!r} of column {col}: {e}") from None
    return out


def _pad_stack(values, shape, value, col):
    ndim = values[0].ndim
    for v in values:
        if v.ndim != ndim:
            raise pipeline_error(f"Cannot pad tensors of different ranks in column {col}.")
    longest = [max(v.shape[d] for v in values) for d in range(ndim)]
    if shape is None:
        target = longest
    else:
        if len(shape) != ndim:
            raise pipeline_error(f"pad_info shape {list(shape)} of column {col} has rank {len(shape)}, but the data "
                                 f"has rank {ndim}.")
        target = [longest[d] if s is None else s for d, s in enumerate(shape)]
    dtype = np.result_type(*[v.dtype for v in values])
    if dtype.kind in "US" and value is not None:
        # a string pad value longer than the strings: the batch's strings are as long as it
        dtype = np.result_type(dtype, np.asarray(value, dtype=dtype.kind).dtype)
    out = np.full([len(values)] + target, value if value is not None else (b"" if dtype.kind == "S" else
                  "" if dtype.kind == "U" else 0), dtype=dtype)
    for i, v in enumerate(values):
        # a pad shape smaller than the data in a dimension truncates it there (as MindSpore's padded batch)
        kept = tuple(slice(0, min(s, t)) for s, t in zip(v.shape, target))
        out[(i,) + kept] = v[kept]
    return out


class _Batch(Dataset):
    """Batching, with or without padding: what `BatchDataset` and `PaddedBatchDataset` share."""

    def __init__(self, child, batch_size, drop_remainder=False, num_parallel_workers=None, per_batch_map=None,
                 input_columns=None, output_columns=None, python_multiprocessing=False, max_rowsize=None,
                 pad_info=None, _padded=False, **kwargs):
        if kwargs:
            raise TypeError(f"batch() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if callable(batch_size):
            pass
        elif isinstance(batch_size, int) and not isinstance(batch_size, bool):
            V.check_range(batch_size, 1, V.INT32_MAX, "batch_size")
        else:
            raise TypeError("batch_size should either be an int or a callable.")
        V.check_bool(drop_remainder, "drop_remainder")
        V.check_workers(num_parallel_workers)
        super().__init__(child, num_parallel_workers)
        if per_batch_map is not None and not callable(per_batch_map):
            raise TypeError("per_batch_map should be a callable function.")
        if input_columns is not None and per_batch_map is None:    # output_columns alone is ignored, as MindSpore
            raise ValueError("input_columns can be specified only when per_batch_map is set.")
        self.batch_size = batch_size
        self.drop_remainder = drop_remainder
        self.per_batch_map = per_batch_map
        self.input_columns = None if input_columns is None else V.check_columns(input_columns, "input_columns")
        self.output_columns = None if output_columns is None else V.check_columns(output_columns, "output_columns")
        self.python_multiprocessing = python_multiprocessing
        if pad_info is not None and not isinstance(pad_info, dict):
            raise TypeError(f"Argument pad_info with value {pad_info} is not of type [<class 'dict'>].")
        self.pad_info = pad_info
        self.padded = _padded
        if isinstance(batch_size, int):
            for gate in sync_gates(child):  # (MindSpore: every gate below, counted in batches from here on)
                gate.update_batch_size(batch_size)

    def get_batch_size(self):
        return self.batch_size if isinstance(self.batch_size, int) else -1

    def _io(self):
        return _io_columns(self)

    def _col_names(self):
        cols, ins, outs = self._io()
        return _place_columns(cols, ins, outs) if self.per_batch_map is not None else cols

    def _size(self):
        if callable(self.batch_size):
            return self._count_rows()
        n = self.children[0].get_dataset_size()
        if n < 0:
            return n
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def _groups(self, rows, epoch):
        """Lists of rows, one per batch."""
        batch_num = 0
        it = iter(rows)
        while True:
            size = self.batch_size
            if callable(size):
                try:
                    size = int(size(BatchInfo(batch_num, epoch)))
                except Exception as e:  # noqa: BLE001
                    raise reraise_worker(e, "batch operation: [batch_size function]") from None
                if size <= 0:
                    raise pipeline_error(f"batch_size function returned {size}; it must be a positive integer.")
            group = list(itertools.islice(it, size))
            if not group or (len(group) < size and self.drop_remainder):
                return
            yield batch_num, group
            batch_num += 1

    def _assemble(self, group, ncols):
        if self.padded:
            names = self.children[0].get_col_names()
            info = self.pad_info or {}
            out = []
            for j in range(ncols):
                shape, value = info.get(names[j], (None, None))
                out.append(_pad_stack([r[j] for r in group], shape, value, j))
            return out
        return [_stack([r[j] for r in group], j) for j in range(ncols)]

    def _apply_map(self, batch_num, epoch, group, cols, ins, outs, src):
        idx = [cols.index(c) for c in ins]
        args = [[r[i] for r in group] for i in idx]
        try:
            res = self.per_batch_map(*args, BatchInfo(batch_num, epoch))
        except Exception as e:  # noqa: BLE001
            raise WorkerError(f"batch operation: [per_batch_map] failed. Error description:\n"
                              f"{format_exception(e)}", type(e)) from None
        res = res if isinstance(res, tuple) else (res,)
        if len(res) != len(outs):
            raise WorkerError(f"batch operation: per_batch_map returned {len(res)} column(s), but output_columns has "
                              f"{len(outs)}.", RuntimeError)
        _check_dict_outputs(res, outs)
        produced = []
        for k, v in enumerate(res):
            if _dict_rows(v):
                # rows of dicts returned by per_batch_map: one dict of per-row lists (MindSpore does not stack them)
                produced.append({key: [_dict_item(x[key]) for x in v] for key in v[0]})
            elif isinstance(v, list):
                produced.append(_stack([to_array(x) for x in v], k))
            else:
                produced.append(to_array(v))
        out = []
        for kind, k in src:
            out.append(produced[k] if kind == "o" else _stack([r[k] for r in group], k))
        return out

    def _worker_batches(self, ctx, child, tail, tail_col, ncols):
        """Batches built whole in the map's worker threads (decode -> ... -> stack -> batchable tail per worker):
        the same values as assembling here, with the per-batch work off the consumer thread."""

        def assemble(group):
            try:
                out = self._assemble(group, ncols)
            except RuntimeError as e:  # a pipeline error (shapes differ): raised as is by the consumer
                return _Failed(e)
            x = out[tail_col]
            for op in tail:
                try:
                    x = op._batch_apply(x)
                except Exception as e:  # noqa: BLE001
                    raise op_failure(_op_name(op), op, e) from None
            out[tail_col] = x
            return out

        for out in child._batches(ctx, self.batch_size, self.drop_remainder, assemble):
            if isinstance(out, _Failed):
                raise out.error
            yield out

    def _written_batches(self, ctx, child):
        """Batches whose mapped column the map's workers write in place (see MapDataset._written_batches)."""

        def other(group, j):
            try:
                return _stack([r[j] for r in group], j)
            except RuntimeError as e:  # a pipeline error (shapes differ): raised as is by the consumer
                return _Failed(e)

        for out in child._written_batches(ctx, self.batch_size, self.drop_remainder, other):
            for col in out:
                if isinstance(col, _Failed):
                    raise col.error
            yield out

    def _rows(self, ctx):
        child = self.children[0]
        epoch = ctx.path[0] if ctx.path else 0
        bs = self.batch_size
        plain = self.per_batch_map is None and not self.padded and isinstance(bs, int)
        if plain and child._block_ok():
            for block in child._blocks(ctx, bs):
                if self.drop_remainder and len(block[0]) < bs:
                    return
                yield block
            return
        tail_col, tail = None, []
        if plain and isinstance(child, MapDataset):
            # the elementwise tail (Rescale, Normalize, HWC2CHW, ...) runs once on the stacked batch: workers
            # hand over small uint8 rows and the batch is written in one pass
            head, tail = child._tail_split()
            if tail:
                cols, ins, outs = child._io()
                tail_col = child.get_col_names().index(outs[0])
        ncols = len(child.get_col_names())
        if (plain and isinstance(child, MapDataset) and child._batch_workers()
                and bs <= _WORKER_BATCH_MAX and child._writer() is not None):
            yield from self._written_batches(ctx, child)
            return
        if tail and child._threaded() and bs <= _WORKER_BATCH_MAX:
            yield from self._worker_batches(ctx, child, tail, tail_col, ncols)
            return
        rows = child._rows(ctx, defer_tail=True) if tail else child._rows(ctx)
        if self.per_batch_map is None:
            for _, group in self._groups(rows, epoch):
                out = self._assemble(group, ncols)
                if tail:
                    out[tail_col] = _apply_batch_ops(tail, out[tail_col])
                yield out
            return
        cols, ins, outs = self._io()
        src = [where for _, where in _column_sources(cols, ins, outs)]
        workers = self._workers()
        try:
            if workers <= 1 or self.python_multiprocessing:
                # per_batch_map results can be lists of arrays of any kind: run it here, in order
                for num, group in self._groups(rows, epoch):
                    yield self._apply_map(num, epoch, group, cols, ins, outs, src)
                return
            pool = ThreadMap(lambda g: self._apply_map(g[0], epoch, g[1], cols, ins, outs, src), workers)
            yield from pool.imap(self._groups(rows, epoch))
        except WorkerError as e:
            raise reraise_worker(e) from None



class BatchDataset(_Batch):
    """The result of `Dataset.batch` (no `pad_info`: MindSpore 2.x pads in `padded_batch`)."""

    def __init__(self, input_dataset, batch_size, drop_remainder=False, num_parallel_workers=None, per_batch_map=None,
                 input_columns=None, output_columns=None, python_multiprocessing=False, max_rowsize=None):
        super().__init__(input_dataset, batch_size, drop_remainder, num_parallel_workers, per_batch_map,
                         input_columns, output_columns, python_multiprocessing, max_rowsize)


class PaddedBatchDataset(_Batch):
    """The result of `Dataset.padded_batch` (a class of its own in MindSpore, not a `BatchDataset`)."""

    def __init__(self, child, batch_size, drop_remainder=False, num_parallel_workers=None, pad_info=None):
        super().__init__(child, batch_size, drop_remainder, num_parallel_workers, pad_info=pad_info,
                         _padded=pad_info is not None)

class BucketBatchByLengthDataset(Dataset):
    """The result of `Dataset.bucket_batch_by_length`."""

    def __init__(self, child, column_names, bucket_boundaries, bucket_batch_sizes, element_length_function=None,
                 pad_info=None, pad_to_bucket_boundary=False, drop_remainder=False):
        super().__init__(child)
        V.type_check_list([column_names, bucket_boundaries, bucket_batch_sizes], (list,),
                          ["column_names", "bucket_boundaries", "bucket_batch_sizes"])
        V.type_check_list([pad_to_bucket_boundary, drop_remainder], (bool,), ["pad_to_bucket_boundary",
                                                                              "drop_remainder"])
        self.column_names = V.check_columns(column_names, "column_names")
        if element_length_function is None and len(column_names) != 1:
            raise ValueError("If element_length_function is not specified, exactly one column name should be passed.")
        if element_length_function is not None and not callable(element_length_function):
            raise TypeError("element_length_function object is not callable.")
        if not bucket_boundaries:
            raise ValueError("bucket_boundaries cannot be empty.")
        if not all(isinstance(b, int) for b in bucket_boundaries):
            raise TypeError("bucket_boundaries should be a list of int.")
        if any(b <= 0 for b in bucket_boundaries):
            raise ValueError("bucket_boundaries must only contain positive numbers.")
        if any(a >= b for a, b in zip(bucket_boundaries, bucket_boundaries[1:])):
            raise ValueError("bucket_boundaries should be strictly increasing.")
        if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
            raise ValueError("bucket_batch_sizes must contain one element more than bucket_boundaries.")
        if not all(isinstance(b, int) for b in bucket_batch_sizes):
            raise TypeError("bucket_batch_sizes should be a list of int.")
        if any(b <= 0 for b in bucket_batch_sizes):
            raise ValueError("bucket_batch_sizes should be a list of positive numbers.")
        if pad_info is not None:
            V.type_check(pad_info, (dict,), "pad_info")
        self.boundaries = bucket_boundaries
        self.batch_sizes = bucket_batch_sizes
        self.length_fn = element_length_function
        self.pad_info = pad_info
        self.pad_to_boundary = pad_to_bucket_boundary
        self.drop_remainder = drop_remainder

    def _size(self):
        return self._count_rows()

    def _emit(self, group, bucket, names):
        """One batch of `group`. As in MindSpore, no pad_info pads every column to the longest in the batch
        with 0; a pad_info pads only the columns it names, and pad_to_bucket_boundary sets their None
        dimensions to the bucket's boundary - 1 (an error in the last bucket, which has no boundary)."""
        out = []
        for j, name in enumerate(names):
            values = [r[j] for r in group]
            if not self.pad_info:  # (None or {}: every column to the longest)
                out.append(_pad_stack(values, None, None, j))
                continue
            if name not in self.pad_info:
                out.append(_stack(values, j))
                continue
            shape, value = self.pad_info[name]
            if self.pad_to_boundary and shape is not None and None in shape:
                if bucket >= len(self.boundaries):
                    raise pipeline_error("Invalid data, requested to pad to bucket boundary, element falls in "
                                         "last bucket.")
                shape = [self.boundaries[bucket] - 1 if s is None else s for s in shape]
            out.append(_pad_stack(values, shape, value, j))
        return out

    def _rows(self, ctx):
        names = self.children[0].get_col_names()
        for c in self.column_names:
            if c not in names:
                raise pipeline_error(f"Invalid parameter, input column name: {c} doesn't exist in the dataset "
                                     f"columns.")
        idx = [names.index(c) for c in self.column_names]
        buckets = [[] for _ in self.batch_sizes]
        for row in self.children[0]._rows(ctx):
            if self.length_fn is not None:
                try:
                    length = int(self.length_fn(*[row[i] for i in idx]))
                except Exception as e:  # noqa: BLE001
                    raise reraise_worker(e, "bucket_batch_by_length: [element_length_function]") from None
            else:
                length = int(row[idx[0]].shape[0]) if row[idx[0]].ndim else 1
            b = int(np.searchsorted(self.boundaries, length, side="right"))
            buckets[b].append(row)
            if len(buckets[b]) == self.batch_sizes[b]:
                yield self._emit(buckets[b], b, names)
                buckets[b] = []
        if not self.drop_remainder:
            for b, group in enumerate(buckets):
                if group:
                    yield self._emit(group, b, names)


