"""Readers stream: reading a MindRecord file through a pipeline takes memory that does not grow with the file's size,
and damage inside a big file is reported naming the file and the row.

By default the files are 48 MB and 192 MB (a few seconds); MINDSEED_STREAM_GB=1 (or more) makes the big one that
many GB (about a minute per GB on a loaded machine).
"""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIG_MB = int(float(os.environ.get("MINDSEED_STREAM_GB", "0")) * 1024) or 192
ROW = 1 << 20  # bytes of one row's blob

WRITE = r"""
import sys
import numpy as np
from mindseed.mindrecord import FileWriter
path, mb = sys.argv[1], int(sys.argv[2])
w = FileWriter(path, overwrite=True)
w.add_schema({"id": {"type": "int64"}, "blob": {"type": "bytes"}, "vec": {"type": "float32", "shape": [4]}})
rs = np.random.RandomState(0)
chunk = rs.bytes(%d)
for start in range(0, mb, 16):
    w.write_raw_data([{"id": i, "blob": chunk[i %% 97:] + chunk[:i %% 97], "vec": np.full(4, i, np.float32)}
                      for i in range(start, min(mb, start + 16))])
w.commit()
""" % ROW

READ = r"""
import resource, sys
import numpy as np
import mindseed.dataset as ds
d = ds.MindDataset(sys.argv[1], shuffle=True)
d = d.map(lambda b: np.frombuffer(b.tobytes(), np.uint8)[:8].copy(), input_columns="blob").batch(8)
n = 0
for blob, idx, vec in d.create_tuple_iterator(output_numpy=True, num_epochs=1):
    assert (vec[:, 0] == idx).all()
    n += len(idx)
print("ROWS", n, "PEAK_MB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def _run(script, *args):
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=3600,
                          env=dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1"))
    return proc


def _peak(path):
    proc = _run(READ, path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    words = proc.stdout.split()
    return int(words[words.index("ROWS") + 1]), float(words[words.index("PEAK_MB") + 1])


def test_peak_memory_does_not_grow_with_the_file(tmp_path):
    sizes = {}
    for mb in (48, BIG_MB):
        path = str(tmp_path / f"s{mb}.mindrecord")
        proc = _run(WRITE, path, str(mb))
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert os.path.getsize(path) >= mb * ROW
        rows, peak = _peak(path)
        assert rows == mb
        sizes[mb] = peak
        os.remove(path)
        os.remove(path + ".db")
    small, big = sizes[48], sizes[BIG_MB]
    print(f"peak RSS reading 48 MB: {small:.0f} MB, {BIG_MB} MB: {big:.0f} MB")
    # the big file is 4x (or 20x+) the small one; the reader's peak may differ by a few pages, not by the file
    assert big - small < 80, f"peak RSS {small:.0f} MB for 48 MB, {big:.0f} MB for {BIG_MB} MB"


@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_damage_in_a_big_file_names_file_and_row(tmp_path, damage):
    path = str(tmp_path / "dmg.mindrecord")
    proc = _run(WRITE, path, "40")
    assert proc.returncode == 0, proc.stderr[-3000:]
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        if damage == "flip":  # a byte of row 20's blob (the header takes 16 MB, then the rows' pages)
            at = (1 << 24) + 20 * (ROW + 16) + 1000
            f.seek(at)
            b = f.read(1)
            f.seek(at)
            f.write(bytes([b[0] ^ 0xFF]))
        else:
            f.truncate(size // 2)
    import mindseed.dataset as ds
    with pytest.raises(RuntimeError) as e:
        for _ in ds.MindDataset(path, shuffle=False).create_tuple_iterator(output_numpy=True, num_epochs=1):
            pass
    msg = str(e.value)
    assert "dmg.mindrecord" in msg
    if damage == "flip":
        assert "checksum of page" in msg and "reading row" in msg
    else:
        assert "is truncated" in msg
