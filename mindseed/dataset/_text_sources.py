"""Line-based file sources: CSVDataset and TextFileDataset (non-mappable: files are read in order)."""
import csv
import glob
import os

import numpy as np

from mindseed.dataset import _validate as V
from mindseed.dataset._engine import SourceDataset, TextBaseDataset, UnionBaseDataset
from mindseed.dataset._sources import Shuffle

__all__ = ["CSVDataset", "TextFileDataset"]


def _expand_files(dataset_files):
    if isinstance(dataset_files, str):
        patterns = [dataset_files]
    elif isinstance(dataset_files, (list, tuple)) and all(isinstance(f, str) for f in dataset_files):
        patterns = list(dataset_files)
    else:
        raise TypeError(f"Argument dataset_files with value {dataset_files!r} is not of type [<class 'str'>, "
                        f"<class 'list'>].")
    files = []
    for p in patterns:
        hits = sorted(glob.glob(p)) if any(ch in p for ch in "*?[") else [p]
        if not hits:
            raise ValueError(f"The following patterns did not match any files: {p}")
        files += hits
    for f in files:
        if not os.path.isfile(f):
            raise ValueError(f"The file {f} does not exist or permission denied!")
    return sorted(files)


def _shuffle_mode(shuffle):
    if shuffle is None or shuffle is True:
        return Shuffle.GLOBAL
    if shuffle is False:
        return None
    if isinstance(shuffle, Shuffle):
        return shuffle
    raise TypeError(f"Argument shuffle with value {shuffle!r} is not of type [<class 'bool'>, Shuffle].")


SHUFFLE_BUFFER = 100000  # rows a non-mappable source's row shuffle holds (a full shuffle below that size)


def _buffer_shuffle(rows, rng, size):
    """Rows in random order through a buffer of `size` rows: each output is drawn uniformly from the buffer
    (a uniform permutation when the whole input fits), so memory is bounded by `size` rows."""
    buf = []
    for row in rows:
        if len(buf) < size:
            buf.append(row)
            continue
        k = int(rng.integers(size))
        buf[k], row = row, buf[k]
        yield row
    order = rng.permutation(len(buf))
    for k in order:
        yield buf[k]


class _LineSource(SourceDataset):
    """Rows from files read in order; shuffle (files and/or rows) and row-level sharding (file-level when
    `_shard_files`: shard i reads files i, i + num_shards, ...)."""

    _shard_files = False

    def __init__(self, dataset_files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id):
        V.check_num_samples(num_samples)
        V.check_workers(num_parallel_workers)
        V.check_sharding(num_shards, shard_id)
        super().__init__(None, num_parallel_workers)
        self.dataset_files = _expand_files(dataset_files)
        self.num_samples = num_samples
        self.shuffle_mode = _shuffle_mode(shuffle)
        self.num_shards = num_shards
        self.shard_id = shard_id

    def is_shuffled(self):
        return self.shuffle_mode is not None

    def is_sharded(self):
        return self.num_shards is not None and self.num_shards > 1

    def _file_rows(self, path):
        raise TypeError(f"{type(self).__name__} does not define how to read a file.")

    def _read(self, path):
        """`_file_rows(path)`, with a file that vanished or cannot be read reported by name."""
        try:
            yield from self._file_rows(path)
        except OSError as e:
            raise RuntimeError(f"Invalid file, failed to open {path}: {e.strerror or e}.") from None

    def _shard_rows(self, files, rows):
        """Rows k with k % num_shards == shard_id, read as a stream; a shard left one row short of
        ceil(rows / num_shards) wraps around to the start (every shard yields the same count)."""
        n, me = self.num_shards, self.shard_id
        count, total = 0, 0
        for total, row in enumerate(rows, 1):
            if (total - 1) % n == me:
                count += 1
                yield row
        per = -(-total // n)
        if total and count < per:
            want = (me + n * count) % total
            for k, row in enumerate(r for f in files for r in self._read(f)):
                if k == want:
                    yield row
                    return

    def _my_files(self):
        if self.num_shards and self._shard_files:
            return self.dataset_files[self.shard_id::self.num_shards]
        return list(self.dataset_files)

    def _size(self):
        total = sum(1 for f in self._my_files() for _ in self._read(f))
        if self.num_shards and not self._shard_files:
            total = -(-total // self.num_shards)
        return total if not self.num_samples else min(total, self.num_samples)

    def _rows(self, ctx):
        rng = ctx.rng(self)
        files = self._my_files()
        if self.shuffle_mode in (Shuffle.GLOBAL, Shuffle.FILES):
            files = [files[i] for i in rng.permutation(len(files))]
        rows = (r for f in files for r in self._read(f))
        if self.num_shards and not self._shard_files:
            rows = self._shard_rows(files, rows)
        if self.shuffle_mode in (Shuffle.GLOBAL, Shuffle.INFILE):
            rows = _buffer_shuffle(rows, rng, SHUFFLE_BUFFER)
        for k, row in enumerate(rows):
            if self.num_samples and k >= self.num_samples:
                return
            yield row


class TextFileDataset(_LineSource, TextBaseDataset):
    """One row per line of text files: column ``text`` (str).

    Args:
        dataset_files (Union[str, list[str]]): files or glob patterns.
        num_samples (int, optional): at most this many rows. Default: all.
        shuffle (Union[bool, Shuffle], optional): Default: ``Shuffle.GLOBAL``.
        num_shards, shard_id (int, optional): row-level sharding.
    """

    def __init__(self, dataset_files, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)

    def _col_names(self):
        return ["text"]

    def _file_rows(self, path):
        try:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    line = line.rstrip("\n").rstrip("\r")
                    if line:
                        yield [np.array(line)]
        except UnicodeDecodeError as e:
            raise RuntimeError(f"Invalid file, {path} is not UTF-8 text: {e}.") from None


class CSVDataset(_LineSource, UnionBaseDataset):
    """One row per CSV record; one column per field (typed by `column_defaults`, else str).

    Args:
        dataset_files (Union[str, list[str]]): files or glob patterns.
        field_delim (str, optional): the delimiter. Default: ``','``.
        column_defaults (list, optional): a default per column; its type (int, float, str) is the column's type.
        column_names (list[str], optional): names. Default: the first line of the first file.
        num_samples, shuffle, num_shards, shard_id: as TextFileDataset.

    Raises:
        RuntimeError: a record has the wrong number of fields or a value of the wrong type (naming the file).
    """

    def __init__(self, dataset_files, field_delim=',', column_defaults=None, column_names=None, num_samples=None,
                 num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        if not isinstance(field_delim, str) or len(field_delim) != 1 or field_delim in '"\r\n':
            raise ValueError("field_delim is invalid: it must be one character other than '\"', '\\r' and '\\n'.")
        if column_defaults is not None:
            if not isinstance(column_defaults, list):
                raise TypeError("column_defaults should be type of list.")
            for d in column_defaults:
                if not isinstance(d, (str, int, float)) or isinstance(d, bool):
                    raise TypeError("column type in column_defaults is invalid (use int, float or str).")
        super().__init__(dataset_files, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)
        self.field_delim = field_delim
        self.column_defaults = column_defaults
        self.header = column_names is None
        self.names = V.check_columns(column_names, "column_names") if column_names is not None else None

    def _col_names(self):
        if self.names is None:
            try:
                with open(self.dataset_files[0], newline="", encoding="utf-8") as f:
                    first = next(csv.reader(f, delimiter=self.field_delim), None)
            except OSError as e:
                raise RuntimeError(f"Invalid file, failed to open {self.dataset_files[0]}: {e.strerror or e}.") \
                    from None
            if not first:
                raise RuntimeError(f"Invalid file, {self.dataset_files[0]} is empty: no header line to take the "
                                   f"column names from.")
            self.names = first
        return self.names

    def _convert(self, value, k, path, line):
        default = self.column_defaults[k] if self.column_defaults and k < len(self.column_defaults) else ""
        if value == "":
            value = default
        try:
            if isinstance(default, bool):
                return np.array(value)
            if isinstance(default, int):
                return np.array(int(value), dtype=np.int32)
            if isinstance(default, float):
                return np.array(float(value), dtype=np.float32)
        except ValueError:
            raise RuntimeError(f"Invalid csv, {path} line {line}: value {value!r} of column {k} cannot be converted to "
                               f"{type(default).__name__}.") from None
        return np.array(str(value))

    def _file_rows(self, path):
        names = self._col_names()
        with open(path, newline="", encoding="utf-8") as f:
            for line, rec in enumerate(csv.reader(f, delimiter=self.field_delim), 1):
                if self.header and line == 1:
                    continue
                if not rec:
                    continue
                if len(rec) != len(names):
                    raise RuntimeError(f"Invalid csv, {path} line {line} has {len(rec)} fields, but the dataset has "
                                       f"{len(names)} columns {names}.")
                yield [self._convert(v, k, path, line) for k, v in enumerate(rec)]
