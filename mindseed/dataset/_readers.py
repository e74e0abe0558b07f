"""The base of the on-disk dataset readers: one place for MindSpore's arguments, their checks and the row loop.

A reader declares its MindSpore signature as text (`_signature`) and the allowed values of its choice
arguments (`_choices`); the `__init__` is generated from the signature, so `inspect.signature`, positional
calls and keyword errors behave as MindSpore's, and every argument is checked by the table `_ARG_CHECKS`
and stored on the reader. What is left to a reader is how to enumerate and decode the records of its format:

* a mappable reader (`IndexedSource`) lists its records once (`_scan()`, paths and small metadata only) and
  turns one record into a row (`_load(record)`); sampler, shuffle, sharding and worker threads come from here;
* a file-stream reader (`FileRowSource`, the non-mappable ones such as the text corpora) names its files
  (`_files()`) and yields the rows of one file (`_file_rows(path)`).
"""
import json
import os

import numpy as np

from mindseed.dataset import _validate as V
from mindseed.dataset._engine import pipeline_error
from mindseed.dataset._sources import MappableSource, Shuffle
from mindseed.dataset._text_sources import _LineSource
from mindseed.dataset._workers import ThreadMap, WorkerError

__all__ = ["IndexedSource", "FileRowSource", "read_bytes", "read_image", "strings", "json_lines"]


# ---------------------------------------------------------------------------- argument checks
def _check_dir(self, name, value):
    V.check_dir(value, type(self).__name__)
    return value


def _check_file(self, name, value):
    if not isinstance(value, str):
        raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'str'>], but got {type(value)}.")
    if not os.path.isfile(value):
        raise ValueError(f"The file {value} does not exist or permission denied!")
    return value


def _check_flag(self, name, value):
    if value is None:  # some readers default decode to None: not decoded
        return False
    V.check_bool(value, name)
    return value


def _check_extensions(self, name, value):
    if value is not None and (not isinstance(value, list) or not all(isinstance(e, str) for e in value)):
        raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'list'>] of str.")
    return value


def _check_class_indexing(self, name, value):
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                                              for k, v in value.items()):
        raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'dict'>] of str to int.")
    if any(v < 0 for v in value.values()):
        raise ValueError(f"Input {name}: class indices must be non-negative, but got {value}.")
    return dict(value)


def _accept(self, name, value):
    return value


def _check_cache(self, name, value):
    from mindseed.dataset._cache import check_cache
    return check_cache(value)


_ARG_CHECKS = {
    "dataset_dir": _check_dir, "dataset_file": _check_file, "annotation_file": _check_file,
    "decode": _check_flag, "compat": _check_flag, "extra_metadata": _check_flag, "shard_equal_rows": _check_flag,
    "small": _check_flag, "extensions": _check_extensions, "class_indexing": _check_class_indexing,
    "cache": _check_cache, "decrypt": _accept,
}
# handled by the base classes (MappableSource / _LineSource)
_BASE_ARGS = ("num_samples", "num_parallel_workers", "shuffle", "sampler", "num_shards", "shard_id")


def _check_choice(name, value, allowed):
    if value is None and None in allowed:
        return value
    if not isinstance(value, str):
        raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'str'>], but got {type(value)}.")
    if value not in allowed:
        raise ValueError(f"Input {name} is not within the valid set of {[a for a in allowed if a is not None]}.")
    return value


def _make_init(cls):
    src = f"def __init__(self, {cls._signature}):\n    _bind(self, locals())\n"
    ns = {"_bind": _bind, "Shuffle": Shuffle}
    exec(compile(src, f"<{cls.__name__}.__init__>", "exec"), ns)  # noqa: S102  (our own signature text)
    init = ns["__init__"]
    init.__qualname__ = f"{cls.__name__}.__init__"
    init.__doc__ = f"{cls.__name__}({cls._signature})"
    return init


def _bind(self, args):
    args = dict(args)
    del args["self"]
    choices = type(self)._choices
    first = type(self)._checked_first
    for name, value in sorted(args.items(), key=lambda item: item[0] not in first):
        if name in _BASE_ARGS:
            continue
        if name in choices:
            value = _check_choice(name, value, choices[name])
        elif name in _ARG_CHECKS:
            value = _ARG_CHECKS[name](self, name, value)
        setattr(self, name, value)
    if "usage" in args and self.usage is None and "all" in choices.get("usage", ()):
        self.usage = "all"
    self._check_args()
    self._base_init(args)
    if args.get("cache") is not None:
        from mindseed.dataset._cache import attach_cache
        attach_cache(self, args["cache"])


class _Declared:
    """Generates `__init__` from the subclass's `_signature` (see the module docstring)."""

    _signature = None
    _choices = {}
    _checked_first = ()     # arguments MindSpore's validator checks before the others (in signature order)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "_signature" in cls.__dict__ and cls._signature is not None:
            cls.__init__ = _make_init(cls)

    def _check_args(self):
        """Checks that relate several arguments (after each was checked alone)."""

    def _base_init(self, args):
        raise TypeError(f"{type(self).__name__} has no base initialiser.")

    def _path(self, *parts):
        return os.path.join(self.dataset_dir, *parts)

    def _need(self, path):
        """`path` itself, or MindSpore's error naming it when it is not a file."""
        if not os.path.isfile(path):
            raise RuntimeError(f"Invalid file, {type(self).__name__}: file not found: {path}.")
        return path


# ---------------------------------------------------------------------------- record helpers
def read_bytes(path, what="file"):
    """The bytes of a file, with a missing or unreadable file named."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise RuntimeError(f"Invalid file, failed to open {what}: {path}: {e.strerror}.") from None


def read_image(path, decode, decrypt=None):
    """An image file as raw bytes (uint8, 1-D) or decoded (HWC RGB uint8)."""
    data = read_bytes(path, "image file")
    if decrypt is not None:
        data = decrypt(data)
    if not decode:
        return np.frombuffer(data, dtype=np.uint8)
    from mindseed.dataset.vision._image import decode_bytes
    return decode_bytes(data, path)


def json_lines(path, what):
    """(line number, object) of each non-blank line of a JSON-lines file, read as a stream; a line that is not
    JSON is an error naming the file, the line and `what` was expected."""
    with open(path, encoding="utf-8") as f:
        for line_no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as e:
                raise RuntimeError(f"Invalid file, {path} line {line_no}: not {what} ({e}).") from None
            yield line_no, obj


def strings(values):
    """A 1-D string column of `values` (an empty list gives shape (0,))."""
    return np.array(list(values), dtype=np.str_) if values else np.array([], dtype=np.str_)


# ---------------------------------------------------------------------------- mappable readers
class IndexedSource(_Declared, MappableSource):
    """A mappable reader: records listed once by `_scan()`, each turned into a row by `_load(record)`.

    Rows are read as they are asked for (only the record list is in memory); with `decode` and more than one
    worker, threads read and decode chunks of rows in order.
    """

    _columns = ("image", "label")

    def _base_init(self, args):
        MappableSource.__init__(self, *(args.get(k) for k in _BASE_ARGS))
        self._records = None

    def _col_names(self):
        return list(self._columns)

    def _scan(self):
        raise TypeError(f"{type(self).__name__} does not list its records.")

    def _load(self, record):
        raise TypeError(f"{type(self).__name__} does not load a record.")

    def _index(self):
        if self._records is None:
            self._records = self._scan()
        return self._records

    def _num_rows(self):
        return len(self._index())

    def _fetch(self, ids):
        records = self._index()
        for i in ids:
            yield self._load(records[i])

    def _rows(self, ctx):
        ids = self._ids(ctx)
        workers = self._workers()
        # threads pay off when rows are decoded; reading raw bytes is faster in the caller's thread
        if workers <= 1 or len(ids) < 16 or not getattr(self, "decode", False):
            yield from self._fetch(ids)
            return
        pool = ThreadMap(lambda c: list(self._fetch(c)), workers)
        try:
            for rows in pool.imap(ids[s:s + 8] for s in range(0, len(ids), 8)):
                yield from rows
        except WorkerError as e:
            raise pipeline_error(e.text.strip().splitlines()[-1]) from None

    def __deepcopy__(self, memo):
        new = super().__deepcopy__(memo)
        new._records = self._records  # the record list is read-only: share it
        return new


class FileRowSource(_Declared, _LineSource):
    """A non-mappable reader: the rows of `_files()` read in order, file by file (shuffle and sharding as
    TextFileDataset)."""

    _columns = ("text",)

    def _base_init(self, args):
        files = self._files() if "dataset_files" not in args else args["dataset_files"]
        shuffle = args.get("shuffle", Shuffle.GLOBAL)
        _LineSource.__init__(self, files, args.get("num_samples"), args.get("num_parallel_workers"),
                             shuffle, args.get("num_shards"), args.get("shard_id"))

    def _col_names(self):
        return list(self._columns)

    def _files(self):
        raise TypeError(f"{type(self).__name__} does not name its files.")

    def _usage_files(self, names):
        """The files of `self.usage` ('all': every usage, in the order of `names`) that exist; an error when
        none does."""
        wanted = list(names.values()) if self.usage == "all" else [names[self.usage]]
        files = [self._path(n) for n in wanted if os.path.isfile(self._path(n))]
        if not files or (self.usage != "all" and len(files) != len(wanted)):
            raise ValueError(f"{type(self).__name__}: no {' / '.join(wanted)} file for usage '{self.usage}' in "
                             f"{self.dataset_dir}.")
        return files
