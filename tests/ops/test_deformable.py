"""Deformable convolution (ops.deformable_conv2d, ops.DeformableOffsets): values against a loop-by-loop numpy
reference of the v2 formula (which MindSpore 2.10 CPU matches to 5e-7 on the first case), gradients in the input,
the offsets, the mask and the weight against float64 finite differences, MindSpore's errors."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed.ops.operations import _grad_ops as G
from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests

T = ms.Tensor


def _sample(img, y, x):
    h, w = img.shape[-2:]
    out = np.zeros(img.shape[:-2])
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    for yy in (y0, y0 + 1):
        for xx in (x0, x0 + 1):
            if 0 <= yy < h and 0 <= xx < w:
                out = out + img[..., yy, xx] * (1 - abs(y - yy)) * (1 - abs(x - xx))
    return out


def _offsets_ref(x, off, strides, pads, ksize, dil, dg):
    n, c, h, w = x.shape
    kh, kw = ksize
    sh, sw, dh, dw = strides[2], strides[3], dil[2], dil[3]
    ho, wo = off.shape[2:]
    planes = off.reshape(n, 3, dg, kh, kw, ho, wo)
    out = np.zeros((n, c, ho * kh, wo * kw))
    cg = c // dg
    for b in range(n):
        for g in range(dg):
            for i in range(ho):
                for j in range(wo):
                    for u in range(kh):
                        for v in range(kw):
                            dx, dy, m = planes[b, :, g, u, v, i, j]
                            py, px = i * sh - pads[0] + u * dh + dy, j * sw - pads[2] + v * dw + dx
                            out[b, g * cg:(g + 1) * cg, i * kh + u, j * kw + v] = \
                                m * _sample(x[b, g * cg:(g + 1) * cg], py, px)
    return out


def _conv_ref(patches, w, b, ksize, groups):
    n, c, hh, ww = patches.shape
    kh, kw = ksize
    ho, wo = hh // kh, ww // kw
    cout = w.shape[0]
    out = np.zeros((n, cout, ho, wo))
    cin_g, cout_g = c // groups, cout // groups
    for o in range(cout):
        g = o // cout_g
        for i in range(ho):
            for j in range(wo):
                patch = patches[:, g * cin_g:(g + 1) * cin_g, i * kh:(i + 1) * kh, j * kw:(j + 1) * kw]
                out[:, o, i, j] = (patch * w[o]).sum((1, 2, 3))
    return out + b[None, :, None, None]


# case 1: groups 2, deformable groups 2, stride 2, dilation (1, 2), pads (1, 0, 0, 1); case 2: plain 3x3
_CASES = {
    "grouped": dict(ksize=(3, 2), strides=(1, 1, 2, 2), pads=(1, 0, 0, 1), dil=(1, 1, 1, 2), groups=2, dg=2,
                    shapes=[(2, 4, 7, 6), (6, 2, 3, 2), (6,), (2, 36, 3, 3)]),
    "plain": dict(ksize=(2, 2), strides=(1, 1, 1, 1), pads=(0, 0, 0, 0), dil=(1, 1, 1, 1), groups=1, dg=1,
                  shapes=[(1, 2, 4, 4), (3, 2, 2, 2), (3,), (1, 12, 3, 3)]),
}


def _offset_gen(r, s):
    return r.uniform(-1.4, 1.4, s) + 0.37       # away from integer sample positions (the kinks of bilinear)


def _dcn(case):
    c = _CASES[case]
    return lambda x, w, b, off: ops.deformable_conv2d(x, w, off, c["ksize"], c["strides"], c["pads"], b, c["dil"],
                                                      c["groups"], c["dg"])


def _dcn_ref(case):
    c = _CASES[case]
    return lambda x, w, b, off: _conv_ref(_offsets_ref(x, off, c["strides"], c["pads"], c["ksize"], c["dil"],
                                                       c["dg"]), w, b, c["ksize"], c["groups"])


def _dof(x, off):
    c = _CASES["grouped"]
    return ops.DeformableOffsets(c["strides"], c["pads"], c["ksize"], c["dil"], "NCHW", c["dg"])(x, off)


SPECS = [OpSpec(f"deformable_conv2d-{k}", _dcn(k), _dcn_ref(k), shapes=v["shapes"],
                gen=[None, None, None, _offset_gen], atol=1e-4, grad_atol=1e-4) for k, v in _CASES.items()]
SPECS.append(OpSpec("DeformableOffsets", _dof, lambda x, off: _offsets_ref(
    x, off, (1, 1, 2, 2), (1, 0, 0, 1), (3, 2), (1, 1, 1, 2), 2), shapes=[(2, 4, 7, 6), (2, 36, 3, 3)],
    gen=[None, _offset_gen]))
test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)


def _args(off_shape=(1, 27, 2, 2), **kw):
    x, w = T(np.ones((1, 3, 4, 4), np.float32)), T(np.ones((2, 3, 3, 3), np.float32))
    base = dict(kernel_size=(3, 3), strides=(1, 1, 1, 1), padding=(0, 0, 0, 0))
    base.update(kw)
    return lambda: ops.deformable_conv2d(x, w, T(np.ones(off_shape, np.float32)), **base)


test_bad_input = make_error_tests([
    ErrorSpec("dcn-strides-nc", _args(strides=(2, 1, 1, 1)), ValueError,
              "For 'DeformableOffsets', the N and C dimensions of 'strides' must be set to 1"),
    ErrorSpec("dcn-strides-len", _args(strides=(1, 1)), TypeError,
              "For 'DeformableOffsets', the 'strides' must be a tuple of 4 ints"),
    ErrorSpec("dcn-v1", _args(modulated=False), ValueError, "the 'modulated' must be True"),
    ErrorSpec("dcn-offsets", _args(off_shape=(1, 9, 2, 2)), ValueError,
              "For 'DeformableOffsets', the 'offsets' must have shape (1, 27, 2, 2)"),
    ErrorSpec("dcn-ksize", _args(kernel_size=3), TypeError,
              "For 'deformable_conv2d', the 'kernel_size' must be a tuple of 2 ints"),
])


def test_documented_example_shape_and_constant_offsets():
    x = T(np.ones((4, 3, 10, 10)), ms.float32)
    w = T(np.ones((5, 3, 3, 3)), ms.float32)
    out = ops.deformable_conv2d(x, w, T(np.ones((4, 27, 8, 8)), ms.float32), (3, 3), (1, 1, 1, 1), (0, 0, 0, 0))
    assert out.shape == (4, 5, 8, 8)
    # offsets (1, 1) shift every sample one pixel down-right; mask 1: inside the image each output is 27
    np.testing.assert_allclose(out.asnumpy()[:, :, :7, :7], 27.0, rtol=1e-6)
    # zero offsets and mask 1: an ordinary convolution
    off = np.zeros((4, 27, 8, 8), np.float32)
    off[:, 18:] = 1.0
    xr = np.random.RandomState(0).randn(4, 3, 10, 10).astype(np.float32)
    plain = ops.conv2d(T(xr), w)
    np.testing.assert_allclose(ops.deformable_conv2d(T(xr), w, T(off), (3, 3), (1, 1, 1, 1), (0, 0, 0, 0)).asnumpy(),
                               plain.asnumpy(), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- multi-scale deformable attention
_LEVELS = np.array([[3, 4], [2, 2]], np.int32)
_STARTS = np.array([0, 12], np.int32)


def _msda_ref(value, loc, weight):
    bs, _, heads, dim = value.shape
    _, q, _, levels, points, _ = loc.shape
    out = np.zeros((bs, q, heads, dim))
    for b in range(bs):
        for lvl, ((h, w), s) in enumerate(zip(_LEVELS, _STARTS)):
            fmap = value[b, s:s + h * w].reshape(h, w, heads, dim).transpose(2, 3, 0, 1)   # (heads, dim, h, w)
            for i in range(q):
                for n in range(heads):
                    for p in range(points):
                        x, y = loc[b, i, n, lvl, p]
                        out[b, i, n] += weight[b, i, n, lvl, p] * _sample(fmap[n], y * h - 0.5, x * w - 0.5)
    return out.reshape(bs, q, heads * dim)


def _msda(value, loc, weight):
    return ops.multi_scale_deformable_attn_function(value, T(_LEVELS), T(_STARTS), loc, weight)


def _loc_gen(r, s):
    return r.uniform(-0.1, 1.1, s) + 0.013     # some points outside the map (zero there)


MSDA = [OpSpec("multi_scale_deformable_attn_function", _msda, _msda_ref,
               shapes=[(2, 16, 2, 3), (2, 3, 2, 2, 2, 2), (2, 3, 2, 2, 2)], gen=[None, _loc_gen, None])]
test_msda_value, test_msda_grad, _, test_msda_graph = make_tests(MSDA)

test_msda_bad_input = make_error_tests([
    ErrorSpec("msda-shape-dtype", lambda: ops.multi_scale_deformable_attn_function(
        T(np.ones((1, 4, 1, 8))), T(np.ones((1, 2))), T(np.zeros(1, np.int32)), T(np.ones((1, 1, 1, 1, 1, 2))),
        T(np.ones((1, 1, 1, 1, 1)))), TypeError, "the dtype of 'shape' must be int32 or int64"),
    ErrorSpec("msda-levels", lambda: ops.multi_scale_deformable_attn_function(
        T(np.ones((1, 4, 1, 8))), T(np.array([[2, 2]], np.int32)), T(np.zeros(1, np.int32)),
        T(np.ones((1, 1, 1, 2, 1, 2))), T(np.ones((1, 1, 1, 2, 1)))), ValueError, "2 levels in 'locations' need 2"),
])


_GRAD_X_EDGE = np.array([[0.081, 0.09, 0.09, 0.009], [0.09, 0.1, 0.1, 0.01], [0.09, 0.1, 0.1, 0.01],
                         [0.009, 0.01, 0.01, 0.001]])


@pytest.mark.parametrize("dtype, rtol", [(np.float32, 1e-5), (np.float16, 1e-3)])
@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_deformable_offsets_grad_takes_the_output_positions_of_its_offsets(dtype, rtol, data_format):
    # one output position (offsets 1 x 1) of a 3 x 3 kernel on a 4 x 4 input: the kernel's gradient covers only the
    # patch it sampled (offsets 0.1, mask 0.1); MindSpore's values, float16 accumulated in float32
    op = G.DeformableOffsetsGrad((1, 1, 1, 1), (0, 0, 0, 0), (3, 3), data_format=data_format)
    nhwc = data_format == "NHWC"
    shapes = [(1, 3, 3, 2), (1, 4, 4, 2), (1, 1, 1, 27)] if nhwc else [(1, 2, 3, 3), (1, 2, 4, 4), (1, 27, 1, 1)]
    dout, x, off = (np.ones(s, dtype) * (0.1 if i == 2 else 1) for i, s in enumerate(shapes))
    dx, doff = op(ms.Tensor(dout), ms.Tensor(x), ms.Tensor(off))
    assert dx.dtype == doff.dtype == ms.Tensor(x).dtype
    want_dx = np.stack([_GRAD_X_EDGE] * 2, -1 if nhwc else 0)[None]
    np.testing.assert_allclose(dx.asnumpy().astype(np.float64), want_dx, rtol=rtol, atol=1e-3 * rtol)
    np.testing.assert_allclose(doff.asnumpy().ravel(), [0.0] * 18 + [2.0] * 9, rtol=rtol)
