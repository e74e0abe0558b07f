"""Spectral transforms of `mindspore.dataset.audio`: STFT, mel/linear scales, cepstra, phase vocoder, resampling.

Complex spectrograms are real arrays with a trailing axis of 2 (real, imaginary), as in MindSpore.
"""
import math

import numpy as np

from mindseed.dataset.audio._filters import waveform
from mindseed.dataset.audio.utils import (BorderType, MelType, NormMode, NormType, ScaleType,
                                          WindowType, create_dct, lin_fbanks, mel_fbanks)
from mindseed.dataset.audio import validators as AV
from mindseed.dataset.audio.validators import check_enum, check_int
from mindseed.dataset import _validate as V
from mindseed.dataset.transforms._base import TensorOperation
from mindseed._utils.errors import host_alloc

__all__ = ["AmplitudeToDB", "Angle", "ComplexNorm", "DBToAmplitude", "InverseMelScale", "InverseSpectrogram",
           "LFCC", "MFCC",
           "Magphase", "MelScale", "MelSpectrogram", "Spectrogram"]


_int = check_int


def _window(kind, win_length, n_fft):
    if kind == WindowType.HANN:
        w = np.hanning(win_length + 1)[:-1] if win_length > 1 else np.ones(win_length)
    elif kind == WindowType.HAMMING:
        w = np.hamming(win_length + 1)[:-1] if win_length > 1 else np.ones(win_length)
    elif kind == WindowType.BLACKMAN:
        w = np.blackman(win_length + 1)[:-1] if win_length > 1 else np.ones(win_length)
    elif kind == WindowType.BARTLETT:
        w = np.bartlett(win_length + 1)[:-1] if win_length > 1 else np.ones(win_length)
    else:
        w = np.kaiser(win_length + 1, 12.0)[:-1] if win_length > 1 else np.ones(win_length)
    left = (n_fft - win_length) // 2
    return np.pad(w, (left, n_fft - win_length - left))


class _STFT:
    """Shared STFT settings: n_fft, win_length, hop_length, window, center, pad_mode, onesided."""

    def _stft_args(self, who, n_fft, win_length, hop_length, pad, window, normalized, center=True,
                   pad_mode=BorderType.REFLECT, onesided=True):
        self.n_fft = _int(n_fft, "n_fft", who)
        self.win_length = n_fft if win_length is None else _int(win_length, "win_length", who)
        if self.win_length > n_fft:
            raise ValueError(f"Input win_length should be no more than n_fft, but got win_length: {win_length} and "
                             f"n_fft: {n_fft}.")
        self.hop_length = self.win_length // 2 if hop_length is None else _int(hop_length, "hop_length", who)
        self.pad = _int(pad, "pad", who, low=0)
        self.window = check_enum(window, WindowType, "window", who)
        for name, v in (("normalized", normalized), ("center", center), ("onesided", onesided)):
            if not isinstance(v, bool):
                raise TypeError(f"{who}: argument {name} with value {v!r} is not of type [bool].")
        self.normalized, self.center, self.onesided = normalized, center, onesided
        self.pad_mode = check_enum(pad_mode, BorderType, "pad_mode", who)

    def _win(self):
        return _window(self.window, self.win_length, self.n_fft)

    def stft(self, x):
        """Complex STFT of shape (..., freq, time)."""
        x = x.astype(np.float64)
        if self.pad:
            x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(self.pad, self.pad)])
        if self.center:
            h = self.n_fft // 2
            x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(h, h)], mode=self.pad_mode.value)
        if x.shape[-1] < self.n_fft:
            raise RuntimeError(f"{type(self).__name__}: n_fft should be more than 0 and less than {x.shape[-1]}, but "
                               f"got n_fft: {self.n_fft}.")
        n_frames = 1 + (x.shape[-1] - self.n_fft) // self.hop_length
        idx = np.arange(self.n_fft)[None, :] + self.hop_length * np.arange(n_frames)[:, None]
        w = self._win()
        frames = x[..., idx] * w
        spec = np.fft.rfft(frames, axis=-1) if self.onesided else np.fft.fft(frames, axis=-1)
        if self.normalized:
            spec /= np.sqrt(np.sum(w ** 2))
        return np.swapaxes(spec, -1, -2)

    def istft(self, spec, length=None):
        """Inverse of `stft` by windowed overlap-add; spec is complex (..., freq, time)."""
        w = self._win()
        if self.normalized:
            spec = spec * np.sqrt(np.sum(w ** 2))
        frames = np.swapaxes(spec, -1, -2)
        frames = np.fft.irfft(frames, n=self.n_fft, axis=-1) if self.onesided else \
            np.real(np.fft.ifft(frames, axis=-1))
        n_frames = frames.shape[-2]
        total = self.n_fft + self.hop_length * (n_frames - 1)
        out = np.zeros(frames.shape[:-2] + (total,))
        env = np.zeros(total)
        for t in range(n_frames):
            s = t * self.hop_length
            out[..., s:s + self.n_fft] += frames[..., t, :] * w
            env[s:s + self.n_fft] += w ** 2
        start = self.n_fft // 2 if self.center else 0
        end = total - (self.n_fft // 2 if self.center else 0)
        if length is not None:
            end = start + length
        out, env = out[..., start:end], env[start:end]
        out = out / np.where(env > 1e-11, env, 1.0)
        if length is not None and out.shape[-1] < length:
            out = np.pad(out, [(0, 0)] * (out.ndim - 1) + [(0, length - out.shape[-1])])
        return out


def _type_name(dtype):
    """A numpy dtype as MindSpore's dataset names it (str/bytes are `string`)."""
    return "string" if dtype.kind in "USO" else dtype.name


def _complex_in(x, who):
    a = np.asarray(x)
    if a.dtype.kind not in "fiu":
        raise RuntimeError(f"{who}: the data type of input tensor does not match the requirement of operator. "
                           f"Expecting tensor in type of [int, float, double]. But got type {_type_name(a.dtype)}.")
    if a.ndim < 1 or a.shape[-1] != 2:
        raise RuntimeError(f"{who}: the shape of input tensor does not match the requirement of operator. "
                           f"Expecting tensor in shape of <..., complex=2>.")
    return a[..., 0].astype(np.float64) + 1j * a[..., 1].astype(np.float64), (
        a.dtype if a.dtype == np.float64 else np.float32)


def _complex_out(z, dtype):
    return np.stack([z.real, z.imag], axis=-1).astype(dtype)


class Spectrogram(TensorOperation, _STFT):
    """Spectrogram |STFT|^power of a waveform (..., time) -> (..., freq, frames)."""

    @AV.check_spectrogram
    def __init__(self, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN, power=2.0,
                 normalized=False, center=True, pad_mode=BorderType.REFLECT, onesided=True):
        self._stft_args("Spectrogram", n_fft, win_length, hop_length, pad, window, normalized, center, pad_mode,
                        onesided)
        self.power = float(power)

    def _apply(self, x):
        a = waveform(x, "Spectrogram")
        z = self.stft(a)
        if self.power == 0:  # MindSpore: the complex STFT itself, <..., freq, time, complex=2>
            return _complex_out(z, a.dtype)
        return (np.abs(z) ** self.power).astype(a.dtype)


class InverseSpectrogram(TensorOperation, _STFT):
    """Waveform from a complex spectrogram (..., freq, frames, 2) by inverse STFT."""

    @AV.check_inverse_spectrogram
    def __init__(self, length=None, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN,
                 normalized=False, center=True, pad_mode=BorderType.REFLECT, onesided=True):
        self._stft_args("InverseSpectrogram", n_fft, win_length, hop_length, pad, window, normalized, center,
                        pad_mode, onesided)
        self.length = None if length is None else _int(length, "length", "InverseSpectrogram", low=0)

    def _apply(self, x):
        z, dtype = _complex_in(x, "InverseSpectrogram")
        if self.onesided and z.ndim >= 2 and self.n_fft != 2 * (z.shape[-2] - 1):
            raise RuntimeError("GriffinLim: the frequency of the input should equal to n_fft / 2 + 1")
        # NOTE: as MindSpore, no `length` means (frames - 1) * hop_length samples, from n_fft // 2 when `center` and
        # from 0 otherwise; `pad` is only removed from a signal of a given length (and comes out float32)
        if self.length is None:
            if self.pad:
                raise RuntimeError("Cannot reshape, Number of elements do not match")
            return self.istft(z, (z.shape[-1] - 1) * self.hop_length).astype(dtype)
        out = self.istft(z, self.length + 2 * self.pad)
        if self.pad:
            return out[..., self.pad:out.shape[-1] - self.pad].astype(np.float32)
        return out.astype(dtype)


class AmplitudeToDB(TensorOperation):
    """Amplitude or power spectrogram to decibels, floored at top_db below the maximum."""

    @AV.check_amplitude_to_db
    def __init__(self, stype=ScaleType.POWER, ref_value=1.0, amin=1e-10, top_db=80.0):
        self.stype = stype
        self.ref_value, self.amin, self.top_db = float(ref_value), float(amin), top_db

    def _apply(self, x):
        a = waveform(x, "AmplitudeToDB", min_ndim=2)  # <..., freq, time>
        mult = 10.0 if self.stype == ScaleType.POWER else 20.0
        db = mult * np.log10(np.maximum(a.astype(np.float64), self.amin))
        db -= mult * math.log10(max(self.amin, self.ref_value))
        if self.top_db is not None:
            # floored below the maximum of each spectrogram: of the last three dims (channel, freq, time) when
            # there are more than two, of the whole <freq, time> input otherwise
            if db.size:
                axes = tuple(range(-min(db.ndim, 3), 0))
                db = np.maximum(db, db.max(axis=axes, keepdims=True) - self.top_db)
        return db.astype(a.dtype)


class DBToAmplitude(TensorOperation):
    """Decibels back to amplitude/power: ref * 10^(0.1 * x * power)."""

    @AV.check_db_to_amplitude
    def __init__(self, ref, power):
        self.ref, self.power = float(ref), float(power)

    def _apply(self, x):
        a = waveform(x, "DBToAmplitude")
        return (self.ref * np.power(10.0, 0.1 * a.astype(np.float64) * self.power)).astype(a.dtype)


def _norm(z, power):
    """|z|^power as MindSpore computes it: (re^2 + im^2)^(power / 2)."""
    return np.power(z.real ** 2 + z.imag ** 2, power / 2)


class ComplexNorm(TensorOperation):
    """|z|^power of a complex tensor (..., 2)."""

    @AV.check_complex_norm
    def __init__(self, power=1.0):
        self.power = float(power)

    def _apply(self, x):
        z, dtype = _complex_in(x, "ComplexNorm")
        return _norm(z, self.power).astype(dtype)


class Angle(TensorOperation):
    """Phase angle of a complex tensor (..., 2)."""

    def _apply(self, x):
        z, dtype = _complex_in(x, "Angle")
        return np.angle(z).astype(dtype)


class Magphase(ComplexNorm):
    """(|z|^power, angle(z)) of a complex tensor (..., 2)."""

    def _apply(self, x):
        z, dtype = _complex_in(x, "Magphase")
        return _norm(z, self.power).astype(dtype), np.angle(z).astype(dtype)


def _fmax(f_max, sample_rate):
    return float(sample_rate // 2) if f_max is None else float(f_max)


def _band_args(sample_rate, f_min, f_max, **counts):
    """MindSpore's checks of a filterbank's arguments: the counts and the sample rate positive int32s, f_min and
    f_max (unless None) real numbers."""
    for name, v in dict(counts, sample_rate=sample_rate).items():
        V.check_pos_int32(v, name)
    V.check_number(f_min, "f_min")
    if f_max is not None:
        V.check_number(f_max, "f_max")


def _fbank_bytes(n_freqs, n_filters):
    """The memory building an (n_freqs, n_filters) filter bank takes: a few float64 arrays of that size."""
    return 4 * 8 * n_freqs * (n_filters + 2)


class MelScale(TensorOperation):
    """Normal STFT (..., n_stft, time) to mel frequency (..., n_mels, time)."""

    @AV.check_mel_scale
    def __init__(self, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, n_stft=201, norm=NormType.NONE,
                 mel_type=MelType.HTK):
        self.n_mels, self.sample_rate, self.f_min, self.n_stft = n_mels, sample_rate, float(f_min), n_stft
        self.f_max = _fmax(f_max, sample_rate)
        self.norm, self.mel_type = norm, mel_type
        self._fb = host_alloc("MelScale", mel_fbanks, n_stft, self.f_min, self.f_max, n_mels, sample_rate, norm,
                              mel_type, nbytes=_fbank_bytes(n_stft, n_mels))

    def _apply(self, x):
        a = waveform(x, "MelScale", min_ndim=2)
        if a.shape[-2] != self.n_stft:
            raise RuntimeError(f"MelScale: the input frequency dimension should be n_stft {self.n_stft}, but got "
                               f"{a.shape[-2]}.")
        return np.swapaxes(np.swapaxes(a, -1, -2) @ self._fb.astype(a.dtype), -1, -2)


class MelSpectrogram(TensorOperation):
    """Mel spectrogram: Spectrogram followed by MelScale."""

    @AV.check_mel_spectrogram
    def __init__(self, sample_rate=16000, n_fft=400, win_length=None, hop_length=None, f_min=0.0, f_max=None, pad=0,
                 n_mels=128, window=WindowType.HANN, power=2.0, normalized=False, center=True,
                 pad_mode=BorderType.REFLECT, onesided=True, norm=NormType.NONE, mel_scale=MelType.HTK):
        self.sample_rate, self.n_fft, self.n_mels = sample_rate, n_fft, n_mels
        self._spec = Spectrogram(n_fft, win_length, hop_length, pad, window, power, normalized, center, pad_mode,
                                 onesided)
        self._mel = MelScale(n_mels, sample_rate, f_min, f_max, n_fft // 2 + 1, norm, mel_scale)

    def _apply(self, x):
        return self._mel(self._spec(x))


def _dct_apply(spec, dct):
    return np.swapaxes(np.swapaxes(spec, -1, -2) @ dct.astype(spec.dtype), -1, -2)


def _log_or_db(x, log, top_db=80.0):
    return np.log(x + 1e-6).astype(x.dtype) if log else AmplitudeToDB(ScaleType.POWER, 1.0, 1e-10, top_db)(x)


def _check_dct(who, dct_type, norm):
    if dct_type != 2:
        raise ValueError(f"{who}: dct_type should be 2, but got {dct_type!r}.")
    return check_enum(norm, NormMode, "norm", who)


class MFCC(TensorOperation):
    """Mel-frequency cepstral coefficients of a waveform (..., time) -> (..., n_mfcc, frames)."""

    @AV.check_mfcc
    def __init__(self, sample_rate=16000, n_mfcc=40, dct_type=2, norm=NormMode.ORTHO, log_mels=False,
                 melkwargs=None):
        self.norm = norm
        self.sample_rate, self.n_mfcc, self.dct_type, self.log_mels = sample_rate, n_mfcc, dct_type, log_mels
        # MindSpore fills the caller's melkwargs in place with MelSpectrogram's defaults
        self.melkwargs = {} if melkwargs is None else melkwargs
        n_fft = self.melkwargs.setdefault("n_fft", 400)
        win_length = self.melkwargs.setdefault("win_length", n_fft)
        for key, value in (("hop_length", win_length // 2), ("f_min", 0.0), ("f_max", sample_rate // 2),
                           ("pad", 0), ("n_mels", 128), ("window", WindowType.HANN), ("power", 2.0),
                           ("normalized", False), ("center", True), ("pad_mode", BorderType.REFLECT),
                           ("onesided", True), ("norm", NormType.NONE), ("mel_scale", MelType.HTK)):
            self.melkwargs.setdefault(key, value)
        self._mel = self._dct = None

    def _apply(self, x):
        if self._mel is None:  # MindSpore checks the mel settings further only when the op is built to run
            self._mel = MelSpectrogram(self.sample_rate, **self.melkwargs)
            self._dct = create_dct(self.n_mfcc, self._mel.n_mels, self.norm)
        # NOTE: MindSpore's MFCC/LFCC give float32 whatever the input type (float64 included)
        return _dct_apply(_log_or_db(self._mel(x), self.log_mels), self._dct).astype(np.float32)


class LFCC(TensorOperation):
    """Linear-frequency cepstral coefficients of a waveform (..., time) -> (..., n_lfcc, frames)."""

    @AV.check_lfcc
    def __init__(self, sample_rate=16000, n_filter=128, n_lfcc=40, f_min=0.0, f_max=None, dct_type=2,
                 norm=NormMode.ORTHO, log_lf=False, speckwargs=None):
        self.norm = _check_dct("LFCC", dct_type, norm)
        if n_lfcc > n_filter:
            raise ValueError(f"LFCC: n_lfcc should be no more than n_filter {n_filter}, but got {n_lfcc}.")
        self.sample_rate, self.n_filter, self.n_lfcc, self.log_lf = sample_rate, n_filter, n_lfcc, log_lf
        self._spec = Spectrogram(**V.check_number(speckwargs or {}, "speckwargs", (dict,)))
        self._fb = host_alloc("LFCC", lin_fbanks, self._spec.n_fft // 2 + 1, float(f_min),
                              _fmax(f_max, sample_rate), n_filter, sample_rate,
                              nbytes=_fbank_bytes(self._spec.n_fft // 2 + 1, n_filter))
        self._dct = create_dct(n_lfcc, n_filter, self.norm)

    def _apply(self, x):
        spec = self._spec(x)
        lin = np.swapaxes(np.swapaxes(spec, -1, -2) @ self._fb.astype(spec.dtype), -1, -2)
        return _dct_apply(_log_or_db(lin, self.log_lf), self._dct).astype(np.float32)


class InverseMelScale(TensorOperation):
    """Estimate a normal STFT (..., n_stft, time) from a mel spectrogram (..., n_mels, time).

    Like MindSpore, it minimizes the squared error of the mel projection by SGD with momentum (sgdargs
    {'sgd_lr': 0.1, 'sgd_momentum': 0.9}), keeping the estimate non-negative, from a random start.
    """

    def __init__(self, n_stft, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, max_iter=100000,
                 tolerance_loss=1e-5, tolerance_change=1e-8, sgdargs=None, norm=NormType.NONE, mel_type=MelType.HTK):
        _band_args(sample_rate, f_min, f_max, n_stft=n_stft, n_mels=n_mels)
        self.n_stft, self.n_mels, self.sample_rate = n_stft, n_mels, sample_rate
        self.max_iter = _int(max_iter, "max_iter", "InverseMelScale")
        self.tolerance_loss, self.tolerance_change = float(tolerance_loss), float(tolerance_change)
        args = dict(sgdargs or {"sgd_lr": 0.1, "sgd_momentum": 0.9})
        unknown = set(args) - {"sgd_lr", "sgd_momentum"}
        if unknown:
            raise ValueError(f"InverseMelScale: sgdargs should only have keys 'sgd_lr' and 'sgd_momentum', but got "
                             f"{sorted(unknown)}.")
        self.sgdargs = {"sgd_lr": float(args.get("sgd_lr", 0.1)), "sgd_momentum": float(args.get("sgd_momentum", 0.9))}
        self._fb = host_alloc("InverseMelScale", mel_fbanks, n_stft, float(f_min), _fmax(f_max, sample_rate),
                              n_mels, sample_rate, norm, mel_type,
                              nbytes=_fbank_bytes(n_stft, n_mels)).astype(np.float64)

    def _apply(self, x):
        from mindseed.dataset import _random
        a = waveform(x, "InverseMelScale", min_ndim=2)
        if a.shape[-2] != self.n_mels:
            raise RuntimeError(f"InverseMelScale: the input mel dimension should be n_mels {self.n_mels}, but got "
                               f"{a.shape[-2]}.")
        lead = a.shape[:-2]
        mel = np.swapaxes(a.reshape((-1,) + a.shape[-2:]).astype(np.float64), -1, -2)  # (B, time, n_mels)
        spec = _random.rng().random(mel.shape[:-1] + (self.n_stft,))
        buf = np.zeros_like(spec)
        lr, mom = self.sgdargs["sgd_lr"], self.sgdargs["sgd_momentum"]
        count = mel.shape[0] * mel.shape[1]
        loss = float("inf")
        for _ in range(self.max_iter):
            diff = mel - spec @ self._fb
            new_loss = float((diff ** 2).sum(axis=-1).mean())
            buf = mom * buf + (-2.0 / count) * (diff @ self._fb.T)
            spec = np.maximum(spec - lr * buf, 0.0)
            if new_loss < self.tolerance_loss or abs(loss - new_loss) < self.tolerance_change:
                break
            loss = new_loss
        return np.swapaxes(spec, -1, -2).reshape(lead + (self.n_stft, a.shape[-1])).astype(a.dtype)
