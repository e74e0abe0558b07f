"""FileWriter and FileReader: write and read MindRecord files (`mindspore.mindrecord`)."""
import os
import re
import warnings

import numpy as np

from mindseed.mindrecord import _format as F
from mindseed.mindrecord import _msgpack
from mindseed.mindrecord import config as _crypt
from mindseed.mindrecord.exceptions import (MRMDefineIndexError, MRMInvalidSchemaError, ParamTypeError,
                                            ParamValueError)

__all__ = ["FileWriter", "FileReader", "SUCCESS", "FAILED"]

SUCCESS = 0
FAILED = 1
_MAX_SHARDS = 1000
_VALUE_TYPES = {"int": ("int32", "int64"), "float": ("float32", "float64"), "str": ("string",),
                "bytes": ("bytes",), "int32": ("int32",), "int64": ("int64",), "float32": ("float32",),
                "float64": ("float64",), "ndarray": ("int32", "int64", "float32", "float64")}


def _check_filename(path, arg_name="file_name"):
    if not isinstance(path, str) or not path:
        raise ParamValueError(f"Parameter {arg_name} should be a non-empty str, but got {path!r}.")
    name = os.path.basename(path)
    if not name:
        raise ParamValueError(f"File path {path!r} is a directory, not a file name.")
    if re.search(r'[\\/:*?"<>|]', name):
        raise ParamValueError(f"File name {name!r} contains an invalid character.")


class FileWriter:
    """Write rows (dicts) into MindRecord files that MindDataset and real MindSpore read.

    Args:
        file_name (str): the file (shard files are `file_name` + shard number when shard_num > 1).
        shard_num (int, optional): number of shard files, in [1, 1000]. Default: ``1``.
        overwrite (bool, optional): replace existing files. Default: ``False``.

    Raises:
        ParamValueError: `file_name` or `shard_num` is invalid.
        RuntimeError: the files exist and `overwrite` is False (raised at the first write/commit).

    >>> writer = FileWriter("test.mindrecord", shard_num=1, overwrite=True)
    >>> writer.add_schema({"label": {"type": "int32"}, "data": {"type": "bytes"}}, "demo")
    >>> writer.write_raw_data([{"label": 1, "data": b"abc"}])
    >>> writer.commit()
    """

    def __init__(self, file_name, shard_num=1, overwrite=False):
        _check_filename(file_name)
        if shard_num is None:
            raise ParamValueError("Parameter shard_num is None.")
        if not isinstance(shard_num, int) or isinstance(shard_num, bool):
            raise ParamValueError("Parameter shard_num's type is not int.")
        if not 1 <= shard_num <= _MAX_SHARDS:
            raise ParamValueError(f"Parameter shard_num's value: {shard_num} should between 1 and {_MAX_SHARDS}.")
        if not isinstance(overwrite, bool):
            raise ParamValueError("Parameter overwrite's type is not bool.")
        self._file_name = file_name
        self._shard_num = shard_num
        width = len(str(shard_num - 1))
        self._paths = [file_name] if shard_num == 1 else [f"{file_name}{str(i).rjust(width, '0')}"
                                                          for i in range(shard_num)]
        self._overwrite = overwrite
        self._schema = None
        self._desc = ""
        self._index_fields = None
        self._header_size = F.DEFAULT_HEADER_SIZE
        self._page_size = F.DEFAULT_PAGE_SIZE
        self._writers = None
        self._compression = 0
        self._committed = False
        self._pending = []  # rows carried over by open_for_append

    # ------------------------------------------------------------ setup
    @classmethod
    def open_for_append(cls, file_name):
        """A writer that appends rows to an existing MindRecord file.

        Raises:
            RuntimeError: the file or its index is missing or corrupt.
        """
        _check_filename(file_name)
        reader = F.ShardSetReader([file_name])
        header = reader.headers[0]
        rows = [reader.read(i) for i in range(len(reader))]
        schema, desc = reader.schema, reader.desc
        reader.close()
        w = cls(file_name, 1, overwrite=True)
        w._header_size, w._page_size = int(header["header_size"]), int(header["page_size"])
        w.add_schema(schema, desc)
        w._index_fields = [f["index_field"] for f in (header.get("index_fields") or [])]
        for r in rows:
            for k, spec in schema.items():
                if F.is_blob(spec) and spec["type"] != "bytes":
                    r[k] = np.asarray(r[k])
        w._pending = rows
        return w

    def add_schema(self, content, desc=None):
        """Set the schema {field: {"type": ..., ["shape": [...]]}}.

        Raises:
            MRMInvalidSchemaError: the schema is invalid.
        """
        ok, error = self._validate_schema(content)
        if not ok:
            raise MRMInvalidSchemaError(error)
        if desc is not None and not isinstance(desc, str):
            raise ParamTypeError("desc", "str")
        self._schema = {k: dict(sorted(v.items())) for k, v in sorted(content.items())}
        self._desc = desc or ""

    @staticmethod
    def _validate_schema(content):
        if not content:
            return False, "Schema content is empty."
        if not isinstance(content, dict):
            return False, "Schema content should be dict."
        for k, v in content.items():
            if not isinstance(k, str) or not re.match(r"^[0-9a-zA-Z_]+$", k):
                return False, f"Field '{k}' should be composed of '0-9' or 'a-z' or 'A-Z' or '_'."
            if not v or not isinstance(v, dict):
                return False, f"Field '{k}' should be dict."
            if len(v) == 1 and "type" in v:
                if v["type"] not in F.SCALAR_TYPES:
                    return False, f"Field '{k}' contain illegal attribute '{v['type']}'."
            elif len(v) == 2 and "type" in v:
                if v["type"] not in F.ARRAY_TYPES:
                    return False, f"Field '{k}' contain illegal attribute '{v['type']}'."
                if "shape" not in v:
                    return False, f"Field '{v}' contains illegal attributes."
                if not isinstance(v["shape"], list) or not all(isinstance(s, int) for s in v["shape"]):
                    return False, f"Field '{k}' contain illegal attribute '{v['shape']}'."
            else:
                return False, f"Field '{v}' contains illegal attributes."
        return True, ""

    def add_index(self, index_fields):
        """Fields to index (scalar fields only). Default: every scalar field.

        Raises:
            ParamTypeError: `index_fields` is not a non-empty list of str.
            MRMDefineIndexError: a field is a blob (bytes / array) field or not in the schema.
        """
        if not index_fields or not isinstance(index_fields, list):
            raise ParamTypeError("index_fields", "list")
        if self._schema is None:
            raise MRMDefineIndexError("Failed to add index since the schema is not set; call add_schema first.")
        for field in index_fields:
            if not isinstance(field, str):
                raise ParamTypeError("index field", "str")
            if field not in self._schema:
                raise MRMDefineIndexError(f"Failed to set field {field} since it is not in the schema.")
            if F.is_blob(self._schema[field]):
                raise MRMDefineIndexError(f"Failed to set field {field} since it's not primitive type.")
        self._index_fields = sorted(set(index_fields))

    def set_header_size(self, header_size):
        """Header size in bytes, in [16KB, 128MB]."""
        F.check_header_size(header_size)
        self._header_size = header_size

    def set_page_size(self, page_size):
        """Page size in bytes, in [32KB, 256MB]."""
        F.check_page_size(page_size)
        self._page_size = page_size

    # ------------------------------------------------------------ writing
    def _open(self):
        if self._writers is not None:
            return
        if self._schema is None:
            raise MRMInvalidSchemaError("Schema is not set; call add_schema before writing.")
        for p in self._paths:
            if os.path.exists(p) or os.path.exists(p + ".db"):
                if not self._overwrite:
                    raise RuntimeError(f"Invalid file, mindrecord files already exist. Please check file path: "
                                       f"{os.path.abspath(p)}.\nIf you do not want to keep the files, set the "
                                       f"'overwrite' parameter to True and try again.")
                for q in (p, p + ".db"):
                    if os.path.exists(q):
                        os.remove(q)
            folder = os.path.dirname(os.path.abspath(p))
            if not os.path.isdir(folder):
                raise RuntimeError(f"Invalid file, the folder of {p} does not exist.")
        self._blob_fields = sorted(k for k, v in self._schema.items() if F.is_blob(v))
        self._raw_fields = sorted(k for k in self._schema if k not in self._blob_fields)
        if self._index_fields is None:
            self._index_fields = list(self._raw_fields)
        self._writers = [F.ShardFileWriter(p, i, self._header_size, self._page_size)
                         for i, p in enumerate(self._paths)]
        if self._pending:
            rows, self._pending = self._pending, []
            self._write_rows(rows, self._writers[0])

    def _verify(self, raw_data):
        bad = {}
        for field, spec in self._schema.items():
            for i, v in enumerate(raw_data):
                if i in bad:
                    continue
                if field not in v:
                    bad[i] = f"for schema, {i} th data is wrong, there is not field: '{field}' in the raw data."
                    continue
                tname = type(v[field]).__name__
                if tname not in _VALUE_TYPES or spec["type"] not in _VALUE_TYPES[tname]:
                    bad[i] = (f"for schema, {i} th data is wrong, data type: '{tname}' for field: '{field}' is not "
                              f"matched.")
                    continue
                if tname == "ndarray":
                    if "shape" not in spec:
                        bad[i] = f"for schema, {i} th data is wrong, data shape for field: '{field}' is not specified."
                    elif str(v[field].dtype) != spec["type"]:
                        bad[i] = (f"for schema, {i} th data is wrong, data type: '{v[field].dtype}' for field: "
                                  f"'{field}' is not matched.")
                    else:
                        try:
                            np.reshape(v[field], spec["shape"])
                        except ValueError:
                            bad[i] = (f"for schema, {i} th data is wrong, data shape: '{v[field].shape}' for field: "
                                      f"'{field}' is not matched.")
        for i in sorted(bad, reverse=True):
            raw_data.pop(i)
            warnings.warn(bad[i], stacklevel=3)

    def _encode(self, row):
        raw = {k: self._scalar(row[k], self._schema[k]["type"]) for k in self._raw_fields}
        raw_bytes = _msgpack.packb(raw if raw else {"id": 0})
        parts = []
        for k in self._blob_fields:
            spec, v = self._schema[k], row[k]
            if spec["type"] == "bytes":
                data = bytes(v)
            elif spec["type"] in ("int32", "int64"):
                data = F.compress_ints(v)
                self._compression += np.asarray(v).nbytes - len(data)
            else:
                data = np.ascontiguousarray(v, dtype=np.dtype(spec["type"]).newbyteorder("<")).tobytes()
            if len(self._blob_fields) > 1:  # a lone blob field is written without a length of its own
                parts.append(len(data).to_bytes(8, "big"))
            parts.append(data)
        keys = tuple(raw[k] for k in self._index_fields)
        return raw_bytes, b"".join(parts), keys

    @staticmethod
    def _scalar(v, t):
        if t in ("int32", "int64"):
            return int(v)
        if t in ("float32", "float64"):
            return float(v)
        return str(v)

    def _write_rows(self, rows, writer):
        for row in rows:
            writer.add(*self._encode(row))

    def write_raw_data(self, raw_data, parallel_writer=False):
        """Append rows (a list of dicts matching the schema); rows that do not match are dropped with a warning.

        Raises:
            ParamTypeError: `raw_data` is not a list of dicts.
            RuntimeError: the files exist and overwrite is False, or the writer was committed.
        """
        if not isinstance(parallel_writer, bool):
            raise TypeError("The parameter `parallel_writer` must be bool.")
        if self._committed:
            raise RuntimeError("Not allowed to call `write_raw_data` on flushed MindRecord files. When creating new "
                               "MindRecord files, please remove `commit` before `write_raw_data`. In other cases, "
                               "when appending to existing MindRecord files, please call `open_for_append` first "
                               "and then `write_raw_data`.")
        if not isinstance(raw_data, list):
            raise ParamTypeError("raw_data", "list")
        for each in raw_data:
            if not isinstance(each, dict):
                raise ParamTypeError("raw_data item", "dict")
        self._open()
        raw_data = list(raw_data)
        self._verify(raw_data)
        n = len(self._writers)
        chunk = -(-len(raw_data) // n) if raw_data else 0
        for i, w in enumerate(self._writers):
            self._write_rows(raw_data[i * chunk:(i + 1) * chunk], w)

    def commit(self):
        """Write the headers, the last pages and the index (.db) files."""
        if self._committed:
            raise RuntimeError("The MindRecord files were already committed.")
        self._open()
        common = {"compression_size": max(0, self._compression),
                  "schema": [{"blob_fields": self._blob_fields, "desc": self._desc, "schema": self._schema}],
                  "shard_addresses": [os.path.basename(p) for p in self._paths]}
        for w in self._writers:
            w.commit(common, self._index_fields, self._schema)
        for p in self._paths:
            for q in (p, p + ".db"):
                if os.path.exists(q):
                    os.chmod(q, 0o600)
        _crypt.encrypt_written(self._paths)
        self._committed = True


class FileReader:
    """Read the rows of MindRecord files as dicts.

    Args:
        file_name (Union[str, list[str]]): one file (its whole shard set is read) or a list of shard files.
        num_consumer (int, optional): accepted for compatibility. Default: ``4``.
        columns (list[str], optional): fields to read. Default: all.
        operator (int, optional): accepted for compatibility.

    Raises:
        RuntimeError: a file or its index is missing, truncated or corrupt.
    """

    def __init__(self, file_name, num_consumer=4, columns=None, operator=None):
        if isinstance(file_name, str):
            _check_filename(file_name)
            paths = [file_name]
        elif isinstance(file_name, list) and file_name:
            for f in file_name:
                _check_filename(f)
            paths = list(file_name)
        else:
            raise ParamTypeError("file_name", "str or list")
        for p in paths:
            if not os.path.isfile(p):
                raise RuntimeError(f"Invalid file, MindRecord file {p} does not exist.")
        self._reader = F.ShardSetReader(paths, expand=isinstance(file_name, str))
        fields = self._reader.raw_fields + self._reader.blob_fields
        if columns is not None:
            if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
                raise ParamTypeError("columns", "list[str]")
            for c in columns:
                if c not in self._reader.schema:
                    raise ParamValueError(f"Field {c} is not in the schema.")
            fields = [f for f in fields if f in columns]
        self._fields = fields

    def get_next(self):
        """Yield each row as {field: value} (ints/floats/str for scalars, bytes, numpy arrays)."""
        for i in range(len(self._reader)):
            row = self._reader.read(i)
            yield F.reader_row(self._reader.schema, {k: row[k] for k in self._fields})

    def schema(self):
        """The schema {field: {"type": ..., ["shape": ...]}}."""
        return dict(self._reader.schema)

    def len(self):
        """Number of rows."""
        return len(self._reader)

    def close(self):
        """Release the files."""
        self._reader.close()
