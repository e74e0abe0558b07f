"""Manual check: real MindSpore 2.10 reads MindRecord files that mindseed wrote, and the reverse.

    .venv/bin/python tests/dataset/oracle_mindrecord_check.py [--oracle PYTHON]

Writes several file sets with mindseed.mindrecord.FileWriter, Dataset.save and the converters (Cifar10ToMR,
Cifar100ToMR, MnistToMR, CsvToMR, ImageNetToMR, TFRecordToMR), plain and AES-GCM encrypted (set_enc_key), into a
temporary folder, has the oracle read them with MindDataset and FileReader (as a subprocess), and compares every
value. Then the oracle writes encrypted files (FileWriter, set_enc_key) and converts an ImageNet folder
(ImageNetToMR), and mindseed reads them; and MindPage's answers on one file are compared. Prints one line per
check and "N passed, M failed"; exits 0 when the oracle is not installed (nothing to check). `--oracle` defaults
to the first of /work/msvenv/bin/python and /work/oracle/bin/python that exists. (MindSpore's own Cifar/Mnist/Csv
/TFRecord converters need cv2, pandas or tensorflow, so only its ImageNetToMR writes in the reverse direction.)
"""
import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

READER = r"""
import base64, json, sys
import numpy as np
import mindspore.dataset as ds
from mindspore.mindrecord import FileReader

def enc(v):
    if isinstance(v, bytes):
        return {"bytes": base64.b64encode(v).decode()}
    a = np.asarray(v)
    if a.dtype.kind == "S":  # tobytes keeps trailing NULs, which numpy's bytes scalars drop
        return {"bytes": base64.b64encode(a.reshape(-1)[:1].tobytes()).decode()}
    return {"dtype": a.dtype.str, "shape": list(a.shape), "value": a.tolist()}

if len(sys.argv) > 2:
    from mindspore.mindrecord import set_enc_key
    set_enc_key(sys.argv[2])
out = {}
for name, path in json.loads(sys.argv[1]).items():
    d = ds.MindDataset(path, shuffle=False)
    rows = [{k: enc(v) for k, v in r.items()} for r in d.create_dict_iterator(num_epochs=1, output_numpy=True)]
    out[name] = {"columns": d.get_col_names(), "size": d.get_dataset_size(), "rows": rows}
    reader = FileReader(path)  # (closing it removes the decrypted copies the MindDataset above shares)
    out[name]["file_reader"] = [{k: enc(v) for k, v in r.items()} for r in reader.get_next()]
    reader.close()
print("JSON" + json.dumps(out))
"""


def _write_sets(folder):
    import mindseed.dataset as ds
    from mindseed.mindrecord import FileWriter
    expected = {}
    # 1. every field type, one shard
    src = open(os.path.join(ROOT, "tests", "fixtures", "mindrecord", "make_fixtures.py"), encoding="utf-8").read()
    src = src.replace("from mindspore.mindrecord import FileWriter", "from mindseed.mindrecord import FileWriter")
    ns = {"__name__": "fixtures", "__file__": os.path.join(folder, "make_fixtures.py")}
    exec(compile(src, "make_fixtures.py", "exec"), ns)  # noqa: S102  (our own fixture script)
    ns["main"]()
    expected["alltypes"] = (os.path.join(folder, "alltypes.mindrecord"), ns["rows"](6))
    expected["sharded"] = (os.path.join(folder, "sharded.mindrecord0"),
                           [{"id": 100 * k + j, "payload": bytes([j]) * (3000 + j),
                             "vec": np.array([k, j, k * j], np.float32)} for k in range(3) for j in range(8)])
    expected["images"] = (os.path.join(folder, "images.mindrecord"), None)
    # 2. many pages, three shards, compressed integers at every width
    path = os.path.join(folder, "pages.mindrecord")
    w = FileWriter(path, shard_num=3, overwrite=True)
    w.set_page_size(1 << 15)
    w.set_header_size(1 << 15)
    w.add_schema({"k": {"type": "int64"}, "v": {"type": "int64", "shape": [-1]}, "s": {"type": "string"}})
    rs = np.random.RandomState(0)
    rows = [{"k": i, "v": rs.randint(-2 ** 62, 2 ** 62, size=i % 40 + 1).astype(np.int64) // (10 ** (i % 19)),
             "s": "é" * (i % 9)} for i in range(200)]
    w.write_raw_data(rows)
    w.commit()
    expected["pages"] = (path + "0", rows)
    # 3. the tutorial's toy file and a Dataset.save
    path = os.path.join(folder, "toy.mindrecord")
    w = FileWriter(path, shard_num=1, overwrite=True)
    w.add_schema({"uid": {"type": "int64"}, "score": {"type": "float32", "shape": [2]}, "name": {"type": "string"}},
                 "toy schema")
    toy = [{"uid": 100 + i, "score": np.array([i * 0.5, -i], np.float32), "name": f"item{i}"} for i in range(5)]
    w.write_raw_data(toy)
    w.commit()
    expected["toy"] = (path, toy)
    path = os.path.join(folder, "saved.mindrecord")
    data = {"img": np.arange(24, dtype=np.uint8).reshape(2, 3, 4), "label": np.array([3, 4], np.int32)}
    ds.NumpySlicesDataset(data, shuffle=False).save(path)
    expected["saved"] = (path, [{"img": data["img"][i].astype(np.int32), "label": int(data["label"][i])}
                                for i in range(2)])
    return expected


def _decode(v):
    if "bytes" in v:
        return base64.b64decode(v["bytes"])
    return np.asarray(v["value"], dtype=np.dtype(v["dtype"])).reshape(v["shape"])


def _same(a, b):
    if isinstance(b, (bytes, str)):
        return (a == b) or (isinstance(a, np.ndarray) and a.ndim == 0 and str(a) == b)
    return np.array_equal(np.asarray(a), np.asarray(b))


ORACLES = ("/work/msvenv/bin/python", "/work/oracle/bin/python")
KEY = "0123456789abcdef"

# run by the oracle: encrypted files written with FileWriter, an ImageNet folder converted, MindPage answers
WRITER = r"""
import json, os, sys
import numpy as np
from mindspore.mindrecord import FileWriter, ImageNetToMR, MindPage, set_enc_key
spec = json.loads(sys.argv[1])
out = {}
m = MindPage(spec["page_file"])
m.category_field = spec["page_field"]
enc = lambda rows: [{k: (v.hex() if isinstance(v, bytes) else v.tolist() if isinstance(v, np.ndarray) else v)
                     for k, v in r.items()} for r in rows]
out["page"] = {"candidates": m.candidate_fields, "info": m.read_category_info(),
               "by_id": enc(m.read_at_page_by_id(1, 0, 2)), "by_name": enc(m.read_at_page_by_name("0", 0, 2))}
ImageNetToMR(spec["map_file"], spec["image_dir"], spec["imagenet"], 2).transform()
set_enc_key(spec["key"])
w = FileWriter(spec["encrypted"], 1)
w.add_schema({"i": {"type": "int64"}, "s": {"type": "string"}, "b": {"type": "bytes"},
              "a": {"type": "float32", "shape": [-1]}}, "enc")
w.write_raw_data([{"i": k * 7 - 3, "s": "é" * k, "b": bytes([k + 1]) * (k + 2),
                   "a": np.arange(k + 1, dtype=np.float32) / 4} for k in range(9)])
w.commit()
print("JSON" + json.dumps(out))
"""


def _oracle_json(python, script, *argv):
    proc = subprocess.run([python, "-c", script, *argv], capture_output=True, text=True, timeout=900)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("JSON")]
    if proc.returncode != 0 or not lines:
        return None, proc.stderr[-3000:]
    return json.loads(lines[0][4:]), ""


def _rows_of(path):
    from mindseed.mindrecord import FileReader
    r = FileReader(path)
    rows = list(r.get_next())
    r.close()
    return rows


def _cifar_pickle(path, images, labels):
    import pickle
    with open(path, "wb") as f:  # the python version's layout (a protocol-2 pickle of a dict with bytes keys)
        pickle.dump({b"data": images.reshape(len(images), -1), **labels}, f, protocol=2)


def _write_converted(folder):
    """{name: (file, rows read back by mindseed)} of each converter's output."""
    import csv
    import gzip
    import struct

    from PIL import Image

    from mindseed import mindrecord as mr
    from mindseed.dataset._format_sources import frame_record, make_example
    rs = np.random.RandomState(5)
    out = {}
    c10 = os.path.join(folder, "cifar10")
    os.makedirs(c10)
    for b in range(2):
        _cifar_pickle(os.path.join(c10, f"data_batch_{b + 1}"), rs.randint(0, 256, (3, 3, 32, 32), np.uint8),
                      {b"labels": rs.randint(0, 10, 3).tolist()})
    _cifar_pickle(os.path.join(c10, "test_batch"), rs.randint(0, 256, (2, 3, 32, 32), np.uint8),
                  {b"labels": [1, 2]})
    mr.Cifar10ToMR(c10, os.path.join(folder, "c10.mindrecord")).transform(["label"])
    out["cifar10"] = os.path.join(folder, "c10.mindrecord")
    out["cifar10_test"] = os.path.join(folder, "c10.mindrecord_test")
    c100 = os.path.join(folder, "cifar100")
    os.makedirs(c100)
    for split, n in (("train", 3), ("test", 2)):
        _cifar_pickle(os.path.join(c100, split), rs.randint(0, 256, (n, 3, 32, 32), np.uint8),
                      {b"fine_labels": rs.randint(0, 100, n).tolist(), b"coarse_labels": rs.randint(0, 20, n).tolist()})
    mr.Cifar100ToMR(c100, os.path.join(folder, "c100.mindrecord")).transform()
    out["cifar100"] = os.path.join(folder, "c100.mindrecord")
    mn = os.path.join(folder, "mnist")
    os.makedirs(mn)
    for prefix, n in (("train", 5), ("t10k", 3)):
        with gzip.open(os.path.join(mn, f"{prefix}-images-idx3-ubyte.gz"), "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28) + rs.randint(0, 256, (n, 28, 28), np.uint8).tobytes())
        with gzip.open(os.path.join(mn, f"{prefix}-labels-idx1-ubyte.gz"), "wb") as f:
            f.write(struct.pack(">II", 2049, n) + rs.randint(0, 10, n).astype(np.uint8).tobytes())
    mr.MnistToMR(mn, os.path.join(folder, "mn"), 2).transform()
    out["mnist_train"] = os.path.join(folder, "mn_train.mindrecord0")
    with open(os.path.join(folder, "t.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["name", "age", "score", "flag"])
        w.writerows([["a", 3, 1.5, "True"], ["b,c", -4, 2, "False"], ["é", 10, 0.25, "True"]])
    mr.CsvToMR(os.path.join(folder, "t.csv"), os.path.join(folder, "csv.mindrecord")).transform()
    out["csv"] = os.path.join(folder, "csv.mindrecord")
    img_dir = os.path.join(folder, "imagenet")
    for c, wnid in enumerate(("n0001", "n0002")):
        os.makedirs(os.path.join(img_dir, wnid))
        for i in range(2):
            Image.fromarray(rs.randint(0, 256, (20 + i, 30, 3), np.uint8)).save(
                os.path.join(img_dir, wnid, f"{c}_{i}.JPEG"))
    with open(os.path.join(folder, "map.txt"), "w") as f:
        f.write("n0001 0\nn0002 1\n")
    mr.ImageNetToMR(os.path.join(folder, "map.txt"), img_dir, os.path.join(folder, "in.mindrecord")).transform()
    out["imagenet"] = os.path.join(folder, "in.mindrecord")

    class Feature:
        def __init__(self, shape, dtype):
            self.shape, self.dtype = shape, dtype
    with open(os.path.join(folder, "d.tfrecord"), "wb") as f:
        for i in range(4):
            f.write(frame_record(make_example({"img": [bytes([i + 1]) * 5], "label": [i], "v": [i * 0.5, -1.0]})))
    mr.TFRecordToMR(os.path.join(folder, "d.tfrecord"), os.path.join(folder, "tf.mindrecord"),
                    {"img": Feature([], "string"), "label": Feature([], "int64"), "v": Feature([2], "float32")},
                    ["img"]).transform()
    out["tfrecord"] = os.path.join(folder, "tf.mindrecord")
    return {k: (p, _rows_of(p)) for k, p in out.items()}


def _compare(expected, got, count):
    """Print a PASS/FAIL line per check of the oracle's reads `got` against `expected`; add to `count`."""
    for name, (_path, rows) in expected.items():
        res = got[name]
        checks = [("row count", res["size"] == (len(rows) if rows is not None else 4))]
        if rows is not None:
            key = sorted(rows[0])[0]
            ours = sorted(rows, key=lambda r: str(r[key]) if not isinstance(r[key], np.ndarray) else
                          r[key].tobytes())
            for label, table in (("MindDataset", res["rows"]), ("FileReader", res["file_reader"])):
                theirs = [{k: _decode(v) for k, v in r.items()} for r in table]
                theirs.sort(key=lambda r: str(r[key].item() if isinstance(r[key], np.ndarray) and
                                              r[key].ndim == 0 else r[key]) if not isinstance(r[key], np.ndarray)
                            or r[key].ndim == 0 else r[key].tobytes())
                ok = len(theirs) == len(ours)
                for e, g in zip(ours, theirs):
                    for k, v in e.items():
                        gv = g[k]
                        if isinstance(gv, np.ndarray) and gv.ndim == 0:
                            gv = gv.item()
                        if not _same(gv, v):
                            ok = False
                            print(f"    {name} {label} field {k}: oracle read {str(gv)[:60]}, wrote {str(v)[:60]}")
                checks.append((f"{label} values", ok))
        for what, ok in checks:
            _report(count, ok, f"{name}: {what}")


def _report(count, ok, what):
    print(f"{'PASS' if ok else 'FAIL'} {what}")
    count[0 if ok else 1] += 1


def _reverse(python, folder, count):
    """The oracle writes (encrypted FileWriter, ImageNetToMR) and answers MindPage; mindseed reads and compares."""
    from mindseed import mindrecord as mr
    page_file = os.path.join(folder, "alltypes.mindrecord")
    rev = os.path.join(folder, "reverse")
    os.makedirs(rev)
    spec = {"page_file": page_file, "page_field": "i32", "map_file": os.path.join(folder, "map.txt"),
            "image_dir": os.path.join(folder, "imagenet"), "imagenet": os.path.join(rev, "in.mindrecord"),
            "key": KEY, "encrypted": os.path.join(rev, "enc.mindrecord")}
    got, err = _oracle_json(python, WRITER, json.dumps(spec))
    if got is None:
        _report(count, False, "oracle could not write the reverse files:\n" + err)
        return
    m = mr.MindPage(page_file)
    m.category_field = "i32"

    def enc(rows):
        return [{k: (v.hex() if isinstance(v, bytes) else v.tolist() if isinstance(v, np.ndarray) else v)
                 for k, v in r.items()} for r in rows]
    ours = {"candidates": m.candidate_fields, "info": m.read_category_info(),
            "by_id": enc(m.read_at_page_by_id(1, 0, 2)), "by_name": enc(m.read_at_page_by_name("0", 0, 2))}
    for k in ours:
        ok = json.dumps(ours[k], sort_keys=True) == json.dumps(got["page"][k], sort_keys=True)
        if not ok:
            print(f"    MindPage {k}: oracle {str(got['page'][k])[:200]}, mindseed {str(ours[k])[:200]}")
        _report(count, ok, f"MindPage {k} as the oracle's")
    theirs = _rows_of(os.path.join(rev, "in.mindrecord0")) + _rows_of(os.path.join(rev, "in.mindrecord1"))
    mine = _rows_of(os.path.join(folder, "in.mindrecord"))
    key = lambda r: r["file_name"]  # noqa: E731
    ok = len(theirs) == len(mine) and all(a == b for a, b in zip(sorted(theirs, key=key), sorted(mine, key=key)))
    _report(count, ok, "oracle's ImageNetToMR (2 shards) read by mindseed, same rows as mindseed's ImageNetToMR")
    mr.set_enc_key(KEY)
    try:
        rows = _rows_of(os.path.join(rev, "enc.mindrecord"))
    except RuntimeError as e:
        rows = []
        print(f"    {e}")
    finally:
        mr.set_enc_key(None)
    want = [{"i": k * 7 - 3, "s": "é" * k, "b": bytes([k + 1]) * (k + 2), "a": np.arange(k + 1, dtype=np.float32) / 4}
            for k in range(9)]
    ok = len(rows) == 9 and all(r["i"] == w["i"] and r["s"] == w["s"] and r["b"] == w["b"] and
                                np.array_equal(r["a"], w["a"]) for r, w in zip(rows, want))
    _report(count, ok, "oracle's AES-GCM encrypted FileWriter file read by mindseed (set_enc_key)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default=next((p for p in ORACLES if os.path.exists(p)), ORACLES[0]))
    args = ap.parse_args()
    if not os.path.exists(args.oracle):
        print(f"oracle {args.oracle} not installed: nothing to check")
        print("0 passed, 0 failed")
        return 0
    from mindseed import mindrecord as mr
    count = [0, 0]
    with tempfile.TemporaryDirectory() as folder:
        expected = _write_sets(folder)
        expected.update(_write_converted(folder))
        enc_folder = os.path.join(folder, "encrypted")
        os.makedirs(enc_folder)
        mr.set_enc_key(KEY)
        try:
            # MindSpore decrypts only the file it is given, so it cannot read an encrypted set of several shards
            encrypted = {"enc_" + k: v for k, v in _write_sets(enc_folder).items() if not v[0][-1].isdigit()}
        finally:
            mr.set_enc_key(None)
        for sets, key in ((expected, None), (encrypted, KEY)):
            got, err = _oracle_json(args.oracle, READER, json.dumps({k: v[0] for k, v in sets.items()}),
                                    *([key] if key else []))
            if got is None:
                _report(count, False, "oracle could not read the files:\n" + err)
                continue
            _compare(sets, got, count)
        _reverse(args.oracle, folder, count)
    print(f"{count[0]} passed, {count[1]} failed")
    return 0 if count[1] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
