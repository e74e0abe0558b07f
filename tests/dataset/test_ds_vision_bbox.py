"""Bounding-box vision transforms: boxes as MindSpore 2.10 moves them (its outputs on the same inputs)."""
import numpy as np
import pytest

import mindseed.dataset as ds
import mindseed.dataset.vision as vision
from mindseed.dataset.vision._bbox import crop_bboxes

IMG = np.random.RandomState(1).randint(0, 255, (20, 30, 3)).astype(np.uint8)
BOXES = np.array([[2, 3, 10, 8], [15, 5, 12, 10]], dtype=np.float32)


def test_flips_and_resizes_match_mindspore():
    img, b = vision.RandomHorizontalFlipWithBBox(1.0)(IMG, BOXES)
    np.testing.assert_array_equal(img, IMG[:, ::-1])
    assert b.dtype == np.float32 and b.tolist() == [[18, 3, 10, 8], [3, 5, 12, 10]]
    img, b = vision.RandomVerticalFlipWithBBox(1.0)(IMG, b)
    np.testing.assert_array_equal(img, IMG[::-1])
    assert b.tolist() == [[18, 9, 10, 8], [3, 5, 12, 10]]
    img, b = vision.ResizeWithBBox((10, 15))(IMG, b)
    assert img.shape == (10, 15, 3) and b.tolist() == [[9, 4.5, 5, 4], [1.5, 2.5, 6, 5]]
    img, b = vision.ResizeWithBBox(40)(IMG, b)
    assert img.shape == (40, 60, 3) and b.tolist() == [[18, 9, 10, 8], [3, 5, 12, 10]]
    _, b = vision.ResizeWithBBox((10, 15))(IMG, np.array([[2, 3, 10, 8, 1]], np.float32))
    assert b.tolist() == [[1, 1.5, 5, 4, 1]]
    img, b = vision.RandomResizeWithBBox((5, 6))(IMG, BOXES)
    assert img.shape == (5, 6, 3)
    np.testing.assert_allclose(b, [[0.4, 0.75, 2, 2], [3, 1.25, 2.4, 2.5]], rtol=1e-6)
    assert vision.RandomHorizontalFlipWithBBox(0.0)(IMG, BOXES)[1].tolist() == BOXES.tolist()
    np.testing.assert_array_equal(BOXES, [[2, 3, 10, 8], [15, 5, 12, 10]])  # inputs are not modified


def test_crop_keeps_overlapping_boxes_clipped_to_the_window():
    b = np.array([[2, 3, 10, 8], [15, 5, 12, 10], [0, 0, 1, 1]], np.float32)
    assert crop_bboxes(b, 5, 4, 20, 14).tolist() == [[0, 0, 7, 7], [10, 1, 5, 9]]
    ds.config.set_seed(3)
    for _ in range(20):
        img, out = vision.RandomCropWithBBox((10, 12), padding=2)(IMG, BOXES)
        assert img.shape == (10, 12, 3) and out.shape[1] == 4
        assert (out[:, 0] >= 0).all() and (out[:, 0] + out[:, 2] <= 12).all() and (out[:, 1] + out[:, 3] <= 10).all()
        img, out = vision.RandomResizedCropWithBBox((8, 8), scale=(0.5, 1.0))(IMG, BOXES)
        assert img.shape == (8, 8, 3) and (out[:, 0] + out[:, 2] <= 8 + 1e-5).all()
    full = vision.RandomResizedCropWithBBox((20, 30), scale=(1.0, 1.0), ratio=(1.5, 1.5))(IMG, BOXES)
    np.testing.assert_allclose(full[1], BOXES)


def test_bounding_box_augment_transforms_box_regions():
    img, b = vision.BoundingBoxAugment(vision.RandomVerticalFlip(1.0), 1.0)(IMG, BOXES[:1])
    np.testing.assert_array_equal(img[3:11, 2:12], IMG[3:11, 2:12][::-1])
    np.testing.assert_array_equal(img[11:], IMG[11:])
    assert b.tolist() == BOXES[:1].tolist()
    same, _ = vision.BoundingBoxAugment(vision.RandomVerticalFlip(1.0), 0.0)(IMG, BOXES)
    np.testing.assert_array_equal(same, IMG)
    grown, _ = vision.BoundingBoxAugment(vision.Resize((3, 3)), 1.0)(IMG, BOXES[:1])
    assert grown.shape == IMG.shape


def test_bbox_pipeline_and_errors():
    d = ds.NumpySlicesDataset({"image": [IMG], "bbox": [BOXES]}, shuffle=False)
    d = d.map(vision.RandomHorizontalFlipWithBBox(1.0), input_columns=["image", "bbox"])
    row = next(d.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert row["bbox"].tolist() == [[18, 3, 10, 8], [3, 5, 12, 10]]
    with pytest.raises(RuntimeError, match="out of bounds of the image, as image width: 30, bbox width coordinate: "
                                           "35.000000"):
        vision.ResizeWithBBox((10, 15))(IMG, np.array([[25, 3, 10, 8]], np.float32))
    with pytest.raises(RuntimeError, match="should be of type float32, but got uint32"):
        vision.ResizeWithBBox((10, 15))(IMG, BOXES.astype(np.uint32))
    with pytest.raises(RuntimeError, match="at least 4 features, but got: 3"):
        vision.RandomVerticalFlipWithBBox()(IMG, BOXES[:, :3])
    with pytest.raises(RuntimeError, match="negative value"):
        vision.RandomVerticalFlipWithBBox()(IMG, np.array([[-2, 0, 1, 1]], np.float32))
    with pytest.raises(ValueError, match="ratio is not within"):
        vision.BoundingBoxAugment(vision.RandomVerticalFlip(), 2.0)
