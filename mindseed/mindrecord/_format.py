"""The MindRecord file format (version 3.0), byte-compatible with MindSpore's C++ shard writer/reader.

A shard file is: an 8-byte little-endian header length + the JSON header, padded to `header_size`; then
pages of `page_size` bytes (the last one cut at its used size), page k at header_size + k * page_size.
BLOB_DATA pages hold, per row, an 8-byte LE length and then each blob field (sorted by name) as an
8-byte big-endian length + bytes (a lone blob field has no length of its own); int32/int64 arrays are
compressed (a 4-byte BE count, 2-bit width codes packed MSB first, then each value little-endian in
1/2/4/8 bytes). RAW_DATA pages hold, per row, an 8-byte LE length + a MessagePack map of the scalar fields
(a double is written as float32 when that is exact, as nlohmann::json does). Every blob page is a row group. A
SQLite file `<shard>.db` indexes each row's page ids and offsets (and the index fields).

mindseed adds a table to the index file, `MINDSEED_CRC(REGION, CRC32)`: the crc32 of every page (REGION = page id),
of the header (-1) and of the index rows (-2); the shard file itself stays byte-identical to MindSpore's. A reader
verifies the header and the index on open and each page the first time a row of it is read; files written by
MindSpore have no such table and are read unverified.
"""
import binascii
import json
import os
import shutil
import sqlite3
import struct

import numpy as np

from mindseed.mindrecord import _msgpack
from mindseed.mindrecord import config as _crypt
from mindseed.mindrecord.exceptions import MRMInvalidHeaderSizeError, MRMInvalidPageSizeError

VERSION = "3.0"
MIN_HEADER_SIZE, MAX_HEADER_SIZE = 1 << 14, 1 << 27
MIN_PAGE_SIZE, MAX_PAGE_SIZE = 1 << 15, 1 << 28
DEFAULT_HEADER_SIZE, DEFAULT_PAGE_SIZE = 1 << 24, 1 << 25
SCALAR_TYPES = ("int32", "int64", "float32", "float64", "string", "bytes")
ARRAY_TYPES = ("int32", "int64", "float32", "float64")
_NP = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}
_SQL_TYPE = {"int32": "INTEGER", "int64": "INTEGER", "float32": "REAL", "float64": "REAL", "string": "TEXT"}
_WIDTH = (1, 2, 4, 8)
_HEADER_REGION, _INDEX_REGION = -1, -2
_WIDTH_DT = (np.dtype("<i1"), np.dtype("<i2"), np.dtype("<i4"), np.dtype("<i8"))


def is_blob(spec):
    """Whether a schema field lives in the blob pages (bytes and arrays) rather than the raw pages."""
    return spec["type"] == "bytes" or "shape" in spec


# ---------------------------------------------------------------------------- int compression
def compress_ints(a):
    """Bytes of an int32/int64 array in MindRecord's compressed layout."""
    v = np.asarray(a, dtype=np.int64).reshape(-1)
    n = v.size
    code = np.full(n, 3, dtype=np.uint8)
    code[(v >= -(1 << 31)) & (v < (1 << 31))] = 2
    code[(v >= -(1 << 15)) & (v < (1 << 15))] = 1
    code[(v >= -(1 << 7)) & (v < (1 << 7))] = 0
    packed = np.zeros(-(-n // 4) * 4, dtype=np.uint8)
    packed[:n] = code
    packed = packed.reshape(-1, 4)
    head = (packed[:, 0] << 6) | (packed[:, 1] << 4) | (packed[:, 2] << 2) | packed[:, 3]
    parts = [struct.pack(">I", n), head.astype(np.uint8).tobytes()]
    if n:
        # runs of equal width are written with one numpy cast each
        change = np.flatnonzero(np.diff(code)) + 1
        starts = np.concatenate([[0], change])
        ends = np.concatenate([change, [n]])
        for s, e in zip(starts, ends):
            parts.append(v[s:e].astype(_WIDTH_DT[code[s]]).tobytes())
    return b"".join(parts)


def decompress_ints(buf, dtype, where):
    """The inverse of `compress_ints`."""
    if len(buf) < 4:
        raise RuntimeError(f"Invalid data, {where}: a compressed integer field is shorter than its 4-byte count.")
    n = struct.unpack_from(">I", buf, 0)[0]
    nh = -(-n // 4)
    head = np.frombuffer(buf, dtype=np.uint8, count=nh, offset=4)
    codes = np.stack([(head >> 6) & 3, (head >> 4) & 3, (head >> 2) & 3, head & 3], axis=1).reshape(-1)[:n]
    widths = np.asarray(_WIDTH, dtype=np.int64)[codes]
    if 4 + nh + int(widths.sum()) != len(buf):
        raise RuntimeError(f"Invalid data, {where}: a compressed integer field has {len(buf)} bytes, but its codes "
                           f"announce {4 + nh + int(widths.sum())}.")
    out = np.empty(n, dtype=np.int64)
    off = 4 + nh
    if n:
        change = np.flatnonzero(np.diff(codes)) + 1
        starts = np.concatenate([[0], change])
        ends = np.concatenate([change, [n]])
        for s, e in zip(starts, ends):
            dt = _WIDTH_DT[codes[s]]
            out[s:e] = np.frombuffer(buf, dtype=dt, count=e - s, offset=off)
            off += (e - s) * dt.itemsize
    return out.astype(dtype)


# ---------------------------------------------------------------------------- header
def read_header(path):
    """The parsed JSON header of a shard file (RuntimeError naming the file if it is not one)."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            head = f.read(8)
            if len(head) < 8:
                raise RuntimeError(f"Invalid file, {path} is not a MindRecord file: it has only {len(head)} bytes.")
            n = struct.unpack("<Q", head)[0]
            if n == 0 or n + 8 > size or n > MAX_HEADER_SIZE:
                raise RuntimeError(f"Invalid file, {path} is not a MindRecord file or its header is truncated (header "
                                   f"length {n}, file size {size}).")
            text = f.read(n)
    except OSError as e:
        raise RuntimeError(f"Invalid file, failed to open MindRecord file {path}: {e.strerror}.") from None
    try:
        header = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise RuntimeError(f"Invalid file, {path} is not a MindRecord file: its header is not valid JSON.") from None
    for key in ("header_size", "page_size", "page", "schema", "shard_addresses"):
        if key not in header:
            raise RuntimeError(f"Invalid file, {path} is not a MindRecord file: its header has no '{key}'.")
    if str(header.get("version")) != VERSION:
        raise RuntimeError(f"Invalid file, {path} has MindRecord version {header.get('version')}, "
                           f"expected {VERSION}.")
    return header


def shard_paths(path):
    """All shard files of the set `path` belongs to (the header's shard_addresses, next to `path`)."""
    header = read_header(path)
    folder = os.path.dirname(os.path.abspath(path))
    return [os.path.join(folder, os.path.basename(a)) for a in header["shard_addresses"]]


# ---------------------------------------------------------------------------- reader
class ShardSetReader:
    """Random access to the rows of one or more shard files (same schema)."""

    def __init__(self, paths, expand=False, _opened=None):
        """`paths`: shard files (or, with `expand`, one file whose header lists its whole shard set). Encrypted
        files are decrypted first (see `config`); `source_paths` are the files named by the caller."""
        if _opened is not None:
            self.source_paths, self.paths, self._decrypted = _opened
        else:
            self._open_sources(list(paths), expand)
        self.headers = [read_header(p) for p in self.paths]
        first = self.headers[0]["schema"][0]
        self.schema = first["schema"]
        self.desc = first.get("desc", "")
        self.blob_fields = list(first["blob_fields"])
        for p, h in zip(self.paths, self.headers):
            if h["schema"][0]["schema"] != self.schema:
                raise RuntimeError(f"Invalid file, {p} has a different schema from {self.paths[0]}.")
        self.raw_fields = sorted(k for k in self.schema if k not in self.blob_fields)
        self.fds = [os.open(p, os.O_RDONLY) for p in self.paths]
        self.crcs = []           # per shard: {region: crc32} (None: a file without checksums)
        self.sizes = [os.fstat(fd).st_size for fd in self.fds]
        table = [self._index(i) for i in range(len(self.paths))]
        self.rows = np.concatenate(table) if table else np.zeros((0, 7), np.int64)
        self._checked = set()    # (shard, page id) of the pages whose checksum matched

    def _open_sources(self, paths, expand):
        self._decrypted = None
        opened, folder = _crypt.decrypted_copies(paths[:1] if expand else paths)
        if folder is not None:
            self._decrypted = _Folder(folder)
        if expand:
            base = os.path.dirname(os.path.abspath(paths[0]))
            names = [os.path.basename(a) for a in read_header(opened[0])["shard_addresses"]]
            sources = [os.path.join(base, n) for n in names]
            for p in sources:
                if not os.path.isfile(p):
                    raise RuntimeError(f"Invalid file, MindRecord shard file {p} (listed in the header of "
                                       f"{paths[0]}) does not exist.")
            if folder is not None:
                rest = [p for p in sources if os.path.basename(p) != os.path.basename(paths[0])]
                _crypt.decrypted_copies(rest, folder)
                opened = [os.path.join(folder, n) for n in names]
            else:
                opened = sources
            paths = sources
        self.source_paths, self.paths = paths, opened

    def reopen(self):
        """Another reader of the same (already decrypted) files."""
        return ShardSetReader(None, _opened=(self.source_paths, self.paths, self._decrypted))

    def _index(self, k):
        path, h = self.paths[k], self.headers[k]
        db = path + ".db"
        if not os.path.isfile(db):
            raise RuntimeError(f"Invalid file, the index file {db} of MindRecord file {path} does not exist.")
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            try:
                rec = con.execute("SELECT PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END, PAGE_ID_BLOB, "
                                  "PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END FROM INDEXES ORDER BY ROW_ID").fetchall()
            finally:
                con.close()
            crcs = _checksums(db)
        except sqlite3.Error as e:
            raise RuntimeError(f"Invalid file, the index file {db} of MindRecord file {path} is corrupt: "
                               f"{e}.") from None
        a = np.asarray(rec, dtype=np.int64).reshape(-1, 6)
        self.crcs.append(crcs)
        if crcs is not None:
            n = struct.unpack("<Q", os.pread(self.fds[k], 8, 0))[0]
            head = os.pread(self.fds[k], 8 + n, 0)
            if crcs.get(_HEADER_REGION) != binascii.crc32(head) or crcs.get(_INDEX_REGION) != _index_crc(a):
                raise RuntimeError(f"Invalid file, the checksum of MindRecord file {path} or of its index file {db} "
                                   f"does not match: the file is damaged.")
        hs, ps = int(h["header_size"]), int(h["page_size"])
        out = np.empty((len(a), 7), dtype=np.int64)
        out[:, 5] = a[:, 0]
        out[:, 6] = a[:, 3]
        out[:, 0] = k
        out[:, 1] = hs + a[:, 0] * ps + a[:, 1]
        out[:, 2] = hs + a[:, 0] * ps + a[:, 2]
        out[:, 3] = hs + a[:, 3] * ps + a[:, 4]
        out[:, 4] = hs + a[:, 3] * ps + a[:, 5]
        if len(out) and max(out[:, 2].max(), out[:, 4].max()) > self.sizes[k]:
            raise RuntimeError(f"Invalid file, MindRecord file {path} is truncated: its index points at byte "
                               f"{int(max(out[:, 2].max(), out[:, 4].max()))} but the file has {self.sizes[k]}.")
        return out

    def __len__(self):
        return len(self.rows)

    def close(self, _close=os.close):     # bound now: at interpreter exit `os` may be gone before __del__ runs
        for fd in getattr(self, "fds", ()):
            try:
                _close(fd)
            except OSError:
                pass
        self.fds = []

    def __del__(self):
        self.close()

    def read(self, i):
        """Row `i` as {field: python/numpy value} (raw fields decoded, blob fields as bytes or arrays)."""
        k, r0, r1, b0, b1, raw_page, blob_page = (int(x) for x in self.rows[i])
        fd, path = self.fds[k], self.paths[k]
        if self.crcs[k] is not None:
            self._check_page(k, raw_page, i)
            self._check_page(k, blob_page, i)
        out = {}
        raw = os.pread(fd, r1 - r0, r0)
        if len(raw) != r1 - r0 or len(raw) < 8:
            raise RuntimeError(f"Invalid file, MindRecord file {path} is truncated at row {i}.")
        try:
            fields = _msgpack.unpackb(raw[8:8 + struct.unpack_from("<Q", raw, 0)[0]])
        except (ValueError, IndexError, struct.error):
            raise RuntimeError(f"Invalid file, MindRecord file {path} has a corrupt raw page at row {i}.") from None
        for name in self.raw_fields:
            out[name] = fields.get(name)
        if self.blob_fields:
            blob = os.pread(fd, b1 - b0, b0)
            if len(blob) != b1 - b0:
                raise RuntimeError(f"Invalid file, MindRecord file {path} is truncated at row {i}.")
            if len(self.blob_fields) == 1:
                # a single blob field is stored without its own length prefix
                name = self.blob_fields[0]
                out[name] = self._blob_value(name, blob[8:], f"{path} row {i} field '{name}'")
                return out
            off = 8
            for name in self.blob_fields:
                if off + 8 > len(blob):
                    raise RuntimeError(f"Invalid file, MindRecord file {path} has a corrupt blob page at row {i}.")
                n = struct.unpack_from(">Q", blob, off)[0]
                off += 8
                if off + n > len(blob):
                    raise RuntimeError(f"Invalid file, MindRecord file {path} has a corrupt blob page at row {i}.")
                data = blob[off:off + n]
                off += n
                out[name] = self._blob_value(name, data, f"{path} row {i} field '{name}'")
        return out

    def _check_page(self, k, pid, row):
        if (k, pid) in self._checked:
            return
        h = self.headers[k]
        sizes = {int(p["page_id"]): int(p["page_size"]) for p in h["page"]}
        data = os.pread(self.fds[k], sizes.get(pid, 0), int(h["header_size"]) + pid * int(h["page_size"]))
        if pid not in sizes or self.crcs[k].get(pid) != binascii.crc32(data):
            raise RuntimeError(f"Invalid file, the checksum of page {pid} of MindRecord file {self.paths[k]} does not "
                               f"match (reading row {row}): the file is damaged.")
        self._checked.add((k, pid))

    def _blob_value(self, name, data, where):
        spec = self.schema[name]
        if spec["type"] == "bytes":
            return data
        shape = spec["shape"]
        if spec["type"] in ("int32", "int64"):
            arr = decompress_ints(data, _NP[spec["type"]], where)
        else:
            arr = np.frombuffer(data, dtype=np.dtype(_NP[spec["type"]]).newbyteorder("<")).astype(_NP[spec["type"]])
        try:
            return arr.reshape(shape)
        except ValueError:
            raise RuntimeError(f"Invalid data, {where}: {arr.size} values do not fit the schema shape "
                               f"{shape}.") from None


class _Folder:
    """A private folder of decrypted copies, removed when the last reader using it is gone."""

    def __init__(self, path):
        self.path = path

    def __del__(self):
        shutil.rmtree(self.path, ignore_errors=True)


def _checksums(db):
    """{region: crc32} of a shard's index file written by mindseed; None when it has none (written by MindSpore)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        if not con.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='MINDSEED_CRC'").fetchall():
            return None
        return dict(con.execute("SELECT REGION, CRC32 FROM MINDSEED_CRC").fetchall())
    finally:
        con.close()


def _index_crc(rows):
    """crc32 of the index rows (page ids and offsets, int64 little-endian)."""
    return binascii.crc32(np.ascontiguousarray(rows, dtype="<i8").tobytes())


def reader_row(schema, row):
    """A row as MindSpore's FileReader and MindPage return it: a float field holding a whole number comes back as
    an int (its C++ side passes the row through JSON)."""
    for k, v in row.items():
        if isinstance(v, float) and v.is_integer() and "shape" not in schema[k]:
            row[k] = int(v)
    return row


def column_array(spec, value):
    """A field value as MindDataset outputs it (numpy, dtype from the schema)."""
    t = spec["type"]
    if t == "bytes":
        return np.array([bytes(value)])
    if "shape" in spec:
        return np.asarray(value, dtype=_NP[t])
    if t == "string":
        return np.array(value if isinstance(value, str) else str(value))
    return np.array(value, dtype=_NP[t])


# ---------------------------------------------------------------------------- writer
class ShardFileWriter:
    """Streams rows of one shard into pages and writes its header and index at commit."""

    def __init__(self, path, shard_id, header_size, page_size):
        self.path, self.shard_id = path, shard_id
        self.header_size, self.page_size = header_size, page_size
        self.f = open(path, "wb")
        self.pages = []          # page dicts in page_id order
        self.page_data = {}      # page_id -> bytearray still being filled
        self.blob_page = self.raw_page = None
        self.index = []          # per row: (raw page, raw off, raw end, group, blob page, blob off, blob end, keys)
        self.crcs = {}           # region -> crc32 (see the module docstring)
        self.compression = 0

    def _new_page(self, kind):
        pid = len(self.pages)
        type_id = sum(1 for p in self.pages if p["page_type"] == kind)
        page = {"end_row_id": 0, "page_id": pid, "page_size": 0, "page_type": kind, "page_type_id": type_id,
                "row_group_ids": [], "shard_id": self.shard_id, "start_row_id": 0}
        self.pages.append(page)
        self.page_data[pid] = bytearray()
        return page

    def _flush_page(self, page):
        data = self.page_data.pop(page["page_id"])
        self.f.seek(self.header_size + page["page_id"] * self.page_size)
        self.f.write(data)
        page["page_size"] = len(data)
        self.crcs[page["page_id"]] = binascii.crc32(data)

    def add(self, raw_bytes, blob_bytes, keys):
        row = len(self.index)
        raw_rec = struct.pack("<Q", len(raw_bytes)) + raw_bytes
        blob_rec = struct.pack("<Q", len(blob_bytes)) + blob_bytes
        if len(raw_rec) > self.page_size or len(blob_rec) > self.page_size:
            raise RuntimeError(f"A row of {max(len(raw_rec), len(blob_rec))} bytes does not fit in a page of "
                               f"{self.page_size} bytes; call set_page_size with a larger size.")
        if self.blob_page is None or len(self.page_data[self.blob_page["page_id"]]) + len(blob_rec) > self.page_size:
            if self.blob_page is not None:
                self._flush_page(self.blob_page)
            self.blob_page = self._new_page("BLOB_DATA")
            self.blob_page["start_row_id"] = row
            self.blob_page["row_group_ids"] = [{"id": 0, "offset": 0}]
            new_group = True
        else:
            new_group = False
        if self.raw_page is None or len(self.page_data[self.raw_page["page_id"]]) + len(raw_rec) > self.page_size:
            if self.raw_page is not None:
                self._flush_page(self.raw_page)
            self.raw_page = self._new_page("RAW_DATA")
            new_group = True
        group = self.blob_page["page_type_id"]
        raw_data = self.page_data[self.raw_page["page_id"]]
        if new_group:
            self.raw_page["row_group_ids"].append({"id": group, "offset": len(raw_data)})
        blob_data = self.page_data[self.blob_page["page_id"]]
        r0, b0 = len(raw_data), len(blob_data)
        raw_data += raw_rec
        blob_data += blob_rec
        self.blob_page["end_row_id"] = row + 1
        self.index.append((self.raw_page["page_id"], r0, len(raw_data), group, self.blob_page["page_id"], b0,
                           len(blob_data), keys))

    def commit(self, header_common, index_fields, schema):
        if self.blob_page is None:  # MindSpore writes an empty blob and raw page even without rows
            self.blob_page = self._new_page("BLOB_DATA")
            self.blob_page["row_group_ids"] = [{"id": 0, "offset": 0}]
            self.raw_page = self._new_page("RAW_DATA")
            self.raw_page["row_group_ids"] = [{"id": 0, "offset": 0}]
        last = self.pages[-1]
        for page in self.pages:
            if page is not last and page["page_id"] in self.page_data:
                self._flush_page(page)
        end = self.header_size + last["page_id"] * self.page_size
        self._flush_page(last)
        header = {"header_size": self.header_size,
                  "index_fields": [{"index_field": f, "schema_id": 0} for f in index_fields] or None,
                  "page": self.pages, "page_size": self.page_size}
        header.update(header_common)
        header["shard_id"] = self.shard_id
        header["statistics"] = None
        header["version"] = VERSION
        text = json.dumps(header, separators=(",", ":")).encode("utf-8")
        if len(text) + 8 > self.header_size:
            self.f.close()
            raise RuntimeError(f"The MindRecord header of {self.path} needs {len(text) + 8} bytes, more than the "
                               f"header size {self.header_size}; call set_header_size with a larger size.")
        self.f.seek(0)
        self.f.write(struct.pack("<Q", len(text)) + text)
        self.crcs[_HEADER_REGION] = binascii.crc32(struct.pack("<Q", len(text)) + text)
        self.f.write(b"\0" * (self.header_size - 8 - len(text)))
        self.f.truncate(end + last["page_size"])
        self.f.close()
        self._write_db(index_fields, schema)

    def _write_db(self, index_fields, schema):
        db = self.path + ".db"
        if os.path.exists(db):
            os.remove(db)
        cols = ("  ROW_ID               INT  NOT NULL, PAGE_ID_RAW          INT  NOT NULL, PAGE_OFFSET_RAW      INT  "
                "NOT NULL, PAGE_OFFSET_RAW_END  INT  NOT NULL, ROW_GROUP_ID         INT  NOT NULL, PAGE_ID_BLOB   "
                "      INT  NOT NULL, PAGE_OFFSET_BLOB     INT  NOT NULL, PAGE_OFFSET_BLOB_END INT  NOT NULL")
        extra = "".join(f",INC_{k} INT, {f}_0 {_SQL_TYPE[schema[f]['type']]}" for k, f in enumerate(index_fields))
        key = ",".join(["ROW_ID"] + [f"INC_{k}" for k in range(len(index_fields))])
        con = sqlite3.connect(db)
        try:
            con.execute(f"CREATE TABLE INDEXES({cols}{extra}, PRIMARY KEY({key}))")
            con.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL)")
            marks = ",".join("?" * (8 + 2 * len(index_fields)))
            con.executemany(f"INSERT INTO INDEXES VALUES ({marks})",
                            [(i, rp, r0, r1, g, bp, b0, b1) + tuple(x for v in keys for x in (0, v))
                             for i, (rp, r0, r1, g, bp, b0, b1, keys) in enumerate(self.index)])
            con.execute("INSERT INTO SHARD_NAME VALUES (?)", (os.path.basename(self.path),))
            self.crcs[_INDEX_REGION] = _index_crc([(rp, r0, r1, bp, b0, b1) for rp, r0, r1, _, bp, b0, b1, _ in
                                                   self.index])
            con.execute("CREATE TABLE MINDSEED_CRC(REGION INT PRIMARY KEY NOT NULL, CRC32 INT NOT NULL)")
            con.executemany("INSERT INTO MINDSEED_CRC VALUES (?, ?)", sorted(self.crcs.items()))
            con.commit()
        finally:
            con.close()


def check_header_size(size):
    if isinstance(size, bool) or not isinstance(size, int) or not MIN_HEADER_SIZE <= size <= MAX_HEADER_SIZE:
        raise MRMInvalidHeaderSizeError(f"header_size {size} should be an int in [{MIN_HEADER_SIZE}, "
                                        f"{MAX_HEADER_SIZE}].")


def check_page_size(size):
    if isinstance(size, bool) or not isinstance(size, int) or not MIN_PAGE_SIZE <= size <= MAX_PAGE_SIZE:
        raise MRMInvalidPageSizeError(f"page_size {size} should be an int in [{MIN_PAGE_SIZE}, {MAX_PAGE_SIZE}].")
