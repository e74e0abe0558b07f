"""Image classification readers: each test writes a small tree in the dataset's own on-disk format, reads it
back (with a sampler and with sharding), and checks that a corrupt or truncated file is named in the error."""
import inspect
import json
import os
import struct

import numpy as np
import pytest
from PIL import Image

import mindseed.dataset as ds

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REF = os.path.join(ROOT, "..", "shared", "api", "mindspore-2.10.json")


def rows(d, **kw):
    return [[np.asarray(x) for x in r] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True, **kw)]


def shards(make, n=2):
    """The rows of each of `n` shards of `make(num_shards=n, shard_id=i)`."""
    return [rows(make(num_shards=n, shard_id=i)) for i in range(n)]


def labels(out, col=1):
    return [int(np.asarray(r[col]).reshape(-1)[0]) for r in out]


def save_jpeg(path, value, size=(6, 5)):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(np.full(size + (3,), value, np.uint8)).save(path, quality=95)


# ---------------------------------------------------------------------------- signatures
@pytest.mark.skipif(not os.path.isfile(REF), reason="../shared/api/mindspore-2.10.json is not present")
def test_reader_signatures_match_mindspore_2_10():
    ref = json.load(open(REF))["namespaces"]["mindspore.dataset"]["entries"]
    checked = 0
    for name in ds.__all__:
        obj = getattr(ds, name)
        if name.endswith("Dataset") and name in ref and isinstance(obj, type):
            assert str(inspect.signature(obj)) == ref[name]["signature"], name
            checked += 1
    assert checked >= 64


# ---------------------------------------------------------------------------- idx family
def _write_idx(path, data, magic, dtype=">u1"):
    arr = np.asarray(data)
    with open(path, "wb") as f:
        f.write(struct.pack(f">I{arr.ndim}I", magic, *arr.shape) + arr.astype(dtype).tobytes())


def test_emnist_split_files_sampler_and_shards(tmp_path):
    rs = np.random.RandomState(0)
    img = rs.randint(0, 256, (6, 28, 28))
    _write_idx(str(tmp_path / "emnist-letters-train-images-idx3-ubyte"), img, 2051)
    _write_idx(str(tmp_path / "emnist-letters-train-labels-idx1-ubyte"), np.arange(6) + 1, 2049)
    d = ds.EMnistDataset(str(tmp_path), "letters", usage="train", shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["image", "label"] and labels(out) == [1, 2, 3, 4, 5, 6]
    assert out[2][0].shape == (28, 28, 1) and out[2][0].dtype == np.uint8 and out[2][1].dtype == np.uint32
    np.testing.assert_array_equal(out[2][0][:, :, 0], img[2])
    picked = rows(ds.EMnistDataset(str(tmp_path), "letters", "train", sampler=ds.SubsetSampler([4, 0])))
    assert labels(picked) == [5, 1]
    parts = shards(lambda **k: ds.EMnistDataset(str(tmp_path), "letters", "train", shuffle=False, **k))
    assert sorted(labels(parts[0]) + labels(parts[1])) == [1, 2, 3, 4, 5, 6]
    with pytest.raises(ValueError, match="valid set"):
        ds.EMnistDataset(str(tmp_path), "bogus")
    with pytest.raises(RuntimeError, match="emnist-letters-test-images-idx3-ubyte"):
        rows(ds.EMnistDataset(str(tmp_path), "letters", usage="test"))


def test_qmnist_compat_usage_and_truncation(tmp_path):
    rs = np.random.RandomState(1)
    lab = np.stack([np.arange(5), np.arange(5) + 100] + [np.zeros(5)] * 6, 1)
    _write_idx(str(tmp_path / "qmnist-train-images-idx3-ubyte"), rs.randint(0, 256, (5, 28, 28)), 2051)
    _write_idx(str(tmp_path / "qmnist-train-labels-idx2-int"), lab, 3074, ">i4")
    out = rows(ds.QMnistDataset(str(tmp_path), "train", shuffle=False))
    assert labels(out) == [0, 1, 2, 3, 4] and out[0][1].shape == ()
    full = rows(ds.QMnistDataset(str(tmp_path), "train", compat=False, shuffle=False))
    assert full[3][1].shape == (8,) and full[3][1].dtype == np.uint32 and full[3][1][:2].tolist() == [3, 103]
    with open(str(tmp_path / "qmnist-train-labels-idx2-int"), "r+b") as f:
        f.truncate(12 + 4 * 8 * 3 + 5)
    with pytest.raises(RuntimeError, match="qmnist-train-labels-idx2-int is truncated.*record 3"):
        rows(ds.QMnistDataset(str(tmp_path), "train"))


def test_cifar10_rows_are_memory_mapped_and_batch_in_blocks(tmp_path):
    rs = np.random.RandomState(3)
    rec = np.concatenate([rs.randint(0, 10, (20, 1)), rs.randint(0, 256, (20, 3072))], 1).astype(np.uint8)
    rec[:12].tofile(str(tmp_path / "data_batch_1.bin"))
    rec[12:].tofile(str(tmp_path / "data_batch_2.bin"))
    d = ds.Cifar10Dataset(str(tmp_path), usage="train", shuffle=False)
    images = d._arrays()[0]
    base = images.parts[0]
    while base is not None and not isinstance(base, np.memmap):
        base = base.base
    assert type(images).__name__ == "Chain" and isinstance(base, np.memmap)   # rows stay in the file
    batches = list(d.batch(8).create_tuple_iterator(num_epochs=1, output_numpy=True))
    want = rec[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    np.testing.assert_array_equal(np.concatenate([b[0] for b in batches]), want)
    np.testing.assert_array_equal(np.concatenate([b[1] for b in batches]), rec[:, 0])
    picked = rows(ds.Cifar10Dataset(str(tmp_path), usage="train", sampler=ds.SubsetSampler([13, 2])))
    np.testing.assert_array_equal(picked[0][0], want[13])
    parts = shards(lambda **k: ds.Cifar10Dataset(str(tmp_path), usage="train", shuffle=False, **k), 3)
    assert sum(len(p) for p in parts) == 21   # 20 rows padded to 3 x 7
    with open(str(tmp_path / "data_batch_2.bin"), "ab") as f:
        f.write(b"\0" * 100)
    with pytest.raises(RuntimeError, match="data_batch_2.bin is truncated or corrupt.*record 8 is cut"):
        rows(ds.Cifar10Dataset(str(tmp_path), usage="train"))


# ---------------------------------------------------------------------------- SVHN / STL10 / USPS / Semeion
def test_svhn_mat_files(tmp_path):
    sio = pytest.importorskip("scipy.io")
    rs = np.random.RandomState(4)
    x = rs.randint(0, 256, (32, 32, 3, 5)).astype(np.uint8)
    y = np.array([[10], [1], [2], [10], [9]], np.uint8)
    sio.savemat(str(tmp_path / "train_32x32.mat"), {"X": x, "y": y})
    sio.savemat(str(tmp_path / "test_32x32.mat"), {"X": x[..., :2], "y": y[:2]})
    out = rows(ds.SVHNDataset(str(tmp_path), "train", shuffle=False))
    assert labels(out) == [0, 1, 2, 0, 9] and out[0][1].dtype == np.uint32
    np.testing.assert_array_equal(out[4][0], x[..., 4])
    assert ds.SVHNDataset(str(tmp_path), "test").get_dataset_size() == 2
    assert labels(rows(ds.SVHNDataset(str(tmp_path), "train", sampler=ds.SequentialSampler(2, 2)))) == [2, 0]
    with open(str(tmp_path / "test_32x32.mat"), "r+b") as f:
        f.truncate(300)
    with pytest.raises(RuntimeError, match="test_32x32.mat"):
        rows(ds.SVHNDataset(str(tmp_path), "test"))


def test_stl10_binaries_and_unlabeled(tmp_path):
    rs = np.random.RandomState(5)
    chw = rs.randint(0, 256, (3, 3, 96, 96)).astype(np.uint8)    # (N, C, H, W)
    chw.transpose(0, 1, 3, 2).tofile(str(tmp_path / "train_X.bin"))   # column-major per image
    np.array([1, 10, 4], np.uint8).tofile(str(tmp_path / "train_y.bin"))
    chw[:2].transpose(0, 1, 3, 2).tofile(str(tmp_path / "unlabeled_X.bin"))
    out = rows(ds.STL10Dataset(str(tmp_path), "train+unlabeled", shuffle=False))
    assert labels(out) == [0, 9, 3, -1, -1] and out[0][1].dtype == np.int32
    np.testing.assert_array_equal(out[1][0], chw[1].transpose(1, 2, 0))
    parts = shards(lambda **k: ds.STL10Dataset(str(tmp_path), "train", shuffle=False, **k))
    assert len(parts[0]) == len(parts[1]) == 2
    with open(str(tmp_path / "train_X.bin"), "ab") as f:
        f.write(b"\1" * 10)
    with pytest.raises(RuntimeError, match="train_X.bin is truncated or corrupt.*image 3 is cut"):
        rows(ds.STL10Dataset(str(tmp_path), "train"))


def test_usps_libsvm_lines_stream(tmp_path):
    pix = np.round(np.linspace(-1, 1, 256), 6)
    line = " ".join(f"{k + 1}:{v:.6f}" for k, v in enumerate(pix))
    (tmp_path / "usps").write_text(f"3 {line}\n10 {line}\n1 {line}\n")
    (tmp_path / "usps.t").write_text(f"5 {line}\n")
    d = ds.USPSDataset(str(tmp_path), "train", shuffle=False)
    out = rows(d)
    assert d.get_dataset_size() == 3 and labels(out) == [2, 9, 0]
    assert out[0][0].shape == (16, 16, 1) and out[0][0].dtype == np.uint8
    np.testing.assert_array_equal(out[0][0].reshape(-1), ((pix + 1) / 2 * 255).astype(np.uint8))
    assert labels(rows(ds.USPSDataset(str(tmp_path), shuffle=False))) == [2, 9, 0, 4]
    parts = shards(lambda **k: ds.USPSDataset(str(tmp_path), "train", shuffle=False, **k))
    assert labels(parts[0]) == [2, 0] and labels(parts[1]) == [9, 2]
    (tmp_path / "usps.t").write_text(f"5 {line}\n7 1:0.5 oops\n")
    with pytest.raises(RuntimeError, match="usps.t line 2"):
        rows(ds.USPSDataset(str(tmp_path), "test"))


def test_semeion_rows(tmp_path):
    rs = np.random.RandomState(6)
    bits = rs.randint(0, 2, (4, 256))
    digits = [3, 0, 9, 3]
    lines = [" ".join(f"{b:.4f}" for b in bits[i]) + " " + " ".join("1" if k == digits[i] else "0"
                                                                    for k in range(10)) for i in range(4)]
    (tmp_path / "semeion.data").write_text("\n".join(lines) + "\n")
    out = rows(ds.SemeionDataset(str(tmp_path), shuffle=False))
    assert labels(out) == digits and out[1][0].shape == (16, 16) and out[1][0].dtype == np.uint8
    np.testing.assert_array_equal(out[1][0], bits[1].reshape(16, 16) * 255)
    pk = rows(ds.SemeionDataset(str(tmp_path), sampler=ds.PKSampler(1, class_column="label", shuffle=False)))
    assert sorted(labels(pk)) == [0, 3, 9]
    (tmp_path / "semeion.data").write_text("\n".join(lines[:2] + ["1.0 0.0"]) + "\n")
    with pytest.raises(RuntimeError, match="semeion.data line 3"):
        rows(ds.SemeionDataset(str(tmp_path)))


# ---------------------------------------------------------------------------- image-file datasets
def test_flowers102_classification_and_segmentation(tmp_path):
    sio = pytest.importorskip("scipy.io")
    for i in range(1, 5):
        save_jpeg(str(tmp_path / "jpg" / f"image_{i:05d}.jpg"), 40 * i)
        save_jpeg(str(tmp_path / "segmim" / f"segmim_{i:05d}.jpg"), 250 - 40 * i)
    sio.savemat(str(tmp_path / "imagelabels.mat"), {"labels": np.array([[5, 1, 102, 7]], np.uint8)})
    sio.savemat(str(tmp_path / "setid.mat"), {"trnid": np.array([[2, 4]], np.uint16),
                                              "valid": np.array([[1]], np.uint16), "tstid": np.array([[3]], np.uint16)})
    out = rows(ds.Flowers102Dataset(str(tmp_path), usage="train", shuffle=False, decode=True))
    assert labels(out) == [0, 6] and out[0][0].shape == (6, 5, 3) and abs(int(out[0][0][0, 0, 0]) - 80) <= 2
    seg = ds.Flowers102Dataset(str(tmp_path), task="Segmentation", shuffle=False)
    assert seg.get_col_names() == ["image", "segment", "label"] and labels(rows(seg), 2) == [4, 0, 101, 6]
    assert rows(seg)[0][1].ndim == 1   # raw bytes without decode
    parts = shards(lambda **k: ds.Flowers102Dataset(str(tmp_path), shuffle=False, **k))
    assert sorted(labels(parts[0]) + labels(parts[1])) == [0, 4, 6, 101]
    os.remove(str(tmp_path / "jpg" / "image_00003.jpg"))
    with pytest.raises(RuntimeError, match="image_00003.jpg"):
        rows(ds.Flowers102Dataset(str(tmp_path), usage="test"))


def test_caltech101_categories_and_annotations(tmp_path):
    sio = pytest.importorskip("scipy.io")
    root = tmp_path / "101_ObjectCategories"
    for k, cls in enumerate(["Faces", "BACKGROUND_Google", "ant"]):
        for j in range(1, 3):
            save_jpeg(str(root / cls / f"image_{j:04d}.jpg"), 30 * k + j)
    contour = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    for ann in ("Faces_2", "ant"):
        for j in range(1, 3):
            os.makedirs(str(tmp_path / "Annotations" / ann), exist_ok=True)
            sio.savemat(str(tmp_path / "Annotations" / ann / f"annotation_{j:04d}.mat"),
                        {"box_coord": np.array([[1, 2, 3, 4]]), "obj_contour": contour * j})
    d = ds.Caltech101Dataset(str(tmp_path), target_type="all", shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["image", "category", "annotation"] and labels(out) == [0, 0, 1, 1]
    np.testing.assert_array_equal(out[3][2], contour * 2)
    assert rows(ds.Caltech101Dataset(str(tmp_path), sampler=ds.SubsetSampler([2])))[0][1] == 1
    with open(str(tmp_path / "Annotations" / "ant" / "annotation_0001.mat"), "r+b") as f:
        f.truncate(150)
    with pytest.raises(RuntimeError, match="annotation_0001.mat"):
        rows(ds.Caltech101Dataset(str(tmp_path), target_type="annotation", shuffle=False))


def test_caltech256_and_celeba(tmp_path):
    for k, cls in enumerate(["001.ak47", "002.bat"]):
        for j in range(1, 3):
            save_jpeg(str(tmp_path / "c256" / cls / f"{k + 1:03d}_{j:04d}.jpg"), 50 * k + j)
    out = rows(ds.Caltech256Dataset(str(tmp_path / "c256"), shuffle=False, decode=True))
    assert labels(out) == [0, 0, 1, 1] and out[0][1].dtype == np.uint32 and out[2][0].shape == (6, 5, 3)
    parts = shards(lambda **k: ds.Caltech256Dataset(str(tmp_path / "c256"), shuffle=False, **k))
    assert labels(parts[0]) == [0, 1] and labels(parts[1]) == [0, 1]
    celeb = tmp_path / "celeba"
    for i in range(1, 4):
        save_jpeg(str(celeb / f"{i:06d}.jpg"), 60 * i)
    (celeb / "list_attr_celeba.txt").write_text("3\nSmiling Young\n000001.jpg -1  1\n000002.jpg  1  1\n"
                                                "000003.jpg  1 -1\n")
    (celeb / "list_eval_partition.txt").write_text("000001.jpg 0\n000002.jpg 1\n000003.jpg 0\n")
    out = rows(ds.CelebADataset(str(celeb), usage="train", shuffle=False))
    assert ds.CelebADataset(str(celeb)).get_col_names() == ["image", "attr"]
    assert [r[1].tolist() for r in out] == [[0, 1], [1, 0]] and out[0][1].dtype == np.uint32
    assert ds.CelebADataset(str(celeb), usage="valid").get_dataset_size() == 1
    (celeb / "list_attr_celeba.txt").write_text("3\nSmiling Young\n000001.jpg -1  1\n000002.jpg  1\n")
    with pytest.raises(RuntimeError, match="list_attr_celeba.txt line 4"):
        rows(ds.CelebADataset(str(celeb)))


def test_fake_image_dataset_is_reproducible_and_sharded():
    a = rows(ds.FakeImageDataset(12, (5, 4, 3), 4, base_seed=3, shuffle=False))
    b = rows(ds.FakeImageDataset(12, (5, 4, 3), 4, base_seed=3, shuffle=False))
    assert len(a) == 12 and a[0][0].shape == (5, 4, 3) and a[0][0].dtype == np.uint8
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(a, b, strict=True))
    assert all(0 <= v < 4 for v in labels(a)) and len(set(labels(a))) > 1
    parts = shards(lambda **k: ds.FakeImageDataset(12, (5, 4, 3), 4, base_seed=3, shuffle=False, **k), 3)
    assert [len(p) for p in parts] == [4, 4, 4]
    np.testing.assert_array_equal(parts[1][0][0], a[1][0])
    with pytest.raises(ValueError, match="image_size"):
        ds.FakeImageDataset(image_size=(2, 2))


def test_cifar_epoch_reads_rows_from_the_file_in_bounded_memory(tmp_path):
    import tracemalloc
    rs = np.random.RandomState(9)
    rec = np.concatenate([rs.randint(0, 10, (8000, 1)), rs.randint(0, 256, (8000, 3072))], 1).astype(np.uint8)
    rec.tofile(str(tmp_path / "data_batch_1.bin"))   # ~24 MB
    del rec
    d = ds.Cifar10Dataset(str(tmp_path), usage="train", shuffle=True).batch(100)
    tracemalloc.start()
    n = sum(b[0].shape[0] for b in d.create_tuple_iterator(num_epochs=1, output_numpy=True))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert n == 8000 and peak < 4 << 20, peak
