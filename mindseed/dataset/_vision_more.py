"""More image classification readers: SVHN, STL10, USPS, Semeion, Flowers102, Caltech101/256, CelebA and
FakeImageDataset, each reading its dataset's own distribution layout."""
import os

import numpy as np

from mindseed.dataset._engine import VisionBaseDataset
from mindseed.dataset._readers import FileRowSource, IndexedSource, read_image
from mindseed.dataset._vision_sources import _FileArrays, chain

__all__ = ["SVHNDataset", "STL10Dataset", "USPSDataset", "SemeionDataset", "Flowers102Dataset",
           "Caltech101Dataset", "Caltech256Dataset", "CelebADataset", "FakeImageDataset"]

_MAPPABLE = "num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None"


def load_mat(path, who):
    """The variables of a MATLAB .mat file (scipy.io), with a missing, truncated or corrupt file named."""
    try:
        from scipy import io as sio
    except ImportError:
        raise RuntimeError(f"{who} reads MATLAB .mat files with scipy: pip install scipy") from None
    if not os.path.isfile(path):
        raise RuntimeError(f"Invalid file, {who}: file not found: {path}.")
    try:
        return sio.loadmat(path)
    except Exception as e:  # noqa: BLE001  (scipy raises ValueError, TypeError, OSError... on bad files)
        raise RuntimeError(f"Invalid file, {path} is not a readable MATLAB .mat file (truncated or corrupt): "
                           f"{e}.") from None


def _mat_var(mat, name, path):
    if name not in mat:
        raise RuntimeError(f"Invalid file, {path} has no variable '{name}' (it has {sorted(mat)}).")
    return mat[name]


def _numbered_fields(path):
    """(line number, whitespace-separated fields) of the non-blank lines of a text file, read as a stream."""
    with open(path, encoding="ascii", errors="replace") as f:
        for line_no, line in enumerate(f, 1):
            fields = line.split()
            if fields:
                yield line_no, fields


# ---------------------------------------------------------------------------- array-backed
class SVHNDataset(_FileArrays):
    """SVHN cropped digits from `{train,test,extra}_32x32.mat`: image (32, 32, 3) uint8, label uint32 (0-9).

    Args:
        usage (str, optional): ``'train'``, ``'test'``, ``'extra'`` or ``'all'``. Default: ``None`` (all).
    """

    _signature = f"dataset_dir, usage=None, {_MAPPABLE.replace('num_parallel_workers=None', 'num_parallel_workers=1')}"
    _choices = {"usage": ("train", "test", "extra", "all", None)}

    def _load_arrays(self):
        parts = ("train", "test", "extra") if self.usage == "all" else (self.usage,)
        images, labels = [], []
        for p in parts:
            path = self._path(f"{p}_32x32.mat")
            mat = load_mat(path, "SVHNDataset")
            x, y = _mat_var(mat, "X", path), _mat_var(mat, "y", path).reshape(-1)
            if x.ndim != 4 or x.shape[:3] != (32, 32, 3) or x.shape[3] != len(y):
                raise RuntimeError(f"Invalid data, {path}: X has shape {x.shape} for {len(y)} labels; expected "
                                   f"(32, 32, 3, {len(y)}).")
            images.append(np.ascontiguousarray(x.transpose(3, 0, 1, 2)).astype(np.uint8, copy=False))
            labels.append((y % 10).astype(np.uint32))  # the digit 0 is stored as 10
        return [chain(images), np.concatenate(labels)]


class STL10Dataset(_FileArrays):
    """STL-10 from its binaries (`{train,test,unlabeled}_X.bin`, `{train,test}_y.bin`): image (96, 96, 3) uint8,
    label int32 (0-9; -1 for the unlabeled images).

    Args:
        usage (str, optional): ``'train'``, ``'test'``, ``'unlabeled'``, ``'train+unlabeled'`` or ``'all'``.
            Default: ``None`` (all).
    """

    _signature = f"dataset_dir, usage=None, {_MAPPABLE}, cache=None"
    _choices = {"usage": ("train", "test", "unlabeled", "train+unlabeled", "all", None)}
    _image_bytes = 3 * 96 * 96

    def _load_arrays(self):
        parts = {"all": ("train", "test", "unlabeled"), "train+unlabeled": ("train", "unlabeled")}.get(
            self.usage, (self.usage,))
        images, labels = [], []
        for p in parts:
            path = self._need(self._path(f"{p}_X.bin"))
            size = os.path.getsize(path)
            if size % self._image_bytes:
                raise RuntimeError(f"Invalid file, {path} is truncated or corrupt: its size {size} is not a multiple "
                                   f"of the {self._image_bytes}-byte image (image {size // self._image_bytes} is "
                                   f"cut).")
            n = size // self._image_bytes
            # stored column-major per image: (C, W, H) in C order
            images.append(np.memmap(path, np.uint8, "r", shape=(n, 3, 96, 96)))
            if p == "unlabeled":
                labels.append(np.full(n, -1, np.int32))
                continue
            ypath = self._need(self._path(f"{p}_y.bin"))
            y = np.fromfile(ypath, np.uint8)
            if len(y) != n:
                raise RuntimeError(f"Invalid data, {path} holds {n} images but {ypath} holds {len(y)} labels.")
            labels.append(y.astype(np.int32) - 1)
        return [chain(images, "cwh"), np.concatenate(labels)]


class SemeionDataset(_FileArrays):
    """Semeion handwritten digits from `semeion.data` (256 pixels then a one-hot digit per line): image (16, 16)
    uint8 (0 or 255), label uint32."""

    _signature = f"dataset_dir, {_MAPPABLE}, cache=None"
    _choices = {}

    def _load_arrays(self):
        path = self._need(self._path("semeion.data"))
        images, labels = [], []
        for line_no, fields in _numbered_fields(path):
            try:
                values = np.array(fields, dtype=np.float64)
            except ValueError:
                values = np.zeros(0)
            if values.size != 266 or values[256:].sum() != 1:
                raise RuntimeError(f"Invalid file, {path} line {line_no}: expected 256 pixels and a one-hot digit "
                                   f"(266 numbers), but got {len(fields)} fields.")
            images.append((values[:256].reshape(16, 16) * 255).astype(np.uint8))
            labels.append(int(np.argmax(values[256:])))
        if not images:
            raise RuntimeError(f"Invalid file, {path} holds no record.")
        return [np.stack(images), np.asarray(labels, np.uint32)]


class USPSDataset(FileRowSource, VisionBaseDataset):
    """USPS digits from the libsvm files `usps` (train) and `usps.t` (test): image (16, 16, 1) uint8, label
    uint32 (0-9). Rows are read line by line (not mappable: shuffle is a `Shuffle` level)."""

    _signature = ("dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL, "
                  "num_shards=None, shard_id=None, cache=None")
    _choices = {"usage": ("train", "test", "all", None)}
    _columns = ("image", "label")

    def _files(self):
        return self._usage_files({"train": "usps", "test": "usps.t"})

    def _file_rows(self, path):
        for line_no, fields in _numbered_fields(path):
            try:
                label = int(float(fields[0])) - 1
                pix = np.zeros(256, np.float64)
                for item in fields[1:]:
                    k, v = item.split(":")
                    pix[int(k) - 1] = float(v)
            except (ValueError, IndexError):
                raise RuntimeError(f"Invalid file, {path} line {line_no}: not a libsvm record "
                                   f"'label index:value ...' of 256 pixels.") from None
            if not 0 <= label <= 9:
                raise RuntimeError(f"Invalid file, {path} line {line_no}: label {label + 1} is not in [1, 10].")
            image = ((pix + 1.0) / 2.0 * 255.0).clip(0, 255).astype(np.uint8).reshape(16, 16, 1)
            yield [image, np.array(label, np.uint32)]


# ---------------------------------------------------------------------------- image files
class Flowers102Dataset(IndexedSource, VisionBaseDataset):
    """Oxford 102 Flowers: `jpg/image_%05d.jpg`, `imagelabels.mat`, `setid.mat` (and `segmim/segmim_%05d.jpg`).
    Columns image and label uint32 (0-101); task ``'Segmentation'`` adds segment between them.

    Args:
        task (str, optional): ``'Classification'`` or ``'Segmentation'``. Default: ``'Classification'``.
        usage (str, optional): ``'train'``, ``'valid'``, ``'test'`` or ``'all'``. Default: ``'all'``.
        decode (bool, optional): decode the images (and segments). Default: ``False``.
    """

    _signature = ("dataset_dir, task='Classification', usage='all', num_samples=None, num_parallel_workers=1, "
                  "shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None")
    _choices = {"task": ("Classification", "Segmentation"), "usage": ("train", "valid", "test", "all")}

    def _col_names(self):
        return ["image", "segment", "label"] if self.task == "Segmentation" else ["image", "label"]

    def _scan(self):
        lpath = self._path("imagelabels.mat")
        labels = _mat_var(load_mat(lpath, "Flowers102Dataset"), "labels", lpath).reshape(-1).astype(np.int64)
        if self.usage == "all":
            ids = np.arange(1, len(labels) + 1)
        else:
            spath = self._path("setid.mat")
            key = {"train": "trnid", "valid": "valid", "test": "tstid"}[self.usage]
            ids = _mat_var(load_mat(spath, "Flowers102Dataset"), key, spath).reshape(-1).astype(np.int64)
        if len(ids) and (ids.min() < 1 or ids.max() > len(labels)):
            raise RuntimeError(f"Invalid data, setid.mat of {self.dataset_dir} names image ids outside [1, "
                               f"{len(labels)}].")
        return [(int(i), int(labels[i - 1]) - 1) for i in ids]

    def _load(self, record):
        i, label = record
        row = [read_image(self._path("jpg", f"image_{i:05d}.jpg"), self.decode)]
        if self.task == "Segmentation":
            row.append(read_image(self._path("segmim", f"segmim_{i:05d}.jpg"), self.decode))
        return row + [np.array(label, np.uint32)]


_CALTECH101_ANNOTATION_DIRS = {"Faces": "Faces_2", "Faces_easy": "Faces_3", "Motorbikes": "Motorbikes_16",
                               "airplanes": "Airplanes_Side_2"}


class Caltech101Dataset(IndexedSource, VisionBaseDataset):
    """Caltech 101: `101_ObjectCategories/<class>/image_%04d.jpg` and `Annotations/<class>/annotation_%04d.mat`.
    Columns by `target_type`: ``'category'`` image, category (uint32); ``'annotation'`` image, annotation (the
    object contour, float64 (2, N)); ``'all'`` image, category, annotation.
    """

    _signature = ("dataset_dir, target_type=None, num_samples=None, num_parallel_workers=1, shuffle=None, "
                  "decode=False, sampler=None, num_shards=None, shard_id=None")
    _choices = {"target_type": ("category", "annotation", "all", None)}

    def _col_names(self):
        return {"annotation": ["image", "annotation"], "all": ["image", "category", "annotation"]}.get(
            self.target_type, ["image", "category"])

    def _scan(self):
        root = self._path("101_ObjectCategories")
        if not os.path.isdir(root):
            raise RuntimeError(f"Invalid file, Caltech101Dataset: folder not found: {root}.")
        classes = sorted(c for c in os.listdir(root) if os.path.isdir(os.path.join(root, c))
                         and c != "BACKGROUND_Google")
        return [(c, k, name) for k, c in enumerate(classes)
                for name in sorted(os.listdir(os.path.join(root, c))) if name.endswith(".jpg")]

    def _load(self, record):
        cls, k, name = record
        row = [read_image(self._path("101_ObjectCategories", cls, name), self.decode)]
        if self.target_type in (None, "category", "all"):
            row.append(np.array(k, np.uint32))
        if self.target_type in ("annotation", "all"):
            num = name[len("image_"):-len(".jpg")]
            path = self._path("Annotations", _CALTECH101_ANNOTATION_DIRS.get(cls, cls), f"annotation_{num}.mat")
            row.append(np.asarray(_mat_var(load_mat(path, "Caltech101Dataset"), "obj_contour", path), np.float64))
        return row


class Caltech256Dataset(IndexedSource, VisionBaseDataset):
    """Caltech 256: `dataset_dir/<nnn.class>/<nnn_mmmm>.jpg`: image and label uint32 (the class folders in
    sorted order)."""

    _signature = ("dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, decode=False, "
                  "sampler=None, num_shards=None, shard_id=None, cache=None")

    def _scan(self):
        classes = sorted(c for c in os.listdir(self.dataset_dir) if os.path.isdir(self._path(c)))
        records = [(self._path(c, name), k) for k, c in enumerate(classes)
                   for name in sorted(os.listdir(self._path(c))) if name.lower().endswith(".jpg")]
        self._labels = np.asarray([r[1] for r in records], np.uint32)
        return records

    def _class_labels(self):
        self._index()
        return self._labels

    def _load(self, record):
        return [read_image(record[0], self.decode), np.array(record[1], np.uint32)]


class CelebADataset(IndexedSource, VisionBaseDataset):
    """CelebA: `list_attr_celeba.txt` (40 attributes of -1/1 per image), optional `list_eval_partition.txt`, and
    the images in `dataset_dir`. Columns image and attr (uint32 (40,), 0/1).

    Args:
        usage (str, optional): ``'train'``, ``'valid'``, ``'test'`` or ``'all'``. Default: ``'all'``.
        extensions (list[str], optional): only images with these extensions. Default: all.
    """

    _signature = ("dataset_dir, num_parallel_workers=None, shuffle=None, usage='all', sampler=None, decode=False, "
                  "extensions=None, num_samples=None, num_shards=None, shard_id=None, cache=None, decrypt=None")
    _choices = {"usage": ("train", "valid", "test", "all")}
    _columns = ("image", "attr")

    def _scan(self):
        path = self._need(self._path("list_attr_celeba.txt"))
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        if len(lines) < 2:
            raise RuntimeError(f"Invalid file, {path} is truncated: it needs a count line and an attribute-name line.")
        names = lines[1].split()
        partition = None
        if self.usage != "all":
            ppath = self._need(self._path("list_eval_partition.txt"))
            with open(ppath, encoding="utf-8") as f:
                partition = dict(line.split()[:2] for line in f if line.strip())
            want = {"train": "0", "valid": "1", "test": "2"}[self.usage]
        exts = tuple(self.extensions) if self.extensions else None
        records = []
        for line_no, line in enumerate(lines[2:], 3):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != len(names) + 1 or any(v not in ("1", "-1") for v in fields[1:]):
                raise RuntimeError(f"Invalid file, {path} line {line_no}: expected an image name and {len(names)} "
                                   f"attributes of -1/1, but got {line[:80]!r}.")
            image = fields[0]
            if exts is not None and not image.endswith(exts):
                continue
            if partition is not None and partition.get(image) != want:
                continue
            records.append((image, np.array([v == "1" for v in fields[1:]], np.uint32)))
        return records

    def _load(self, record):
        return [read_image(self._path(record[0]), self.decode, self.decrypt), record[1].copy()]


# ---------------------------------------------------------------------------- generated
class FakeImageDataset(IndexedSource, VisionBaseDataset):
    """Random images and labels, the same for the same `base_seed`: image uint8 of `image_size`, label uint32 in
    [0, num_classes)."""

    _signature = ("num_images=1000, image_size=(224, 224, 3), num_classes=10, base_seed=0, " + _MAPPABLE +
                  ", cache=None")

    def _check_args(self):
        for name in ("num_images", "num_classes"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"Input {name} must be a positive int, but got {v!r}.")
        size = self.image_size
        if not isinstance(size, (list, tuple)) or len(size) != 3 or not all(
                isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in size):
            raise ValueError(f"Input image_size must be a list or tuple of 3 positive ints, but got {size!r}.")
        if isinstance(self.base_seed, bool) or not isinstance(self.base_seed, int) or self.base_seed < 0:
            raise ValueError(f"Input base_seed must be a non-negative int, but got {self.base_seed!r}.")

    def _scan(self):
        return range(self.num_images)

    def _class_labels(self):
        return np.asarray([self._rng(i).integers(0, self.num_classes) for i in range(self.num_images)], np.uint32)

    def _rng(self, i):
        return np.random.default_rng([self.base_seed, i])

    def _load(self, i):
        rng = self._rng(i)
        label = rng.integers(0, self.num_classes)  # drawn first: _class_labels draws only this
        return [rng.integers(0, 256, tuple(self.image_size), dtype=np.uint8), np.array(label, np.uint32)]
