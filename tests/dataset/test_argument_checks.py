"""Dataset sources, samplers, transforms and vision/text/audio ops refuse bad arguments at construction with
MindSpore's exception types and messages (the fuzz suite's dataset findings, issue 26)."""
import math

import numpy as np
import pytest

import mindseed.dataset as ds
from mindseed.dataset import audio, text, transforms, vision

RAGGED = [[1], [2, 3]]


@pytest.mark.parametrize("make, exc, words", [
    # MindSpore's own messages, word for word (checked against MindSpore 2.10)
    (lambda: audio.TrebleBiquad(0, 0.2), ValueError,
     "Input sample_rate is not within the required interval of [-2147483648, 0) and (0, 2147483647]."),
    (lambda: audio.EqualizerBiquad(44100, 1500, 32434324324234321), ValueError,
     "Input gain is not within the required interval of [-16777216, 16777216]."),
    (lambda: audio.LowpassBiquad(44100, 32434324324234321), ValueError,
     "Input cutoff_freq is not within the required interval of [-16777216, 16777216]."),
    (lambda: audio.HighpassBiquad(44100, 3000, 0), ValueError,
     "Input Q is not within the required interval of (0, 1]."),
    (lambda: audio.TrebleBiquad(44100, 0.2, None), TypeError,
     "Argument central_freq with value None is not of type [<class 'float'>, <class 'int'>], but got "
     "<class 'NoneType'>."),
    (lambda: audio.ComputeDeltas(win_length="test"), TypeError,
     "Argument win_length with value test is not of type [<class 'int'>], but got <class 'str'>."),
    (lambda: audio.ComputeDeltas(win_length=2), ValueError,
     "Input win_length is not within the required interval of [3, 2147483647]"),
    (lambda: audio.MelScale(10 ** 12), ValueError, "Input n_mels is not within the required interval of [1, 21474"),
    (lambda: audio.MelScale(10, 1 + 2j), TypeError, "sample_rate with value (1+2j) is not of type [<class 'int'>]"),
    (lambda: audio.MelScale(10, 16000, 1 + 2j), TypeError, "Argument f_min with value (1+2j) is not of type"),
    (lambda: audio.LFCC(16000, 128, {}), TypeError, "Argument n_lfcc with value {} is not of type [<class 'int'>]"),
    (lambda: audio.InverseMelScale(10 ** 12), ValueError, "Input n_stft is not within the required interval"),
    (lambda: audio.MFCC(1 + 2j), TypeError, "Argument sample_rate with value (1+2j)"),
    (lambda: audio.LFilter(True, [1, 2]), TypeError, "a_coeffs with value True is not of type [<class 'list'>"),
    (lambda: audio.LFilter([1, "a"], [1, 2]), TypeError,
     "Argument a_coeffs[1] with value a is not of type [<class 'float'>"),
    (lambda: audio.AllpassBiquad(math.inf, 200), TypeError, "Argument sample_rate with value inf is not of type"),
    (lambda: audio.RiaaBiquad({}), TypeError, "Argument sample_rate with value {} is not of type [<class 'int'>]"),
    (lambda: text.RegexReplace(True, "a"), TypeError, "pattern with value True is not of type [<class 'str'>]"),
    (lambda: text.RegexReplace("a", 3), TypeError, "Argument replace with value 3"),
    (lambda: vision.RandAugment(None), TypeError, "Argument num_ops with value None is not of type [<class 'int'>]"),
    (lambda: vision.RandAugment(2, "abc"), TypeError, "Argument magnitude with value abc"),
    (lambda: vision.TrivialAugmentWide(1 + 2j), TypeError, "Argument num_magnitude_bins with value (1+2j)"),
    (lambda: vision.MixUpBatch(None), TypeError, "Argument alpha with value None is not of type"),
    (lambda: vision.RandomPerspective("abc"), TypeError, "Argument distortion_scale with value abc"),
    (lambda: vision.Affine(None, [0, 0], 1.0, [0, 0]), TypeError, "Argument degrees with value None is not of type"),
    (lambda: vision.Pad(RAGGED), TypeError, "Argument padding[0] with value [1] is not of type [<class 'int'>]"),
    (lambda: vision.Crop(RAGGED, 2), TypeError, "Argument coordinates[0] with value [1] is not of type"),
    (lambda: vision.RandomPosterize(2.5), TypeError, "Argument bits with value 2.5 is not of type"),
    (lambda: vision.RandomSolarize(5), TypeError, "Argument threshold with value 5 is not of type [<class 'tuple'>]"),
    (lambda: vision.GaussianBlur(2.5), TypeError, "Argument kernel_size with value 2.5"),
    (lambda: vision.PadToSize([2, 3], offset=2.5), TypeError, "Argument offset with value 2.5"),
    # mindseed's words where MindSpore's own check is missing or reads differently
    (lambda: vision.RandomPosterize(()), TypeError, "Argument bits with value () should be a list or tuple of"),
    (lambda: vision.LinearTransformation("abc", [1]), TypeError, "Argument transformation_matrix with value 'abc' "
                                                                 "cannot be read as an array"),
    (lambda: vision.RandomSelectSubpolicy([[1], [2, 3]]), TypeError, "each sub-policy should be a list of"),
    (lambda: vision.encode_jpeg(RAGGED), TypeError, "Argument image with value [[1], [2, 3]] cannot be read"),
    (lambda: vision.get_image_size(RAGGED), TypeError, "Argument image with value"),
    (lambda: vision.write_file("x.bin", RAGGED), TypeError, "Argument data with value"),
    (lambda: text.Ngram(1 + 2j), ValueError, "n needs to be a non-empty list of positive integers."),
    (lambda: text.Ngram(2, ("", "a")), ValueError, "left_pad needs to be a tuple of (str, int)"),
    (lambda: text.RegexReplace("(", "a"), ValueError, "RegexReplace: the argument pattern '(' is not a valid regular"),
    (lambda: text.RegexTokenizer("a", "["), ValueError, "RegexTokenizer: the argument keep_delim_pattern '['"),
    (lambda: transforms.not_random(5), TypeError, "not_random: the argument 'function' must be a callable"),
    (lambda: transforms.Concatenate(0, RAGGED), TypeError,
     "Argument prepend with value [[1], [2, 3]] is not of type [<class 'numpy.ndarray'>]"),
    (lambda: ds.WeightedRandomSampler(RAGGED), TypeError, "Argument weights with value [[1], [2, 3]] cannot be read"),
    (lambda: ds.NumpySlicesDataset(RAGGED), TypeError, "Argument data with value [[1], [2, 3]] cannot be read"),
    (lambda: ds.NumpySlicesDataset({"a": RAGGED}), TypeError, "Argument data['a'] with value"),
    (lambda: ds.Dataset(5), TypeError, "Dataset: the argument 'children' must be a Dataset or a list of Datasets"),
    (lambda: audio.MelScale(200, 16000, 0.0, None, 2 ** 31 - 1), RuntimeError, "For 'MelScale', Memory not enough"),
    # every keyword, not only the first ones
    (lambda: vision.RandomResizedCrop(2, scale=math.nan), TypeError, "Argument scale with value nan is not of type"),
    (lambda: audio.FrequencyMasking(mask_value=None), TypeError, "Argument mask_value with value None is not of type"),
    (lambda: audio.Resample(beta="abc"), TypeError, "Argument beta with value abc is not of type"),
    (lambda: audio.MFCC(melkwargs="abc"), TypeError, "melkwargs with value abc is not of type [<class 'dict'>]"),
    (lambda: ds.RandomDataset(columns_list=1 + 2j), TypeError, "Argument columns_list with value (1+2j)"),
    (lambda: ds.deserialize(json_filepath="/no/such/file.json"), ValueError, "The file /no/such/file.json does not"),
])
def test_bad_arguments_are_refused_at_construction(make, exc, words):
    with pytest.raises(exc) as info:
        make()
    assert words in str(info.value)


def test_checked_arguments_still_build_working_ops():
    img = np.arange(48, dtype=np.uint8).reshape(4, 4, 3)
    assert vision.Pad((1, 2))(img).shape == (8, 6, 3)
    assert vision.Crop((1, 1), 2)(img).shape == (2, 2, 3)
    np.testing.assert_array_equal(vision.RandomPosterize((8, 8))(img), img)
    np.testing.assert_array_equal(vision.Solarize((200, 255))(img), img)      # no pixel reaches 200
    np.testing.assert_array_equal(vision.RandomSolarize((0, 0))(np.full((2, 2, 3), 7, np.uint8)),
                                  np.full((2, 2, 3), 7, np.uint8))
    assert vision.get_image_size(img) == [4, 4]
    assert text.RegexReplace("a+", "b")(np.array(["caab"])).tolist() == ["cbb"]
    np.testing.assert_array_equal(transforms.Concatenate(0, np.array([1, 2]))(np.array([3, 4])), [1, 2, 3, 4])
    x = np.array([1.0, 0.5, -0.25], np.float32)
    # b = [1, 0], a = [1, -0.5]: y[n] = x[n] + 0.5 y[n-1]
    np.testing.assert_allclose(audio.LFilter([1.0, -0.5], [1.0, 0.0], clamp=False)(x), [1.0, 1.0, 0.25], rtol=1e-6)
    rows = [r["column_0"].tolist() for r in ds.NumpySlicesDataset([[1, 2], [3, 4]], shuffle=False)
            .create_dict_iterator(output_numpy=True)]
    assert rows == [[1, 2], [3, 4]]


def test_eager_call_of_a_tensor_transform_rejects_python_objects():
    import mindseed.dataset.text as text
    import mindseed.dataset.transforms as T
    tok = text.BertTokenizer(vocab=text.Vocab.from_list(["a", "b"]))
    with pytest.raises(TypeError, match=r"Invalid user input. Got <class 'dict'>: \{'k': 18\}, cannot be converted "
                                        r"into tensor."):
        tok({"k": 18})
    with pytest.raises(TypeError, match=r"Got <class 'set'>: \{1\}, cannot be converted into tensor."):
        T.TypeCast(np.int32)({1})
    np.testing.assert_array_equal(T.TypeCast(np.int32)([1.5, 2.0]), np.array([1, 2], np.int32))
    # a Python function wrapped as a transform takes any object
    assert T.PyFunc(lambda d: d["k"])({"k": 3}) == 3
