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
from mindseed.dataset.vision._color import _NormalizeHWC2CHW
from mindseed.dataset.vision._fused import DecodeRandomResizedCrop, fuse_ops

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
    s = np.asarray(std, np.float32).reshape(shape)
    out = np.subtract(img, m, dtype=np.float32)
    out /= s            # MindSpore's kernel divides (multiplying by 1/std differs in the last bit)
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
    with pytest.raises(RuntimeError, match="Normalize: number of channels does not match the size of mean and std "
                                           "vector, got channels: 4, size of mean: 3"):
        vision.Normalize(MEAN, STD)(np.zeros((2, 2, 4), np.uint8))


def test_map_fuses_exact_types_only():
    ops = fuse_ops([vision.Decode(), vision.RandomResizedCrop(8), vision.RandomHorizontalFlip(),
                    vision.VerticalFlip(), vision.Normalize(MEAN, STD), vision.HWC2CHW()])
    assert [type(o) for o in ops] == [DecodeRandomResizedCrop]
    assert len(ops[0].flips) == 2 and ops[0].chw and ops[0].out_shape == (3, 8, 8)
    ops = fuse_ops([vision.Decode(), vision.RandomResizedCrop((8, 6)), vision.Normalize(MEAN, STD),
                    vision.Rescale(2, 0)])
    assert [type(o) for o in ops] == [DecodeRandomResizedCrop, vision.Rescale]
    assert not ops[0].chw and ops[0].out_shape == (8, 6, 3) and ops[0].out_dtype == np.float32
    # a Normalize for 4 channels is left alone (it must fail on the 3-channel image as the plain op does)
    ops = fuse_ops([vision.Decode(), vision.RandomResizedCrop(8), vision.Normalize(MEAN + [1.0], STD + [1.0])])
    assert [type(o) for o in ops] == [DecodeRandomResizedCrop, vision.Normalize]
    assert ops[0].normalize is None and ops[0].out_dtype == np.uint8
    ops = fuse_ops([vision.Decode(), vision.Normalize(MEAN, STD), vision.HWC2CHW()])
    assert [type(o) for o in ops] == [vision.Decode, _NormalizeHWC2CHW]
    ops = fuse_ops([PlainDecode(), vision.RandomResizedCrop(8), PlainNormalize(MEAN, STD), vision.HWC2CHW()])
    assert [type(o) for o in ops] == [PlainDecode, vision.RandomResizedCrop, PlainNormalize, vision.HWC2CHW]


def _bilinear_reference(a, h, w):
    """OpenCV's INTER_LINEAR sampling in float64, unrounded."""
    def taps(n_in, n_out):
        f = np.maximum((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0)
        i0 = np.minimum(np.floor(f).astype(int), n_in - 1)
        return i0, np.minimum(i0 + 1, n_in - 1), f - np.floor(f)
    y0, y1, fy = taps(a.shape[0], h)
    x0, x1, fx = taps(a.shape[1], w)
    a = a.astype(np.float64)
    rows = a[y0] * (1 - fy)[:, None, None] + a[y1] * fy[:, None, None]
    return rows[:, x0] * (1 - fx)[None, :, None] + rows[:, x1] * fx[None, :, None]


@pytest.mark.parametrize("shape,size", [((12, 16), (6, 8)), ((12, 16), (17, 23)), ((31, 7), (9, 40)), ((5, 5), (5, 5)),
                                        ((40, 50), (13, 13)), ((3, 90), (70, 2)), ((1, 1), (4, 3))])
def test_bilinear_kernel_is_opencvs_fixed_point(shape, size):
    # OpenCV's 8-bit bilinear (MindSpore's Resize; exact values: test_resize_bilinear_exact.py) stays within one
    # of the exact interpolation
    from mindseed.dataset.vision import _image as I
    rs = np.random.RandomState(sum(shape) + sum(size))
    img = rs.randint(0, 256, shape + (3,)).astype(np.uint8)
    ref = _bilinear_reference(img, *size)
    out = vision.Resize(size)(img)
    assert out.dtype == np.uint8 and out.shape == size + (3,)
    assert np.abs(out - ref).max() <= 1.0
    if shape == size:
        assert np.array_equal(out, img)
    # gray and 4-channel images give the same values per channel; the planes are the same values as float32
    assert np.array_equal(vision.Resize(size)(img[:, :, 1]), out[:, :, 1])
    rgbx = np.concatenate([img, np.full(shape + (1,), 7, np.uint8)], axis=2)
    assert np.array_equal(vision.Resize(size)(rgbx)[:, :, :3], out)
    planes = I.bilinear_planes(rgbx[:, :, :3], *size)
    assert planes.shape == (3,) + size and planes.dtype == np.float32
    assert np.array_equal(planes.transpose(1, 2, 0), out)


def test_bilinear_planes_large_shrink_and_channel_count():
    # shrinking by more than 2x first selects the source lines the taps use; any channel count works
    from mindseed.dataset.vision import _image as I
    rs = np.random.RandomState(3)
    for shape, size in (((300, 500, 2), (7, 11)), ((1000, 3, 5), (3, 9)), ((64, 64, 1), (640, 6))):
        img = rs.randint(0, 256, shape).astype(np.uint8)
        got = I.bilinear_planes(img, *size)
        assert np.abs(got - _bilinear_reference(img, *size).transpose(2, 0, 1)).max() <= 1.0


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


def _run(folder, ops, workers, batch=None, mp=False):
    ds.config.set_seed(7)
    d = ds.ImageFolderDataset(folder, shuffle=False)
    d = d.map(ops, input_columns="image", num_parallel_workers=workers, python_multiprocessing=mp)
    if batch:
        d = d.batch(batch)
    return [r[0] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def _pair(decode, normalize, size=24, interpolation=vision.Inter.BILINEAR, chw=True, **rrc):
    return [decode(), vision.RandomResizedCrop(size, interpolation=interpolation, **rrc),
            vision.RandomHorizontalFlip(), vision.RandomVerticalFlip(0.3), vision.HorizontalFlip(),
            normalize(MEAN, STD)] + ([vision.HWC2CHW()] if chw else [])


@pytest.mark.parametrize("interpolation", [vision.Inter.BILINEAR, vision.Inter.NEAREST, vision.Inter.BICUBIC])
@pytest.mark.parametrize("batch", [None, 5])
def test_fused_pipeline_equals_op_by_op(jpeg_folder, interpolation, batch):
    size = 24 if interpolation != vision.Inter.BICUBIC else (30, 18)
    fused = _run(jpeg_folder, _pair(vision.Decode, vision.Normalize, size, interpolation), 1, batch)
    plain = _run(jpeg_folder, _pair(PlainDecode, PlainNormalize, size, interpolation), 1, batch)
    assert len(fused) == len(plain) == (24 if batch is None else 5)
    for a, b in zip(fused, plain):
        assert a.dtype == np.float32 and a.shape == b.shape and np.array_equal(a, b)


@pytest.fixture
def no_shared_memory():
    ds.config.set_enable_shared_mem(False)
    yield
    ds.config.set_enable_shared_mem(True)


@pytest.mark.parametrize("workers,mp,shm", [(2, False, True), (3, False, True), (2, True, True), (2, False, False)])
@pytest.mark.parametrize("batch", [None, 4])
def test_any_worker_kind_gives_the_op_by_op_rows(jpeg_folder, workers, mp, shm, batch):
    if workers > (os.cpu_count() or 1):
        pytest.skip("MindSpore allows at most one worker per CPU")
    # the worker kind does not change the augmentations (the flips follow MindSpore's per-worker generators, so
    # the worker count does): threads, processes and fused batches give the op-by-op rows of that many workers
    # (with batch: the fused op builds batches in processes with shared memory, or in threads without)
    plain = _run(jpeg_folder, _pair(PlainDecode, PlainNormalize), workers, batch)
    ds.config.set_enable_shared_mem(shm)
    try:
        fused = _run(jpeg_folder, _pair(vision.Decode, vision.Normalize), workers, batch, mp)
    finally:
        ds.config.set_enable_shared_mem(True)
    plain_workers = _run(jpeg_folder, _pair(PlainDecode, PlainNormalize), workers, batch, mp)
    assert len(fused) == len(plain) == len(plain_workers) == (24 if batch is None else 6)
    assert all(np.array_equal(a, b) for a, b in zip(fused, plain))
    assert all(np.array_equal(a, b) for a, b in zip(plain_workers, plain))
    # and the crops really are random: not every row is the whole image
    whole = _run(jpeg_folder, [PlainDecode(), vision.Resize((24, 24))], 1)
    assert sum(np.array_equal(a, b) for a, b in zip(_run(jpeg_folder, [vision.Decode(), vision.RandomResizedCrop(24)],
                                                         workers, None, mp), whole)) < 12


@pytest.mark.parametrize("chw,normalize", [(False, True), (False, False)])
@pytest.mark.parametrize("shm", [True, False])
def test_fused_hwc_and_uint8_forms_equal_op_by_op(jpeg_folder, chw, normalize, shm, request):
    if not shm:
        request.getfixturevalue("no_shared_memory")
    def ops(decode, norm):
        out = [decode(), vision.RandomResizedCrop((20, 26)), vision.RandomHorizontalFlip(), vision.VerticalFlip()]
        return out + ([norm(MEAN, STD)] if normalize else [])
    fused = _run(jpeg_folder, ops(vision.Decode, vision.Normalize), 2, 4)
    plain = _run(jpeg_folder, ops(PlainDecode, PlainNormalize), 2, 4)
    assert fused[0].dtype == (np.float32 if normalize else np.uint8) and fused[0].shape == (4, 20, 26, 3)
    assert all(np.array_equal(a, b) for a, b in zip(fused, plain))


def test_random_ops_are_deterministic_for_any_worker_kind():
    # MindSpore's random ops draw from per-worker generators: the worker count matters, threads or processes not
    def rows(workers, mp):
        ds.config.set_seed(5)
        d = ds.NumpySlicesDataset({"x": np.arange(40 * 48).reshape(40, 4, 4, 3).astype(np.uint8)}, shuffle=True)
        d = d.map([vision.RandomCrop(3), vision.RandomVerticalFlip(), ds.transforms.RandomApply([vision.Invert()])],
                  input_columns="x", num_parallel_workers=workers, python_multiprocessing=mp)
        return [r[0] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    for workers in (1, min(3, os.cpu_count() or 1)):      # at most one worker per CPU, as MindSpore
        ref = rows(workers, False)
        for mp in (False, True):
            assert all(np.array_equal(a, b) for a, b in zip(rows(workers, mp), ref))
    assert not all(np.array_equal(a, b) for a, b in zip(rows(2, False), rows(1, False)))


def test_fused_decode_crop_matches_eager_ops():
    rs = np.random.RandomState(3)
    buf = io.BytesIO()
    Image.fromarray(rs.randint(0, 256, (40, 50, 3)).astype(np.uint8)).save(buf, format="JPEG")
    data = np.frombuffer(buf.getvalue(), np.uint8)
    rrc, flip = vision.RandomResizedCrop(12), vision.RandomHorizontalFlip(1.0)
    ds.config.set_seed(11)
    fused = DecodeRandomResizedCrop(rrc, (flip,))(data)
    ds.config.set_seed(11)
    plain = flip(rrc(vision.Decode()(data)))
    assert fused.flags.writeable and np.array_equal(fused, plain)


def _encoded(mode, fmt="JPEG", **kw):
    rs = np.random.RandomState(4)
    img = Image.fromarray(rs.randint(0, 256, (23, 37, 3)).astype(np.uint8)).convert(mode)
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kw)
    return np.frombuffer(buf.getvalue(), np.uint8)


@pytest.mark.parametrize("mode,fmt,kw", [("RGB", "JPEG", {}), ("L", "JPEG", {}), ("RGB", "JPEG", {"progressive": True}),
                                         ("CMYK", "JPEG", {}), ("RGB", "PNG", {}), ("RGBA", "PNG", {})])
def test_direct_rgbx_decode_gives_decodes_pixels(mode, fmt, kw):
    from mindseed.dataset.vision import _image as I
    data = _encoded(mode, fmt, **kw)
    out = I.decode_rgbx(data)
    assert out.shape == (23, 37, 4) and out.dtype == np.uint8
    assert np.array_equal(out[:, :, :3], vision.Decode()(data))


def test_direct_rgbx_decode_reports_bad_data_like_decode():
    from mindseed.dataset.vision import _image as I
    data = _encoded("RGB")
    for bad in (data[:len(data) // 2], np.frombuffer(b"\xff\xd8\xff\xe0 garbage", np.uint8)):
        with pytest.raises(RuntimeError, match="Decode: failed to decode") as plain:
            vision.Decode()(bad)
        with pytest.raises(RuntimeError, match="Decode: failed to decode") as direct:
            I.decode_rgbx(bad)
        assert plain.value._op_message == str(direct.value)


@pytest.mark.parametrize("mode,kw", [("RGB", {}), ("L", {}), ("RGB", {"progressive": True}),
                                     ("RGB", {"restart_marker_rows": 1})])
def test_jpeg_decodes_only_the_rows_asked_for(mode, kw):
    from mindseed.dataset.vision import _image as I
    data = _encoded(mode, **kw)
    full = I.decode_rgbx(data)
    assert I.jpeg_size(data) == full.shape[:2] == (23, 37)
    for rows in (1, 7, 16, 22):
        part = I.decode_rgbx(data, rows=rows)
        assert part.shape == (rows, 37, 4) and np.array_equal(part, full[:rows])
    assert np.array_equal(I.decode_rgbx(data, rows=40), full)
    assert I.jpeg_size(_encoded("RGB", "PNG")) is None and I.jpeg_size(_encoded("CMYK")) is None


def test_partial_jpeg_decode_still_reports_truncated_and_corrupt_files():
    from mindseed.dataset.vision import _image as I
    data = _encoded("RGB")
    # the first rows of a truncated file are there, but the file is still reported (as Decode reports it)
    for bad in (data[:len(data) * 3 // 4], data[:len(data) // 2]):
        with pytest.raises(RuntimeError, match="Decode: failed to decode") as plain:
            vision.Decode()(bad)
        with pytest.raises(RuntimeError, match="Decode: failed to decode") as direct:
            I.decode_rgbx(bad, rows=2)
        assert plain.value._op_message == str(direct.value)
    # a fused crop of a truncated file fails the same way
    with pytest.raises(RuntimeError, match="Decode: failed to decode"):
        DecodeRandomResizedCrop(vision.RandomResizedCrop(8, scale=(0.01, 0.02)))(data[:len(data) * 3 // 4])


def test_bilinear_of_a_view_equals_bilinear_of_a_copy():
    # the fused op resizes a crop view of RGBX pixels, the plain ops a contiguous RGB image: the same values
    from mindseed.dataset.vision import _image as I
    rs = np.random.RandomState(5)
    for H, W, h, w in ((150, 151, 224, 224), (97, 203, 224, 224), (300, 260, 224, 224), (31, 17, 40, 90)):
        rgbx = rs.randint(0, 256, (H + 4, W + 6, 4)).astype(np.uint8)
        view = rgbx[2:H + 2, 3:W + 3, :3]
        assert np.array_equal(I.bilinear_u8(view, h, w), I.bilinear_u8(np.ascontiguousarray(view), h, w))
