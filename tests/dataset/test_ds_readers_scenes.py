"""Places365, LFW, Cityscapes, SBDataset and PhotoTour readers on small trees in their distribution layouts."""
import json
import os

import numpy as np
import pytest
from PIL import Image

import mindseed.dataset as ds


def rows(d, **kw):
    return [[np.asarray(x) for x in r] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True, **kw)]


def img(path, value, size=(6, 5), fmt=None):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    Image.fromarray(np.full(size + (3,), value, np.uint8)).save(str(path), format=fmt)


def test_places365_lists(tmp_path):
    img(tmp_path / "data_256" / "a" / "airfield" / "00000001.jpg", 10, fmt="JPEG")
    img(tmp_path / "data_256" / "b" / "bar" / "00000001.jpg", 20, fmt="JPEG")
    img(tmp_path / "val_256" / "Places365_val_00000001.jpg", 30, fmt="JPEG")
    (tmp_path / "places365_train_standard.txt").write_text("/a/airfield/00000001.jpg 0\n/b/bar/00000001.jpg 41\n")
    (tmp_path / "places365_val.txt").write_text("Places365_val_00000001.jpg 165\n")
    out = rows(ds.Places365Dataset(str(tmp_path), usage="train-standard", shuffle=False, decode=True))
    assert [int(r[1]) for r in out] == [0, 41] and out[1][0].shape == (6, 5, 3)
    assert [int(r[1]) for r in rows(ds.Places365Dataset(str(tmp_path), shuffle=False))] == [0, 41, 165]
    assert len(rows(ds.Places365Dataset(str(tmp_path), num_shards=3, shard_id=2))) == 1
    (tmp_path / "places365_val.txt").write_text("no-label-here\n")
    with pytest.raises(RuntimeError, match="places365_val.txt line 1"):
        rows(ds.Places365Dataset(str(tmp_path), usage="val"))


def test_lfw_people_and_pairs(tmp_path):
    for name, n in (("Ann_A", 2), ("Bob_B", 1)):
        for k in range(1, n + 1):
            img(tmp_path / "lfw_funneled" / name / f"{name}_{k:04d}.jpg", 50 * k, fmt="JPEG")
    (tmp_path / "peopleDevTrain.txt").write_text("2\nBob_B\t1\nAnn_A\t2\n")
    (tmp_path / "peopleDevTest.txt").write_text("0\n")
    d = ds.LFWDataset(str(tmp_path), task="people", usage="train", shuffle=False)
    assert d.get_col_names() == ["image", "label"] and [int(r[1]) for r in rows(d)] == [1, 0, 0]
    (tmp_path / "pairsDevTrain.txt").write_text("2\nAnn_A\t1\t2\nAnn_A\t1\tBob_B\t1\n")
    p = ds.LFWDataset(str(tmp_path), task="pairs", usage="train", shuffle=False)
    out = rows(p)
    assert p.get_col_names() == ["image1", "image2", "label"] and [int(r[2]) for r in out] == [1, 0]
    assert not np.array_equal(out[0][0], out[0][1])
    (tmp_path / "pairsDevTrain.txt").write_text("2\nAnn_A\tone\n")
    with pytest.raises(RuntimeError, match="pairsDevTrain.txt line 2"):
        rows(ds.LFWDataset(str(tmp_path), task="pairs", usage="train"))


def test_cityscapes_tasks(tmp_path):
    for split, city in (("train", "aachen"), ("val", "lindau")):
        stem = f"{city}_000000_000019_"
        img(tmp_path / "leftImg8bit" / split / city / f"{stem}leftImg8bit.png", 10)
        img(tmp_path / "gtFine" / split / city / f"{stem}gtFine_instanceIds.png", 20)
        img(tmp_path / "gtFine" / split / city / f"{stem}gtFine_color.png", 30)
        (tmp_path / "gtFine" / split / city / f"{stem}gtFine_polygons.json").write_text(json.dumps({"city": city}))
    d = ds.CityscapesDataset(str(tmp_path), decode=True, shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["image", "task"] and len(out) == 1 and int(out[0][1][0, 0, 0]) == 20
    color = rows(ds.CityscapesDataset(str(tmp_path), usage="all", task="color", decode=True, shuffle=False))
    assert len(color) == 2 and int(color[1][1][0, 0, 0]) == 30
    poly = rows(ds.CityscapesDataset(str(tmp_path), usage="val", task="polygon", shuffle=False))
    assert json.loads(str(poly[0][1])) == {"city": "lindau"}
    with pytest.raises(ValueError, match="quality_mode 'fine'"):
        ds.CityscapesDataset(str(tmp_path), usage="train_extra")
    with pytest.raises(RuntimeError, match="gtFine_labelIds.png"):
        rows(ds.CityscapesDataset(str(tmp_path), task="semantic"))


def test_sbdataset_boundaries_and_segmentation(tmp_path):
    sio = pytest.importorskip("scipy.io")
    sparse = pytest.importorskip("scipy.sparse")
    seg = np.arange(12, dtype=np.uint8).reshape(3, 4) % 3
    bounds = np.empty((20, 1), dtype=object)
    for c in range(20):
        bounds[c, 0] = sparse.csc_matrix((seg == c % 3).astype(np.uint8))
    for i in ("2008_000002", "2008_000003"):
        img(tmp_path / "img" / f"{i}.jpg", 90, size=(3, 4), fmt="JPEG")
        os.makedirs(str(tmp_path / "cls"), exist_ok=True)
        sio.savemat(str(tmp_path / "cls" / f"{i}.mat"), {"GTcls": {"Boundaries": bounds, "Segmentation": seg}})
    (tmp_path / "train.txt").write_text("2008_000002\n")
    (tmp_path / "val.txt").write_text("2008_000003\n")
    out = rows(ds.SBDataset(str(tmp_path), usage="train"))
    assert out[0][1].shape == (20, 3, 4) and out[0][1].dtype == np.uint8
    np.testing.assert_array_equal(out[0][1][4], (seg == 1).astype(np.uint8))
    s = rows(ds.SBDataset(str(tmp_path), task="Segmentation", shuffle=False))
    assert len(s) == 2 and s[1][1].tolist() == seg.tolist()
    with open(str(tmp_path / "cls" / "2008_000003.mat"), "r+b") as f:
        f.truncate(200)
    with pytest.raises(RuntimeError, match="2008_000003.mat"):
        rows(ds.SBDataset(str(tmp_path), usage="val"))


def test_phototour_patches_train_and_test(tmp_path):
    folder = tmp_path / "liberty"
    folder.mkdir()
    tile = np.zeros((1024, 1024), np.uint8)
    for k in range(300 % 256 + 256):
        r, c = divmod(k % 256, 16)
        if k < 256:
            tile[64 * r:64 * r + 64, 64 * c:64 * c + 64] = k
    Image.fromarray(tile).save(str(folder / "patches0000.bmp"))
    tile2 = np.full((1024, 1024), 7, np.uint8)
    Image.fromarray(tile2).save(str(folder / "patches0001.bmp"))
    (folder / "info.txt").write_text("".join(f"{k // 2} 0\n" for k in range(260)))
    (folder / "m50_100000_100000_0.txt").write_text("3 1 0 2 1 0 0\n5 2 0 257 128 0 0\n")
    d = ds.PhotoTourDataset(str(tmp_path), "liberty", shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["image", "label"] and len(out) == 260
    assert out[37][0].shape == (64, 64, 1) and int(out[37][0][5, 5, 0]) == 37 and int(out[37][1]) == 18
    assert int(out[258][0][0, 0, 0]) == 7
    t = rows(ds.PhotoTourDataset(str(tmp_path), "liberty", usage="test", shuffle=False))
    assert [int(r[2]) for r in t] == [1, 0] and int(t[1][1][0, 0, 0]) == 7
    with pytest.raises(ValueError, match="valid set"):
        ds.PhotoTourDataset(str(tmp_path), "paris")
