"""String columns in the pipeline: padded_batch pads strings with pad values longer than the strings; TypeCast to
String keeps str data and refuses numbers and bytes (MindSpore 2.10's behaviour)."""
import numpy as np
import pytest

import mindseed.dataset as ds
from mindseed.common import dtype as mstype
from mindseed.dataset import transforms


def _two_cols():
    for i in range(2):
        yield np.array([str(i)], dtype=np.str_), np.array([[str(i + 100)], [str(i + 200)]], dtype=np.bytes_)


def _growing():
    for i in range(4):
        yield (np.array([str(j) for j in range(i + 1)], dtype=np.str_),)


def test_padded_batch_pads_strings_with_longer_values():
    data = ds.GeneratorDataset(_two_cols, ["c1", "c2"])
    data = data.padded_batch(2, pad_info={"c2": ([2, 2], b"-2"), "c1": ([2], "-1")})
    rows = list(data.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert len(rows) == 1
    np.testing.assert_array_equal(rows[0]["c1"], [["0", "-1"], ["1", "-1"]])
    np.testing.assert_array_equal(rows[0]["c2"], [[[b"100", b"-2"], [b"200", b"-2"]],
                                                  [[b"101", b"-2"], [b"201", b"-2"]]])
    data = ds.GeneratorDataset(_growing, ["col"]).padded_batch(2, pad_info={"col": (None, "PAD_VALUE")})
    got = [r["col"] for r in data.create_dict_iterator(num_epochs=1, output_numpy=True)]
    np.testing.assert_array_equal(got[0], [["0", "PAD_VALUE"], ["0", "1"]])
    np.testing.assert_array_equal(got[1], [["0", "1", "2", "PAD_VALUE"], ["0", "1", "2", "3"]])


def test_type_cast_to_string():
    cast = transforms.TypeCast(mstype.string)
    assert cast("test_strings") == "test_strings"
    np.testing.assert_array_equal(cast(np.array(["a", "bc"])), ["a", "bc"])
    for bad in ([1, 2, 3], np.array([b"ab"]), np.array([1.5])):
        with pytest.raises(RuntimeError):
            cast(bad)
    with pytest.raises(RuntimeError):
        transforms.TypeCast(mstype.int32)(np.array(["1", "2"]))


def test_vocab_lookups_take_zero_dim_arrays_as_one_item():
    from mindseed.dataset import text
    vocab = text.Vocab.from_list(["w1", "w2", "w3"], special_tokens=["<unk>"], special_first=True)
    assert vocab.tokens_to_ids(np.array("w1")) == 1 and vocab.tokens_to_ids(np.array(["w1", "w3"])) == [1, 3]
    assert vocab.ids_to_tokens(np.array(1)) == "w1" and vocab.ids_to_tokens(np.array([1, 3])) == ["w1", "w3"]
    assert vocab.tokens_to_ids(["w1", "w4"]) == [1, -1] and vocab.ids_to_tokens([1, 100]) == ["w1", ""]


def test_vocab_lookup_errors():
    from mindseed.dataset import text
    with pytest.raises(RuntimeError, match="The Vocab has not built yet"):
        text.Vocab().ids_to_tokens(2)
    with pytest.raises(RuntimeError, match="The Vocab has not built yet"):
        text.Vocab().tokens_to_ids(["w3"])
    vocab = text.Vocab.from_list(["w1", "w2", "w3"], special_tokens=["<unk>"], special_first=True)
    with pytest.raises(TypeError, match="Argument ids with value abc is not of type"):
        vocab.ids_to_tokens("abc")
    with pytest.raises(TypeError, match=r"Argument ids\[1\] with value 1.2"):
        vocab.ids_to_tokens([2, 1.2, "abc"])
    with pytest.raises(ValueError, match=r"Input ids is not within the required interval of \[0, 2147483647\]"):
        vocab.ids_to_tokens(-2)
    with pytest.raises(TypeError, match=r"Argument tokens\[0\] with value 1"):
        vocab.tokens_to_ids([1, "w3"])
    with pytest.raises(TypeError, match="Argument tokens with value 999"):
        vocab.tokens_to_ids(999)


def test_vocab_from_dict_and_lookup_argument_checks():
    from mindseed.dataset import text
    with pytest.raises(ValueError, match=r"Input word_id is not within the required interval of \[0, 2147483647\]"):
        text.Vocab.from_dict({"home": -1, "behind": 0})
    vocab = text.Vocab.from_list(["w1", "w2"])
    with pytest.raises(TypeError, match=r"Argument unknown_token with value 123 is not of type \[<class 'str'>\]"):
        text.Lookup(vocab, 123)
    assert text.Lookup(vocab, "w2")(np.array(["w1", "zz"])).tolist() == [0, 1]
