"""Image readers over folders with list/annotation files, on small trees in each dataset's own layout."""
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


def shard_sizes(make, n):
    return [len(rows(make(num_shards=n, shard_id=i))) for i in range(n)]


def test_food101_and_sun397(tmp_path):
    for cls, ids in (("apple_pie", (1, 2)), ("ramen", (3,))):
        for i in ids:
            img(tmp_path / "images" / cls / f"{i}.jpg", 10 * i, fmt="JPEG")
    (tmp_path / "meta").mkdir()
    (tmp_path / "meta" / "train.txt").write_text("apple_pie/1\nramen/3\n")
    (tmp_path / "meta" / "test.txt").write_text("apple_pie/2\n")
    out = rows(ds.Food101Dataset(str(tmp_path), usage="train", shuffle=False, decode=True))
    assert [str(r[1]) for r in out] == ["apple_pie", "ramen"] and out[1][0].shape == (6, 5, 3)
    assert ds.Food101Dataset(str(tmp_path)).get_dataset_size() == 3
    assert shard_sizes(lambda **k: ds.Food101Dataset(str(tmp_path), **k), 3) == [1, 1, 1]
    (tmp_path / "meta" / "test.txt").write_text("apple_pie/9\n")
    with pytest.raises(RuntimeError, match="9.jpg"):
        rows(ds.Food101Dataset(str(tmp_path), usage="test"))
    sun = tmp_path / "sun"
    for k, cls in enumerate(("a/abbey", "b/bakery/shop")):
        for j in range(2):
            img(sun / cls / f"sun_{k}{j}.jpg", 30 * k + j, fmt="JPEG")
    (sun / "ClassName.txt").write_text("/a/abbey\n/b/bakery/shop\n")
    out = rows(ds.SUN397Dataset(str(sun), shuffle=False))
    assert [int(r[1]) for r in out] == [0, 0, 1, 1] and out[0][1].dtype == np.uint32
    assert [int(r[1]) for r in rows(ds.SUN397Dataset(str(sun), sampler=ds.SubsetSampler([3, 0])))] == [1, 0]


def test_rendered_sst2_and_omniglot(tmp_path):
    for part in ("train", "valid", "test"):
        for sub in ("negative", "positive"):
            img(tmp_path / "r" / part / sub / f"{part}{sub}.png", 7)
    d = ds.RenderedSST2Dataset(str(tmp_path / "r"), usage="val", shuffle=False)
    assert [int(r[1]) for r in rows(d)] == [0, 1]
    assert ds.RenderedSST2Dataset(str(tmp_path / "r")).get_dataset_size() == 6
    om = tmp_path / "o"
    for s, alphabets in (("images_background", ("Greek", "Latin")), ("images_evaluation", ("Runic",))):
        for a in alphabets:
            for c in ("character01", "character02"):
                img(om / s / a / c / f"{a}_{c}.png", 100)
    bg = rows(ds.OmniglotDataset(str(om), background=True, shuffle=False))
    assert [int(r[1]) for r in bg] == [0, 1, 2, 3]
    assert [int(r[1]) for r in rows(ds.OmniglotDataset(str(om), shuffle=False))] == [0, 1, 2, 3, 4, 5]
    assert shard_sizes(lambda **k: ds.OmniglotDataset(str(om), background=False, **k), 2) == [1, 1]
    with pytest.raises(TypeError, match="background"):
        ds.OmniglotDataset(str(om), background="yes")


def test_flickr_sbu_and_div2k(tmp_path):
    for name in ("1000_a.jpg", "2000_b.jpg"):
        img(tmp_path / "f" / name, 40, fmt="JPEG")
    ann = tmp_path / "captions.txt"
    ann.write_text("1000_a.jpg#0\tA child.\n1000_a.jpg#1\tA girl.\n2000_b.jpg#0\tTwo dogs.\n")
    d = ds.FlickrDataset(str(tmp_path / "f"), str(ann), shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["image", "annotation"] and out[0][1].tolist() == ["A child.", "A girl."]
    ann.write_text("1000_a.jpg A child without tab\n")
    with pytest.raises(RuntimeError, match="captions.txt line 1"):
        rows(ds.FlickrDataset(str(tmp_path / "f"), str(ann)))
    sbu = tmp_path / "sbu"
    img(sbu / "dataset" / "111.jpg", 5, fmt="JPEG")
    (sbu / "SBU_captioned_photo_dataset_urls.txt").write_text("http://x/111.jpg\nhttp://x/222.jpg\n")
    (sbu / "SBU_captioned_photo_dataset_captions.txt").write_text("a cat on a mat\nnot downloaded\n")
    out = rows(ds.SBUDataset(str(sbu)))
    assert len(out) == 1 and str(out[0][1]) == "a cat on a mat"
    div = tmp_path / "div"
    for k in (1, 2):
        img(div / "DIV2K_train_HR" / f"000{k}.png", k, size=(8, 8))
        img(div / "DIV2K_train_LR_bicubic" / "X2" / f"000{k}x2.png", k, size=(4, 4))
        img(div / "DIV2K_train_LR_mild" / f"000{k}x4m.png", k, size=(2, 2))
    d = ds.DIV2KDataset(str(div), shuffle=False, decode=True)
    out = rows(d)
    assert d.get_col_names() == ["hr_image", "lr_image"]
    assert out[1][0].shape == (8, 8, 3) and out[1][1].shape == (4, 4, 3)
    assert rows(ds.DIV2KDataset(str(div), downgrade="mild", scale=4, decode=True))[0][1].shape == (2, 2, 3)
    with pytest.raises(ValueError, match="scale 4"):
        ds.DIV2KDataset(str(div), downgrade="mild", scale=2)
    os.remove(str(div / "DIV2K_train_LR_bicubic" / "X2" / "0002x2.png"))
    with pytest.raises(RuntimeError, match="0002x2.png"):
        rows(ds.DIV2KDataset(str(div), shuffle=False))


def test_widerface_and_kitti(tmp_path):
    w = tmp_path / "w"
    img(w / "WIDER_train" / "images" / "0--Parade" / "a.jpg", 1, fmt="JPEG")
    img(w / "WIDER_train" / "images" / "0--Parade" / "b.jpg", 2, fmt="JPEG")
    (w / "wider_face_split").mkdir(parents=True)
    (w / "wider_face_split" / "wider_face_train_bbx_gt.txt").write_text(
        "0--Parade/a.jpg\n2\n78 221 7 8 2 0 0 0 0 0 \n78 238 14 17 1 1 1 1 2 1 \n"
        "0--Parade/b.jpg\n0\n0 0 0 0 0 0 0 0 0 0 \n")
    d = ds.WIDERFaceDataset(str(w), usage="train", shuffle=False)
    out = rows(d)
    assert d.get_col_names()[1:] == ["bbox", "blur", "expression", "illumination", "occlusion", "pose", "invalid"]
    assert out[0][1].tolist() == [[78, 221, 7, 8], [78, 238, 14, 17]] and out[0][1].dtype == np.uint32
    assert out[0][2].tolist() == [[2], [1]] and out[0][5].tolist() == [[0], [2]] and out[0][7].tolist() == [[0], [1]]
    assert out[1][1].shape == (0, 4)
    (w / "wider_face_split" / "wider_face_train_bbx_gt.txt").write_text("0--Parade/a.jpg\n2\n78 221 7 8 2 0 0 0 0 0\n")
    with pytest.raises(RuntimeError, match="wider_face_train_bbx_gt.txt line 1 \\(0--Parade/a.jpg\\)"):
        rows(ds.WIDERFaceDataset(str(w), usage="train"))
    k = tmp_path / "k"
    for i in range(2):
        img(k / "data_object_image_2" / "training" / "image_2" / f"00000{i}.png", i)
    lab = k / "data_object_label_2" / "training" / "label_2"
    lab.mkdir(parents=True)
    (lab / "000000.txt").write_text("Car 0.00 0 -1.58 587.01 173.33 614.12 200.12 1.65 1.67 3.64 -0.65 1.71 46.70 "
                                    "-1.59\nPedestrian 0.50 2 0.2 1 2 3 4 1.7 0.6 0.8 1 2 3 0.1\n")
    (lab / "000001.txt").write_text("DontCare -1 -1 -10 503.89 169.71 590.61 190.13 -1 -1 -1 -1000 -1000 -1000 -10\n")
    d = ds.KITTIDataset(str(k), usage="train", shuffle=False)
    out = rows(d)
    assert len(d.get_col_names()) == 9 and out[0][1].tolist() == [[0], [3]] and out[1][1].tolist() == [[8]]
    assert out[1][3].tolist() == [[2 ** 32 - 1]]   # DontCare's occluded -1, as an uint32
    np.testing.assert_allclose(out[0][5][0], [587.01, 173.33, 614.12, 200.12], rtol=1e-6)
    assert out[0][3].tolist() == [[0], [2]] and out[0][7].dtype == np.float32 and out[0][7].shape == (2, 3)
    assert [len(p) for p in ([rows(ds.KITTIDataset(str(k), usage="train", num_shards=2, shard_id=i))
                              for i in range(2)])] == [1, 1]
    (lab / "000001.txt").write_text("Spaceship 1 2 3\n")
    with pytest.raises(RuntimeError, match="000001.txt line 1"):
        rows(ds.KITTIDataset(str(k), usage="train"))


def test_lsun_class_folders(tmp_path):
    for cls in ("bedroom", "tower"):
        for split in ("train", "val"):
            for j in range(2 if split == "train" else 1):
                img(tmp_path / f"{cls}_{split}" / f"{j}.jpg", 9, fmt="JPEG")
    img(tmp_path / "test" / "t0.jpg", 9, fmt="JPEG")
    out = rows(ds.LSUNDataset(str(tmp_path), usage="train", shuffle=False))
    assert [int(r[1]) for r in out] == [0, 0, 1, 1] and out[0][1].dtype == np.uint32
    assert [int(r[1]) for r in rows(ds.LSUNDataset(str(tmp_path), usage="valid", classes="tower"))] == [0]
    assert ds.LSUNDataset(str(tmp_path)).get_dataset_size() == 7
    with pytest.raises(RuntimeError, match="kitchen_train"):
        rows(ds.LSUNDataset(str(tmp_path), usage="train", classes=["kitchen"]))
