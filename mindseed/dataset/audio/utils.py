"""Enums and filterbank helpers of `mindspore.dataset.audio` (melscale_fbanks, linear_fbanks, create_dct)."""
import enum

import numpy as np

from mindseed.dataset import _validate as V

__all__ = ["BorderType", "DensityFunction", "FadeShape", "GainType", "Interpolation", "MelType", "Modulation",
           "NormMode", "NormType", "ResampleMethod", "ScaleType", "WindowType", "create_dct", "linear_fbanks",
           "melscale_fbanks"]


def _str_enum(name, doc, values):
    """A str-valued Enum class of this module; each member is named by its value in upper case."""
    cls = enum.Enum(name, {v.upper(): v for v in values.split()}, type=str, module=__name__)
    cls.__doc__ = doc
    return cls


BorderType = _str_enum("BorderType", "Padding mode.", "constant edge reflect symmetric")
DensityFunction = _str_enum("DensityFunction", "Density function type.", "TPDF RPDF GPDF")
FadeShape = _str_enum("FadeShape", "Fade Shapes.", "linear exponential logarithmic quarter_sine half_sine")
GainType = _str_enum("GainType", "Gain type.", "amplitude power db")
Interpolation = _str_enum("Interpolation", "Interpolation type.", "linear quadratic")
MelType = _str_enum("MelType", "Mel scale type.", "htk slaney")
Modulation = _str_enum("Modulation", "Modulation type.", "sinusoidal triangular")
NormMode = _str_enum("NormMode", "Normalization mode of the DCT.", "none ortho")
NormType = _str_enum("NormType", "Normalization type of the mel filterbank.", "none slaney")
ResampleMethod = _str_enum("ResampleMethod", "Resample method.", "sinc_interpolation kaiser_window")
ScaleType = _str_enum("ScaleType", "Scale type of an input to AmplitudeToDB.", "magnitude power")
WindowType = _str_enum("WindowType", "Window function type.", "bartlett blackman hamming hann kaiser")


def _hz_to_mel(f, mel_type):
    f = np.asarray(f, dtype=np.float64)
    if mel_type == MelType.HTK:
        return 2595.0 * np.log10(1.0 + f / 700.0)
    f_sp, min_log_hz, logstep = 200.0 / 3, 1000.0, np.log(6.4) / 27.0
    mels = f / f_sp
    return np.where(f >= min_log_hz, min_log_hz / f_sp + np.log(np.maximum(f, 1e-10) / min_log_hz) / logstep, mels)


def _mel_to_hz(m, mel_type):
    m = np.asarray(m, dtype=np.float64)
    if mel_type == MelType.HTK:
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    f_sp, min_log_hz, logstep = 200.0 / 3, 1000.0, np.log(6.4) / 27.0
    min_log_mel = min_log_hz / f_sp
    return np.where(m >= min_log_mel, min_log_hz * np.exp(logstep * (m - min_log_mel)), f_sp * m)


def _triangles(all_freqs, f_pts):
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts[None, :] - all_freqs[:, None]
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return np.maximum(0.0, np.minimum(down, up))


def _check_fbank_args(n_freqs, f_min, f_max, n_bands, sample_rate, bands_name):
    """MindSpore's checks of melscale_fbanks / linear_fbanks."""
    V.check_non_negative_int32(n_freqs, "n_freqs")
    V.check_non_negative_float32(f_min, "f_min")
    V.check_pos_float32(f_max, "f_max")
    if f_min > f_max:
        raise ValueError(f"Input f_min should be no more than f_max, but got f_min: {f_min} and f_max: {f_max}.")
    V.check_pos_int32(n_bands, bands_name)
    V.check_pos_int32(sample_rate, "sample_rate")


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm=NormType.NONE, mel_type=MelType.HTK):
    """Mel filterbank matrix of shape (n_freqs, n_mels) (HTK or Slaney mel scale)."""
    _check_fbank_args(n_freqs, f_min, f_max, n_mels, sample_rate, "n_mels")
    V.type_check(norm, (NormType,), "norm")
    V.type_check(mel_type, (MelType,), "mel_type")
    return mel_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm, mel_type)


def mel_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm, mel_type):
    """melscale_fbanks without its argument checks (the ops check their own)."""
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    m_pts = np.linspace(_hz_to_mel(f_min, mel_type), _hz_to_mel(f_max, mel_type), n_mels + 2)
    f_pts = _mel_to_hz(m_pts, mel_type)
    fb = _triangles(all_freqs, f_pts)
    if norm == NormType.SLANEY:
        fb = fb * (2.0 / (f_pts[2:n_mels + 2] - f_pts[:n_mels]))[None, :]
    return fb.astype(np.float32)


def linear_fbanks(n_freqs, f_min, f_max, n_filter, sample_rate):
    """Linear triangular filterbank of shape (n_freqs, n_filter)."""
    _check_fbank_args(n_freqs, f_min, f_max, n_filter, sample_rate, "n_filter")
    return lin_fbanks(n_freqs, f_min, f_max, n_filter, sample_rate)


def lin_fbanks(n_freqs, f_min, f_max, n_filter, sample_rate):
    """linear_fbanks without its argument checks (the ops check their own)."""
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    f_pts = np.linspace(f_min, f_max, n_filter + 2)
    return _triangles(all_freqs, f_pts).astype(np.float32)


def create_dct(n_mfcc, n_mels, norm=NormMode.NONE):
    """DCT-II matrix of shape (n_mels, n_mfcc), orthonormal when norm is ORTHO (scaled by 2 otherwise)."""
    for name, v, cls in (("n_mfcc", n_mfcc, int), ("n_mels", n_mels, int), ("norm", norm, NormMode)):
        if not isinstance(v, cls):
            raise TypeError(f"{name} with value {v} is not of type {cls}, but got {type(v)}.")
    for name, v in (("n_mfcc", n_mfcc), ("n_mels", n_mels)):
        if v <= 0:
            raise ValueError(f"{name} must be greater than 0, but got {v}.")
    n = np.arange(n_mels, dtype=np.float64)
    k = np.arange(n_mfcc, dtype=np.float64)[:, None]
    dct = np.cos(np.pi / n_mels * (n + 0.5) * k)
    if norm == NormMode.NONE:
        dct *= 2.0
    else:
        dct[0] *= 1.0 / np.sqrt(2.0)
        dct *= np.sqrt(2.0 / n_mels)
    return dct.T.astype(np.float32)
