"""Image sources in their original file formats: MNIST-like idx files, CIFAR binaries, image folders."""
import os
import struct

import numpy as np

from mindseed.dataset import _validate as V
from mindseed.dataset._sources import MappableSource

__all__ = ["MnistDataset", "FashionMnistDataset", "KMnistDataset", "Cifar10Dataset", "Cifar100Dataset",
           "ImageFolderDataset"]


def _check_usage(usage, allowed, who):
    if usage is None:
        return "all"
    if not isinstance(usage, str):
        raise TypeError(f"Argument usage with value {usage!r} is not of type [<class 'str'>], but got {type(usage)}.")
    if usage not in allowed:
        raise ValueError(f"Input usage is not within the valid set of {list(allowed)}.")
    return usage


def _read_idx(path, magic, ndim):
    """(array, count) of an idx file, checking its magic number and size."""
    try:
        with open(path, "rb") as f:
            head = f.read(4 + 4 * ndim)
            body = f.read()
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
    need = int(np.prod(dims))
    if len(body) < need:
        raise RuntimeError(f"Invalid file, {path} is truncated: the header announces {need} bytes of data but the "
                           f"file has {len(body)}.")
    return np.frombuffer(body, dtype=np.uint8, count=need).reshape(dims)


class _FileArrays(MappableSource):
    """A source read whole from the files of `dataset_dir` for a `usage` ('train', 'test' or 'all'): `_load()`
    gives its columns as arrays (read once, shared by copies), the last one the class label."""

    _name = "MnistDataset"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        V.check_dir(dataset_dir, self._name)
        self.usage = _check_usage(usage, ("train", "test", "all"), self._name)
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)
        self.dataset_dir = dataset_dir
        self._data = None

    def _num_rows(self):
        return len(self._load()[0])

    def _arrays(self):
        return self._load()

    def _class_labels(self):
        return self._load()[-1]

    def __deepcopy__(self, memo):
        new = super().__deepcopy__(memo)
        new._data = self._data  # read-only arrays: share them
        return new


class _IdxDataset(_FileArrays):
    """MNIST's idx format: `{train,t10k}-{images-idx3,labels-idx1}-ubyte` in `dataset_dir`."""

    _name = "MnistDataset"

    def _col_names(self):
        return ["image", "label"]

    def _load(self):
        if self._data is not None:
            return self._data
        prefixes = {"train": ["train"], "test": ["t10k"], "all": ["train", "t10k"]}[self.usage]
        images, labels = [], []
        for p in prefixes:
            img_path = os.path.join(self.dataset_dir, f"{p}-images-idx3-ubyte")
            lab_path = os.path.join(self.dataset_dir, f"{p}-labels-idx1-ubyte")
            if self.usage == "all" and not (os.path.exists(img_path) or os.path.exists(lab_path)):
                continue
            for path in (img_path, lab_path):
                if not os.path.isfile(path):
                    raise RuntimeError(f"Invalid file, {self._name}: file not found: {path}.")
            img = _read_idx(img_path, 2051, 3)
            lab = _read_idx(lab_path, 2049, 1)
            if len(img) != len(lab):
                raise RuntimeError(f"Invalid data, {img_path} holds {len(img)} images but {lab_path} holds "
                                   f"{len(lab)} labels.")
            images.append(img)
            labels.append(lab)
        if not images:
            raise RuntimeError(f"Invalid file, {self._name}: no idx files (train-images-idx3-ubyte / "
                               f"t10k-images-idx3-ubyte) found in {self.dataset_dir}.")
        img = np.concatenate(images) if len(images) > 1 else images[0]
        self._data = [img.reshape(img.shape + (1,)), (np.concatenate(labels) if len(labels) > 1 else
                                                      labels[0]).astype(np.uint32)]
        return self._data


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

    _name = "MnistDataset"


class FashionMnistDataset(_IdxDataset):
    """Fashion-MNIST (same idx layout as MNIST)."""

    _name = "FashionMnistDataset"


class KMnistDataset(_IdxDataset):
    """Kuzushiji-MNIST (same idx layout as MNIST)."""

    _name = "KMnistDataset"


# ---------------------------------------------------------------------------- CIFAR
class _CifarDataset(_FileArrays):
    _record = 3073
    _name = "Cifar10Dataset"

    def _files(self):
        names = sorted(os.listdir(self.dataset_dir))
        train, test = self._split_names(names)
        files = {"train": train, "test": test, "all": train + test}[self.usage]
        if not files:
            raise RuntimeError(f"Invalid file, {self._name}: no {self._pattern} file for usage '{self.usage}' in "
                               f"{self.dataset_dir}.")
        return [os.path.join(self.dataset_dir, f) for f in files]

    def _load(self):
        if self._data is not None:
            return self._data
        recs = []
        for path in self._files():
            size = os.path.getsize(path)
            if size == 0 or size % self._record:
                raise RuntimeError(f"Invalid file, {path} is truncated or corrupt: its size {size} is not a multiple "
                                   f"of the {self._record}-byte record of {self._name}.")
            recs.append(np.fromfile(path, dtype=np.uint8).reshape(-1, self._record))
        rec = np.concatenate(recs) if len(recs) > 1 else recs[0]
        nl = self._record - 3072
        images = np.ascontiguousarray(rec[:, nl:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
        self._data = [images] + [np.ascontiguousarray(rec[:, k]).astype(np.uint32) for k in range(nl)]
        return self._data


class Cifar10Dataset(_CifarDataset):
    """CIFAR-10 from its binary files (data_batch_*.bin, test_batch.bin): image (32, 32, 3) uint8, label uint32.

    Raises:
        ValueError: `dataset_dir` does not exist.
        RuntimeError: no data file, or a file whose size is not a whole number of records.
    """

    _record = 3073
    _name = "Cifar10Dataset"
    _pattern = "data_batch_*.bin / test_batch.bin"

    def _split_names(self, names):
        return ([n for n in names if n.startswith("data_batch_") and n.endswith(".bin")],
                [n for n in names if n == "test_batch.bin"])

    def _col_names(self):
        return ["image", "label"]


class Cifar100Dataset(_CifarDataset):
    """CIFAR-100 from train.bin / test.bin: image (32, 32, 3) uint8, coarse_label and fine_label uint32."""

    _record = 3074
    _name = "Cifar100Dataset"
    _pattern = "train.bin / test.bin"

    def _split_names(self, names):
        return [n for n in names if n == "train.bin"], [n for n in names if n == "test.bin"]

    def _col_names(self):
        return ["image", "coarse_label", "fine_label"]


# ---------------------------------------------------------------------------- ImageFolder
class ImageFolderDataset(MappableSource):
    """Images in one sub-folder per class: columns image (raw bytes, or decoded HWC RGB) and label int32.

    Args:
        dataset_dir (str): the root folder.
        extensions (list[str], optional): file extensions to include (e.g. ['.jpg']). Default: all files.
        class_indexing (dict, optional): folder name -> label. Default: sorted folder names -> 0, 1, ...
        decode (bool, optional): decode the images. Default: ``False``.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as every mappable source.
    """

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 extensions=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None,
                 decrypt=None):
        V.check_dir(dataset_dir, "ImageFolderDataset")
        if extensions is not None and (not isinstance(extensions, list) or
                                       not all(isinstance(e, str) for e in extensions)):
            raise TypeError("extensions should be a list of str.")
        if class_indexing is not None and not isinstance(class_indexing, dict):
            raise TypeError("class_indexing should be a dictionary.")
        V.check_bool(decode, "decode")
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)
        self.dataset_dir = dataset_dir
        self.extensions = extensions
        self.class_indexing = class_indexing
        self.decode = decode
        self.decrypt = decrypt
        self._index = None

    def _col_names(self):
        return ["image", "label"]

    def _scan(self):
        if self._index is not None:
            return self._index
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
        self._index = (files, np.asarray(labels, dtype=np.int32), mapping)
        return self._index

    def get_class_indexing(self):
        return dict(self._scan()[2])

    def _num_rows(self):
        return len(self._scan()[0])

    def _class_labels(self):
        return self._scan()[1]

    def _load_image(self, path):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise RuntimeError(f"Invalid file, failed to open image file: {path}: {e.strerror}.") from None
        if self.decrypt is not None:
            data = self.decrypt(data)
        if not self.decode:
            return np.frombuffer(data, dtype=np.uint8)
        from mindseed.dataset.vision._image import decode_bytes
        return decode_bytes(data, path)

    def _fetch(self, ids):
        files, labels, _ = self._scan()
        for i in ids:
            yield [self._load_image(files[i]), np.array(labels[i], dtype=np.int32)]

    def _rows(self, ctx):
        ids = self._ids(ctx)
        workers = self._workers()
        if not self.decode or workers <= 1:
            yield from self._fetch(ids)
            return
        from mindseed.dataset._engine import pipeline_error
        from mindseed.dataset._workers import ThreadMap, WorkerError
        pool = ThreadMap(lambda c: list(self._fetch(c)), workers)
        try:
            for rows in pool.imap(ids[s:s + 8] for s in range(0, len(ids), 8)):
                yield from rows
        except WorkerError as e:
            raise pipeline_error(e.text.strip().splitlines()[-1]) from None
