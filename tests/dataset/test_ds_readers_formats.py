"""TFRecord, Manifest, RandomDataset, VOC and COCO readers on small trees in their real on-disk formats."""
import gzip
import json
import os
import struct

import numpy as np
import pytest
from PIL import Image

import mindseed as ms
import mindseed.dataset as ds
from mindseed.dataset._format_sources import frame_record, make_example


def rows(d, **kw):
    return [[np.asarray(x) for x in r] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True, **kw)]


def save_image(path, value, size=(6, 5), fmt=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(np.full(size + (3,), value, np.uint8)).save(path, format=fmt)


# ---------------------------------------------------------------------------- TFRecord
def _write_tfrecord(path, examples, compress=False):
    data = b"".join(frame_record(make_example(e)) for e in examples)
    with (gzip.open(path, "wb") if compress else open(path, "wb")) as f:
        f.write(data)


def _examples(start, n):
    return [{"id": [start + i], "vec": [float(start + i), 0.5, -1.0, 2.0], "img": [bytes([start + i, 7, 9])],
             "name": [f"row{start + i}"]} for i in range(n)]


def test_crc32c_matches_the_known_value():
    from mindseed.train.summary._event_file import crc32c
    assert crc32c(b"123456789") == 0xE3069283   # the CRC-32C check value


def test_tfrecord_without_schema_reads_features_and_shards_files(tmp_path):
    _write_tfrecord(str(tmp_path / "a.tfrecord"), _examples(0, 3))
    _write_tfrecord(str(tmp_path / "b.tfrecord"), _examples(10, 2))
    d = ds.TFRecordDataset(str(tmp_path / "*.tfrecord"), shuffle=False)
    assert d.get_col_names() == ["id", "img", "name", "vec"] and d.get_dataset_size() == 5
    out = rows(d)
    assert [int(r[0][0]) for r in out] == [0, 1, 2, 10, 11]
    assert out[1][0].dtype == np.int64 and out[1][3].dtype == np.float32 and out[1][1].dtype == np.uint8
    np.testing.assert_array_equal(out[4][3], [11.0, 0.5, -1.0, 2.0])
    np.testing.assert_array_equal(out[2][1], [2, 7, 9])
    # shard_equal_rows=False: shard 0 reads a.tfrecord, shard 1 b.tfrecord
    per = [[int(r[0][0]) for r in rows(ds.TFRecordDataset(str(tmp_path / "*.tfrecord"), shuffle=False, num_shards=2,
                                                          shard_id=i))] for i in range(2)]
    assert per == [[0, 1, 2], [10, 11]]
    equal = [rows(ds.TFRecordDataset(str(tmp_path / "*.tfrecord"), shuffle=False, num_shards=2, shard_id=i,
                                     shard_equal_rows=True)) for i in range(2)]
    assert [len(e) for e in equal] == [3, 3]


def test_tfrecord_schema_types_shapes_columns_list_and_num_rows(tmp_path):
    _write_tfrecord(str(tmp_path / "a.tfrecord.gz"), _examples(0, 4), compress=True)
    schema = ds.Schema()
    schema.add_column("vec", ms.float64, [2, 2])
    schema.add_column("id", ms.int32, [])
    schema.add_column("name", ms.string)
    d = ds.TFRecordDataset(str(tmp_path / "a.tfrecord.gz"), schema=schema, shuffle=False, compression_type="GZIP")
    out = rows(d)
    assert d.get_col_names() == ["vec", "id", "name"]
    assert out[3][0].shape == (2, 2) and out[3][0].dtype == np.float64 and out[3][1].shape == ()
    assert out[3][1].dtype == np.int32 and str(out[2][2][0]) == "row2"
    path = str(tmp_path / "schema.json")
    with open(path, "w") as f:
        json.dump({"columns": {"id": {"type": "int64", "rank": 1, "shape": [1]}}, "numRows": 2}, f)
    got = rows(ds.TFRecordDataset(str(tmp_path / "a.tfrecord.gz"), schema=path, shuffle=False,
                                  compression_type="GZIP"))
    assert [int(r[0][0]) for r in got] == [0, 1]
    only = ds.TFRecordDataset(str(tmp_path / "a.tfrecord.gz"), columns_list=["name"], shuffle=False,
                              compression_type="GZIP")
    assert only.get_col_names() == ["name"] and rows(only)[0][0].dtype == np.uint8
    with pytest.raises(ValueError, match="valid set"):
        ds.TFRecordDataset(str(tmp_path / "a.tfrecord.gz"), compression_type="LZ4")


def test_tfrecord_corruption_names_file_and_record(tmp_path):
    path = str(tmp_path / "c.tfrecord")
    _write_tfrecord(path, _examples(0, 3))
    raw = bytearray(open(path, "rb").read())
    one = len(frame_record(make_example(_examples(0, 1)[0])))
    raw[one + 20] ^= 0xFF          # a byte of record 1's data
    open(path, "wb").write(bytes(raw))
    with pytest.raises(RuntimeError, match=r"c.tfrecord: record 1 at offset \d+ is corrupt \(data CRC-32C"):
        rows(ds.TFRecordDataset(path, shuffle=False))
    _write_tfrecord(path, _examples(0, 3))
    with open(path, "r+b") as f:
        f.truncate(2 * one + 30)
    with pytest.raises(RuntimeError, match="c.tfrecord: record 2 .*truncated"):
        rows(ds.TFRecordDataset(path, shuffle=False))
    bad = str(tmp_path / "d.tfrecord")
    with open(bad, "wb") as f:
        f.write(frame_record(b"\xff\xff\xff"))
    with pytest.raises(RuntimeError, match="d.tfrecord: record 0 is not a tf.train.Example"):
        rows(ds.TFRecordDataset(bad, columns_list=["x"]))
    assert struct.calcsize("<QI") == 12


# ---------------------------------------------------------------------------- Manifest / Random
def test_manifest_usage_labels_and_errors(tmp_path):
    lines = []
    for i, (usage, names) in enumerate([("train", ["dog"]), ("TRAIN", ["cat", "dog"]), ("eval", ["cat"]),
                                        ("train", ["ant"])]):
        path = str(tmp_path / f"{i}.png")
        save_image(path, 50 * i)
        lines.append(json.dumps({"source": path, "usage": usage, "annotation": [{"type": "label", "name": n}
                                                                               for n in names]}))
    man = tmp_path / "data.manifest"
    man.write_text("\n".join(lines) + "\n")
    d = ds.ManifestDataset(str(man), shuffle=False, decode=True)
    out = rows(d)
    assert d.get_class_indexing() == {"ant": 0, "cat": 1, "dog": 2}
    assert [r[1].tolist() for r in out] == [[2], [1, 2], [0]] and out[1][1].dtype == np.uint32
    assert out[2][0].shape == (6, 5, 3) and int(out[2][0][0, 0, 0]) == 150
    assert ds.ManifestDataset(str(man), usage="eval").get_dataset_size() == 1
    parts = [rows(ds.ManifestDataset(str(man), shuffle=False, num_shards=3, shard_id=i)) for i in range(3)]
    assert [len(p) for p in parts] == [1, 1, 1]
    with pytest.raises(RuntimeError, match="not in class_indexing"):
        rows(ds.ManifestDataset(str(man), class_indexing={"dog": 0}))
    man.write_text(lines[0] + "\n{\"source\": \n")
    with pytest.raises(RuntimeError, match="data.manifest line 2"):
        rows(ds.ManifestDataset(str(man)))


def test_random_dataset_follows_schema_and_seed():
    schema = ds.Schema()
    schema.add_column("image", ms.uint8, [3, 2])
    schema.add_column("score", ms.float32, [4])
    ds.config.set_seed(5)
    a = rows(ds.RandomDataset(total_rows=6, schema=schema, shuffle=False))
    b = rows(ds.RandomDataset(total_rows=6, schema=schema, shuffle=False))
    assert len(a) == 6 and a[0][0].shape == (3, 2) and a[0][0].dtype == np.uint8 and a[0][1].dtype == np.float32
    assert all(np.array_equal(x[1], y[1]) for x, y in zip(a, b, strict=True))
    assert ((a[0][1] >= 0) & (a[0][1] < 1)).all()
    d = ds.RandomDataset(total_rows=6, schema=schema, columns_list=["score"], num_shards=2, shard_id=0)
    assert d.get_col_names() == ["score"] and d.get_dataset_size() == 3
    free = ds.RandomDataset(total_rows=3)
    assert 1 <= len(free.get_col_names()) <= 4 and free.get_dataset_size() == 3
    with pytest.raises(ValueError, match="total_rows"):
        ds.RandomDataset(total_rows=-1)


# ---------------------------------------------------------------------------- VOC
_VOC_XML = """<annotation><filename>{id}.jpg</filename>{objects}</annotation>"""
_VOC_OBJ = ("<object><name>{name}</name><difficult>{d}</difficult><truncated>{t}</truncated>"
            "<bndbox><xmin>{x0}</xmin><ymin>{y0}</ymin><xmax>{x1}</xmax><ymax>{y1}</ymax></bndbox></object>")


def _voc_tree(root):
    objs = {"2007_000001": [("dog", 0, 1, 10, 20, 50, 80), ("cat", 1, 0, 5, 5, 9, 9)],
            "2007_000002": [("person", 0, 0, 1, 2, 3, 4)],
            "2007_000003": [("dog", 0, 0, 0, 0, 5, 5)]}          # xmin 0: left out, and so is the image
    for k, (i, os_) in enumerate(objs.items()):
        save_image(os.path.join(root, "JPEGImages", f"{i}.jpg"), 20 * k, fmt="JPEG")
        save_image(os.path.join(root, "SegmentationClass", f"{i}.png"), 3 * k)
        os.makedirs(os.path.join(root, "Annotations"), exist_ok=True)
        with open(os.path.join(root, "Annotations", f"{i}.xml"), "w") as f:
            f.write(_VOC_XML.format(id=i, objects="".join(_VOC_OBJ.format(name=n, d=d, t=t, x0=a, y0=b, x1=c, y1=e)
                                                             for n, d, t, a, b, c, e in os_)))
    for task in ("Main", "Segmentation"):
        os.makedirs(os.path.join(root, "ImageSets", task), exist_ok=True)
        with open(os.path.join(root, "ImageSets", task, "train.txt"), "w") as f:
            f.write("\n".join(objs) + "\n")


def test_voc_detection_columns_boxes_and_class_indexing(tmp_path):
    _voc_tree(str(tmp_path))
    d = ds.VOCDataset(str(tmp_path), task="Detection", shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["image", "bbox", "label", "difficult", "truncate"] and len(out) == 2
    assert d.get_class_indexing() == {"cat": 0, "dog": 1, "person": 2}
    np.testing.assert_array_equal(out[0][1], [[10, 20, 40, 60], [5, 5, 4, 4]])
    assert out[0][1].dtype == np.float32 and out[0][2].tolist() == [[1], [0]] and out[0][2].dtype == np.uint32
    assert out[0][3].tolist() == [[0], [1]] and out[0][4].tolist() == [[1], [0]]
    only = ds.VOCDataset(str(tmp_path), task="Detection", class_indexing={"person": 7}, shuffle=False)
    assert [r[2].tolist() for r in rows(only)] == [[[7]]]
    parts = [rows(ds.VOCDataset(str(tmp_path), task="Detection", shuffle=False, num_shards=2, shard_id=i))
             for i in range(2)]
    assert [len(p) for p in parts] == [1, 1]
    with open(os.path.join(str(tmp_path), "Annotations", "2007_000002.xml"), "w") as f:
        f.write("<annotation><object><name>dog</name>")
    with pytest.raises(RuntimeError, match="2007_000002.xml is not a valid VOC annotation"):
        rows(ds.VOCDataset(str(tmp_path), task="Detection"))


def test_voc_segmentation_decode_and_errors(tmp_path):
    _voc_tree(str(tmp_path))
    d = ds.VOCDataset(str(tmp_path), shuffle=False, decode=True)
    out = rows(d)
    assert d.get_col_names() == ["image", "target"] and len(out) == 3
    assert out[1][1].shape == (6, 5, 3) and int(out[1][1][0, 0, 0]) == 3
    picked = rows(ds.VOCDataset(str(tmp_path), sampler=ds.SubsetSampler([2])))
    assert picked[0][0].ndim == 1
    with pytest.raises(ValueError, match="class_indexing"):
        ds.VOCDataset(str(tmp_path), class_indexing={"dog": 1})
    with pytest.raises(RuntimeError, match="val.txt"):
        rows(ds.VOCDataset(str(tmp_path), usage="val"))


# ---------------------------------------------------------------------------- COCO
def _coco_tree(root):
    images = [{"id": 7, "file_name": "a.jpg"}, {"id": 9, "file_name": "b.jpg"}, {"id": 11, "file_name": "c.jpg"}]
    for k, img in enumerate(images):
        save_image(os.path.join(root, img["file_name"]), 40 * k, fmt="JPEG")
    ann = [{"image_id": 7, "bbox": [1, 2, 3, 4], "category_id": 1, "iscrowd": 0, "segmentation": [[1, 2, 3, 4],
                                                                                                 [5, 6]],
            "keypoints": list(range(51)), "num_keypoints": 3, "caption": "a dog"},
           {"image_id": 9, "bbox": [5, 6, 7, 8], "category_id": 2, "iscrowd": 1,
            "segmentation": {"counts": [9, 8, 7], "size": [6, 5]}, "keypoints": [0] * 51, "num_keypoints": 0,
            "caption": "two cats"},
           {"image_id": 7, "bbox": [0, 0, 1, 1], "category_id": 2, "iscrowd": 0, "segmentation": [[7, 7]],
            "keypoints": [1] * 51, "num_keypoints": 17, "caption": "a dog and a cat"}]
    cats = [{"id": 1, "name": "dog", "isthing": 1}, {"id": 2, "name": "cat", "isthing": 0}]
    path = os.path.join(root, "ann.json")
    with open(path, "w") as f:
        json.dump({"images": images, "annotations": ann, "categories": cats}, f)
    pan = [{"image_id": 9, "file_name": "b.png", "segments_info": [
        {"id": 1, "bbox": [1, 1, 2, 2], "category_id": 2, "iscrowd": 0, "area": 4},
        {"id": 2, "bbox": [0, 0, 5, 6], "category_id": 1, "iscrowd": 1, "area": 30}]}]
    with open(os.path.join(root, "panoptic.json"), "w") as f:
        json.dump({"images": images, "annotations": pan, "categories": cats}, f)
    return path


def test_coco_tasks_columns_and_values(tmp_path):
    ann = _coco_tree(str(tmp_path))
    d = ds.CocoDataset(str(tmp_path), ann, shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["image", "bbox", "category_id", "iscrowd"] and len(out) == 2   # c.jpg: no annotation
    np.testing.assert_array_equal(out[0][1], [[1, 2, 3, 4], [0, 0, 1, 1]])
    assert out[0][2].tolist() == [[1], [2]] and out[1][3].tolist() == [[1]] and out[0][1].dtype == np.float32
    assert d.get_class_indexing() == {"dog": [1], "cat": [2]}
    stuff = rows(ds.CocoDataset(str(tmp_path), ann, task="Stuff", shuffle=False))
    np.testing.assert_array_equal(stuff[0][1], [[1, 2, 3, 4, 5, 6], [7, 7, -1, -1, -1, -1]])
    np.testing.assert_array_equal(stuff[1][1], [[9, 8, 7]])
    kp = rows(ds.CocoDataset(str(tmp_path), ann, task="Keypoint", shuffle=False))
    assert kp[0][1].shape == (2, 51) and kp[0][2].tolist() == [[3], [17]]
    cap = ds.CocoDataset(str(tmp_path), ann, task="Captioning", shuffle=False, decode=True)
    got = rows(cap)
    assert cap.get_col_names() == ["image", "captions"] and got[0][1].tolist() == ["a dog", "a dog and a cat"]
    assert got[1][0].shape == (6, 5, 3)
    pan = ds.CocoDataset(str(tmp_path), str(tmp_path / "panoptic.json"), task="Panoptic", shuffle=False)
    prow = rows(pan)
    assert pan.get_col_names() == ["image", "bbox", "category_id", "iscrowd", "area"] and len(prow) == 1
    assert prow[0][4].tolist() == [[4], [30]] and pan.get_class_indexing() == {"dog": [1, 1], "cat": [2, 0]}
    parts = [rows(ds.CocoDataset(str(tmp_path), ann, shuffle=False, num_shards=2, shard_id=i)) for i in range(2)]
    assert [len(p) for p in parts] == [1, 1]


def test_coco_errors_name_the_file_and_annotation(tmp_path):
    ann = _coco_tree(str(tmp_path))
    text = open(ann).read()
    with open(ann, "w") as f:
        f.write(text[:len(text) // 2])
    with pytest.raises(RuntimeError, match="ann.json is not a valid COCO annotation JSON"):
        rows(ds.CocoDataset(str(tmp_path), ann))
    doc = json.loads(text)
    del doc["annotations"][1]["bbox"]
    with open(ann, "w") as f:
        json.dump(doc, f)
    with pytest.raises(RuntimeError, match=r"ann.json annotation 1 \(image 9\): the attribute 'bbox' is missing"):
        rows(ds.CocoDataset(str(tmp_path), ann))
    os.remove(str(tmp_path / "b.jpg"))
    with pytest.raises(RuntimeError, match="b.jpg"):
        rows(ds.CocoDataset(str(tmp_path), ann, task="Captioning"))
    with pytest.raises(ValueError, match="valid set"):
        ds.CocoDataset(str(tmp_path), ann, task="Segmentation")
