"""mindspore.mindrecord's converters (Cifar10ToMR, ..., TFRecordToMR), MindPage and file encryption: files in the real
source formats converted and read back with MindDataset / FileReader; MindPage and the encrypted layout against
outputs of real MindSpore 2.10."""
import csv
import gzip
import io
import json
import os
import pickle
import struct

import numpy as np
import pytest
from PIL import Image

import mindseed.dataset as ds
from mindseed import mindrecord as mr
from mindseed.dataset._format_sources import frame_record, make_example
from mindseed.mindrecord import config as mrc
from mindseed.mindrecord.exceptions import MRMDefineCategoryError, ParamValueError, PathNotExistsError


def _smooth(rs, n, h=32, w=32, c=3):
    """`n` smooth images (JPEG keeps them within a few grey levels)."""
    base = rs.randint(0, 256, (n, 4, 4, c)).astype(np.float64)
    up = np.repeat(np.repeat(base, h // 4, axis=1), w // 4, axis=2)
    k = np.ones(5) / 5
    for ax in (1, 2):
        up = np.apply_along_axis(lambda v: np.convolve(np.pad(v, 2, mode="edge"), k, "valid"), ax, up)
    return np.clip(np.rint(up), 0, 255).astype(np.uint8)


def _decode(b):
    return np.asarray(Image.open(io.BytesIO(bytes(b))))


def _rows(path):
    return list(ds.MindDataset(path, shuffle=False).create_dict_iterator(output_numpy=True))


def _cifar_pickle(path, images, labels):
    with open(path, "wb") as f:  # the python version's layout: a protocol-2 pickle of a dict with bytes keys
        pickle.dump({b"batch_label": b"x", b"data": images.transpose(0, 3, 1, 2).reshape(len(images), -1),
                     **labels, b"filenames": [b"f%d.png" % i for i in range(len(images))]}, f, protocol=2)


def test_cifar10_to_mr(tmp_path):
    rs = np.random.RandomState(0)
    src = tmp_path / "cifar-10-batches-py"
    src.mkdir()
    imgs = _smooth(rs, 7)
    labels = rs.randint(0, 10, 7)
    _cifar_pickle(src / "data_batch_1", imgs[:3], {b"labels": labels[:3].tolist()})
    _cifar_pickle(src / "data_batch_2", imgs[3:5], {b"labels": labels[3:5].tolist()})
    _cifar_pickle(src / "test_batch", imgs[5:], {b"labels": labels[5:].tolist()})
    dest = str(tmp_path / "cifar10.mindrecord")
    assert mr.Cifar10ToMR(str(src), dest).transform(["label"]) == mr.SUCCESS
    train, test = _rows(dest), _rows(dest + "_test")
    assert [int(r["id"]) for r in train] == [0, 1, 2, 3, 4] and [int(r["id"]) for r in test] == [0, 1]
    assert [int(r["label"]) for r in train + test] == labels.tolist()
    for r, img in zip(train + test, imgs):
        assert np.abs(_decode(r["data"][0]).astype(int) - img).mean() <= 6
    reader = mr.FileReader(dest)
    assert reader.schema() == {"data": {"type": "bytes"}, "id": {"type": "int64"}, "label": {"type": "int64"}}
    reader.close()
    with pytest.raises(PathNotExistsError, match="test_batch"):
        os.remove(src / "test_batch")
        mr.Cifar10ToMR(str(src), str(tmp_path / "x.mindrecord"))


def test_cifar100_to_mr_and_refuses_other_pickles(tmp_path):
    rs = np.random.RandomState(1)
    src = tmp_path / "cifar-100-python"
    src.mkdir()
    imgs = _smooth(rs, 4)
    _cifar_pickle(src / "train", imgs[:3], {b"fine_labels": [5, 99, 0], b"coarse_labels": [1, 19, 0]})
    _cifar_pickle(src / "test", imgs[3:], {b"fine_labels": [42], b"coarse_labels": [7]})
    dest = str(tmp_path / "c100.mindrecord")
    mr.Cifar100ToMR(str(src), dest).transform()
    train, test = _rows(dest), _rows(dest + "_test")
    assert [(int(r["fine_label"]), int(r["coarse_label"])) for r in train + test] == [(5, 1), (99, 19), (0, 0),
                                                                                       (42, 7)]
    with open(src / "train", "wb") as f:  # a pickle naming another class is refused, not executed
        pickle.dump({b"data": ds.Schema}, f, protocol=2)
    with pytest.raises(RuntimeError, match="Not a valid CIFAR Dataset.*train"):
        mr.Cifar100ToMR(str(src), str(tmp_path / "c2.mindrecord")).transform()


def _idx(path, arr, magic):
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">I", magic) + b"".join(struct.pack(">I", s) for s in arr.shape) + arr.tobytes())


def test_mnist_to_mr_partitions(tmp_path):
    rs = np.random.RandomState(2)
    imgs = _smooth(rs, 10, 28, 28, 1)[..., 0]
    labels = rs.randint(0, 10, 10).astype(np.uint8)
    _idx(tmp_path / "train-images-idx3-ubyte.gz", imgs[:6], 2051)
    _idx(tmp_path / "train-labels-idx1-ubyte.gz", labels[:6], 2049)
    _idx(tmp_path / "t10k-images-idx3-ubyte.gz", imgs[6:], 2051)
    _idx(tmp_path / "t10k-labels-idx1-ubyte.gz", labels[6:], 2049)
    dest = str(tmp_path / "mnist")
    mr.MnistToMR(str(tmp_path), dest, 2).transform()
    assert os.path.exists(dest + "_train.mindrecord0") and os.path.exists(dest + "_train.mindrecord1")
    got = _rows(dest + "_train.mindrecord0")
    assert sorted(int(r["label"]) for r in got) == sorted(labels[:6].tolist())
    test = _rows(dest + "_test.mindrecord0")
    assert sorted(int(r["label"]) for r in test) == sorted(labels[6:].tolist())
    for r in got:
        img = _decode(r["data"][0])
        assert img.shape == (28, 28)
        assert min(np.abs(img.astype(int) - i).mean() for i in imgs[:6]) <= 3
    with pytest.raises(ValueError, match="partition_number must be int"):
        mr.MnistToMR(str(tmp_path), str(tmp_path / "m2"), "2")


def test_csv_to_mr_types_columns_and_errors(tmp_path):
    path = tmp_path / "data.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["name", "age", "score", "ok"])
        w.writerows([["a", 3, 1.5, "True"], ["b,c", -4, 2, "False"], ["é", 10, 0.25, "True"]])
    dest = str(tmp_path / "csv.mindrecord")
    mr.CsvToMR(str(path), dest).transform()
    reader = mr.FileReader(dest)
    assert reader.schema() == {"age": {"type": "int64"}, "name": {"type": "string"}, "ok": {"type": "int32"},
                               "score": {"type": "float64"}}
    rows = list(reader.get_next())
    reader.close()
    assert [(r["name"], r["age"], r["score"], r["ok"]) for r in rows] == [("a", 3, 1.5, 1), ("b,c", -4, 2.0, 0),
                                                                          ("é", 10, 0.25, 1)]
    assert type(rows[1]["score"]) is int  # a whole float comes back as an int, as from MindSpore's FileReader
    dest2 = str(tmp_path / "csv2.mindrecord")
    mr.CsvToMR(str(path), dest2, columns_list=["score", "name"]).transform()
    assert mr.FileReader(dest2).schema() == {"name": {"type": "string"}, "score": {"type": "float64"}}
    with pytest.raises(RuntimeError, match="column nope does not exist"):
        mr.CsvToMR(str(path), str(tmp_path / "c3.mindrecord"), columns_list=["nope"]).transform()
    with pytest.raises(ValueError, match="columns_list must be list of str"):
        mr.CsvToMR(str(path), str(tmp_path / "c4.mindrecord"), columns_list="name")
    digits = tmp_path / "digits.csv"
    digits.write_text("1,b\n2,3\n")
    with pytest.raises(ValueError, match="first line content: 1 of the CSV file"):
        mr.CsvToMR(str(digits), str(tmp_path / "c5.mindrecord")).transform()


def test_imagenet_to_mr(tmp_path):
    rs = np.random.RandomState(3)
    root = tmp_path / "train"
    expect = {}
    for label, wnid in enumerate(["n01440764", "n01443537"]):
        (root / wnid).mkdir(parents=True)
        for i in range(3):
            buf = io.BytesIO()
            Image.fromarray(_smooth(rs, 1)[0]).save(buf, format="JPEG")
            (root / wnid / f"{i}.JPEG").write_bytes(buf.getvalue())
            expect[str(root / wnid / f"{i}.JPEG")] = (label, buf.getvalue())
        (root / wnid / "notes.txt").write_text("skipped")
    (tmp_path / "map.txt").write_text("n01440764 0\nn01443537 1\n")
    dest = str(tmp_path / "imagenet.mindrecord")
    with pytest.warns(UserWarning, match="not suffix with JPEG/jpg"):
        mr.ImageNetToMR(str(tmp_path / "map.txt"), str(root), dest, 1).transform()
    rows = _rows(dest)
    assert len(rows) == 6
    for r in rows:
        label, data = expect[str(r["file_name"])]
        assert int(r["label"]) == label and r["image"][0] == data
    page = mr.MindPage(dest)
    assert page.candidate_fields == ["file_name", "label"]


class _Feature:
    """A FixedLenFeature without TensorFlow: shape and dtype (by name)."""

    def __init__(self, shape, dtype, default_value=None):
        self.shape, self.dtype, self.default_value = shape, dtype, default_value


def test_tfrecord_to_mr(tmp_path):
    src = tmp_path / "data.tfrecord"
    recs = [make_example({"image/bytes": [bytes([i]) * (i + 1)], "label": [i], "score": [i * 0.5],
                          "vec": [i, i + 1, i + 2], "name": [f"r{i}"]}) for i in range(4)]
    src.write_bytes(b"".join(frame_record(r) for r in recs))
    feats = {"image/bytes": _Feature([], "string"), "label": _Feature([], "int64"), "score": _Feature([], "float32"),
             "vec": _Feature([3], "int64"), "name": _Feature([], "string"), "extra": _Feature([], "int64", 7)}
    dest = str(tmp_path / "tf.mindrecord")
    conv = mr.TFRecordToMR(str(src), dest, feats, bytes_fields=["image/bytes"])
    assert conv.mindrecord_schema == {"image_bytes": {"type": "bytes"}, "label": {"type": "int64"},
                                      "score": {"type": "float32"}, "vec": {"type": "int64", "shape": [3]},
                                      "name": {"type": "string"}, "extra": {"type": "int64"}}
    conv.transform()
    rows = _rows(dest)
    for i, r in enumerate(rows):
        assert r["image_bytes"].tobytes() == bytes([i]) * (i + 1)  # tobytes keeps trailing NULs
        assert int(r["label"]) == i and float(r["score"]) == i * 0.5 and str(r["name"]) == f"r{i}"
        np.testing.assert_array_equal(r["vec"], [i, i + 1, i + 2])
        assert int(r["extra"]) == 7
    with pytest.raises(ValueError, match="bytes_field: label should be tf.string"):
        mr.TFRecordToMR(str(src), str(tmp_path / "t2.mindrecord"), feats, bytes_fields=["label"])
    bad = dict(feats, vec=_Feature([2], "int64"))
    with pytest.raises(ValueError, match="record 0 .* feature 'vec' has 3 values"):
        mr.TFRecordToMR(str(src), str(tmp_path / "t3.mindrecord"), bad).transform()
    src.write_bytes(src.read_bytes()[:-5])
    with pytest.raises(RuntimeError, match="data.tfrecord: record 3 .* truncated"):
        mr.TFRecordToMR(str(src), str(tmp_path / "t4.mindrecord"), feats).transform()


def _page_file(tmp_path):
    """The file of the MindPage probe run with real MindSpore 2.10 (outputs quoted below)."""
    p = str(tmp_path / "pg.mindrecord")
    w = mr.FileWriter(p, 1)
    w.add_schema({"file_name": {"type": "string"}, "label": {"type": "int32"}, "data": {"type": "bytes"},
                  "v": {"type": "float32", "shape": [2]}}, "d")
    w.add_index(["file_name", "label"])
    w.write_raw_data([{"file_name": f"{i}.jpg", "label": i % 3, "data": bytes([i]) * 3,
                       "v": np.array([i, -i], np.float32)} for i in range(7)])
    w.commit()
    return p


def test_mindpage_as_mindspore(tmp_path):
    m = mr.MindPage(_page_file(tmp_path))
    assert m.candidate_fields == ["file_name", "label"] and m.category_field is None
    with pytest.raises(RuntimeError, match="no category field is set"):
        m.read_category_info()
    m.category_field = "label"
    assert m.read_category_info() == ('{"categories":[{"count":3,"id":0,"name":"0"},{"count":2,"id":1,"name":"1"},'
                                      '{"count":2,"id":2,"name":"2"}],"key":"label_0"}')
    got = m.read_at_page_by_id(1, 0, 2)
    assert [(r["file_name"], r["label"], r["data"]) for r in got] == [("1.jpg", 1, b"\x01" * 3),
                                                                      ("4.jpg", 1, b"\x04" * 3)]
    np.testing.assert_array_equal(got[1]["v"], np.array([4, -4], np.float32))
    assert list(got[0]) == ["file_name", "label", "data", "v"]
    assert [r["file_name"] for r in m.read_at_page_by_name("0", 1, 2)] == ["6.jpg"]
    assert [r["file_name"] for r in m.read_at_page_by_name("2", 0, 5)] == ["2.jpg", "5.jpg"]
    with pytest.raises(RuntimeError, match="page no: 1 or page size: 2 is invalid"):
        m.read_at_page_by_id(1, 1, 2)
    with pytest.raises(RuntimeError, match="category_name: nope could not found"):
        m.read_at_page_by_name("nope", 0, 1)
    with pytest.raises(RuntimeError, match="category_id: 3 is out of range"):
        m.read_at_page_by_id(3, 0, 1)
    with pytest.raises(ParamValueError, match="num_row should be int and greater than 0"):
        m.read_at_page_by_id(0, 0, 0)
    with pytest.raises(MRMDefineCategoryError, match="Field 'data' is not a candidate category field"):
        m.category_field = "data"
    assert m.set_category_field("file_name") == 0
    info = json.loads(m.read_category_info())
    assert info["key"] == "file_name_0" and [c["name"] for c in info["categories"]] == [f"{i}.jpg" for i in range(7)]
    assert [r["label"] for r in m.read_at_page_by_name("3.jpg", 0, 5)] == [0]


@pytest.fixture
def enc_key():
    yield "0123456789012345"
    mr.set_enc_key(None)
    mr.set_enc_mode("AES-GCM")
    mr.set_dec_mode(None)


def test_decrypts_a_piece_encrypted_by_mindspore(enc_key):
    # _encrypt(b"hello world" * 3, ..., b"0123456789012345", "AES-GCM") in real MindSpore 2.10
    piece = bytes.fromhex("d85e3a7f42f901511a83b08602fcf30f395c41f8390000001000000011acf20309745fb54f569c563b31120a"
                          "21000000ab0c4ce6667d4dd1e3434632b9e66c7f92e1d7e2c8fe04f845add6ca687a881bdb")
    assert mrc.decrypt_piece(piece, enc_key.encode(), "probe") == b"hello world" * 3
    ours = mrc.encrypt_piece(b"abc" * 100, enc_key.encode())
    assert ours[:4] == piece[:4] and struct.unpack_from("<ii", ours, 20) == (24 + 300, 16)
    assert mrc.decrypt_piece(ours, enc_key.encode(), "x") == b"abc" * 100
    with pytest.raises(RuntimeError, match="Failed to decrypt data of x"):
        mrc.decrypt_piece(ours, b"1" * 16, "x")


def test_encrypted_files_round_trip(tmp_path, enc_key):
    mr.set_enc_key(enc_key)
    path = _page_file(tmp_path)
    for p in (path, path + ".db"):
        data = open(p, "rb").read()
        assert data.endswith(b"\x00\x00\x00\x00AES-GCMENCRYPT") and b"0.jpg" not in data
    assert [str(r["file_name"]) for r in _rows(path)] == [f"{i}.jpg" for i in range(7)]
    reader = mr.FileReader(path)
    assert reader.len() == 7
    reader.close()
    m = mr.MindPage(path)
    m.category_field = "label"
    assert len(m.read_at_page_by_id(0, 0, 9)) == 3
    mr.set_enc_key("1" * 16)
    with pytest.raises(RuntimeError, match="Failed to decrypt data of .*pg.mindrecord"):
        mr.FileReader(path)
    mr.set_enc_key(None)
    with pytest.raises(RuntimeError, match="pg.mindrecord is encrypted"):
        ds.MindDataset(path)
    plain = tmp_path / "plain"
    plain.mkdir()
    p2 = _page_file(plain)
    mr.set_enc_key(enc_key)
    with pytest.raises(RuntimeError, match="is not encrypted"):
        mr.FileReader(p2)


def test_custom_enc_mode_and_save(tmp_path, enc_key):
    def enc(f_in, size, f_out, key):
        f_out.write(bytes(b ^ 0x5A for b in f_in.read(size)))

    mr.set_enc_key(enc_key)
    mr.set_enc_mode(enc)
    path = _page_file(tmp_path)
    assert open(path, "rb").read().endswith(b"UDF-ENCENCRYPT")
    with pytest.raises(RuntimeError, match="must also define custom decryption"):
        mr.FileReader(path)
    mr.set_dec_mode(enc)
    assert len(_rows(path)) == 7
    mr.set_enc_mode("AES-GCM")
    mr.set_dec_mode(None)
    saved = str(tmp_path / "saved.mindrecord")
    ds.NumpySlicesDataset({"x": np.arange(5, dtype=np.int32)}, shuffle=False).save(saved)
    assert [int(r["x"]) for r in _rows(saved)] == [0, 1, 2, 3, 4]
    with pytest.raises(RuntimeError, match="automatic sharding function is unavailable"):
        ds.NumpySlicesDataset({"x": np.arange(5)}, shuffle=False).save(str(tmp_path / "s2.mindrecord"), 2)


def test_enc_settings_validate():
    with pytest.raises(ValueError, match="enc_key is not str"):
        mr.set_enc_key(b"0123456789012345")
    with pytest.raises(ValueError, match="length of input enc_key is not 16, 24, 32"):
        mr.set_enc_key("short")
    with pytest.raises(ValueError, match="enc_mode is invalid"):
        mr.set_enc_mode("SM4-CBC")
    with pytest.raises(ValueError, match="dec_mode is not str"):
        mr.set_dec_mode(3)
