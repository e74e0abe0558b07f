"""Standard-format readers: TFRecordDataset (tf.train.Example records, parsed with protobuf, CRCs checked),
ManifestDataset (a JSON-lines manifest of images and labels) and RandomDataset (rows of a schema, generated)."""
import gzip
import struct
import zlib

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.dataset import _validate as V
from mindseed.dataset import config as _cfg
from mindseed.dataset._engine import UnionBaseDataset, VisionBaseDataset
from mindseed.dataset._readers import FileRowSource, IndexedSource, json_lines, read_image
from mindseed.dataset._schema import Schema

__all__ = ["TFRecordDataset", "ManifestDataset", "RandomDataset"]


def _schema_of(schema):
    """A Schema of a Schema, a JSON schema path, or None."""
    if schema is None or isinstance(schema, Schema):
        return schema
    if isinstance(schema, str):
        return Schema(schema)
    raise TypeError(f"Argument schema with value {schema!r} is not of type [<class 'str'>, Schema].")


def _schema_columns(schema, columns_list):
    """[(name, mindseed dtype or None, shape or None)] of the schema, in `columns_list`'s order if given."""
    cols = [] if schema is None else [(c["name"], c["type"], c.get("shape")) for c in schema.columns]
    if columns_list is None:
        return cols
    columns_list = V.check_columns(columns_list, "columns_list")
    by_name = {c[0]: c for c in cols}
    if cols:
        missing = [n for n in columns_list if n not in by_name]
        if missing:
            raise ValueError(f"Invalid columns_list: {missing} are not columns of the schema {list(by_name)}.")
        return [by_name[n] for n in columns_list]
    return [(n, None, None) for n in columns_list]


# ---------------------------------------------------------------------------- tf.train.Example
_EXAMPLE = None


def _example_class():
    """The tf.train.Example message class, built from its descriptor (tensorflow/core/example/*.proto)."""
    global _EXAMPLE
    if _EXAMPLE is not None:
        return _EXAMPLE
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    fd = descriptor_pb2.FileDescriptorProto(name="mindseed_tf_example.proto", package="tensorflow", syntax="proto3")
    F = descriptor_pb2.FieldDescriptorProto

    def message(name, fields, nested=()):
        m = fd.message_type.add(name=name) if not nested else nested[0].nested_type.add(name=name)
        for number, (fname, ftype, label, type_name, packed) in enumerate(fields, 1):
            f = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = type_name
            if packed:
                f.options.packed = True
        return m

    rep, opt = F.LABEL_REPEATED, F.LABEL_OPTIONAL
    message("BytesList", [("value", F.TYPE_BYTES, rep, None, False)])
    message("FloatList", [("value", F.TYPE_FLOAT, rep, None, True)])
    message("Int64List", [("value", F.TYPE_INT64, rep, None, True)])
    feature = message("Feature", [("bytes_list", F.TYPE_MESSAGE, opt, ".tensorflow.BytesList", False),
                                  ("float_list", F.TYPE_MESSAGE, opt, ".tensorflow.FloatList", False),
                                  ("int64_list", F.TYPE_MESSAGE, opt, ".tensorflow.Int64List", False)])
    feature.oneof_decl.add(name="kind")
    for f in feature.field:
        f.oneof_index = 0
    features = message("Features", [("feature", F.TYPE_MESSAGE, rep, ".tensorflow.Features.FeatureEntry", False)])
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=opt)
    entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=opt, type_name=".tensorflow.Feature")
    message("Example", [("features", F.TYPE_MESSAGE, opt, ".tensorflow.Features", False)])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    _EXAMPLE = message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.Example"))
    return _EXAMPLE


def make_example(features):
    """Serialized tf.train.Example of {name: list of int | list of float | list of bytes} (for writing files)."""
    ex = _example_class()()
    for name, values in features.items():
        f = ex.features.feature[name]
        values = list(values)
        if values and isinstance(values[0], (bytes, str)):
            f.bytes_list.value.extend(v.encode() if isinstance(v, str) else v for v in values)
        elif values and isinstance(values[0], float):
            f.float_list.value.extend(values)
        else:
            f.int64_list.value.extend(int(v) for v in values)
    return ex.SerializeToString()


def _masked_crc(data):
    from mindseed.train.summary._event_file import masked_crc32c
    return masked_crc32c(data)


def frame_record(data):
    """One TFRecord: length, its masked CRC-32C, the data, its masked CRC-32C."""
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", _masked_crc(header)) + data + struct.pack("<I", _masked_crc(data))


def iter_records(path, compression_type=None):
    """The records of a TFRecord file, read one at a time; a truncated record or a CRC mismatch is an error
    naming the file, the record and its offset."""
    opener = {None: open, "": open, "GZIP": gzip.open}.get(compression_type)
    try:
        f = opener(path, "rb") if opener is not None else _ZlibReader(path)
    except OSError as e:
        raise RuntimeError(f"Invalid file, failed to open {path}: {e.strerror or e}.") from None
    with f:
        k, pos = 0, 0
        while True:
            header = f.read(12)
            if not header:
                return
            if len(header) < 12:
                raise RuntimeError(f"Invalid TFRecord file, {path}: record {k} at offset {pos} is truncated (its "
                                   f"12-byte header has {len(header)} bytes).")
            (n,) = struct.unpack("<Q", header[:8])
            if struct.unpack("<I", header[8:])[0] != _masked_crc(header[:8]):
                raise RuntimeError(f"Invalid TFRecord file, {path}: record {k} at offset {pos} has a corrupt length "
                                   f"(CRC-32C mismatch).")
            body = f.read(n + 4)
            if len(body) < n + 4:
                raise RuntimeError(f"Invalid TFRecord file, {path}: record {k} at offset {pos} is truncated (needs "
                                   f"{n + 4} bytes after its header, the file has {len(body)}).")
            data = body[:n]
            if struct.unpack("<I", body[n:])[0] != _masked_crc(data):
                raise RuntimeError(f"Invalid TFRecord file, {path}: record {k} at offset {pos} is corrupt (data "
                                   f"CRC-32C mismatch).")
            yield k, data
            k += 1
            pos += 16 + n


class _ZlibReader:
    """A ZLIB-compressed file read as a stream of its decompressed bytes."""

    def __init__(self, path):
        self.f = open(path, "rb")  # noqa: SIM115  (closed by __exit__)
        self.z = zlib.decompressobj()
        self.buf = b""

    def read(self, n):
        while len(self.buf) < n:
            chunk = self.f.read(1 << 16)
            if not chunk:
                self.buf += self.z.flush()
                break
            self.buf += self.z.decompress(chunk)
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()


_KIND_DTYPE = {"int64_list": np.int64, "float_list": np.float32, "bytes_list": np.uint8}


class TFRecordDataset(FileRowSource, UnionBaseDataset):
    """Rows of tf.train.Example records in TFRecord files (no TensorFlow needed: parsed with protobuf).

    Columns come from `schema` (names, types and shapes; a JSON file or a Schema) or else from the features
    of the first record (sorted by name: int64_list -> int64, float_list -> float32, bytes_list -> uint8 bytes).
    A bytes feature of a ``string`` column gives strings. Each record's CRC-32C checksums are verified.

    Args:
        dataset_files (Union[str, list[str]]): files or glob patterns (read in sorted order).
        schema (Union[str, Schema], optional): the columns. Default: ``None`` (from the first record).
        columns_list (list[str], optional): the columns to read. Default: all.
        num_samples (int, optional): rows to read (default: the schema's numRows, else all).
        shuffle (Union[bool, Shuffle], optional): Default: ``Shuffle.GLOBAL``.
        num_shards, shard_id (int, optional): with `shard_equal_rows` False each shard reads whole files
            (file i goes to shard i % num_shards); True shards rows so every shard has the same count.
        compression_type (str, optional): ``None``/``''``, ``'GZIP'`` or ``'ZLIB'``.

    Raises:
        RuntimeError: a record is truncated or fails its CRC, is not a valid Example, or lacks a schema column
            (each error names the file and the record).
    """

    _signature = ("dataset_files, schema=None, columns_list=None, num_samples=None, num_parallel_workers=None, "
                  "shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, shard_equal_rows=False, cache=None, "
                  "compression_type=None")
    _choices = {"compression_type": (None, "", "GZIP", "ZLIB")}

    def _check_args(self):
        self.schema = _schema_of(self.schema)
        if self.columns_list is not None and (not isinstance(self.columns_list, list) or not self.columns_list
                                              or not all(isinstance(c, str) for c in self.columns_list)):
            raise TypeError(f"Argument columns_list with value {self.columns_list!r} is not a list of str.")
        self._cols = _schema_columns(self.schema, self.columns_list)

    def _base_init(self, args):
        super()._base_init(args)
        if self.num_samples is None and self.schema is not None and self.schema.num_rows:
            self.num_samples = self.schema.num_rows
        self._shard_files = not self.shard_equal_rows

    def _columns_from(self, path):
        if self._cols and all(c[1] is not None for c in self._cols):
            return self._cols
        for k, data in iter_records(path, self.compression_type):
            ex = self._parse(data, path, k)
            names = [c[0] for c in self._cols] or sorted(ex.features.feature)
            return [(n, None, None) for n in names]
        raise RuntimeError(f"Invalid TFRecord file, {path} holds no record to take the columns from.")

    def _col_names(self):
        if not self._cols or any(c[1] is None for c in self._cols):
            self._cols = self._columns_from(self.dataset_files[0])
        return [c[0] for c in self._cols]

    @staticmethod
    def _parse(data, path, k):
        from google.protobuf.message import DecodeError
        ex = _example_class()()
        try:
            ex.ParseFromString(data)
        except DecodeError as e:
            raise RuntimeError(f"Invalid TFRecord file, {path}: record {k} is not a tf.train.Example ({e}).") from None
        return ex

    def _file_rows(self, path):
        self._col_names()
        for k, data in iter_records(path, self.compression_type):
            feats = self._parse(data, path, k).features.feature
            yield [self._value(feats, name, dtype, shape, path, k) for name, dtype, shape in self._cols]

    @staticmethod
    def _value(feats, name, dtype, shape, path, k):
        if name not in feats:
            raise RuntimeError(f"Invalid TFRecord file, {path}: record {k} has no feature '{name}' (it has "
                               f"{sorted(feats)}).")
        feat = feats[name]
        kind = feat.WhichOneof("kind")
        if kind is None:
            raise RuntimeError(f"Invalid TFRecord file, {path}: record {k} feature '{name}' holds no list.")
        values = getattr(feat, kind).value
        if kind == "bytes_list":
            if dtype == mstype.string:
                out = np.array([v.decode("utf-8", "replace") for v in values])
            else:
                out = np.frombuffer(b"".join(values), np.uint8)
                if len(values) > 1 and len({len(v) for v in values}) == 1:
                    out = out.reshape(len(values), -1)
        else:
            out = np.asarray(values, _KIND_DTYPE[kind])
        if dtype is not None and dtype != mstype.string:
            out = out.astype(mstype.dtype_to_nptype(dtype), copy=False)
        if shape is not None:
            try:
                out = out.reshape(shape)
            except ValueError:
                raise RuntimeError(f"Invalid TFRecord file, {path}: record {k} feature '{name}' has {out.size} values, "
                                   f"which do not fit the schema shape {shape}.") from None
        return out


# ---------------------------------------------------------------------------- Manifest
class ManifestDataset(IndexedSource, VisionBaseDataset):
    """Images listed in a manifest file (one JSON object per line: ``source`` image path, ``usage``, and
    ``annotation`` [{"name": class}, ...]). Columns image (raw bytes unless `decode`) and label (uint32 (k,):
    the index of each annotated class).

    Args:
        dataset_file (str): the manifest.
        usage (str, optional): ``'train'``, ``'eval'`` or ``'inference'``: the lines to read. Default: ``'train'``.
        class_indexing (dict, optional): class name -> label. Default: sorted class names -> 0, 1, ...
        decode (bool, optional): decode the images. Default: ``False``.
    """

    _signature = ("dataset_file, usage='train', num_samples=None, num_parallel_workers=None, shuffle=None, "
                  "sampler=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None")
    _choices = {"usage": ("train", "eval", "inference")}

    def _scan(self):
        path = self.dataset_file
        entries = []
        what = "a manifest entry with 'source' and 'annotation' names"
        for line_no, obj in json_lines(path, what):
            try:
                source = obj["source"]
                names = [a["name"] for a in obj.get("annotation", [])]
            except (KeyError, TypeError, AttributeError) as e:
                raise RuntimeError(f"Invalid file, {path} line {line_no}: not {what} ({e!r}).") from None
            if str(obj.get("usage", "")).lower() == self.usage:
                entries.append((source, names))
        if self.class_indexing is not None:
            mapping = dict(self.class_indexing)
        else:
            mapping = {n: k for k, n in enumerate(sorted({n for _, names in entries for n in names}))}
        self._mapping = mapping
        records = []
        for source, names in entries:
            unknown = [n for n in names if n not in mapping]
            if unknown:
                raise RuntimeError(f"Invalid file, {path}: the classes {unknown} of {source} are not in "
                                   f"class_indexing.")
            records.append((source, np.asarray([mapping[n] for n in names], np.uint32)))
        return records

    def get_class_indexing(self):
        self._index()
        return dict(self._mapping)

    def _load(self, record):
        return [read_image(record[0], self.decode), record[1].copy()]


# ---------------------------------------------------------------------------- RandomDataset
_RANDOM_TYPES = (mstype.uint8, mstype.int32, mstype.int64, mstype.float32, mstype.float64)


class RandomDataset(IndexedSource, UnionBaseDataset):
    """Rows of random values of the `schema`'s columns (random columns when there is none), the same rows for
    the same `ds.config.set_seed`.

    Args:
        total_rows (int, optional): number of rows. Default: ``None`` (the schema's numRows, else random).
        schema (Union[str, Schema], optional): the columns (type and shape; a column without shape gets a random
            one). Default: ``None``.
        columns_list (list[str], optional): the columns to keep. Default: all.
    """

    _signature = ("total_rows=None, schema=None, columns_list=None, num_samples=None, num_parallel_workers=None, "
                  "cache=None, shuffle=None, num_shards=None, shard_id=None")

    def _check_args(self):
        if self.total_rows is not None and (isinstance(self.total_rows, bool) or not isinstance(self.total_rows, int)
                                            or self.total_rows < 0):
            raise ValueError(f"Input total_rows must be a non-negative int, but got {self.total_rows!r}.")
        self.schema = _schema_of(self.schema)
        seed = _cfg.get_seed()
        rng = np.random.default_rng([seed, 7])
        cols = _schema_columns(self.schema, self.columns_list)
        if not cols:
            cols = [(f"c{i}", _RANDOM_TYPES[rng.integers(len(_RANDOM_TYPES))], None)
                    for i in range(rng.integers(1, 5))]
        self._cols = [(n, t if t is not None else mstype.float32,
                       list(s) if s is not None else [int(v) for v in rng.integers(1, 8, rng.integers(1, 4))])
                      for n, t, s in cols]
        if any(t == mstype.string for _, t, _ in self._cols):
            raise ValueError("RandomDataset: string columns cannot be generated; use numeric or bool types.")
        rows = self.total_rows or (self.schema.num_rows if self.schema is not None else None)
        self._total = int(rows) if rows else int(rng.integers(1, 1025))
        self._seed = seed

    def _col_names(self):
        return [c[0] for c in self._cols]

    def _scan(self):
        return range(self._total)

    def _load(self, i):
        rng = np.random.default_rng([self._seed, 11, i])
        row = []
        for _, t, shape in self._cols:
            np_type = np.dtype(mstype.dtype_to_nptype(t))
            if np_type.kind == "f":
                row.append(rng.random(shape).astype(np_type))
            elif np_type.kind == "b":
                row.append(rng.integers(0, 2, shape).astype(np.bool_))
            else:
                row.append(rng.integers(0, 256 if np_type.itemsize == 1 else 1 << 15, shape).astype(np_type))
        return row
