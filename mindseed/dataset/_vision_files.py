"""Image readers over folders of image files with list or annotation files: Food101, SUN397, RenderedSST2,
Omniglot, Flickr, SBU, DIV2K, WIDERFace and KITTI."""
import os

import numpy as np

from mindseed.dataset._engine import VisionBaseDataset
from mindseed.dataset._readers import IndexedSource, read_image, strings

__all__ = ["LSUNDataset", "Food101Dataset", "SUN397Dataset", "RenderedSST2Dataset", "OmniglotDataset", "FlickrDataset",
           "SBUDataset", "DIV2KDataset", "WIDERFaceDataset", "KITTIDataset"]

_N_TAIL = ("num_samples=None, num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None, "
           "shard_id=None, cache=None")


def _lines(path):
    """The stripped non-blank lines of a text file (named in the error when it is missing)."""
    if not os.path.isfile(path):
        raise RuntimeError(f"Invalid file, file not found: {path}.")
    with open(path, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]


def _sorted_dirs(path):
    return sorted(d for d in os.listdir(path) if os.path.isdir(os.path.join(path, d)))


class _ImageAndValues(IndexedSource, VisionBaseDataset):
    """Records (image paths, [values]): the images (decoded if asked), then the values."""

    def _load(self, record):
        paths, values = record
        return [read_image(p, self.decode) for p in paths] + [v.copy() if isinstance(v, np.ndarray) else np.array(v)
                                                             for v in values]


class Food101Dataset(_ImageAndValues):
    """Food-101 (`images/<class>/<id>.jpg`, `meta/{train,test}.txt`): columns image and label (the class name,
    string)."""

    _signature = "dataset_dir, usage=None, " + _N_TAIL
    _choices = {"usage": ("train", "test", "all", None)}

    def _scan(self):
        parts = ("train", "test") if self.usage == "all" else (self.usage,)
        return [([self._path("images", f"{item}.jpg")], [item.split("/")[0]])
                for p in parts for item in _lines(self._path("meta", f"{p}.txt"))]


class LSUNDataset(_ImageAndValues):
    """LSUN scenes extracted to folders (`<class>_train/`, `<class>_val/`, and `test/`): columns image and label
    (uint32: the class's index among `classes`, or among all classes found, sorted; 0 for test images).

    Args:
        usage (str, optional): ``'train'``, ``'valid'``, ``'test'`` or ``'all'``. Default: ``None`` (all).
        classes (Union[str, list[str]], optional): the classes to read. Default: ``None`` (all in `dataset_dir`).
    """

    _signature = "dataset_dir, usage=None, classes=None, " + _N_TAIL
    _choices = {"usage": ("train", "valid", "test", "all", None)}

    def _check_args(self):
        classes = [self.classes] if isinstance(self.classes, str) else self.classes
        if classes is not None and (not isinstance(classes, (list, tuple)) or not all(isinstance(c, str)
                                                                                      for c in classes)):
            raise TypeError(f"Argument classes with value {self.classes!r} is not a str or a list of str.")
        self.classes = None if classes is None else list(classes)

    def _scan(self):
        found = sorted({d.rsplit("_", 1)[0] for d in _sorted_dirs(self.dataset_dir)
                        if d.endswith(("_train", "_val"))})
        classes = self.classes if self.classes is not None else found
        suffixes = {"train": ("train",), "valid": ("val",), "test": (), "all": ("train", "val")}[self.usage]
        records = []
        for k, cls in enumerate(classes):
            for suffix in suffixes:
                folder = self._path(f"{cls}_{suffix}")
                if not os.path.isdir(folder):
                    raise RuntimeError(f"Invalid file, LSUNDataset: folder not found: {folder}.")
                records += [([os.path.join(folder, n)], [np.array(k, np.uint32)]) for n in sorted(os.listdir(folder))]
        if self.usage in ("test", "all") and os.path.isdir(self._path("test")):
            records += [([self._path("test", n)], [np.array(0, np.uint32)]) for n in sorted(os.listdir(self._path(
                "test")))]
        return records


class SUN397Dataset(_ImageAndValues):
    """SUN397 (`ClassName.txt` listing `/a/abbey`..., images under `a/abbey/`): columns image, label (uint32: the
    line of the class in ClassName.txt)."""

    _signature = "dataset_dir, " + _N_TAIL

    def _scan(self):
        records = []
        for k, cls in enumerate(_lines(self._path("ClassName.txt"))):
            folder = self._path(*cls.strip("/").split("/"))
            if os.path.isdir(folder):
                records += [([os.path.join(folder, n)], [np.array(k, np.uint32)]) for n in sorted(os.listdir(folder))
                            if n.lower().endswith(".jpg")]
        return records


class RenderedSST2Dataset(_ImageAndValues):
    """Rendered SST2 (`{train,valid,test}/{negative,positive}/*.png`): columns image, label (uint32: 0 negative,
    1 positive)."""

    _signature = "dataset_dir, usage=None, " + _N_TAIL
    _choices = {"usage": ("train", "val", "test", "all", None)}

    def _scan(self):
        parts = ("train", "valid", "test") if self.usage == "all" else ({"val": "valid"}.get(self.usage, self.usage),)
        records = []
        for part in parts:
            for label, sub in enumerate(("negative", "positive")):
                folder = self._path(part, sub)
                if not os.path.isdir(folder):
                    raise RuntimeError(f"Invalid file, RenderedSST2Dataset: folder not found: {folder}.")
                records += [([os.path.join(folder, n)], [np.array(label, np.uint32)])
                            for n in sorted(os.listdir(folder)) if n.endswith(".png")]
        return records


class OmniglotDataset(_ImageAndValues):
    """Omniglot (`images_background/` and `images_evaluation/`, each `<alphabet>/<character>/*.png`): columns
    image, label (uint32: the character, numbered over the sorted alphabets and characters).

    Args:
        background (bool, optional): the background set (True), the evaluation set (False) or both (None).
    """

    _signature = "dataset_dir, background=None, " + _N_TAIL

    def _check_args(self):
        if self.background is not None and not isinstance(self.background, bool):
            raise TypeError(f"Argument background with value {self.background!r} is not of type [<class 'bool'>].")

    def _scan(self):
        sets = {True: ("images_background",), False: ("images_evaluation",)}.get(
            self.background, ("images_background", "images_evaluation"))
        records, label = [], 0
        for s in sets:
            root = self._path(s)
            if not os.path.isdir(root):
                raise RuntimeError(f"Invalid file, OmniglotDataset: folder not found: {root}.")
            for alphabet in _sorted_dirs(root):
                for char in _sorted_dirs(os.path.join(root, alphabet)):
                    folder = os.path.join(root, alphabet, char)
                    records += [([os.path.join(folder, n)], [np.array(label, np.uint32)])
                                for n in sorted(os.listdir(folder)) if n.endswith(".png")]
                    label += 1
        return records


class FlickrDataset(_ImageAndValues):
    """Flickr8k/30k: images in `dataset_dir`, captions in `annotation_file` ("<image>#<k>\\t<caption>" lines):
    columns image and annotation (string (k,): the image's captions)."""

    _columns = ("image", "annotation")
    _signature = ("dataset_dir, annotation_file, num_samples=None, num_parallel_workers=None, shuffle=None, "
                  "decode=None, sampler=None, num_shards=None, shard_id=None, cache=None")

    def _scan(self):
        captions = {}
        for line_no, line in enumerate(_lines(self.annotation_file), 1):
            key, tab, text = line.partition("\t")
            if not tab or "#" not in key:
                raise RuntimeError(f"Invalid file, {self.annotation_file} line {line_no}: expected "
                                   f"'<image>#<k><TAB><caption>'.")
            captions.setdefault(key.rsplit("#", 1)[0], []).append(text)
        return [([self._path(name)], [strings(caps)]) for name, caps in captions.items()]


class SBUDataset(_ImageAndValues):
    """SBU captioned photos (`SBU_captioned_photo_dataset_urls.txt`, `..._captions.txt`, images in `dataset/`
    named by their URL's last part; photos not downloaded are left out): columns image, caption (string)."""

    _signature = "dataset_dir, " + _N_TAIL
    _columns = ("image", "caption")

    def _scan(self):
        urls = _lines(self._path("SBU_captioned_photo_dataset_urls.txt"))
        caps = _lines(self._path("SBU_captioned_photo_dataset_captions.txt"))
        if len(urls) != len(caps):
            raise RuntimeError(f"Invalid file, {self.dataset_dir}: {len(urls)} urls but {len(caps)} captions.")
        paths = [self._path("dataset", u.rsplit("/", 1)[-1]) for u in urls]
        return [([p], [c]) for p, c in zip(paths, caps, strict=True) if os.path.isfile(p)]


class DIV2KDataset(_ImageAndValues):
    """DIV2K super-resolution pairs (`DIV2K_<usage>_HR/0001.png` and `DIV2K_<usage>_LR_<downgrade>/X<scale>/
    0001x<scale>.png`, or `..._LR_<mild|difficult|wild>/0001x4<m|d|w>.png`): columns hr_image, lr_image."""

    _signature = ("dataset_dir, usage='train', downgrade='bicubic', scale=2, num_samples=None, "
                  "num_parallel_workers=None, shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None, "
                  "cache=None")
    _choices = {"usage": ("train", "valid", "all"), "downgrade": ("bicubic", "unknown", "mild", "difficult", "wild")}
    _columns = ("hr_image", "lr_image")

    def _check_args(self):
        if self.scale not in (2, 3, 4, 8) or isinstance(self.scale, bool):
            raise ValueError(f"Input scale is not within the valid set of [2, 3, 4, 8], but got {self.scale!r}.")
        if self.scale == 8 and self.downgrade != "bicubic":
            raise ValueError("DIV2KDataset: scale 8 exists only for downgrade 'bicubic'.")
        if self.downgrade in ("mild", "difficult", "wild") and self.scale != 4:
            raise ValueError(f"DIV2KDataset: downgrade '{self.downgrade}' exists only for scale 4.")

    def _scan(self):
        records = []
        for part in (("train", "valid") if self.usage == "all" else (self.usage,)):
            hr = self._path(f"DIV2K_{part}_HR")
            if not os.path.isdir(hr):
                raise RuntimeError(f"Invalid file, DIV2KDataset: folder not found: {hr}.")
            lr = self._path(f"DIV2K_{part}_LR_{self.downgrade}")
            for name in sorted(n for n in os.listdir(hr) if n.endswith(".png")):
                stem = name[:-4]
                if self.downgrade in ("mild", "difficult", "wild"):
                    low = os.path.join(lr, f"{stem}x4{self.downgrade[0]}.png")
                else:
                    low = os.path.join(lr, f"X{self.scale}", f"{stem}x{self.scale}.png")
                records.append(([os.path.join(hr, name), low], []))
        return records


def _column(rows, dtype, start, stop):
    """Fields start:stop of each row as an (n, stop - start) column (integers wrap as C casts do: KITTI's -1)."""
    a = np.asarray([r[start:stop] for r in rows], np.float64).reshape(len(rows), stop - start)
    return a.astype(dtype) if np.dtype(dtype).kind == "f" else a.astype(np.int64).astype(dtype)


class WIDERFaceDataset(_ImageAndValues):
    """WIDER FACE (`WIDER_{train,val,test}/images/<event>/*.jpg` and `wider_face_split/wider_face_<split>_bbx_gt.txt`):
    columns image, bbox (uint32 (n, 4)), blur, expression, illumination, occlusion, pose, invalid (uint32 (n, 1));
    usage ``'test'`` has the image column only."""

    _signature = "dataset_dir, usage=None, " + _N_TAIL
    _choices = {"usage": ("train", "test", "valid", "all", None)}

    def _col_names(self):
        if self.usage == "test":
            return ["image"]
        return ["image", "bbox", "blur", "expression", "illumination", "occlusion", "pose", "invalid"]

    def _scan(self):
        if self.usage == "test":
            return [([self._path("WIDER_test", "images", p)], [])
                    for p in _lines(self._path("wider_face_split", "wider_face_test_filelist.txt"))]
        records = []
        for part in (("train", "val") if self.usage == "all" else ({"valid": "val"}.get(self.usage, self.usage),)):
            path = self._path("wider_face_split", f"wider_face_{part}_bbx_gt.txt")
            lines, k = _lines(path), 0
            while k < len(lines):
                name = lines[k]
                try:
                    n = int(lines[k + 1])
                    boxes = [[int(v) for v in lines[k + 2 + j].split()[:10]] for j in range(max(n, 1))]
                except (IndexError, ValueError):
                    raise RuntimeError(f"Invalid file, {path} line {k + 1} ({name}): expected a face count and that "
                                       f"many lines of 10 integers.") from None
                boxes = boxes[:n]
                if any(len(b) != 10 for b in boxes):
                    raise RuntimeError(f"Invalid file, {path}: a face line of {name} has fewer than 10 integers.")
                cols = [_column(boxes, np.uint32, 0, 4)] + [_column(boxes, np.uint32, 4 + a, 5 + a) for a in
                                                            (0, 1, 2, 4, 5, 3)]
                records.append(([self._path(f"WIDER_{part}", "images", name)], cols))
                k += 2 + max(n, 1)
        return records


_KITTI_CLASSES = ("Car", "Van", "Truck", "Pedestrian", "Person_sitting", "Cyclist", "Tram", "Misc", "DontCare")


class KITTIDataset(_ImageAndValues):
    """KITTI object detection (`data_object_image_2/{training,testing}/image_2/*.png`,
    `data_object_label_2/training/label_2/*.txt`): columns image, label (uint32 (n, 1)), truncated (float32),
    occluded (uint32), alpha (float32) (n, 1), bbox (float32 (n, 4)), dimensions, location (float32 (n, 3)),
    rotation_y (float32 (n, 1)); usage ``'test'`` has the image column only."""

    _signature = "dataset_dir, usage=None, " + _N_TAIL
    _choices = {"usage": ("train", "test", None)}

    def _col_names(self):
        if self.usage == "test":
            return ["image"]
        return ["image", "label", "truncated", "occluded", "alpha", "bbox", "dimensions", "location", "rotation_y"]

    def _scan(self):
        split = "testing" if self.usage == "test" else "training"
        folder = self._path("data_object_image_2", split, "image_2")
        if not os.path.isdir(folder):
            raise RuntimeError(f"Invalid file, KITTIDataset: folder not found: {folder}.")
        names = sorted(n for n in os.listdir(folder) if n.endswith(".png"))
        if self.usage == "test":
            return [([os.path.join(folder, n)], []) for n in names]
        return [([os.path.join(folder, n)], self._labels(self._path("data_object_label_2", split, "label_2",
                                                                    n[:-4] + ".txt"))) for n in names]

    @staticmethod
    def _labels(path):
        objs = []
        for line_no, line in enumerate(_lines(path), 1):
            f = line.split()
            if len(f) < 15 or f[0] not in _KITTI_CLASSES:
                raise RuntimeError(f"Invalid file, {path} line {line_no}: expected a KITTI class and 14 numbers.")
            try:
                objs.append([_KITTI_CLASSES.index(f[0])] + [float(v) for v in f[1:15]])
            except ValueError:
                raise RuntimeError(f"Invalid file, {path} line {line_no}: a field is not a number.") from None
        spans = ((0, 1, np.uint32), (1, 2, np.float32), (2, 3, np.uint32), (3, 4, np.float32), (4, 8, np.float32),
                 (8, 11, np.float32), (11, 14, np.float32), (14, 15, np.float32))
        return [_column(objs, t, a, b) for a, b, t in spans]
