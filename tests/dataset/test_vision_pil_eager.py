"""Eager vision transforms given a PIL image run MindSpore's PIL implementation and give a PIL image back.

The expected numbers are what MindSpore 2.10 (CPU) returned for the same input (first values and sum)."""
import numpy as np
import pytest

from mindseed.dataset import vision

Image = pytest.importorskip("PIL.Image")


def _img():
    return np.random.RandomState(7).randint(0, 256, (16, 20, 3)).astype(np.uint8)


CASES = [
    # name, op, mode, shape, first 8 values, sum
    ("resize", vision.Resize((8, 10)), "RGB", (8, 10, 3), [168, 113, 120, 146, 86, 103, 112, 157], 30243),
    ("resize L", vision.Resize((8, 10)), "L", (8, 10), [130, 106, 142, 144, 117, 137, 168, 133], 10182),
    ("resize int", vision.Resize(30, vision.Inter.BICUBIC), "RGB", (30, 37, 3),
     [174, 211, 4, 201, 164, 71, 249, 78], 420327),
    ("resize nearest", vision.Resize((7, 9), vision.Inter.NEAREST), "RGB", (7, 9, 3),
     [172, 92, 252, 233, 35, 192, 92, 247], 23656),
    ("centercrop", vision.CenterCrop((7, 9)), "RGB", (7, 9, 3), [171, 1, 31, 142, 208, 48, 153, 241], 24198),
    ("centercrop big", vision.CenterCrop(24), "L", (24, 24), [0] * 8, 40883),
    ("pad", vision.Pad([1, 2, 3, 4], fill_value=(10, 20, 30)), "L", (22, 24), [10] * 8, 42963),
    ("pad reflect", vision.Pad(2, padding_mode=vision.Border.REFLECT), "RGB", (20, 24, 3),
     [35, 48, 4, 252, 143, 59, 124, 20], 178970),
    ("brightness", vision.AdjustBrightness(1.3), "RGB", (16, 20, 3), [227, 254, 32, 255, 87, 255, 196, 133], 148942),
    ("contrast", vision.AdjustContrast(0.6), "L", (16, 20), [153, 133, 120, 135, 102, 144, 167, 137], 40786),
    ("saturation", vision.AdjustSaturation(1.7), "RGB", (16, 20, 3), [178, 214, 0, 255, 18, 255, 175, 93], 120619),
    ("saturation L", vision.AdjustSaturation(1.7), "L", (16, 20), [170, 137, 116, 141, 86, 156, 193, 143], 40883),
    ("hue", vision.AdjustHue(0.2), "RGB", (16, 20, 3), [25, 196, 78, 246, 131, 68, 130, 151], 122381),
    ("hue neg", vision.AdjustHue(-0.3), "RGB", (16, 20, 3), [196, 25, 138, 68, 177, 246, 116, 92], 121715),
    ("gamma", vision.AdjustGamma(0.5, 1.2), "L", (16, 20), [250, 225, 207, 228, 178, 240, 255, 230], 66965),
    ("invert", vision.Invert(), "RGB", (16, 20, 3), [80, 59, 230, 9, 188, 44, 104, 152], 123652),
    ("equalize", vision.Equalize(), "RGB", (16, 20, 3), [219, 239, 34, 255, 82, 255, 179, 132], 146427),
    ("autocontrast", vision.AutoContrast(cutoff=5.0), "L", (16, 20), [199, 146, 113, 153, 65, 176, 235, 156], 42057),
    ("hflip", vision.RandomHorizontalFlip(1.0), "RGB", (16, 20, 3), [1, 192, 144, 72, 83, 176, 87, 227], 121148),
    ("vflip", vision.RandomVerticalFlip(1.0), "L", (16, 20), [89, 34, 153, 130, 152, 93, 134, 225], 40883),
]


@pytest.mark.parametrize("name,op,mode,shape,first,total", CASES, ids=[c[0] for c in CASES])
def test_pil_in_pil_out_with_mindspore_values(name, op, mode, shape, first, total):
    img = Image.fromarray(_img()).convert(mode)
    out = op(img)
    assert isinstance(out, Image.Image), name
    a = np.asarray(out)
    assert a.shape == shape
    assert a.ravel()[:8].tolist() == first
    assert int(a.astype(np.int64).sum()) == total


def test_pil_only_and_array_only_cases():
    img = Image.fromarray(_img())
    # no PIL implementation in MindSpore: the image is run as an array and an array comes back
    out = vision.RandomAutoContrast(prob=1.0)(img)
    assert isinstance(out, np.ndarray) and int(out.astype(np.int64).sum()) == 121134
    assert isinstance(vision.HorizontalFlip()(img), np.ndarray)
    with pytest.raises(TypeError, match="not supported with PIL input"):
        vision.Resize((7, 9), vision.Inter.AREA)(img)
    with pytest.raises(TypeError, match="img should be PIL image"):
        vision.Grayscale()(_img())
    with pytest.raises(RuntimeError, match="outside the image"):  # MindSpore 2.10: RuntimeError for both
        vision.Crop((0, 0), 40)(_img())
    with pytest.raises(RuntimeError, match="outside the image"):
        vision.ResizedCrop(10, 0, 8, 4, 3)(_img())
    with pytest.raises(RuntimeError, match="number of channels does not match"):
        vision.Normalize([1, 2, 3], [4, 5, 6])(img.convert("L"))
