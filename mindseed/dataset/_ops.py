"""Pipeline operations: map, batch (+ padded, bucketed), shuffle, repeat, take, skip, zip, concat, ..."""
import collections
import copy
import itertools
import os
import threading
import types

import numpy as np

from mindseed.dataset import _std_random as R
from mindseed.dataset import _validate as V
from mindseed.dataset import config as _cfg
from mindseed.dataset._engine import Dataset, pipeline_error, reraise_worker, to_array
from mindseed.dataset._random import RowStreams
from mindseed.dataset._workers import (BatchProcesses, ProcessMap, ThreadMap, WorkerError, format_exception,
                                       op_failure, shm_room)

_CHUNK = 16


def _io_columns(node, default_inputs=None):
    """(columns of the child, input columns, output columns) of a map or batch node; without input_columns the
    first `default_inputs` columns (all when None) are its inputs."""
    cols = node.children[0].get_col_names()
    ins = node.input_columns or cols[:default_inputs]
    for c in ins:
        if c not in cols:
            raise RuntimeError(f"Invalid parameter, column name: '{c}' of input_columns does not exist in the "
                               f"dataset columns {cols}.")
    return cols, ins, node.output_columns or ins


def _column_sources(cols, inputs, outputs):
    """MindSpore's columns after an op maps `inputs` to `outputs`: [(name, ("o", k) output k | ("c", j) child
    column j)]. As MindSpore's column map: with as many outputs as inputs, output k takes input k's slot, else
    the outputs come first and the untouched columns after them; an output named as an untouched column hides it
    in the first case and is hidden by it in the second (the hidden slot is dropped)."""
    if len(inputs) == len(outputs):
        out_of = dict(zip(inputs, range(len(outputs))))
        slots = [("o", out_of[c]) if c in out_of else ("c", j) for j, c in enumerate(cols)]
        names = {c: j for j, c in enumerate(cols) if c not in out_of}
        names.update({o: cols.index(c) for c, o in zip(inputs, outputs)})
    else:
        slots = [("o", k) for k in range(len(outputs))]
        names = {o: k for k, o in enumerate(outputs)}
        for j, c in enumerate(cols):
            if c not in inputs:
                names[c] = len(slots)
                slots.append(("c", j))
    return [(name, slots[i]) for name, i in sorted(names.items(), key=lambda kv: kv[1])]


def _place_columns(cols, inputs, outputs):
    """MindSpore's column names after an op maps `inputs` to `outputs` (see `_column_sources`)."""
    return [name for name, _ in _column_sources(cols, inputs, outputs)]


def _apply_batch_ops(ops, x):
    """`x` (a whole batch of a column) through each op's batch form; an error names the op that raised it."""
    for op in ops:
        try:
            x = op._batch_apply(x)
        except Exception as e:  # noqa: BLE001
            raise reraise_worker(op_failure(_op_name(op), op, e)) from None
    return x


def _op_name(op):
    if hasattr(op, "_op_name"):
        return op._op_name
    if isinstance(op, type(_place_columns)) or not hasattr(op, "__class__"):
        return "PyFunc"
    name = type(op).__name__
    return "PyFunc" if name in ("function", "builtin_function_or_method", "method", "partial") else name


def _debug_name(op):
    """An operation's name in the debug hooks' messages: a Python function's own name, a transform's class name."""
    if isinstance(op, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return op.__name__
    return type(op).__name__


class _OpChain:
    """The map's operations as one function of the input values; errors keep the op's name and traceback."""

    def __init__(self, ops, n_out):
        self.ops = ops
        self.names = [_op_name(op) for op in ops]
        self.n_out = n_out

    def __call__(self, vals):
        for op, name in zip(self.ops, self.names):
            try:
                res = op(*vals)
            except WorkerError:
                raise
            except Exception as e:  # noqa: BLE001
                raise op_failure(name, op, e) from None
            vals = res if isinstance(res, tuple) else (res,)
        try:
            out = [to_array(v) for v in vals]
        except Exception as e:  # noqa: BLE001
            raise WorkerError(f"map operation: [{self.names[-1]}] returned an invalid value.\n{format_exception(e)}",
                              type(e)) from None
        if len(out) != self.n_out:
            raise WorkerError(f"map operation: [{self.names[-1]}] returned {len(out)} column(s), but "
                              f"output_columns has {self.n_out}.", RuntimeError)
        return out


def _chunks(rows, size):
    it = iter(rows)
    while True:
        chunk = list(itertools.islice(it, size))
        if not chunk:
            return
        yield chunk


class MapDataset(Dataset):
    """The result of `Dataset.map`."""

    def __init__(self, child, operations, input_columns=None, output_columns=None, num_parallel_workers=None,
                 python_multiprocessing=False, max_rowsize=None, cache=None, callbacks=None, offload=None,
                 **kwargs):
        if "column_order" in kwargs:
            raise TypeError("map() got an unexpected keyword argument 'column_order' (removed in MindSpore 2.x; "
                            "use project()).")
        if kwargs:
            raise TypeError(f"map() got an unexpected keyword argument '{next(iter(kwargs))}'")
        V.check_workers(num_parallel_workers)
        super().__init__(child, num_parallel_workers)
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops:
            raise ValueError("Input operations should not be empty.")
        for op in ops:
            if not callable(op):
                raise TypeError(f"Argument operations with value {op!r} is not callable; operations must be "
                                f"transforms or Python callables.")
        from mindseed.dataset.transforms._base import flatten_compose
        from mindseed.dataset.vision._fused import fuse_ops
        self._given = flatten_compose(ops)     # as given (debug mode runs them unfused, with its hooks between)
        self.operations = fuse_ops(self._given)
        self.input_columns = None if input_columns is None else V.check_columns(input_columns, "input_columns")
        self.output_columns = None if output_columns is None else V.check_columns(output_columns, "output_columns")
        V.check_bool(python_multiprocessing, "python_multiprocessing")
        if max_rowsize is not None and not isinstance(max_rowsize, (int, list)):
            raise TypeError(f"Argument max_rowsize with value {max_rowsize} is not of type [int, list].")
        self.python_multiprocessing = python_multiprocessing
        self.max_rowsize = max_rowsize
        from mindseed.dataset._callbacks import check_callbacks
        self.callbacks = check_callbacks(callbacks)
        from mindseed.dataset._cache import attach_cache
        attach_cache(self, cache)

    def _with_callbacks(self, rows, ctx):
        """`rows` with this map's step callbacks (when an iterator runs its callbacks)."""
        run = ctx.cbs.get(id(self)) if ctx.cbs else None
        return rows if run is None else run.rows(rows)

    def _io(self):
        return _io_columns(self, 1)

    def _col_names(self):
        cols, ins, outs = self._io()
        return _place_columns(cols, ins, outs)

    def _debug_ops(self):
        """In the pipeline's debug mode: the transforms as given, with copies of the debug hooks before the first and
        after each (each told which transform it follows). A hook placed by hand runs as any Python callable (it
        prints no header: it knows no predecessor), in debug mode or not."""
        hooks = _cfg._get_debug_hook_list() or []

        def made(name, first=False):
            out = []
            for hook in hooks:
                hook = copy.deepcopy(hook)
                hook.set_previous_op_name(name)
                hook.set_is_first(first)
                out.append(hook)
            return out

        ops = made(_debug_name(self._given[0]), first=True)
        for op in self._given:
            ops.append(op)
            ops.extend(made(_debug_name(op)))
        return ops

    def _tail_split(self):
        """(per-row ops, trailing ops that also run on a stacked batch) when the map is 1 column -> 1 column."""
        if _cfg.get_debug_mode():
            return self._debug_ops(), []
        cols, ins, outs = self._io()
        if len(ins) != 1 or len(outs) != 1:
            return self.operations, []
        k = len(self.operations)
        while k > 0 and getattr(self.operations[k - 1], "_batch_apply", None) is not None:
            k -= 1
        return self.operations[:k], self.operations[k:]

    def _block_ok(self):
        if _cfg.get_debug_mode():
            return False
        head, tail = self._tail_split()
        return not head and not self.callbacks and self.children[0]._block_ok()

    def _blocks(self, ctx, n):
        cols, ins, outs = self._io()
        i = cols.index(ins[0])
        ops = self.operations
        for block in self.children[0]._blocks(ctx, n):
            block = list(block)
            block[i] = _apply_batch_ops(ops, block[i])
            yield block

    def _rows(self, ctx, defer_tail=False):
        rows = self._map_rows(ctx, defer_tail)
        return self._with_callbacks(rows, ctx) if self.callbacks else rows

    def _row_fn(self, ops, ctx):
        """(f(row, index) -> mapped row, the op chain or None, input column indices, output column sources).
        Row `index` of the epoch draws its random numbers from its own stream (see `_random`)."""
        cols, ins, outs = self._io()
        idx = [cols.index(c) for c in ins]
        # where each output column comes from: ('o', k) an op output, ('c', j) an untouched input column
        src = [where for _, where in _column_sources(cols, ins, outs)]
        # an output named as an untouched column hides a slot: the pull-based debug mode cannot place its columns
        hidden = _cfg.get_debug_mode() and len(src) < (
            len(cols) if len(ins) == len(outs) else len(outs) + len([c for c in cols if c not in ins]))
        chain = _OpChain(ops, len(outs)) if ops else None
        streams = self._streams(ctx)

        def one(row, index):
            if chain is None:
                res = [row[i] for i in idx]
            else:
                streams.enter(index)
                try:
                    res = chain([row[i] for i in idx])
                finally:
                    streams.leave()
            if hidden:
                raise pipeline_error("Invalid column id encountered. Note: It is unsupported and ambiguous to reuse "
                                     "the same column name for an output_column name if it is an input_column name "
                                     "that will already appear as one of the output columns. Use unique columns "
                                     "names.")
            return [res[k] if kind == "o" else row[k] for kind, k in src]

        return one, chain, idx, src

    def _streams(self, ctx):
        passes = ctx.pass_index(self)
        offset, eoes = 0, ()
        if passes:  # each earlier pass took the child's rows and one end-of-epoch slot
            try:
                n = self.children[0].get_dataset_size()
            except (RuntimeError, TypeError, ValueError):   # a size it cannot tell: the passes restart at slot 0
                n = None
            if n is not None and n >= 0:
                offset, eoes = passes * (n + 1), tuple(p * (n + 1) + n for p in range(passes))
        return RowStreams(ctx.seed, ctx.order.get(id(self), 0), ctx.path, self._workers(), offset, eoes)

    def _threaded(self):
        """Whether the map runs in its own worker threads (several workers, no processes, not debug mode)."""
        return (self._workers() > 1 and not self.python_multiprocessing and not self.callbacks
                and not _cfg.get_debug_mode())

    def _batch_workers(self):
        """Whether the map's workers (threads or processes) can build whole batches for the batch above it."""
        return self._workers() > 1 and not self.callbacks and not _cfg.get_debug_mode()

    def _writer(self):
        """The map's single op when it can write each row straight into its slot of a batch (`_into`, with a
        fixed out_shape / out_dtype) and the map is one column -> one column; else None."""
        cols, ins, outs = self._io()
        if len(ins) != 1 or len(outs) != 1 or len(self.operations) != 1 or _cfg.get_debug_mode():
            return None
        op = self.operations[0]
        return op if getattr(op, "_into", None) is not None else None

    def _batch_rows(self, ctx, size, drop_remainder):
        """(index of the first row, list of `size` child rows) per batch (the last may be short)."""
        start = 0
        for group in _chunks(self.children[0]._rows(ctx), size):
            if len(group) < size and drop_remainder:
                return
            yield start, group
            start += len(group)

    def _batches(self, ctx, size, drop_remainder, assemble):
        """Whole batches made in the map's worker threads: a worker maps `size` rows, `assemble`s them (stack +
        the batchable tail ops) and hands over the finished batch, so the consumer thread only dispatches. Only
        for a threaded map (see `_threaded`); `assemble(rows)` raises WorkerError for user-visible failures."""
        one = self._row_fn(self._tail_split()[0], ctx)[0]

        def job(item):
            start, group = item
            return assemble([one(r, start + k) for k, r in enumerate(group)])

        pool = ThreadMap(job, self._workers())
        try:
            yield from pool.imap(self._batch_rows(ctx, size, drop_remainder))
        except WorkerError as e:
            raise reraise_worker(e) from None

    def _written_batches(self, ctx, size, drop_remainder, other):
        """Like `_batches` for a map with a `_writer` op: each worker allocates the batch array of the mapped
        column and has the op write every row into its slot (no per-row arrays, no stacking); `other(group, j)`
        stacks untouched column j. Rows keep their own random streams, so any worker count gives the same."""
        op = self._writer()
        cols, ins, outs = self._io()
        i = cols.index(ins[0])
        src = [where for _, where in _column_sources(cols, ins, outs)]
        streams = self._streams(ctx)
        name = _op_name(op)

        def fill(batch, start, group, col):  # row start + k of the epoch -> batch[k], with its own random stream
            for k, row in enumerate(group):
                streams.enter(start + k)
                try:
                    op._into(row[col], batch[k])
                except Exception as e:  # noqa: BLE001
                    raise op_failure(name, op, e) from None
                finally:
                    streams.leave()

        # The writer is one of the built-in image ops fused (exact types only, no user code): what MindSpore runs
        # in C++ worker threads. Here it is Python + numpy + Pillow, so worker threads would contend for the GIL;
        # forked workers do not, and the rows, random draws and errors are the same either way (so
        # python_multiprocessing, which is about user Python code, makes no difference here). Threads are kept
        # when shared memory is off (`ds.config.set_enable_shared_mem(False)`) or too small for a few batches.
        batch_bytes = size * int(np.prod(op.out_shape)) * op.out_dtype.itemsize
        if hasattr(os, "fork") and _cfg.get_enable_shared_mem() and shm_room(4 * (self._workers() + 2) * batch_bytes):
            yield from self._process_batches(ctx, size, drop_remainder, other, op, fill, i, src)
            return

        def job(item):
            start, group = item
            batch = np.empty((len(group),) + op.out_shape, op.out_dtype)
            fill(batch, start, group, i)
            return [batch if kind == "o" else other(group, j) for kind, j in src]

        pool = ThreadMap(job, self._workers())
        try:
            yield from pool.imap(self._batch_rows(ctx, size, drop_remainder))
        except WorkerError as e:
            raise reraise_worker(e) from None

    def _process_batches(self, ctx, size, drop_remainder, other, op, fill, i, src):
        """`_written_batches` in worker processes: they `fill` each batch straight into shared memory
        (BatchProcesses); only the op's input column travels to them."""

        def write(buf, start, rows):
            fill(np.ndarray((len(rows),) + op.out_shape, op.out_dtype, buffer=buf), start, rows, 0)

        def groups():
            for start, group in self._batch_rows(ctx, size, drop_remainder):
                yield start, [[r[i]] for r in group], group

        pool = BatchProcesses(write, self._workers(), op.out_shape, op.out_dtype)
        try:
            for batch, group in pool.imap(groups()):
                yield [batch if kind == "o" else other(group, j) for kind, j in src]
        except WorkerError as e:
            raise reraise_worker(e) from None

    def _map_rows(self, ctx, defer_tail=False):
        ops = self._tail_split()[0] if defer_tail or _cfg.get_debug_mode() else self.operations
        one, chain, idx, src = self._row_fn(ops, ctx)
        workers = self._workers()
        child_rows = self.children[0]._rows(ctx)
        if chain is None or workers <= 1 or _cfg.get_debug_mode():
            for k, row in enumerate(child_rows):
                try:
                    yield one(row, k)
                except WorkerError as e:
                    raise reraise_worker(e) from None
            return
        if self.python_multiprocessing:
            streams = self._streams(ctx)

            def job(chunk):  # chunk: [[first row index]] + the rows' op inputs
                start = int(chunk[0][0])
                out = []
                for k, r in enumerate(chunk[1:]):
                    streams.enter(start + k)
                    try:
                        out.append(chain(r))
                    finally:
                        streams.leave()
                return out

            pool = ProcessMap(job, workers, shared_memory=_cfg.get_enable_shared_mem())
            # only the op inputs travel to the processes; untouched columns stay here
            buffered = collections.deque()

            def feed():
                start = 0
                for chunk in _chunks(child_rows, _CHUNK):
                    buffered.append(chunk)
                    yield [[np.array(start, np.int64)]] + [[r[i] for i in idx] for r in chunk]
                    start += len(chunk)

            try:
                for results in pool.imap(feed()):
                    rows = buffered.popleft()
                    for row, res in zip(rows, results):
                        yield [res[k] if kind == "o" else row[k] for kind, k in src]
            except WorkerError as e:
                raise reraise_worker(e) from None
            return

        def job(item):
            start, chunk = item
            return [one(r, start + k) for k, r in enumerate(chunk)]

        def indexed(size):
            start = 0
            for chunk in _chunks(child_rows, size):
                yield start, chunk
                start += len(chunk)

        pool = ThreadMap(job, workers)
        try:
            for rows in pool.imap(indexed(max(1, min(_CHUNK, _cfg.get_prefetch_size() // workers)))):
                yield from rows
        except WorkerError as e:
            raise reraise_worker(e) from None


# ---------------------------------------------------------------------------- reordering / slicing
class ShuffleDataset(Dataset):
    """The result of `Dataset.shuffle`: a shuffle buffer of `buffer_size` rows."""

    def __init__(self, child, buffer_size, _fixed_seed=None):
        V.type_check(buffer_size, (int,), "buffer_size")
        V.check_range(buffer_size, 2, V.INT32_MAX, "buffer_size")
        super().__init__(child)
        if sync_gates(child):
            raise RuntimeError("No shuffle after sync operators.")
        self.buffer_size = buffer_size
        self.reshuffle_each_epoch = True
        self._fixed_seed = _fixed_seed

    def is_shuffled(self):
        return True

    def _rows(self, ctx):
        # MindSpore's ShuffleOp: a std::mt19937_64 seeded with the pipeline seed when the pipeline is built; it
        # goes on across epochs (reseeded at each one when not reshuffling)
        if self._fixed_seed is not None:
            draw = R.Mt64(self._fixed_seed)
        elif self.reshuffle_each_epoch:
            draw = ctx.state.get(("shuffle", id(self)))
            if draw is None:
                draw = ctx.state[("shuffle", id(self))] = R.Mt64(ctx.seed)
        else:
            draw = R.Mt64(ctx.seed)
        rows = iter(self.children[0]._rows(ctx))
        buf = list(itertools.islice(rows, self.buffer_size))
        refill = len(buf) == self.buffer_size
        last = len(buf) - 1
        while last >= 0:
            # a random slot goes out; the last slot's row takes its place and the next input row the last slot
            slot = draw() % (last + 1)
            out = buf[slot]
            buf[slot] = buf[last]
            if refill:
                buf[last] = next(rows, None)
                refill = buf[last] is not None
            if not refill:
                last -= 1
            yield out


class RepeatDataset(Dataset):
    """The result of `Dataset.repeat`."""

    def __init__(self, child, count=None):
        if count is not None:
            V.type_check(count, (int,), "repeat")
            if count == 0 or count < -1 or count > V.INT32_MAX:
                raise ValueError("count should be either -1 or positive integer, range[1, INT32_MAX].")
        super().__init__(child)
        self.count = -1 if count is None else count

    def get_repeat_count(self):
        return self.count

    def _size(self):
        n = self.children[0].get_dataset_size()
        return -1 if self.count == -1 or n < 0 else n * self.count

    def _rows(self, ctx):
        r = 0
        while self.count == -1 or r < self.count:
            yield from self.children[0]._rows(ctx.sub(r))
            r += 1


class TakeDataset(Dataset):
    """The result of `Dataset.take`."""

    def __init__(self, child, count=-1):
        V.type_check(count, (int,), "count")
        if count != -1 and (count <= 0 or count > V.INT32_MAX):
            raise ValueError(f"count should be either -1 or within the required interval of (0, {V.INT32_MAX}], "
                             f"got {count}.")
        super().__init__(child)
        self.count = count

    def _size(self):
        n = self.children[0].get_dataset_size()
        return n if self.count == -1 else (self.count if n < 0 else min(n, self.count))

    def _rows(self, ctx):
        rows = self.children[0]._rows(ctx)
        if self.count == -1:
            yield from rows
            return
        for i, row in enumerate(rows):
            yield row
            if i + 1 >= self.count:
                rows.close()
                return


class SkipDataset(Dataset):
    """The result of `Dataset.skip`."""

    def __init__(self, child, count):
        V.type_check(count, (int,), "count")
        V.check_range(count, 0, V.INT32_MAX, "count")
        super().__init__(child)
        self.count = count

    def _size(self):
        n = self.children[0].get_dataset_size()
        return n if n < 0 else max(0, n - self.count)

    def _rows(self, ctx):
        rows = self.children[0]._rows(ctx)
        try:
            yield from itertools.islice(rows, self.count, None)
        finally:
            rows.close()


class _Combined(Dataset):
    """A dataset of several input datasets; `_VERB` names the operation in errors."""

    _VERB = ""

    def __init__(self, datasets):
        for d in datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"Invalid dataset {d!r}: {self._VERB} expects Dataset objects.")
        super().__init__(list(datasets))


class ZipDataset(_Combined):
    """The result of `Dataset.zip` / `ds.zip`: rows side by side, as many as the shortest input."""

    _VERB = "zip"

    def _col_names(self):
        names = []
        for c in self.children:
            for n in c.get_col_names():
                if n in names:
                    raise RuntimeError(f"Invalid parameter, column name: {n} already exists. Columns of zipped "
                                       f"datasets must have different names (use rename).")
                names.append(n)
        return names

    def _size(self):
        sizes = [c.get_dataset_size() for c in self.children]
        known = [s for s in sizes if s >= 0]
        return min(known) if known else -1

    def _rows(self, ctx):
        its = [c._rows(ctx) for c in self.children]
        try:
            for parts in zip(*its):
                yield [a for p in parts for a in p]
        finally:
            for it in its:
                it.close()


class ConcatDataset(_Combined):
    """The result of `Dataset.concat` / `+`: the inputs' rows one after another."""

    _VERB = "concat"

    def _col_names(self):
        names = self.children[0].get_col_names()
        for c in self.children[1:]:
            if c.get_col_names() != names:
                raise RuntimeError(f"Invalid parameter, the column names of concatenated datasets must be the same, "
                                   f"but got {names} and {c.get_col_names()}.")
        return names

    def _size(self):
        sizes = [c.get_dataset_size() for c in self.children]
        return -1 if any(s < 0 for s in sizes) else sum(sizes)

    def _rows(self, ctx):
        self.get_col_names()
        for c in self.children:
            yield from c._rows(ctx)


def _existing_columns(child, names):
    """The columns of `child`, once every one of `names` is checked to be among them."""
    cols = child.get_col_names()
    for c in names:
        if c not in cols:
            raise RuntimeError(f"Invalid parameter, column name: '{c}' does not exist in the dataset columns {cols}.")
    return cols


class ProjectDataset(Dataset):
    """The result of `Dataset.project`."""

    def __init__(self, child, columns):
        super().__init__(child)
        self.columns = V.check_columns(columns, "columns")

    def _col_names(self):
        _existing_columns(self.children[0], self.columns)
        return list(self.columns)

    def _rows(self, ctx):
        cols = self.children[0].get_col_names()
        self.get_col_names()
        idx = [cols.index(c) for c in self.columns]
        for row in self.children[0]._rows(ctx):
            yield [row[i] for i in idx]

    def _block_ok(self):
        return self.children[0]._block_ok()

    def _blocks(self, ctx, n):
        cols = self.children[0].get_col_names()
        idx = [cols.index(c) for c in self.get_col_names()]
        for block in self.children[0]._blocks(ctx, n):
            yield [block[i] for i in idx]


class RenameDataset(Dataset):
    """The result of `Dataset.rename`."""

    def __init__(self, child, input_columns, output_columns):
        super().__init__(child)
        self.input_columns = V.check_columns(input_columns, "input_columns")
        self.output_columns = V.check_columns(output_columns, "output_columns")
        if len(self.input_columns) != len(self.output_columns):
            raise ValueError("Number of column in input_columns and output_columns is not equal.")

    def _col_names(self):
        cols = _existing_columns(self.children[0], self.input_columns)
        m = dict(zip(self.input_columns, self.output_columns))
        return [m.get(c, c) for c in cols]

    def _block_ok(self):
        return self.children[0]._block_ok()

    def _blocks(self, ctx, n):
        return self.children[0]._blocks(ctx, n)


class FilterDataset(Dataset):
    """The result of `Dataset.filter`."""

    def __init__(self, child, predicate, input_columns=None, num_parallel_workers=None):
        if not callable(predicate):
            raise TypeError("Predicate should be a Python function or a callable Python object.")
        V.check_workers(num_parallel_workers)
        super().__init__(child, num_parallel_workers)
        self.predicate = predicate
        self.input_columns = None if input_columns is None else V.check_columns(input_columns, "input_columns")

    def _size(self):
        return self._count_rows()

    def _rows(self, ctx):
        cols = self.children[0].get_col_names()
        idx = [cols.index(c) for c in (self.input_columns or cols)]
        for row in self.children[0]._rows(ctx):
            try:
                keep = self.predicate(*[row[i] for i in idx])
            except Exception as e:  # noqa: BLE001
                raise reraise_worker(e, "filter operation: [predicate]") from None
            if bool(np.asarray(keep).reshape(-1)[0] if np.ndim(keep) else keep):
                yield row


class FlatMapDataset(Dataset):
    """The result of `Dataset.flat_map`: each row becomes the rows of the dataset `func(row)` returns."""

    def __init__(self, child, func):
        if not callable(func):
            raise TypeError("func must be a function.")
        super().__init__(child)
        self.func = func

    def _col_names(self):
        row = self.children[0]._first_row()
        return self._expand(row).get_col_names()

    def _expand(self, row):
        try:
            out = self.func(*row)
        except Exception as e:  # noqa: BLE001
            raise reraise_worker(e, "flat_map operation: [func]") from None
        if not isinstance(out, Dataset):
            raise TypeError("flat_map: func must return a Dataset object.")
        return out

    def _size(self):
        return self._count_rows()

    def _rows(self, ctx):
        for k, row in enumerate(self.children[0]._rows(ctx)):
            yield from self._expand(row)._rows(ctx.sub(k))


# ---------------------------------------------------------------------------- sync_wait
class SyncWaitDataset(Dataset):
    """The result of `Dataset.sync_wait`: a gate letting `num_batch` batches' rows through, then waiting for
    `sync_update` (MindSpore's BlockReleasePair: after `callback_timeout` seconds it warns and opens for good)."""

    def __init__(self, child, condition_name, num_batch=1, callback=None):
        V.type_check(condition_name, (str,), "condition_name")
        V.type_check(num_batch, (int,), "num_batch")
        if os.environ.get("MS_INDEPENDENT_DATASET", "").strip() in ("True", "true"):
            raise RuntimeError("Dataset sync wait is not supported in Dataset Independent mode.")
        if num_batch <= 0:
            raise ValueError("num_batch need to be greater than 0.")
        if callback is not None and not callable(callback):
            raise TypeError("callback should be a callable function.")
        super().__init__(child)
        if any(g.condition_name == condition_name for g in sync_gates(child)):
            raise RuntimeError("Condition name is already in use.")
        self.condition_name = condition_name
        self.num_batch = num_batch
        self.callback = callback
        self.disabled = False
        self._cond = threading.Condition()
        self._default_rows = num_batch
        self._row_count = -num_batch

    def __deepcopy__(self, memo):
        new = super().__deepcopy__(memo)
        new._cond = threading.Condition()
        return new

    def update_batch_size(self, batch_size):
        """A batch above: every count is in rows of `batch_size`."""
        with self._cond:
            self._row_count *= batch_size
            self._default_rows *= batch_size

    def release(self, pass_rows=None, data=None):
        """Let `pass_rows` more rows through (the gate's own count when None) and call the callback with `data`."""
        with self._cond:
            self._row_count -= self._default_rows if pass_rows is None else pass_rows
            if self.callback is not None:
                self.callback(data)
            self._cond.notify_all()

    def disable(self):
        with self._cond:
            self.disabled = True
            self._cond.notify_all()

    def _rows(self, ctx):
        with self._cond:
            self._row_count = -self._default_rows
        for row in self.children[0]._rows(ctx):
            with self._cond:
                if not self._cond.wait_for(lambda: self._row_count < 0 or self.disabled,
                                           timeout=_cfg.get_callback_timeout()):
                    from mindseed import log
                    log.warning("Timeout happened in sync_wait, maybe dataset.sync_update(condition=...) is not "
                                   "added after dataset.create_dict_iterator(...), now disabling lock.")
                    self.disabled = True
                self._row_count += 1
            yield row


def sync_gates(root):
    """The sync_wait gates in the tree of `root` (itself included)."""
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if isinstance(node, SyncWaitDataset):
            out.append(node)
        stack.extend(node.children)
    return out


def sync_update(root, condition_name, num_batch=None, data=None):
    """`Dataset.sync_update`: release the gate `condition_name` of the tree of `root` by `num_batch` batches."""
    if (not isinstance(num_batch, int) and num_batch is not None) or (isinstance(num_batch, int) and num_batch <= 0):
        for g in sync_gates(root):
            g.disable()
        raise RuntimeError(f"Sync_update batch size can only be positive integer, got: {num_batch}.")
    if not isinstance(condition_name, str):
        raise TypeError(f"Argument condition_name with value {condition_name} is not of type str, but got "
                        f"{type(condition_name)}.")
    gates = [g for g in sync_gates(root) if g.condition_name == condition_name]
    if not gates:
        for g in sync_gates(root):
            g.disable()
        raise RuntimeError("Condition name not found.")
    if num_batch is not None:
        num_batch *= root.get_batch_size()
    gates[0].release(num_batch, data)


# ---------------------------------------------------------------------------- split
def _absolute_sizes(sizes, n):
    if not isinstance(sizes, list) or not sizes:
        raise TypeError("sizes should be a list of int or a list of float.")
    if all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
        if any(s <= 0 for s in sizes):
            raise ValueError("sizes should be positive integers.")
        if sum(sizes) != n:
            raise RuntimeError(f"Sum of split sizes {sum(sizes)} is not equal to dataset size {n}.")
        return list(sizes)
    if all(isinstance(s, float) for s in sizes):
        if any(s <= 0 or s > 1 for s in sizes):
            raise ValueError("Input sizes should be within the required interval of (0, 1].")
        if abs(sum(sizes) - 1) > 1e-6:
            raise ValueError(f"Sum of split sizes should be 1, but got {sum(sizes)}.")
        out = [int(round(s * n)) for s in sizes]
        if any(s == 0 for s in out):
            raise RuntimeError(f"Split sizes {sizes} of a dataset of {n} rows give a split of size 0.")
        diff = n - sum(out)
        if diff > 0:
            out[0] += diff
        elif diff < 0:
            for i, s in enumerate(out):
                if s + diff >= 1:
                    out[i] += diff
                    break
        return out
    raise TypeError("sizes should be a list of int or a list of float.")


def split_dataset(ds, sizes, randomize=True):
    V.check_bool(randomize, "randomize")
    if ds.is_sharded():
        raise RuntimeError("Dataset should not be sharded before split.")
    n = ds.get_dataset_size()
    absolute = _absolute_sizes(sizes, n)
    seed = _cfg._pipeline_seed()
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (1 << 32))
    out, start = [], 0
    for size in absolute:
        part = copy.deepcopy(ds)
        if getattr(part, "_mappable", False):
            part._split = (seed if randomize else None, start, size)
            part._size_cache = None
        else:
            if randomize:
                part = ShuffleDataset(part, 10000, _fixed_seed=seed)
            if start:
                part = SkipDataset(part, start)
            part = TakeDataset(part, size)
        out.append(part)
        start += size
    return tuple(out)
