"""Image sources in their original file formats: MNIST-like idx files, CIFAR binaries, image folders."""
import os
import struct

import numpy as np

from mindseed.dataset._engine import VisionBaseDataset
from mindseed.dataset._readers import IndexedSource, read_image
from mindseed.dataset._sources import MappableSource

__all__ = ["MnistDataset", "FashionMnistDataset", "KMnistDataset", "EMnistDataset", "QMnistDataset",
           "Cifar10Dataset", "Cifar100Dataset", "ImageFolderDataset"]


def _read_idx(path, magic, ndim, dtype=np.uint8):
    """The data of an idx file as a read-only memory map (rows are read when used), after checking its magic
    number and that the file holds the data its header announces."""
    itemsize = np.dtype(dtype).itemsize
    try:
        with open(path, "rb") as f:
            head = f.read(4 + 4 * ndim)
    except OSError as e:
        raise RuntimeError(f"Invalid file, failed to open file: {path}: {e.strerror}.") from None
    if len(head) < 4 + 4 * ndim:
        raise RuntimeError(f"Invalid file, {path} is truncated: its header needs {4 + 4 * ndim} bytes but the file "
                           f"has {len(head)}.")
    got = struct.unpack(">I", head[:4])[0]
    if got != magic:
        raise RuntimeError(f"Invalid file, {path} is not an idx file of this kind: magic number {got:#x} is not "
                           f"{magic:#x} ({'images' if magic == 2051 else 'labels'}).")
    dims = struct.unpack(f">{ndim}I", head[4:])
    need = int(np.prod(dims)) * itemsize
    have = os.path.getsize(path) - len(head)
    if have < need:
        raise RuntimeError(f"Invalid file, {path} is truncated: the header announces {need} bytes of data (record "
                           f"{have // max(need // max(dims[0], 1), 1)} of {dims[0]} is cut) but the file has {have}.")
    if need == 0:
        return np.zeros(dims, dtype)
    return np.memmap(path, dtype=dtype, mode="r", offset=len(head), shape=dims).view(np.ndarray)


class Chain:
    """Arrays of one row shape read as one (row ids across files), without concatenating them in memory.

    `planar` names the layout of planar image parts ((N, C, H, W) 'chw' or (N, C, W, H) 'cwh'): their rows
    come out as HWC, converted one channel at a time (several times faster than numpy's transposing copy).
    """

    def __init__(self, parts, planar=None):
        # plain ndarray views of memory maps: np.memmap's Python-level __getitem__ costs more than the gather
        self.parts = [p.view(np.ndarray) if isinstance(p, np.memmap) else p for p in parts]
        self.planar = planar
        self.starts = np.cumsum([0] + [len(p) for p in self.parts])
        row = tuple(self.parts[0].shape[1:])
        if planar is not None:
            row = (row[1], row[2], row[0]) if planar == "chw" else (row[2], row[1], row[0])
        self.shape = (int(self.starts[-1]),) + row
        self.dtype = self.parts[0].dtype

    def __len__(self):
        return self.shape[0]

    def _hwc(self, planes, out):
        for c in range(planes.shape[1]):
            out[..., c] = planes[:, c] if self.planar == "chw" else planes[:, c].swapaxes(1, 2)
        return out

    def __getitem__(self, key):
        i = key[0] if isinstance(key, tuple) else key
        if isinstance(i, (int, np.integer)):
            k = int(np.searchsorted(self.starts, i, side="right")) - 1
            row = self.parts[k][int(i) - int(self.starts[k])]
            return row if self.planar is None else self._hwc(row[None], np.empty((1,) + self.shape[1:],
                                                                                  self.dtype))[0]
        ids = np.asarray(i, dtype=np.int64)
        out = np.empty((len(ids),) + self.shape[1:], self.dtype)
        part = np.searchsorted(self.starts, ids, side="right") - 1
        for k in np.unique(part):
            sel = part == k
            rows = self.parts[k][ids[sel] - self.starts[k]]
            if self.planar is not None:
                rows = self._hwc(rows, np.empty((len(rows),) + self.shape[1:], self.dtype))
            if sel.all():
                return rows
            out[sel] = rows
        return out


def chain(parts, planar=None):
    """One array-like of `parts` (the part itself when there is one and it needs no conversion)."""
    return parts[0] if len(parts) == 1 and planar is None else Chain(parts, planar)


class _FileArrays(IndexedSource, VisionBaseDataset):
    """A source read from the files of `dataset_dir` for a `usage`: `_load_arrays()` gives its columns as arrays
    indexed by row (memory maps of the files where the format allows), the last one the class label."""

    _signature = ("dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None, "
                  "sampler=None, num_shards=None, shard_id=None, cache=None")
    _choices = {"usage": ("train", "test", "all", None)}

    def _scan(self):
        return self._load_arrays()

    def _num_rows(self):
        return len(self._index()[0])

    def _arrays(self):
        return self._index()

    def _class_labels(self):
        return np.asarray(self._index()[-1])

    _fetch = MappableSource._fetch
    _rows = MappableSource._rows


class _IdxDataset(_FileArrays):
    """MNIST's idx format: `{train,t10k}-{images-idx3,labels-idx1}-ubyte` in `dataset_dir`."""

    _columns = ("image", "label")
    _prefixes = {"train": "train", "test": "t10k"}
    _label_magic, _label_ndim, _label_dtype = 2049, 1, np.uint8

    def _pairs(self):
        """(images file, labels file) of each part of `usage`."""
        parts = list(self._prefixes.values()) if self.usage == "all" else [self._prefixes[self.usage]]
        suffix = "labels-idx1-ubyte" if self._label_ndim == 1 else "labels-idx2-int"
        return [(self._path(f"{p}-images-idx3-ubyte"), self._path(f"{p}-{suffix}")) for p in parts]

    def _labels(self, lab):
        return lab.astype(np.uint32)

    def _load_arrays(self):
        images, labels = [], []
        for img_path, lab_path in self._pairs():
            if self.usage == "all" and not (os.path.exists(img_path) or os.path.exists(lab_path)):
                continue
            img = _read_idx(self._need(img_path), 2051, 3)
            lab = _read_idx(self._need(lab_path), self._label_magic, self._label_ndim, self._label_dtype)
            if len(img) != len(lab):
                raise RuntimeError(f"Invalid data, {img_path} holds {len(img)} images but {lab_path} holds "
                                   f"{len(lab)} labels.")
            images.append(img.reshape(img.shape + (1,)))
            labels.append(self._labels(lab))
        if not images:
            names = ", ".join(os.path.basename(p[0]) for p in self._pairs())
            raise RuntimeError(f"Invalid file, {type(self).__name__}: no idx files ({names}) found in "
                               f"{self.dataset_dir}.")
        return [chain(images), np.concatenate(labels)]


class MnistDataset(_IdxDataset):
    """The MNIST handwritten digits from their idx files: columns image (28, 28, 1) uint8, label uint32.

    Args:
        dataset_dir (str): folder with the idx files.
        usage (str, optional): ``'train'``, ``'test'`` or ``'all'``. Default: ``None`` (all).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as every mappable source.

    Raises:
        ValueError: `dataset_dir` does not exist.
        RuntimeError: a file is missing, is not an idx file of the right kind, or is truncated.
    """


class FashionMnistDataset(_IdxDataset):
    """Fashion-MNIST (same idx layout as MNIST)."""


class KMnistDataset(_IdxDataset):
    """Kuzushiji-MNIST (same idx layout as MNIST)."""


class EMnistDataset(_IdxDataset):
    """EMNIST: `emnist-{name}-{train,test}-{images-idx3,labels-idx1}-ubyte`; image (28, 28, 1) uint8, label uint32.

    Args:
        name (str): the split: ``'byclass'``, ``'bymerge'``, ``'balanced'``, ``'letters'``, ``'digits'`` or
            ``'mnist'``.
    """

    _signature = ("dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None, "
                  "sampler=None, num_shards=None, shard_id=None, cache=None")
    _choices = {"usage": ("train", "test", "all", None),
                "name": ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")}

    @property
    def _prefixes(self):
        return {"train": f"emnist-{self.name}-train", "test": f"emnist-{self.name}-test"}


class QMnistDataset(_IdxDataset):
    """QMNIST: `qmnist-{train,test}-images-idx3-ubyte` with `-labels-idx2-int` (8 int32 per image), and
    `xnist-*` for usage 'nist'. Columns image (28, 28, 1) uint8 and label uint32: the class (`compat`) or
    all 8 label fields.

    Args:
        usage (str, optional): ``'train'``, ``'test'``, ``'test10k'``, ``'test50k'``, ``'nist'`` or ``'all'``
            (train and test). Default: ``None`` (all).
        compat (bool, optional): the label is the class number only. Default: ``True``.
    """

    _signature = ("dataset_dir, usage=None, compat=True, num_samples=None, num_parallel_workers=None, "
                  "shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None")
    _choices = {"usage": ("train", "test", "test10k", "test50k", "nist", "all", None)}
    _label_magic, _label_ndim, _label_dtype = 3074, 2, ">i4"
    _prefixes = {"train": "qmnist-train", "test": "qmnist-test", "nist": "xnist"}

    def _pairs(self):
        usage = self.usage
        self.usage = {"test10k": "test", "test50k": "test"}.get(usage, usage)
        try:
            pairs = super()._pairs()
        finally:
            self.usage = usage
        return pairs[:2] if usage == "all" else pairs

    def _labels(self, lab):
        return (lab[:, 0] if self.compat else lab).astype(np.uint32)

    def _load_arrays(self):
        image, label = super()._load_arrays()
        part = {"test10k": slice(0, 10000), "test50k": slice(10000, None)}.get(self.usage)
        if part is None:
            return [image, label]
        return [image[part], label[part]]


# ---------------------------------------------------------------------------- CIFAR
class _CifarDataset(_FileArrays):
    _record = 3073

    def _files(self):
        names = sorted(os.listdir(self.dataset_dir))
        train, test = self._split_names(names)
        files = {"train": train, "test": test, "all": train + test}[self.usage]
        if not files:
            raise RuntimeError(f"Invalid file, {type(self).__name__}: no {self._pattern} file for usage "
                               f"'{self.usage}' in {self.dataset_dir}.")
        return [os.path.join(self.dataset_dir, f) for f in files]

    def _load_arrays(self):
        recs = []
        for path in self._files():
            size = os.path.getsize(path)
            if size == 0 or size % self._record:
                raise RuntimeError(f"Invalid file, {path} is truncated or corrupt: its size {size} is not a multiple "
                                   f"of the {self._record}-byte record of {type(self).__name__} (record "
                                   f"{size // self._record} is cut).")
            recs.append(np.memmap(path, dtype=np.uint8, mode="r", shape=(size // self._record, self._record)))
        nl = self._record - 3072
        # rows stay in the files (memory maps); a row's image is turned CHW -> HWC when it is read
        images = chain([r[:, nl:].reshape(-1, 3, 32, 32) for r in recs], "chw")
        return [images] + [np.concatenate([r[:, k] for r in recs]).astype(np.uint32) for k in range(nl)]


class Cifar10Dataset(_CifarDataset):
    """CIFAR-10 from its binary files (data_batch_*.bin, test_batch.bin): image (32, 32, 3) uint8, label uint32.

    Raises:
        ValueError: `dataset_dir` does not exist.
        RuntimeError: no data file, or a file whose size is not a whole number of records.
    """

    _record = 3073
    _pattern = "data_batch_*.bin / test_batch.bin"

    def _split_names(self, names):
        return ([n for n in names if n.startswith("data_batch_") and n.endswith(".bin")],
                [n for n in names if n == "test_batch.bin"])



class Cifar100Dataset(_CifarDataset):
    """CIFAR-100 from train.bin / test.bin: image (32, 32, 3) uint8, coarse_label and fine_label uint32."""

    _record = 3074
    _pattern = "train.bin / test.bin"

    def _split_names(self, names):
        return [n for n in names if n == "train.bin"], [n for n in names if n == "test.bin"]

    _columns = ("image", "coarse_label", "fine_label")


# ---------------------------------------------------------------------------- ImageFolder
class ImageFolderDataset(IndexedSource, VisionBaseDataset):
    """Images in one sub-folder per class: columns image (raw bytes, or decoded HWC RGB) and label int32.

    Args:
        dataset_dir (str): the root folder.
        extensions (list[str], optional): file extensions to include (e.g. ['.jpg']). Default: all files.
        class_indexing (dict, optional): folder name -> label. Default: sorted folder names -> 0, 1, ...
        decode (bool, optional): decode the images. Default: ``False``.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as every mappable source.
    """

    _signature = ("dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None, "
                  "extensions=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None, "
                  "decrypt=None")

    def _scan(self):
        classes = sorted(d for d in os.listdir(self.dataset_dir)
                         if os.path.isdir(os.path.join(self.dataset_dir, d)))
        if self.class_indexing is not None:
            mapping = dict(self.class_indexing)
            classes = [c for c in classes if c in mapping]
        else:
            mapping = {c: i for i, c in enumerate(classes)}
        exts = None if self.extensions is None else tuple(self.extensions)
        files, labels = [], []
        for c in classes:
            folder = os.path.join(self.dataset_dir, c)
            for name in sorted(os.listdir(folder)):
                path = os.path.join(folder, name)
                if os.path.isfile(path) and (exts is None or name.endswith(exts)):
                    files.append(path)
                    labels.append(mapping[c])
        self._mapping = mapping
        self._labels = np.asarray(labels, dtype=np.int32)
        return files

    def get_class_indexing(self):
        self._index()
        return dict(self._mapping)

    def _class_labels(self):
        self._index()
        return self._labels

    def _fetch(self, ids):
        files = self._index()
        for i in ids:
            yield [read_image(files[i], self.decode, self.decrypt), np.array(self._labels[i], dtype=np.int32)]
