"""Pitch detection and voice-activity trimming of `mindspore.dataset.audio` (the torchaudio/sox algorithms).

DetectPitchFrequency: normalized cross-correlation (NCCF) of frames of `ceil(sample_rate * frame_time)` samples
with their lags 1..ceil(sample_rate / freq_low), the best lag per frame from ceil(sample_rate / freq_high) on
(a lag in the first half wins when its NCCF is within 1% of the overall best), median-smoothed over
`win_length` frames; the frequency is sample_rate / lag.

Vad: sox's `vad` effect. Every 1/measure_freq seconds a windowed spectrum of the last measure_duration
seconds is smoothed, noise-reduced by an adaptive noise estimate and lifted to a cepstral power; when its
running mean reaches trigger_level the audio is trimmed to start `search_time` (plus pre_trigger_time) before
that point, keeping earlier bursts louder than the trigger that are at most allowed_gap apart.
"""
import math

import numpy as np

from mindseed.dataset.audio._filters import float_waveform, waveform
from mindseed.dataset.audio import validators as AV
from mindseed.dataset.audio.validators import check_int, check_number, check_positive
from mindseed.dataset.transforms._base import TensorOperation

__all__ = ["DetectPitchFrequency", "Vad"]

_EPS = 1e-9


def _nccf(w, sample_rate, frame_time, freq_low):
    lags = int(math.ceil(sample_rate / freq_low))
    frame = int(math.ceil(sample_rate * frame_time))
    n = w.shape[-1]
    frames = int(math.ceil(n / frame))
    w = np.pad(w, ((0, 0), (0, lags + frames * frame - n)))
    out = np.empty((w.shape[0], frames, lags))
    for lag in range(1, lags + 1):
        s1 = w[:, :-lag][:, :frames * frame].reshape(w.shape[0], frames, frame)
        s2 = w[:, lag:][:, :frames * frame].reshape(w.shape[0], frames, frame)
        out[:, :, lag - 1] = ((s1 * s2).sum(-1) / (_EPS + np.linalg.norm(s1, axis=-1)) ** 2
                              / (_EPS + np.linalg.norm(s2, axis=-1)) ** 2)
    return out


def _best_lags(nccf, sample_rate, freq_high):
    lag_min = int(math.ceil(sample_rate / freq_high))
    tail = nccf[..., lag_min:]
    if not tail.shape[-1]:  # no lag above lag_min (a very low sample_rate): MindSpore takes index 0
        return np.full(nccf.shape[:-1], lag_min + 1)
    best_v, best_i = tail.max(-1), tail.argmax(-1)
    half = nccf[..., lag_min:nccf.shape[-1] // 2]
    if half.shape[-1]:
        half_v, half_i = half.max(-1), half.argmax(-1)
        pick = half_v > 0.99 * best_v
        best_i = np.where(pick, half_i, best_i)
    return best_i + lag_min + 1


def _median_smooth(idx, win_length):
    pad = (win_length - 1) // 2
    idx = np.concatenate([np.repeat(idx[:, :1], pad, axis=1), idx], axis=1).astype(np.float64)
    windows = np.lib.stride_tricks.sliding_window_view(idx, win_length, axis=1)
    return np.sort(windows, axis=-1)[..., (win_length - 1) // 2]


class DetectPitchFrequency(TensorOperation):
    """Pitch (Hz) per frame of a (..., time) waveform: float32 (..., frames)."""

    @AV.check_detect_pitch_frequency
    def __init__(self, sample_rate, frame_time=0.01, win_length=30, freq_low=85, freq_high=3400):
        self.sample_rate, self.frame_time, self.win_length = sample_rate, float(frame_time), win_length
        self.freq_low, self.freq_high = float(freq_low), float(freq_high)

    def _apply(self, x):
        a = np.asarray(x)
        if a.ndim < 1:
            raise RuntimeError("DetectPitchFrequency: the shape of input tensor does not match the requirement of "
                               "operator. Expecting tensor in shape of <..., time>. But got tensor with dimension 0.")
        a = float_waveform(a, "DetectPitchFrequency")
        w = a.reshape(-1, a.shape[-1]).astype(np.float64)
        nccf = _nccf(w, self.sample_rate, self.frame_time, self.freq_low)
        pad = (self.win_length - 1) // 2
        if nccf.shape[1] + pad < self.win_length:
            raise RuntimeError(f"DetectPitchFrequency: the input's {a.shape[-1]} samples make {nccf.shape[1]} "
                               f"frames of {int(math.ceil(self.sample_rate * self.frame_time))} samples, too few "
                               f"for the median smoothing over win_length={self.win_length} frames.")
        lags = _median_smooth(_best_lags(nccf, self.sample_rate, self.freq_high), self.win_length)
        freq = self.sample_rate / (_EPS + lags)
        return freq.reshape(a.shape[:-1] + freq.shape[-1:]).astype(np.float32)


def _hann(n):
    return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n) if n else np.zeros(0)


class Vad(TensorOperation):
    """Trim leading silence/background from a (..., time) waveform (sox's vad); see the module docstring."""

    def __init__(self, sample_rate, trigger_level=7.0, trigger_time=0.25, search_time=1.0, allowed_gap=0.25,
                 pre_trigger_time=0.0, boot_time=0.35, noise_up_time=0.1, noise_down_time=0.01,
                 noise_reduction_amount=1.35, measure_freq=20.0, measure_duration=None, measure_smooth_time=0.4,
                 hp_filter_freq=50.0, lp_filter_freq=6000.0, hp_lifter_freq=150.0, lp_lifter_freq=2000.0):
        who = "Vad"
        self.sample_rate = check_int(sample_rate, "sample_rate", who)
        self.trigger_level = check_number(trigger_level, "trigger_level", who)
        for name, v in (("trigger_time", trigger_time), ("search_time", search_time), ("allowed_gap", allowed_gap),
                        ("pre_trigger_time", pre_trigger_time), ("boot_time", boot_time),
                        ("noise_up_time", noise_up_time), ("noise_down_time", noise_down_time),
                        ("noise_reduction_amount", noise_reduction_amount),
                        ("measure_smooth_time", measure_smooth_time)):
            if check_number(v, name, who) < 0:
                raise ValueError(f"{who}: {name} should be non-negative, but got {v}.")
            setattr(self, name, float(v))
        if noise_up_time < noise_down_time:
            raise ValueError(f"Input noise_up_time should be greater than noise_down_time, but got noise_up_time: "
                             f"{noise_up_time} and noise_down_time: {noise_down_time}.")
        self.measure_freq = check_positive(measure_freq, "measure_freq", who)
        if measure_duration and check_number(measure_duration, "measure_duration", who) < 0:
            raise ValueError(f"{who}: measure_duration should be non-negative, but got {measure_duration}.")
        self.measure_duration = measure_duration
        for name, v in (("hp_filter_freq", hp_filter_freq), ("lp_filter_freq", lp_filter_freq),
                        ("hp_lifter_freq", hp_lifter_freq), ("lp_lifter_freq", lp_lifter_freq)):
            setattr(self, name, check_positive(v, name, who))

    def _setup(self):
        sr, mf = self.sample_rate, self.measure_freq
        duration = 2.0 / mf if self.measure_duration is None else self.measure_duration
        c = {"measure_len": int(sr * duration + 0.5), "period": int(sr / mf + 0.5),
             "measures_len": math.ceil(self.search_time * mf), "gap_len": int(self.allowed_gap * mf + 0.5)}
        dft = 16
        while dft < c["measure_len"]:
            dft *= 2
        c["dft"] = dft
        c["samples_len"] = (int(self.pre_trigger_time * sr + 0.5) + c["measures_len"] * c["period"]
                            + c["measure_len"])
        c["spectrum_window"] = 2.0 / math.sqrt(c["measure_len"]) * _hann(c["measure_len"])
        s0 = max(int(self.hp_filter_freq / sr * dft + 0.5), 1)
        s1 = min(int(self.lp_filter_freq / sr * dft + 0.5), dft // 2)
        c["spec"] = (s0, s1)
        c["cepstrum_window"] = 2.0 / math.sqrt(s1 - s0) * _hann(s1 - s0) if s1 > s0 else np.zeros(0)
        c0 = math.ceil(sr * 0.5 / self.lp_lifter_freq)
        c1 = min(math.floor(sr * 0.5 / self.hp_lifter_freq), dft // 4)
        if c1 <= c0:
            raise RuntimeError(f"Vad: cepstrum_start should be smaller than cepstrum_end, but got cepstrum_start: "
                               f"{c0}, cepstrum_end: {c1}.")
        c["ceps"] = (c0, c1)
        c["up"], c["down"] = math.exp(-1.0 / (self.noise_up_time * mf)), math.exp(-1.0 / (self.noise_down_time * mf))
        c["smooth"] = math.exp(-1.0 / (self.measure_smooth_time * mf))
        c["trigger_mult"] = math.exp(-1.0 / (self.trigger_time * mf))
        c["boot_max"] = int(self.boot_time * mf - 0.5)
        return c

    def _measure(self, c, samples, spectrum, noise, boot_count):
        (s0, s1), (c0, c1), dft = c["spec"], c["ceps"], c["dft"]
        buf = np.zeros(dft, dtype=np.float32)
        buf[:c["measure_len"]] = samples * c["spectrum_window"]
        mag = np.abs(np.fft.rfft(buf))[s0:s1]
        mult = boot_count / (1.0 + boot_count) if boot_count >= 0 else c["smooth"]
        spectrum[s0:s1] = spectrum[s0:s1] * mult + mag * (1 - mult)
        d = spectrum[s0:s1] ** 2
        nm = np.zeros(s1 - s0) if boot_count >= 0 else np.where(d > noise[s0:s1], c["up"], c["down"])
        noise[s0:s1] = noise[s0:s1] * nm + d * (1 - nm)
        reduced = np.sqrt(np.maximum(0.0, d - self.noise_reduction_amount * noise[s0:s1]))
        # MindSpore appends the reduced magnitudes to a zero-filled vector of their length and lifts that
        # vector's first (zero) half, so its cepstral power, and with it every measure, is 0.
        lifted = np.concatenate([np.zeros(s1 - s0), reduced])[:s1 - s0]
        ceps = np.zeros(dft >> 1, dtype=np.float32)
        ceps[s0:s1] = lifted * c["cepstrum_window"]
        power = float(np.sum(np.abs(np.fft.rfft(ceps))[c0:c1] ** 2))
        return max(0.0, 21 + math.log(power / (c1 - c0))) if power > 0 else 0.0

    def _apply(self, x):
        a = waveform(x, "Vad")
        w = a.reshape(-1, a.shape[-1])
        c = self._setup()
        n_ch, n = w.shape
        n_meas, m_len, period = c["measures_len"], c["measure_len"], c["period"]
        spectrum, noise = np.zeros((n_ch, c["dft"])), np.zeros((n_ch, c["dft"]))
        measures, mean = np.zeros((n_ch, n_meas)), np.zeros(n_ch)
        boot_count = index = flushed = to_flush = 0
        triggered = False
        end = n
        # A measure is taken at samples m_len - 1, m_len - 1 + period, ... over the m_len samples before it
        # (zeros before the start), as MindSpore's ring buffer holds them.
        for at in range(m_len - 1, n, period):
            lo = at - m_len
            window = np.zeros((n_ch, m_len))
            window[:, max(0, -lo):] = w[:, max(lo, 0):at]
            for i in range(n_ch):
                meas = self._measure(c, window[i], spectrum[i], noise[i], boot_count)
                measures[i, index] = meas
                mean[i] = mean[i] * c["trigger_mult"] + meas * (1.0 - c["trigger_mult"])
                triggered = triggered or mean[i] >= self.trigger_level
                if triggered:
                    j_trigger = j_zero = n_meas
                    k = index
                    for j in range(n_meas):
                        if measures[i, k] >= self.trigger_level and j <= j_trigger + c["gap_len"]:
                            j_zero = j_trigger = j
                        elif measures[i, k] == 0 and j_trigger >= j_zero:
                            j_zero = j
                        k = (k + n_meas - 1) % n_meas
                    # MindSpore's loop variable shadows the outer `j`, which stays 0 here.
                    to_flush = min(max(to_flush, min(0, j_zero)), n_meas)
            index = (index + 1) % n_meas
            boot_count = -1 if 0 <= boot_count == c["boot_max"] else boot_count + 1
            if triggered:
                flushed = (n_meas - to_flush) * period
                end = at + 1
                break
        start = end - c["samples_len"] + flushed
        if start < -n:
            start = 0
        elif start < 0:
            start += n
        return np.ascontiguousarray(w[:, start:]).reshape(a.shape[:-1] + (n - start,))
