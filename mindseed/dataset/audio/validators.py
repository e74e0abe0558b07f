"""Argument checks shared by the `mindspore.dataset.audio` transforms (`mindspore.dataset.audio.validators`), in
MindSpore's words (`Argument x with value v is not of type [...]`, `Input x is not within the required interval of
[a, b].`), after the op's name."""
import numpy as np

from mindseed.dataset import _validate as H
from mindseed.dataset._validate import FLOAT_MAX_INTEGER, INT32_MAX
from mindseed.dataset._validate import check_range as _interval
from mindseed.dataset._validate import type_check
from mindseed.dataset.audio import utils as U

__all__ = ["check_enum", "check_int", "check_number", "check_positive", "check_range", "check_float32",
           "check_int32_not_zero", "check_amplitude_to_db", "check_dc_shift", "check_fade", "check_flanger",
           "check_masking", "check_mask_along_axis", "check_mask_along_axis_iid", "check_mu_law_coding",
           "check_overdrive", "check_phaser", "check_spectrogram", "check_inverse_spectrogram",
           "check_spectral_centroid", "check_phase_vocoder", "check_pitch_shift", "check_mel_scale",
           "check_complex_norm", "check_magphase", "check_lfcc", "check_mfcc", "check_mel_spectrogram", "check_vol",
           "check_biquad", "check_central_freq_biquad", "check_cutoff_freq_biquad", "check_band_biquad",
           "check_bandpass_biquad", "check_shelf_biquad", "check_equalizer_biquad", "check_deemph_biquad",
           "check_lfilter", "check_gain", "check_contrast", "check_db_to_amplitude", "check_detect_pitch_frequency",
           "check_sliding_window_cmn"]


def check_enum(value, enum_cls, name, who):
    """`value` as a member of `enum_cls`, or a TypeError naming the op and argument."""
    type_check(value, (enum_cls,), name, who)
    return value


def check_number(value, name, who):
    """`value` as a float, or a TypeError naming the op and argument."""
    type_check(value, (float, int), name, who)
    return float(value)


def check_positive(value, name, who):
    """`value` as a float in (0, 16777216], or an error naming the op and argument."""
    v = check_number(value, name, who)
    _interval(v, 0, FLOAT_MAX_INTEGER, name, left_open=True, who=who)
    return v


def check_int(value, name, who, low=1):
    """`value` as an int in [low, 2147483647], or an error naming the op and argument."""
    type_check(value, (int,), name, who)
    _interval(value, low, INT32_MAX, name, who=who)
    return value


def check_range(value, name, who, low, high):
    """`value` as a float in [low, high], or an error naming the op and argument."""
    v = check_number(value, name, who)
    _interval(v, low, high, name, who=who)
    return v


def check_float32(value, name, who):
    """`value` as a float in [-16777216, 16777216] (MindSpore's float32 range for arguments)."""
    v = check_number(value, name, who)
    _interval(v, -FLOAT_MAX_INTEGER, FLOAT_MAX_INTEGER, name, who=who)
    return v


def check_int32_not_zero(value, name, who):
    """`value` as a non-zero int32."""
    type_check(value, (int,), name, who)
    if value == 0 or not -INT32_MAX - 1 <= value <= INT32_MAX:
        raise ValueError(f"{who}: Input {name} is not within the required interval of [{-INT32_MAX - 1}, 0) and "
                         f"(0, {INT32_MAX}].")
    return value


# ---------------------------------------------------------------------------------------------------------------
# The ops' argument checks, as MindSpore's `check_<op>` decorators of their __init__ (same order, types, ranges and
# messages). Each takes the __init__ arguments in signature order.

def _win_length(win_length, n_fft):
    if win_length is not None:
        H.check_pos_int32(win_length, "win_length")
        if win_length > n_fft:
            raise ValueError(f"Input win_length should be no more than n_fft, but got win_length: {win_length} and "
                             f"n_fft: {n_fft}.")


def _opt_pos_int32(value, name):
    if value is not None:
        H.check_pos_int32(value, name)


def _num(value, name):
    """MindSpore's explicit (int, float) type check, before a range check of (float, int)."""
    H.type_check(value, (int, float), name)


def _mel_freq(f_min, f_max, sample_rate):
    _num(f_min, "f_min")
    H.check_float32(f_min, "f_min")
    if f_max is not None:
        _num(f_max, "f_max")
        H.check_pos_float32(f_max, "f_max")
        if f_min >= f_max:
            raise ValueError("MelScale: f_max should be greater than f_min.")
    elif f_min >= sample_rate // 2:
        raise ValueError("MelScale: sample_rate // 2 should be greater than f_min when f_max is set to None.")


def _power(power):
    _num(power, "power")
    H.check_non_negative_float32(power, "power")


def _stft_flags(window, normalized, center, pad_mode, onesided):
    H.type_check(window, (U.WindowType,), "window")
    H.type_check(normalized, (bool,), "normalized")
    H.type_check(center, (bool,), "center")
    H.type_check(pad_mode, (U.BorderType,), "pad_mode")
    H.type_check(onesided, (bool,), "onesided")


def _stft_framing(window, normalized, center, pad_mode, onesided, pad, hop_length, win_length, n_fft):
    """The STFT flags, then pad, hop_length and win_length, in the order MindSpore's validators check them."""
    _stft_flags(window, normalized, center, pad_mode, onesided)
    H.check_non_negative_int32(pad, "pad")
    _opt_pos_int32(hop_length, "hop_length")
    _win_length(win_length, n_fft)


@H.method_check
def check_amplitude_to_db(stype, ref_value, amin, top_db):
    H.type_check(stype, (U.ScaleType,), "stype")
    for name, v in (("ref_value", ref_value), ("amin", amin), ("top_db", top_db)):
        _num(v, name)
        H.check_pos_float32(v, name)


@H.method_check
def check_dc_shift(shift, limiter_gain):
    H.type_check(shift, (float, int), "shift")
    H.check_value(shift, [-2.0, 2.0], "shift")
    if limiter_gain is not None:
        H.type_check(limiter_gain, (float, int), "limiter_gain")


@H.method_check
def check_fade(fade_in_len, fade_out_len, fade_shape):
    H.check_non_negative_int32(fade_in_len, "fade_in_len")
    H.check_non_negative_int32(fade_out_len, "fade_out_len")
    H.type_check(fade_shape, (U.FadeShape,), "fade_shape")


@H.method_check
def check_flanger(sample_rate, delay, depth, regen, width, speed, phase, modulation, interpolation):
    H.type_check(sample_rate, (int,), "sample_rate")
    H.check_int32_not_zero(sample_rate, "sample_rate")
    for name, v, rng in (("delay", delay, [0, 30]), ("depth", depth, [0, 10]), ("regen", regen, [-95, 95]),
                         ("width", width, [0, 100]), ("speed", speed, [0.1, 10]), ("phase", phase, [0, 100])):
        H.type_check(v, (float, int), name)
        H.check_value(v, rng, name)
    H.type_check(modulation, (U.Modulation,), "modulation")
    H.type_check(interpolation, (U.Interpolation,), "interpolation")


@H.method_check
def check_masking(iid_masks, mask_param, mask_start, mask_value):
    """TimeMasking / FrequencyMasking."""
    H.type_check(iid_masks, (bool,), "iid_masks")
    H.type_check(mask_param, (int,), "mask_param")
    H.check_non_negative_float32(mask_param, "mask_param")
    H.type_check(mask_start, (int,), "mask_start")
    H.check_non_negative_float32(mask_start, "mask_start")
    _num(mask_value, "mask_value")
    H.check_non_negative_float32(mask_value, "mask_value")


@H.method_check
def check_mask_along_axis(mask_start, mask_width, mask_value, axis):
    H.type_check(mask_start, (int,), "mask_start")
    H.type_check(mask_width, (int,), "mask_width")
    H.type_check(mask_value, (int, float), "mask_value")
    H.type_check(axis, (int,), "axis")
    H.check_non_negative_int32(mask_start, "mask_start")
    H.check_pos_int32(mask_width, "mask_width")
    H.check_float32(mask_value, "mask_value")
    H.check_value(axis, [1, 2], "axis")


@H.method_check
def check_mask_along_axis_iid(mask_param, mask_value, axis):
    H.check_non_negative_int32(mask_param, "mask_param")
    _num(mask_value, "mask_value")
    H.check_float32(mask_value, "mask_value")
    H.type_check(axis, (int,), "axis")
    H.check_value(axis, [1, 2], "axis")


@H.method_check
def check_mu_law_coding(quantization_channels):
    """MuLawEncoding / MuLawDecoding."""
    H.check_pos_int32(quantization_channels, "quantization_channels")


@H.method_check
def check_overdrive(gain, color):
    for name, v in (("gain", gain), ("color", color)):
        H.type_check(v, (float, int), name)
        H.check_value(v, [0, 100], name)


@H.method_check
def check_phaser(sample_rate, gain_in, gain_out, delay_ms, decay, mod_speed, sinusoidal):
    H.check_int32(sample_rate, "sample_rate")
    for name, v, rng in (("gain_in", gain_in, [0, 1]), ("gain_out", gain_out, [0, 1e9]),
                         ("delay_ms", delay_ms, [0, 5.0]), ("decay", decay, [0, 0.99]),
                         ("mod_speed", mod_speed, [0.1, 2])):
        H.type_check(v, (float, int), name)
        H.check_value(v, rng, name)
    H.type_check(sinusoidal, (bool,), "sinusoidal")


@H.method_check
def check_spectrogram(n_fft, win_length, hop_length, pad, window, power, normalized, center, pad_mode, onesided):
    H.check_pos_int32(n_fft, "n_fft")
    _win_length(win_length, n_fft)
    _opt_pos_int32(hop_length, "hop_length")
    H.check_non_negative_int32(pad, "pad")
    H.type_check(window, (U.WindowType,), "window")
    _power(power)
    _stft_flags(window, normalized, center, pad_mode, onesided)


@H.method_check
def check_inverse_spectrogram(length, n_fft, win_length, hop_length, pad, window, normalized, center, pad_mode,
                              onesided):
    if length is not None:
        H.check_non_negative_int32(length, "length")
    H.check_pos_int32(n_fft, "n_fft")
    _stft_framing(window, normalized, center, pad_mode, onesided, pad, hop_length, win_length, n_fft)


@H.method_check
def check_spectral_centroid(sample_rate, n_fft, win_length, hop_length, pad, window):
    H.check_non_negative_int32(sample_rate, "sample_rate")
    H.check_non_negative_int32(pad, "pad")
    H.type_check(window, (U.WindowType,), "window")
    H.check_pos_int32(n_fft, "n_fft")
    _win_length(win_length, n_fft)
    _opt_pos_int32(hop_length, "hop_length")


@H.method_check
def check_phase_vocoder(rate, phase_advance):
    _num(rate, "rate")
    H.check_pos_float32(rate, "rate")
    H.type_check(phase_advance, (np.ndarray,), "phase_advance")


@H.method_check
def check_pitch_shift(sample_rate, n_steps, bins_per_octave, n_fft, win_length, hop_length, window):
    H.check_non_negative_int32(sample_rate, "sample_rate")
    H.check_int32(n_steps, "n_steps")
    H.check_int32_not_zero(bins_per_octave, "bins_per_octave")
    H.check_pos_int32(n_fft, "n_fft")
    H.type_check(window, (U.WindowType,), "window")
    _win_length(win_length, n_fft)
    _opt_pos_int32(hop_length, "hop_length")


@H.method_check
def check_mel_scale(n_mels, sample_rate, f_min, f_max, n_stft, norm, mel_type):
    H.check_pos_int32(n_mels, "n_mels")
    H.check_pos_int32(sample_rate, "sample_rate")
    _mel_freq(f_min, f_max, sample_rate)
    H.check_pos_int32(n_stft, "n_stft")
    H.type_check(norm, (U.NormType,), "norm")
    H.type_check(mel_type, (U.MelType,), "mel_type")


@H.method_check
def check_complex_norm(power):
    """ComplexNorm / Magphase."""
    _power(power)


check_magphase = check_complex_norm


def _dct_type(dct_type):
    if dct_type != 2:
        raise ValueError(f"Input dct_type must be 2, but got : {dct_type}.")


@H.method_check
def check_lfcc(sample_rate, n_filter, n_lfcc, f_min, f_max, dct_type, norm, log_lf, speckwargs):
    H.check_non_negative_int32(sample_rate, "sample_rate")
    H.check_pos_int32(n_filter, "n_filter")
    H.check_pos_int32(n_lfcc, "n_lfcc")
    H.type_check(log_lf, (bool,), "log_lf")
    H.type_check(norm, (U.NormMode,), "norm")
    _num(f_min, "f_min")
    H.check_non_negative_float32(f_min, "f_min")
    if f_max is not None:
        _num(f_max, "f_max")
        H.check_non_negative_float32(f_max, "f_max")
        if f_min > f_max:
            raise ValueError(f"f_max should be greater than or equal to f_min, but got f_min: {f_min} and f_max: "
                             f"{f_max}.")
    elif f_min >= sample_rate // 2:
        raise ValueError(f"Input sample_rate // 2 should be greater than f_min when f_max is set to None, but got "
                         f"f_min: {f_min} and sample_rate: {sample_rate}.")
    _dct_type(dct_type)
    if speckwargs is not None:
        H.type_check(speckwargs, (dict,), "speckwargs")
        H.type_check(speckwargs["window"], (U.WindowType,), "window")
        H.type_check(speckwargs["pad_mode"], (U.BorderType,), "pad_mode")
        H.check_non_negative_int32(speckwargs["pad"], "pad")
        H.type_check(speckwargs["power"], (float,), "power")
        _power(speckwargs["power"])
        n_fft, win_length = speckwargs["n_fft"], speckwargs["win_length"]
        if n_fft < n_lfcc:
            raise ValueError(f"n_fft should be greater than or equal to n_lfcc, but got n_fft: {n_fft} and n_lfcc: "
                             f"{n_lfcc}.")
        if win_length > n_fft:
            raise ValueError(f"win_length must be less than or equal to n_fft, but got win_length: {win_length} and "
                             f"n_fft: {n_fft}.")


@H.method_check
def check_mfcc(sample_rate, n_mfcc, dct_type, norm, log_mels, melkwargs):
    H.check_non_negative_int32(sample_rate, "sample_rate")
    H.type_check(log_mels, (bool,), "log_mels")
    H.type_check(norm, (U.NormMode,), "norm")
    H.check_non_negative_int32(n_mfcc, "n_mfcc")
    _dct_type(dct_type)
    if melkwargs is None:
        return
    H.type_check(melkwargs, (dict,), "melkwargs")
    k = melkwargs
    H.check_pos_int32(k["n_fft"], "n_fft")
    H.check_pos_int32(k["n_mels"], "n_mels")
    _mel_freq(k["f_min"], k["f_max"], sample_rate)
    H.type_check(k["norm"], (U.NormType,), "norm")
    H.type_check(k["mel_scale"], (U.MelType,), "mel_type")
    _power(k["power"])
    _stft_flags(k["window"], k["normalized"], k["center"], k["pad_mode"], k["onesided"])
    H.check_non_negative_int32(k["pad"], "pad")
    _opt_pos_int32(k["hop_length"], "hop_length")
    if k["f_max"] is not None:
        H.check_non_negative_float32(k["f_max"], "f_max")
    if k["win_length"] is not None:
        H.check_non_negative_int32(k["win_length"], "win_length")
    if k["n_mels"] < n_mfcc:
        raise ValueError(f"Input n_mels should be greater than or equal to n_mfcc, but got n_mfcc: {n_mfcc} and "
                         f"n_mels: {k['n_mels']}.")


@H.method_check
def check_mel_spectrogram(sample_rate, n_fft, win_length, hop_length, f_min, f_max, pad, n_mels, window, power,
                          normalized, center, pad_mode, onesided, norm, mel_scale):
    H.check_non_negative_int32(sample_rate, "sample_rate")
    H.check_pos_int32(n_fft, "n_fft")
    H.check_non_negative_int32(n_mels, "n_mels")
    H.type_check(f_min, (float,), "f_min")
    if f_max is not None:
        H.check_non_negative_float32(f_max, "f_max")
        if f_min > f_max:
            raise ValueError(f"f_max should be greater than or equal to f_min, but got f_min: {f_min} and f_max: "
                             f"{f_max}.")
    elif f_min >= sample_rate // 2:
        raise ValueError(f"MelSpectrogram: sample_rate // 2 should be greater than f_min when f_max is set to None, "
                         f"but got f_min: {f_min}.")
    H.type_check(norm, (U.NormType,), "norm")
    H.type_check(mel_scale, (U.MelType,), "mel_type")
    H.check_pos_float32(power, "power")
    _stft_framing(window, normalized, center, pad_mode, onesided, pad, hop_length, win_length, n_fft)


@H.method_check
def check_vol(gain, gain_type):
    H.type_check(gain, (int, float), "gain")
    H.type_check(gain_type, (U.GainType,), "gain_type")
    if gain_type == U.GainType.AMPLITUDE:
        H.check_non_negative_float32(gain, "gain")
    elif gain_type == U.GainType.POWER:
        H.check_pos_float32(gain, "gain")
    else:
        H.check_float32(gain, "gain")


# ---------------------------------------------------------------------------------------------------------------
# Filters and effects (biquads, LFilter, gain, contrast, ...): MindSpore checks the type first, then the range.

def _typed(value, name, types=(float, int)):
    H.type_check(value, types, name)


def _float32_arg(value, name, types=(float, int)):
    _typed(value, name, types)
    H.check_float32(value, name)


def _sample_rate(sample_rate):
    _typed(sample_rate, "sample_rate", (int,))
    H.check_int32_not_zero(sample_rate, "sample_rate")


def _q(q):
    _typed(q, "Q")
    H.check_value(q, [0, 1], "Q", left_open_interval=True)


@H.method_check
def check_biquad(b0, b1, b2, a0, a1, a2):
    for name, v in (("b0", b0), ("b1", b1), ("b2", b2)):
        _float32_arg(v, name)
    _typed(a0, "a0")
    H.check_float32_not_zero(a0, "a0")
    _float32_arg(a1, "a1")
    _float32_arg(a2, "a2")


@H.method_check
def check_central_freq_biquad(sample_rate, central_freq, Q):
    """AllpassBiquad / BandrejectBiquad."""
    _sample_rate(sample_rate)
    _float32_arg(central_freq, "central_freq")
    _q(Q)


@H.method_check
def check_cutoff_freq_biquad(sample_rate, cutoff_freq, Q):
    """HighpassBiquad / LowpassBiquad."""
    _sample_rate(sample_rate)
    _float32_arg(cutoff_freq, "cutoff_freq")
    _q(Q)


@H.method_check
def check_band_biquad(sample_rate, central_freq, Q, noise):
    check_central_freq_biquad.check(sample_rate, central_freq, Q)
    _typed(noise, "noise", (bool,))


@H.method_check
def check_bandpass_biquad(sample_rate, central_freq, Q, const_skirt_gain):
    check_central_freq_biquad.check(sample_rate, central_freq, Q)
    _typed(const_skirt_gain, "const_skirt_gain", (bool,))


@H.method_check
def check_shelf_biquad(sample_rate, gain, central_freq, Q):
    """BassBiquad / TrebleBiquad."""
    _sample_rate(sample_rate)
    _float32_arg(gain, "gain")
    _float32_arg(central_freq, "central_freq")
    _q(Q)


@H.method_check
def check_equalizer_biquad(sample_rate, center_freq, gain, Q):
    _sample_rate(sample_rate)
    _float32_arg(center_freq, "central_freq")    # MindSpore names it so in its messages
    _float32_arg(gain, "gain")
    _q(Q)


@H.method_check
def check_deemph_biquad(sample_rate):
    _typed(sample_rate, "sample_rate", (int,))
    if sample_rate not in (44100, 48000):
        raise ValueError(f"Argument sample_rate should be 44100 or 48000, but got {sample_rate}.")


@H.method_check
def check_lfilter(a_coeffs, b_coeffs, clamp):
    """LFilter / Filtfilt."""
    _typed(a_coeffs, "a_coeffs", (list, tuple))
    _typed(b_coeffs, "b_coeffs", (list, tuple))
    for name, coeffs in (("a_coeffs", a_coeffs), ("b_coeffs", b_coeffs)):
        for i, v in enumerate(coeffs):
            _float32_arg(v, f"{name}[{i}]")
    if len(a_coeffs) != len(b_coeffs):
        raise ValueError("The size of a_coeffs should be the same as that of b_coeffs.")
    _typed(clamp, "clamp", (bool,))


@H.method_check
def check_gain(gain_db):
    _float32_arg(gain_db, "gain_db")


@H.method_check
def check_contrast(enhancement_amount):
    _typed(enhancement_amount, "enhancement_amount")
    H.check_value(enhancement_amount, [0, 100], "enhancement_amount")


@H.method_check
def check_db_to_amplitude(ref, power):
    _float32_arg(ref, "ref")
    _float32_arg(power, "power")


@H.method_check
def check_detect_pitch_frequency(sample_rate, frame_time, win_length, freq_low, freq_high):
    _sample_rate(sample_rate)
    _typed(frame_time, "frame_time")
    H.check_pos_float32(frame_time, "frame_time")
    _typed(win_length, "win_length", (int,))
    H.check_pos_int32(win_length, "win_length")
    for name, v in (("freq_low", freq_low), ("freq_high", freq_high)):
        _typed(v, name, (int, float))
        H.check_pos_float32(v, name)


@H.method_check
def check_sliding_window_cmn(cmn_window, min_cmn_window, center, norm_vars):
    for name, v in (("cmn_window", cmn_window), ("min_cmn_window", min_cmn_window)):
        _typed(v, name, (int,))
        H.check_non_negative_int32(v, name)
    _typed(center, "center", (bool,))
    _typed(norm_vars, "norm_vars", (bool,))
