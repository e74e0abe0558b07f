"""MindSpore's data-pipeline random streams, draw for draw: std::mt19937 / std::mt19937_64 as libstdc++ 9 uses them.

MindSpore's samplers and shuffle op are C++: a RandomSampler seeds a `std::mt19937` with the pipeline seed and
`std::shuffle`s the row ids; a ShuffleOp draws buffer slots from a `std::mt19937_64`. With a seed set
(`ds.config.set_seed` or `mindspore.set_seed`) their orders are fixed, and these functions reproduce them:

* `shuffle(ids, seed)`: libstdc++'s `std::shuffle`, which draws two swap positions from one number while the
  generator's range allows (it always does for a 32-bit generator and fewer than 65536 ids per draw pair);
* `uniform_ints(seed, n, count)`: `std::uniform_int_distribution<int64_t>(0, n - 1)` drawn `count` times (libstdc++
  9 scales down by division and rejects the draws past the last whole multiple);
* `uniform_int`, `uniform_float`, `canonical`, `bernoulli`, `shuffle_list`: libstdc++'s distributions on a
  `std::mt19937` (the random vision ops; see `_random.std_engine`);
* `Mt64`: the raw `std::mt19937_64` stream (the ShuffleOp takes `draw % (last + 1)`);
* `shuffle(ids, seed, engine="minstd_rand0")`: MindRecord's reader shuffles with `std::default_random_engine`,
  which is libstdc++'s minstd_rand0.

numpy's MT19937 seeded the legacy way (`init_genrand`) is the same generator as `std::mt19937(seed)`.
"""
import numpy as np

_U32 = 0xFFFFFFFF


class _Mt32:
    """std::mt19937(seed): its 32-bit outputs, fetched from numpy in blocks."""

    __slots__ = ("_bits", "_buf", "_k")
    low, span = 0, _U32             # min() and max() - min()

    def __init__(self, seed):
        self._bits = np.random.MT19937()
        self._bits._legacy_seeding(int(seed) & _U32)
        self._buf, self._k = [], 0

    def __call__(self):
        if self._k == len(self._buf):
            self._buf, self._k = self._bits.random_raw(1024).tolist(), 0
        self._k += 1
        return self._buf[self._k - 1]

    def skip(self, n):
        """Discard the next `n` outputs."""
        left = len(self._buf) - self._k
        if n <= left:
            self._k += n
            return
        n -= left
        self._buf, self._k = [], 0
        while n > 0:
            k = min(n, 1 << 20)
            self._bits.random_raw(k)
            n -= k


class _Minstd0:
    """std::minstd_rand0(seed): x = x * 16807 mod (2^31 - 1), outputs in [1, 2^31 - 2]."""

    __slots__ = ("_x",)
    low, span = 1, 2147483645       # min() and max() - min()

    def __init__(self, seed):
        x = int(seed) % 2147483647
        self._x = x or 1

    def __call__(self):
        self._x = self._x * 16807 % 2147483647
        return self._x


def mt19937(seed):
    """A `std::mt19937(seed)`: call it for the next 32-bit output; `.skip(n)` discards n outputs."""
    return _Mt32(seed)


_ENGINES = {"mt19937": _Mt32, "minstd_rand0": _Minstd0}


def _below(g, n):
    """A uniform int in [0, n) from generator `g`: libstdc++ 9's uniform_int_distribution (downscaling)."""
    scaling = g.span // n
    past = n * scaling
    while True:
        r = g() - g.low
        if r < past:
            return r // scaling


def uniform_int(g, low, high):
    """`std::uniform_int_distribution<int>(low, high)(g)` as libstdc++ computes it (high - low < 2^32 - 1)."""
    return low + _below(g, high - low + 1)


_TWO32 = 4294967296.0
_BELOW_ONE = 1.0 - 2.0 ** -53


def canonical(g):
    """`std::generate_canonical<double, 53>(g)` of a 32-bit engine: two outputs, summed and scaled in double."""
    r = (float(g()) + float(g()) * _TWO32) / (_TWO32 * _TWO32)
    return r if r < 1.0 else _BELOW_ONE


def uniform_float(g, low, high):
    """`std::uniform_real_distribution<float>(low, high)(g)`: one output rounded to float32 and scaled by 2^-32,
    then `u * (high - low) + low` in float32; a Python float."""
    f32 = np.float32
    u = f32(g()) / f32(_TWO32)
    if u >= 1.0:
        u = f32(1.0 - 2.0 ** -24)
    return float(u * (f32(high) - f32(low)) + f32(low))


def bernoulli(g, p):
    """`std::bernoulli_distribution(p)(g)`: true when a canonical double falls below p."""
    return canonical(g) < p


def shuffle(ids, seed, engine="mt19937"):
    """`std::shuffle(ids.begin(), ids.end(), std::<engine>(seed))` as libstdc++ does it; a new int64 array."""
    return np.asarray(shuffle_list(np.array(ids, dtype=np.int64).tolist(), _ENGINES[engine](seed)), dtype=np.int64)


def shuffle_list(a, g):
    """`std::shuffle(a.begin(), a.end(), g)` in place on list `a` (libstdc++); returns `a`."""
    n = len(a)
    if n < 2:
        return a
    if g.span // n >= n:
        # two swap positions per draw: x in [0, r * (r + 1)) gives x // (r + 1) and x % (r + 1)
        i = 1
        if n % 2 == 0:
            j = _below(g, 2)
            a[1], a[j] = a[j], a[1]
            i = 2
        while i < n:
            r = i + 1
            x = _below(g, r * (r + 1))
            p1, p2 = x // (r + 1), x % (r + 1)
            a[i], a[p1] = a[p1], a[i]
            a[i + 1], a[p2] = a[p2], a[i + 1]
            i += 2
    else:
        for i in range(1, n):
            j = _below(g, i + 1)
            a[i], a[j] = a[j], a[i]
    return a


def uniform_ints(seed, n, count):
    """`count` draws of uniform_int_distribution<int64_t>(0, n - 1) from std::mt19937(seed), as np.int64."""
    g = _Mt32(seed)
    return np.fromiter((_below(g, n) for _ in range(count)), dtype=np.int64, count=count)


_M64 = (1 << 64) - 1
_N64, _HALF64 = 312, 156


class Mt64:
    """std::mt19937_64(seed): call it for the next 64-bit output (the twist is done on numpy arrays)."""

    __slots__ = ("_mt", "_out", "_k")

    def __init__(self, seed):
        mt = [0] * _N64
        mt[0] = int(seed) & _M64
        for i in range(1, _N64):
            mt[i] = (6364136223846793005 * (mt[i - 1] ^ (mt[i - 1] >> 62)) + i) & _M64
        self._mt = np.array(mt, dtype=np.uint64)
        self._out, self._k = [], 0

    @staticmethod
    def _mix(upper, lower, far):
        x = (upper & np.uint64(0xFFFFFFFF80000000)) | (lower & np.uint64(0x7FFFFFFF))
        return far ^ (x >> np.uint64(1)) ^ np.where(x & np.uint64(1), np.uint64(0xB5026F5AA96619E9), np.uint64(0))

    def _twist(self):
        mt = self._mt
        # element i reads i + 1 (not yet rewritten) and i + 156 (rewritten once i >= 156): three vector steps
        mt[:_HALF64] = self._mix(mt[:_HALF64], mt[1:_HALF64 + 1], mt[_HALF64:])
        mt[_HALF64:-1] = self._mix(mt[_HALF64:-1], mt[_HALF64 + 1:], mt[:_HALF64 - 1])
        mt[-1:] = self._mix(mt[-1:], mt[:1], mt[_HALF64 - 1:_HALF64])
        y = mt.copy()
        y ^= (y >> np.uint64(29)) & np.uint64(0x5555555555555555)
        y ^= (y << np.uint64(17)) & np.uint64(0x71D67FFFEDA60000)
        y ^= (y << np.uint64(37)) & np.uint64(0xFFF7EEE000000000)
        y ^= y >> np.uint64(43)
        self._out, self._k = y.tolist(), 0

    def __call__(self):
        if self._k == len(self._out):
            self._twist()
        self._k += 1
        return self._out[self._k - 1]
