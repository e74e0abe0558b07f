"""The fft family (ops.fft, ifft, rfft, irfft, hfft, ihfft in 1, 2 and n dims, fftshift, ifftshift): values vs
numpy.fft, gradients vs float64 finite differences (through real and imaginary parts, and from complex inputs built of
two real ones), graph == PyNative, and bad arguments."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests

_OPPOSITE = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _np_hfftn(x, s=None, axes=None, norm=None):
    return np.fft.irfftn(np.conj(x), s=s, axes=axes, norm=_OPPOSITE[norm])


def _np_ihfftn(x, s=None, axes=None, norm=None):
    return np.conj(np.fft.rfftn(x, s=s, axes=axes, norm=_OPPOSITE[norm]))


_REF = {
    "fft": np.fft.fft, "ifft": np.fft.ifft, "rfft": np.fft.rfft, "irfft": np.fft.irfft, "hfft": np.fft.hfft,
    "ihfft": np.fft.ihfft, "fft2": np.fft.fft2, "ifft2": np.fft.ifft2, "rfft2": np.fft.rfft2, "irfft2": np.fft.irfft2,
    "fftn": np.fft.fftn, "ifftn": np.fft.ifftn, "rfftn": np.fft.rfftn, "irfftn": np.fft.irfftn,
    "hfft2": lambda x, s=None, axes=(-2, -1), norm=None: _np_hfftn(x, s, axes, norm),
    "ihfft2": lambda x, s=None, axes=(-2, -1), norm=None: _np_ihfftn(x, s, axes, norm),
    "hfftn": _np_hfftn, "ihfftn": _np_ihfftn,
}
_ONE = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
_MANY = tuple(k + "2" for k in _ONE) + tuple(k + "n" for k in _ONE)


def _mine(name, part, **kw):
    """ops.<name>(x, **kw) as a real tensor: its real or imaginary part (real outputs as they are)."""
    fn = getattr(ops, name)

    def run(x):
        out = fn(x, **kw)
        if part is None or not out.dtype.name.startswith("Complex"):
            return out
        return ops.real(out) if part == "real" else ops.imag(out)
    return run


def _ref(name, part, **kw):
    ref = _REF[name]
    if "dim" in kw:
        kw["axis" if name in _ONE else "axes"] = kw.pop("dim")
    if "s" in kw and name in _ONE:
        kw["n"] = kw.pop("s")

    def run(x):
        out = ref(x, **kw)
        if part is None or not np.iscomplexobj(out):
            return out
        return out.real if part == "real" else out.imag
    return run


def _spec(name, part, shape, **kw):
    label = "-".join([name, part or "out"] + [f"{k}={v}" for k, v in kw.items()])
    return OpSpec(label, _mine(name, part, **kw), _ref(name, part, **kw), shapes=[shape], atol=1e-6, rtol=1e-5)


def _from_complex(name, **kw):
    """The transform of re + i im, real part, differentiated w.r.t. both real inputs (the complex gradient)."""
    fn = getattr(ops, name)

    def run(re, im):
        out = fn(ops.Complex()(re, im), **kw)
        return ops.real(out) if out.dtype.name.startswith("Complex") else out

    def ref(re, im):
        out = _REF[name](re + 1j * im, **{("axis" if name in _ONE else "axes") if k == "dim" else k: v
                                          for k, v in kw.items()})
        return out.real
    return OpSpec(f"{name}-complex-input", run, ref, shapes=[(3, 4), (3, 4)], atol=1e-6, rtol=1e-5)


SPECS = []
for _name in _ONE + _MANY:
    for _part in ("real", "imag"):
        SPECS.append(_spec(_name, _part, (3, 4)))
for _norm in ("forward", "ortho"):
    SPECS += [_spec(n, "real", (3, 4), norm=_norm) for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn",
                                                              "rfft2", "irfftn")]
SPECS += [
    _spec("fft", "real", (3, 4), n=6), _spec("fft", "imag", (3, 4), n=3, dim=0),
    _spec("rfft", "real", (3, 5), n=8), _spec("irfft", "real", (3, 4), n=5), _spec("irfft", "real", (3, 4), n=8),
    _spec("hfft", "real", (3, 4), n=5), _spec("ihfft", "imag", (3, 5), n=4),
    _spec("fft2", "real", (2, 3, 4), s=(4, 2)), _spec("rfftn", "imag", (2, 3, 4), s=(3, 6), dim=(0, 2)),
    _spec("irfftn", "real", (2, 3, 4), s=(2, 5)), _spec("ifftn", "real", (2, 3, 4), dim=(1,)),
    _spec("hfftn", "real", (2, 3, 4), s=(3, 5)), _spec("ihfft2", "imag", (2, 3, 4), dim=(0, 1)),
]
SPECS += [_from_complex(n) for n in ("fft", "ifft", "irfft", "hfft", "fft2", "irfftn", "hfftn")]
SPECS += [
    OpSpec("fftshift", ops.fftshift, np.fft.fftshift, shapes=[(3, 4)]),
    OpSpec("fftshift-dim", lambda x: ops.fftshift(x, dim=(1,)), lambda x: np.fft.fftshift(x, axes=(1,)),
           shapes=[(3, 5)]),
    OpSpec("ifftshift", ops.ifftshift, np.fft.ifftshift, shapes=[(3, 5)]),
]

test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)

_X = ms.Tensor(np.ones((3, 4), np.float32))
ERRORS = [
    ErrorSpec("fft-not-tensor", lambda: ops.fft([1.0, 2.0]), TypeError, "For 'FFT', the 'input' must be a Tensor"),
    ErrorSpec("fft-n-zero", lambda: ops.fft(_X, n=0), ValueError, "'n' must be an int >= 1"),
    ErrorSpec("fft-dim-range", lambda: ops.fft(_X, dim=2), ValueError, "'dim' must be in [-2, 2)"),
    ErrorSpec("rfft-norm", lambda: ops.rfft(_X, norm="half"), ValueError, "For 'RFFT', 'norm' must be one of"),
    ErrorSpec("fft2-s-dim", lambda: ops.fft2(_X, s=(2,), dim=(0, 1)), ValueError, "'s' and 'dim' must have the same"),
    ErrorSpec("fftn-dim-type", lambda: ops.fftn(_X, dim=1), TypeError, "For 'FFTN', 'dim' must be a tuple"),
    ErrorSpec("fft-bool", lambda: ops.fft(ms.Tensor(np.ones(3, bool))), TypeError, "of int, float or complex"),
]
test_bad_input = make_error_tests(ERRORS)


@pytest.mark.parametrize("dtype,want", [(np.int32, ms.complex64), (np.float16, ms.complex64),
                                        (np.float32, ms.complex64), (np.float64, ms.complex128)])
def test_result_dtype(dtype, want):
    x = ms.Tensor(np.arange(4).astype(dtype))
    out = ops.fft(x)
    assert out.dtype == want
    np.testing.assert_allclose(out.asnumpy(), np.fft.fft(np.arange(4)), atol=1e-5)
    assert ops.irfft(out).dtype == (ms.float64 if want == ms.complex128 else ms.float32)


def test_round_trip_and_class_free_names():
    x = np.random.RandomState(0).standard_normal((2, 6)).astype(np.float32)
    back = ops.irfft(ops.rfft(ms.Tensor(x)), n=6)
    np.testing.assert_allclose(back.asnumpy(), x, atol=1e-5)
    assert ops.fft.__module__ == "mindseed.ops.functional" and ms.ops.functional.ifftn is ops.ifftn
