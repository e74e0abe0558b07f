"""mindseed.dataset.transforms (values recorded from real MindSpore 2.10 where noted) and text transforms."""
import numpy as np
import pytest

import mindseed as ms
import mindseed.dataset as ds
import mindseed.dataset.text as text
import mindseed.dataset.transforms as T


def test_typecast_accepts_mindseed_and_numpy_dtypes():
    out = T.TypeCast(ms.int16)(np.array([1.7, -2.5]))
    assert out.dtype == np.int16 and out.tolist() == [1, -2]
    assert T.TypeCast(np.float16)(np.array([1, 2])).dtype == np.float16
    assert T.TypeCast(ms.float32)([1, 2]).tolist() == [1.0, 2.0]
    assert T.TypeCast(ms.float32)(ms.Tensor([3])).dtype == np.float32
    with pytest.raises(TypeError):
        T.TypeCast("abc")
    with pytest.raises(RuntimeError, match="TypeCast: TypeCast does not support cast from string to float32"):
        T.TypeCast(ms.float32)(np.array(["1"]))


def test_onehot_squeezes_size_one_axes_as_mindspore():
    # oracle (MindSpore 2.10): (3, 1) labels -> (3, C); (1,) and (1, 1) -> (C,); one class -> squeezed too
    o = T.OneHot(4)(np.array([[1], [2], [0]]))
    assert o.dtype == np.int64 and o.tolist() == [[0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0]]
    assert T.OneHot(4)(np.array([2])).tolist() == [0, 0, 1, 0]
    assert T.OneHot(4)(np.array([[2]])).tolist() == [0, 0, 1, 0]
    assert T.OneHot(4)(np.array([[[1]], [[2]]])).tolist() == [[0, 1, 0, 0], [0, 0, 1, 0]]
    assert T.OneHot(1)(np.array([0, 0])).tolist() == [1, 1]
    assert T.OneHot(4)(np.array([-1])).tolist() == [0, 0, 0, 0]
    with pytest.raises(RuntimeError, match="Only support scalar or 1D input, got rank: 2"):
        T.OneHot(4)(np.array([[1, 2], [2, 0]]))


def test_onehot_fill_duplicate_concatenate_mask():
    assert T.OneHot(4)(np.array(2)).tolist() == [0, 0, 1, 0]
    o = T.OneHot(4)(np.array([1, 3], np.int32))
    assert o.dtype == np.int32 and o.tolist() == [[0, 1, 0, 0], [0, 0, 0, 1]]
    s = T.OneHot(4, 0.2)(np.array([1], np.int32))
    assert s.dtype == np.float64
    np.testing.assert_allclose(s, [0.05, 0.85, 0.05, 0.05])
    with pytest.raises(RuntimeError, match="should not bigger than num classes: 4, but got: 5"):
        T.OneHot(4)(np.array(5))
    with pytest.raises(ValueError):
        T.OneHot(0)
    f = T.Fill(3)(np.array([1.5, 2.0], np.float32))
    assert f.dtype == np.float32 and f.tolist() == [3.0, 3.0]
    assert T.Fill("x")(np.array(["a", "b"])).tolist() == ["x", "x"]
    a, b = T.Duplicate()(np.array([1, 2]))
    assert a.tolist() == b.tolist() == [1, 2]
    assert T.Concatenate(0, np.array([9]), np.array([7, 8]))(np.array([1, 2])).tolist() == [9, 1, 2, 7, 8]
    assert T.Mask(T.Relational.GT, 1)(np.array([1, 2, 3])).tolist() == [False, True, True]
    m = T.Mask(T.Relational.EQ, 2, ms.int32)(np.array([1, 2, 3]))
    assert m.dtype == np.int32 and m.tolist() == [0, 1, 0]


def test_padend_slice_unique():
    assert T.PadEnd([4], 0)(np.array([1, 2])).tolist() == [1, 2, 0, 0]
    assert T.PadEnd([1])(np.array([1, 2])).tolist() == [1]
    assert T.PadEnd([2, 3], -1)(np.array([[1, 2]])).tolist() == [[1, 2, -1], [-1, -1, -1]]
    assert T.PadEnd([3], "z")(np.array(["a"])).tolist() == ["a", "z", "z"]
    x = np.arange(9).reshape(3, 3)
    assert T.Slice(slice(0, 2))(np.array([1, 2, 3])).tolist() == [1, 2]
    assert T.Slice([0, 2], 1)(x).tolist() == [[1], [7]]
    assert T.Slice(None)(np.arange(3)).tolist() == [0, 1, 2]
    assert T.Slice(Ellipsis, 1)(x).tolist() == [[1], [4], [7]]
    u, idx, cnt = T.Unique()(np.array([[5, 3, 5], [1, 3, 3]]))  # flattened; MindSpore wants rank >= 2
    assert u.tolist() == [5, 3, 1] and idx.tolist() == [0, 1, 0, 2, 1, 1] and cnt.tolist() == [2, 3, 1]
    with pytest.raises(RuntimeError, match="at least 2-D"):
        T.Unique()(np.array([5, 3, 5]))


def test_compose_random_apply_choice_order():
    assert T.Compose([T.Fill(2), T.TypeCast(ms.float32)])(np.array([1, 2])).tolist() == [2.0, 2.0]
    ds.config.set_seed(0)
    applied = [T.RandomApply([lambda x: x + 1], prob=0.5)(np.array(0)).item() for _ in range(200)]
    assert set(applied) == {0, 1} and 60 < sum(applied) < 140
    picks = {T.RandomChoice([lambda x: x + 1, lambda x: x + 2])(np.array(0)).item() for _ in range(50)}
    assert picks == {1, 2}
    orders = {T.RandomOrder([lambda x: x * 2, lambda x: x + 1])(np.array(1)).item() for _ in range(50)}
    assert orders == {3, 4}
    with pytest.raises(ValueError):
        T.Compose([])
    with pytest.raises(TypeError):
        T.RandomApply([1])


def test_transforms_inside_a_pipeline_with_multiple_outputs():
    d = ds.NumpySlicesDataset({"x": np.array([1, 2, 3])}, shuffle=False)
    d = d.map(T.Duplicate(), input_columns="x", output_columns=["x", "y"])
    d = d.map(T.OneHot(4), input_columns="y")
    out = list(d.create_dict_iterator(output_numpy=True))
    assert out[2]["y"].tolist() == [0, 0, 0, 1] and out[2]["x"] == 3


# ---------------------------------------------------------------------------- text (values from MindSpore 2.10)
def test_tokenizers():
    assert text.WhitespaceTokenizer()("Hello  world\tfoo").tolist() == ["Hello", "world", "foo"]
    t, s, e = text.WhitespaceTokenizer(True)("Hello  wörld")
    assert t.tolist() == ["Hello", "wörld"] and s.tolist() == [0, 7] and e.tolist() == [5, 13]
    assert s.dtype == np.uint32
    assert text.UnicodeCharTokenizer()("aé b").tolist() == ["a", "é", " ", "b"]
    t, s, e = text.UnicodeCharTokenizer(True)("aé")
    assert s.tolist() == [0, 1] and e.tolist() == [1, 3]
    assert text.RegexTokenizer(r"\s+")("a b  c").tolist() == ["a", "b", "c"]
    assert text.RegexTokenizer(r"\s+", r"\s+")("a b  c").tolist() == ["a", " ", "b", "  ", "c"]
    assert text.BasicTokenizer()("Hello, World! 你好 Héllo").tolist() == ["Hello", ",", "World", "!", "你", "好",
                                                                           "Héllo"]
    assert text.BasicTokenizer(lower_case=True)("Hello, World! Héllo").tolist() == ["hello", ",", "world", "!",
                                                                                     "hello"]
    assert text.PythonTokenizer(lambda s: s.split("-"))(np.array("a-b-c")).tolist() == ["a", "b", "c"]
    assert text.UnicodeScriptTokenizer()("hello 你好 123").tolist() == ["hello", "你好", "123"]


def test_vocab_lookup_bert():
    v = text.Vocab.from_list(["[UNK]", "hello", "world", "##s", "wor", "##ld", "[CLS]"])
    assert text.BertTokenizer(v)("hello worlds xyz").tolist() == ["hello", "world", "##s", "[UNK]"]
    assert text.BertTokenizer(v, lower_case=True)("Hello WORLD").tolist() == ["hello", "world"]
    assert text.WordpieceTokenizer(v)(np.array(["worlds", "hello"])).tolist() == ["world", "##s", "hello"]
    lk = text.Lookup(v, "[UNK]")(np.array(["hello", "nope"]))
    assert lk.dtype == np.int32 and lk.tolist() == [1, 0]
    with pytest.raises(RuntimeError):
        text.Lookup(v)(np.array(["nope"]))
    assert v.tokens_to_ids(["hello", "zzz"]) == [1, -1] and v.ids_to_tokens([1, 99]) == ["hello", ""]
    assert text.Vocab.from_list(["a", "b"], ["<pad>"], True).vocab() == {"<pad>": 0, "a": 1, "b": 2}
    with pytest.raises(ValueError, match="^word_list contains duplicate word: a.$"):
        text.Vocab.from_list(["a", "b", "a"])
    with pytest.raises(ValueError, match="^special_tokens contains duplicate word: x.$"):
        text.Vocab.from_list(["a"], special_tokens=["x", "x"])
    # an unknown_token outside the vocab is found when the lookup runs (MindSpore's RuntimeError), not before
    missing = text.Lookup(v, unknown_token="<missing>")
    with pytest.raises(RuntimeError, match="Lookup: \"<missing>\" doesn't exist in vocab."):
        missing(np.array(["hello"]))


def test_vocab_from_file_and_dataset(tmp_path):
    p = tmp_path / "vocab.txt"
    p.write_text("apple,1\nbanana,2\ncherry,3\n")
    v = text.Vocab.from_file(str(p), delimiter=",", vocab_size=2, special_tokens=["<unk>"], special_first=False)
    assert v.vocab() == {"apple": 0, "banana": 1, "<unk>": 2}
    lines = tmp_path / "corpus.txt"
    lines.write_text("b a b\nc b a\n")
    d = ds.TextFileDataset(str(lines), shuffle=False).map(text.WhitespaceTokenizer(), input_columns="text")
    v = text.Vocab.from_dataset(d, columns=["text"], top_k=2, special_tokens=["<pad>"])
    assert v.vocab() == {"<pad>": 0, "b": 1, "a": 2}
    ids = d.map(text.Lookup(v, "<pad>"), input_columns="text")
    assert [r[0].tolist() for r in ids.create_tuple_iterator(output_numpy=True)] == [[1, 2, 1], [0, 1, 2]]


def _word_counts():
    for word, n in {"z": 4, "y": 4, "w": 3, "t": 1}.items():
        yield (np.array([word] * n),)


@pytest.mark.parametrize("freq_range, want", [((2, None), ["y", "z", "w"]), ((None, 3), ["w", "t"]),
                                              (None, ["y", "z", "w", "t"]), ((4, 4), ["y", "z"])])
def test_vocab_from_dataset_frequency_bounds_may_be_open(freq_range, want):
    d = ds.GeneratorDataset(_word_counts, column_names=["text"])
    v = text.Vocab.from_dataset(d, None, freq_range, None, special_tokens=["<pad>"])
    assert sorted(v.vocab(), key=v.vocab().get) == ["<pad>"] + want


@pytest.mark.parametrize("kwargs, err, msg", [
    ({"freq_range": [2, 3]}, TypeError, r"Argument freq_range with value \[2, 3\] is not of type \[<class 'tuple'>\]"),
    ({"freq_range": (3, 2)}, ValueError, r"frequency range \[a,b\] should be 0 <= a <= b"),
    ({"freq_range": (2, 3, 4)}, ValueError, "freq_range needs to be a tuple of 2 element"),
    ({"freq_range": (2.0, 3)}, ValueError, "freq_range needs to be either None or a tuple of 2 integers"),
    ({"top_k": 0}, ValueError, "Input top_k must be greater than 0"),
    ({"top_k": 1.5}, TypeError, "Argument top_k with value 1.5 is not of type"),
])
def test_vocab_from_dataset_checks_its_arguments_first(kwargs, err, msg):
    d = ds.GeneratorDataset(_word_counts, column_names=["text"])
    with pytest.raises(err, match=msg):
        text.Vocab.from_dataset(d, None, **kwargs)


def test_ngram_tonumber_truncate_sliding_and_friends():
    assert text.Ngram(2)(np.array(["a", "b", "c"])).tolist() == ["a b", "b c"]
    assert text.Ngram([2, 3], ("_", 1), ("_", 1), "-")(np.array(["a", "b", "c"])).tolist() == \
        ["_-a", "a-b", "b-c", "c-_", "_-a-b", "a-b-c", "b-c-_"]
    n = text.ToNumber(ms.int32)(np.array(["1", "22"]))
    assert n.dtype == np.int32 and n.tolist() == [1, 22]
    assert text.ToNumber(ms.float32)(np.array(["1.5"])).tolist() == [1.5]
    with pytest.raises(RuntimeError):
        text.ToNumber(ms.int8)(np.array(["300"]))
    a, b = text.TruncateSequencePair(4)(np.array([1, 2, 3]), np.array([4, 5, 6]))
    assert a.tolist() == [1, 2] and b.tolist() == [4, 5]
    assert text.SlidingWindow(2)(np.array([1, 2, 3, 4])).tolist() == [[1, 2], [2, 3], [3, 4]]
    assert text.Truncate(2)(np.array(["a", "b", "c"])).tolist() == ["a", "b"]
    assert text.AddToken("[CLS]")(np.array(["a", "b"])).tolist() == ["[CLS]", "a", "b"]
    assert str(text.CaseFold()("ABC ß")) == "abc ss"
    assert str(text.RegexReplace("a+", "x")("aab caa")) == "xb cx"
    assert str(text.NormalizeUTF8(text.NormalizeForm.NFKC)("ｆｕｌｌ")) == "full"
    assert text.to_str(np.array([b"ab"])).tolist() == ["ab"] and text.to_bytes(np.array(["ab"])).tolist() == [b"ab"]


def test_unicode_script_tokenizer_groups_common_characters_as_icu():
    # oracle (MindSpore 2.10, ICU scripts): digits, punctuation and symbols are one Common script, marks Inherited
    cases = {"Hello, 世界 123!": ["Hello", ",", "世界", "123!"], "12.5%": ["12.5%"], "a1b": ["a", "1", "b"],
             "αβγ123": ["αβγ", "123"], "日本語テキスト": ["日本語", "テキスト"], "e\u0301x": ["e", "\u0301", "x"],
             "¡Hola!": ["¡", "Hola", "!"], "Привет мир!": ["Привет", "мир", "!"]}
    for s, want in cases.items():
        assert text.UnicodeScriptTokenizer()(np.array(s)).tolist() == want, s
    toks = text.UnicodeScriptTokenizer(keep_whitespace=True)(np.array("Hello, 世界 123!"))
    assert toks.tolist() == ["Hello", ",", " ", "世界", " ", "123!"]


def test_lookup_types_and_messages_as_mindspore():
    v = text.Vocab.from_list(["a", "b"])
    assert text.Lookup(v, "a", ms.float32)(np.array(["b", "z"])).tolist() == [1.0, 0.0]
    out = text.Lookup(v, "a", ms.bool_)(np.array(["b", "z"]))
    assert out.dtype == np.bool_ and out.tolist() == [True, False]
    with pytest.raises(TypeError, match="Argument data_type with value <class 'numpy.int64'> is not of type"):
        text.Lookup(v, "a", np.int64)
    op = text.Lookup(v, "a", ms.string)   # refused when it runs, as MindSpore validates it
    with pytest.raises(RuntimeError, match="Lookup : The parameter data_type must be numeric including bool."):
        op(np.array(["a"]))
    with pytest.raises(RuntimeError, match="Lookup: invalid data, token: \"zzz\" doesn't exist in vocab and no "
                                           "unknown token is specified."):
        text.Lookup(v)(np.array(["zzz"]))
