"""Files that cannot load wrong: every single-byte flip of a checkpoint written by mindseed is an error or loads the
exact original values; files without a checksum load with one warning and are refused under crc_check=True; a
save killed midway leaves a temporary that the next save removes."""
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

import mindseed as ms
from mindseed.train import _ckpt_format as CF

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _values():
    rs = np.random.RandomState(0)
    return {"w": ms.Parameter(ms.Tensor(rs.standard_normal((2, 3)).astype(np.float32)), name="w"),
            "b": ms.Parameter(ms.Tensor(np.array([1, -2, 3], np.int32)), name="b")}


def _same(loaded, want):
    return sorted(loaded) == sorted(want) and all(
        loaded[k].shape == want[k].shape and loaded[k].dtype == want[k].dtype
        and loaded[k].asnumpy().tobytes() == want[k].asnumpy().tobytes() for k in want)


def _flip_every_byte(tmp_path, src, fmt, xor):
    """(errors, exact loads, wrong loads) over every byte position of `src` flipped by `xor`."""
    raw = open(src, "rb").read()
    want = _values()
    tally = [0, 0, []]
    bad = str(tmp_path / f"flipped.{fmt}")
    for pos in range(len(raw)):
        data = bytearray(raw)
        data[pos] ^= xor
        with open(bad, "wb") as f:
            f.write(data)
        try:
            got = ms.load_checkpoint(bad, format=fmt)
        except ValueError:
            tally[0] += 1
            continue
        if _same(got, want):
            tally[1] += 1
        else:
            tally[2].append(pos)
    return tally


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
@pytest.mark.parametrize("xor", [0x01, 0x80, 0xFF])
def test_every_flipped_byte_is_an_error_or_the_exact_values(tmp_path, fmt, xor):
    src = str(tmp_path / f"good.{fmt}")
    ms.save_checkpoint(_values(), src, format=fmt)
    errors, exact, wrong = _flip_every_byte(tmp_path, src, fmt, xor)
    assert wrong == [], f"{len(wrong)} flipped positions loaded other values: {wrong[:10]}"
    assert errors > 0.9 * os.path.getsize(src)


def test_safetensors_checksum_in_metadata_is_mindspores_crc_num_too(tmp_path):
    path = str(tmp_path / "v.safetensors")
    ms.save_checkpoint(_values(), path, format="safetensors")
    records, meta = CF.parse_safetensors(open(path, "rb").read())
    assert meta["crc_num"] == str(CF.safetensors_crc_num(records))
    assert len(meta[CF.FILE_CRC_KEY]) == 10


def _unchecked_safetensors(path):
    vals = _values()
    records = [(k, v.shape, v.dtype.name, v.asnumpy().tobytes()) for k, v in sorted(vals.items())]
    with open(path, "wb") as f:
        f.write(CF.encode_safetensors(records, {"format": "pt"}))


def _unchecked_ckpt(path):
    ms.save_checkpoint(_values(), path)
    raw = open(path, "rb").read()
    os.chmod(path, 0o600)
    with open(path, "wb") as f:    # MindSpore's file without crc_check: no marker field, no footer
        f.write(raw[len(CF.MARKER):-17])


@pytest.mark.parametrize("fmt,write", [("ckpt", _unchecked_ckpt), ("safetensors", _unchecked_safetensors)])
def test_file_without_checksum_loads_with_one_warning_and_crc_check_refuses_it(tmp_path, caplog, fmt, write):
    path = str(tmp_path / f"plain.{fmt}")
    write(path)
    with caplog.at_level(logging.WARNING, logger="mindseed"):
        assert _same(ms.load_checkpoint(path, format=fmt), _values())
        assert _same(ms.load_checkpoint(path, format=fmt), _values())
    said = [r for r in caplog.records if "crc" in r.getMessage()]
    assert len(said) == 1 and "plain" in said[0].getMessage()
    with pytest.raises(ValueError, match="carries no crc code"):
        ms.load_checkpoint(path, format=fmt, crc_check=True)


_KILLED_SAVE = """
import os, sys, numpy as np, mindseed as ms
from mindseed.train import serialization as S
def killed(path, chunks):
    fd, tmp = S.tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=os.path.dirname(path))
    os.write(fd, b"partial")
    os.kill(os.getpid(), 9)
S._atomic_write = killed
ms.save_checkpoint({"w": ms.Tensor(np.ones(3, np.float32))}, sys.argv[1])
"""


def test_next_save_removes_the_temporary_of_a_killed_save(tmp_path):
    path = str(tmp_path / "net.ckpt")
    env = dict(os.environ, PYTHONPATH=_ROOT)
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", _KILLED_SAVE, path], env=env)
        assert proc.returncode == -9
    other = tmp_path / "other.ckpt.abcdefgh.tmp"    # another file's temporary is left alone
    other.write_bytes(b"x")
    assert len([n for n in os.listdir(tmp_path) if n.endswith(".tmp")]) == 3
    ms.save_checkpoint(_values(), path)
    assert sorted(os.listdir(tmp_path)) == ["net.ckpt", "other.ckpt.abcdefgh.tmp"]
    assert _same(ms.load_checkpoint(path), _values())


# ---------------------------------------------------------------- MindRecord
def _write_mindrecord(path):
    from mindseed.mindrecord import FileWriter
    w = FileWriter(path, shard_num=1, overwrite=True)
    w.set_header_size(1 << 14)     # the smallest sizes: a file of a few pages to flip byte by byte
    w.set_page_size(1 << 15)
    w.add_schema({"label": {"type": "int32"}, "name": {"type": "string"}, "x": {"type": "float32", "shape": [2]},
                  "ids": {"type": "int64", "shape": [-1]}}, "flips")
    w.write_raw_data([{"label": i, "name": f"r{i}", "x": np.array([i, -i], np.float32),
                       "ids": np.arange(i + 1, dtype=np.int64) * 1000} for i in range(3)])
    w.commit()


def _read_mindrecord(path):
    from mindseed.mindrecord import FileReader
    r = FileReader(path)
    try:
        return [{k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in row.items()} for row in r.get_next()]
    finally:
        r.close()


@pytest.mark.parametrize("which", ["shard", "index"])
def test_every_flipped_byte_of_a_mindrecord_is_an_error_or_the_exact_rows(tmp_path, which):
    from mindseed.mindrecord import _format as F
    src = str(tmp_path / "good.mindrecord")
    _write_mindrecord(src)
    want = _read_mindrecord(src)
    target = src if which == "shard" else src + ".db"
    raw = open(target, "rb").read()
    if which == "shard":
        n = int.from_bytes(raw[:8], "little")
        h = F.read_header(src)
        hs, ps = h["header_size"], h["page_size"]
        pages = [range(hs + p["page_id"] * ps, hs + p["page_id"] * ps + p["page_size"]) for p in h["page"]]
        # every byte of the header and of the pages, and a few of the zero padding around them
        positions = list(range(8 + n)) + list(range(8 + n, len(raw), 997)) + [i for r in pages for i in r]
    else:   # every byte SQLite uses, and some of the zeros of its free space
        positions = [p for p in range(len(raw)) if raw[p] or p % 61 == 0]
    wrong = []
    for pos in positions:
        data = bytearray(raw)
        data[pos] ^= 0xFF
        with open(target, "wb") as f:
            f.write(data)
        try:
            got = _read_mindrecord(src)
        except (RuntimeError, ValueError):
            continue
        if got != want:
            wrong.append(pos)
    with open(target, "wb") as f:
        f.write(raw)
    assert wrong == [], f"{len(wrong)} flipped positions read other rows: {wrong[:10]}"


def test_mindrecord_written_by_mindspore_reads_without_checksums():
    from mindseed.mindrecord import _format as F
    fix = os.path.join(_ROOT, "tests", "fixtures", "mindrecord", "alltypes.mindrecord")
    assert F._checksums(fix + ".db") is None
    assert len(_read_mindrecord(fix)) == 6
