"""Values in MindIR protos: tensors (TensorProto) and constants/attributes (AttributeProto), both ways.

Decoding checks what it reads (sizes against shapes, known types) and raises `MindIRError` naming where the
value sits; nothing read is ever evaluated as code.
"""
import os

import numpy as np

from mindseed._utils._files import atomic_write
from mindseed.export import _schema as S

# TensorProto.DataType <-> numpy
_NP_OF = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32, 7: np.int64, 9: np.bool_,
          10: np.float16, 11: np.float64, 12: np.uint32, 13: np.uint64, 17: np.float64}
_CODE_OF = {np.dtype(v): k for k, v in _NP_OF.items() if k != 17}
_T = S.ATTR_TYPES
_INTS = {_T["INT8"], _T["INT16"], _T["INT32"], _T["INT64"], _T["UINT8"], _T["UINT16"], _T["UINT32"], _T["UINT64"]}


class MindIRError(ValueError):
    """A MindIR file that cannot be loaded: names the file and the node or value."""


class Monad:
    """MindSpore's state token (UMonad/IOMonad): orders side effects, carries no data."""

    def __repr__(self):
        return "Monad"


MONAD = Monad()


def data_type_of(np_dtype):
    code = _CODE_OF.get(np.dtype(np_dtype))
    if code is None:
        raise MindIRError(f"MindIR has no tensor type for numpy dtype {np.dtype(np_dtype)}.")
    return code


def np_dtype_of(code, where):
    dt = _NP_OF.get(code)
    if dt is None:
        raise MindIRError(f"{where}: unsupported tensor data_type {code}.")
    return dt


def tensor_proto(proto, array, name=None):
    """Fill a TensorProto with a numpy array (little-endian raw bytes)."""
    array = np.asarray(array, order="C")     # ascontiguousarray would make a 0-d array 1-d
    proto.dims.extend(int(d) for d in array.shape)
    proto.data_type = data_type_of(array.dtype)
    if name is not None:
        proto.name = name
    proto.raw_data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
    return proto


def shape_proto(proto, shape, np_dtype):
    """A TensorProto holding only a shape and dtype (a node's abstract value)."""
    proto.dims.extend(-1 if d is None else int(d) for d in shape)
    proto.data_type = data_type_of(np_dtype)
    return proto


def tensor_from_proto(proto, where, folder=None):
    """The numpy array of a TensorProto; its raw bytes must match its shape exactly. Data stored outside the file
    (`external_data`, a weight of a model saved in parts) is read from under `folder` (the model's directory)."""
    dt = np.dtype(np_dtype_of(proto.data_type, where)).newbyteorder("<")
    dims = tuple(proto.dims)
    if any(d < 0 for d in dims):
        raise MindIRError(f"{where}: a constant tensor has an unknown dimension in its shape {list(dims)}.")
    n = int(np.prod(dims, dtype=np.int64))
    if proto.HasField("external_data"):
        if folder is None:
            raise MindIRError(f"{where}: the tensor's data is stored in an external file "
                              f"({proto.external_data.location!r}), which only a model's weights may be.")
        data = read_external(proto.external_data, folder, n * dt.itemsize, where)
        return np.frombuffer(data, dtype=dt).astype(dt.newbyteorder("="), copy=True).reshape(dims)
    if proto.raw_data or n == 0:
        if len(proto.raw_data) != n * dt.itemsize:
            raise MindIRError(f"{where}: tensor data has {len(proto.raw_data)} bytes, but shape {list(dims)} of "
                              f"{dt.name} needs {n * dt.itemsize} (truncated or corrupt file).")
        return np.frombuffer(proto.raw_data, dtype=dt).astype(dt.newbyteorder("="), copy=True).reshape(dims)
    for field in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
        values = getattr(proto, field)
        if len(values):
            if len(values) != n:
                raise MindIRError(f"{where}: tensor has {len(values)} values, but shape {list(dims)} needs {n}.")
            return np.asarray(values).astype(dt.newbyteorder("=")).reshape(dims)
    raise MindIRError(f"{where}: tensor of shape {list(dims)} has no data.")


EXTERNAL_HEADER = 64     # a weights file starts with 64 bytes: byte 0 is 1 when the data is little-endian


def read_external(ext, folder, nbytes, where):
    """The `nbytes` bytes an ExternalDataProto points at: a file under `folder` (no absolute path, no way out of
    the folder), past its header, within its size, little-endian."""
    location = ext.location
    path = os.path.realpath(os.path.join(folder, location))
    root = os.path.realpath(folder)
    if not location or os.path.isabs(location) or os.path.commonpath([root, path]) != root:
        raise MindIRError(f"{where}: the external data location {location!r} is not a file under the model's "
                          f"directory '{folder}'.")
    if ext.length != nbytes or ext.offset < EXTERNAL_HEADER:
        raise MindIRError(f"{where}: the external data in '{location}' has offset {ext.offset} and length "
                          f"{ext.length}, but the tensor needs {nbytes} bytes after the {EXTERNAL_HEADER}-byte header.")
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            order = f.read(1)
            f.seek(ext.offset)
            data = f.read(nbytes) if ext.offset + nbytes <= size else b""
    except OSError as e:
        raise MindIRError(f"{where}: the external data file '{location}' cannot be read ({e.strerror}).") from None
    if order != b"\x01":
        raise MindIRError(f"{where}: the external data file '{location}' is not little-endian MindSpore weight data.")
    if len(data) != nbytes:
        raise MindIRError(f"{where}: the external data file '{location}' has {size} bytes, but the tensor's data ends "
                          f"at byte {ext.offset + nbytes} (truncated file).")
    return data


def write_external(path, arrays):
    """Write arrays into one weights file as MindSpore does: the header, then each array's bytes padded to 64;
    returns [(offset, length)]."""
    spans = []

    def chunks():
        yield b"\x01" + bytes(EXTERNAL_HEADER - 1)
        offset = EXTERNAL_HEADER
        for a in arrays:
            data = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<"), copy=False).tobytes()
            yield data + bytes(-len(data) % 64)
            spans.append((offset, len(data)))
            offset += len(data) + (-len(data) % 64)
    atomic_write(path, chunks())
    return spans


# ---------------------------------------------------------------- attribute values
def encode(attr, value):
    """Store a Python value (None, bool, int, float, str, tuple/list of those, numpy array, MONAD) in attr."""
    if value is None:
        attr.type = _T["NONE"]
    elif value is MONAD:
        attr.type = _T["UMONAD"]
    elif isinstance(value, (bool, np.bool_)):
        attr.type, attr.i = _T["BOOL"], int(value)
    elif isinstance(value, (int, np.integer)):
        attr.type, attr.i = _T["INT64"], int(value)
    elif isinstance(value, (float, np.floating)):
        attr.type, attr.f = _T["FLOAT"], float(value)
    elif isinstance(value, str):
        attr.type, attr.s = _T["STRING"], value.encode("utf-8")
    elif isinstance(value, (tuple, list)):
        attr.type = _T["TUPLE"] if isinstance(value, tuple) else _T["LIST"]
        for v in value:
            _encode_element(attr.values.add(), v)
    elif isinstance(value, np.ndarray):
        attr.type = _T["TENSORS"]
        tensor_proto(attr.tensors.add(), value, name="value0")
    else:
        raise MindIRError(f"MindIR cannot store a constant of type {type(value).__name__}: {value!r}.")
    return attr


def _encode_element(attr, v):
    """A tuple element, in MindSpore's layout: numbers in the repeated fields (ints/floats/strings)."""
    if isinstance(v, (bool, np.bool_)):
        attr.type = _T["BOOL"]
        attr.ints.append(int(v))
    elif isinstance(v, (int, np.integer)):
        attr.type = _T["INT64"]
        attr.ints.append(int(v))
    elif isinstance(v, (float, np.floating)):
        attr.type = _T["FLOAT"]
        attr.floats.append(float(v))
    elif isinstance(v, str):
        attr.type = _T["STRING"]
        attr.strings.append(v.encode("utf-8"))
    else:
        encode(attr, v)


def decode(attr, where):
    """The Python value of an AttributeProto (numpy arrays for tensors, MONAD for state tokens)."""
    t = attr.type
    if t == _T["NONE"]:
        return None
    if t in (_T["UMONAD"], _T["IOMONAD"]):
        return MONAD
    if t == _T["BOOL"]:
        return bool(attr.ints[0] if len(attr.ints) else attr.i)
    if t in _INTS:
        return int(attr.ints[0] if len(attr.ints) else attr.i)
    if t in (_T["FLOAT"], _T["FLOAT16"], _T["BFLOAT16"]):
        return float(attr.floats[0] if len(attr.floats) else attr.f)
    if t == _T["DOUBLE"]:
        return float(attr.doubles[0] if len(attr.doubles) else attr.d)
    if t == _T["STRING"]:
        return (attr.strings[0] if len(attr.strings) else attr.s).decode("utf-8", "replace")
    if t in (_T["TUPLE"], _T["LIST"]):
        items = [decode(v, where) for v in attr.values]
        return tuple(items) if t == _T["TUPLE"] else items
    if t == _T["TENSORS"] and len(attr.tensors) == 1:
        return tensor_from_proto(attr.tensors[0], where)
    if t == _T["TENSOR"]:
        return tensor_from_proto(attr.t, where)
    names = {v: k for k, v in _T.items()}
    raise MindIRError(f"{where}: unsupported value of type {names.get(t, t)}.")
