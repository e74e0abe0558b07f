"""The random streams of MindSpore's initializers, bit for bit.

MindSpore's initializers draw a 64-bit seed from numpy's global generator (`np.random.randint(1, 2**63)`), then
fill the array from a Philox-4x32-10 stream with that seed (its C++ `random::Philox`: key = the seed's two words,
counter = (0, 0, the seed's two words)) through one of three distributions computed in double precision and
rounded to float32:

* uniform: ``a + (b - a) * u / 2**32`` for each 32-bit draw u;
* normal: Box-Muller on pairs of draws (each turned into a float in [0, 1) from its low 23 bits), the cosine
  value first;
* truncated normal: the inverse CDF of one uniform draw, with Boost's rational approximations of erf^-1.

The stream is generated here with numpy, vectorised over the Philox blocks. Philox is counter-based, so a large
array is filled in slices by several threads (numpy's ufuncs release the GIL), each from its own place in the stream,
as MindSpore's C++ fills it: the numbers do not depend on the number of threads.
"""
import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from mindseed._backend.kernels.std_engine import philox_stream, philox_unit_float


def numpy_seed():
    """The seed of one initializer call, drawn from numpy's global generator as MindSpore draws it."""
    return int(np.random.randint(low=1, high=(1 << 63), dtype=np.int64))


def philox_draws(seed, n):
    """The first `n` 32-bit outputs (as uint64) of MindSpore's `random::Philox(seed)`."""
    return philox_stream(seed, seed, 0, n)


_PARALLEL_MIN = 1 << 20     # values: smaller arrays are filled by one thread


def _workers():
    """Threads that fill one array: OMP_NUM_THREADS when set, else the CPUs this process may use (at most 16)."""
    env = os.environ.get("OMP_NUM_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    return max(1, min(16, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def _in_slices(n, fill, align=1):
    """fill(lo, hi) over [0, n) in slices (multiples of `align` long) on the worker threads."""
    k = _workers() if n >= _PARALLEL_MIN else 1
    step = -(-n // k)
    step += (-step) % align
    parts = [(lo, min(n, lo + step)) for lo in range(0, n, max(step, 1))]
    if len(parts) <= 1:
        for lo, hi in parts:
            fill(lo, hi)
        return
    with ThreadPoolExecutor(len(parts)) as pool:
        for f in [pool.submit(fill, lo, hi) for lo, hi in parts]:
            f.result()


def _f32(x):
    return float(np.float32(x))     # MindSpore passes the distribution's parameters as C++ floats


def uniform(seed, shape, a, b):
    """float32 array of `shape`, U(a, b) from the Philox stream of `seed`."""
    n = int(np.prod(shape, dtype=np.int64))
    a, b = _f32(a), _f32(b)
    out = np.empty(n, np.float32)

    def fill(lo, hi):
        s = philox_stream(seed, seed, lo, hi - lo).astype(np.float64) / 4294967296.0
        out[lo:hi] = (b - a) * s + a
    _in_slices(n, fill)
    return out.reshape(shape)


_PI = float(np.float32(3.1415926))
_THRESHOLD = float(np.float32(1.0e-7))
_CHUNK = 1 << 16     # pairs of draws computed together, in the cache


def normal(seed, shape, mean, sigma):
    """float32 array of `shape`, N(mean, sigma^2) from the Philox stream of `seed` (Box-Muller), computed a
    cache-sized chunk of pairs at a time."""
    n = int(np.prod(shape, dtype=np.int64))
    mean, sigma = _f32(mean), _f32(sigma)
    pairs = (n + 1) // 2
    out = np.empty((pairs, 2), np.float32)

    def fill(first, last):
        for lo in range(first, last, _CHUNK):
            hi = min(last, lo + _CHUNK)
            d = philox_stream(seed, seed, 2 * lo, 2 * (hi - lo)).reshape(-1, 2)
            u1 = np.maximum(philox_unit_float(d[:, 0]).astype(np.float64), _THRESHOLD)
            u2 = np.maximum(philox_unit_float(d[:, 1]).astype(np.float64), _THRESHOLD)
            np.log(u1, out=u1)
            u1 *= -2.0
            np.sqrt(u1, out=u1)
            u1 *= sigma                      # x
            u2 *= 2.0 * _PI                  # y
            out[lo:hi, 0] = mean + u1 * np.cos(u2)
            out[lo:hi, 1] = mean + u1 * np.sin(u2)
    _in_slices(pairs, fill, _CHUNK)
    return out.reshape(-1)[:n].reshape(shape)


# Boost's rational approximations of erf^-1 (their constants as MindSpore's kernel holds them)
_ERF_INV_SMALL = (0.0891314744949340820313,
                  (-0.000508781949658280665617, -0.00836874819741736770379, 0.0334806625409744615033,
                   -0.0126926147662974029034, -0.0365637971411762664006, 0.0219878681111168899165,
                   0.00822687874676915743155, -0.00538772965071242932965),
                  (1.0, -0.970005043303290640362, -1.56574558234175846809, 1.56221558398423026363,
                   0.662328840472002992063, -0.71228902341542847553, -0.0527396382340099713954,
                   0.0795283687341571680018, -0.00233393759374190016776, 0.000886216390456424707504))
_ERF_INV_MID = (2.249481201171875,
                (-0.202433508355938759655, 0.105264680699391713268, 8.37050328343119927838, 17.6447298408374015486,
                 -18.8510648058714251895, -44.6382324441786960818, 17.445385985570866523, 21.1294655448340526258,
                 -3.67192254707729348546),
                (1.0, 6.24264124854247537712, 3.9713437953343869095, -28.6608180499800029974,
                 -20.1432634680485188801, 48.5609213108739935468, 10.8268667355460159008, -22.6436933413139721736,
                 1.72114765761200282724))
# the tail: x = sqrt(-log(q)) below each bound, shifted by `offset`
_ERF_INV_TAIL = (
    (3.0, 1.125, 0.807220458984375,
     (-0.131102781679951906451, -0.163794047193317060787, 0.117030156341995252019, 0.387079738972604337464,
      0.337785538912035898924, 0.142869534408157156766, 0.0290157910005329060432, 0.00214558995388805277169,
      -0.679465575181126350155e-6, 0.285225331782217055858e-7, -0.681149956853776992068e-9),
     (1.0, 3.46625407242567245975, 5.38168345707006855425, 4.77846592945843778382, 2.59301921623620271374,
      0.848854343457902036425, 0.152264338295331783612, 0.01105924229346489121)),
    (6.0, 3.0, 0.93995571136474609375,
     (-0.0350353787183177984712, -0.00222426529213447927281, 0.0185573306514231072324, 0.00950804701325919603619,
      0.00187123492819559223345, 0.000157544617424960554631, 0.460469890584317994083e-5,
      -0.230404776911882601748e-9, 0.266339227425782031962e-11),
     (1.0, 1.3653349817554063097, 0.762059164553623404043, 0.220091105764131249824, 0.0341589143670947727934,
      0.00263861676657015992959, 0.764675292302794483503e-4)),
    (18.0, 6.0, 0.98362827301025390625,
     (-0.0167431005076633737133, -0.00112951438745580278863, 0.00105628862152492910091,
      0.000209386317487588078668, 0.149624783758342370182e-4, 0.449696789927706453732e-6,
      0.462596163522878599135e-8, -0.281128735628831791805e-13, 0.99055709973310326855e-16),
     (1.0, 0.591429344886417493481, 0.138151865749083321638, 0.0160746087093676504695,
      0.000964011807005165528527, 0.275335474764726041141e-4, 0.282243172016108031869e-6)),
    (44.0, 18.0, 0.99714565277099609375,
     (-0.0024978212791898131227, -0.779190719229053954292e-5, 0.254723037413027451751e-4,
      0.162397777342510920873e-5, 0.396341011304801168516e-7, 0.411632831190944208473e-9,
      0.145596286718675035587e-11, -0.116765012397184275695e-17),
     (1.0, 0.207123112214422517181, 0.0169410838120975906478, 0.000690538265622684595676,
      0.145007359818232637924e-4, 0.144437756628144157666e-6, 0.509761276599778486139e-9)),
    (math.inf, 44.0, 0.99941349029541015625,
     (-0.000539042911019078575891, -0.28398759004727721098e-6, 0.899465114892291446442e-6,
      0.229345859265920864296e-7, 0.225561444863500149219e-9, 0.947846627503022684216e-12,
      0.135880130108924861008e-14, -0.348890393399948882918e-21),
     (1.0, 0.0845746234001899436914, 0.00282092984726264681981, 0.468292921940894236786e-4,
      0.399968812193862100054e-6, 0.161809290887904476097e-8, 0.231558608310259605225e-11)),
)


def _poly(coeffs, x):
    total = np.full_like(x, coeffs[-1])
    for c in coeffs[-2::-1]:
        total = total * x + c
    return total


def _erf_inv(p, q):
    """erf^-1 of p given q = 1 - p (p in [0, 1]), branch by branch as Boost computes it: each branch's rational
    function evaluated on its own elements only (the same IEEE operations element by element)."""
    out = np.empty_like(p)
    y, num, den = _ERF_INV_SMALL
    small = p <= 0.5
    ps = p[small]
    g = ps * (ps + 10.0)
    out[small] = g * _f32(y) + g * (_poly(num, ps) / _poly(den, ps))
    y, num, den = _ERF_INV_MID
    mid = ~small & (q >= 0.25)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.sqrt(-2.0 * np.log(q))
        xs = q[mid] - 0.25
        out[mid] = g[mid] / (_f32(y) + _poly(num, xs) / _poly(den, xs))
        x = np.sqrt(-np.log(q))
    done = small | mid
    for bound, offset, y, num, den in _ERF_INV_TAIL:
        here = ~done & (x < bound)
        xh = x[here]
        xs = xh - offset
        out[here] = _f32(y) * xh + (_poly(num, xs) / _poly(den, xs)) * xh
        done = done | here
    return out


_ROOT_TWO = float(np.float32(1.4142135))
_Z_LOW = float(np.nextafter(np.float32(0.0), np.float32(2.0)))
_Z_HIGH = float(np.nextafter(np.float32(2.0), np.float32(0.0)))


def truncated_normal(seed, shape, a, b, mean, sigma):
    """float32 array of `shape`, N(mean, sigma^2) truncated to [a, b], by the inverse CDF of one Philox draw each."""
    n = int(np.prod(shape, dtype=np.int64))
    a, b, mean, sigma = _f32(a), _f32(b), _f32(mean), _f32(sigma)
    if sigma <= 0:
        raise RuntimeError(f"TruncatedNormal: invalid sigma {sigma:g}.")
    cdf_a = math.erfc(-((a - mean) / sigma) / _ROOT_TWO) / 2.0
    cdf_b = math.erfc(-((b - mean) / sigma) / _ROOT_TWO) / 2.0
    out = np.empty(n, np.float32)

    def fill(lo, hi):
        u = philox_stream(seed, seed, lo, hi - lo).astype(np.float64) / 4294967296.0
        z = np.clip(2.0 * (cdf_a + u * (cdf_b - cdf_a)), _Z_LOW, _Z_HIGH)
        upper = z > 1.0
        q = np.where(upper, 2.0 - z, z)
        p = np.where(upper, 1.0 - q, 1.0 - z)
        erfc_inv = np.where(upper, -1.0, 1.0) * _erf_inv(p, q)
        out[lo:hi] = mean + (-erfc_inv * _ROOT_TWO) * sigma
    _in_slices(n, fill)
    return out.reshape(shape)
