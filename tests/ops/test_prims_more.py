"""The remaining MindSpore primitive classes (Betainc, MatrixLogarithm, CTCLoss, STFT, ResizeArea, NMSWithMask,
CombinedNonMaxSuppression, RaggedRange, EditDistance, ComputeAccidentalHits, NoRepeatNGram, PadAndShift,
SubAndFilter, DtypeToEnum): values against numpy/scipy references or values MindSpore 2.10 CPU printed, gradients
against float64 finite differences, and MindSpore's errors for bad input."""
import itertools

import numpy as np
import pytest
from scipy import linalg as sla
from scipy import special

import mindseed as ms
from mindseed import ops
from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests

T = ms.Tensor


def _unit(r, s):
    return r.uniform(0.1, 0.9, s)


def _shape(r, s):
    return r.uniform(0.6, 3.0, s)


# ---------------------------------------------------------------- CTC: a brute-force reference over all alignments
_LI = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]], np.int64)
_LV = np.array([1, 1, 0, 1, 0], np.int32)
_SL = np.array([4, 3], np.int32)


def _collapse(path, blank, merge):
    out, prev = [], None
    for p in path:
        if p != blank and (not merge or p != prev):
            out.append(p)
        prev = p
    return out


def _ctc_ref(x, merge=True):
    t_max, n, c = x.shape
    logp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    labels = [[1, 1], [0, 1, 0]]
    loss = np.zeros(n)
    for b in range(n):
        total = 0.0
        for path in itertools.product(range(c), repeat=int(_SL[b])):
            if _collapse(path, c - 1, merge) == labels[b]:
                total += np.exp(sum(logp[t, b, k] for t, k in enumerate(path)))
        loss[b] = -np.log(total)
    return loss


def _ctc(merge):
    return lambda x: ops.CTCLoss(ctc_merge_repeated=merge)(x, T(_LI), T(_LV), T(_SL))[0]


# ---------------------------------------------------------------- RNN-T: the alpha recursion in numpy
_RL = np.array([[1, 2], [3, 0]], np.int32)
_RIL, _RLL = np.array([4, 3], np.int32), np.array([2, 1], np.int32)


def _rnnt_ref(acts, blank=0):
    out = []
    for b in range(acts.shape[0]):
        lp = acts[b] - np.log(np.exp(acts[b]).sum(-1, keepdims=True))
        t_len, u_len, y = _RIL[b], _RLL[b] + 1, _RL[b]
        alpha = np.full((t_len, u_len), -np.inf)
        alpha[0, 0] = 0
        for t, u in itertools.product(range(t_len), range(u_len)):
            terms = ([alpha[t - 1, u] + lp[t - 1, u, blank]] if t else []) + \
                ([alpha[t, u - 1] + lp[t, u - 1, y[u - 1]]] if u else [])
            if terms:
                alpha[t, u] = np.logaddexp.reduce(terms)
        out.append(-(alpha[-1, -1] + lp[t_len - 1, u_len - 1, blank]))
    return np.array(out)


# ---------------------------------------------------------------- STFT, ResizeArea references
def _stft_ref(x, win, n_fft, hop):
    frames = [x[..., s:s + n_fft] * win for s in range(0, x.shape[-1] - n_fft + 1, hop)]
    return np.stack([np.fft.rfft(f) for f in frames], -1)


def _area_ref(img, h, w):
    n, ih, iw, c = img.shape
    sy, sx = ih / h, iw / w
    out = np.zeros((n, h, w, c))
    for y in range(h):
        for x in range(w):
            acc = 0.0
            for i in range(int(np.floor(y * sy)), int(np.ceil((y + 1) * sy))):
                wy = min(i + 1, (y + 1) * sy) - max(i, y * sy)
                for j in range(int(np.floor(x * sx)), int(np.ceil((x + 1) * sx))):
                    wx = min(j + 1, (x + 1) * sx) - max(j, x * sx)
                    acc = acc + wy * wx * img[:, min(i, ih - 1), min(j, iw - 1)]
            out[:, y, x] = acc / (sy * sx)
    return out


def _glimpse_ref(img, offsets, size=(3, 4), centered=True, normalized=False):
    n, height, width, _ = img.shape
    h, w = size
    out = np.zeros((n, h, w, img.shape[3]))
    for i in range(n):
        y, x = offsets[i]
        if normalized:
            x, y = x * width, y * height
        if centered:
            x, y = x / 2 + width / 2, y / 2 + height / 2
        top, left = int(y - h / 2), int(x - w / 2)
        for r in range(h):
            for c in range(w):
                if 0 <= top + r < height and 0 <= left + c < width:
                    out[i, r, c] = img[i, top + r, left + c]
    return out


_OFFSETS = np.array([[2.0, 3.0], [4.5, 1.0]], np.float32)

SPECS = [
    OpSpec("betainc", lambda a, b, x: ops.Betainc()(a, b, x), special.betainc, shapes=[(3, 4)] * 3,
           gen=[_shape, _shape, _unit], atol=1e-6, grad_inputs=(2,)),  # MindSpore differentiates x only
    OpSpec("ctc_loss", _ctc(True), lambda x: _ctc_ref(x, True), shapes=[(4, 2, 3)]),
    OpSpec("ctc_loss_no_merge", _ctc(False), lambda x: _ctc_ref(x, False), shapes=[(4, 2, 3)]),
    OpSpec("rnnt_loss", lambda a: ops.RNNTLoss(2)(a, T(_RL), T(_RIL), T(_RLL))[0], lambda a: _rnnt_ref(a, 2),
           shapes=[(2, 4, 3, 5)]),
    OpSpec("stft", lambda x, w: ops.STFT(8, 3, 8, False, True, True)(x, w), lambda x, w: _stft_ref(x, w, 8, 3),
           shapes=[(2, 20), (8,)], grad=False),
    OpSpec("resize_area", lambda x: ops.ResizeArea()(x, T(np.array([3, 4], np.int32))),
           lambda x: _area_ref(x, 3, 4), shapes=[(2, 5, 7, 3)], grad=False, dtypes=("float32",)),
    OpSpec("matrix_logarithm", lambda x: ops.MatrixLogarithm()(x), lambda x: np.stack([sla.logm(m) for m in x]),
           shapes=[(2, 3, 3)], gen=lambda r, s: np.eye(3) * 3 + r.standard_normal(s) * 0.3
           + 0.3j * r.standard_normal(s), grad=False),
    OpSpec("extract_glimpse", lambda x: ops.ExtractGlimpse(False, False, False, "zero")(
        x, T(np.array([3, 4], np.int32)), T(_OFFSETS)), lambda x: _glimpse_ref(x, _OFFSETS, centered=False),
           shapes=[(2, 6, 7, 2)], dtypes=("float32",), grad=False),
    OpSpec("extract_glimpse_centered", lambda x: ops.ExtractGlimpse(True, True, False, "zero")(
        x, T(np.array([3, 4], np.int32)), T(_OFFSETS / 10)),
           lambda x: _glimpse_ref(x, _OFFSETS / 10, normalized=True), shapes=[(2, 6, 7, 2)], dtypes=("float32",),
           grad=False),
]
test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)


def test_betainc_gradient_is_for_x_only_as_mindspore():
    a, b, x = np.array([1.5, 2.0]), np.array([0.7, 3.0]), np.array([0.3, 0.6])
    ga, gb, gx = ms.grad(lambda *t: ops.Betainc()(*t).sum(), grad_position=(0, 1, 2))(T(a), T(b), T(x))
    np.testing.assert_array_equal(ga.asnumpy(), 0)
    np.testing.assert_array_equal(gb.asnumpy(), 0)
    np.testing.assert_allclose(gx.asnumpy(), x ** (a - 1) * (1 - x) ** (b - 1) / special.beta(a, b), rtol=1e-12)


def test_ctc_loss_returns_the_logits_gradient_and_its_options():
    x = np.random.RandomState(0).standard_normal((4, 2, 3))
    loss, grad = ops.CTCLoss()(T(x), T(_LI), T(_LV), T(_SL))
    np.testing.assert_allclose(grad.asnumpy(), ms.grad(lambda z: _ctc(True)(z).sum())(T(x)).asnumpy(), atol=1e-12)
    np.testing.assert_array_equal(grad.asnumpy()[3, 1], 0)          # past sequence_length[1]
    # collapsing the repeated labels first turns [1, 1] into [1]
    collapsed = ops.CTCLoss(preprocess_collapse_repeated=True)(T(x), T(_LI), T(_LV), T(_SL))[0].asnumpy()
    logp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    paths = [p for p in itertools.product(range(3), repeat=4) if _collapse(p, 2, True) == [1]]
    np.testing.assert_allclose(collapsed[0], -np.log(sum(np.exp(sum(logp[t, 0, k] for t, k in enumerate(p)))
                                                         for p in paths)))
    # a label sequence longer than the input: an error, or a zero loss when ignored
    short = T(np.array([1, 2], np.int32))   # [1, 1] needs 3 steps (a blank between), [0, 1, 0] needs 3
    with pytest.raises(ValueError, match="CTCLoss"):
        ops.CTCLoss()(T(x), T(_LI), T(_LV), short)
    np.testing.assert_array_equal(ops.CTCLoss(ignore_longer_outputs_than_inputs=True)(
        T(x), T(_LI), T(_LV), short)[0].asnumpy(), [0.0, 0.0])


def test_nms_with_mask_matches_mindspore():
    boxes = np.array([[0, 0, 10, 10, 0.5], [1, 1, 11, 11, 0.8], [20, 20, 30, 30, 0.7], [0, 0, 9, 9, 0.95],
                      [21, 21, 29, 29, 0.3], [0, 0, 10, 12, 0.6]], np.float32)
    for threshold, keep in ((0.7, [1, 1, 1, 1, 0, 1]), (0.54, [1, 0, 1, 0, 0, 0]), (0.55, [1, 1, 1, 0, 0, 0])):
        out, idx, mask = ops.NMSWithMask(threshold)(T(boxes))
        np.testing.assert_array_equal(out.asnumpy(), boxes[np.argsort(-boxes[:, 4], kind="stable")])
        np.testing.assert_array_equal(idx.asnumpy(), np.arange(6))
        np.testing.assert_array_equal(mask.asnumpy(), np.array(keep, bool))


def test_combined_non_max_suppression():
    boxes = np.array([[[[0, 0, 1, 1]], [[0, 0, 0.9, 1]], [[0.5, 0.5, 1.4, 1.2]]]], np.float32)
    scores = np.array([[[0.9, 0.1], [0.8, 0.7], [0.3, 0.6]]], np.float32)
    args = (T(boxes), T(scores), T(2, ms.int32), T(3, ms.int32), T(0.5, ms.float32), T(0.2, ms.float32))
    nboxes, nscores, nclasses, valid = ops.CombinedNonMaxSuppression()(*args)
    # class 0: 0.9 keeps box 0, suppresses box 1 (IoU 0.9), keeps box 2 (0.3); class 1: 0.7 (box 1), 0.6 (box 2)
    np.testing.assert_allclose(nscores.asnumpy(), [[0.9, 0.7, 0.6]])
    np.testing.assert_array_equal(nclasses.asnumpy(), [[0, 1, 1]])
    np.testing.assert_allclose(nboxes.asnumpy(), [[[0, 0, 1, 1], [0, 0, 0.9, 1], [0.5, 0.5, 1, 1]]])  # clipped
    assert valid.asnumpy().tolist() == [3]
    unclipped = ops.CombinedNonMaxSuppression(clip_boxes=False)(*args)[0].asnumpy()
    np.testing.assert_allclose(unclipped[0, 2], [0.5, 0.5, 1.4, 1.2])


def test_ragged_range_edit_distance_accidental_hits_no_repeat_ngram():
    splits, values = ops.RaggedRange(ms.int64)(T(np.array([2, 5, 8], np.int32)), T(np.array([3, 5, 12], np.int32)),
                                                T(np.array([1, 1, 1], np.int32)))
    assert splits.dtype == ms.int64 and splits.asnumpy().tolist() == [0, 1, 1, 5]
    assert values.asnumpy().tolist() == [2, 8, 9, 10, 11]
    splits, values = ops.RaggedRange(ms.int32)(T(np.array([2., 5., 8.5], np.float32)),
                                                T(np.array([3., 1, 12], np.float32)),
                                                T(np.array([0.3, -1.5, 1], np.float32)))
    assert splits.asnumpy().tolist() == [0, 4, 7, 11]
    np.testing.assert_allclose(values.asnumpy(), [2, 2.3, 2.6, 2.9, 5, 3.5, 2, 8.5, 9.5, 10.5, 11.5], rtol=1e-6)
    hyp = (T(np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], np.int64)), T(np.array([1, 2, 3, 4, 5], np.int32)),
           T(np.array([3, 4], np.int64)))
    truth = (T(np.array([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]], np.int64)), T(np.array([1, 3, 4, 7, 8], np.int32)),
             T(np.array([3, 4], np.int64)))
    assert ops.EditDistance(True)(*hyp, *truth).asnumpy().tolist() == [0.5, 1.0, 1.0]     # MindSpore's values
    assert ops.EditDistance(False)(*hyp, *truth).asnumpy().tolist() == [1.0, 1.0, 2.0]
    rows, ids, weights = ops.ComputeAccidentalHits(2)(T(np.array([[1, 2], [0, 4], [3, 3]])),
                                                      T(np.array([0, 1, 2, 3, 4])))
    assert rows.asnumpy().tolist() == [0, 0, 1, 1, 2, 2] and ids.asnumpy().tolist() == [1, 2, 0, 4, 3, 3]
    np.testing.assert_array_equal(weights.asnumpy(), np.full(6, -np.finfo(np.float32).max, np.float32))
    seq = np.array([[[1, 2, 1, 2, 5, 1, 2], [9, 3, 9, 5, 4, 1, 5]]], np.int32)
    probs = np.full((1, 2, 10), 0.5, np.float32)
    banned = ops.NoRepeatNGram(3)(T(seq), T(probs)).asnumpy() < -1e38
    # beam 0 ends with (1, 2): the n-grams (1, 2, 1) and (1, 2, 5) exist; beam 1 ends with (1, 5): none
    assert np.nonzero(banned[0, 0])[0].tolist() == [1, 5] and not banned[0, 1].any()


def test_pad_and_shift_and_sub_and_filter():
    out = ops.PadAndShift()(T(np.array([9, 13, -1, -1, -1, -1, -1, -1]), ms.int32), T(np.array([0, 3, 5]), ms.int32),
                            1)
    assert out.asnumpy().tolist() == [-1, -1, -1, 9, 13]
    res, idx = ops.SubAndFilter()(T(np.array([1, 3, 5, 8, 9, 16]), ms.int32), 10, 5)
    assert res.asnumpy().tolist() == [0, 3, 4] and idx.asnumpy().tolist() == [2, 3, 4]
    jit = ms.jit(lambda x: ops.SubAndFilter()(x, 10, 5))(T(np.array([1, 3, 5, 8, 9, 16]), ms.int32))
    assert jit[0].asnumpy().tolist() == [0, 3, 4]


def test_extract_glimpse_noise_stays_in_the_image_range():
    img = np.random.RandomState(0).uniform(-1, 2, (1, 4, 4, 1)).astype(np.float32)
    out = ops.ExtractGlimpse(False, False)(T(img), T(np.array([4, 4], np.int32)),
                                           T(np.array([[0.0, 0.0]], np.float32))).asnumpy()
    np.testing.assert_array_equal(out[0, 2:, 2:], img[0, :2, :2])        # the part inside the image
    assert img.min() <= out.min() and out.max() <= img.max()


def test_fractional_max_pool3d_with_fixed_ksize():
    r = np.random.RandomState(3)
    x = r.standard_normal((2, 3, 6, 7, 8)).astype(np.float32)
    y, argmax = ops.FractionalMaxPool3DWithFixedKsize((2, 2, 3), (3, 4, 3))(T(x), T(r.uniform(0.05, 0.95, (2, 3, 3))
                                                                                   .astype(np.float32)))
    assert y.shape == (2, 3, 3, 4, 3) and argmax.dtype == ms.int64
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(y.asnumpy().reshape(2, 3, -1),
                                  np.take_along_axis(flat, argmax.asnumpy().reshape(2, 3, -1), -1))
    with pytest.raises(ValueError, match="random_samples"):
        ops.FractionalMaxPool3DWithFixedKsize(2, 2)(T(x), T(np.ones((2, 3, 2), np.float32)))


def test_dtype_to_enum_gives_mindsporess_type_ids():
    ids = {ms.bool_: 30, ms.int8: 32, ms.int32: 34, ms.int64: 35, ms.uint8: 37, ms.float16: 42, ms.float32: 43,
           ms.float64: 44, ms.bfloat16: 45, ms.complex64: 51, ms.complex128: 52}
    for dtype, value in ids.items():
        assert ops.DtypeToEnum()("Cast", "dtype", dtype) == value


_F = np.ones((3, 4), np.float32)
test_bad_input = make_error_tests([
    ErrorSpec("betainc-int", lambda: ops.Betainc()(T([1, 2]), T([1, 2]), T([1, 2])), TypeError,
              "For primitive[Betainc], the input argument[a] must be a type of"),
    ErrorSpec("betainc-mixed", lambda: ops.Betainc()(T(_F), T(_F.astype(np.float64)), T(_F)), TypeError,
              "the input type must be same"),
    ErrorSpec("betainc-shape", lambda: ops.Betainc()(T(_F[:1]), T(_F), T(_F)), ValueError, "shape of b"),
    ErrorSpec("logm-real", lambda: ops.MatrixLogarithm()(T(_F[:3, :3])), TypeError, "Complex"),
    ErrorSpec("ragged-zero-delta", lambda: ops.RaggedRange(ms.int32)(T([9]), T([2]), T([0])), ValueError,
              "delta != 0"),
    ErrorSpec("ragged-tsplits", lambda: ops.RaggedRange(ms.float32)(T([1]), T([2]), T([1])), TypeError, "Tsplits"),
    ErrorSpec("nms-4-columns", lambda: ops.NMSWithMask(0.5)(T(_F)), ValueError, "should equal to 5"),
    ErrorSpec("nms-threshold-int", lambda: ops.NMSWithMask(1), TypeError,
              "iou_threshold"),
    ErrorSpec("stft-no-window", lambda: ops.STFT(4, 1, 4, False, True, True)(T(_F), None), TypeError,
              "argument[window] must be Tensor"),
    ErrorSpec("ctc-label-dtype", lambda: ops.CTCLoss()(T(np.ones((4, 2, 3), np.float32)), T(_LI),
                                                      T(_LV.astype(np.int64)), T(_SL)), TypeError, "labels_values"),
    ErrorSpec("resize-area-size", lambda: ops.ResizeArea()(T(np.ones((1, 4, 4, 1), np.float32)),
                                                          T(np.array([0, 2], np.int32))), ValueError, "size"),
    ErrorSpec("ngram-too-long", lambda: ops.NoRepeatNGram(8)(T(np.ones((1, 1, 7), np.int32)), T(np.ones((1, 1, 3),
                                                             np.float32))), ValueError, "ngram_size"),
    ErrorSpec("accidental-hits-num-true", lambda: ops.ComputeAccidentalHits(2)(T(np.ones((3, 1), np.int64)),
                                                                                T(np.ones(3, np.int64))),
              ValueError, "num_true"),
    ErrorSpec("sub-and-filter-float", lambda: ops.SubAndFilter()(T([1.0]), 1, 1), TypeError, "input_x"),
    ErrorSpec("pad-and-shift-index", lambda: ops.PadAndShift()(T(np.array([1, 2]), ms.int32),
                                                              T(np.array([0, 1]), ms.int32), 1), ValueError,
              "shift_idx"),
    ErrorSpec("rnnt-labels-dtype", lambda: ops.RNNTLoss()(T(np.ones((2, 4, 3, 5), np.float32)), T(_RL.astype(
        np.int64)), T(_RIL), T(_RLL)), TypeError, "labels"),
    ErrorSpec("glimpse-noise", lambda: ops.ExtractGlimpse(noise="salt"), ValueError, "noise"),
    ErrorSpec("dtype-to-enum", lambda: ops.DtypeToEnum()("op", "arg", 3), TypeError,
              "the input 'arg' should be mindspore dtype"),
])


def test_functional_stft_centres_the_frames_with_reflection():
    x = np.random.RandomState(4).standard_normal((2, 40)).astype(np.float32)
    out = ops.stft(T(x), 16)
    padded = np.pad(x, ((0, 0), (8, 8)), mode="reflect")
    want = _stft_ref(padded, np.ones(16), 16, 4)
    assert out.shape == (2, 9, 11, 2)                       # real and imaginary parts by default for real input
    np.testing.assert_allclose(out.asnumpy()[..., 0] + 1j * out.asnumpy()[..., 1], want, atol=1e-4)
    single = ops.stft(T(x[0]), 16, hop_length=5, win_length=12, window=T(np.hanning(12).astype(np.float32)),
                      center=False, return_complex=True)
    np.testing.assert_allclose(single.asnumpy(), _stft_ref(x[0], np.pad(np.hanning(12), 2), 16, 5), atol=1e-4)
    with pytest.raises(ValueError, match="pad_mode"):
        ops.stft(T(x), 16, pad_mode="WRAP")
