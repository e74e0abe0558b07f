"""Detection and segmentation readers: VOCDataset (Pascal VOC layout) and CocoDataset (COCO annotation JSON).

The annotations (small) are parsed when the record list is built; the images are read when a row is asked for.
"""
import json
import os
import xml.etree.ElementTree as ET

import numpy as np

from mindseed.dataset._engine import VisionBaseDataset
from mindseed.dataset._readers import IndexedSource, read_image, strings

__all__ = ["VOCDataset", "CocoDataset"]

_VISION_TAIL = ("num_samples=None, num_parallel_workers=None, shuffle=None, decode=False, sampler=None, "
                "num_shards=None, shard_id=None, cache=None, extra_metadata=False, decrypt=None")


def _column(values, dtype, width=1):
    """A (n, width) column of per-object values (shape (0, width) when there is none)."""
    return np.asarray(values, dtype).reshape(-1, width)


class _AnnotatedImages(IndexedSource, VisionBaseDataset):
    """Images with per-image annotation arrays: records are (image path, [arrays...])."""

    def _load(self, record):
        path, arrays = record
        return [read_image(path, self.decode, self.decrypt)] + [a.copy() for a in arrays]

    def get_class_indexing(self):
        self._index()
        return dict(self._class_indexing)


# ---------------------------------------------------------------------------- VOC
class VOCDataset(_AnnotatedImages):
    """Pascal VOC from its distribution layout (`ImageSets/{Segmentation,Main}/<usage>.txt`, `JPEGImages/`,
    `SegmentationClass/`, `Annotations/`).

    Columns: task ``'Segmentation'``: image, target (the class PNG; both raw bytes unless `decode`);
    task ``'Detection'``: image, bbox (float32 (n, 4): xmin, ymin, width, height), label, difficult and truncate
    (uint32 (n, 1)). Objects with an empty or degenerate box, or a class outside `class_indexing`, are left out,
    and so are images left without any object, as MindSpore does.

    Args:
        task (str, optional): ``'Segmentation'`` or ``'Detection'``. Default: ``'Segmentation'``.
        usage (str, optional): the image-set file to read (e.g. ``'train'``, ``'val'``, ``'trainval'``).
            Default: ``'train'``.
        class_indexing (dict, optional): class name -> label (Detection only). Default: the sorted class names of
            all annotations -> 0, 1, ...
        decode (bool, optional): decode the images. Default: ``False``.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as every mappable source.

    Raises:
        ValueError: `class_indexing` is given for Segmentation.
        RuntimeError: the image-set file, an image or an annotation is missing, or an annotation is not valid XML
            (the error names the file).
    """

    _signature = "dataset_dir, task='Segmentation', usage='train', class_indexing=None, " + _VISION_TAIL
    _choices = {"task": ("Segmentation", "Detection")}

    def _check_args(self):
        if not isinstance(self.usage, str):
            raise TypeError(f"Argument usage with value {self.usage!r} is not of type [<class 'str'>].")
        if self.task == "Segmentation" and self.class_indexing:
            raise ValueError("class_indexing is not supported in Segmentation task.")

    def _col_names(self):
        if self.task == "Segmentation":
            return ["image", "target"]
        return ["image", "bbox", "label", "difficult", "truncate"]

    def _image_ids(self):
        path = self._need(self._path("ImageSets", self.task if self.task == "Segmentation" else "Main",
                                     f"{self.usage}.txt"))
        with open(path, encoding="utf-8") as f:
            return [line.split()[0] for line in f if line.strip()]

    def _scan(self):
        ids = self._image_ids()
        if self.task == "Segmentation":
            self._class_indexing = {}
            return [(self._path("JPEGImages", f"{i}.jpg"), self._path("SegmentationClass", f"{i}.png")) for i in ids]
        objects = {i: self._objects(self._need(self._path("Annotations", f"{i}.xml"))) for i in ids}
        if self.class_indexing:
            mapping = dict(self.class_indexing)
        else:
            mapping = {n: k for k, n in enumerate(sorted({o[0] for objs in objects.values() for o in objs}))}
        self._class_indexing = mapping
        records = []
        for i in ids:
            objs = [o for o in objects[i] if o[0] in mapping]
            if not objs:
                continue
            records.append((self._path("JPEGImages", f"{i}.jpg"), [
                _column([o[1] for o in objs], np.float32, 4), _column([mapping[o[0]] for o in objs], np.uint32),
                _column([o[2] for o in objs], np.uint32), _column([o[3] for o in objs], np.uint32)]))
        return records

    def _load(self, record):
        if self.task == "Segmentation":
            return [read_image(p, self.decode, self.decrypt) for p in record]
        return super()._load(record)

    def _objects(self, path):
        """(name, [xmin, ymin, w, h], difficult, truncated) of the valid objects of an annotation file."""
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as e:
            raise RuntimeError(f"Invalid file, {path} is not a valid VOC annotation (XML error: {e}).") from None
        out = []
        for k, obj in enumerate(root.iter("object")):
            name = (obj.findtext("name") or "").strip()
            box = obj.find("bndbox")
            try:
                xmin, ymin, xmax, ymax = (float(box.findtext(t)) for t in ("xmin", "ymin", "xmax", "ymax"))
                difficult = int(obj.findtext("difficult") or 0)
                truncated = int(obj.findtext("truncated") or 0)
            except (AttributeError, TypeError, ValueError):
                raise RuntimeError(f"Invalid file, {path} object {k}: the bndbox needs numeric xmin, ymin, xmax and "
                                   f"ymax (and integer difficult/truncated).") from None
            if name and xmin > 0 and ymin > 0 and xmax > xmin and ymax > ymin:
                out.append((name, [xmin, ymin, xmax - xmin, ymax - ymin], difficult, truncated))
        return out

    def get_class_indexing(self):
        if self.task != "Detection":
            raise RuntimeError("Invalid task, only 'Detection' task supports get_class_indexing.")
        return super().get_class_indexing()


# ---------------------------------------------------------------------------- COCO
def _need_key(obj, key, where):
    if key not in obj:
        raise RuntimeError(f"Invalid annotation, {where}: the attribute '{key}' is missing.")
    return obj[key]


class CocoDataset(_AnnotatedImages):
    """COCO from an annotation JSON and the image folder `dataset_dir`.

    Columns by task (all per-object columns have one row per annotation of the image):
    ``'Detection'`` image, bbox (float32 (n, 4)), category_id, iscrowd (uint32 (n, 1));
    ``'Stuff'`` image, segmentation (float32 (n, L): each object's polygons joined, or its RLE counts, padded
    with -1), iscrowd;
    ``'Keypoint'`` image, keypoints (float32 (n, 51)), num_keypoints (uint32 (n, 1));
    ``'Panoptic'`` image, bbox, category_id, iscrowd, area (uint32 (n, 1)) of each segment;
    ``'Captioning'`` image, captions (string (n,)).
    Images without any annotation are left out, as MindSpore does.

    Raises:
        RuntimeError: the JSON is truncated or invalid, an annotation lacks an attribute the task needs, or an
            image file is missing (each error names the file or the image id).
    """

    _signature = "dataset_dir, annotation_file, task='Detection', " + _VISION_TAIL
    _choices = {"task": ("Detection", "Stuff", "Keypoint", "Panoptic", "Captioning")}
    _task_columns = {"Detection": ("bbox", "category_id", "iscrowd"), "Stuff": ("segmentation", "iscrowd"),
                     "Keypoint": ("keypoints", "num_keypoints"),
                     "Panoptic": ("bbox", "category_id", "iscrowd", "area"), "Captioning": ("captions",)}

    def _col_names(self):
        return ["image"] + list(self._task_columns[self.task])

    def _scan(self):
        path = self.annotation_file
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (ValueError, UnicodeDecodeError) as e:
            raise RuntimeError(f"Invalid file, {path} is not a valid COCO annotation JSON (truncated or corrupt: "
                               f"{e}).") from None
        images = _need_key(doc, "images", path)
        files = {}
        for img in images:
            files[_need_key(img, "id", f"{path} images")] = _need_key(img, "file_name", f"{path} images")
        groups = {}
        for k, ann in enumerate(_need_key(doc, "annotations", path)):
            image_id = _need_key(ann, "image_id", f"{path} annotation {k}")
            if image_id not in files:
                raise RuntimeError(f"Invalid annotation, {path} annotation {k}: image_id {image_id} is not in "
                                   f"'images'.")
            items = ann.get("segments_info", []) if self.task == "Panoptic" else [ann]
            groups.setdefault(image_id, []).extend((f"{path} annotation {k} (image {image_id})", a) for a in items)
        self._class_indexing = {c["name"]: ([c["id"], c.get("isthing", 0)] if self.task == "Panoptic" else [c["id"]])
                                for c in doc.get("categories", [])}
        return [(os.path.join(self.dataset_dir, files[i]), self._arrays_of(groups[i]))
                for i in files if i in groups]

    def _arrays_of(self, anns):
        def field(key, width=1, dtype=np.uint32):
            return _column([_need_key(a, key, where) for where, a in anns], dtype, width)

        task = self.task
        if task == "Captioning":
            return [strings([str(_need_key(a, "caption", where)) for where, a in anns])]
        if task == "Keypoint":
            return [field("keypoints", 51, np.float32), field("num_keypoints")]
        if task == "Stuff":
            segs = []
            for where, a in anns:
                seg = _need_key(a, "segmentation", where)
                flat = seg["counts"] if isinstance(seg, dict) else [v for poly in seg for v in poly]
                segs.append([float(v) for v in flat])
            width = max(len(s) for s in segs)
            padded = np.full((len(segs), width), -1.0, np.float32)
            for r, s in enumerate(segs):
                padded[r, :len(s)] = s
            return [padded, field("iscrowd")]
        out = [field("bbox", 4, np.float32), field("category_id"), field("iscrowd")]
        if task == "Panoptic":
            out.append(field("area"))
        return out
