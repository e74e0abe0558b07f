"""The random vision ops in a seeded map draw MindSpore's numbers (values printed by MindSpore 2.10): each op has
a std::mt19937 per map worker seeded with seed + worker, rows go to the workers in turn, an epoch's end takes
one slot."""
import numpy as np
import pytest

import mindseed.dataset as ds
import mindseed.dataset.vision as vision
from mindseed.dataset import _std_random as S


@pytest.fixture
def seeded():
    old = ds.config.get_seed()
    yield
    ds.config.set_seed(old)


def _crop_flip(seed, workers):
    """(top, left, flipped) of every row of two epochs of RandomCrop((4, 5)) + RandomHorizontalFlip on 10x12."""
    ds.config.set_seed(seed)
    imgs = np.arange(6 * 10 * 12 * 3).reshape(6, 10, 12, 3).astype(np.int32)
    d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
    d = d.map([vision.RandomCrop((4, 5)), vision.RandomHorizontalFlip()], input_columns="image",
              num_parallel_workers=workers)
    it = d.create_dict_iterator(output_numpy=True, num_epochs=2)
    epochs = []
    for _ in range(2):
        out = []
        for i, r in enumerate(it):
            x = r["image"]
            flip = x[0, 0, 0] > x[0, -1, 0]
            c = (x[0, -1, 0] if flip else x[0, 0, 0]) - i * 360
            out.append((int(c // 36), int(c % 36 // 3), int(flip)))
        epochs.append(out)
    return epochs


def test_crop_and_flip_one_worker(seeded):
    assert _crop_flip(1, 1) == [
        [(6, 3, 0), (6, 5, 0), (0, 0, 1), (6, 2, 0), (1, 1, 1), (2, 0, 1)],
        [(2, 1, 1), (4, 2, 0), (6, 3, 0), (5, 4, 0), (2, 3, 1), (3, 5, 0)]]


def test_crop_and_flip_two_workers(seeded):
    assert _crop_flip(5, 2) == [
        [(0, 1, 1), (6, 7, 0), (5, 6, 0), (1, 2, 1), (2, 1, 1), (0, 6, 1)],
        [(2, 0, 1), (6, 7, 0), (6, 0, 0), (0, 3, 1), (0, 4, 1), (2, 4, 1)]]


@pytest.mark.parametrize("workers,expected", [(1, "..F.FFF...F."), (2, ".F..F..FFFFF")])
def test_horizontal_flip_rows(seeded, workers, expected):
    ds.config.set_seed(1)
    imgs = np.stack([np.arange(24, dtype=np.uint8).reshape(2, 4, 3) + i for i in range(12)])
    d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
    d = d.map([vision.RandomHorizontalFlip()], input_columns="image", num_parallel_workers=workers)
    rows = d.create_dict_iterator(output_numpy=True, num_epochs=1)
    got = "".join("F" if r["image"][0, 0, 0] != imgs[i][0, 0, 0] else "." for i, r in enumerate(rows))
    assert got == expected


def test_vertical_flip_rows(seeded):
    ds.config.set_seed(1)
    imgs = np.stack([np.arange(24, dtype=np.uint8).reshape(4, 2, 3) + i for i in range(12)])
    d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
    d = d.map([vision.RandomVerticalFlip()], input_columns="image", num_parallel_workers=1)
    rows = d.create_dict_iterator(output_numpy=True, num_epochs=1)
    got = "".join("F" if r["image"][0, 0, 0] != imgs[i][0, 0, 0] else "." for i, r in enumerate(rows))
    assert got == "..F.FFF...F."


def test_libstdcxx_distributions():
    g = S.mt19937(1)
    assert [S.bernoulli(g, 0.5) for _ in range(6)] == [False, False, True, False, True, True]
    g = S.mt19937(1)
    assert [(S.uniform_int(g, 0, 7), S.uniform_int(g, 0, 6)) for _ in range(3)] == [(3, 6), (5, 6), (0, 0)]
    g, h = S.mt19937(7), S.mt19937(7)
    g.skip(2000)
    for _ in range(2000):
        h()
    assert g() == h()
    assert 0.0 <= S.canonical(S.mt19937(3)) < 1.0


def test_cifar_style_crop_and_flip(seeded):
    # RandomCrop(24, padding=4) + RandomHorizontalFlip with the default workers (2 on the oracle's machine)
    ds.config.set_seed(1)
    imgs = np.random.RandomState(0).randint(0, 256, (6, 32, 32, 3)).astype(np.uint8)
    d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
    d = d.map([vision.RandomCrop(24, padding=4), vision.RandomHorizontalFlip()], input_columns="image",
              num_parallel_workers=2)
    got = [(int(r["image"].astype(np.int64).sum()),
            int((r["image"].astype(np.int64) * np.arange(24)[None, :, None]).sum()))
           for r in d.create_dict_iterator(output_numpy=True, num_epochs=1)]
    assert got == [(179773, 2067982), (211983, 2436160), (195138, 2261704), (164393, 2219155), (168126, 1579625),
                   (183667, 2127925)]


@pytest.mark.parametrize("kwargs,expected", [
    (dict(brightness=0.4), [15863, 30911, 33445, 20930, 24132, 34044]),
    (dict(contrast=0.4), [25536, 26927, 26279, 30026, 25754, 27321]),
    (dict(saturation=0.4), [25502, 26977, 26370, 30022, 25750, 27282]),
    (dict(brightness=0.4, contrast=0.4, saturation=0.4), [33397, 32117, 25881, 28481, 28190, 17736])])
def test_random_color_adjust_rows(seeded, kwargs, expected):
    # std::shuffle of the four adjustments, then a float factor per active one, from the op's generator
    ds.config.set_seed(2)
    imgs = np.random.RandomState(0).randint(0, 256, (6, 8, 9, 3)).astype(np.uint8)
    d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
    d = d.map([vision.RandomColorAdjust(**kwargs)], input_columns="image", num_parallel_workers=2)
    got = [int(r["image"].astype(np.int64).sum()) for r in d.create_dict_iterator(output_numpy=True, num_epochs=1)]
    assert got == expected


def test_std_shuffle_and_float_draws():
    assert S.shuffle_list([0, 1, 2, 3, 4], S.mt19937(9)) == S.shuffle([0, 1, 2, 3, 4], 9).tolist()
    g = S.mt19937(1)
    first = g()
    u = np.float32(first) / np.float32(2 ** 32)
    assert S.uniform_float(S.mt19937(1), 2.0, 3.0) == float(u * np.float32(1.0) + np.float32(2.0)) != 2.0


@pytest.mark.parametrize("degrees,expected", [(30, [95079, 84621, 84006, 81230, 88956, 98504]),
                                              ((10, 80), [79782, 89251, 90117, 83993, 80966, 82542])])
def test_random_rotation_rows(seeded, degrees, expected):
    ds.config.set_seed(3)
    imgs = np.random.RandomState(0).randint(0, 256, (6, 16, 16, 3)).astype(np.uint8)
    d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
    d = d.map([vision.RandomRotation(degrees)], input_columns="image", num_parallel_workers=2)
    got = [int(r["image"].astype(np.int64).sum()) for r in d.create_dict_iterator(output_numpy=True, num_epochs=1)]
    assert got == expected


@pytest.mark.parametrize("kind,expected", [
    ("apply", [48538.0, 50978.0, 49530.0, 48088.0, 48201.0, 51835.0, 40730.0, 46542.0, 46300.0, 47193.0]),
    ("choice", [48538.0, 50978.0, 46860.0, 48088.0, 48201.0, 51835.0, 40730.0, 49848.0, 46300.0, 50529.0])])
def test_random_apply_and_choice_rows(seeded, kind, expected):
    from mindseed.dataset import transforms as T
    ds.config.set_seed(6)
    imgs = np.random.RandomState(0).randint(0, 256, (10, 6, 7, 3)).astype(np.uint8)
    ops = {"apply": [T.RandomApply([vision.Invert()], 0.4)],
           "choice": [T.RandomChoice([vision.Invert(), vision.HorizontalFlip(), vision.VerticalFlip()])]}[kind]
    d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
    d = d.map(ops, input_columns="image", num_parallel_workers=2)
    got = [float((r["image"].astype(np.float64) * np.arange(7)[None, :, None]).sum())
           for r in d.create_dict_iterator(output_numpy=True, num_epochs=1)]
    assert got == expected


def test_random_sharpness_rows(seeded):
    ds.config.set_seed(8)
    imgs = np.random.RandomState(0).randint(0, 256, (6, 9, 10, 3)).astype(np.uint8)
    d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
    d = d.map([vision.RandomSharpness((0.2, 2.5))], input_columns="image", num_parallel_workers=2)
    got = [int(r["image"].astype(np.int64).sum()) for r in d.create_dict_iterator(output_numpy=True, num_epochs=1)]
    assert got == [33063, 33340, 35761, 33323, 34309, 33901]
