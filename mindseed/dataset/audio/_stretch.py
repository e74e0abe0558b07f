"""Phase vocoder, Griffin-Lim, resampling, masking and feature post-processing of `mindspore.dataset.audio`."""
import math

import numpy as np

from mindseed.dataset.audio import validators as AV
from mindseed.dataset.audio._filters import waveform
from mindseed.dataset.audio._spectral import _STFT, _complex_in, _complex_out, _int
from mindseed.dataset.audio.utils import BorderType, ResampleMethod, WindowType
from mindseed.dataset.audio.validators import check_enum, check_positive
from mindseed.dataset.transforms._base import TensorOperation
from mindseed.dataset import _random
from mindseed.dataset import _validate as V

__all__ = ["ComputeDeltas", "FrequencyMasking", "GriffinLim", "MaskAlongAxis", "MaskAlongAxisIID", "PhaseVocoder",
           "PitchShift", "Resample", "SlidingWindowCmn", "SpectralCentroid", "TimeMasking", "TimeStretch"]


def _phase_vocoder(z, rate, phase_advance):
    """Time-stretch a complex spectrogram (..., freq, time) by `rate` keeping the phase coherent."""
    steps = np.arange(0, z.shape[-1], rate)
    alphas = steps % 1.0
    phase_0 = np.angle(z[..., :1])
    zp = np.pad(z, [(0, 0)] * (z.ndim - 1) + [(0, 2)])
    i = steps.astype(np.int64)
    s0, s1 = zp[..., i], zp[..., i + 1]
    phase = np.angle(s1) - np.angle(s0) - phase_advance
    phase = phase - 2 * math.pi * np.round(phase / (2 * math.pi)) + phase_advance
    phase = np.concatenate([phase_0, phase[..., :-1]], axis=-1)
    mag = alphas * np.abs(s1) + (1 - alphas) * np.abs(s0)
    return mag * np.exp(1j * np.cumsum(phase, axis=-1))


def _rate(v, who, name="rate"):
    return check_positive(v, name, who)


class PhaseVocoder(TensorOperation):
    """Speed up a complex spectrogram (..., freq, time, 2) by `rate` without changing its pitch."""

    @AV.check_phase_vocoder
    def __init__(self, rate, phase_advance):
        self.rate = float(rate)
        self.phase_advance = phase_advance

    def _apply(self, x):
        adv = self.phase_advance
        if adv.ndim != 2 or adv.shape[1] != 1:
            raise RuntimeError("PhaseVocoder: invalid parameter, 'phase_advance' should be in shape of <freq, 1>.")
        z, dtype = _complex_in(x, "PhaseVocoder")
        if adv.shape[0] != z.shape[-2]:
            raise RuntimeError(f"PhaseVocoder: invalid parameter, 'first dimension of 'phase_advance'' should be equal "
                               f"to 'freq dimension length of input tensor', but got: first dimension of "
                               f"'phase_advance' {adv.shape[0]} while freq dimension length of input tensor "
                               f"{z.shape[-2]}.")
        if adv.dtype != np.asarray(x).dtype:
            raise RuntimeError(f"PhaseVocoder: invalid parameter, data type of phase_advance should be equal to data "
                               f"type of input tensor, but got: data type of phase_advance {adv.dtype} while data "
                               f"type of input tensor {np.asarray(x).dtype}.")
        return _complex_out(_phase_vocoder(z, self.rate, adv.astype(np.float64)), dtype)


class TimeStretch(TensorOperation):
    """Stretch a complex spectrogram (..., freq, time, 2) in time by 1/fixed_rate (phase vocoder)."""

    def __init__(self, hop_length=None, n_freq=201, fixed_rate=None):
        self.n_freq = _int(n_freq, "n_freq", "TimeStretch")
        self.hop_length = (n_freq - 1) if hop_length is None else _int(hop_length, "hop_length", "TimeStretch")
        self.fixed_rate = 1.0 if fixed_rate is None else _rate(fixed_rate, "TimeStretch", "fixed_rate")

    def _apply(self, x):
        z, dtype = _complex_in(x, "TimeStretch")
        if self.fixed_rate == 1.0 and np.ndim(x) == 3:  # MindSpore returns a rate-1 <freq, time, 2> as <1, ...>
            return np.asarray(x)[None]
        adv = np.linspace(0, math.pi * self.hop_length, z.shape[-2])[:, None]
        return _complex_out(_phase_vocoder(z, self.fixed_rate, adv), dtype)


class GriffinLim(TensorOperation, _STFT):
    """Waveform from a magnitude/power spectrogram (..., freq, time) by fast Griffin-Lim."""

    def __init__(self, n_fft=400, n_iter=32, win_length=None, hop_length=None, window_type=WindowType.HANN,
                 power=2.0, momentum=0.99, length=None, rand_init=True):
        self._stft_args("GriffinLim", n_fft, win_length, hop_length, 0, window_type, False)
        self.window_type = self.window
        self.n_iter = _int(n_iter, "n_iter", "GriffinLim")
        self.power = _rate(power, "GriffinLim", "power")
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) or momentum < 0:
            raise ValueError(f"GriffinLim: momentum should be a non-negative number, but got {momentum!r}.")
        self.momentum = float(momentum)
        self.length = None if length is None else _int(length, "length", "GriffinLim", low=0)
        self.rand_init = bool(rand_init)

    def _apply(self, x):
        a = waveform(x, "GriffinLim", min_ndim=2)
        if a.shape[-2] != self.n_fft // 2 + 1:
            raise RuntimeError(f"GriffinLim: the input frequency dimension should be n_fft // 2 + 1 = "
                               f"{self.n_fft // 2 + 1}, but got {a.shape[-2]}.")
        mag = a.astype(np.float64) ** (1.0 / self.power)
        if self.rand_init:
            rng = _random.rng()
            angles = np.exp(2j * math.pi * rng.random(mag.shape))
        else:
            angles = np.ones(mag.shape, dtype=np.complex128)
        tprev = np.zeros_like(angles)
        for _ in range(self.n_iter):
            inverse = self.istft(mag * angles, self.length)
            rebuilt = self.stft(inverse)
            angles = rebuilt - self.momentum / (1 + self.momentum) * tprev
            angles = angles / (np.abs(angles) + 1e-16)
            tprev = rebuilt
        return self.istft(mag * angles, self.length).astype(a.dtype)


def _sinc_kernel(orig, new, width_param, rolloff, method, beta, n_rows=None):
    """The (n_rows, orig + 2 * width) filter bank: row k gives the k-th of the `new` outputs of each input frame
    (all `new` rows by default; fewer when only the first outputs are wanted)."""
    base = min(orig, new) * rolloff
    width = math.ceil(width_param * orig / base)
    idx = np.arange(-width, width + orig, dtype=np.float64)[None, :] / orig
    rows = new if n_rows is None else n_rows
    t = (np.arange(0, -rows, -1, dtype=np.float64)[:, None] / new + idx) * base
    t = np.clip(t, -width_param, width_param)
    if method == ResampleMethod.SINC_INTERPOLATION:
        win = np.cos(t * math.pi / width_param / 2) ** 2
    else:
        from scipy import special  # imported when used: scipy is slow to import

        win = special.i0(beta * np.sqrt(1 - (t / width_param) ** 2)) / special.i0(beta)
    t = t * math.pi
    safe = np.where(t == 0, 1.0, t)
    kern = np.where(t == 0, 1.0, np.sin(safe) / safe)
    return kern * win * (base / orig), width


class Resample(TensorOperation):
    """Resample a waveform (..., time) from orig_freq to new_freq with a windowed-sinc filter."""

    def __init__(self, orig_freq=16000, new_freq=16000, resample_method=ResampleMethod.SINC_INTERPOLATION,
                 lowpass_filter_width=6, rolloff=0.99, beta=None):
        self.orig_freq = _rate(orig_freq, "Resample", "orig_freq")
        self.new_freq = _rate(new_freq, "Resample", "new_freq")
        self.resample_method = check_enum(resample_method, ResampleMethod, "resample_method", "Resample")
        self.lowpass_filter_width = _int(lowpass_filter_width, "lowpass_filter_width", "Resample")
        self.rolloff = _rate(rolloff, "Resample", "rolloff")
        self.beta = 14.769656459379492 if beta is None else float(V.check_number(beta, "beta"))

    def _apply(self, x):
        a = waveform(x, "Resample")
        if self.orig_freq == self.new_freq:
            return a.copy()
        g = math.gcd(int(self.orig_freq), int(self.new_freq))
        orig, new = int(self.orig_freq) // g, int(self.new_freq) // g
        shape, length = a.shape[:-1], a.shape[-1]
        target = math.ceil(new * length / orig)
        # NOTE: a short signal needs only its first `target` outputs: build just those filter rows (the full bank
        # has new x orig entries, 80M for PitchShift's 20158 -> 16000 Hz step)
        kern, width = _sinc_kernel(orig, new, self.lowpass_filter_width, self.rolloff, self.resample_method,
                                   self.beta, min(new, target))
        w = np.pad(a.reshape(-1, length).astype(np.float64), [(0, 0), (width, width + orig)])
        n_out = min((w.shape[-1] - kern.shape[-1]) // orig + 1, -(-target // kern.shape[0]))
        idx = np.arange(kern.shape[-1])[None, :] + orig * np.arange(n_out)[:, None]
        res = np.einsum("bfk,nk->bfn", w[:, idx], kern).reshape(w.shape[0], -1)
        return res[:, :target].reshape(shape + (-1,)).astype(a.dtype)


class PitchShift(TensorOperation):
    """Shift the pitch of a waveform by n_steps (phase vocoder + resampling), keeping its length."""

    @AV.check_pitch_shift
    def __init__(self, sample_rate, n_steps, bins_per_octave=12, n_fft=512, win_length=None, hop_length=None,
                 window=WindowType.HANN):
        self.sample_rate = sample_rate
        self.n_steps, self.bins_per_octave = n_steps, bins_per_octave
        self._stft = _STFT()
        self._stft._stft_args("PitchShift", n_fft, win_length, None if hop_length is None else hop_length, 0,
                              window, False)
        if hop_length is None:
            self._stft.hop_length = self._stft.win_length // 4
        self.n_fft, self.win_length, self.hop_length = n_fft, self._stft.win_length, self._stft.hop_length
        self.window = self._stft.window

    def _apply(self, x):
        a = waveform(x, "PitchShift")
        length = a.shape[-1]
        rate = 2.0 ** (-float(self.n_steps) / self.bins_per_octave)
        z = self._stft.stft(a)
        adv = np.linspace(0, math.pi * self.hop_length, z.shape[-2])[:, None]
        stretched = _phase_vocoder(z, rate, adv)
        y = self._stft.istft(stretched, int(round(length / rate)))
        y = Resample(int(self.sample_rate / rate), self.sample_rate)(y)
        if y.shape[-1] >= length:
            y = y[..., :length]
        else:
            y = np.pad(y, [(0, 0)] * (y.ndim - 1) + [(0, length - y.shape[-1])])
        return y.astype(a.dtype)


class MaskAlongAxis(TensorOperation):
    """Set columns [mask_start, mask_start + mask_width) of a spectrogram along axis 1 (freq) or 2 (time)."""

    @AV.check_mask_along_axis
    def __init__(self, mask_start, mask_width, mask_value, axis):
        self.mask_start, self.mask_width, self.mask_value, self.axis = mask_start, mask_width, float(mask_value), axis

    def _apply(self, x):
        a = waveform(x, type(self).__name__, min_ndim=2)
        return _mask(a, self.mask_start, self.mask_width, self.mask_value, self.axis, type(self).__name__)


def _mask(a, start, width, value, axis, who):
    if width == 0:   # as MindSpore: an empty mask leaves the input as is (an iid draw may start at the very end)
        return a
    ax = a.ndim - 3 + axis
    size = a.shape[ax]
    if start > size:
        raise RuntimeError(f"MaskAlongAxis: invalid parameter, 'mask_start' should be less than the length of the "
                           f"masked dimension, but got: 'mask_start' {start} and length {size}")
    if start + width > size:
        raise RuntimeError(f"MaskAlongAxis: invalid parameter, the sum of 'mask_start' and 'mask_width' should be no "
                           f"more than the length of the masked dimension, but got: 'mask_start' {start}, "
                           f"'mask_width' {width} and length {size}")
    out = a.copy()
    sl = [slice(None)] * a.ndim
    sl[ax] = slice(start, start + width)
    out[tuple(sl)] = value
    return out


class MaskAlongAxisIID(TensorOperation):
    """Mask a random-width (up to mask_param) random-start band along axis 1 (freq) or 2 (time)."""

    @AV.check_mask_along_axis_iid
    def __init__(self, mask_param, mask_value, axis):
        self.mask_param, self.mask_value, self.axis = mask_param, float(mask_value), axis

    def _apply(self, x):
        a = waveform(x, "MaskAlongAxisIID", min_ndim=2)
        return _random_mask(a, self.mask_param, self.mask_value, self.axis, "MaskAlongAxisIID")


def _random_mask(a, param, value, axis, who):
    size = a.shape[a.ndim - 3 + axis]
    if param > size:
        raise RuntimeError(f"{who}: mask_param should be less than or equal to the length of "
                           f"{'frequency' if axis == 1 else 'time'} dimension.")
    rng = _random.rng()
    width = int(rng.integers(0, param + 1))
    start = int(rng.integers(0, size - width + 1))
    return _mask(a, start, width, value, axis, who)


class _AxisMasking(TensorOperation):
    axis = 1

    @AV.check_masking
    def __init__(self, iid_masks=False, mask_param=0, mask_start=0, mask_value=0.0):
        self.iid_masks, self._param, self.mask_start, self.mask_value = (iid_masks, mask_param, mask_start,
                                                                         float(mask_value))

    def _apply(self, x):
        who = type(self).__name__
        a = waveform(x, who, min_ndim=2)
        size, dim = a.shape[a.ndim - 3 + self.axis], ("frequency", "time")[self.axis - 1]
        if self._param > size:
            # MindSpore's TimeMasking names frequency_mask_param in the values it shows
            raise RuntimeError(f"{who}: invalid parameter, '{dim}_mask_param' should be less than or equal to the "
                               f"length of {dim} dimension, but got: 'frequency_mask_param' {self._param} and length "
                               f"{size}")
        if self.iid_masks:
            return _random_mask(a, self._param, self.mask_value, self.axis, who)
        return _mask(a, self.mask_start, self._param, self.mask_value, self.axis, who)


class FrequencyMasking(_AxisMasking):
    """Mask a frequency band of a spectrogram (..., freq, time): fixed, or random when iid_masks."""

    def __init__(self, iid_masks=False, freq_mask_param=0, mask_start=0, mask_value=0.0):
        super().__init__(iid_masks, freq_mask_param, mask_start, mask_value)
        self.freq_mask_param = freq_mask_param


class TimeMasking(_AxisMasking):
    """Mask a time band of a spectrogram (..., freq, time): fixed, or random when iid_masks."""
    axis = 2

    def __init__(self, iid_masks=False, time_mask_param=0, mask_start=0, mask_value=0.0):
        super().__init__(iid_masks, time_mask_param, mask_start, mask_value)
        self.time_mask_param = time_mask_param


class ComputeDeltas(TensorOperation):
    """Delta coefficients along time: sum_n n*(c[t+n] - c[t-n]) / (2 * sum_n n^2)."""

    def __init__(self, win_length=5, pad_mode=BorderType.EDGE):
        self.win_length = _int(win_length, "win_length", "ComputeDeltas", low=3)
        self.pad_mode = check_enum(pad_mode, BorderType, "pad_mode", "ComputeDeltas")

    def _apply(self, x):
        a = waveform(x, "ComputeDeltas", min_ndim=2)
        n = (self.win_length - 1) // 2
        p = np.pad(a.astype(np.float64), [(0, 0)] * (a.ndim - 1) + [(n, n)], mode=self.pad_mode.value)
        t = a.shape[-1]
        out = sum(k * (p[..., n + k:n + k + t] - p[..., n - k:n - k + t]) for k in range(1, n + 1))
        return (out / (n * (n + 1) * (2 * n + 1) / 3)).astype(a.dtype)


class SlidingWindowCmn(TensorOperation):
    """Sliding-window cepstral mean (and variance) normalization of (..., time, feature) features."""

    @AV.check_sliding_window_cmn
    def __init__(self, cmn_window=600, min_cmn_window=100, center=False, norm_vars=False):
        self.cmn_window, self.min_cmn_window = cmn_window, min_cmn_window
        self.center, self.norm_vars = center, norm_vars

    def _window(self, t, n):
        w = self.cmn_window
        if self.center:
            start = t - w // 2
            end = start + w
            if start < 0:
                end, start = end - start, 0
            if end > n:
                start, end = max(0, start - (end - n)), n
        else:
            start, end = t - w, t + 1
            if start < 0:
                start = 0
            if end < self.min_cmn_window:
                end = min(self.min_cmn_window, n)
            if end > n:
                start, end = max(0, start - (end - n)), n
        return start, end

    def _apply(self, x):
        a = waveform(x, "SlidingWindowCmn", min_ndim=2).astype(np.float64)
        n = a.shape[-2]
        out = np.empty_like(a)
        for t in range(n):
            s, e = self._window(t, n)
            seg = a[..., s:e, :]
            out[..., t, :] = a[..., t, :] - seg.mean(axis=-2)
            if self.norm_vars:
                var = (seg ** 2).mean(axis=-2) - seg.mean(axis=-2) ** 2
                out[..., t, :] /= np.sqrt(np.maximum(var, 0)) if np.all(var > 0) else np.where(var > 0, np.sqrt(
                    np.maximum(var, 1e-300)), 1.0)
        return out.astype(waveform(x, "SlidingWindowCmn", min_ndim=2).dtype)


class SpectralCentroid(TensorOperation, _STFT):
    """Spectral centroid (magnitude-weighted mean frequency) of each frame: (..., time) -> (..., 1, frames)."""

    @AV.check_spectral_centroid
    def __init__(self, sample_rate, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN):
        self.sample_rate = sample_rate
        self._stft_args("SpectralCentroid", n_fft, win_length, hop_length, pad, window, False)

    def _apply(self, x):
        a = waveform(x, "SpectralCentroid")
        mag = np.abs(self.stft(a))
        freqs = np.linspace(0, self.sample_rate // 2, self.n_fft // 2 + 1)[:, None]
        cen = (freqs * mag).sum(axis=-2) / mag.sum(axis=-2)
        return cen[..., None, :].astype(a.dtype)
