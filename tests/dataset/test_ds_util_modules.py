"""The helper modules MindSpore exposes under dataset.transforms / dataset.vision (py_transforms_util,
validators) and the submodule names of the dataset namespaces."""
import numpy as np
import pytest

import mindseed.dataset as ds
import mindseed.dataset.transforms as transforms
import mindseed.dataset.vision as vision
from mindseed.dataset.transforms import py_transforms_util as tu
from mindseed.dataset.vision import py_transforms_util as vu


def test_transforms_py_util_functions():
    np.testing.assert_allclose(tu.one_hot_encoding(np.array([1, 0]), 3, 0.3),
                               [[0.1, 0.8, 0.1], [0.8, 0.1, 0.1]])
    np.testing.assert_array_equal(tu.one_hot_encoding(np.array(2), 3, 0.0), [0, 0, 1])
    with pytest.raises(ValueError, match="smaller than the category number:3"):
        tu.one_hot_encoding(np.array([3]), 3, 0.0)
    with pytest.raises(ValueError, match="should be int"):
        tu.one_hot_encoding(np.array([1.0]), 3, 0.0)
    assert tu.compose([lambda x: x + 1, lambda x: x * 2], 3) == (8,)
    assert tu.all_numpy((np.ones(1), np.ones(2))) and not tu.all_numpy((np.ones(1), 1))
    ds.config.set_seed(0)
    ops = [lambda x: x + 1, lambda x: x * 10]
    assert tu.random_order(1, ops) in (20, 11)
    assert tu.random_apply(1, ops, 1.0) == 20 and tu.random_apply(1, ops, 0.0) == 1
    assert tu.random_choice(1, ops) in (2, 10)
    with pytest.raises(RuntimeError, match="Python function boom raised ZeroDivisionError"):
        def boom(x):
            return x / 0
        tu.FuncWrapper(boom)(1)


def test_vision_py_util_functions_run_the_transforms():
    img = np.arange(4 * 6 * 3, dtype=np.uint8).reshape(4, 6, 3)
    np.testing.assert_array_equal(vu.horizontal_flip(img), img[:, ::-1])
    np.testing.assert_array_equal(vu.crop(img, 1, 2, 2, 3), img[1:3, 2:5])
    np.testing.assert_array_equal(vu.rgb_to_bgr(img, True), img[..., ::-1])
    assert vu.hwc_to_chw(img).shape == (3, 4, 6) and vu.resize(img, (2, 3)).shape == (2, 3, 3)
    chw = vu.normalize(np.ones((3, 2, 2)), [0.5, 0.5, 0.5], [0.25, 0.5, 1.0], pad_channel=True)
    assert chw.shape == (4, 2, 2) and chw[:, 0, 0].tolist() == [2, 1, 0.5, 0]
    assert vision.validators.check_size(5) == 5
    with pytest.raises(ValueError, match="prob is not within the required interval"):
        vision.validators.check_prob(1.5)
    with pytest.raises(TypeError, match="Argument num_shards"):
        transforms.validators.check_sharding("2", 0)


def test_namespace_submodules():
    assert transforms.vision is vision and transforms.transforms.Compose is transforms.Compose
    assert vision.not_random(lambda x: x).random is False and vision.transforms.Resize is vision.Resize
    assert ds.audio.transforms.Vad is ds.audio.Vad and ds.text.validators.check_uint32 is not None
