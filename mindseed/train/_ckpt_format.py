"""Checkpoint file formats as bytes: MindSpore's protobuf `.ckpt` and `.safetensors`.

A record is `(name, dims, type_name, payload)`: `type_name` is MindSpore's dtype string ("Float32",
"BFloat16", ... or "str" for a string value) and `payload` the raw little-endian bytes. Nothing here
knows about Tensors, so the parsers can validate a whole file before anything is built from it.

The `.ckpt` layout (mindspore/train/checkpoint.proto, proto2)::

    message Checkpoint { message Value { required string tag = 1;
                                         oneof value { TensorProto tensor = 2; MapTensorProto maptensor = 3; } }
                         repeated Value value = 1; }
    message TensorProto { repeated int64 dims = 1; required string tensor_type = 2;
                          required bytes tensor_content = 3; }
    message MapTensorProto { repeated TensorProto tensor = 1; }

MindSpore writes one `Checkpoint` message per value (and per 512 MB slice of a large value: the slices
repeat the tag and the full dims and are concatenated on load), and with ``crc_check=True`` appends the
footer ``b"crc_num" + crc32(payload).to_bytes(10, "big")``. mindseed writes the same messages, opened
by the `MARKER` field, and always with the footer.
"""
import binascii
import json
import math
import struct

import numpy as np

from mindseed.train import _wire as W

ITEMSIZE = {"Bool": 1, "Int8": 1, "UInt8": 1, "Int16": 2, "UInt16": 2, "Int32": 4, "UInt32": 4, "Int64": 8,
            "UInt64": 8, "Float16": 2, "BFloat16": 2, "Float32": 4, "Float64": 8, "Complex64": 8, "Complex128": 16,
            "Int4": 1}      # qint4x2: a byte per element, holding a packed pair
# a dtype's repr ("mindspore.float32") as the tensor_type: MindSpore's `_exec_save` writes whatever string it is
# given and its `_parse_ckpt_proto` gives it back (mindnlp aliases the dtypes' str to their repr, and its own reader
# expects these names); mindnlp reads its PEFT adapters written so back with `load_checkpoint`, which takes them
_REPR_NAMES = {f"mindspore.{n.lower()}": n for n in ITEMSIZE}


def canonical_type(type_name):
    """MindSpore's dtype name for a tensor_type that is a dtype's name or its repr."""
    return _REPR_NAMES.get(type_name, type_name)


def itemsize(type_name):
    """Bytes per element of a tensor_type (a dtype's name, or its repr), None for an unknown one."""
    return ITEMSIZE.get(type_name) or ITEMSIZE.get(_REPR_NAMES.get(type_name))


# MindSpore slices a value into protobuf messages of at most 512 MB
SLICE_BYTES = 512 * 1024 * 1024
CRC_MARK = b"crc_num"
_FOOTER = len(CRC_MARK) + 10
# mindseed opens every .ckpt with this field (unknown to MindSpore's schema, so its parser skips it): it
# promises a CRC footer, which turns a file cut exactly at a message boundary into a detectable error
MARK_FIELD = 15
MARKER = W.f_bytes(MARK_FIELD, b"mindseed-ckpt:crc32")

# maptensor components carry numpy dtype names
_MAP_NP = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float16": np.float16,
           "float64": np.float64, "bool": np.bool_, "int8": np.int8, "uint8": np.uint8}


class FormatError(ValueError):
    """The file does not hold a well-formed checkpoint."""


# ---------------------------------------------------------------- .ckpt writing
def _tensor_proto(dims, type_name, content):
    body = b"".join(W.f_varint(1, d) for d in dims)
    return body + W.f_bytes(2, type_name) + W.f_bytes(3, content)


def encode_value(name, dims, type_name, payload, slice_bytes=SLICE_BYTES):
    """The bytes of one value: one `Checkpoint` message per slice of at most `slice_bytes`."""
    tag = W.f_bytes(1, name)
    if not payload:
        chunks = [payload]
    else:
        chunks = [payload[i:i + slice_bytes] for i in range(0, len(payload), slice_bytes)]
    return b"".join(W.f_bytes(1, tag + W.f_bytes(2, _tensor_proto(dims, type_name, c))) for c in chunks)


def crc_footer(crc):
    return CRC_MARK + int(crc).to_bytes(10, byteorder="big")


# ---------------------------------------------------------------- .ckpt reading
def split_footer(buf):
    """(payload, stored_crc or None)."""
    if len(buf) >= _FOOTER and buf[-_FOOTER:-10] == CRC_MARK:
        return buf[:-_FOOTER], int.from_bytes(buf[-10:], byteorder="big")
    return buf, None


def _parse_tensor(buf, span):
    dims, type_name, content = [], None, None
    for field, wt, value in W.fields(buf, *span):
        if field == 1 and wt == W.VARINT:
            dims.append(W.as_int64(value))
        elif field == 1 and wt == W.LEN:
            dims.extend(W.as_int64(v) for v in W.packed_varints(buf, value))
        elif field == 2 and wt == W.LEN:
            type_name = _utf8(buf, value, "tensor_type")
        elif field == 3 and wt == W.LEN:
            content = bytes(buf[value[0]:value[1]])
        else:
            raise W.DecodeError(f"unexpected field {field} (wire type {wt}) in TensorProto")
    if type_name is None or content is None:
        raise W.DecodeError("TensorProto without its required 'tensor_type' or 'tensor_content'")
    if any(d < 0 for d in dims):
        raise W.DecodeError(f"negative dimension in {dims}")
    return dims, type_name, content


def _utf8(buf, span, what):
    try:
        return bytes(buf[span[0]:span[1]]).decode("utf-8")
    except UnicodeDecodeError as e:
        raise W.DecodeError(f"'{what}' is not valid UTF-8") from e


def parse_ckpt(buf):
    """Parse the protobuf payload into a list of values: (tag, "tensor", dims, type, payload) or (tag, "map", arrays).

    Consecutive slices of one tag are joined. Raises `wire.DecodeError` or `FormatError` on any defect.
    """
    elements = []
    for field, wt, span in W.fields(buf):
        if field == MARK_FIELD and wt == W.LEN:
            continue
        if field != 1 or wt != W.LEN:
            raise W.DecodeError(f"unexpected field {field} (wire type {wt}) in Checkpoint")
        tag, tensor, maptensor = None, None, None
        for f2, wt2, v2 in W.fields(buf, *span):
            if f2 == 1 and wt2 == W.LEN:
                tag = _utf8(buf, v2, "tag")
            elif f2 == 2 and wt2 == W.LEN:
                tensor = _parse_tensor(buf, v2)
            elif f2 == 3 and wt2 == W.LEN:
                maptensor = _parse_map(buf, v2)
            else:
                raise W.DecodeError(f"unexpected field {f2} (wire type {wt2}) in Checkpoint.Value")
        if tag is None or (tensor is None and maptensor is None):
            raise W.DecodeError("Checkpoint.Value without its required 'tag' or a value")
        elements.append((tag, tensor, maptensor))
    return _join_slices(elements)


def _parse_map(buf, span):
    out = []
    for field, wt, value in W.fields(buf, *span):
        if field != 1 or wt != W.LEN:
            raise W.DecodeError(f"unexpected field {field} (wire type {wt}) in MapTensorProto")
        out.append(_parse_tensor(buf, value))
    return out


def _join_slices(elements):
    values = []
    i, n = 0, len(elements)
    while i < n:
        tag, tensor, maptensor = elements[i]
        if tensor is None:
            j = i + 1
            while j < n and elements[j][0] == tag and elements[j][1] is None:
                j += 1
            values.append(_join_map(elements[i:j]))
            i = j
            continue
        dims, type_name = tensor[0], tensor[1]
        parts = [tensor[2]]
        j = i + 1
        while j < n and elements[j][0] == tag and elements[j][1] is not None:
            parts.append(elements[j][1][2])
            j += 1
        payload = b"".join(parts)
        values.append((tag, "tensor", _check_size(tag, dims, type_name, payload), type_name, payload))
        i = j
    return values


def _join_map(elements):
    """A map parameter: its (keys, values, status) arrays, slices concatenated along the first axis."""
    tag = elements[0][0]
    ncomp = len(elements[0][2])
    arrays = []
    for k in range(ncomp):
        parts = []
        for _, _, maptensor in elements:
            if len(maptensor) != ncomp:
                raise FormatError(f"map parameter '{tag}' has slices with different numbers of components")
            dims, type_name, content = maptensor[k]
            np_type = _MAP_NP.get(type_name)
            if np_type is None:
                raise FormatError(f"map parameter '{tag}' has an unknown component type '{type_name}'")
            if len(content) != math.prod(dims) * np.dtype(np_type).itemsize:
                raise FormatError(f"map parameter '{tag}' component {k} does not match its dims {dims}")
            parts.append(np.frombuffer(content, np_type).reshape(dims))
        arrays.append(np.concatenate(parts) if len(parts) > 1 else parts[0])
    return (tag, "map", arrays)


def _check_size(tag, dims, type_name, payload):
    """The shape of a joined value, after checking the payload holds exactly that many elements."""
    if type_name == "str":
        if len(payload) % 4:
            raise FormatError(f"string value '{tag}' has {len(payload)} bytes, not a multiple of 4 (UTF-32)")
        return ()
    size = itemsize(type_name)
    if size is None:
        raise FormatError(f"value '{tag}' has an unknown tensor_type '{type_name}'")
    if list(dims) == [0] and len(payload) == size:
        dims = []  # MindSpore writes some scalars with dims [0]
    expected = math.prod(dims) * size
    if expected != len(payload):
        raise FormatError(f"value '{tag}' of dtype {type_name} and shape {tuple(dims)} needs {expected} bytes, "
                          f"but the file holds {len(payload)}")
    return tuple(dims)


def decode_str(payload):
    """A string value: MindSpore stores numpy's UTF-32-LE bytes of np.array(str)."""
    if not payload:
        return ""
    try:
        return str(np.frombuffer(payload, f"<U{len(payload) // 4}")[0])
    except (ValueError, UnicodeDecodeError) as e:
        raise FormatError("a string value is not valid UTF-32") from e


def encode_str(text):
    return np.array(text, dtype=f"<U{max(1, len(text))}").tobytes()


def crc32(data, value=0):
    return binascii.crc32(data, value)


# ---------------------------------------------------------------- safetensors
_ST_OF = {"Bool": "BOOL", "Int8": "I8", "UInt8": "U8", "Int16": "I16", "UInt16": "U16", "Int32": "I32",
          "UInt32": "U32", "Int64": "I64", "UInt64": "U64", "Float16": "F16", "BFloat16": "BF16",
          "Float32": "F32", "Float64": "F64", "Complex64": "C64"}
_MS_OF = {v: k for k, v in _ST_OF.items()}


def encode_safetensors(records, metadata=None):
    """Bytes of a .safetensors file holding `records` (name, dims, type_name, payload), in the given order."""
    header, offset = {}, 0
    for name, dims, type_name, payload in records:
        if type_name not in _ST_OF:
            raise FormatError(f"'{name}' of type {type_name} cannot be stored in safetensors")
        header[name] = {"dtype": _ST_OF[type_name], "shape": list(dims),
                        "data_offsets": [offset, offset + len(payload)]}
        offset += len(payload)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the reference writer pads the header to 8 bytes
    return struct.pack("<Q", len(text)) + text + b"".join(r[3] for r in records)


def parse_safetensors(buf):
    """(records, metadata) of a .safetensors file; raises FormatError on any inconsistency."""
    if len(buf) < 8:
        raise FormatError(f"the file has {len(buf)} bytes, fewer than the 8-byte header length")
    (n,) = struct.unpack("<Q", buf[:8])
    if n > len(buf) - 8:
        raise FormatError(f"the header length {n} runs past the end of the file ({len(buf)} bytes)")
    try:
        header = json.loads(bytes(buf[8:8 + n]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise FormatError("the JSON header cannot be parsed") from e
    if not isinstance(header, dict):
        raise FormatError("the JSON header is not an object")
    metadata = header.pop("__metadata__", None)
    data = memoryview(buf)[8 + n:]
    records, end_max = [], 0
    for name, info in header.items():
        try:
            dtype, shape, (start, stop) = info["dtype"], [int(s) for s in info["shape"]], info["data_offsets"]
        except (KeyError, TypeError, ValueError) as e:
            raise FormatError(f"the header entry of '{name}' is malformed") from e
        if dtype not in _MS_OF:
            raise FormatError(f"'{name}' has an unsupported dtype '{dtype}'")
        type_name = _MS_OF[dtype]
        if not 0 <= start <= stop <= len(data):
            raise FormatError(f"'{name}' data offsets [{start}, {stop}] run past the {len(data)} data bytes")
        if any(s < 0 for s in shape) or math.prod(shape) * ITEMSIZE[type_name] != stop - start:
            raise FormatError(f"'{name}' of dtype {dtype} and shape {shape} does not match its {stop - start} bytes")
        end_max = max(end_max, stop)
        records.append((name, tuple(shape), type_name, bytes(data[start:stop])))
    if end_max != len(data):
        raise FormatError(f"the tensors cover {end_max} bytes but the file holds {len(data)} data bytes")
    return records, metadata


# mindseed's whole-file checksum of a safetensors file: crc32 of every byte of the file with the value's ten digits
# read as zeros (so the header -- names, dtypes, shapes, offsets -- is covered as well as the data)
FILE_CRC_KEY = "mindseed_crc32"
_FILE_CRC_BLANK = b"0" * 10


def safetensors_crc_num(records):
    """MindSpore's `crc_num` of safetensors records: crc32 of each name then its bytes, in name order."""
    crc = 0
    for name, _, _, payload in sorted(records, key=lambda r: r[0]):
        crc = crc32(payload, crc32(name.encode("utf-8"), crc))
    return crc


def seal_safetensors(records, metadata):
    """Bytes of a safetensors file carrying MindSpore's `crc_num` and mindseed's whole-file checksum."""
    meta = dict(metadata, crc_num=str(safetensors_crc_num(records)), **{FILE_CRC_KEY: _FILE_CRC_BLANK.decode()})
    buf = bytearray(encode_safetensors(records, meta))
    at = _file_crc_at(buf)
    buf[at:at + 10] = b"%010d" % crc32(bytes(buf))
    return bytes(buf)


def _file_crc_at(buf):
    (n,) = struct.unpack("<Q", buf[:8])
    key = b'"%s":"' % FILE_CRC_KEY.encode()
    at = bytes(buf[8:8 + n]).find(key)
    return -1 if at < 0 else 8 + at + len(key)


def safetensors_checksum_ok(buf, records, metadata):
    """True/False: the file's checksum (mindseed's whole-file one, else MindSpore's crc_num) matches; None: the file
    carries none."""
    metadata = metadata if isinstance(metadata, dict) else {}
    stored = metadata.get(FILE_CRC_KEY)
    if stored is not None:
        at = _file_crc_at(buf)
        if at < 0 or not str(stored).isdigit() or bytes(buf[at:at + 10]) != str(stored).encode():
            return False
        return crc32(bytes(buf[:at]) + _FILE_CRC_BLANK + bytes(buf[at + 10:])) == int(stored)
    if "crc_num" in metadata:
        return str(safetensors_crc_num(records)) == metadata["crc_num"]
    return None
