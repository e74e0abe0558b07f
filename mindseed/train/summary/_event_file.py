"""MindSpore's summary format: its record framing (masked CRC-32C) and its Event/Summary messages.

Each record is framed as MindSpore's event writer (and TensorFlow's TFRecord) frames it: uint64 length,
uint32 masked_crc32c(length bytes), the data, uint32 masked_crc32c(data). The messages follow MindSpore's
summary.proto and anf_ir.proto (package mindspore.irpb), which MindInsight reads:

    Event { required double wall_time = 1; optional int64 step = 2;
            oneof what { string version = 3; GraphProto graph_def = 4; Summary summary = 5; } }
    Summary { repeated Value value = 1; }
    Summary.Value { required string tag = 1;
                    oneof value { float scalar_value = 3; Image image = 4; TensorProto tensor = 8;
                                  Histogram histogram = 9; } }
    Summary.Image { int32 height = 1; int32 width = 2; int32 colorspace = 3; bytes encoded_image = 4; }
    Summary.Histogram { repeated bucket buckets = 1 { double left = 1; double width = 2; int64 count = 3; };
                        int64 nan_count = 2, pos_inf_count = 3, neg_inf_count = 4;
                        double max = 5, min = 6, sum = 7; int64 count = 8; }
    TensorProto { repeated int64 dims = 1; DataType data_type = 2; repeated float float_data = 3 [packed];
                  bytes raw_data = 8; }

The format-neutral parts (histogram buckets, the image canvas as PNG) are shared with the TensorBoard writer.
"""
import io
import struct

import numpy as np

from mindseed.train import _wire as W
from mindseed.train.summary._summary_adapter import _calc_histogram_bins

_POLY = 0x82F63B78  # CRC-32C (Castagnoli), reflected
VERSION = "MindSpore.Event:1"
# anf_ir.proto DataType
_DT = {np.dtype(np.bool_): 1, np.dtype(np.int8): 2, np.dtype(np.int16): 3, np.dtype(np.int32): 4,
       np.dtype(np.int64): 5, np.dtype(np.uint8): 6, np.dtype(np.uint16): 7, np.dtype(np.uint32): 8,
       np.dtype(np.uint64): 9, np.dtype(np.float16): 10, np.dtype(np.float32): 11, np.dtype(np.float64): 12}
DT_STRING = 13


def _make_table():
    table = np.zeros(256, np.uint32)
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        table[i] = c
    return table.tolist()


_TABLE = _make_table()


def crc32c(data):
    """CRC-32C of bytes (table-driven)."""
    crc = 0xFFFFFFFF
    table = _TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def frame(record):
    """One record: length, its masked CRC, the data, its masked CRC."""
    header = struct.pack("<Q", len(record))
    return header + struct.pack("<I", masked_crc32c(header)) + record + struct.pack("<I", masked_crc32c(record))


def record(file, data):
    """Write one framed record to an open binary file."""
    file.write(frame(data))


def read_records(buf):
    """The records of a summary (or TFRecord) file; raises ValueError on a bad CRC or a truncated record."""
    pos, out = 0, []
    while pos < len(buf):
        if pos + 12 > len(buf):
            raise ValueError(f"truncated record header at offset {pos}")
        header = buf[pos:pos + 8]
        (n,) = struct.unpack("<Q", header)
        if struct.unpack("<I", buf[pos + 8:pos + 12])[0] != masked_crc32c(header):
            raise ValueError(f"bad length CRC at offset {pos}")
        start, end = pos + 12, pos + 12 + n
        if end + 4 > len(buf):
            raise ValueError(f"truncated record at offset {pos}")
        data = buf[start:end]
        if struct.unpack("<I", buf[end:end + 4])[0] != masked_crc32c(data):
            raise ValueError(f"bad data CRC at offset {pos}")
        out.append(bytes(data))
        pos = end + 4
    return out


# ---------------------------------------------------------------- format-neutral data
def histogram_of(array):
    """MindSpore's histogram of an array: (stats, edges, counts) over the finite values.

    stats holds count (all values), nan/pos_inf/neg_inf counts, min, max, sum and sum_squares of the finite
    values; the bucket count follows MindSpore's rule (2 for <= 5 values, 3 for <= 10, then one per 10 up to 90).
    """
    a = np.asarray(array, dtype=np.float64).ravel()
    finite = a[np.isfinite(a)]
    stats = {"count": a.size, "nan": int(np.isnan(a).sum()), "pos_inf": int(np.isposinf(a).sum()),
             "neg_inf": int(np.isneginf(a).sum()), "min": 0.0, "max": 0.0, "sum": 0.0, "sum_squares": 0.0}
    if not finite.size:
        return stats, np.zeros(1), np.zeros(0, np.int64)
    lo, hi = float(finite.min()), float(finite.max())
    stats.update(min=lo, max=hi, sum=float(finite.sum()), sum_squares=float(np.dot(finite, finite)))
    first, last = (lo, hi) if lo < hi else (lo - 0.5, hi + 0.5)
    counts, edges = np.histogram(finite, bins=np.linspace(first, last, _calc_histogram_bins(finite.size) + 1))
    return stats, edges, counts




def image_png(nchw):
    """(height, width, 3, PNG bytes) of an (N, C, H, W) array on MindSpore's canvas: up to 8 RGB images a row."""
    from PIL import Image  # noqa: PLC0415 -- Pillow is a dependency of mindseed (image decode)
    a = np.asarray(nchw)
    if a.ndim != 4 or a.shape[1] not in (1, 3) or 0 in a.shape:
        raise ValueError(f"For 'SummaryRecord', an image must be NCHW with 1 or 3 channels, but got shape {a.shape}.")
    if a.shape[1] == 1:  # MindSpore writes grey images as RGB
        a = np.repeat(a, 3, axis=1)
    canvas = _to_uint8(_grid(a))  # as MindSpore: scaled over the whole (float) canvas
    h, w, c = canvas.shape
    img = Image.fromarray(canvas)
    out = io.BytesIO()
    img.save(out, format="PNG")
    return h, w, c, out.getvalue()


def _to_uint8(a):
    """MindSpore's scaling of the (float) canvas: within [0, 1] times 255, otherwise min..max mapped linearly."""
    lo, hi = float(np.min(a)), float(np.max(a))
    a = a.astype(np.float32)
    if lo >= 0 and hi <= 1:
        return (a * 255).astype(np.uint8)
    scale = 255 / (hi - lo + 1) if hi != lo else 1
    return ((a - lo) * scale).astype(np.uint8)


def _grid(nchw, max_cols=8):
    n, c, h, w = nchw.shape
    cols = min(n, max_cols)
    rows = -(-n // cols)
    canvas = np.zeros((c, rows * h, cols * w), np.float64)
    for i in range(n):
        y, x = divmod(i, cols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = nchw[i]
    return canvas.transpose(1, 2, 0)


# ---------------------------------------------------------------- MindSpore messages
def event(wall_time, step=0, version=None, summary_values=None, graph_def=None):
    body = W.f_double(1, wall_time) + W.f_varint(2, step)
    if version is not None:
        body += W.f_bytes(3, version)
    if graph_def is not None:       # a serialized anf_ir GraphProto
        body += W.f_bytes(4, graph_def)
    if summary_values is not None:
        body += W.f_bytes(5, b"".join(W.f_bytes(1, v) for v in summary_values))
    return body


def scalar_value(tag, value):
    return W.f_bytes(1, tag) + W.f_float(3, float(value))


def histogram_value(tag, array):
    stats, edges, counts = histogram_of(array)
    body = b"".join(W.f_bytes(1, W.f_double(1, float(left)) + W.f_double(2, float(right - left))
                              + W.f_varint(3, int(n)))
                    for left, right, n in zip(edges[:-1], edges[1:], counts))
    body += (W.f_varint(2, stats["nan"]) + W.f_varint(3, stats["pos_inf"]) + W.f_varint(4, stats["neg_inf"])
             + W.f_double(5, stats["max"]) + W.f_double(6, stats["min"]) + W.f_double(7, stats["sum"])
             + W.f_varint(8, stats["count"]))
    return W.f_bytes(1, tag) + W.f_bytes(9, body)


def image_value(tag, nchw):
    h, w, c, png = image_png(nchw)
    return W.f_bytes(1, tag) + W.f_bytes(4, W.f_varint(1, h) + W.f_varint(2, w) + W.f_varint(3, c)
                                          + W.f_bytes(4, png))


def tensor_value(tag, array):
    """MindSpore's tensor summary: dims, the array's data type and its values as float_data."""
    a = np.asarray(array)
    if a.dtype not in _DT:
        raise ValueError(f"For 'SummaryRecord', a tensor summary needs a bool, int, uint or float array, but got "
                         f"dtype {a.dtype}.")
    flat = a.astype(np.float32).ravel()
    body = b"".join(W.f_varint(1, d) for d in a.shape) + W.f_varint(2, _DT[a.dtype])
    body += W.f_bytes(3, flat.astype("<f4").tobytes())
    return W.f_bytes(1, tag) + W.f_bytes(8, body)


def float_tensor(array):
    """A TensorProto holding `array` as MindSpore's landscape writer does (fill_array_to_tensor): its dims, its
    numpy dtype's data type and the values as float_data."""
    a = np.asarray(array)
    body = b"".join(W.f_varint(1, d) for d in a.shape) + W.f_varint(2, _DT[a.dtype])
    return body + W.f_bytes(3, a.astype("<f4").ravel().tobytes())


def _point(x, y, z):
    return W.f_bytes(1, float_tensor(x)) + W.f_bytes(2, float_tensor(y)) + W.f_bytes(3, float_tensor(z))


class LossLandscape:
    """summary.proto's LossLandscape: the grid (x, y, z), the training path (intervals, x, y, z), the metadata
    (decomposition, unit, step_per_epoch) and the convergence point, each a TensorProto of float_data."""

    def __init__(self, landscape, metadata, path=None, intervals=(), convergence=None):
        self.landscape, self.metadata, self.path = landscape, metadata, path
        self.intervals, self.convergence = list(intervals), convergence

    def SerializeToString(self):  # noqa: N802 -- the protobuf message method SummaryRecord takes
        body = W.f_bytes(1, _point(*self.landscape))
        if self.path is not None:
            body += W.f_bytes(2, b"".join(W.f_varint(1, int(i)) for i in self.intervals)
                              + W.f_bytes(2, _point(*self.path)))
        decomposition, unit, step_per_epoch = self.metadata
        body += W.f_bytes(3, W.f_bytes(1, decomposition) + W.f_bytes(2, unit) + W.f_varint(3, step_per_epoch))
        if self.convergence is not None:
            body += W.f_bytes(4, _point(*self.convergence))
        return body


def landscape_value(tag, message):
    """A Summary.Value holding a serialized LossLandscape (field 10)."""
    return W.f_bytes(1, tag) + W.f_bytes(10, message)


def text_value(tag, text):
    """A text value (mindseed's; MindSpore has no text summary): a DT_STRING TensorProto, the UTF-8 text in raw_data.

    Its dims are [0], matching its empty float_data, so readers that reshape float_data to dims (MindInsight's
    tensor container) take it as an empty tensor.
    """
    body = W.f_varint(1, 0) + W.f_varint(2, DT_STRING) + W.f_bytes(8, text.encode("utf-8"))
    return W.f_bytes(1, tag) + W.f_bytes(8, body)


# ---------------------------------------------------------------- reading
def _double(b):
    return struct.unpack("<d", b)[0]


def read_events(buf):
    """Decode a MindSpore summary file (CRCs checked) into a list of dicts.

    Each event: {"wall_time", "step", and "version" or "values"}; values map tag -> (kind, value) with kind
    "scalar" (float), "image" (dict height/width/colorspace/png), "tensor" (dict dims/dtype/values/raw) or
    "histogram" (dict buckets [(left, width, count)], nan/pos_inf/neg_inf counts, min, max, sum, count) or
    "landscape" (dict landscape/loss_path/convergence_point {x, y, z}, intervals, metadata).
    """
    events = []
    for rec in read_records(buf):
        ev = {"wall_time": 0.0, "step": 0}
        for field, _, v in W.fields(rec):
            if field == 1:
                ev["wall_time"] = _double(v)
            elif field == 2:
                ev["step"] = W.as_int64(v)
            elif field == 3:
                ev["version"] = rec[v[0]:v[1]].decode()
            elif field == 5:
                ev["values"] = dict(_read_value(rec, span) for f, _, span in W.fields(rec, *v) if f == 1)
        events.append(ev)
    return events


def _read_value(buf, span):
    tag, kind, value = None, None, None
    for field, _, v in W.fields(buf, *span):
        if field == 1:
            tag = buf[v[0]:v[1]].decode()
        elif field == 3:
            kind, value = "scalar", struct.unpack("<f", v)[0]
        elif field == 4:
            kind, value = "image", _read_image(buf, v)
        elif field == 8:
            kind, value = "tensor", _read_tensor(buf, v)
        elif field == 9:
            kind, value = "histogram", _read_histogram(buf, v)
        elif field == 10:
            kind, value = "landscape", _read_landscape(buf, v)
    return tag, (kind, value)


def _read_point(buf, span):
    return {"xyz"[f - 1]: _read_tensor(buf, v)["values"] for f, _, v in W.fields(buf, *span) if f in (1, 2, 3)}


def _read_landscape(buf, span):
    out = {"intervals": []}
    for field, _, v in W.fields(buf, *span):
        if field in (1, 4):
            out["landscape" if field == 1 else "convergence_point"] = _read_point(buf, v)
        elif field == 2:
            for f, _, pv in W.fields(buf, *v):
                if f == 1:
                    out["intervals"].append(W.as_int64(pv))
                elif f == 2:
                    out["loss_path"] = _read_point(buf, pv)
        elif field == 3:
            meta = {f: pv for f, _, pv in W.fields(buf, *v)}
            out["metadata"] = {"decomposition": bytes(buf[meta[1][0]:meta[1][1]]).decode(),
                               "unit": bytes(buf[meta[2][0]:meta[2][1]]).decode(), "step_per_epoch": meta[3]}
    return out


def _read_image(buf, span):
    names = {1: "height", 2: "width", 3: "colorspace"}
    out = {}
    for field, _, v in W.fields(buf, *span):
        if field in names:
            out[names[field]] = v
        elif field == 4:
            out["png"] = bytes(buf[v[0]:v[1]])
    return out


def _read_tensor(buf, span):
    out = {"dims": [], "dtype": 0, "values": np.zeros(0, np.float32), "raw": b""}
    for field, _, v in W.fields(buf, *span):
        if field == 1:
            out["dims"].append(W.as_int64(v))
        elif field == 2:
            out["dtype"] = v
        elif field == 3:
            out["values"] = np.frombuffer(bytes(buf[v[0]:v[1]]), "<f4")
        elif field == 8:
            out["raw"] = bytes(buf[v[0]:v[1]])
    out["values"] = out["values"].reshape(out["dims"])
    return out


def _read_histogram(buf, span):
    ints = {2: "nan", 3: "pos_inf", 4: "neg_inf", 8: "count"}
    doubles = {5: "max", 6: "min", 7: "sum"}
    out = {"buckets": [], "nan": 0, "pos_inf": 0, "neg_inf": 0, "max": 0.0, "min": 0.0, "sum": 0.0, "count": 0}
    for field, _, v in W.fields(buf, *span):
        if field == 1:
            b = {f: val for f, _, val in W.fields(buf, *v)}
            out["buckets"].append((_double(b[1]), _double(b[2]), W.as_int64(b[3])))
        elif field in ints:
            out[ints[field]] = W.as_int64(v)
        elif field in doubles:
            out[doubles[field]] = _double(v)
    return out


def graph_of_model(data):
    """The GraphProto bytes of a serialized anf_ir ModelProto (its field 4), as MindSpore's `package_graph_event`
    takes them; a ValueError when `data` is no such message."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"For 'SummaryRecord', a graph value must be the bytes of a ModelProto, but got "
                        f"{type(data).__name__}.")
    try:
        graphs = [value for field, wt, value in W.fields(bytes(data)) if field == 4 and wt == W.LEN]
    except W.DecodeError as exc:
        raise ValueError(f"For 'SummaryRecord', the graph value is not a serialized ModelProto: {exc}") from None
    return bytes(data[graphs[-1][0]:graphs[-1][1]]) if graphs else b""
