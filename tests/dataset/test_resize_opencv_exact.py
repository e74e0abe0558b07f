"""vision.Resize on uint8 images is OpenCV's fixed-point resize, bit for bit (bilinear, bicubic, nearest, and area
when enlarging): the expected pixels are MindSpore 2.10's."""
import numpy as np
import pytest

from mindseed.dataset import vision

CASES = [
    ((9, 4), [
        41, 78, 115, 204, 17, 54, 174, 211, 24, 112, 149, 186, 44, 81, 119, 207, 20, 57, 177, 214, 27, 115, 152,
        189, 49, 87, 124, 212, 25, 62, 182, 219, 32, 120, 157, 194, 54, 91, 128, 217, 30, 67, 187, 224, 37, 125,
        162, 199, 60, 97, 134, 222, 35, 72, 192, 229, 42, 130, 167, 204, 64, 101, 139, 227, 40, 77, 197, 234, 47,
        135, 172, 209, 69, 107, 143, 207, 45, 82, 202, 214, 52, 140, 177, 196, 74, 111, 149, 87, 50, 87, 207, 95,
        57, 145, 182, 113, 77, 114, 151, 16, 53, 90, 210, 23, 60, 148, 185, 62
     ]),
    ((3, 11), [
        3, 40, 77, 53, 90, 127, 124, 138, 175, 195, 45, 83, 172, 46, 83, 80, 117, 154, 150, 188, 62, 151, 188, 39,
        59, 96, 110, 107, 143, 180, 157, 194, 231, 18, 55, 92, 68, 105, 142, 139, 153, 190, 210, 61, 98, 187, 61,
        98, 95, 132, 169, 166, 203, 77, 166, 203, 54, 74, 111, 125, 122, 159, 196, 172, 209, 246, 33, 70, 107, 83,
        120, 157, 138, 168, 205, 100, 75, 113, 93, 76, 113, 110, 147, 184, 180, 109, 92, 181, 94, 69, 89, 111, 140,
        137, 173, 117, 187, 224, 90
     ]),
    ((10, 14), [
        0, 37, 74, 28, 65, 102, 83, 120, 157, 139, 112, 149, 194, 39, 76, 186, 31, 68, 113, 86, 123, 105, 142, 115,
        160, 197, 42, 152, 189, 34, 79, 116, 89, 71, 108, 145, 126, 163, 200, 154, 191, 228, 2, 39, 76, 30, 67, 104,
        85, 122, 159, 141, 114, 151, 196, 41, 78, 188, 33, 70, 115, 88, 125, 107, 144, 117, 162, 199, 44, 154, 191,
        36, 81, 118, 91, 73, 110, 147, 128, 165, 202, 156, 193, 230, 7, 44, 81, 34, 71, 108, 90, 127, 164, 145, 118,
        155, 201, 46, 83, 192, 37, 74, 120, 93, 130, 111, 148, 121, 167, 204, 49, 158, 195, 40, 86, 123, 96, 77,
        114, 151, 133, 170, 207, 161, 198, 235, 11, 48, 85, 39, 76, 113, 94, 131, 168, 150, 123, 160, 205, 50, 87,
        197, 42, 79, 124, 97, 134, 116, 153, 126, 171, 208, 53, 163, 200, 45, 90, 127, 100, 82, 119, 156, 137, 174,
        211, 165, 202, 239, 16, 53, 90, 43, 80, 117, 99, 136, 173, 154, 127, 164, 210, 55, 92, 201, 46, 83, 129,
        102, 139, 120, 157, 130, 176, 213, 58, 167, 204, 49, 95, 132, 105, 86, 123, 160, 142, 179, 216, 170, 207,
        244, 20, 57, 94, 48, 85, 122, 103, 140, 177, 159, 132, 169, 214, 59, 96, 206, 51, 88, 133, 106, 143, 125,
        162, 135, 180, 217, 62, 172, 209, 54, 99, 136, 109, 91, 128, 165, 146, 183, 220, 174, 211, 248, 25, 62, 99,
        52, 89, 126, 108, 145, 182, 163, 136, 173, 219, 64, 101, 210, 55, 92, 138, 111, 148, 129, 166, 139, 185,
        222, 67, 176, 213, 58, 104, 141, 114, 95, 132, 169, 151, 188, 225, 179, 216, 253, 29, 66, 103, 57, 94, 131,
        112, 149, 186, 152, 141, 178, 175, 68, 105, 167, 60, 97, 126, 115, 152, 134, 155, 144, 189, 178, 71, 181,
        170, 63, 108, 129, 118, 100, 137, 158, 155, 192, 181, 183, 220, 193, 34, 71, 108, 61, 98, 135, 117, 154,
        191, 124, 145, 182, 84, 73, 110, 75, 64, 101, 99, 120, 157, 138, 127, 148, 194, 87, 76, 185, 78, 67, 113,
        102, 123, 104, 141, 130, 160, 197, 90, 188, 225, 70, 36, 73, 110, 64, 101, 138, 119, 156, 193, 111, 148,
        185, 38, 75, 112, 30, 67, 104, 85, 122, 159, 141, 114, 151, 196, 41, 78, 188, 33, 70, 115, 88, 125, 107,
        144, 117, 162, 199, 44, 190, 227, 8
     ]),
]


@pytest.mark.parametrize("size,expected", CASES)
def test_rgb_resize_equals_mindspores(size, expected):
    img = ((np.arange(5 * 7 * 3).reshape(5, 7, 3) * 37) % 256).astype(np.uint8)
    out = vision.Resize(size)(img)
    assert out.shape == (*size, 3) and out.reshape(-1).tolist() == expected


def test_mnist_sized_resize_equals_mindspores():
    gray = ((np.arange(28 * 28).reshape(28, 28) * 91) % 256).astype(np.uint8)
    out = vision.Resize((32, 32))(gray)
    assert int(out.astype(np.int64).sum()) == 130382
    assert out[0, :8].tolist() == [0, 74, 153, 89, 57, 136, 168, 39]
    assert out[17, 20:28].tolist() == [129, 128, 32, 112, 191, 63, 95, 174]


def test_exact_halving_is_the_rounded_two_by_two_average():
    rng = np.random.RandomState(0)
    img = rng.randint(0, 256, (8, 6, 3)).astype(np.uint8)
    want = (img[0::2, 0::2].astype(int) + img[1::2, 0::2] + img[0::2, 1::2] + img[1::2, 1::2] + 2) >> 2
    np.testing.assert_array_equal(vision.Resize((4, 3))(img), want.astype(np.uint8))


def test_nearest_takes_opencvs_source_indices():
    img = np.tile(np.arange(28, dtype=np.uint8), (28, 1))      # each pixel holds its column
    assert vision.Resize((100, 17), vision.Inter.NEAREST)(img)[0].tolist() == [
        0, 1, 3, 4, 6, 8, 9, 11, 13, 14, 16, 18, 19, 21, 23, 24, 26]
    row = vision.Resize((17, 100), vision.Inter.NEAREST)(img)[0]
    assert row[:12].tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3]      # 100 / 28 is not exact
    assert row[25:30].tolist() == [6, 7, 7, 7, 8] and np.bincount(row).tolist().count(4) == 16


def test_bicubic_and_area_take_opencvs_fixed_point():
    # MindSpore 2.10's pixels; AREA when enlarging is OpenCV's linear kernel with box-overlap weights
    img = ((np.arange(5 * 7 * 3).reshape(5, 7, 3) * 37) % 256).astype(np.uint8)
    assert vision.Resize((6, 9), vision.Inter.BICUBIC)(img)[:, :, 1].tolist() == [
        [29, 129, 86, 7, 113, 220, 141, 98, 198],
        [36, 135, 93, 13, 120, 227, 147, 105, 204],
        [44, 143, 101, 21, 128, 235, 155, 113, 212],
        [52, 151, 109, 29, 136, 255, 173, 119, 220],
        [60, 159, 117, 39, 144, 199, 141, 135, 228],
        [66, 166, 123, 51, 150, 14, 37, 165, 235],
    ]
    assert vision.Resize((3, 4), vision.Inter.BICUBIC)(img)[:, :, 0].tolist() == [
        [35, 216, 188, 107],
        [51, 232, 203, 122],
        [78, 78, 221, 138],
    ]
    assert vision.Resize((8, 11), vision.Inter.AREA)(img)[:, :, 2].tolist() == [
        [74, 122, 185, 61, 72, 151, 47, 22, 117, 180, 228],
        [77, 125, 189, 64, 75, 154, 51, 25, 120, 184, 232],
        [83, 131, 194, 70, 81, 160, 56, 31, 126, 189, 237],
        [90, 138, 201, 77, 88, 167, 64, 38, 133, 196, 244],
        [94, 141, 205, 80, 91, 171, 67, 42, 137, 200, 248],
        [101, 149, 212, 88, 99, 178, 74, 49, 144, 207, 255],
        [106, 154, 217, 93, 104, 183, 80, 54, 149, 125, 107],
        [110, 158, 221, 97, 108, 187, 83, 58, 153, 70, 8],
    ]
    assert vision.Resize((9, 4), vision.Inter.AREA)(img)[:, :, 0].tolist() == [
        [48, 206, 156, 106],
        [49, 208, 158, 108],
        [57, 215, 165, 115],
        [60, 219, 169, 119],
        [66, 224, 174, 124],
        [71, 229, 179, 130],
        [75, 233, 183, 133],
        [82, 65, 190, 140],
        [84, 23, 192, 142],
    ]


def test_rescale_and_normalize_round_as_mindspores_kernels():
    # Rescale: double precision with float32 factors (OpenCV's convertTo); Normalize: float32 (x - mean) / std.
    # Both differ in the last bit from float32 x * a + b and from (x - mean) * (1 / std) on these values.
    rng = np.random.RandomState(0)
    u = rng.randint(0, 256, (64, 64, 3)).astype(np.uint8)
    a, b = 1 / 0.3081, -1 * 0.1307 / 0.3081
    want = (u.astype(np.float64) * float(np.float32(a)) + float(np.float32(b))).astype(np.float32)
    out = vision.Rescale(a, b)(u)
    assert np.array_equal(out, want) and not np.array_equal(out, u.astype(np.float32) * np.float32(a) + np.float32(b))
    mean, std = [0.1307 * 255] * 3, [0.3081 * 255] * 3
    want = (u.astype(np.float32) - np.float32(mean[0])) / np.float32(std[0])
    out = vision.Normalize(mean, std)(u)
    assert np.array_equal(out, want)
    assert not np.array_equal(out, (u.astype(np.float32) - np.float32(mean[0])) * np.float32(1 / np.float32(std[0])))


def test_to_tensor_scales_as_mindspore_for_arrays_and_pil_images():
    from PIL import Image
    u = np.random.RandomState(0).randint(0, 256, (16, 16, 3)).astype(np.uint8)
    # a numpy image: the C++ kernel's float32 product with 1/255; a PIL image: the Python path's double division
    np.testing.assert_array_equal(vision.ToTensor()(u), (u.astype(np.float32) * np.float32(1 / 255)).transpose(2, 0, 1))
    np.testing.assert_array_equal(vision.ToTensor()(Image.fromarray(u)),
                                  (u / 255.0).astype(np.float32).transpose(2, 0, 1))
    assert not np.array_equal(u.astype(np.float32) * np.float32(1 / 255), (u / 255.0).astype(np.float32))
