"""Manual check: real MindSpore 2.10 reads MindRecord files that mindseed wrote.

    .venv/bin/python tests/dataset/oracle_mindrecord_check.py [--oracle /work/oracle/bin/python]

Writes several file sets with mindseed.mindrecord.FileWriter and Dataset.save into a temporary folder, has the
oracle read them with MindDataset and FileReader (as a subprocess), and compares every value. Prints one line
per check and "N passed, M failed"; exits 0 when the oracle is not installed (nothing to check).
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

out = {}
for name, path in json.loads(sys.argv[1]).items():
    d = ds.MindDataset(path, shuffle=False)
    rows = [{k: enc(v) for k, v in r.items()} for r in d.create_dict_iterator(num_epochs=1, output_numpy=True)]
    reader = FileReader(path)
    fr = [{k: enc(v) for k, v in r.items()} for r in reader.get_next()]
    reader.close()
    out[name] = {"columns": d.get_col_names(), "size": d.get_dataset_size(), "rows": rows, "file_reader": fr}
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default="/work/oracle/bin/python")
    args = ap.parse_args()
    if not os.path.exists(args.oracle):
        print(f"oracle {args.oracle} not installed: nothing to check")
        print("0 passed, 0 failed")
        return 0
    passed = failed = 0
    with tempfile.TemporaryDirectory() as folder:
        expected = _write_sets(folder)
        proc = subprocess.run([args.oracle, "-c", READER, json.dumps({k: v[0] for k, v in expected.items()})],
                              capture_output=True, text=True, timeout=600)
        lines = [line for line in proc.stdout.splitlines() if line.startswith("JSON")]
        if proc.returncode != 0 or not lines:
            print("FAIL oracle could not read the files:\n" + proc.stderr[-3000:])
            print("0 passed, 1 failed")
            return 1
        got = json.loads(lines[0][4:])
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
                print(f"{'PASS' if ok else 'FAIL'} {name}: {what}")
                passed += ok
                failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
