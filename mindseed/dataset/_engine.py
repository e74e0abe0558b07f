"""The pipeline engine: the Dataset base class, epoch contexts, row conversion and the iterators.

A pipeline is a tree of Dataset nodes. Iterating runs it pull-style in the caller's thread: each node's
`_rows(ctx)` is a generator of rows (lists of numpy arrays, one per column) drawn from its children's.
Parallel work (map, batch, random-access sources) happens in worker pools owned by the generator that
uses them, so closing the generator (end of epoch, `break`, an exception, garbage collection) closes them.
"""
import functools
import copy
import os
import sys
import weakref

import numpy as np

from mindseed.common.tensor import Tensor
from mindseed.dataset import _validate as V
from mindseed.dataset import config as _cfg
from mindseed.dataset._workers import OpError, WorkerError, is_pipeline_array

__all__ = ["Dataset", "TupleIterator", "DictIterator", "BatchInfo"]


# ---------------------------------------------------------------------------- errors
_RULE = "-" * 66


def user_error(text, where=None):
    """MindSpore's RuntimeError for an exception raised by user Python code, with its original traceback."""
    head = "Exception thrown from user defined Python function in dataset. "
    body = (f"{where} failed. Error description:\n" if where else "") + text.rstrip()
    return RuntimeError(f"{head}\n\n{_RULE}\n- Python Call Stack: \n{_RULE}\n{body}\n\n{_RULE}\n"
                        f"- Dataset Pipeline Error Message: \n{_RULE}\n"
                        f"[ERROR] Execute user Python code failed, check 'Python Call Stack' above.\n")


# the first line of a pipeline error by MindSpore's status code (an unexpected error when not one of these)
_SUMMARIES = {"shape": "Shape is incorrect. "}


def pipeline_error(msg, where=None, status=None):
    """MindSpore's RuntimeError for an error detected by the pipeline itself; its framework call stack section
    names `where` (the source line that found the error: the caller's when None); `status` ("shape") picks the
    summary line of MindSpore's status code."""
    if where is None:
        frame = sys._getframe(1)
        where = f"{_source_path(frame.f_code.co_filename)}({frame.f_lineno})"
    summary = _SUMMARIES.get(status, "Exception thrown from dataset pipeline. Refer to 'Dataset Pipeline Error "
                                     "Message'. ")
    return RuntimeError(f"{summary}\n\n{_RULE}\n- Dataset Pipeline Error Message: \n{_RULE}\n[ERROR] {msg}\n\n{_RULE}\n"
                        f"- C++ Call Stack: (For framework developers) \n{_RULE}\n{where}.\n")


def _source_path(filename):
    """`filename` from the package directory on (mindseed/dataset/...), as MindSpore shows its sources."""
    parts = filename.replace(os.sep, "/").split("/")
    return "/".join(parts[parts.index("mindseed"):]) if "mindseed" in parts else filename


def reraise_worker(err, where=None):
    """Turn a WorkerError (or any exception from user code) into the pipeline's RuntimeError."""
    if isinstance(err, WorkerError):
        if isinstance(err.exc_type, type) and issubclass(err.exc_type, OpError):
            return pipeline_error(err.text, status=err.exc_type.status)
        return user_error(err.text, where)
    from mindseed.dataset._workers import format_exception
    return user_error(format_exception(err), where)


# ---------------------------------------------------------------------------- values
_CPP_INTS = {"l": np.longlong, "L": np.ulonglong}


def as_cpp_array(a):
    """`a` as MindSpore hands out arrays from its C++ tensors: 64-bit integers typed as C's (long) long long, so
    that numpy's repr names them (`array([1, 2], dtype=int64)`); a view, no copy. Other arrays as they are."""
    t = _CPP_INTS.get(a.dtype.char) if isinstance(a, np.ndarray) else None
    return a if t is None else a.view(t)


def to_array(v):
    """One column value of a row as a numpy array, as MindSpore converts Python data (a dict stays a dict of
    converted values: MindSpore carries Python dicts through the pipeline)."""
    if isinstance(v, np.ndarray):
        return v
    if type(v) is dict:
        return {k: _dict_item(x) for k, x in v.items()}
    if isinstance(v, Tensor):
        return v.asnumpy()
    if isinstance(v, (bool, np.bool_)):
        return np.array(v, dtype=np.bool_)
    if isinstance(v, int):
        return np.array(v, dtype=np.int64)
    if isinstance(v, float):
        return np.array(v, dtype=np.float64)
    if isinstance(v, (str, bytes, np.generic)):
        return np.array(v)
    if hasattr(v, "__array_interface__") or hasattr(v, "getbands"):  # PIL images
        return np.asarray(v)
    if isinstance(v, (list, tuple)):
        try:
            a = np.array([x.asnumpy() if isinstance(x, Tensor) else x for x in v])
        except ValueError as e:
            raise TypeError(f"Invalid data: a ragged list cannot be a column value ({e}).") from None
        if a.dtype.hasobject:
            raise TypeError(f"Invalid data type: the column value {v!r} cannot be converted to a numpy array.")
        return a
    if v is None:
        raise TypeError("Invalid data: None cannot be a column value; return a numpy array or a number.")
    a = np.asarray(v)
    if a.dtype.hasobject:
        raise TypeError(f"Invalid data type: a column value of type {type(v).__name__} is not supported; "
                        f"return numpy arrays, numbers, str or bytes.")
    return a


def _dict_item(v):
    """A value inside a dict column: dicts and tuples keep their structure, lists of dicts stay lists."""
    if type(v) is dict:
        return {k: _dict_item(x) for k, x in v.items()}
    if isinstance(v, tuple):
        return tuple(_dict_item(x) for x in v)
    if isinstance(v, list) and any(type(x) is dict for x in v):
        return [_dict_item(x) for x in v]
    return to_array(v)


def to_row(value, ncols=None, who="GeneratorDataset"):
    """A source's or operation's output as a row (list of arrays)."""
    if isinstance(value, tuple):
        row = [to_array(v) for v in value]
    elif isinstance(value, list) and ncols is not None and ncols > 1 and len(value) == ncols:
        row = [to_array(v) for v in value]
    else:
        row = [to_array(value)]
    if ncols is not None and len(row) != ncols:
        raise RuntimeError(f"{who}: the number of columns returned by the source ({len(row)}) does not match the "
                           f"number of column names ({ncols}).")
    return row


# ---------------------------------------------------------------------------- epochs
class Ctx:
    """One epoch (or one repeat within it): the seed stream of every node."""

    __slots__ = ("seed", "path", "order", "state", "cbs")

    def __init__(self, seed, path, order, state=None, cbs=None):
        self.seed = seed
        self.path = path
        self.order = order
        self.state = {} if state is None else state     # shared by the epochs of one iterator
        self.cbs = cbs  # {id(map node): CallbackRun} of an iterator's run (None: no callbacks are called)

    def rng(self, node):
        """The generator of `node` for this epoch: same seed, same epoch -> same draws."""
        return np.random.default_rng([self.seed, self.order.get(id(node), 0)] + list(self.path))

    def pass_index(self, node):
        """How many passes over `node` this iterator made before this one (epochs and repeats alike): MindSpore
        resets a sampler at the end of each pass, and its next order depends on how many resets came before."""
        seen = self.state.setdefault(("passes", id(node)), {})
        return seen.setdefault(self.path, len(seen))

    def sub(self, k):
        return Ctx(self.seed, self.path + (k,), self.order, self.state, self.cbs)


def _number_nodes(root):
    order, stack = {}, [root]
    while stack:
        node = stack.pop()
        if id(node) not in order:
            order[id(node)] = len(order) + 1
            stack.extend(reversed(node.children))
    return order


def _base_seed():
    s = _cfg._pipeline_seed()
    return s if s is not None else int.from_bytes(os.urandom(4), "little")


class BatchInfo:
    """What a callable batch_size or per_batch_map learns about the batch being built."""

    def __init__(self, batch_num=0, epoch_num=0):
        self._batch_num = batch_num
        self._epoch_num = epoch_num

    def get_batch_num(self):
        """Index of the batch within the epoch."""
        return self._batch_num

    def get_epoch_num(self):
        """Index of the epoch."""
        return self._epoch_num


# ---------------------------------------------------------------------------- iterators
def _above_sync_wait(root):
    """Whether the tree of `root` has a sync_wait gate."""
    from mindseed.dataset._ops import SyncWaitDataset
    stack = list(root.children)
    while stack:
        node = stack.pop()
        if isinstance(node, SyncWaitDataset):
            return True
        stack.extend(node.children)
    return False


def _callback_runs(root):
    """{id(node): CallbackRun} of the map nodes with callbacks in the tree of `root`."""
    from mindseed.dataset._callbacks import CallbackRun
    runs, stack, seen = {}, [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if getattr(node, "callbacks", None):
            runs[id(node)] = CallbackRun(node.callbacks)
        stack.extend(node.children)
    return runs


def check_tree(root):
    """MindSpore builds a pipeline only from a tree: a node below `root` that was given to two operations (two
    consumers, even one no longer referenced) is refused."""
    stack = list(root.children)
    while stack:
        node = stack.pop()
        if getattr(node, "_consumers", 0) > 1:
            raise ValueError("The data pipeline is not a tree (i.e., one node has 2 consumers)")
        stack.extend(node.children)


# weak references to the iterators alive, oldest first (MindSpore's `dataset.engine.iterators.ITERATORS_LIST`): an
# iterator leaves it when it is stopped or released
ITERATORS_LIST = []


class _IteratorBase:
    # NOTE: held by the class, so that an iterator deleted while the interpreter exits (module globals gone) still
    # finds it
    _alive = ITERATORS_LIST

    def __init__(self, dataset, num_epochs, output_numpy, do_copy):
        check_tree(dataset)
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, int):
            raise TypeError(f"Argument num_epochs with value {num_epochs} is not of type [<class 'int'>].")
        if num_epochs < -1 or num_epochs == 0:
            raise ValueError(f"Input num_epochs is not within the required interval of (-1, 0, INT32_MAX], "
                             f"but got {num_epochs}.")
        if not isinstance(output_numpy, bool):
            raise TypeError(f"Argument output_numpy with value {output_numpy} is not of type [<class 'bool'>].")
        self.dataset = dataset
        self.num_epochs = num_epochs
        self.output_numpy = output_numpy
        self.do_copy = do_copy
        self.names = dataset.get_col_names()
        self.seed = _base_seed()
        self.order = _number_nodes(dataset)
        self._state = {}
        self.epoch = 0
        self._gen = None
        self._finished = False
        self._cbs = None
        self._alive.append(weakref.ref(self))

    def _convert(self, a):
        if isinstance(a, dict):
            return {k: self._convert(v) for k, v in a.items()}
        if isinstance(a, (tuple, list)):
            return type(a)(self._convert(v) for v in a)
        if self.output_numpy:
            return as_cpp_array(a)
        if a.dtype.kind in "USO":
            return a
        # share only arrays the pipeline made itself (they own their data, or are batches process workers wrote
        # into shared memory); anything else may alias user data
        if self.do_copy or not ((a.flags.owndata or is_pipeline_array(a)) and a.flags.writeable
                                and a.flags.c_contiguous):
            return Tensor(a)
        return Tensor.from_numpy(a)

    def _next_row(self):
        if self._finished:
            raise StopIteration
        if self._gen is None:
            if self._cbs is None:
                self._cbs = _callback_runs(self.dataset)
            for run in self._cbs.values():
                run.epoch_begin(self.epoch + 1)
            self._gen = self.dataset._rows(Ctx(self.seed, (self.epoch,), self.order, self._state, self._cbs))
        try:
            row = next(self._gen)
        except StopIteration:
            self._gen = None
            for run in self._cbs.values():
                run.epoch_end()
            self.epoch += 1
            if self.num_epochs != -1 and self.epoch >= self.num_epochs:
                self._finished = True
            raise
        except BaseException:
            self.stop()
            raise
        return row

    def __iter__(self):
        return self

    def stop(self):
        """Stop the pipeline: close its workers; the iterator yields nothing more."""
        self._finished = True
        self._forget()
        if self._gen is not None:
            gen, self._gen = self._gen, None
            gen.close()

    def release(self):
        """Release the pipeline (MindSpore's name for `stop` at clean-up)."""
        self.stop()

    def get_next(self):
        """The next row."""
        return self.__next__()

    def _forget(self):
        self._alive[:] = [ref for ref in self._alive if ref() is not None and ref() is not self]

    def __del__(self):
        self._forget()
        gen = getattr(self, "_gen", None)
        if gen is not None:
            gen.close()


class TupleIterator(_IteratorBase):
    """Rows as lists of Tensors (or numpy arrays with output_numpy=True)."""

    def __init__(self, dataset, columns=None, num_epochs=-1, output_numpy=False, do_copy=False):
        super().__init__(dataset, num_epochs, output_numpy, do_copy)
        self.pick = None
        if columns is not None:
            cols = [columns] if isinstance(columns, str) else list(columns)
            missing = [c for c in cols if c not in self.names]
            if missing:
                raise ValueError(f"Invalid columns: {missing} not in the dataset's columns {self.names}.")
            self.pick = [self.names.index(c) for c in cols]

    def __next__(self):
        row = self._next_row()
        if self.pick is not None:
            row = [row[i] for i in self.pick]
        conv = self._convert
        return [conv(a) for a in row]


class DictIterator(_IteratorBase):
    """Rows as {column name: Tensor (or numpy array with output_numpy=True)}."""

    def __next__(self):
        row = self._next_row()
        conv = self._convert
        return {k: conv(a) for k, a in zip(self.names, row)}


# ---------------------------------------------------------------------------- Dataset
def _counting_consumers(init):
    """`init` of a node class, counting the node's children's consumers once the outermost `__init__` returns: an
    operation refused by its argument checks is not a consumer, while every consumer ever made counts, as in
    MindSpore's parent list, referenced or not."""

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        if self.__dict__.get("_initialising"):
            return init(self, *args, **kwargs)
        self._initialising = True
        try:
            init(self, *args, **kwargs)
        finally:
            del self._initialising
        for child in self.children:
            child._consumers = getattr(child, "_consumers", 0) + 1
    __init__._counts_consumers = True
    return __init__


class Dataset:
    """Base of every dataset (a node of the pipeline tree).

    Operations (`map`, `batch`, `shuffle`, ...) return new nodes; iterators run the pipeline.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and not getattr(init, "_counts_consumers", False):
            cls.__init__ = _counting_consumers(init)

    def __init__(self, children=None, num_parallel_workers=None):
        if children is None:
            children = []
        elif isinstance(children, Dataset):
            children = [children]
        if not isinstance(children, (list, tuple)) or not all(isinstance(c, Dataset) for c in children):
            raise TypeError(f"Dataset: the argument 'children' must be a Dataset or a list of Datasets, but got "
                            f"{children!r}.")
        self.children = list(children)
        if num_parallel_workers is not None:
            if isinstance(num_parallel_workers, bool) or not isinstance(num_parallel_workers, int):
                raise TypeError(f"Argument num_parallel_workers with value {num_parallel_workers} is not of type "
                                f"[<class 'int'>], but got {type(num_parallel_workers)}.")
            if num_parallel_workers <= 0 or num_parallel_workers > 64 * max(1, os.cpu_count() or 1):
                raise ValueError(f"Input num_parallel_workers is not within the required interval of [1, "
                                 f"{64 * max(1, os.cpu_count() or 1)}].")
        self.num_parallel_workers = num_parallel_workers
        self._size_cache = None
        self._cols_cache = None

    # ------------------------------------------------------------ node interface (overridden)
    def _col_names(self):
        return self.children[0].get_col_names()

    def _size(self):
        return self.children[0].get_dataset_size()

    def _rows(self, ctx):
        return self.children[0]._rows(ctx)

    def _block_ok(self):
        """Whether `_blocks` can serve batches (array-backed source and batchable maps only)."""
        return False

    def _blocks(self, ctx, n):
        """Column blocks of `n` consecutive rows (vectorised batching), or None when not supported."""
        return None

    def _count_rows(self):
        it = self._rows(Ctx(_base_seed(), (0,), _number_nodes(self)))
        try:
            return sum(1 for _ in it)
        finally:
            it.close()

    def _workers(self):
        n = self.num_parallel_workers or _cfg.get_num_parallel_workers()
        # above a sync_wait gate rows are pulled one at a time: workers reading ahead would wait at the gate for
        # a sync_update that only comes once the rows already through it reach the consumer
        return 1 if n > 1 and _above_sync_wait(self) else n

    # ------------------------------------------------------------ getters
    def get_col_names(self):
        """Names of the output columns, in order."""
        if self._cols_cache is None:
            check_tree(self)
            self._cols_cache = list(self._col_names())
        return list(self._cols_cache)

    def get_dataset_size(self):
        """Number of rows (batches after batch) of one epoch."""
        if self._size_cache is None:
            check_tree(self)
            self._size_cache = self._size()
        return self._size_cache

    def _first_row(self):
        check_tree(self)
        it = self._rows(Ctx(_base_seed(), (0,), _number_nodes(self)))
        try:
            return next(it)
        except StopIteration:
            raise RuntimeError("The dataset is empty: output shapes and types are unknown.") from None
        finally:
            it.close()

    def output_shapes(self, estimate=False):
        """Shapes of the columns of the first row (a list per column); with `estimate`, of the whole epoch, None
        in the dimensions whose size varies (the rank of a column must not)."""
        V.type_check(estimate, (bool,), "estimate")
        if not estimate:
            return [list(a.shape) for a in self._first_row()]
        shapes = None
        it = self._rows(Ctx(_base_seed(), (0,), _number_nodes(self)))
        try:
            for row in it:
                if shapes is None:
                    shapes = [list(a.shape) for a in row]
                    continue
                for shape, a in zip(shapes, row):
                    if len(shape) != a.ndim:
                        dims = lambda s: ",".join("-1" if d is None else str(d) for d in s)  # noqa: E731
                        raise pipeline_error(f"Inconsistent shapes, expect same shape for each data row, last data "
                                             f"row: <{dims(a.shape)}>, current data row: <{dims(shape)}>")
                    shape[:] = [d if d == n else None for d, n in zip(shape, a.shape)]
        finally:
            it.close()
        if shapes is None:
            raise RuntimeError("The dataset is empty: output shapes and types are unknown.")
        return shapes

    def output_types(self):
        """numpy dtypes of the columns of the first row (strings report as '<U' / 'S')."""
        kinds = {"U": np.dtype("<U"), "S": np.dtype("S")}
        return [kinds.get(a.dtype.kind, a.dtype) for a in self._first_row()]

    @property
    def input_indexs(self):
        """The column indices given to the network in sink mode: this node's when set, else the first set one of
        its children's (an empty tuple when none is)."""
        own = getattr(self, "_input_indexs", ())
        if own != ():
            return own
        for child in self.children:
            cix = child.input_indexs
            if cix != ():
                return cix
        return own

    @input_indexs.setter
    def input_indexs(self, value):
        self._input_indexs = value

    def get_batch_size(self):
        """Batch size of the last batch operation (1 when there is none)."""
        for c in self.children:
            return c.get_batch_size()
        return 1

    def get_repeat_count(self):
        """Repeat count of the last repeat operation (1 when there is none)."""
        for c in self.children:
            return c.get_repeat_count()
        return 1

    def get_class_indexing(self):
        """Class name to label of an ImageFolder/Manifest-like source; {} otherwise."""
        for c in self.children:
            return c.get_class_indexing()
        return {}

    def num_classes(self):
        """Number of classes of the source (None when unknown)."""
        idx = self.get_class_indexing()
        return len(idx) if idx else None

    def is_shuffled(self):
        """Whether any node shuffles."""
        return any(c.is_shuffled() for c in self.children)

    def is_sharded(self):
        """Whether any source is sharded."""
        return any(c.is_sharded() for c in self.children)

    def reset(self):
        """Forget cached sizes and columns (the next iterator starts from scratch)."""
        self._size_cache = None
        self._cols_cache = None
        for c in self.children:
            c.reset()

    # ------------------------------------------------------------ iterators
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False, do_copy=False):
        """Iterator over rows as lists.

        Args:
            columns (list[str], optional): columns to output, in this order. Default: all.
            num_epochs (int, optional): epochs the iterator runs (-1: unlimited). Default: ``-1``.
            output_numpy (bool, optional): numpy arrays instead of Tensors. Default: ``False``.
            do_copy (bool, optional): copy each array into its Tensor (else the Tensor shares the pipeline's
                fresh array when it can). Default: ``False``.
        """
        return TupleIterator(self, columns, num_epochs, output_numpy, do_copy)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=False):
        """Iterator over rows as {column name: value} dicts (see create_tuple_iterator)."""
        return DictIterator(self, num_epochs, output_numpy, do_copy)

    def __iter__(self):
        return iter(self.create_tuple_iterator())

    def __len__(self):
        return self.get_dataset_size()

    def __deepcopy__(self, memo):
        new = copy.copy(self)
        memo[id(self)] = new
        new.children = [copy.deepcopy(c, memo) for c in self.children]
        new._size_cache = None
        new._cols_cache = None
        return new

    # ------------------------------------------------------------ operations
    def map(self, operations, input_columns=None, output_columns=None, num_parallel_workers=None, **kwargs):
        """Apply `operations` to `input_columns` of every row.

        Args:
            operations (Union[callable, list[callable]]): transforms or Python callables, applied in order.
            input_columns (Union[str, list[str]], optional): columns fed to the first operation. Default: the
                first column.
            output_columns (Union[str, list[str]], optional): names of the last operation's outputs. Default:
                the input column names.
            num_parallel_workers (int, optional): workers. Default: ``ds.config.get_num_parallel_workers()``.
            python_multiprocessing (bool, optional): processes instead of threads. Default: ``False``.
            max_rowsize (int, optional): accepted for compatibility (rows travel through pipes).
            callbacks (DSCallback, optional): accepted for compatibility.

        Returns:
            Dataset, the mapped dataset.
        """
        from mindseed.dataset._ops import MapDataset
        return MapDataset(self, operations, input_columns, output_columns, num_parallel_workers, **kwargs)

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs):
        """Combine `batch_size` consecutive rows into one (each column stacked on a new first axis).

        Args:
            batch_size (Union[int, callable]): rows per batch, or a function of BatchInfo returning it.
            drop_remainder (bool, optional): drop the last incomplete batch. Default: ``False``.
            num_parallel_workers (int, optional): workers for per_batch_map. Default: config.
            per_batch_map (callable, optional): f(col_1 list, ..., col_n list, BatchInfo) -> lists of columns.
            input_columns (list[str], optional): columns given to per_batch_map. Default: all.
            output_columns (list[str], optional): names of per_batch_map's outputs.
            python_multiprocessing (bool, optional): run per_batch_map in processes. Default: ``False``.
        """
        from mindseed.dataset._batch_ops import BatchDataset
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers, **kwargs)

    def padded_batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, pad_info=None):
        """Batch rows of different shapes, padding columns per `pad_info` {column: (shape, value)}; `pad_info=None`
        pads nothing (rows of different shapes are then an error, as in `batch`), `{}` pads every column to the
        batch's longest."""
        from mindseed.dataset._batch_ops import PaddedBatchDataset
        return PaddedBatchDataset(self, batch_size, drop_remainder, num_parallel_workers, pad_info)

    def bucket_batch_by_length(self, column_names, bucket_boundaries, bucket_batch_sizes, element_length_function=None,
                               pad_info=None, pad_to_bucket_boundary=False, drop_remainder=False):
        """Group rows into buckets by length and batch (and pad) each bucket with its own batch size."""
        from mindseed.dataset._batch_ops import BucketBatchByLengthDataset
        return BucketBatchByLengthDataset(self, column_names, bucket_boundaries, bucket_batch_sizes,
                                          element_length_function, pad_info, pad_to_bucket_boundary, drop_remainder)

    def shuffle(self, buffer_size):
        """Shuffle rows through a buffer of `buffer_size` rows (>= dataset size: a full shuffle)."""
        from mindseed.dataset._ops import ShuffleDataset
        return ShuffleDataset(self, buffer_size)

    def repeat(self, count=None):
        """Repeat the dataset `count` times (None or -1: forever)."""
        from mindseed.dataset._ops import RepeatDataset
        return RepeatDataset(self, count)

    def take(self, count=-1):
        """The first `count` rows (-1: all)."""
        from mindseed.dataset._ops import TakeDataset
        return TakeDataset(self, count)

    def skip(self, count):
        """All rows but the first `count`."""
        from mindseed.dataset._ops import SkipDataset
        return SkipDataset(self, count)

    def zip(self, datasets):
        """Rows of this and `datasets` side by side (column names must be unique)."""
        from mindseed.dataset._ops import ZipDataset
        if isinstance(datasets, Dataset):
            datasets = (datasets,)
        elif not isinstance(datasets, tuple):
            raise TypeError(f"Invalid datasets, expected Dataset object or tuple of Dataset, but got {datasets}!")
        return ZipDataset((self,) + tuple(datasets))

    def concat(self, datasets):
        """Rows of this dataset followed by those of `datasets` (same columns)."""
        from mindseed.dataset._ops import ConcatDataset
        if isinstance(datasets, Dataset):
            datasets = [datasets]
        elif not isinstance(datasets, list):
            raise TypeError(f"Invalid datasets, expected Dataset object or list of Dataset, but got {datasets}!")
        return ConcatDataset([self] + list(datasets))

    def __add__(self, datasets):
        return self.concat(datasets)

    def split(self, sizes, randomize=True):
        """Split into non-overlapping datasets of the given sizes (ints, or fractions summing to 1)."""
        from mindseed.dataset._ops import split_dataset
        return split_dataset(self, sizes, randomize)

    def project(self, columns):
        """Keep only `columns`, in that order."""
        from mindseed.dataset._ops import ProjectDataset
        return ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns):
        """Rename columns."""
        from mindseed.dataset._ops import RenameDataset
        return RenameDataset(self, input_columns, output_columns)

    def filter(self, predicate, input_columns=None, num_parallel_workers=None):
        """Keep the rows for which `predicate(*input_columns)` is true."""
        from mindseed.dataset._ops import FilterDataset
        return FilterDataset(self, predicate, input_columns, num_parallel_workers)

    def apply(self, apply_func):
        """`apply_func(self)`, which must return a Dataset."""
        if not callable(apply_func):
            raise TypeError("apply_func must be a function.")
        out = apply_func(self)
        if not isinstance(out, Dataset):
            raise TypeError("dataset returned by apply_func is not dataset type.")
        return out

    def flat_map(self, func):
        """Each row -> func(row) returns a Dataset; their rows are concatenated."""
        from mindseed.dataset._ops import FlatMapDataset
        return FlatMapDataset(self, func)

    def sync_wait(self, condition_name, num_batch=1, callback=None):
        """Block the pipeline every `num_batch` batches until `sync_update(condition_name)` releases it."""
        from mindseed.dataset._ops import SyncWaitDataset
        return SyncWaitDataset(self, condition_name, num_batch, callback)

    def sync_update(self, condition_name, num_batch=None, data=None):
        """Release the sync_wait gate `condition_name` by `num_batch` batches (its own count when None), passing
        `data` to its callback."""
        if os.environ.get("MS_INDEPENDENT_DATASET", "").strip() in ("True", "true"):
            raise RuntimeError("Dataset sync update is not supported in Dataset Independent mode.")
        from mindseed.dataset._ops import sync_update
        sync_update(self, condition_name, num_batch, data)

    def disable_sync(self):
        """Stop every sync_wait gate of the pipeline from blocking."""
        from mindseed.dataset._ops import sync_gates
        for gate in sync_gates(self):
            gate.disable()

    def save(self, file_name, num_files=1, file_type='mindrecord'):
        """Write the dataset (one epoch) to MindRecord files readable by MindDataset and MindSpore."""
        from mindseed.dataset._save import save_dataset
        save_dataset(self, file_name, num_files, file_type)

    def device_que(self, send_epoch_end=True, create_data_info_queue=False, queue_name=""):
        """The dataset itself, also sent to the data queue `queue_name` (a fresh name when empty, kept in
        `self.queue_name`), which the `GetNext` primitive of that name reads row by row."""
        from mindseed._utils import _data_queues  # noqa: PLC0415
        self.queue_name = _data_queues.open_queue(self, queue_name)
        return self

    def to_device(self, send_epoch_end=True, create_data_info_queue=False, queue_name=""):
        """Same as device_que."""
        return self.device_que(send_epoch_end, create_data_info_queue, queue_name)


Dataset.__init__ = _counting_consumers(Dataset.__init__)


# ---------------------------------------------------------------------------- MindSpore's base classes
# `mindspore.dataset`'s class tree, for `isinstance` checks: a source (leaf of the pipeline) is a SourceDataset, a
# mappable one a MappableDataset (`_sources.MappableSource`); each source is also a Vision/Text/Audio base dataset
# by the data it yields, or all three (UnionBaseDataset: GeneratorDataset, NumpySlicesDataset, MindDataset, ...).

class SourceDataset(Dataset):
    """Base of the datasets that read their rows from a source (no dataset child)."""


class VisionBaseDataset(Dataset):
    """Base of the datasets of images."""


class TextBaseDataset(Dataset):
    """Base of the datasets of text."""


class AudioBaseDataset(Dataset):
    """Base of the datasets of audio."""


class UnionBaseDataset(VisionBaseDataset, TextBaseDataset, AudioBaseDataset):
    """Base of the datasets whose rows may hold any kind of data."""
