"""The less common mindseed.numpy functions against numpy (bitwise, nan-reductions, sets, polynomials, ...)."""
import numpy as onp
import pytest

import mindseed as ms
import mindseed.numpy as mnp

A = onp.array([[1.0, -2.0, onp.nan], [4.0, 5.0, 6.0]])
INTS = onp.array([12, 18, 7])
X6 = onp.arange(6.0)
F = onp.array([1, 2, 4, 7, 11, 16.0])
G2 = onp.array([[1, 2, 6], [3, 4, 5.0]])
XX = onp.array([[0, 2.0], [1, 1], [2, 0]]).T
R = onp.random.default_rng(1).random((3, 5))
HD = onp.random.default_rng(2).random(50)
M1, M2, M3 = (onp.random.default_rng(3).random(s) for s in ((2, 3), (3, 4), (4,)))
PH = onp.linspace(0, onp.pi, num=5)
PH[3:] += onp.pi
LIN = onp.linspace(-2.5, 2.5, 6)
m = mnp.array

CASES = [
    ("bitwise_and", lambda: mnp.bitwise_and(m(INTS), 6), lambda: onp.bitwise_and(INTS, 6)),
    ("bitwise_or", lambda: mnp.bitwise_or(m(INTS), 6), lambda: onp.bitwise_or(INTS, 6)),
    ("bitwise_xor", lambda: mnp.bitwise_xor(m(INTS), 6), lambda: onp.bitwise_xor(INTS, 6)),
    ("bitwise_not", lambda: mnp.bitwise_not(m(INTS)), lambda: onp.bitwise_not(INTS)),
    ("gcd", lambda: mnp.gcd(m(INTS), m([8, 12, 14])), lambda: onp.gcd(INTS, [8, 12, 14])),
    ("lcm", lambda: mnp.lcm(m(INTS), m([8, 12, 14])), lambda: onp.lcm(INTS, [8, 12, 14])),
    ("copysign", lambda: mnp.copysign(m([1.0, 2.0]), m([-1.0, 1.0])), lambda: [-1.0, 2.0]),
    ("heaviside", lambda: mnp.heaviside(m([-1.0, 0.0, 2.0]), m([0.5] * 3)),
     lambda: onp.heaviside([-1.0, 0.0, 2.0], 0.5)),
    ("logaddexp", lambda: mnp.logaddexp(m([1.0, 2.0]), m([3.0, 4.0])), lambda: onp.logaddexp([1.0, 2.0], [3.0, 4.0])),
    ("logaddexp2", lambda: mnp.logaddexp2(m([1.0, 2.0]), m([3.0, 4.0])),
     lambda: onp.logaddexp2([1.0, 2.0], [3.0, 4.0])),
    ("signbit", lambda: mnp.signbit(m([-1.0, 0.0, 2.0])), lambda: onp.signbit([-1.0, 0.0, 2.0])),
    ("divmod", lambda: mnp.divmod(m([5, -5]), 3), lambda: onp.divmod([5, -5], 3)),
    ("isneginf", lambda: mnp.isneginf(m([-onp.inf, 1.0])), lambda: [True, False]),
    ("nanmax", lambda: mnp.nanmax(m(A), axis=1), lambda: onp.nanmax(A, axis=1)),
    ("nanmin", lambda: mnp.nanmin(m(A)), lambda: onp.nanmin(A)),
    ("nanmean", lambda: mnp.nanmean(m(A), axis=1), lambda: onp.nanmean(A, axis=1)),
    ("nanstd", lambda: mnp.nanstd(m(A), axis=1), lambda: onp.nanstd(A, axis=1)),
    ("nanvar", lambda: mnp.nanvar(m(A)), lambda: onp.nanvar(A)),
    ("nancumsum", lambda: mnp.nancumsum(m(A), axis=1), lambda: onp.nancumsum(A, axis=1)),
    ("append", lambda: mnp.append(m(A), m([1.0, 2.0])), lambda: onp.append(A, [1.0, 2.0])),
    ("append_axis", lambda: mnp.append(m(A), m(A), axis=0), lambda: onp.append(A, A, axis=0)),
    ("isin", lambda: mnp.isin(m(INTS), m([7, 12])), lambda: onp.isin(INTS, [7, 12])),
    ("in1d", lambda: mnp.in1d(m(INTS), m([7, 12]), invert=True), lambda: onp.isin(INTS, [7, 12], invert=True)),
    ("intersect1d", lambda: mnp.intersect1d(m([3, 1, 2, 1]), m([2, 3, 5])),
     lambda: onp.intersect1d([3, 1, 2, 1], [2, 3, 5])),
    ("setdiff1d", lambda: mnp.setdiff1d(m([3, 1, 2, 1]), m([2, 5])), lambda: onp.setdiff1d([3, 1, 2, 1], [2, 5])),
    ("tril_indices", lambda: mnp.tril_indices(3, 0, 4), lambda: onp.tril_indices(3, 0, 4)),
    ("triu_indices", lambda: mnp.triu_indices(3, 1), lambda: onp.triu_indices(3, 1)),
    ("tril_indices_from", lambda: mnp.tril_indices_from(mnp.ones((3, 4)), -1),
     lambda: onp.tril_indices_from(onp.ones((3, 4)), -1)),
    ("triu_indices_from", lambda: mnp.triu_indices_from(mnp.ones((3, 3))),
     lambda: onp.triu_indices_from(onp.ones((3, 3)))),
    ("diag_indices", lambda: mnp.diag_indices(3), lambda: onp.diag_indices(3)),
    ("indices", lambda: mnp.indices((2, 3)), lambda: onp.indices((2, 3))),
    ("ix_", lambda: mnp.ix_(m([0, 1]), m([2, 4])), lambda: onp.ix_([0, 1], [2, 4])),
    ("unravel_index", lambda: mnp.unravel_index(m([22, 41, 37]), (7, 6)),
     lambda: onp.unravel_index([22, 41, 37], (7, 6))),
    ("unravel_index_f", lambda: mnp.unravel_index(m([22, 41, 37]), (7, 6), order="F"),
     lambda: onp.unravel_index([22, 41, 37], (7, 6), order="F")),
    ("ravel_multi_index", lambda: mnp.ravel_multi_index((m([3, 6, 6]), m([4, 5, 1])), (7, 6)),
     lambda: onp.ravel_multi_index(([3, 6, 6], [4, 5, 1]), (7, 6))),
    ("rollaxis", lambda: mnp.rollaxis(mnp.ones((3, 4, 5, 6)), 3, 1),
     lambda: onp.rollaxis(onp.ones((3, 4, 5, 6)), 3, 1)),
    ("rollaxis_end", lambda: mnp.rollaxis(mnp.ones((3, 4, 5, 6)), 1, 4),
     lambda: onp.rollaxis(onp.ones((3, 4, 5, 6)), 1, 4)),
    ("select", lambda: mnp.select([m(X6) < 3, m(X6) > 4], [m(X6), m(X6) ** 2], 42),
     lambda: onp.select([X6 < 3, X6 > 4], [X6, X6 ** 2], 42)),
    ("sometrue", lambda: mnp.sometrue(m([[0, 0], [0, 1]]), axis=0), lambda: onp.any([[0, 0], [0, 1]], axis=0)),
    ("choose", lambda: mnp.choose(m([0, 1, 2, 1]), [m([1, 2, 3, 4]), m([10, 20, 30, 40]), m([5, 6, 7, 8])]),
     lambda: onp.choose([0, 1, 2, 1], [[1, 2, 3, 4], [10, 20, 30, 40], [5, 6, 7, 8]])),
    ("trapz", lambda: mnp.trapz(m([1.0, 2.0, 3.0])), lambda: 4.0),
    ("trapz_x", lambda: mnp.trapz(m([1.0, 2.0, 3.0]), m([4.0, 6.0, 8.0])), lambda: 8.0),
    ("ediff1d", lambda: mnp.ediff1d(m([1, 2, 4, 7, 0]), to_begin=m([-99]), to_end=m([88, 99])),
     lambda: onp.ediff1d([1, 2, 4, 7, 0], to_begin=[-99], to_end=[88, 99])),
    ("gradient", lambda: mnp.gradient(m(F)), lambda: onp.gradient(F)),
    ("gradient_spacing", lambda: mnp.gradient(m(F), 2.0), lambda: onp.gradient(F, 2.0)),
    ("gradient_2d", lambda: mnp.gradient(m(G2)), lambda: onp.gradient(G2)),
    ("unwrap", lambda: mnp.unwrap(m(PH)), lambda: onp.unwrap(PH)),
    ("vander", lambda: mnp.vander(m([1, 2, 3, 5])), lambda: onp.vander([1, 2, 3, 5])),
    ("vander_increasing", lambda: mnp.vander(m([1.0, 2.0, 3.0]), 4, True),
     lambda: onp.vander([1.0, 2.0, 3.0], 4, True)),
    ("polyval", lambda: mnp.polyval(m([3.0, 0.0, 1.0]), m([5.0, 1.0])),
     lambda: onp.polyval([3.0, 0.0, 1.0], [5.0, 1.0])),
    ("polyadd", lambda: mnp.polyadd(m([1.0, 2.0]), m([9.0, 5.0, 4.0])),
     lambda: onp.polyadd([1.0, 2.0], [9.0, 5.0, 4.0])),
    ("polysub", lambda: mnp.polysub(m([1.0, 2.0]), m([9.0, 5.0, 4.0])),
     lambda: onp.polysub([1.0, 2.0], [9.0, 5.0, 4.0])),
    ("polymul", lambda: mnp.polymul(m([1.0, 2.0, 3.0]), m([9.0, 5.0, 1.0])),
     lambda: onp.polymul([1.0, 2.0, 3.0], [9.0, 5.0, 1.0])),
    ("polyder", lambda: mnp.polyder(m([1.0, 1.0, 1.0, 1.0]), 2), lambda: onp.polyder([1.0, 1.0, 1.0, 1.0], 2)),
    ("polyint", lambda: mnp.polyint(m([1.0, 1.0, 1.0]), 2), lambda: onp.polyint([1.0, 1.0, 1.0], 2)),
    ("polyint_k", lambda: mnp.polyint(m([1.0, 1.0, 1.0]), 1, 3.0), lambda: onp.polyint([1.0, 1.0, 1.0], 1, 3.0)),
    ("multi_dot", lambda: mnp.multi_dot([m(M1), m(M2), m(M3)]), lambda: onp.linalg.multi_dot([M1, M2, M3])),
    ("cov", lambda: mnp.cov(m(XX)), lambda: onp.cov(XX)),
    ("cov_bias", lambda: mnp.cov(m(XX), bias=True), lambda: onp.cov(XX, bias=True)),
    ("cov_rowvar", lambda: mnp.cov(m(XX.T), rowvar=False), lambda: onp.cov(XX.T, rowvar=False)),
    ("corrcoef", lambda: mnp.corrcoef(m(R)), lambda: onp.corrcoef(R)),
    ("hamming", lambda: mnp.hamming(7), lambda: onp.hamming(7)),
    ("hanning", lambda: mnp.hanning(7), lambda: onp.hanning(7)),
    ("bartlett", lambda: mnp.bartlett(7), lambda: onp.bartlett(7)),
    ("blackman", lambda: mnp.blackman(7), lambda: onp.blackman(7)),
    ("pad_constant", lambda: mnp.pad(m([[1.0, 2.0], [3.0, 4.0]]), ((1, 0), (2, 1)), constant_values=9),
     lambda: onp.pad([[1.0, 2.0], [3.0, 4.0]], ((1, 0), (2, 1)), constant_values=9)),
    ("pad_1d_reflect", lambda: mnp.pad(m([1.0, 2.0, 3.0]), (2, 1), "reflect"),
     lambda: onp.pad([1.0, 2.0, 3.0], (2, 1), "reflect")),
    ("interp", lambda: mnp.interp(m([0.0, 1.0, 1.5, 2.72, 3.14]), m([1.0, 2.0, 3.0]), m([3.0, 2.0, 0.0])),
     lambda: onp.interp([0.0, 1.0, 1.5, 2.72, 3.14], [1.0, 2.0, 3.0], [3.0, 2.0, 0.0])),
    ("digitize", lambda: mnp.digitize(m([0.2, 6.4, 3.0, 1.6]), m([0.0, 1.0, 2.5, 4.0, 10.0])),
     lambda: onp.digitize([0.2, 6.4, 3.0, 1.6], [0.0, 1.0, 2.5, 4.0, 10.0])),
    ("digitize_right", lambda: mnp.digitize(m([1.0, 2.5]), m([0.0, 1.0, 2.5, 4.0]), right=True),
     lambda: onp.digitize([1.0, 2.5], [0.0, 1.0, 2.5, 4.0], right=True)),
    ("histogram", lambda: mnp.histogram(m(HD), 5), lambda: onp.histogram(HD, 5)),
    ("histogram_range", lambda: mnp.histogram(m(HD), 4, range=(0, 2)), lambda: onp.histogram(HD, 4, range=(0, 2))),
    ("histogram_bin_edges", lambda: mnp.histogram_bin_edges(m(HD), 3), lambda: onp.histogram_bin_edges(HD, 3)),
    ("apply_along_axis", lambda: mnp.apply_along_axis(lambda v: mnp.sum(v * 2), 1, m(G2)),
     lambda: onp.apply_along_axis(lambda v: (v * 2).sum(), 1, G2)),
    ("apply_along_axis_vec", lambda: mnp.apply_along_axis(mnp.flip, 0, m(G2)),
     lambda: onp.apply_along_axis(lambda v: v[::-1], 0, G2)),
    ("apply_over_axes", lambda: mnp.apply_over_axes(mnp.sum, m(onp.arange(24.0).reshape(2, 3, 4)), [0, 2]),
     lambda: onp.apply_over_axes(onp.sum, onp.arange(24.0).reshape(2, 3, 4), [0, 2])),
    ("piecewise", lambda: mnp.piecewise(m(LIN), [m(LIN) < 0, m(LIN) >= 0], [-1, 1]),
     lambda: onp.piecewise(LIN, [LIN < 0, LIN >= 0], [-1, 1])),
    ("piecewise_default", lambda: mnp.piecewise(m(LIN), [m(LIN) < 0], [lambda v: -v, lambda v: v * 2]),
     lambda: onp.piecewise(LIN, [LIN < 0], [lambda v: -v, lambda v: v * 2])),
    ("mgrid", lambda: mnp.mgrid[0:5, 0:3], lambda: onp.mgrid[0:5, 0:3]),
    ("mgrid_points", lambda: mnp.mgrid[-1:1:5j], lambda: onp.mgrid[-1:1:5j]),
    ("ogrid", lambda: mnp.ogrid[0:5, 0:3], lambda: onp.ogrid[0:5, 0:3]),
]
CASES += [(f"convolve_{mode}", lambda mode=mode: mnp.convolve(m([1.0, 2.0, 3.0]), m([0.0, 1.0, 0.5, 2.0]), mode),
           lambda mode=mode: onp.convolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5, 2.0], mode))
          for mode in ("full", "same", "valid")]
CASES += [(f"correlate_{mode}", lambda mode=mode: mnp.correlate(m([1.0, 2.0, 3.0, 4.0]), m([0.0, 1.0, 0.5]), mode),
           lambda mode=mode: onp.correlate([1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 0.5], mode))
          for mode in ("full", "same", "valid")]
CASES += [(f"pad_{mode}", lambda mode=mode: mnp.pad(m([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]), 1, mode),
           lambda mode=mode: onp.pad([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]], 1, mode))
          for mode in ("reflect", "edge", "wrap")]

_PTS = onp.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.5, 8.0], [9.0, 10.0, 11.0], [12.0, 13.0, 14.0]])
CASES += [
    ("histogramdd", lambda: mnp.histogramdd(m(_PTS), bins=(2, 3, 4)), lambda: onp.histogramdd(_PTS, bins=(2, 3, 4))),
    ("histogramdd_range_weights", lambda: mnp.histogramdd(m(_PTS[:, :2]), bins=2, range=[(0, 8), (1, 9)],
                                                          weights=m([1.0, 2.0, 3.0, 4.0, 5.0])),
     lambda: onp.histogramdd(_PTS[:, :2], bins=2, range=[(0, 8), (1, 9)], weights=[1.0, 2.0, 3.0, 4.0, 5.0])),
    ("histogram2d_density", lambda: mnp.histogram2d(m(_PTS[:, 0]), m(_PTS[:, 1]), bins=(2, 3), density=True),
     lambda: onp.histogram2d(_PTS[:, 0], _PTS[:, 1], bins=(2, 3), density=True)),
]


def test_grids_are_lists_as_mindspore():
    """MindSpore's meshgrid returns a list of grids, and indices is meshgrid's result (numpy stacks it)."""
    grids = mnp.meshgrid(m([1, 2]), m([3, 4, 5]))
    assert isinstance(grids, list) and [g.shape for g in grids] == [(3, 2), (3, 2)]
    idx = mnp.indices((2, 3))
    assert isinstance(idx, list) and idx[1].asnumpy().tolist() == [[0, 1, 2], [0, 1, 2]]
    counts, edges = mnp.histogramdd(m(_PTS), bins=2)
    assert isinstance(edges, list) and counts.dtype == ms.float32 and counts.shape == (2, 2, 2)
    with pytest.raises(ValueError, match="range argument must have one entry per dimension"):
        mnp.histogramdd(m(_PTS), range=[(0, 1)])


def _host(x):
    if isinstance(x, (tuple, list)):
        return [_host(v) for v in x]
    return x.asnumpy() if isinstance(x, ms.Tensor) else onp.asarray(x)


def _assert_close(got, want):
    if isinstance(want, (tuple, list)) and isinstance(got, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_close(g, w)
        return
    onp.testing.assert_allclose(got, onp.asarray(want, dtype=float) if not isinstance(want, onp.ndarray) else want,
                                rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, ours, theirs", CASES, ids=[c[0] for c in CASES])
def test_matches_numpy(name, ours, theirs):
    _assert_close(_host(ours()), theirs())


def test_misc_predicates_and_random():
    assert bool(mnp.array_equiv(m([1, 2]), m([[1, 2], [1, 2]])))
    assert not bool(mnp.array_equiv(m([1, 2]), m([1, 3])))
    assert not bool(mnp.array_equiv(m([1, 2]), m([1, 2, 3])))
    assert mnp.isscalar(3.0) and not mnp.isscalar(m([1]))
    assert mnp.rand(2, 3).shape == (2, 3) and mnp.rand(2).dtype == ms.float32
    assert mnp.randn((2,)).shape == (2,)
    r = mnp.randint(0, 5, (100,))
    assert r.dtype == ms.int32 and 0 <= int(r.asnumpy().min()) and int(r.asnumpy().max()) < 5
    assert mnp.array_str(m([1, 2])) == "[1 2]"
    with pytest.raises(ValueError, match="'maxval' must be greater"):
        mnp.randint(3, 3)
    with pytest.raises(ValueError, match="'mode' must be"):
        mnp.convolve(m([1.0]), m([1.0]), "bad")
    with pytest.raises(ValueError, match="same length"):
        mnp.select([m([True])], [])


def test_set_routines_options_and_sometrue_int_keepdims():
    x, y = onp.array([3, 1, 2, 3, 5], onp.int32), onp.array([5, 4, 3, 9], onp.int32)
    np_vals, np_i1, np_i2 = onp.intersect1d(x, y, return_indices=True)
    vals, i1, i2 = mnp.intersect1d(mnp.array(x), mnp.array(y), return_indices=True)
    for got, want in ((vals, np_vals), (i1, np_i1), (i2, np_i2)):
        onp.testing.assert_array_equal(got.asnumpy(), want)
    onp.testing.assert_array_equal(mnp.intersect1d(x, y).asnumpy(), [3, 5])
    ux, uy = onp.array([4, 1, 2]), onp.array([2, 7])
    onp.testing.assert_array_equal(mnp.setdiff1d(ux, uy, assume_unique=True).asnumpy(),
                                   onp.setdiff1d(ux, uy, assume_unique=True))
    onp.testing.assert_array_equal(mnp.setdiff1d(x, y).asnumpy(), onp.setdiff1d(x, y))
    with pytest.raises(TypeError):
        mnp.intersect1d(None, None)
    with pytest.raises(TypeError):
        mnp.intersect1d(x, y, assume_unique=1)
    a = onp.array([[0, 0], [0, 2]])
    assert mnp.sometrue(a, axis=1, keepdims=1).asnumpy().tolist() == [[False], [True]]
    with pytest.raises(TypeError):
        mnp.sometrue(a, keepdims=0.5)


def test_windows_carry_float32_rounding_as_mindspore():
    # oracle (MindSpore 2.10) values: the windows are float32 tensor arithmetic, not float64 rounded once
    onp.testing.assert_array_equal(mnp.hamming(12).asnumpy(), onp.array(
        [0.08000001, 0.15302339, 0.34890908, 0.6054648, 0.84123594, 0.9813668,
         0.9813669, 0.84123605, 0.60546494, 0.34890926, 0.15302342, 0.08000001], onp.float32))
    onp.testing.assert_allclose(mnp.hanning(12).asnumpy(), [
        0.0, 0.07937324, 0.29229248, 0.57115734, 0.82743037, 0.97974646,
        0.9797465, 0.8274305, 0.5711575, 0.29229265, 0.07937327, 0.0], rtol=0, atol=1e-7)
    onp.testing.assert_allclose(mnp.blackman(12).asnumpy(), [
        -1.4901161e-08, 3.2606430e-02, 1.5990365e-01, 4.1439798e-01, 7.3604518e-01, 9.6704674e-01,
        9.6704674e-01, 7.3604518e-01, 4.1439798e-01, 1.5990365e-01, 3.2606430e-02, -1.4901161e-08],
        rtol=0, atol=1e-7)
    assert str(mnp.hamming(12)).startswith("[0.08000001 0.15302339")
    for fn in (mnp.hamming, mnp.hanning, mnp.bartlett, mnp.blackman):
        assert fn(1).asnumpy().tolist() == [1.0] and fn(0).shape == (0,) and fn(4).dtype == ms.float32
    with pytest.raises(TypeError, match="should be an int"):
        mnp.hamming(2.0)


def test_histogram_keeps_given_int_edges_as_mindspore():
    counts, edges = mnp.histogram([[1, 2, 1], [1, 0, 1]], bins=[0, 1, 2, 3])
    assert counts.dtype == ms.float32 and counts.asnumpy().tolist() == [1.0, 4.0, 1.0]
    assert edges.dtype == ms.int32 and edges.asnumpy().tolist() == [0, 1, 2, 3]
    counts, edges = mnp.histogram(mnp.arange(4), bins=mnp.arange(5), density=True)
    assert counts.asnumpy().tolist() == [0.25] * 4 and edges.dtype == ms.int32
    counts, edges = mnp.histogramdd(m([[0.5, 1.5], [2.5, 0.5]]), bins=[[0, 1, 3], [0, 1, 2]])
    assert counts.asnumpy().tolist() == [[0.0, 1.0], [1.0, 0.0]] and edges[0].dtype == ms.int32
    with pytest.raises(ValueError, match="`bins` must be 1d"):
        mnp.histogram([1, 2], bins=[[0, 1], [2, 3]])


def test_geomspace_powers_of_two_exact_as_mindspore():
    # MindSpore: start * ((stop / start) ** (1 / root)) ** linspace(0, root): powers of two print exact
    assert str(mnp.geomspace(1, 256, num=9)) == "[  1.   2.   4.   8.  16.  32.  64. 128. 256.]"
    assert mnp.geomspace(1, 256, num=8, endpoint=False).asnumpy().tolist() == [1, 2, 4, 8, 16, 32, 64, 128]
    out = mnp.geomspace([1, 2], [100, 2000], num=4, axis=1)
    assert out.shape == (2, 4) and out.dtype == ms.float32
    onp.testing.assert_allclose(out.asnumpy(), onp.geomspace([1, 2], [100, 2000], num=4, axis=1), rtol=1e-6)
    got = mnp.geomspace(1, 8, 4, dtype=ms.int32)
    assert got.dtype == ms.int32 and got.asnumpy().tolist() == [1, 2, 4, 8]


def test_integer_mean_var_std_average_as_mindspore():
    # oracle (MindSpore 2.10): integer means stay integer (truncated toward zero); var / std deviate from that
    # mean in float32; average of integers (and integer weights) is an integer too
    i = m(onp.array([[1, 2, 3], [4, 5, 6]], onp.int32))
    assert mnp.mean(i).dtype == ms.int32 and mnp.mean(i).item() == 3
    assert mnp.mean(i, axis=0).asnumpy().tolist() == [2, 3, 4]
    out = mnp.mean(i, dtype=ms.float32)
    assert out.dtype == ms.float32 and out.item() == 3.0
    assert mnp.mean(m([-1, -2])).item() == -1
    onp.testing.assert_allclose(mnp.std(i).asnumpy(), 1.77951, rtol=1e-5)
    onp.testing.assert_allclose(mnp.var(i, axis=0, ddof=1).asnumpy(), [5.0, 5.0, 5.0])
    std = mnp.std(i, axis=1, keepdims=True)
    assert std.shape == (2, 1) and std.dtype == ms.float32
    onp.testing.assert_allclose(std.asnumpy(), [[0.816496611], [0.816496611]], rtol=1e-6)
    assert mnp.var(m([-1, -4])).item() == 2.5
    avg = mnp.average(i, axis=1, weights=m([1, 2, 3]))
    assert avg.dtype == ms.int32 and avg.asnumpy().tolist() == [2, 5]
    avg, wsum = mnp.average(i, axis=1, returned=True)
    assert avg.asnumpy().tolist() == [2, 5] and wsum.dtype == ms.int32 and wsum.asnumpy().tolist() == [3, 3]
    assert mnp.average(m([[-1, -2], [-3, -4]]), axis=1, weights=m([1, 2])).asnumpy().tolist() == [-1, -3]
    f = m(onp.array([[1.5, -2.0, 3.25], [0.0, 5.5, -6.0]], onp.float32))
    onp.testing.assert_allclose(mnp.average(f, axis=0, weights=m([1, 3])).asnumpy(), [0.375, 3.625, -3.6875])
    onp.testing.assert_allclose(mnp.average(i, weights=f).asnumpy(), -0.555556, rtol=1e-5)
    with pytest.raises(RuntimeError, match="For 'ReduceMean', unsupported reduce operation for bool."):
        mnp.mean(m([True, False]))


def test_maximum_minimum_clip_next_to_a_scalar_keep_the_array_dtype():
    # oracle (MindSpore 2.10): a 0-d operand (a Python scalar included) gives the other operand's dtype
    i = m(onp.array([[1, 2, 3], [4, 5, 6]], onp.int32))
    f = m(onp.array([[1.5, -2.0, 3.25], [0.0, 5.5, -6.0]], onp.float32))
    for out, dtype, want in ((mnp.maximum(i, 2.5), ms.int32, [[2, 2, 3], [4, 5, 6]]),
                             (mnp.minimum(i, 4.5), ms.int32, [[1, 2, 3], [4, 4, 4]]),
                             (mnp.maximum(2.5, i), ms.int32, [[2, 2, 3], [4, 5, 6]]),
                             (mnp.maximum(i, 2.5, dtype=ms.float32), ms.int32, [[2, 2, 3], [4, 5, 6]]),
                             (mnp.clip(i, 2, 4.5), ms.int32, [[2, 2, 3], [4, 4, 4]]),
                             (mnp.clip(i, None, 3), ms.int32, [[1, 2, 3], [3, 3, 3]]),
                             (mnp.maximum(i, f), ms.float32, [[1.5, 2.0, 3.25], [4.0, 5.5, 6.0]]),
                             (mnp.clip(f, -1, 2), ms.float32, [[1.5, -1.0, 2.0], [0.0, 2.0, -1.0]])):
        assert out.dtype == dtype and out.asnumpy().tolist() == want
    assert mnp.maximum(3, 4).dtype == ms.int32 and mnp.maximum(3, 4).item() == 4
    assert mnp.minimum(mnp.array(2.5), mnp.array(1)).item() == 1.0


def test_cumprod_exp2_copysign_polyval_dtypes_as_mindspore():
    # oracle (MindSpore 2.10) dtypes and values
    i = m(onp.array([[1, 2, 3], [4, 5, 6]], onp.int32))
    f = m(onp.array([[1.5, -2.0, 3.25], [0.0, 5.5, -6.0]], onp.float32))
    out = mnp.cumprod(i, axis=1)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [[1, 2, 6], [4, 20, 120]]
    assert mnp.cumprod(m(onp.array([1, 2], onp.int8))).dtype == ms.int32
    assert mnp.cumprod(m(onp.array([2, 3], onp.uint8))).dtype == ms.uint32
    assert mnp.cumprod(i, dtype=ms.float32).dtype == ms.float32
    out = mnp.exp2(i)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [[2, 4, 8], [16, 32, 64]]
    assert mnp.exp2(f).dtype == ms.float32
    out = mnp.copysign(i, -1)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [[-1, -2, -3], [-4, -5, -6]]
    assert mnp.copysign(-i, f).asnumpy().tolist() == [[1, -2, 3], [4, 5, -6]]
    onp.testing.assert_array_equal(mnp.copysign(f, m([-1, 1, -1])).asnumpy(), [[-1.5, 2.0, -3.25], [0.0, 5.5, -6.0]])
    with pytest.raises(TypeError, match="sign does not accept dtype bool"):
        mnp.copysign(True, 1)
    out = mnp.polyval(m([3, 0, 1]), m([5, 1]))
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [76.0, 4.0]


def test_remainder_fmod_computed_as_mindspore():
    # MindSpore: x1 - x2 * floor (or trunc) of x1 / x2, in float32 for integers (zero divisor -> 0): exact results
    # are +0.0, not fmod's -0.0
    f = m(onp.array([[1.5, -2.0, 3.25], [0.0, 5.5, -6.0]], onp.float32))
    i = m(onp.array([[1, 2, 3], [-4, 5, -6]], onp.int32))
    out = mnp.fmod(f, 2)
    assert out.asnumpy().tolist() == [[1.5, 0.0, 1.25], [0.0, 1.5, 0.0]]
    assert not onp.signbit(out.asnumpy()).any()
    assert not onp.signbit(mnp.mod(f, 2).asnumpy()).any()
    out = mnp.mod(i, m([0, 2, 0]))
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [[0, 0, 0], [0, 1, 0]]
    assert mnp.fmod(i, 4).asnumpy().tolist() == [[1, 2, 3], [0, 1, -2]]
    assert mnp.remainder(i, 4).asnumpy().tolist() == [[1, 2, 3], [0, 1, 2]]
    out = mnp.mod(i, 2.5)
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [[1.0, 2.0, 0.5], [1.0, 0.0, 1.5]]
    assert mnp.fmod(m([-7.5]), m([2.0])).asnumpy().tolist() == [-1.5]
