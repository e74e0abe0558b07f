"""mindspore.numpy.pad's numpy modes, and MindSpore's argument names of a few mindspore.numpy functions."""
import numpy as onp
import pytest

import mindseed as ms
import mindseed.numpy as mnp

A = onp.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 8.0, 9.0], [0.0, -1.0, 2.0, 7.0]], onp.float32)
CASES = [dict(pad_width=2, mode=m) for m in ("constant", "edge", "linear_ramp", "maximum", "mean", "median",
                                               "minimum", "reflect", "symmetric", "wrap")]
CASES += [
    dict(pad_width=((1, 2), (3, 1)), mode="reflect", reflect_type="odd"),
    dict(pad_width=((1, 2), (3, 1)), mode="symmetric", reflect_type="odd"),
    dict(pad_width=((1, 2), (3, 1)), mode="mean", stat_length=2),
    dict(pad_width=((1, 2), (0, 1)), mode="linear_ramp", end_values=((5, -5), (1, 2))),
    dict(pad_width=((1, 2), (3, 1)), mode="constant", constant_values=((7, 8), (9, 10))),
    dict(pad_width=6, mode="reflect"), dict(pad_width=7, mode="wrap"), dict(pad_width=5, mode="symmetric"),
]


@pytest.mark.parametrize("kw", CASES, ids=[f"{c['mode']}-{i}" for i, c in enumerate(CASES)])
def test_pad_matches_numpy(kw):
    onp.testing.assert_allclose(mnp.pad(ms.Tensor(A), **kw).asnumpy(), onp.pad(A, **kw), atol=1e-5)


def test_pad_integers_and_errors():
    ints = onp.array([1, 2, 4, 7], onp.int32)
    for mode in ("mean", "median", "linear_ramp"):
        got = mnp.pad(ms.Tensor(ints), 2, mode=mode)
        assert got.dtype == ms.int32 and got.asnumpy().tolist() == onp.pad(ints, 2, mode=mode).tolist()
    with pytest.raises(ValueError, match="'mode' must be one of"):
        mnp.pad(ms.Tensor(A), 1, mode="nope")
    grad = ms.grad(lambda t: (mnp.pad(t, 1, mode="reflect") ** 2).sum())(ms.Tensor(A[0]))
    # x0 appears once, x1 twice (its reflection), ..., each d/dx = 2 x * count
    onp.testing.assert_allclose(grad.asnumpy(), 2 * A[0] * onp.array([1, 2, 2, 1]))


def test_mindspore_argument_names():
    x = ms.Tensor(onp.array([[1.0, -2.0], [3.0, 4.0]], onp.float32))
    assert mnp.clip(x=x, xmin=0, xmax=1).asnumpy().tolist() == [[1.0, 0.0], [1.0, 1.0]]
    assert float(mnp.average(x=x).asnumpy()) == 1.5
    assert mnp.negative(a=x).asnumpy().tolist() == [[-1.0, 2.0], [-3.0, -4.0]]
    assert mnp.positive(a=x).asnumpy().tolist() == x.asnumpy().tolist()
    assert mnp.logical_not(a=mnp.array([True, False])).asnumpy().tolist() == [False, True]
    onp.testing.assert_allclose(mnp.arccos(input=x / 10).asnumpy(), onp.arccos(x.asnumpy() / 10), rtol=1e-6)
    assert mnp.nanmax(x, dtype=ms.float16).dtype == ms.float16 and float(mnp.nanmin(x, None, None, False)) == -2.0
    common, i1, i2 = mnp.intersect1d(mnp.array([1, 3, 4, 3]), mnp.array([3, 1, 2, 1]), return_indices=True)
    assert common.asnumpy().tolist() == [1, 3] and i1.asnumpy().tolist() == [0, 1] and i2.asnumpy().tolist() == [1, 0]
    assert mnp.setdiff1d(mnp.array([5, 1, 3]), mnp.array([1]), assume_unique=True).asnumpy().tolist() == [5, 3]
