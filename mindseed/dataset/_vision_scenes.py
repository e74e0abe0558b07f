"""Scene, face and patch readers: Places365, LFW, Cityscapes, SBDataset (Semantic Boundaries) and PhotoTour."""
import os

import numpy as np

from mindseed.dataset._readers import read_bytes
from mindseed.dataset._vision_files import _ImageAndValues, _lines, _sorted_dirs
from mindseed.dataset._vision_more import _mat_var, load_mat

__all__ = ["Places365Dataset", "LFWDataset", "CityscapesDataset", "SBDataset", "PhotoTourDataset"]


class Places365Dataset(_ImageAndValues):
    """Places365 (`categories_places365.txt`, `places365_{train_standard,train_challenge,val}.txt`, images in
    `data_256/` and `val_256/`, or `data_large/` and `val_large/`): columns image, label (uint32)."""

    _signature = ("dataset_dir, usage=None, small=True, decode=False, num_samples=None, num_parallel_workers=None, "
                  "shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None")
    _choices = {"usage": ("train-standard", "train-challenge", "val", "all", None)}

    def _scan(self):
        size = "256" if self.small else "large"
        parts = ("train-standard", "val") if self.usage == "all" else (self.usage,)
        records = []
        for part in parts:
            listing = self._path(f"places365_{part.replace('-', '_')}.txt")
            folder = self._path(f"data_{size}" if part.startswith("train") else f"val_{size}")
            for line_no, line in enumerate(_lines(listing), 1):
                name, _, label = line.rpartition(" ")
                if not name or not label.isdigit():
                    raise RuntimeError(f"Invalid file, {listing} line {line_no}: expected '<image> <label>'.")
                records.append(([os.path.join(folder, name.lstrip("/"))], [np.array(int(label), np.uint32)]))
        return records


class LFWDataset(_ImageAndValues):
    """Labeled Faces in the Wild (`lfw/`, `lfw_funneled/` or `lfw-deepfunneled/` with `<name>/<name>_%04d.jpg`;
    `people*.txt` and `pairs*.txt` lists). Task ``'people'``: columns image, label (uint32: the person's index
    among the sorted names); task ``'pairs'``: image1, image2, label (uint32: 1 same person, 0 not).

    Args:
        task (str, optional): ``'people'`` or ``'pairs'``. Default: ``None`` (people).
        usage (str, optional): ``'10fold'`` (people.txt / pairs.txt), ``'train'`` (*DevTrain.txt), ``'test'``
            (*DevTest.txt) or ``'all'`` (train and test). Default: ``None`` (all).
        image_set (str, optional): ``'original'``, ``'funneled'`` or ``'deepfunneled'``. Default: funneled.
    """

    _signature = ("dataset_dir, task=None, usage=None, image_set=None, num_samples=None, num_parallel_workers=None, "
                  "shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None")
    _choices = {"task": ("people", "pairs", None), "usage": ("10fold", "train", "test", "all", None),
                "image_set": ("original", "funneled", "deepfunneled", None)}

    def _col_names(self):
        return ["image1", "image2", "label"] if self.task == "pairs" else ["image", "label"]

    def _image(self, name, number):
        folder = {"original": "lfw", "deepfunneled": "lfw-deepfunneled"}.get(self.image_set, "lfw_funneled")
        return self._path(folder, name, f"{name}_{int(number):04d}.jpg")

    def _lists(self):
        kind = "pairs" if self.task == "pairs" else "people"
        names = {"10fold": [f"{kind}.txt"], "train": [f"{kind}DevTrain.txt"], "test": [f"{kind}DevTest.txt"],
                 "all": [f"{kind}DevTrain.txt", f"{kind}DevTest.txt"]}[self.usage]
        return [self._path(n) for n in names]

    def _scan(self):
        records, people = [], []
        for listing in self._lists():
            for line_no, line in enumerate(_lines(listing), 1):
                f = line.split()
                if all(x.isdigit() for x in f):
                    continue   # a header or fold size: counts only
                if self.task == "pairs" and len(f) in (3, 4) and f[-1].isdigit():
                    a, b = (f[0], f[1]), (f[0], f[2]) if len(f) == 3 else (f[2], f[3])
                    records.append(([self._image(*a), self._image(*b)], [np.array(int(len(f) == 3), np.uint32)]))
                elif self.task != "pairs" and len(f) == 2 and f[1].isdigit():
                    people.append((f[0], int(f[1])))
                else:
                    raise RuntimeError(f"Invalid file, {listing} line {line_no}: not an LFW "
                                       f"{'pair' if self.task == 'pairs' else 'person'} line.")
        if self.task == "pairs":
            return records
        index = {n: k for k, n in enumerate(sorted({p for p, _ in people}))}
        return [([self._image(p, k)], [np.array(index[p], np.uint32)]) for p, n in people for k in range(1, n + 1)]


class CityscapesDataset(_ImageAndValues):
    """Cityscapes (`leftImg8bit/<split>/<city>/*_leftImg8bit.png` and `gtFine|gtCoarse/<split>/<city>/...`):
    columns image and task: the instance-id, label-id or color PNG (raw bytes unless `decode`), or the polygons
    JSON text for task ``'polygon'``.

    Args:
        usage (str, optional): ``'train'``, ``'test'``, ``'val'`` (fine) or ``'train_extra'`` (coarse), or
            ``'all'``. Default: ``'train'``.
        quality_mode (str, optional): ``'fine'`` or ``'coarse'``. Default: ``'fine'``.
        task (str, optional): ``'instance'``, ``'semantic'``, ``'polygon'`` or ``'color'``. Default: ``'instance'``.
    """

    _signature = ("dataset_dir, usage='train', quality_mode='fine', task='instance', num_samples=None, "
                  "num_parallel_workers=None, shuffle=None, decode=None, sampler=None, num_shards=None, "
                  "shard_id=None, cache=None")
    _choices = {"usage": ("train", "test", "val", "train_extra", "all"), "quality_mode": ("fine", "coarse"),
                "task": ("instance", "semantic", "polygon", "color")}
    _columns = ("image", "task")
    _suffix = {"instance": "instanceIds.png", "semantic": "labelIds.png", "color": "color.png",
               "polygon": "polygons.json"}

    def _check_args(self):
        allowed = ("train", "test", "val", "all") if self.quality_mode == "fine" else ("train", "train_extra", "val",
                                                                                        "all")
        if self.usage not in allowed:
            raise ValueError(f"Input usage is not within the valid set of {list(allowed)} for quality_mode "
                             f"'{self.quality_mode}'.")

    def _scan(self):
        gt = "gtFine" if self.quality_mode == "fine" else "gtCoarse"
        splits = [u for u in self._choices["usage"][:-1] if os.path.isdir(self._path("leftImg8bit", u))] \
            if self.usage == "all" else [self.usage]
        records = []
        for split in splits:
            root = self._path("leftImg8bit", split)
            if not os.path.isdir(root):
                raise RuntimeError(f"Invalid file, CityscapesDataset: folder not found: {root}.")
            for city in _sorted_dirs(root):
                for name in sorted(os.listdir(os.path.join(root, city))):
                    if name.endswith("_leftImg8bit.png"):
                        stem = name[:-len("leftImg8bit.png")]
                        target = self._path(gt, split, city, f"{stem}{gt}_{self._suffix[self.task]}")
                        records.append(([os.path.join(root, city, name)], [target]))
        return records

    def _load(self, record):
        (image,), (target,) = record
        if self.task == "polygon":
            return self._images(image) + [np.array(read_bytes(target).decode("utf-8"))]
        return self._images(image, target)

    def _images(self, *paths):
        return super()._load((list(paths), []))


class SBDataset(_ImageAndValues):
    """Semantic Boundaries Dataset (`img/<id>.jpg`, `cls/<id>.mat` with GTcls, and `train.txt`, `val.txt`,
    `train_noval.txt`): columns image and task: 'Boundaries' gives uint8 (20, H, W) class boundary maps,
    'Segmentation' the uint8 (H, W) class map.

    Args:
        task (str, optional): ``'Boundaries'`` or ``'Segmentation'``. Default: ``'Boundaries'``.
        usage (str, optional): ``'train'``, ``'val'``, ``'train_noval'`` or ``'all'`` (train and val).
    """

    _signature = ("dataset_dir, task='Boundaries', usage='all', num_samples=None, num_parallel_workers=1, "
                  "shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None")
    _choices = {"task": ("Boundaries", "Segmentation"), "usage": ("train", "val", "train_noval", "all")}

    def _col_names(self):
        return ["image", "task"]

    def _scan(self):
        parts = ("train", "val") if self.usage == "all" else (self.usage,)
        return [([self._path("img", f"{i}.jpg")], [self._path("cls", f"{i}.mat")])
                for p in parts for i in _lines(self._path(f"{p}.txt"))]

    def _load(self, record):
        (image,), (target,) = record
        gt = _mat_var(load_mat(target, "SBDataset"), "GTcls", target)[0, 0]
        try:
            if self.task == "Segmentation":
                out = np.asarray(gt["Segmentation"], np.uint8)
            else:
                out = np.stack([np.asarray(b[0].toarray() if hasattr(b[0], "toarray") else b[0], np.uint8)
                                for b in gt["Boundaries"]])
        except (ValueError, IndexError, KeyError) as e:
            raise RuntimeError(f"Invalid file, {target}: GTcls lacks a readable {self.task} field ({e}).") from None
        return super()._load(([image], [out]))


class PhotoTourDataset(_ImageAndValues):
    """Photo Tourism patches (`<name>/patches%04d.bmp`: 1024x1024 tiles of 16x16 patches of 64x64, `info.txt`
    with each patch's 3D point, `m50_100000_100000_0.txt` with test pairs). Usage ``'train'``: columns image
    (uint8 (64, 64, 1)) and label (uint32: the 3D point); ``'test'``: image1, image2, matches (uint32).

    Args:
        name (str): ``'notredame'``, ``'yosemite'``, ``'liberty'`` or their ``'_harris'`` versions.
        usage (str, optional): ``'train'`` or ``'test'``. Default: ``None`` (train).
    """

    _signature = ("dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None, "
                  "sampler=None, num_shards=None, shard_id=None, cache=None")
    _choices = {"name": ("notredame", "yosemite", "liberty", "notredame_harris", "yosemite_harris",
                         "liberty_harris"), "usage": ("train", "test", None)}

    def _col_names(self):
        return ["image1", "image2", "matches"] if self.usage == "test" else ["image", "label"]

    def _scan(self):
        folder = self._path(self.name)
        info = [line.split() for line in _lines(os.path.join(folder, "info.txt"))]
        points = np.asarray([int(f[0]) for f in info], np.int64)
        if self.usage != "test":
            return [(k, [np.array(points[k], np.uint32)]) for k in range(len(points))]
        pairs = []
        path = os.path.join(folder, "m50_100000_100000_0.txt")
        for line_no, line in enumerate(_lines(path), 1):
            f = line.split()
            if len(f) < 5 or not (f[0].isdigit() and f[3].isdigit()):
                raise RuntimeError(f"Invalid file, {path} line {line_no}: expected 'patch1 point1 _ patch2 point2'.")
            pairs.append(((int(f[0]), int(f[3])), [np.array(int(f[1] == f[4]), np.uint32)]))
        return pairs

    def _patch(self, k):
        tile, pos = divmod(int(k), 256)
        path = os.path.join(self._path(self.name), f"patches{tile:04d}.bmp")
        from mindseed.dataset.vision._image import decode_bytes
        image = decode_bytes(read_bytes(path, "image file"), path)
        if image.shape[:2] != (1024, 1024):
            raise RuntimeError(f"Invalid file, {path} is {image.shape[:2]}, not a 1024x1024 tile of 64x64 patches.")
        r, c = divmod(pos, 16)
        return np.ascontiguousarray(image[64 * r:64 * r + 64, 64 * c:64 * c + 64, :1])

    def _load(self, record):
        key, values = record
        keys = key if isinstance(key, tuple) else (key,)
        return [self._patch(k) for k in keys] + [v.copy() for v in values]
