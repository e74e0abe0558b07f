"""MindSpore's CPU random kernels, reproduced in numpy to the bit.

The kernels seed C++ standard-library engines with MindSpore's `random::GetSeed(seed, seed2)` (one Philox-4x32-10
block scrambling the pair), when the kernel is made: a `std::mt19937` (numpy's MT19937 draws the same words) or a
`std::default_random_engine` (libstdc++'s minstd_rand0, x <- 16807 x mod 2^31 - 1). On top sit libstdc++'s
distributions as the GCC that built MindSpore 2.10 has them: `generate_canonical` (one minstd draw per float, two
mt19937 draws per double), `uniform_int_distribution` (downscaling by division, with rejection),
`normal_distribution<float>` (Marsaglia's polar method, glibc's logf), `bernoulli_distribution` and `std::shuffle`
(two swap positions per draw when the engine's range holds n^2). Large draws are vectorised over blocks of the
stream (minstd: x[i] = a^i x[0] mod m); MindSpore's kernels draw serially, so a tensor of any size gives its numbers.
"""
import random

import numpy as np

_MASK32 = 0xFFFFFFFF
_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_SEED_KEY = (0x3EC8F720, 0x02461E29)
_MINSTD_M = 2147483647      # 2^31 - 1
_MINSTD_A = 16807
_MINSTD_A_INV = pow(_MINSTD_A, -1, _MINSTD_M)


def philox4x32(counter, key, rounds=10):
    """One Philox-4x32 block: four 32-bit outputs of a four-word counter and a two-word key."""
    c0, c1, c2, c3 = (int(v) & _MASK32 for v in counter)
    k0, k1 = (int(v) & _MASK32 for v in key)
    for _ in range(rounds):
        p0, p1 = _PHILOX_M[0] * c0, _PHILOX_M[1] * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & _MASK32, (p0 >> 32) ^ c3 ^ k1, p0 & _MASK32
        k0, k1 = (k0 + _PHILOX_W[0]) & _MASK32, (k1 + _PHILOX_W[1]) & _MASK32
    return c0, c1, c2, c3


_M0, _M1 = np.uint64(_PHILOX_M[0]), np.uint64(_PHILOX_M[1])
_SHIFT32 = np.uint64(32)
_MASK64_32 = np.uint64(_MASK32)


_CHUNK = 1 << 15     # Philox blocks computed together: the working arrays stay in the cache


def philox_stream(key, counter_hi, start, n):
    """Outputs start .. start + n - 1 (uint64 array of 32-bit values) of MindSpore's `random::PhiloxRandom`
    with key `key` (64 bits) and counter (block index: 64 bits, counter_hi: 64 bits), four outputs per block:
    vectorised over the blocks, a cache-sized chunk of them at a time, in place."""
    first, last = start // 4, (start + n + 3) // 4
    out = np.empty((last - first, 4), np.uint64)
    hi = int(counter_hi) & (2 ** 64 - 1)
    k0, k1 = int(key) & _MASK32, (int(key) >> 32) & _MASK32
    size = min(_CHUNK, last - first)
    c0, c1, c2, c3, p0, p1 = (np.empty(size, np.uint64) for _ in range(6))
    for lo in range(first, last, _CHUNK):
        m = min(_CHUNK, last - lo)
        a, b, c, d, q0, q1 = c0[:m], c1[:m], c2[:m], c3[:m], p0[:m], p1[:m]
        index = np.arange(lo, lo + m, dtype=np.uint64)
        np.bitwise_and(index, _MASK64_32, out=a)
        np.right_shift(index, _SHIFT32, out=b)
        c.fill(hi & _MASK32)
        d.fill(hi >> 32)
        r0, r1 = k0, k1
        for _ in range(10):
            np.multiply(a, _M0, out=q0)
            np.multiply(c, _M1, out=q1)
            np.right_shift(q1, _SHIFT32, out=a)         # c0 <- hi(p1) ^ c1 ^ k0
            a ^= b
            a ^= np.uint64(r0)
            np.right_shift(q0, _SHIFT32, out=c)         # c2 <- hi(p0) ^ c3 ^ k1
            c ^= d
            c ^= np.uint64(r1)
            np.bitwise_and(q1, _MASK64_32, out=b)       # c1 <- lo(p1)
            np.bitwise_and(q0, _MASK64_32, out=d)       # c3 <- lo(p0)
            r0, r1 = (r0 + _PHILOX_W[0]) & _MASK32, (r1 + _PHILOX_W[1]) & _MASK32
        block = out[lo - first:lo - first + m]
        block[:, 0], block[:, 1], block[:, 2], block[:, 3] = a, b, c, d
    out = out.reshape(-1)
    return out[start - 4 * first:start - 4 * first + n]


def philox_unit_float(draws):
    """A float32 in [0, 1) of each 32-bit draw: its low 23 bits as the mantissa of a number in [1, 2), minus 1."""
    bits = ((draws & np.uint64(0x7FFFFF)) | np.uint64(127 << 23)).astype(np.uint32)
    return bits.view(np.float32) - np.float32(1.0)


class PhiloxLeftover:
    """MindSpore's CPU Bernoulli kernel's stream: each launch restarts Philox(seed, offset) at block 0, but the
    outputs its previous launch left unused in its last block are drawn first."""

    __slots__ = ("seed", "offset", "_left")

    def __init__(self, seed, offset=0):
        self.seed, self.offset, self._left = seed, offset, np.empty(0, np.uint64)

    def launch(self, n, seed=None, offset=None):
        """n outputs of one launch (with `seed`/`offset` when given: a launch of a non-deterministic kernel)."""
        seed = self.seed if seed is None else seed
        offset = self.offset if offset is None else offset
        left = self._left[:n]
        rest = n - len(left)
        fresh = philox_stream(seed, offset, 0, (rest + 3) // 4 * 4)
        self._left = np.concatenate([self._left[len(left):], fresh[rest:]])
        return np.concatenate([left, fresh[:rest]])


def mix_seed(seed, offset=0):
    """MindSpore's `random::GetSeed(seed, offset)` for a non-zero pair: a 64-bit seed scrambled by Philox."""
    seed, offset = int(seed) & (2 ** 64 - 1), int(offset) & (2 ** 64 - 1)
    out = philox4x32((seed & _MASK32, seed >> 32, offset & _MASK32, offset >> 32), _SEED_KEY)
    return (out[1] << 32) | out[0]


class MinstdRand0:
    """libstdc++'s `std::default_random_engine` (minstd_rand0: x <- 16807 x mod 2^31-1), with its
    `std::uniform_int_distribution` on top."""

    MIN, RANGE = 1, _MINSTD_M - 2      # its outputs are 1 .. 2^31 - 2

    def __init__(self, seed):
        self.state = int(seed) % _MINSTD_M or 1

    def draws(self, n):
        """The next n outputs (uint64 array), advancing the engine."""
        out = minstd_stream(self.state, n)
        if n:
            self.state = int(out[-1])
        return out

    def give_back(self, unused):
        """Undo the draw of `unused`, the last outputs of `draws`: the engine continues with them."""
        if len(unused):
            self.state = int(unused[0]) * _MINSTD_A_INV % _MINSTD_M

    def __call__(self):
        self.state = self.state * _MINSTD_A % _MINSTD_M
        return self.state

    def uniform_int(self, low, high):
        """An integer in [low, high] as libstdc++'s uniform_int_distribution draws it from this engine (the
        engine's range, 2^31 - 3, is wider than any 32-bit request: downscaling with rejection)."""
        span = high - low
        if span == 0:
            return low
        urng_range = _MINSTD_M - 2
        if span < urng_range:
            buckets = span + 1
            scaling = urng_range // buckets
            past = buckets * scaling
            while True:
                r = self() - 1
                if r < past:
                    return low + r // scaling
        if span == urng_range:
            return low + self() - 1
        wide = urng_range + 1
        while True:     # a wider request: libstdc++'s upscaling, a high part times the engine's range plus a draw
            r = wide * self.uniform_int(0, span // wide) + self() - 1
            if r <= span:
                return low + r


# ---------------------------------------------------------------- vectorised engines and distributions
# MindSpore's legacy CPU random kernels (UniformReal, UniformInt, StandardNormal) seed a std::mt19937 and a
# std::default_random_engine with `GetSeed(seed, seed2)` when the kernel is made, and draw whole tensors from them:
# numpy reproduces the two engines and libstdc++'s distributions on top, block by block.
_MINSTD_M64 = np.uint64(_MINSTD_M)
_TWO32 = 4294967296.0
_BELOW_ONE_F32 = np.nextafter(np.float32(1.0), np.float32(0.0))
_BELOW_ONE_F64 = np.nextafter(1.0, 0.0)


def _mod_m(x):
    """x mod 2^31 - 1 in place, for uint64 x < 2^62 that are no multiple of it (Mersenne folding: no division)."""
    low = np.empty_like(x)
    for _ in range(2):
        np.bitwise_and(x, _MINSTD_M64, out=low)
        x >>= np.uint64(31)
        x += low
    return x


_CHUNK = 65536      # draws per pass: a pass's temporaries stay in the cache
_POWERS = []        # [a^1, ..., a^_CHUNK mod m], made at first use


def _powers():
    if not _POWERS:
        p = np.empty(_CHUNK, np.uint64)
        p[0] = _MINSTD_A
        filled = 1
        while filled < _CHUNK:     # doubling: a^(i + k) = a^k a^i
            k = min(filled, _CHUNK - filled)
            p[filled:filled + k] = _mod_m(p[:k] * np.uint64(pow(_MINSTD_A, filled, _MINSTD_M)))
            filled += k
        _POWERS.append(p)
    return _POWERS[0]


def _minstd_chunk(state, k):
    """The next k <= _CHUNK states of minstd_rand0 after `state`: state a^i mod m."""
    return _mod_m(_powers()[:k] * np.uint64(state))


def minstd_stream(state, n):
    """The next `n` states of minstd_rand0 after `state` (uint64 array)."""
    out = np.empty(n, np.uint64)
    for start in range(0, n, _CHUNK):
        seg = _minstd_chunk(state, min(_CHUNK, n - start))
        out[start:start + len(seg)] = seg
        state = int(seg[-1])
    return out


def canonical_float(draws):
    """libstdc++'s generate_canonical<float, 24> of minstd_rand0 draws: one draw each, (x - 1) / 2^31 in float."""
    u = (draws.view(np.int64) - 1).astype(np.float32)
    u *= np.float32(1.0 / 2147483648.0)
    return np.minimum(u, _BELOW_ONE_F32, out=u)


def minstd_uniform_float(engine, n):
    """n draws of std::uniform_real_distribution<float>(0, 1) from `engine` (a MinstdRand0, advanced)."""
    draws = minstd_stream(engine.state, n)
    if n:
        engine.state = int(draws[-1])
    return canonical_float(draws)


def minstd_bernoulli(engine, n, p):
    """n draws of std::bernoulli_distribution(p) from `engine` (a MinstdRand0, advanced): generate_canonical<double,
    53> of two draws, (x1 - 1 + (x2 - 1) r) / r^2 with r = 2^31 - 2, below p."""
    d = engine.draws(2 * n).astype(np.float64) - 1.0
    r = float(_MINSTD_M - 1)
    u = d[1::2] * r
    u += d[0::2]
    u /= r * r
    return np.minimum(u, _BELOW_ONE_F64, out=u) < p


def minstd_normal(engine, n):
    """n float32 samples of a fresh std::normal_distribution<float> drawing from `engine` (a MinstdRand0, advanced):
    Marsaglia's polar method on pairs of draws (rejected while r^2 > 1 or r^2 == 0), y * mult then x * mult; an odd
    count drops the last pair's second value (the distribution dies with the call)."""
    from mindseed._backend.kernels.glibc_math import logf  # noqa: PLC0415 -- the sampler's only user

    pairs = (n + 1) // 2
    out = np.empty(2 * pairs, np.float32)
    got, state = 0, engine.state
    while got < pairs:
        need = pairs - got
        draws = _minstd_chunk(state, min(_CHUNK, 2 * (need + need // 3 + 8)))
        # 2u - 1: C++ computes it in double, where it is exact (u is a multiple of 2^-31), then rounds to float:
        # the one rounding float32 arithmetic makes too
        v = canonical_float(draws)
        v *= np.float32(2.0)
        v -= np.float32(1.0)
        x, y = v[0::2], v[1::2]
        r2 = x * x
        r2 += y * y
        kept = np.flatnonzero((r2 <= np.float32(1.0)) & (r2 != np.float32(0.0)))[:need]
        state = int(draws[2 * int(kept[-1]) + 1 if len(kept) == need else -1])
        if len(kept):
            r2 = r2[kept]
            mult = logf(r2)
            mult *= np.float32(-2.0)
            mult /= r2
            np.sqrt(mult, out=mult)
            seg = out[2 * got:2 * (got + len(kept))]
            np.multiply(y[kept], mult, out=seg[0::2])
            np.multiply(x[kept], mult, out=seg[1::2])
            got += len(kept)
    engine.state = state
    return out[:n]


class Mt19937:
    """libstdc++'s std::mt19937 (numpy's MT19937 draws the same words from the same state), with
    std::uniform_real_distribution<double> and std::uniform_int_distribution<int> on top."""

    def __init__(self, seed):
        self._bits = np.random.MT19937()
        # numpy's legacy seeding of a 32-bit integer is std::mt19937's seed(): the same 624 words
        key = np.random.RandomState(int(seed) & _MASK32).get_state(legacy=True)[1]
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}
        self._pending = None      # outputs drawn but given back (`give_back`), to be drawn again first

    MIN, RANGE = 0, _MASK32

    def draws(self, n):
        """The next n outputs (uint64 array), advancing the engine."""
        pending = self._pending
        if pending is None:
            return self._bits.random_raw(n)
        self._pending = pending[n:] if len(pending) > n else None
        if len(pending) >= n:
            return pending[:n]
        return np.concatenate([pending, self._bits.random_raw(n - len(pending))])

    def give_back(self, unused):
        """Undo the draw of `unused`, the last outputs of `draws`: the engine continues with them."""
        if len(unused):
            self._pending = unused if self._pending is None else np.concatenate([unused, self._pending])

    def canonical(self, n):
        """n doubles of generate_canonical<double, 53>: two draws each, (lo + hi * 2^32) / 2^64."""
        d = self.draws(2 * n).astype(np.uint32)
        u = d[1::2].astype(np.float64)
        u *= _TWO32
        u += d[0::2]        # one rounding of the exact sum, as C++'s double addition
        u *= 1.0 / _TWO32 / _TWO32
        return np.minimum(u, _BELOW_ONE_F64, out=u)

    def uniform_int(self, n, low, high):
        """n integers of uniform_int_distribution(low, high), both ends included: libstdc++'s downscaling of a
        32-bit draw (rejected when past the last whole bucket, quotient by the bucket size)."""
        buckets = high - low + 1
        scaling = _MASK32 // buckets
        past = np.uint64(buckets * scaling)
        parts, got = [np.empty(0, np.uint64)], 0
        while got < n:
            d = self.draws(n - got)
            d = d[d < past]
            parts.append(d)
            got += len(d)
        out = np.concatenate(parts)
        return (out // np.uint64(scaling)).astype(np.int64) + low


_SHUFFLE_BLOCK = 4096


def shuffle(n, engine):
    """libstdc++'s std::shuffle of [0, 1, ..., n - 1] (a list) drawing from `engine` (Mt19937 or MinstdRand0,
    advanced by the draws it used): when the engine's range holds n^2, two swap positions come from one draw of
    uniform_int_distribution(0, (i + 1)(i + 2) - 1), after a first {0, 1} draw when n is even; else one position
    uniform in [0, i] per element."""
    perm = list(range(n))
    if n < 2:
        return perm
    low, rng = engine.MIN, engine.RANGE
    buf, pos = [], 0

    def draw(urange):       # uniform_int_distribution(0, urange): libstdc++'s downscaling with rejection
        nonlocal buf, pos
        buckets = urange + 1
        scaling = rng // buckets
        past = buckets * scaling
        while True:
            if pos == len(buf):
                buf, pos = (engine.draws(_SHUFFLE_BLOCK) - np.uint64(low)).tolist(), 0
            r = buf[pos]
            pos += 1
            if r < past:
                return r // scaling

    i = 1
    if rng // n >= n:
        if n % 2 == 0:
            j = draw(1)
            perm[1], perm[j] = perm[j], perm[1]
            i = 2
        while i < n:
            b1 = i + 2
            x = draw((i + 1) * b1 - 1)
            a, b = x // b1, x % b1
            perm[i], perm[a] = perm[a], perm[i]
            perm[i + 1], perm[b] = perm[b], perm[i + 1]
            i += 2
    else:
        for i in range(1, n):
            j = draw(i)
            perm[i], perm[j] = perm[j], perm[i]
    engine.give_back(np.array(buf[pos:], np.uint64) + np.uint64(low))
    return perm


def multinomial(probs, num_samples, engine):
    """MindSpore's CPU Multinomial (with replacement) of a 2-D numpy array of weights: per row the running sum in
    the weights' dtype divided by the total, then per sample the first position whose sum exceeds a
    uniform_real_distribution<float> draw of `engine` (a MinstdRand0, advanced), rows one after the other."""
    rows, cols = probs.shape
    u = minstd_uniform_float(engine, rows * num_samples).reshape(rows, num_samples).astype(probs.dtype)
    out = np.empty((rows, num_samples), np.int64)
    for i in range(rows):
        cum = np.cumsum(probs[i], dtype=probs.dtype)
        if cum[-1] != 0:
            cum = cum / cum[-1]
        out[i] = np.searchsorted(cum[:-1], u[i], side="right")
    return out


class KernelEngines:
    """The engines of one MindSpore random primitive (UniformReal, UniformInt, StandardNormal). MindSpore makes one
    kernel per primitive and output shape, seeding its engines with `GetSeed(seed, seed2)` (with both 0,
    `std::random_device`) when it makes it: calls of one primitive with one shape continue one stream, another shape
    starts the stream afresh, and a new primitive (each call of a functional op makes one) starts afresh too."""

    __slots__ = ("seed", "_engines")

    def __init__(self, seed=0, seed2=0, engine_seed=None):
        """`engine_seed`: the engines' seed itself (a kernel that never seeds its engine: 1, the C++ default)."""
        if engine_seed is not None:
            self.seed = engine_seed
        else:
            self.seed = mix_seed(seed, seed2) if seed or seed2 else random.SystemRandom().getrandbits(32)
        self._engines = {}

    def engine(self, shape, kind):
        """The `kind` engine (Mt19937 or MinstdRand0) of the kernel of `shape`."""
        key = (tuple(shape), kind)
        e = self._engines.get(key)
        if e is None:
            e = self._engines[key] = kind(self.seed)
        return e

    def __repr__(self):
        return f"KernelEngines(seed={self.seed})"
