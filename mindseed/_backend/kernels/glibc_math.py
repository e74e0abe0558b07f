"""glibc's single-precision `logf`, vectorised in numpy, to the bit.

MindSpore's CPU kernels call `std::log(float)`, which is glibc's `logf` (the algorithm of ARM's optimized-routines:
a 16-entry table of 1/c and log(c), and a degree-3 polynomial of log1p, evaluated in double and rounded to float
once). It is not correctly rounded (0.82 ULP at most), so `float32(log(float64(x)))` differs from it in about one
value in 200; the same table and polynomial give the same float. Its constants below are glibc's (MIT licence,
Copyright (c) 2017-2018 Arm Limited).
"""
import numpy as np

_H = float.fromhex
_TABLE = np.array([[_H(a), _H(b)] for a, b in (
    ("0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2"), ("0x1.571ed4aaf883dp+0", "-0x1.2bef0a7c06ddbp-2"),
    ("0x1.49539f0f010bp+0", "-0x1.01eae7f513a67p-2"), ("0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3"),
    ("0x1.30d190c8864a5p+0", "-0x1.6574f0ac07758p-3"), ("0x1.25e227b0b8eap+0", "-0x1.1aa2bc79c81p-3"),
    ("0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4"), ("0x1.12358f08ae5bap+0", "-0x1.1973c5a611cccp-4"),
    ("0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5"), ("0x1p+0", "0x0p+0"),
    ("0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5"), ("0x1.ca4b31f026aap-1", "0x1.c5e53aa362eb4p-4"),
    ("0x1.b2036576afce6p-1", "0x1.526e57720db08p-3"), ("0x1.9c2d163a1aa2dp-1", "0x1.bc2860d22477p-3"),
    ("0x1.886e6037841edp-1", "0x1.1058bc8a07ee1p-2"), ("0x1.767dcf5534862p-1", "0x1.4043057b6ee09p-2"))])
_INVC, _LOGC = np.ascontiguousarray(_TABLE[:, 0]), np.ascontiguousarray(_TABLE[:, 1])
_LN2 = _H("0x1.62e42fefa39efp-1")
_POLY = (_H("-0x1.00ea348b88334p-2"), _H("0x1.5575b0be00b6ap-2"), _H("-0x1.ffffef20a4123p-2"))
_OFF = np.uint32(0x3F330000)


_CHUNK = 16384      # elements per pass: the dozen double temporaries of a chunk stay in the cache


def logf(x):
    """glibc's logf of a float32 array of positive finite numbers."""
    x = np.ascontiguousarray(x, np.float32)
    out = np.empty(x.shape, np.float32)
    flat_in, flat_out = x.reshape(-1), out.reshape(-1)
    for start in range(0, flat_in.size, _CHUNK):
        _logf_chunk(flat_in[start:start + _CHUNK], flat_out[start:start + _CHUNK])
    return out


def _logf_chunk(x, out):
    ix = x.view(np.uint32)
    one = ix == np.uint32(0x3F800000)
    sub = ix < np.uint32(0x00800000)
    if sub.any():       # a subnormal: normalised, its exponent taken back
        ix = ix.copy()
        ix[sub] = (x[sub] * np.float32(2.0 ** 23)).view(np.uint32) - np.uint32(23 << 23)
    tmp = ix - _OFF
    i = ((tmp >> np.uint32(19)) & np.uint32(15)).astype(np.intp)
    k = (tmp.view(np.int32) >> 23).astype(np.float64)
    z = (ix - (tmp & np.uint32(0xFF800000))).view(np.float32).astype(np.float64)
    r = z * _INVC.take(i)
    r -= 1.0
    y0 = k * _LN2
    y0 += _LOGC.take(i)
    r2 = r * r
    y = _POLY[1] * r
    y += _POLY[2]
    y += _POLY[0] * r2
    y *= r2
    y0 += r
    y += y0
    out[...] = y
    out[one] = 0.0
