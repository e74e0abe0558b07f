"""MindSpore's CPU kernels that draw from the C++ standard library: the seed goes through MindSpore's
`random::GetSeed` (one Philox-4x32-10 block scrambling (seed, offset)), then feeds a `std::default_random_engine`
(libstdc++'s minstd_rand0), and integers come from libstdc++'s `std::uniform_int_distribution`. Reproducing the
three in pure Python gives the same numbers as MindSpore for the same seed."""

_MASK32 = 0xFFFFFFFF
_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_SEED_KEY = (0x3EC8F720, 0x02461E29)
_MINSTD_M = 2147483647      # 2^31 - 1
_MINSTD_A = 16807


def philox4x32(counter, key, rounds=10):
    """One Philox-4x32 block: four 32-bit outputs of a four-word counter and a two-word key."""
    c0, c1, c2, c3 = (int(v) & _MASK32 for v in counter)
    k0, k1 = (int(v) & _MASK32 for v in key)
    for _ in range(rounds):
        p0, p1 = _PHILOX_M[0] * c0, _PHILOX_M[1] * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & _MASK32, (p0 >> 32) ^ c3 ^ k1, p0 & _MASK32
        k0, k1 = (k0 + _PHILOX_W[0]) & _MASK32, (k1 + _PHILOX_W[1]) & _MASK32
    return c0, c1, c2, c3


def mix_seed(seed, offset=0):
    """MindSpore's `random::GetSeed(seed, offset)` for a non-zero pair: a 64-bit seed scrambled by Philox."""
    seed, offset = int(seed) & (2 ** 64 - 1), int(offset) & (2 ** 64 - 1)
    out = philox4x32((seed & _MASK32, seed >> 32, offset & _MASK32, offset >> 32), _SEED_KEY)
    return (out[1] << 32) | out[0]


class MinstdRand0:
    """libstdc++'s `std::default_random_engine` (minstd_rand0: x <- 16807 x mod 2^31-1), with its
    `std::uniform_int_distribution` on top."""

    def __init__(self, seed):
        self.state = int(seed) % _MINSTD_M or 1

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
