"""Fast paths of the image pipeline give exactly what the plain ops give: map's fused op runs (Decode +
RandomResizedCrop + flips on the PIL image, Normalize + HWC2CHW in one pass), the per-batch tail, and the
arithmetic Normalize kernels."""
import io
import os

import numpy as np
import pytest
from PIL import Image

import mindseed.dataset as ds
from mindseed.dataset import vision
from mindseed.dataset.vision._color import _NormalizeHWC2CHW, fuse_ops
from mindseed.dataset.vision._geometry import _DecodeRandomResizedCrop

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


# subclasses are never fused (map fuses exact types only), so they give the op-by-op pipeline
class PlainDecode(vision.Decode):
    pass


class PlainNormalize(vision.Normalize):
    pass


def _reference_normalize(img, mean, std, axis):
    shape = [1] * img.ndim
    shape[axis] = -1
    m = np.asarray(mean, np.float32).reshape(shape)
    s = (1.0 / np.asarray(std, np.float32).astype(np.float64)).astype(np.float32).reshape(shape)
    out = np.subtract(img, m, dtype=np.float32)
    out *= s
    return out


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float32, np.float64])
def test_normalize_kernels_match_the_float32_formula(dtype):
    rs = np.random.RandomState(1)
    if dtype == np.uint8:  # every uint8 value in every channel
        img = np.stack([np.roll(np.arange(256), 85 * k).reshape(16, 16) for k in range(3)], 2).astype(dtype)
    else:
        img = (rs.rand(5, 7, 3) * 255).astype(dtype)
    norm = vision.Normalize(MEAN, STD)
    ref = _reference_normalize(img, MEAN, STD, 2)
    out = norm(img)
    assert out.dtype == np.float32 and np.array_equal(out, ref)
    batch = np.stack([img, img[::-1]])
    assert np.array_equal(norm._batch_apply(batch), np.stack([ref, ref[::-1]]))
    fused = _NormalizeHWC2CHW(norm)
    chw = ref.transpose(2, 0, 1)
    assert np.array_equal(fused._np(img), chw) and fused._np(img).flags.c_contiguous
    assert np.array_equal(fused._batch_apply(batch), np.stack([chw, chw[:, ::-1]]))
    # CHW input, one mean for every channel, 2-D images
    nc = vision.Normalize(MEAN, STD, is_hwc=False)
    assert np.array_equal(nc(np.ascontiguousarray(img.transpose(2, 0, 1))), chw)
    one = vision.Normalize([100.0], [30.0])
    assert np.array_equal(one(img), _reference_normalize(img, [100.0] * 3, [30.0] * 3, 2))
    assert np.array_equal(one(img[:, :, 0]), _reference_normalize(img[:, :, 0], [100.0], [30.0], 0))
    # a non-contiguous view (a flip) normalises like its copy
    assert np.array_equal(norm(img[:, ::-1]), ref[:, ::-1])


@pytest.mark.parametrize("hw", [(4, 6), (128, 130)])  # whole-batch passes / image-by-image passes
def test_normalize_batches_small_and_large(hw):
    x = np.random.RandomState(2).randint(0, 256, (3,) + hw + (3,)).astype(np.uint8)
    ref = _reference_normalize(x, MEAN, STD, 3)
    norm = vision.Normalize(MEAN, STD)
    assert np.array_equal(norm._batch_apply(x), ref)
    assert np.array_equal(_NormalizeHWC2CHW(norm)._batch_apply(x), ref.transpose(0, 3, 1, 2))
    chw = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
    assert np.array_equal(vision.Normalize(MEAN, STD, is_hwc=False)._batch_apply(chw), ref.transpose(0, 3, 1, 2))


def test_normalize_channel_mismatch_is_an_error():
    with pytest.raises(ValueError, match="Normalize: the image has 4 channels"):
        vision.Normalize(MEAN, STD)(np.zeros((2, 2, 4), np.uint8))


def test_map_fuses_exact_types_only():
    ops = fuse_ops([vision.Decode(), vision.RandomResizedCrop(8), vision.RandomHorizontalFlip(),
                    vision.VerticalFlip(), vision.Normalize(MEAN, STD), vision.HWC2CHW()])
    assert [type(o) for o in ops] == [_DecodeRandomResizedCrop, _NormalizeHWC2CHW]
    assert len(ops[0].flips) == 2
    ops = fuse_ops([PlainDecode(), vision.RandomResizedCrop(8), PlainNormalize(MEAN, STD), vision.HWC2CHW()])
    assert [type(o) for o in ops] == [PlainDecode, vision.RandomResizedCrop, PlainNormalize, vision.HWC2CHW]


@pytest.fixture(scope="module")
def jpeg_folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("jpegs")
    rs = np.random.RandomState(0)
    for i in range(24):
        os.makedirs(root / f"c{i % 3}", exist_ok=True)
        h, w = rs.randint(20, 70, size=2)
        base = rs.randint(0, 256, (h // 8 + 2, w // 8 + 2, 3)).astype(np.uint8)
        im = Image.fromarray(base).resize((int(w), int(h)), Image.Resampling.BILINEAR)
        if i % 7 == 3:
            im = im.convert("L")  # grayscale JPEGs decode to RGB
        im.save(root / f"c{i % 3}" / f"{i:03d}.jpg", quality=90)
    return str(root)


def _run(folder, ops, workers, batch=None):
    ds.config.set_seed(7)
    d = ds.ImageFolderDataset(folder, shuffle=False)
    d = d.map(ops, input_columns="image", num_parallel_workers=workers)
    if batch:
        d = d.batch(batch)
    return [r[0] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def _pair(decode, normalize, size=24, interpolation=vision.Inter.BILINEAR, **rrc):
    return [decode(), vision.RandomResizedCrop(size, interpolation=interpolation, **rrc),
            vision.RandomHorizontalFlip(), vision.RandomVerticalFlip(0.3), vision.HorizontalFlip(),
            normalize(MEAN, STD), vision.HWC2CHW()]


@pytest.mark.parametrize("interpolation", [vision.Inter.BILINEAR, vision.Inter.NEAREST, vision.Inter.BICUBIC])
@pytest.mark.parametrize("batch", [None, 5])
def test_fused_pipeline_equals_op_by_op(jpeg_folder, interpolation, batch):
    size = 24 if interpolation != vision.Inter.BICUBIC else (30, 18)
    fused = _run(jpeg_folder, _pair(vision.Decode, vision.Normalize, size, interpolation), 1, batch)
    plain = _run(jpeg_folder, _pair(PlainDecode, PlainNormalize, size, interpolation), 1, batch)
    assert len(fused) == len(plain) == (24 if batch is None else 5)
    for a, b in zip(fused, plain):
        assert a.dtype == np.float32 and a.shape == b.shape and np.array_equal(a, b)


def test_fused_pipeline_equals_op_by_op_with_workers(jpeg_folder):
    # a deterministic crop so the rows do not depend on which thread drew what: no box of twice the image's area
    # fits, so every attempt fails and the fallback box (ratio within range) is the whole image
    kw = dict(scale=(2.0, 2.0), ratio=(0.1, 10.0))
    ops = [vision.Decode(), vision.RandomResizedCrop(16, **kw), vision.HorizontalFlip(), vision.Normalize(MEAN, STD),
           vision.HWC2CHW()]
    plain_ops = [PlainDecode(), vision.Resize((16, 16)), vision.HorizontalFlip(), PlainNormalize(MEAN, STD),
                 vision.HWC2CHW()]
    for batch in (None, 4):
        fused = _run(jpeg_folder, ops, 2, batch)
        plain = _run(jpeg_folder, plain_ops, 1, batch)
        assert all(np.array_equal(a, b) for a, b in zip(fused, plain)) and len(fused) == len(plain)


def test_fused_decode_crop_matches_eager_ops():
    rs = np.random.RandomState(3)
    buf = io.BytesIO()
    Image.fromarray(rs.randint(0, 256, (40, 50, 3)).astype(np.uint8)).save(buf, format="JPEG")
    data = np.frombuffer(buf.getvalue(), np.uint8)
    rrc, flip = vision.RandomResizedCrop(12), vision.RandomHorizontalFlip(1.0)
    ds.config.set_seed(11)
    fused = _DecodeRandomResizedCrop(rrc, (flip,))(data)
    ds.config.set_seed(11)
    plain = flip(rrc(vision.Decode()(data)))
    assert fused.flags.writeable and np.array_equal(fused, plain)
