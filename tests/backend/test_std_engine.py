"""The numpy reproductions of the C++ engines and distributions behind MindSpore's CPU random kernels."""
import ctypes
import ctypes.util

import numpy as np
import pytest

from mindseed._backend.kernels import std_engine as S
from mindseed._backend.kernels.glibc_math import logf


def test_minstd_stream_is_the_scalar_engine_across_chunks():
    e = S.MinstdRand0(123456789)
    n = S._CHUNK + 37
    want = [e() for _ in range(n)]
    got = S.minstd_stream(S.MinstdRand0(123456789).state, n)
    np.testing.assert_array_equal(got, np.array(want, np.uint64))


def test_minstd_normal_advances_the_engine_by_the_draws_it_used():
    a, b = S.MinstdRand0(99), S.MinstdRand0(99)
    first = S.minstd_normal(a, 7)
    S.minstd_normal(a, 3)
    both = S.minstd_normal(b, 7)
    np.testing.assert_array_equal(first, both)
    assert a.state != b.state
    # a large draw (several chunks) equals the same draw made in pieces of whole pairs
    c, d = S.MinstdRand0(5), S.MinstdRand0(5)
    whole = S.minstd_normal(c, 100000)
    parts = np.concatenate([S.minstd_normal(d, 60000), S.minstd_normal(d, 40000)])
    np.testing.assert_array_equal(whole, parts)
    assert c.state == d.state


def test_mt19937_is_the_reference_sequence():
    # std::mt19937 seeded with 5489 (its default): the 10000th output is 4123659995 (C++ standard, [rand.predef])
    assert int(S.Mt19937(5489).draws(10000)[-1]) == 4123659995


def test_mt19937_uniform_int_stays_in_range_and_covers_it():
    k = S.Mt19937(3).uniform_int(20000, -3, 4)
    assert k.min() == -3 and k.max() == 4
    counts = np.bincount(k + 3)
    assert counts.min() > 2200


def test_mt19937_canonical_is_below_one():
    u = S.Mt19937(11).canonical(50000)
    assert u.dtype == np.float64 and u.min() >= 0.0 and u.max() < 1.0


def test_kernel_engines_one_engine_per_shape_and_kind():
    e = S.KernelEngines(1, 2)
    assert e.seed == S.mix_seed(1, 2)
    assert e.engine((2,), S.Mt19937) is e.engine((2,), S.Mt19937)
    assert e.engine((3,), S.Mt19937) is not e.engine((2,), S.Mt19937)


_LIBM = ctypes.util.find_library("m")


@pytest.mark.skipif(_LIBM is None or not ctypes.util.find_library("c") or "musl" in str(_LIBM),
                    reason="needs glibc's libm")
def test_logf_is_glibc_logf():
    libm = ctypes.CDLL(_LIBM)
    libm.logf.restype, libm.logf.argtypes = ctypes.c_float, [ctypes.c_float]
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.random(20000), rng.random(5000) ** 12, [1.0, 0.5, 2.0 ** -120, 3.0e5]]).astype(np.float32)
    x = x[x > 0]
    want = np.array([libm.logf(float(v)) for v in x], np.float32)
    np.testing.assert_array_equal(logf(x), want)
    # float32(log(float64)) is correctly rounded, glibc's is not always: the difference is what this reproduces
    assert (np.log(x.astype(np.float64)).astype(np.float32) != want).any()


def test_philox_stream_is_the_scalar_block_function_across_chunks():
    """The vectorised stream (a cache-sized chunk of blocks at a time) against `philox4x32` block by block, for
    windows that start inside a block and cross a chunk boundary."""
    key, hi = 0x123456789ABCDEF0, 0x0FEDCBA987654321
    counter = [(b & 0xFFFFFFFF, b >> 32, hi & 0xFFFFFFFF, hi >> 32) for b in range(S._CHUNK - 2, S._CHUNK + 3)]
    blocks = [S.philox4x32(c, (key & 0xFFFFFFFF, key >> 32)) for c in counter]
    ref = np.array([v for blk in blocks for v in blk], np.uint64)
    start = 4 * (S._CHUNK - 2) + 3
    got = S.philox_stream(key, hi, start, len(ref) - 5)
    np.testing.assert_array_equal(got, ref[3:-2])
    whole = S.philox_stream(key, hi, 0, 4 * S._CHUNK + 16)
    np.testing.assert_array_equal(whole[start:start + len(got)], got)
    assert S.philox_stream(key, hi, 5, 0).shape == (0,)
