"""The audio ops' argument checks (MindSpore's validator layer: messages and types) and the run-time checks
and outputs that came with them; messages and values as MindSpore 2.10 gives them."""
import numpy as np
import pytest

from mindseed.dataset import audio as A
from mindseed.dataset import _validate as V


@pytest.mark.parametrize("make,exc,msg", [
    (lambda: A.Vol(-1.5, A.GainType.POWER), ValueError, "Input gain is not within the required interval of "
                                                        "(0, 16777216]."),
    (lambda: A.Overdrive(100.23), ValueError, "Input gain is not within the required interval of [0, 100]."),
    (lambda: A.Phaser(44100, sinusoidal="True"), TypeError, "Argument sinusoidal with value True is not of type "
                                                            "[<class 'bool'>], but got <class 'str'>."),
    (lambda: A.Flanger(44100.5), TypeError, "Argument sample_rate with value 44100.5 is not of type "
                                            "[<class 'int'>], but got <class 'float'>."),
    (lambda: A.Flanger(0), ValueError, "Input sample_rate is not within the required interval of "
                                       "[-2147483648, 0) and (0, 2147483647]."),
    (lambda: A.PitchShift(16, 4, bins_per_octave="s"), TypeError,
     "Argument bins_per_octave  with value s is not of type [<class 'int'>], but got <class 'str'>."),
    (lambda: A.SpectralCentroid(sample_rate=-1), ValueError,
     "Input sample_rate is not within the required interval of [0, 2147483647]."),
    (lambda: A.Spectrogram(win_length=300, n_fft=200), ValueError,
     "Input win_length should be no more than n_fft, but got win_length: 300 and n_fft: 200."),
    (lambda: A.Spectrogram(n_fft=False), TypeError, "Argument n_fft with value False is not of type "
                                                    "(<class 'int'>,), but got <class 'bool'>."),
    (lambda: A.Fade(-1, 0), ValueError, "Input fade_in_len is not within the required interval of [0, 2147483647]."),
    (lambda: A.DCShift(2.5), ValueError, "Input shift is not within the required interval of [-2.0, 2.0]."),
    (lambda: A.MelScale(f_min=1000.0, f_max=1000.0), ValueError, "MelScale: f_max should be greater than f_min."),
    (lambda: A.MuLawDecoding(-3), ValueError,
     "Input quantization_channels is not within the required interval of [1, 2147483647]."),
    (lambda: A.ComplexNorm(-3.), ValueError, "Input power is not within the required interval of [0, 16777216]."),
    (lambda: A.TimeMasking(True, 2, -10), ValueError,
     "Input mask_start is not within the required interval of [0, 16777216]."),
    (lambda: A.MaskAlongAxis(0, 10, 1.0, 1.0), TypeError,
     "Argument axis with value 1.0 is not of type [<class 'int'>], but got <class 'float'>."),
    (lambda: A.PhaseVocoder(2, None), TypeError, "Argument phase_advance with value None is not of type "
                                                 "[<class 'numpy.ndarray'>], but got <class 'NoneType'>."),
    (lambda: A.AmplitudeToDB(top_db=None), TypeError, "Argument top_db with value None is not of type "
                                                      "[<class 'int'>, <class 'float'>], but got <class 'NoneType'>."),
    (lambda: A.LFCC(sample_rate=-1), ValueError,
     "Input sample_rate is not within the required interval of [0, 2147483647]."),
    (lambda: A.create_dct(100.5, 200), TypeError,
     "n_mfcc with value 100.5 is not of type <class 'int'>, but got <class 'float'>."),
    (lambda: A.melscale_fbanks(99999999999, 0, 50, 5, 100), ValueError,
     "Input n_freqs is not within the required interval of [0, 2147483647]."),
    (lambda: A.linear_fbanks(10, 60, 50, 5, 100), ValueError,
     "Input f_min should be no more than f_max, but got f_min: 60 and f_max: 50."),
])
def test_argument_checks_in_mindspore_words(make, exc, msg):
    with pytest.raises(exc) as info:
        make()
    assert str(info.value) == msg


_BIG = 441324343243242342345300


@pytest.mark.parametrize("make,exc,msg", [
    (lambda: A.Gain("1.0"), TypeError, "Argument gain_db with value 1.0 is not of type [<class 'float'>, "
                                       "<class 'int'>], but got <class 'str'>."),
    (lambda: A.Gain(_BIG), ValueError, "Input gain_db is not within the required interval of [-16777216, 16777216]."),
    (lambda: A.Contrast(-1), ValueError, "Input enhancement_amount is not within the required interval of [0, 100]."),
    (lambda: A.Biquad(0.01, 0.02, 0.13, 0, 0.12, 0.3), ValueError,
     "Input a0 is not within the required interval of [-16777216, 0) and (0, 16777216]."),
    (lambda: A.Biquad(0.01, _BIG, 0.13, 1, 0.12, 0.3), ValueError,
     "Input b1 is not within the required interval of [-16777216, 16777216]."),
    (lambda: A.DBToAmplitude(1.0, "1.0"), TypeError, "Argument power with value 1.0 is not of type [<class 'float'>, "
                                                     "<class 'int'>], but got <class 'str'>."),
    (lambda: A.BandBiquad(44100, 200.0, 0.707, "1"), TypeError,
     "Argument noise with value 1 is not of type [<class 'bool'>], but got <class 'str'>."),
    (lambda: A.BandpassBiquad(44100, _BIG, 0.707), ValueError,
     "Input central_freq is not within the required interval of [-16777216, 16777216]."),
    (lambda: A.EqualizerBiquad(44100, "1000", 5.5), TypeError, "Argument central_freq with value 1000 is not of "
                                                               "type [<class 'float'>, <class 'int'>], but got "
                                                               "<class 'str'>."),
    (lambda: A.EqualizerBiquad(None, 1000, 5.5), TypeError, "Argument sample_rate with value None is not of type "
                                                            "[<class 'int'>], but got <class 'NoneType'>."),
    (lambda: A.HighpassBiquad(44100, 1000, 0), ValueError, "Input Q is not within the required interval of (0, 1]."),
    (lambda: A.LFilter([_BIG, 0.2], [0.1, 0.2]), ValueError,
     "Input a_coeffs[0] is not within the required interval of [-16777216, 16777216]."),
    (lambda: A.LFilter([0.1, 0.2], [0.1, 0.2], 1), TypeError,
     "Argument clamp with value 1 is not of type [<class 'bool'>], but got <class 'int'>."),
    (lambda: A.DeemphBiquad(44100.5), TypeError, "Argument sample_rate with value 44100.5 is not of type "
                                                 "[<class 'int'>], but got <class 'float'>."),
    (lambda: A.DeemphBiquad(45000), ValueError, "Argument sample_rate should be 44100 or 48000, but got 45000."),
    (lambda: A.SlidingWindowCmn(600, 100, "False"), TypeError,
     "Argument center with value False is not of type [<class 'bool'>], but got <class 'str'>."),
    (lambda: A.SlidingWindowCmn(_BIG), ValueError,
     "Input cmn_window is not within the required interval of [0, 2147483647]."),
    (lambda: A.DetectPitchFrequency(44100, 0.01, 30, "85"), TypeError,
     "Argument freq_low with value 85 is not of type [<class 'int'>, <class 'float'>], but got <class 'str'>."),
    (lambda: A.DetectPitchFrequency(0), ValueError,
     "Input sample_rate is not within the required interval of [-2147483648, 0) and (0, 2147483647]."),
])
def test_filter_and_effect_argument_checks_in_mindspore_words(make, exc, msg):
    with pytest.raises(exc) as info:
        make()
    assert str(info.value) == msg


def test_checked_filters_still_filter():
    x = np.array([[0.5, -0.25, 0.125, 1.0]], np.float32)
    # Biquad with b = (1, 0, 0), a = (2, 0, 0) halves the signal
    np.testing.assert_allclose(A.Biquad(1, 0, 0, 2, 0, 0)(x), x / 2, rtol=1e-6)
    np.testing.assert_allclose(A.Gain(20.0)(x), x * 10, rtol=1e-6)
    np.testing.assert_allclose(A.DBToAmplitude(2, 1)(np.array([10.0])), [20.0], rtol=1e-12)
    # y[n] = x[n] - 0.5 y[n-1]
    np.testing.assert_allclose(A.LFilter([1.0, 0.5], [1.0, 0.0], clamp=False)(np.array([1.0, 0.0, 0.0])),
                               [1.0, -0.5, 0.25], rtol=1e-12)


def test_checks_see_arguments_in_signature_order():
    # FrequencyMasking's second parameter is checked under MindSpore's shared name mask_param
    with pytest.raises(TypeError, match="Argument mask_param with value 1.5"):
        A.FrequencyMasking(False, 1.5)
    assert V.parse_user_args(A.Fade.__init__.__wrapped__, 3, fade_shape=A.FadeShape.LINEAR) == \
        [3, 0, A.FadeShape.LINEAR]


def test_mfcc_fills_melkwargs_in_place():
    kw = {"n_fft": 16, "win_length": 16, "hop_length": 8, "f_min": 0.0, "f_max": 4000.0, "pad": 0, "n_mels": 8,
          "window": A.WindowType.HANN, "power": 2.0, "normalized": False, "center": True,
          "pad_mode": A.BorderType.REFLECT, "onesided": True, "norm": A.NormType.NONE, "mel_scale": A.MelType.HTK}
    A.MFCC(n_mfcc=4, melkwargs=kw)
    assert A.MFCC(n_mfcc=4).melkwargs["f_max"] == 8000 and len(kw) == 15


def test_complex_ops_check_input_and_norm():
    x = np.array([[1.0, 1.0], [2.0, 3.0], [4.0, 4.0]])
    np.testing.assert_array_equal(A.ComplexNorm()(x), [1.4142135623730951, 3.605551275463989, 5.656854249492381])
    np.testing.assert_array_equal(A.ComplexNorm(3.0)(x), [2.8284271247461903, 46.87216658103186, 181.01933598375618])
    with pytest.raises(RuntimeError, match=r"Magphase: the shape of input tensor does not match the requirement of "
                                           r"operator. Expecting tensor in shape of <..., complex=2>."):
        A.Magphase()(np.array([1.0, 2.0, 3.0, 4.0]))
    with pytest.raises(RuntimeError, match=r"Angle: the data type of input tensor does not match the requirement of "
                                           r"operator. Expecting tensor in type of \[int, float, double\]. But got "
                                           r"type string."):
        A.Angle()(np.array(["1", "2"]))


def test_masking_and_phase_vocoder_run_time_checks():
    s = np.zeros((4, 4), np.float32)
    with pytest.raises(RuntimeError, match="'mask_start' should be less than the length of the masked dimension, "
                                           "but got: 'mask_start' 100 and length 4"):
        A.FrequencyMasking(False, 2, 100)(s)
    with pytest.raises(RuntimeError, match="TimeMasking: invalid parameter, 'time_mask_param' should be less than or "
                                           "equal to the length of time dimension"):
        A.TimeMasking(False, 200, 2)(s)
    spec = np.random.default_rng(0).standard_normal((2, 4, 5, 2)).astype(np.float32)
    with pytest.raises(RuntimeError, match="'phase_advance' should be in shape of <freq, 1>."):
        A.PhaseVocoder(1.1, np.zeros(4))(spec)
    with pytest.raises(RuntimeError, match="data type of phase_advance should be equal to data type of input tensor, "
                                           "but got: data type of phase_advance float64 while data type of input "
                                           "tensor float32."):
        A.PhaseVocoder(2, np.zeros((4, 1)))(spec)
    assert A.PhaseVocoder(2, np.zeros((4, 1), np.float32))(spec).shape == (2, 4, 3, 2)


def test_spectrogram_power_zero_is_the_complex_stft():
    wav = np.array([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 4, 4, 3, 3, 2, 2], dtype=np.float64)
    out = A.Spectrogram(n_fft=8, power=0)(wav)
    mag = A.Spectrogram(n_fft=8, power=1)(wav)
    assert out.shape == mag.shape + (2,)
    np.testing.assert_allclose(np.hypot(out[..., 0], out[..., 1]), mag, rtol=1e-12)
    # frame 0 (reflect-padded, Hann window): the DC bin is the windowed sum
    frame = np.pad(wav, 4, mode="reflect")[:8] * np.hanning(9)[:-1]
    np.testing.assert_allclose(out[0, 0], [frame.sum(), 0.0], atol=1e-12)
    with pytest.raises(RuntimeError, match="Spectrogram: n_fft should be more than 0 and less than 30, but got "
                                           "n_fft: 100."):
        A.Spectrogram(n_fft=100, center=False)(np.zeros(30, np.float32))
