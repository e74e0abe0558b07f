"""Waveform filters and effects of `mindspore.dataset.audio`: biquads, LFilter, Filtfilt, gain, fades, mu-law."""
import math

import numpy as np

from mindseed.dataset import _validate as V
from mindseed.dataset.audio import validators as AV
from mindseed.dataset.audio.utils import FadeShape, GainType
from mindseed.dataset.audio.validators import check_number, check_positive
from mindseed.dataset.transforms._base import TensorOperation

__all__ = ["AllpassBiquad", "BandBiquad", "BandpassBiquad", "BandrejectBiquad", "BassBiquad", "Biquad", "Contrast",
           "DCShift", "DeemphBiquad", "EqualizerBiquad", "Fade", "Filtfilt", "Gain", "HighpassBiquad", "LFilter",
           "LowpassBiquad", "MuLawDecoding", "MuLawEncoding", "Overdrive", "RiaaBiquad", "TrebleBiquad", "Vol"]


def waveform(x, who, min_ndim=1):
    """A real numeric input as a float array (float64 stays float64, the rest become float32)."""
    a = np.asarray(x)
    if a.dtype.kind not in "fiu" or a.ndim < min_ndim:
        raise RuntimeError(f"{who}: the input should be a real numeric tensor with at least {min_ndim} "
                           f"dimension(s), but got dtype {a.dtype} and shape {list(a.shape)}.")
    return a if a.dtype == np.float64 else a.astype(np.float32)


def float_waveform(x, who):
    """A floating input of the IIR filters, kept in its own precision (float16 included); integers are refused as
    MindSpore's filter kernels refuse them."""
    a = np.asarray(x)
    if a.dtype.kind in "iub":
        raise RuntimeError(f"{who}: the data type of input tensor does not match the requirement of operator. "
                           f"Expecting tensor in type of [float, double]. But got type {a.dtype}.")
    waveform(a, who)
    return a


def _num(v, name, who, positive=False):
    return check_positive(v, name, who) if positive else check_number(v, name, who)


def _scipy_lfilter(b, a, x):
    from scipy import signal  # scipy.signal takes seconds to import: only when a filter runs

    return signal.lfilter(b, a, x, axis=-1)


def _lfilter(x, b, a, clamp):
    b = np.asarray(b, dtype=np.float64)
    a = np.asarray(a, dtype=np.float64)
    y = _scipy_lfilter(b / a[0], a / a[0], x.astype(np.float64))
    return np.clip(y, -1.0, 1.0) if clamp else y


class _Filter(TensorOperation):
    """A transform that runs an IIR filter (b, a) along the last axis and clamps to [-1, 1]."""
    clamp = True

    def coeffs(self):
        raise TypeError(f"{type(self).__name__} does not define filter coefficients.")

    def _apply(self, x):
        a = float_waveform(x, type(self).__name__)
        b_c, a_c = self.coeffs()
        return _lfilter(a, b_c, a_c, self.clamp).astype(a.dtype)


class Biquad(_Filter):
    """Biquad filter with the given coefficients."""

    @AV.check_biquad
    def __init__(self, b0, b1, b2, a0, a1, a2):
        self.b0, self.b1, self.b2, self.a0, self.a1, self.a2 = (float(v) for v in (b0, b1, b2, a0, a1, a2))

    def coeffs(self):
        return [self.b0, self.b1, self.b2], [self.a0, self.a1, self.a2]


class LFilter(_Filter):
    """IIR filter y = b*x - a*y along the last axis (coefficients normalized by a[0])."""

    @AV.check_lfilter
    def __init__(self, a_coeffs, b_coeffs, clamp=True):
        who = type(self).__name__
        a_c, b_c = list(a_coeffs), list(b_coeffs)
        if not a_c:
            raise ValueError(f"{who}: a_coeffs and b_coeffs should not be empty.")
        if a_c[0] == 0:
            raise ValueError(f"{who}: a_coeffs[0] should not be 0.")
        self.a_coeffs, self.b_coeffs, self.clamp = a_c, b_c, clamp

    def coeffs(self):
        return self.b_coeffs, self.a_coeffs


class Filtfilt(LFilter):
    """IIR filter run forward then backward (zero phase)."""

    def _apply(self, x):
        a = float_waveform(x, "Filtfilt")
        y = _lfilter(a, self.b_coeffs, self.a_coeffs, False)
        y = _lfilter(y[..., ::-1], self.b_coeffs, self.a_coeffs, False)[..., ::-1]
        return (np.clip(y, -1.0, 1.0) if self.clamp else y).astype(a.dtype)


class _RBJ(_Filter):
    """Biquads designed from (sample_rate, frequency, Q) with the Audio-EQ-Cookbook formulas."""

    def __init__(self, sample_rate, central_freq, Q=0.707):
        # the subclasses' __init__ check the arguments, each with MindSpore's names for them
        self.sample_rate, self.central_freq, self.Q = sample_rate, float(central_freq), float(Q)

    def _w(self):
        w0 = 2 * math.pi * self.central_freq / self.sample_rate
        return w0, math.cos(w0), math.sin(w0) / 2 / self.Q


class AllpassBiquad(_RBJ):
    """Two-pole all-pass filter."""

    @AV.check_central_freq_biquad
    def __init__(self, sample_rate, central_freq, Q=0.707):
        super().__init__(sample_rate, central_freq, Q)

    def coeffs(self):
        _, c, alpha = self._w()
        return [1 - alpha, -2 * c, 1 + alpha], [1 + alpha, -2 * c, 1 - alpha]


class BandpassBiquad(_RBJ):
    """Two-pole Butterworth band-pass filter."""

    @AV.check_bandpass_biquad
    def __init__(self, sample_rate, central_freq, Q=0.707, const_skirt_gain=False):
        super().__init__(sample_rate, central_freq, Q)
        self.const_skirt_gain = const_skirt_gain

    def coeffs(self):
        w0, c, alpha = self._w()
        temp = math.sin(w0) / 2 if self.const_skirt_gain else alpha
        return [temp, 0.0, -temp], [1 + alpha, -2 * c, 1 - alpha]


class BandrejectBiquad(_RBJ):
    """Two-pole Butterworth band-reject filter."""

    @AV.check_central_freq_biquad
    def __init__(self, sample_rate, central_freq, Q=0.707):
        super().__init__(sample_rate, central_freq, Q)

    def coeffs(self):
        _, c, alpha = self._w()
        return [1.0, -2 * c, 1.0], [1 + alpha, -2 * c, 1 - alpha]


class BandBiquad(_RBJ):
    """Two-pole band-pass filter (sox `band`)."""

    @AV.check_band_biquad
    def __init__(self, sample_rate, central_freq, Q=0.707, noise=False):
        super().__init__(sample_rate, central_freq, Q)
        self.noise = noise

    def coeffs(self):
        w0 = 2 * math.pi * self.central_freq / self.sample_rate
        bw_hz = self.central_freq / self.Q
        a2 = math.exp(-2 * math.pi * bw_hz / self.sample_rate)
        a1 = -4 * a2 / (1 + a2) * math.cos(w0)
        b0 = math.sqrt(1 - a1 * a1 / (4 * a2)) * (1 - a2)
        if self.noise:
            b0 *= math.sqrt(((1 + a2) ** 2 - a1 * a1) * (1 - a2) / (1 + a2)) / b0
        return [b0, 0.0, 0.0], [1.0, a1, a2]


class HighpassBiquad(_RBJ):
    """Two-pole high-pass filter."""

    @AV.check_cutoff_freq_biquad
    def __init__(self, sample_rate, cutoff_freq, Q=0.707):
        super().__init__(sample_rate, cutoff_freq, Q)
        self.cutoff_freq = self.central_freq

    def coeffs(self):
        _, c, alpha = self._w()
        return [(1 + c) / 2, -(1 + c), (1 + c) / 2], [1 + alpha, -2 * c, 1 - alpha]


class LowpassBiquad(HighpassBiquad):
    """Two-pole low-pass filter."""

    def coeffs(self):
        _, c, alpha = self._w()
        return [(1 - c) / 2, 1 - c, (1 - c) / 2], [1 + alpha, -2 * c, 1 - alpha]


def _shelf(gain, w0, alpha_of_a, treble):
    a_ = math.exp(gain / 40 * math.log(10))
    alpha = alpha_of_a(a_)
    c = math.cos(w0)
    t1, t2, t3 = 2 * math.sqrt(a_) * alpha, (a_ - 1) * c, (a_ + 1) * c
    s = 1 if treble else -1
    b = [a_ * ((a_ + 1) + s * t2 + t1), -2 * s * a_ * ((a_ - 1) + s * t3), a_ * ((a_ + 1) + s * t2 - t1)]
    a = [(a_ + 1) - s * t2 + t1, 2 * s * ((a_ - 1) - s * t3), (a_ + 1) - s * t2 - t1]
    return b, a


class BassBiquad(_RBJ):
    """Two-pole low-shelf (bass tone control) filter."""

    @AV.check_shelf_biquad
    def __init__(self, sample_rate, gain, central_freq=100.0, Q=0.707):
        super().__init__(sample_rate, central_freq, Q)
        self.gain = float(gain)

    def coeffs(self):
        w0, _, alpha = self._w()
        return _shelf(self.gain, w0, lambda _a: alpha, treble=isinstance(self, TrebleBiquad))


class TrebleBiquad(BassBiquad):
    """Two-pole high-shelf (treble tone control) filter."""

    @AV.check_shelf_biquad
    def __init__(self, sample_rate, gain, central_freq=3000, Q=0.707):
        super().__init__(sample_rate, gain, central_freq, Q)


class EqualizerBiquad(_RBJ):
    """Two-pole peaking equalizer."""

    @AV.check_equalizer_biquad
    def __init__(self, sample_rate, center_freq, gain, Q=0.707):
        super().__init__(sample_rate, center_freq, Q)
        self.center_freq = self.central_freq
        self.gain = float(gain)

    def coeffs(self):
        _, c, alpha = self._w()
        a_ = math.exp(self.gain / 40 * math.log(10))
        return [1 + alpha * a_, -2 * c, 1 - alpha * a_], [1 + alpha / a_, -2 * c, 1 - alpha / a_]


class DeemphBiquad(_Filter):
    """Compact Disc (IEC 60908) de-emphasis: a treble attenuation shelf (44.1 kHz or 48 kHz)."""

    @AV.check_deemph_biquad
    def __init__(self, sample_rate):
        self.sample_rate = sample_rate

    def coeffs(self):
        cf, slope, gain = (5283.0, 0.4845, -9.477) if self.sample_rate == 44100 else (5356.0, 0.479, -9.62)
        w0 = 2 * math.pi * cf / self.sample_rate
        return _shelf(gain, w0, lambda a_: math.sin(w0) / 2 * math.sqrt((a_ + 1 / a_) * (1 / slope - 1) + 2),
                      treble=True)


_RIAA = {44100: ([-0.2014898, 0.9233820], [0.7083149, 0.9924091]),
         48000: ([-0.1766069, 0.9321590], [0.7396325, 0.9931330]),
         88200: ([-0.1168735, 0.9648312], [0.8590646, 0.9964002]),
         96000: ([-0.1141486, 0.9676817], [0.8699137, 0.9966946])}


class RiaaBiquad(_Filter):
    """RIAA vinyl playback equalization (gain normalized to 0 dB at 1 kHz)."""

    def __init__(self, sample_rate):
        V.type_check(sample_rate, (int,), "sample_rate")
        if sample_rate not in _RIAA:
            raise ValueError(f"RiaaBiquad: sample_rate should be one of {sorted(_RIAA)}, but got {sample_rate!r}.")
        self.sample_rate = sample_rate

    def coeffs(self):
        (z0, z1), (p0, p1) = _RIAA[self.sample_rate]
        b = np.array([1.0, -(z0 + z1), z0 * z1])
        a = np.array([1.0, -(p0 + p1), p0 * p1])
        e = np.exp(-1j * 2 * math.pi * 1000 / self.sample_rate * np.arange(3))
        b = b * abs(np.dot(a, e)) / abs(np.dot(b, e))
        return list(b), list(a)


class Gain(TensorOperation):
    """Multiply the waveform by 10^(gain_db/20)."""

    @AV.check_gain
    def __init__(self, gain_db=1.0):
        self.gain_db = float(gain_db)

    def _apply(self, x):
        a = waveform(x, "Gain")
        return (a * 10.0 ** (self.gain_db / 20.0)).astype(a.dtype)


class Vol(TensorOperation):
    """Scale the volume by an amplitude ratio, a power ratio or decibels, clamped to [-1, 1]."""

    @AV.check_vol
    def __init__(self, gain, gain_type=GainType.AMPLITUDE):
        self.gain, self.gain_type = float(gain), gain_type

    def _apply(self, x):
        a = waveform(x, "Vol")
        if self.gain_type == GainType.AMPLITUDE:
            k = self.gain
        elif self.gain_type == GainType.DB:
            k = 10.0 ** (self.gain / 20.0)
        else:
            k = 10.0 ** (10 * math.log10(self.gain) / 20.0)
        return np.clip(a * k, -1.0, 1.0).astype(a.dtype)


_FADE_IN = {FadeShape.LINEAR: lambda t: t, FadeShape.EXPONENTIAL: lambda t: 2.0 ** ((t - 1) * 5),
            FadeShape.LOGARITHMIC: lambda t: np.log10(0.1 + t) + 1,
            FadeShape.QUARTER_SINE: lambda t: np.sin(t * math.pi / 2),
            FadeShape.HALF_SINE: lambda t: np.sin(t * math.pi - math.pi / 2) / 2 + 0.5}
_FADE_OUT = {FadeShape.LINEAR: lambda t: 1 - t, FadeShape.EXPONENTIAL: lambda t: 2.0 ** (-t * 5),
             FadeShape.LOGARITHMIC: lambda t: np.log10(1.1 - t) + 1,
             FadeShape.QUARTER_SINE: lambda t: np.sin(t * math.pi / 2 + math.pi / 2),
             FadeShape.HALF_SINE: lambda t: np.sin(t * math.pi + math.pi / 2) / 2 + 0.5}


def _fade_curve(n, shape, fade_in):
    return (_FADE_IN if fade_in else _FADE_OUT)[shape](np.linspace(0.0, 1.0, n))


class Fade(TensorOperation):
    """Fade the waveform in over its first fade_in_len samples and out over its last fade_out_len samples."""

    @AV.check_fade
    def __init__(self, fade_in_len=0, fade_out_len=0, fade_shape=FadeShape.LINEAR):
        self.fade_in_len, self.fade_out_len, self.fade_shape = fade_in_len, fade_out_len, fade_shape

    def _apply(self, x):
        a = waveform(x, "Fade")
        n = a.shape[-1]
        if self.fade_in_len > n or self.fade_out_len > n:
            raise RuntimeError(f"Fade: fade_in_len and fade_out_len should not exceed the waveform length {n}, "
                               f"but got {self.fade_in_len} and {self.fade_out_len}.")
        gain = np.ones(n)
        gain[:self.fade_in_len] = _fade_curve(self.fade_in_len, self.fade_shape, True)
        gain[n - self.fade_out_len:] *= _fade_curve(self.fade_out_len, self.fade_shape, False)
        return (a * gain).astype(a.dtype)


class DCShift(TensorOperation):
    """Add a DC shift, with an optional limiter for the samples it would push past +-1."""

    @AV.check_dc_shift
    def __init__(self, shift, limiter_gain=None):
        self.shift = float(shift)
        self.limiter_gain = None if limiter_gain is None else float(limiter_gain)

    def _apply(self, x):
        a = waveform(x, "DCShift").astype(np.float64)
        s, g = self.shift, self.limiter_gain
        out = np.clip(a + s, -1.0, 1.0)
        if g is not None and s != 0:
            thr = 1 - (abs(s) - g)
            if s > 0:
                m = a > thr
                out[m] = np.minimum((a[m] - thr) * g / (1 - thr) + thr + s, thr)
            else:
                m = a < -thr
                out[m] = np.maximum((a[m] + thr) * g / (1 - thr) - thr + s, -thr)
        return out.astype(waveform(x, "DCShift").dtype)


class Contrast(TensorOperation):
    """Contrast effect: sin(x*pi/2 + amount/750 * sin(2*pi*x))."""

    @AV.check_contrast
    def __init__(self, enhancement_amount=75.0):
        self.enhancement_amount = float(enhancement_amount)

    def _apply(self, x):
        a = waveform(x, "Contrast")
        t = a * (math.pi / 2)
        return np.sin(t + self.enhancement_amount / 750.0 * np.sin(t * 4)).astype(a.dtype)


class Overdrive(TensorOperation):
    """Soft-clipping overdrive followed by a DC-blocking filter."""

    @AV.check_overdrive
    def __init__(self, gain=20.0, color=20.0):
        self.gain, self.color = float(gain), float(color)

    def _apply(self, x):
        a = waveform(x, "Overdrive")
        t = a.astype(np.float64) * 10.0 ** (self.gain / 20.0) + self.color / 200.0
        t = np.where(t < -1, -2.0 / 3, np.where(t > 1, 2.0 / 3, t - t ** 3 / 3))
        # SoX's DC blocker: last_out = t[i] - t[i - 1] + 0.995 * last_out, mixed with half the dry signal
        y = a.astype(np.float64) * 0.5 + _scipy_lfilter([1.0, -1.0], [1.0, -0.995], t) * 0.75
        return np.clip(y, -1.0, 1.0).astype(a.dtype)


class MuLawEncoding(TensorOperation):
    """Mu-law companding of a waveform in [-1, 1] into integers in [0, quantization_channels)."""

    @AV.check_mu_law_coding
    def __init__(self, quantization_channels=256):
        self.quantization_channels = quantization_channels

    def _apply(self, x):
        a = waveform(x, "MuLawEncoding").astype(np.float64)
        mu = self.quantization_channels - 1.0
        x_mu = np.sign(a) * np.log1p(mu * np.abs(a)) / np.log1p(mu)
        return np.floor((x_mu + 1) / 2 * mu + 0.5).astype(np.int32)


class MuLawDecoding(MuLawEncoding):
    """Inverse of MuLawEncoding: integers in [0, quantization_channels) back to a waveform in [-1, 1]."""

    def _apply(self, x):
        # float64 in is computed in float64 (MindSpore's kernel is templated on it); anything else in float32
        ft = np.float64 if np.asarray(x).dtype == np.float64 else np.float32
        a = waveform(x, "MuLawDecoding").astype(ft)
        mu = ft(self.quantization_channels - 1.0)
        y = a / mu * ft(2) - ft(1)
        return (np.sign(y) * np.expm1(np.abs(y) * np.log1p(mu)) / mu).astype(ft)
