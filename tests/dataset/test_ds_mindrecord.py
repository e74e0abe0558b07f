"""MindRecord: files written by real MindSpore 2.10 (tests/fixtures/mindrecord) read by mindseed, files written by
mindseed byte-identical to MindSpore's, round trips, and errors naming the file."""
import os
import shutil
import struct

import numpy as np
import pytest

import mindseed.dataset as ds
from mindseed.dataset import vision
from mindseed.mindrecord import FileReader, FileWriter
from mindseed.mindrecord.exceptions import MRMDefineIndexError, MRMInvalidSchemaError, ParamValueError

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "mindrecord")


def _fixture_module():
    """make_fixtures.py with FileWriter taken from mindseed (its formulas give the expected values)."""
    src = open(os.path.join(FIX, "make_fixtures.py"), encoding="utf-8").read()
    src = src.replace("from mindspore.mindrecord import FileWriter", "from mindseed.mindrecord import FileWriter")
    ns = {"__name__": "fixtures", "__file__": os.path.join(FIX, "make_fixtures.py")}
    exec(compile(src, "make_fixtures.py", "exec"), ns)  # noqa: S102  (our own fixture script)
    return ns


def test_read_all_field_types_written_by_mindspore():
    d = ds.MindDataset(os.path.join(FIX, "alltypes.mindrecord"), shuffle=False)
    assert d.get_col_names() == ["a_f32", "a_f64", "a_i32", "a_i64", "blob", "f32", "f64", "i32", "i64", "name"]
    assert d.get_dataset_size() == 6
    expect = _fixture_module()["rows"](6)
    got = list(d.create_dict_iterator(output_numpy=True))
    dtypes = {k: (v.dtype.str, v.shape) for k, v in got[0].items()}
    # dtypes and shapes as real MindSpore outputs them
    assert dtypes == {"a_f32": ("<f4", (2, 2)), "a_f64": ("<f8", (1,)), "a_i32": ("<i4", (1,)),
                      "a_i64": ("<i8", (4,)), "blob": ("|S5", (1,)), "f32": ("<f4", ()), "f64": ("<f8", ()),
                      "i32": ("<i4", ()), "i64": ("<i8", ()), "name": ("<U7", ())}
    for e, g in zip(expect, got):
        for k in ("a_f32", "a_f64", "a_i32", "a_i64"):
            np.testing.assert_array_equal(g[k], e[k])
        assert g["blob"][0] == e["blob"] and str(g["name"]) == e["name"]
        assert int(g["i32"]) == e["i32"] and int(g["i64"]) == e["i64"]
        assert float(g["f32"]) == np.float32(e["f32"]) and float(g["f64"]) == e["f64"]


def test_read_shards_pages_and_sharding_like_mindspore():
    order = [0, 1, 2, 3, 100, 101, 102, 103, 200, 201, 202, 203, 4, 5, 6, 7, 104, 105, 106, 107, 204, 205, 206, 207]
    d = ds.MindDataset(os.path.join(FIX, "sharded.mindrecord0"), shuffle=False)   # the whole shard set
    assert d.get_dataset_size() == 24
    got = list(d.create_dict_iterator(output_numpy=True))
    assert [int(r["id"]) for r in got] == order
    assert got[5]["payload"][0] == bytes([1]) * 3001 and got[5]["vec"].tolist() == [1.0, 1.0, 1.0]
    one = ds.MindDataset([os.path.join(FIX, "sharded.mindrecord1")], shuffle=False)
    assert [int(r[0]) for r in one.project(["id"]).create_tuple_iterator(output_numpy=True)] == order[12:]
    shards = [[int(r["id"]) for r in ds.MindDataset(os.path.join(FIX, "sharded.mindrecord0"), shuffle=False,
                                                    num_shards=2, shard_id=k).create_dict_iterator(output_numpy=True)]
              for k in range(2)]
    assert shards == [order[0::2], order[1::2]]                                    # as real MindSpore shards
    cols = ds.MindDataset(os.path.join(FIX, "alltypes.mindrecord"), columns_list=["name", "i32"], shuffle=False)
    assert cols.get_col_names() == ["name", "i32"]
    assert [str(r[0]) for r in cols.create_tuple_iterator(output_numpy=True)][:2] == ["row-0-é", "row-1-é"]


def test_decode_pipeline_on_mindspore_images():
    d = ds.MindDataset(os.path.join(FIX, "images.mindrecord"), shuffle=False)
    d = d.map(vision.Decode(), input_columns="image").batch(2)
    out = list(d.create_dict_iterator(output_numpy=True))
    assert out[0]["image"].shape == (2, 8, 10, 3) and out[1]["label"].tolist() == [2, 3]
    assert int(out[1]["image"][1, 0, 0, 0]) == 160 and int(out[1]["image"][0, 0, 0, 2]) == 120


def test_file_reader_on_mindspore_files():
    r = FileReader(os.path.join(FIX, "alltypes.mindrecord"))
    first = next(r.get_next())
    assert list(first)[:5] == ["f32", "f64", "i32", "i64", "name"] and first["blob"] == bytes(range(0, 5))
    assert r.len() == 6 and r.schema()["a_i32"] == {"shape": [-1], "type": "int32"}
    r.close()
    r = FileReader(os.path.join(FIX, "alltypes.mindrecord"), columns=["i32"])
    assert [x["i32"] for x in r.get_next()] == [-3, -2, -1, 0, 1, 2]
    # MindSpore's module of the reader
    from mindseed.mindrecord.filereader import FileReader as module_reader
    assert module_reader is FileReader


def test_mindseed_writes_byte_identical_files(tmp_path):
    ns = _fixture_module()
    ns["HERE"] = str(tmp_path)
    ns["main"]()
    for name in ("alltypes.mindrecord", "sharded.mindrecord0", "sharded.mindrecord1"):
        with open(os.path.join(FIX, name), "rb") as a, open(str(tmp_path / name), "rb") as b:
            assert a.read() == b.read(), name
    back = ds.MindDataset(str(tmp_path / "images.mindrecord"), shuffle=False).map(vision.Decode(), "image")
    assert [int(r[1]) for r in back.create_tuple_iterator(output_numpy=True)] == [0, 1, 2, 3]


def test_roundtrip_many_pages_and_compression_edges(tmp_path):
    path = str(tmp_path / "big.mindrecord")
    w = FileWriter(path, shard_num=3, overwrite=True)
    w.set_page_size(1 << 15)
    w.set_header_size(1 << 15)
    w.add_schema({"k": {"type": "int64"}, "v": {"type": "int64", "shape": [-1]}, "w": {"type": "int32", "shape": [3]},
                  "f": {"type": "float32"}, "s": {"type": "string"}})
    rs = np.random.RandomState(0)
    data = [{"k": i, "v": rs.randint(-2 ** 62, 2 ** 62, size=i % 50 + 1).astype(np.int64) // (10 ** (i % 19)),
             "w": np.array([-(2 ** 31), 2 ** 31 - 1, i], np.int32), "f": float(np.float32(i / 7)), "s": "x" * (i % 40)}
            for i in range(300)]
    for s in range(0, 300, 100):
        w.write_raw_data(data[s:s + 100])
    w.commit()
    d = ds.MindDataset(path + "0", shuffle=False)
    got = sorted(d.create_dict_iterator(output_numpy=True), key=lambda r: int(r["k"]))
    assert len(got) == 300
    for e, g in zip(data, got):
        np.testing.assert_array_equal(g["v"], e["v"])
        np.testing.assert_array_equal(g["w"], e["w"])
        assert float(g["f"]) == e["f"] and str(g["s"]) == e["s"]


def test_shuffle_padding_and_save(tmp_path):
    ds.config.set_seed(2)
    a = [int(r["i32"]) for r in ds.MindDataset(os.path.join(FIX, "alltypes.mindrecord"),
                                                columns_list=["i32"]).create_dict_iterator(output_numpy=True)]
    ds.config.set_seed(2)
    b = [int(r["i32"]) for r in ds.MindDataset(os.path.join(FIX, "alltypes.mindrecord"),
                                                columns_list=["i32"]).create_dict_iterator(output_numpy=True)]
    assert a == b and sorted(a) == [-3, -2, -1, 0, 1, 2]
    p = ds.MindDataset(os.path.join(FIX, "alltypes.mindrecord"), columns_list=["i32"], shuffle=False,
                       padded_sample={"i32": 99}, num_padded=2)
    assert [int(r[0]) for r in p.create_tuple_iterator(output_numpy=True)] == [-3, -2, -1, 0, 1, 2, 99, 99]
    src = ds.MindDataset(os.path.join(FIX, "sharded.mindrecord0"), shuffle=False)
    out = str(tmp_path / "copy.mindrecord")
    src.save(out, num_files=2)
    again = ds.MindDataset(out + "0", shuffle=False)
    assert sorted(int(r["id"]) for r in again.create_dict_iterator(output_numpy=True)) == \
        sorted(int(r["id"]) for r in src.create_dict_iterator(output_numpy=True))


def test_errors_name_the_file(tmp_path):
    with pytest.raises(ValueError, match="nope.mindrecord"):
        ds.MindDataset(str(tmp_path / "nope.mindrecord"))
    bad = tmp_path / "bad.mindrecord"
    bad.write_bytes(b"garbage" * 10)
    with pytest.raises(RuntimeError, match="bad.mindrecord"):
        ds.MindDataset(str(bad))
    nodb = tmp_path / "nodb.mindrecord"
    shutil.copy(os.path.join(FIX, "alltypes.mindrecord"), str(nodb))
    with pytest.raises(RuntimeError, match=r"nodb.mindrecord.db.*does not exist"):
        ds.MindDataset([str(nodb)])
    with pytest.raises(RuntimeError, match=r"alltypes.mindrecord \(listed in the header of .*nodb.mindrecord"):
        ds.MindDataset(str(nodb))
    trunc = tmp_path / "trunc.mindrecord"
    data = open(os.path.join(FIX, "alltypes.mindrecord"), "rb").read()
    trunc.write_bytes(data[:len(data) - 100])
    shutil.copy(os.path.join(FIX, "alltypes.mindrecord.db"), str(trunc) + ".db")
    with pytest.raises(RuntimeError, match="trunc.mindrecord is truncated"):
        ds.MindDataset([str(trunc)])
    corrupt = tmp_path / "corrupt.mindrecord"
    corrupt.write_bytes(struct.pack("<Q", 5) + b"{bad}" + bytes(100))
    with pytest.raises(RuntimeError, match="corrupt.mindrecord.*not valid JSON"):
        ds.MindDataset(str(corrupt))


def test_writer_checks(tmp_path):
    path = str(tmp_path / "w.mindrecord")
    w = FileWriter(path, overwrite=True)
    with pytest.raises(MRMInvalidSchemaError):
        w.add_schema({"bad-name": {"type": "int32"}})
    with pytest.raises(MRMInvalidSchemaError):
        w.add_schema({"a": {"type": "uint8"}})
    w.add_schema({"a": {"type": "int32"}, "b": {"type": "bytes"}})
    with pytest.raises(MRMDefineIndexError):
        w.add_index(["b"])
    with pytest.warns(UserWarning, match="not matched"):
        w.write_raw_data([{"a": 1, "b": b"x"}, {"a": "oops", "b": b"y"}])
    w.commit()
    assert ds.MindDataset(path).get_dataset_size() == 1
    again = FileWriter(path)
    again.add_schema({"a": {"type": "int32"}})
    with pytest.raises(RuntimeError, match="already exist"):
        again.write_raw_data([{"a": 1}])
    with pytest.raises(ParamValueError):
        FileWriter(path, shard_num=0)
    app = FileWriter.open_for_append(path)
    app.write_raw_data([{"a": 7, "b": b"z"}])
    app.commit()
    assert [int(r[0]) for r in ds.MindDataset(path, shuffle=False).create_tuple_iterator(output_numpy=True)] == [1, 7]


def test_writer_methods_return_none_as_mindspore_2_10(tmp_path):
    w = FileWriter(str(tmp_path / "r.mindrecord"), shard_num=2, overwrite=True)
    results = [w.add_schema({"label": {"type": "int32"}, "vec": {"type": "float32", "shape": [2]}}, "s"),
               w.add_index(["label"]), w.set_header_size(1 << 20), w.set_page_size(1 << 20),
               w.write_raw_data([{"label": i, "vec": np.full(2, i, np.float32)} for i in range(5)]), w.commit()]
    assert results == [None] * 6
    d = ds.MindDataset([str(tmp_path / "r.mindrecord0"), str(tmp_path / "r.mindrecord1")], shuffle=False)
    assert sorted(int(r["label"]) for r in d.create_dict_iterator(output_numpy=True)) == [0, 1, 2, 3, 4]
