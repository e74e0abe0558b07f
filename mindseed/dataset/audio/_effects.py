"""Time-domain effects of `mindspore.dataset.audio` with state (sox's flanger) and dithering."""
import math

import numpy as np

from mindseed.dataset import _random
from mindseed.dataset.audio import validators as AV
from mindseed.dataset.audio._filters import waveform
from mindseed.dataset.audio.utils import DensityFunction, Interpolation, Modulation
from mindseed.dataset.audio.validators import check_enum, check_range
from mindseed.dataset.transforms._base import TensorOperation

__all__ = ["Dither", "Flanger", "Phaser"]


def wave_table(sine, size, low, high, phase):
    """One period (`size` samples) of a sine or triangle LFO between low and high, starting at `phase` radians."""
    point = (np.arange(size) + int(phase / math.pi / 2 * size + 0.5)) % size
    if sine:
        d = (np.sin(point / size * 2 * math.pi) + 1) / 2
    else:
        d = point * 2.0 / size
        quarter = (4 * point) // size
        d = np.select([quarter == 0, quarter == 3], [d + 0.5, d - 1.5], 1.5 - d)
    return d * (high - low) + low


class Flanger(TensorOperation):
    """sox's flanger on a (..., channel, time) waveform (at most 4 channels), clamped to [-1, 1]."""

    @AV.check_flanger
    def __init__(self, sample_rate, delay=0.0, depth=2.0, regen=0.0, width=71.0, speed=0.5, phase=25.0,
                 modulation=Modulation.SINUSOIDAL, interpolation=Interpolation.LINEAR):
        who = "Flanger"
        self.sample_rate = sample_rate
        for name, v, lo, hi in (("delay", delay, 0, 30), ("depth", depth, 0, 10), ("regen", regen, -95, 95),
                                ("width", width, 0, 100), ("speed", speed, 0.1, 10), ("phase", phase, 0, 100)):
            setattr(self, name, check_range(v, name, who, lo, hi))
        self.modulation = check_enum(modulation, Modulation, "modulation", who)
        self.interpolation = check_enum(interpolation, Interpolation, "interpolation", who)

    def _apply(self, x):
        a = waveform(x, "Flanger", min_ndim=2)
        if a.shape[-2] > 4:
            raise RuntimeError(f"Flanger: the input should have at most 4 channels, but got {a.shape[-2]}.")
        w = a.reshape((-1,) + a.shape[-2:]).astype(np.float64)
        n_ch = w.shape[1]
        fb, gain, ch_phase = self.regen / 100, self.width / 100, self.phase / 100
        in_gain, gain = 1.0 / (1 + gain), gain / (1 + gain)
        gain *= 1 - abs(fb)
        buf_len = int((self.delay + self.depth) / 1000 * self.sample_rate + 0.5) + 2
        lfo_len = int(self.sample_rate / self.speed)
        lfo = wave_table(self.modulation == Modulation.SINUSOIDAL, lfo_len,
                         float(math.floor(self.delay / 1000 * self.sample_rate + 0.5)), buf_len - 2.0,
                         3 * math.pi / 2)
        bufs = np.zeros(w.shape[:2] + (buf_len,))
        last = np.zeros(w.shape[:2])
        out = np.empty_like(w)
        ch = np.arange(n_ch)
        ch_off = (ch * lfo_len * ch_phase + 0.5).astype(np.int64)
        pos = lfo_pos = 0
        for i in range(w.shape[-1]):
            pos = (pos + buf_len - 1) % buf_len
            d = lfo[(lfo_pos + ch_off) % lfo_len]
            frac, k = d - np.floor(d), np.floor(d).astype(np.int64)
            bufs[:, :, pos] = w[:, :, i] + last * fb
            d0 = bufs[:, ch, (pos + k) % buf_len]
            d1 = bufs[:, ch, (pos + k + 1) % buf_len]
            if self.interpolation == Interpolation.LINEAR:
                delayed = d0 + (d1 - d0) * frac
            else:
                d2 = bufs[:, ch, (pos + k + 2) % buf_len] - d0
                d1 = d1 - d0
                delayed = d0 + ((d2 * 0.5 - d1) * frac + (d1 * 2 - d2 * 0.5)) * frac
            last = delayed
            out[:, :, i] = w[:, :, i] * in_gain + delayed * gain
            lfo_pos = (lfo_pos + 1) % lfo_len
        # the result takes the input's own type (float16 and integer types included), as MindSpore's Flanger
        return np.clip(out, -1.0, 1.0).reshape(a.shape).astype(np.asarray(x).dtype)


class Dither(TensorOperation):
    """Requantize to 16 bits with TPDF/RPDF/GPDF dither, optionally noise-shaped (sox/torchaudio scheme)."""

    def __init__(self, density_function=DensityFunction.TPDF, noise_shaping=False):
        self.density_function = check_enum(density_function, DensityFunction, "density_function", "Dither")
        if not isinstance(noise_shaping, bool):
            raise TypeError(f"Dither: argument noise_shaping with value {noise_shaping!r} is not of type [bool].")
        self.noise_shaping = noise_shaping

    def _apply(self, x):
        a = waveform(x, "Dither")
        w = a.reshape(-1, a.shape[-1]).astype(np.float64)
        rng = _random.rng()
        n_ch, n_t = w.shape[0] - 1, w.shape[1] - 1

        def pick(n):
            return int(rng.integers(0, n)) if n > 0 else 0
        scaled = w * (2 ** 15 - 2)
        if self.density_function == DensityFunction.RPDF:
            noise = w[pick(n_ch), pick(n_t)] - 0.5
        elif self.density_function == DensityFunction.GPDF:
            noise = w[pick(n_ch), pick(n_t)] + sum(w[pick(n_ch), pick(n_t)] for _ in range(6))
        else:
            noise = (np.bartlett(n_t + 2)[:-1] if n_t + 1 > 1 else np.ones(1))[None, :]
        dithered = np.round(scaled + noise) / 2 ** 15
        if self.noise_shaping:
            err = dithered - w
            dithered = dithered + np.concatenate([np.zeros((w.shape[0], 1)), err[:, :-1]], axis=1)
        return dithered.reshape(a.shape).astype(a.dtype)


class Phaser(TensorOperation):
    """sox's phaser on a (..., time) waveform: a modulated feedback delay line, clamped to [-1, 1]."""

    @AV.check_phaser
    def __init__(self, sample_rate, gain_in=0.4, gain_out=0.74, delay_ms=3.0, decay=0.4, mod_speed=0.5,
                 sinusoidal=True):
        who = "Phaser"
        self.sample_rate = sample_rate
        self.gain_in = check_range(gain_in, "gain_in", who, 0.0, 1.0)
        self.gain_out = check_range(gain_out, "gain_out", who, 0.0, 1e9)
        self.delay_ms = check_range(delay_ms, "delay_ms", who, 0.0, 5.0)
        self.decay = check_range(decay, "decay", who, 0, 0.99)
        self.mod_speed = check_range(mod_speed, "mod_speed", who, 0.1, 2.0)
        if not isinstance(sinusoidal, bool):
            raise TypeError(f"{who}: argument sinusoidal with value {sinusoidal!r} is not of type [bool].")
        self.sinusoidal = sinusoidal
        if int(self.delay_ms * 0.001 * sample_rate + 0.5) < 1:
            raise ValueError(f"{who}: delay_ms * sample_rate should span at least one sample, but got delay_ms="
                             f"{delay_ms} at sample_rate={sample_rate}.")

    def _apply(self, x):
        a = waveform(x, "Phaser")
        w = a.reshape(-1, a.shape[-1]).astype(np.float64) * self.gain_in
        buf_len = int(self.delay_ms * 0.001 * self.sample_rate + 0.5)
        mod_len = int(self.sample_rate / self.mod_speed + 0.5)
        mod = (wave_table(self.sinusoidal, mod_len, 1.0, float(buf_len), math.pi / 2) + 0.5).astype(np.int64)
        buf = np.zeros((w.shape[0], buf_len))
        out = np.empty_like(w)
        pos = mod_pos = 0
        for i in range(w.shape[-1]):
            idx = (pos + mod[mod_pos]) % buf_len
            mod_pos = (mod_pos + 1) % mod_len
            pos = (pos + 1) % buf_len
            out[:, i] = w[:, i] + buf[:, idx]
            buf[:, pos] = out[:, i] * self.decay
        return np.clip(out * self.gain_out, -1.0, 1.0).reshape(a.shape).astype(a.dtype)
