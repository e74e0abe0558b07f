"""Box ops (iou, bounding_box_encode/decode, check_valid), windows, fftfreq/rfftfreq, eps: values vs numpy/scipy,
gradients of the box ops vs float64 finite differences, bad input."""
import numpy as np
import pytest
from scipy import signal

import mindseed as ms
from mindseed import ops

from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests


def _boxes(r, s):
    """Boxes (x0, y0, x1, y1) with x1 > x0, y1 > y0."""
    lo = r.uniform(0, 10, (s[0], 2))
    return np.concatenate([lo, lo + r.uniform(1, 6, (s[0], 2))], 1)


def _np_iou(a, g, mode="iou"):
    out = np.zeros((len(g), len(a)))
    for i, gb in enumerate(g):
        for j, ab in enumerate(a):
            w = max(0.0, min(ab[2], gb[2]) - max(ab[0], gb[0]) + 1)
            h = max(0.0, min(ab[3], gb[3]) - max(ab[1], gb[1]) + 1)
            ga = (gb[2] - gb[0] + 1) * (gb[3] - gb[1] + 1)
            aa = (ab[2] - ab[0] + 1) * (ab[3] - ab[1] + 1)
            out[i, j] = w * h / (ga if mode == "iof" else aa + ga - w * h)
    return out


def _np_encode(a, g):
    pw, ph = a[:, 2] - a[:, 0] + 1, a[:, 3] - a[:, 1] + 1
    gw, gh = g[:, 2] - g[:, 0] + 1, g[:, 3] - g[:, 1] + 1
    dx = ((g[:, 0] + g[:, 2]) - (a[:, 0] + a[:, 2])) / 2 / pw
    dy = ((g[:, 1] + g[:, 3]) - (a[:, 1] + a[:, 3])) / 2 / ph
    return np.stack([dx, dy, np.log(gw / pw), np.log(gh / ph)], 1)


SPECS = [
    OpSpec("iou", ops.iou, _np_iou, shapes=[(3, 4), (2, 4)], gen=_boxes),
    OpSpec("iof", lambda a, g: ops.iou(a, g, "iof"), lambda a, g: _np_iou(a, g, "iof"), shapes=[(3, 4), (2, 4)],
           gen=_boxes),
    OpSpec("bounding_box_encode", ops.bounding_box_encode, _np_encode, shapes=[(3, 4), (3, 4)], gen=_boxes),
    OpSpec("bounding_box_decode", lambda a, d: ops.bounding_box_decode(a, d, (100, 100)),
           lambda a, d: _np_decode(a, d), shapes=[(3, 4), (3, 4)], gen=[_boxes, lambda r, s: r.uniform(-.3, .3, s)]),
]
test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)


def _np_decode(a, d):
    pw, ph = a[:, 2] - a[:, 0] + 1, a[:, 3] - a[:, 1] + 1
    px, py = (a[:, 0] + a[:, 2]) / 2, (a[:, 1] + a[:, 3]) / 2
    gx, gy, gw, gh = px + pw * d[:, 0], py + ph * d[:, 1], pw * np.exp(d[:, 2]), ph * np.exp(d[:, 3])
    return np.clip(np.stack([gx - gw / 2 + .5, gy - gh / 2 + .5, gx + gw / 2 - .5, gy + gh / 2 - .5], 1), 0, 99)


test_bad_input = make_error_tests([
    ErrorSpec("iou-mode", lambda: ops.iou(ms.Tensor(np.ones((1, 4))), ms.Tensor(np.ones((1, 4))), "x"), KeyError,
              "For 'IOU', the 'mode' must be 'iou' or 'iof'"),
    ErrorSpec("iou-shape", lambda: ops.iou(ms.Tensor(np.ones((1, 3))), ms.Tensor(np.ones((1, 4)))), ValueError,
              "For 'IOU', the 'anchor_boxes' must have shape (N, 4)"),
    ErrorSpec("window-negative", lambda: ops.hann_window(-1), ValueError,
              "For 'hann_window', the 'window_length' must be a non-negative int"),
    ErrorSpec("window-dtype", lambda: ops.hann_window(4, dtype=ms.int32), TypeError, "must be a float type"),
    ErrorSpec("fftfreq-d", lambda: ops.fftfreq(4, 0), ValueError, "For 'fftfreq', the 'd' must be a non-zero"),
    ErrorSpec("eps-int", lambda: ops.eps(ms.Tensor([1])), TypeError, "For 'Eps', the 'x' must be a Tensor of float16"),
])


def test_encode_then_decode_returns_the_boxes_and_check_valid():
    a = ms.Tensor(np.array([[0.0, 0, 9, 9], [5, 5, 14, 19]]))
    g = ms.Tensor(np.array([[1.0, 2, 10, 12], [4, 6, 20, 21]]))
    back = ops.bounding_box_decode(a, ops.bounding_box_encode(a, g, (0.1, 0, 0, 0.2), (0.5, 1, 2, 1)), (100, 100),
                                   (0.1, 0, 0, 0.2), (0.5, 1, 2, 1))
    np.testing.assert_allclose(back.asnumpy(), g.asnumpy(), atol=1e-9)
    valid = ops.check_valid(ms.Tensor(np.array([[0.0, 0, 9, 9], [0, 0, 12, 5], [-1, 0, 3, 3]])),
                            ms.Tensor(np.array([10.0, 20.0, 1.0])))
    assert valid.asnumpy().tolist() == [True, True, False]


@pytest.mark.parametrize("name,scipy_name", [("bartlett_window", "bartlett"), ("blackman_window", "blackman"),
                                             ("hann_window", "hann"), ("hamming_window", "hamming")])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_scipy(name, scipy_name, periodic):
    got = getattr(ops, name)(ms.Tensor(7), periodic, dtype=ms.float64).asnumpy()
    # hamming's 0.54 / 0.46 are float32 in MindSpore's kernel: 1e-8 away from scipy's
    atol = 1e-7 if name == "hamming_window" else 1e-12
    np.testing.assert_allclose(got, signal.get_window(scipy_name, 7, fftbins=periodic), atol=atol)


def test_kaiser_hamming_params_frequencies_eps():
    np.testing.assert_allclose(ops.kaiser_window(6, False, 5.0, dtype=ms.float64).asnumpy(), np.kaiser(6, 5.0))
    np.testing.assert_allclose(ops.hamming_window(5, False, 0.5, 0.5).asnumpy(), np.hanning(5), atol=1e-7)
    np.testing.assert_allclose(ops.HammingWindow(periodic=False)(ms.Tensor(5)).asnumpy(), np.hamming(5), atol=1e-7)
    np.testing.assert_allclose(ops.fftfreq(6, 0.1).asnumpy(), np.fft.fftfreq(6, 0.1), rtol=1e-6)
    np.testing.assert_allclose(ops.rfftfreq(7, 2.0, ms.float64).asnumpy(), np.fft.rfftfreq(7, 2.0))
    assert ops.eps(ms.Tensor([1.0], ms.float16)).asnumpy()[0] == np.finfo(np.float16).eps
    assert ops.Eps()(ms.Tensor([1.0, 2.0])).asnumpy().tolist() == [np.finfo(np.float32).eps] * 2
    assert ops.hann_window(1).asnumpy().tolist() == [1.0] and ops.hann_window(0).shape == (0,)


def _np_rope(x, cos, sin, mode):
    if mode == 0:
        h = x.shape[-1] // 2
        rot = np.concatenate([-x[..., h:], x[..., :h]], -1)
    else:
        rot = np.stack([-x[..., 1::2], x[..., 0::2]], -1).reshape(x.shape)
    return x * cos + rot * sin


ROPE = [OpSpec(f"rotary_position_embedding-{m}", lambda x, c, s, m=m: ops.rotary_position_embedding(x, c, s, m),
               lambda x, c, s, m=m: _np_rope(x, c, s, m), shapes=[(2, 3, 2, 4), (1, 3, 1, 4), (1, 3, 1, 4)])
        for m in (0, 1)]
test_rope_value, test_rope_grad, _, test_rope_graph = make_tests(ROPE)
test_rope_bad = make_error_tests([
    ErrorSpec("rope-mode", lambda: ops.rotary_position_embedding(*[ms.Tensor(np.ones((1, 1, 1, 2)))] * 3, 2),
              ValueError, "For 'RotaryPositionEmbedding', the 'mode' must be 0 or 1"),
    ErrorSpec("rope-odd", lambda: ops.rotary_position_embedding(*[ms.Tensor(np.ones((1, 1, 1, 3)))] * 3),
              ValueError, "even last dim"),
])


def test_hamming_window_uses_float32_alpha_beta_as_mindspore():
    # MindSpore 2.10 (oracle): the kernel's alpha/beta are float32 attributes, computed in double
    np.testing.assert_array_equal(ops.hamming_window(6).asnumpy(),
                                  np.array([0.08000001, 0.31, 0.77000004, 1.0, 0.77000004, 0.31], np.float32))
    np.testing.assert_allclose(ops.HammingWindow(dtype=ms.float64)(ms.Tensor([6])).asnumpy(),
                               [0.08000001, 0.31000002, 0.77000003, 1.00000003, 0.77000003, 0.31000002], atol=6e-9)
    with pytest.raises(TypeError, match="'alpha' must be float"):
        ops.hamming_window(5, True, 1)
