"""dataset.audio transforms against closed forms and scipy references."""
import math

import numpy as np
import pytest
from scipy import signal

import mindseed.dataset as ds
import mindseed.dataset.audio as A

SR = 16000


def _sine(freq, n=SR, amp=0.5):
    return (amp * np.sin(2 * np.pi * freq * np.arange(n) / SR)).astype(np.float64)


def test_spectrogram_sine_peak_bin_and_power():
    n_fft = 400
    spec = A.Spectrogram(n_fft=n_fft, window=A.WindowType.HANN, power=2.0)(_sine(1000))
    assert spec.shape == (n_fft // 2 + 1, SR // (n_fft // 2) + 1)
    col = spec[:, 20]
    assert col.argmax() == 1000 * n_fft // SR  # bin 25
    # periodic Hann of length N: |X[k]| = A * sum(w) / 2 / 2 at the tone's bin (bin-centred tone)
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)
    np.testing.assert_allclose(col[25], (0.5 * w.sum() / 2) ** 2, rtol=1e-6)


def test_spectrogram_matches_scipy_stft_and_inverse_round_trip():
    x = np.random.default_rng(0).standard_normal(4000)
    op = A.Spectrogram(n_fft=256, hop_length=64, power=1.0, center=False)
    _, _, z = signal.stft(x, window="hann", nperseg=256, noverlap=192, boundary=None, padded=False,
                          detrend=False, return_onesided=True)
    w = signal.get_window("hann", 256)
    np.testing.assert_allclose(op(x), np.abs(z) * w.sum(), rtol=1e-9, atol=1e-9)
    spec = A.Spectrogram(n_fft=256, hop_length=64, power=1.0)
    inner = spec.stft(x)
    cplx = np.stack([inner.real, inner.imag], -1)
    back = A.InverseSpectrogram(length=4000, n_fft=256, hop_length=64)(cplx)
    np.testing.assert_allclose(back, x, atol=1e-9)


def test_melscale_fbanks_htk_and_slaney_closed_forms():
    fb = A.melscale_fbanks(201, 0.0, 8000.0, 10, SR, A.NormType.NONE, A.MelType.HTK)
    assert fb.shape == (201, 10)
    freqs = np.linspace(0, 8000, 201)
    pts = np.linspace(0, 2595 * np.log10(1 + 8000 / 700), 12)
    f_pts = 700 * (10 ** (pts / 2595) - 1)
    np.testing.assert_allclose(fb[:, 3], np.clip(np.minimum((freqs - f_pts[3]) / (f_pts[4] - f_pts[3]),
                                                           (f_pts[5] - freqs) / (f_pts[5] - f_pts[4])), 0, None),
                               rtol=1e-5, atol=1e-6)
    sl = A.melscale_fbanks(201, 0.0, 8000.0, 10, SR, A.NormType.SLANEY, A.MelType.SLANEY)
    # Slaney mel: linear 200/3 Hz per mel below 1 kHz, log step ln(6.4)/27 above
    m_max = 15 + np.log(8000 / 1000) / (np.log(6.4) / 27)
    m_pts = np.linspace(0, m_max, 12)
    f_sl = np.where(m_pts >= 15, 1000 * np.exp(np.log(6.4) / 27 * (m_pts - 15)), 200 / 3 * m_pts)
    area = np.trapezoid(sl, freqs, axis=0) if hasattr(np, "trapezoid") else np.trapz(sl, freqs, axis=0)
    np.testing.assert_allclose(area, 1.0, rtol=0.05)  # Slaney norm: each triangle has unit area
    assert abs(freqs[sl[:, 9].argmax()] - f_sl[10]) <= 40.0


def test_linear_fbanks_and_dct():
    fb = A.linear_fbanks(9, 0.0, 8000.0, 3, SR)
    np.testing.assert_allclose(fb[:, 1], [0, 0, 0, 0.5, 1, 0.5, 0, 0, 0], atol=1e-7)
    d = A.create_dct(13, 40, A.NormMode.ORTHO).astype(np.float64)
    np.testing.assert_allclose(d.T @ d, np.eye(13), atol=1e-6)
    from scipy.fft import dct
    x = np.random.default_rng(1).standard_normal(40)
    np.testing.assert_allclose(x @ d, dct(x, type=2, norm="ortho")[:13], atol=1e-5)
    np.testing.assert_allclose(x @ A.create_dct(13, 40, A.NormMode.NONE), dct(x, type=2)[:13], atol=1e-4)


def test_db_round_trip_and_top_db():
    x = np.array([[1e-3, 0.1, 1.0, 10.0]])
    db = A.AmplitudeToDB(A.ScaleType.POWER, top_db=1000.0)(x)
    np.testing.assert_allclose(db, 10 * np.log10(x))
    np.testing.assert_allclose(A.DBToAmplitude(1.0, 1.0)(db), x, rtol=1e-12)
    mag = A.AmplitudeToDB(A.ScaleType.MAGNITUDE, top_db=30.0)(x)
    np.testing.assert_allclose(mag, np.maximum(20 * np.log10(x), 20 - 30))
    with pytest.raises(RuntimeError, match="AmplitudeToDB"):  # <..., freq, time>: a 1-D input is refused
        A.AmplitudeToDB()(x[0])


def test_mfcc_is_dct_of_db_mel():
    x = _sine(440, 8000) + 0.1 * np.random.default_rng(2).standard_normal(8000)
    mel = A.MelSpectrogram(sample_rate=SR, n_mels=40)(x)
    db = A.AmplitudeToDB()(mel)
    # MindSpore reads every MelSpectrogram setting from melkwargs (a partial dict is a KeyError)
    melkwargs = {"n_fft": 400, "win_length": 400, "hop_length": 200, "f_min": 0.0, "f_max": SR // 2, "pad": 0,
                 "n_mels": 40, "window": A.WindowType.HANN, "power": 2.0, "normalized": False, "center": True,
                 "pad_mode": A.BorderType.REFLECT, "onesided": True, "norm": A.NormType.NONE,
                 "mel_scale": A.MelType.HTK}
    with pytest.raises(KeyError):
        A.MFCC(sample_rate=SR, n_mfcc=13, melkwargs={"n_mels": 40})
    out = A.MFCC(sample_rate=SR, n_mfcc=13, melkwargs=melkwargs)(x)
    from scipy.fft import dct
    np.testing.assert_allclose(out, dct(db, type=2, norm="ortho", axis=0)[:13], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op,design", [
    (A.LowpassBiquad(SR, 1000, 0.707), "lowpass"), (A.HighpassBiquad(SR, 1000, 0.707), "highpass")])
def test_biquad_impulse_matches_butterworth(op, design):
    imp = np.zeros(256)
    imp[0] = 0.5
    b, a = signal.butter(2, 1000 / (SR / 2), btype=design[:-4] if design == "highpass" else "low")
    ref = signal.lfilter(b, a, imp)
    np.testing.assert_allclose(op(imp), ref, atol=2e-4)  # Q = 0.707 ~ 1/sqrt(2)


def test_rbj_biquads_vs_lfilter_and_gains():
    imp = np.zeros(128)
    imp[0] = 0.25
    w0 = 2 * np.pi * 1000 / SR
    alpha = np.sin(w0) / 2 / 0.5
    b, a = [alpha, 0, -alpha], [1 + alpha, -2 * np.cos(w0), 1 - alpha]
    np.testing.assert_allclose(A.BandpassBiquad(SR, 1000, 0.5)(imp), signal.lfilter(b, a, imp), atol=1e-12)
    ref = np.clip(signal.lfilter([1, 0.3, 0.1], [2, -0.4, 0.2], imp), -1, 1)
    np.testing.assert_allclose(A.Biquad(1, 0.3, 0.1, 2, -0.4, 0.2)(imp), ref, atol=1e-12)
    np.testing.assert_allclose(A.LFilter([2, -0.4, 0.2], [1, 0.3, 0.1])(imp), ref, atol=1e-12)
    # all-pass keeps the energy; equalizer at 0 dB is the identity
    long = np.zeros(4000)
    long[0] = 0.5
    np.testing.assert_allclose(np.sum(A.AllpassBiquad(SR, 1000, 0.7)(long) ** 2), 0.25, rtol=1e-6)
    np.testing.assert_allclose(A.EqualizerBiquad(SR, 1000, 0.0)(imp), imp, atol=1e-12)
    # RIAA is normalized to unit gain at 1 kHz
    b, a = A.RiaaBiquad(44100).coeffs()
    _, h = signal.freqz(b, a, worN=[1000.0], fs=44100)
    np.testing.assert_allclose(abs(h[0]), 1.0, rtol=1e-9)
    x = _sine(300, 100, 0.2)
    np.testing.assert_allclose(A.Gain(6.0)(x), x * 10 ** 0.3, rtol=1e-12)
    np.testing.assert_allclose(A.Vol(4.0, A.GainType.POWER)(x), np.clip(2 * x, -1, 1), rtol=1e-12)
    np.testing.assert_allclose(A.Vol(10.0)(x), np.clip(10 * x, -1, 1))


def test_filtfilt_zero_phase_and_mulaw_round_trip():
    x = _sine(200, 2000, 0.4)
    y = A.Filtfilt([1.0, -0.8], [0.2, 0.0], clamp=False)(x)
    ref = signal.lfilter([0.2, 0.0], [1.0, -0.8], signal.lfilter([0.2, 0.0], [1.0, -0.8], x)[::-1])[::-1]
    np.testing.assert_allclose(y, ref, atol=1e-12)
    # zero phase: away from the edges it agrees with scipy's filtfilt
    np.testing.assert_allclose(y[100:1800], signal.filtfilt([0.2, 0.0], [1.0, -0.8], x, padtype=None)[100:1800],
                               atol=1e-6)
    enc = A.MuLawEncoding(256)(x)
    assert enc.dtype == np.int32 and enc.min() >= 0 and enc.max() <= 255
    np.testing.assert_allclose(A.MuLawDecoding(256)(enc), x, atol=0.02)


def test_fade_shapes():
    x = np.ones(11)
    np.testing.assert_allclose(A.Fade(11, 0)(x), np.linspace(0, 1, 11))
    np.testing.assert_allclose(A.Fade(0, 5, A.FadeShape.QUARTER_SINE)(x)[-5:], np.cos(np.linspace(0, 1, 5) * np.pi / 2),
                               atol=1e-12)


def test_resample_sine_and_time_stretch_lengths():
    x = _sine(440, SR)
    y = A.Resample(SR, 8000)(x)
    assert y.shape == (8000,)
    ref = _sine(440, 16000)[::2]
    np.testing.assert_allclose(y[200:-200], ref[200:-200], atol=5e-3)
    z = A.Spectrogram(n_fft=400, power=1.0)
    c = z.stft(x)
    cplx = np.stack([c.real, c.imag], -1)
    out = A.TimeStretch(hop_length=200, n_freq=201, fixed_rate=2.0)(cplx)
    assert out.shape == (201, math.ceil(c.shape[1] / 2), 2)
    np.testing.assert_allclose(A.TimeStretch(200, 201, 1.0)(cplx)[0, ..., 0, :], cplx[..., 0, :], atol=1e-6)
    # MindSpore 2.10 returns a rate-1 <freq, time, 2> input with a leading 1 (other rates keep the rank)
    small = np.arange(24, dtype=np.float32).reshape(3, 4, 2) / 10
    assert A.TimeStretch(1, 3, 1.0)(small).shape == (1, 3, 4, 2)
    np.testing.assert_array_equal(A.TimeStretch(1, 3, 1.0)(small)[0], small)
    assert A.TimeStretch(1, 3, 1.3)(small).shape == (3, 4, 2)


def test_griffin_lim_reconstructs_magnitude():
    x = _sine(500, 4000)
    spec = A.Spectrogram(n_fft=256, power=2.0)(x)
    errs = []
    for n_iter in (1, 32):
        y = A.GriffinLim(n_fft=256, n_iter=n_iter, length=4000, rand_init=False)(spec)
        spec2 = A.Spectrogram(n_fft=256, power=2.0)(y)
        errs.append(np.linalg.norm(spec2 - spec) / np.linalg.norm(spec))
    assert errs[1] < 0.1 and errs[1] < 0.6 * errs[0]


def test_masks_deltas_cmn_and_complex():
    s = np.arange(60, dtype=np.float64).reshape(6, 10)
    m = A.TimeMasking(False, 3, 2, 7.0)(s)
    assert (m[:, 2:5] == 7).all() and (m[:, :2] == s[:, :2]).all()
    f = A.FrequencyMasking(False, 2, 1)(s)
    assert (f[1:3] == 0).all() and (f[3:] == s[3:]).all()
    d = A.ComputeDeltas(5)(s)
    np.testing.assert_allclose(d[:, 2:-2], 1.0)  # a ramp has delta 1
    feats = np.random.default_rng(3).standard_normal((30, 4))
    out = A.SlidingWindowCmn(cmn_window=600, min_cmn_window=100)(feats)
    np.testing.assert_allclose(out, feats - feats.mean(0), atol=1e-12)
    z = np.array([[3.0, 4.0], [0.0, -2.0]])
    np.testing.assert_allclose(A.ComplexNorm(2.0)(z), [25.0, 4.0])
    np.testing.assert_allclose(A.Angle()(z), [math.atan2(4, 3), -math.pi / 2])
    mag, ph = A.Magphase(1.0)(z)
    np.testing.assert_allclose(mag, [5.0, 2.0])


def test_pitch_shift_octave_moves_peak():
    x = _sine(500, 8000)
    y = A.PitchShift(SR, 12)(x)
    assert y.shape == x.shape
    spec = np.abs(np.fft.rfft(y[1000:7000]))
    freq = np.fft.rfftfreq(6000, 1 / SR)[spec.argmax()]
    assert abs(freq - 1000) < 20


def test_spectral_centroid_of_sine():
    c = A.SpectralCentroid(SR, n_fft=400)(_sine(2000, 4000))
    np.testing.assert_allclose(c[0, 2:-2], 2000, rtol=0.02)


def test_in_pipeline_and_errors():
    data = np.stack([_sine(1000, 4000), _sine(2000, 4000)]).astype(np.float32)
    d = ds.NumpySlicesDataset({"a": data}, shuffle=False).map(
        [A.Spectrogram(n_fft=400), A.AmplitudeToDB()], input_columns="a")
    rows = [r[0] for r in d.create_tuple_iterator(output_numpy=True)]
    np.testing.assert_allclose(rows[1], A.AmplitudeToDB()(A.Spectrogram(n_fft=400)(data[1])), rtol=1e-5)
    assert rows[0][:, 5].argmax() == 25 and rows[1][:, 5].argmax() == 50
    with pytest.raises(TypeError, match="Argument window with value hann is not of type"):
        A.Spectrogram(window="hann")
    with pytest.raises(ValueError, match=r"Input Q is not within the required interval of \(0, 1\]"):
        A.LowpassBiquad(SR, 1000, Q=2.0)
    with pytest.raises(RuntimeError, match="ComplexNorm: .*complex=2"):
        A.ComplexNorm()(np.ones((3, 3)))


def test_inverse_mel_scale_recovers_a_consistent_stft():
    rng = np.random.default_rng(0)
    fb = A.melscale_fbanks(33, 0.0, 8000.0, 8, SR).astype(np.float64)
    mel = (rng.random((33, 10)).T @ fb).T
    est = A.InverseMelScale(33, n_mels=8, sample_rate=SR)(mel)
    assert est.shape == (33, 10) and (est >= 0).all()
    np.testing.assert_allclose((est.T @ fb).T, mel, atol=0.02 * np.abs(mel).max())
    with pytest.raises(ValueError, match="InverseMelScale: sgdargs"):
        A.InverseMelScale(33, sgdargs={"lr": 0.1})


def test_contrast_dcshift_closed_forms():
    x = np.linspace(-1, 1, 21)
    np.testing.assert_allclose(A.Contrast(75.0)(x), np.sin(x * np.pi / 2 + 0.1 * np.sin(x * 2 * np.pi)), atol=1e-12)
    np.testing.assert_allclose(A.DCShift(0.25)(x), np.clip(x + 0.25, -1, 1), atol=1e-12)
    # de-emphasis attenuates treble: ~-9.5 dB shelf at 44.1 kHz, 0 dB at DC
    b, a = A.DeemphBiquad(44100).coeffs()
    _, h = signal.freqz(b, a, worN=[0.0, 20000.0], fs=44100)
    np.testing.assert_allclose(20 * np.log10(abs(h)), [0.0, -9.477], atol=0.6)


def test_flanger_zero_width_is_identity_and_delays_with_depth():
    x = _sine(300, 2000, 0.3)[None, :]
    np.testing.assert_allclose(A.Flanger(SR, width=0.0)(x), x, atol=1e-12)
    y = A.Flanger(SR, delay=1.0, depth=0.0, width=100.0)(x)
    # constant 1 ms delay (16 samples), equal mix: y[n] = (x[n] + x[n - 16]) / 2
    np.testing.assert_allclose(y[0, 32:], (x[0, 32:] + x[0, 16:-16]) / 2, atol=1e-9)
    with pytest.raises(ValueError, match=r"^Input delay is not within the required interval of \[0, 30\]"):
        A.Flanger(SR, delay=40.0)


def test_dither_quantizes_to_16_bits():
    x = _sine(300, 1000, 0.3)
    for df in A.DensityFunction:
        y = A.Dither(df)(x)
        np.testing.assert_allclose(y * 2 ** 15, np.round(y * 2 ** 15), atol=1e-9)
        assert np.abs(y - x).max() < 3e-4
    tp = A.Dither()(x)
    ref = np.round(x * 32766 + np.bartlett(1001)[:-1]) / 32768
    np.testing.assert_allclose(tp, ref, atol=1e-12)


def test_phaser_without_decay_is_a_gain_and_lfo_table():
    x = _sine(300, 3000, 0.3)
    np.testing.assert_allclose(A.Phaser(SR, gain_in=0.5, gain_out=0.8, decay=0.0)(x), x * 0.4, atol=1e-12)
    y = A.Phaser(SR, decay=0.5)(x)
    assert y.shape == x.shape and not np.allclose(y, x * 0.4 * 0.74)
    from mindseed.dataset.audio._effects import wave_table
    t = wave_table(True, 8, 0.0, 1.0, 0.0)
    np.testing.assert_allclose(t, (np.sin(np.arange(8) / 8 * 2 * np.pi) + 1) / 2, atol=1e-12)
    tri = wave_table(False, 8, 0.0, 1.0, 0.0)
    np.testing.assert_allclose(tri, [0.5, 0.75, 1.0, 0.75, 0.5, 0.25, 0.0, 0.25], atol=1e-12)
    with pytest.raises(ValueError, match=r"^Input decay is not within the required interval of \[0, 0.99\]"):
        A.Phaser(SR, decay=1.5)


def test_amplitude_to_db_floors_each_spectrogram_below_its_own_maximum():
    from mindseed.dataset.audio import AmplitudeToDB
    x = np.array([[[[1.0, 1e-9]]], [[[1e-4, 1e-12]]]], np.float32)  # two <channel, freq, time> spectrograms
    out = AmplitudeToDB(top_db=30.0)(x)
    # 10*log10: [0, -90] floored at 0-30; [-40, -120] floored at -40-30 (not at the overall maximum's -30)
    np.testing.assert_allclose(out.reshape(2, 2), [[0.0, -30.0], [-40.0, -70.0]], atol=1e-4)
    np.testing.assert_allclose(AmplitudeToDB(top_db=30.0)(x[1, 0]), [[-40.0, -70.0]], atol=1e-4)


def test_output_dtypes_as_mindspore():
    # oracle (MindSpore 2.10): MuLawDecoding keeps float64 (float32 otherwise), MFCC / LFCC always give float32
    rs = np.random.RandomState(0)
    codes = rs.randint(0, 256, (3, 4))
    for dt, want in ((np.float64, np.float64), (np.float32, np.float32), (np.int32, np.float32),
                     (np.float16, np.float32)):
        out = A.MuLawDecoding()(codes.astype(dt))
        assert out.dtype == want, (dt, out.dtype)
        mu = 255.0
        y = codes / mu * 2 - 1
        np.testing.assert_allclose(out, np.sign(y) * np.expm1(np.abs(y) * np.log1p(mu)) / mu, rtol=1e-6, atol=1e-7)
    wave = rs.random_sample(500)
    for dt in (np.float64, np.float32, np.int32):
        m = A.MFCC(4000, 128, 2)(wave.astype(dt))
        assert m.shape == (128, 3) and m.dtype == np.float32
        lf = A.LFCC()(np.stack([wave[:400], wave[100:]]).astype(dt))
        assert lf.shape == (2, 40, 3) and lf.dtype == np.float32
    np.testing.assert_allclose(A.MFCC(4000, 128, 2)(wave), A.MFCC(4000, 128, 2)(wave.astype(np.float32)), rtol=1e-4,
                               atol=1e-3)


def test_iid_masks_of_width_zero_may_start_at_the_end():
    # MindSpore draws width in [0, param] then start in [0, size - width]: start == size with width 0 is no error
    x = np.ones((2, 3, 4))
    ds.config.set_seed(5)
    widths = set()
    for _ in range(200):
        out = A.MaskAlongAxisIID(1, 0.0, 1)(x)
        masked_rows = int((out[0, :, 0] == 0).sum())
        widths.add(masked_rows)
        assert masked_rows <= 1 and (out == 0).sum() == masked_rows * 2 * 4
        assert A.FrequencyMasking(iid_masks=True, freq_mask_param=1)(x).shape == (2, 3, 4)
    assert widths == {0, 1}
    with pytest.raises(RuntimeError, match="the sum of 'mask_start' and 'mask_width' should be no more than"):
        A.MaskAlongAxis(3, 1, 0.0, 1)(x)
    np.testing.assert_array_equal(A.MaskAlongAxis(2, 1, 0.0, 1)(x)[:, 2], 0)


def test_resample_short_signal_coprime_rates_fast_and_as_mindspore():
    # 20158 -> 16000 Hz (PitchShift's resampling for 4 semitones) has a 8000 x 10095 filter bank: a short signal
    # builds only the rows it needs. Values recorded from MindSpore 2.10.
    import time
    x = np.sin(np.arange(40) * 0.3).reshape(1, 40)
    t0 = time.perf_counter()
    y = A.Resample(20158, 16000)(x)
    p = A.PitchShift(16000, 4)(np.cos(np.arange(60) * 0.2).reshape(2, 30))
    assert time.perf_counter() - t0 < 5.0
    assert y.shape == (1, 32) and p.shape == (2, 30) and p.dtype == np.float64
    np.testing.assert_allclose(y[0, :6], [0.017487, 0.365097, 0.687888, 0.904861, 0.998635, 0.949181], atol=2e-6)
    np.testing.assert_allclose(y[0, -3:], [-0.984388, -0.972856, -0.658669], atol=2e-6)
    np.testing.assert_allclose(p[0, :5], [0.690135, 0.767339, 0.647273, 0.547452, 0.387276], atol=2e-6)


def test_overdrive_mixes_dry_signal_and_dc_blocked_drive_as_mindspore():
    # SoX / MindSpore: out = 0.5 * x + 0.75 * last_out, last_out the DC-blocked soft-clipped drive (oracle values)
    x = np.array([[0.0, 0.1, -0.1, 0.02, -0.03, 0.5]], np.float32)
    out = A.Overdrive()(x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [[0.07475, 0.549626, -0.545622, 0.227856, -0.164483, 0.749264]], atol=2e-6)
    out = A.Overdrive(5.0, 10.0)(x.astype(np.float64))
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, [[0.037469, 0.217727, -0.146375, 0.073473, -0.018373, 0.746434]], atol=2e-6)


def test_iir_filters_keep_float16_and_refuse_integers_as_mindspore():
    rs = np.random.RandomState(3)
    w = (rs.random_sample((2, 64)) * 2 - 1) * 0.5
    for op in (A.Biquad(0.01, 0.02, 0.13, 1, 0.12, 0.3), A.LowpassBiquad(4000, 1500, 0.7),
               A.LFilter([1.0, -0.2], [0.5, 0.5]), A.Filtfilt([1.0, -0.2], [0.5, 0.5]), A.DeemphBiquad(44100)):
        ref = op(w)
        half = op(w.astype(np.float16))
        assert ref.dtype == np.float64 and half.dtype == np.float16 and op(w.astype(np.float32)).dtype == np.float32
        np.testing.assert_allclose(half.astype(np.float64), ref, atol=2e-3)
        with pytest.raises(RuntimeError, match=r"the data type of input tensor does not match the requirement of "
                                               r"operator. Expecting tensor in type of \[float, double\]. But got "
                                               r"type int32."):
            op(np.ones((2, 8), np.int32))
    x = np.ones((2, 1, 16))
    for dt in (np.float16, np.int32, np.uint8, np.float32):
        assert A.Flanger(44100)(x.astype(dt)).dtype == dt


def test_inverse_spectrogram_lengths_pad_and_checks_as_mindspore():
    # oracle (MindSpore 2.10) values on a (freq 20, frames 6) spectrogram, n_fft 38 (hop 19)
    z = np.random.RandomState(0).random_sample((20, 6, 2))
    out = A.InverseSpectrogram(n_fft=38)(z)
    assert out.shape == (95,) and out.dtype == np.float64
    np.testing.assert_allclose(out[:3], [0.0687, -0.0149, -0.0748], atol=1e-4)
    # center=False: still (frames - 1) * hop samples, taken from the start
    out = A.InverseSpectrogram(n_fft=38, center=False)(z)
    assert out.shape == (95,)
    np.testing.assert_allclose(out[:3], [0.0, -41.0797, -1.2232], atol=1e-4)
    np.testing.assert_allclose(out[-3:], [0.008, -0.0527, 0.0506], atol=1e-4)
    assert A.InverseSpectrogram(n_fft=38, center=False, hop_length=7)(z).shape == (35,)
    # pad is removed from a given length, and the result is float32
    out = A.InverseSpectrogram(n_fft=38, pad=2, length=50)(z)
    assert out.shape == (50,) and out.dtype == np.float32
    np.testing.assert_allclose(out[:3], [-0.0748, -0.0704, 0.0106], atol=1e-4)
    with pytest.raises(RuntimeError, match="Cannot reshape, Number of elements do not match"):
        A.InverseSpectrogram(n_fft=38, pad=3)(z)
    with pytest.raises(RuntimeError, match=r"the frequency of the input should equal to n_fft / 2 \+ 1"):
        A.InverseSpectrogram(n_fft=39)(z)


def test_mu_law_decoding_computes_in_float32_bit_exact():
    # oracle values (MindSpore 2.10): non-float64 input is decoded in float32 arithmetic
    want = np.array([[-0.6459359526634216, -0.009046762250363827, -0.04388953000307083, 0.08788024634122849]])
    for dt in (np.float32, np.int32, np.float16):
        out = A.MuLawDecoding()(np.array([[10, 100, 70, 200]], dt))
        assert out.dtype == np.float32
        assert np.array_equal(out, want)
