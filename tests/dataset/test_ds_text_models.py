"""dataset.text: SentencePiece, Jieba, word vectors and FilterWikipediaXML against MindSpore 2.10's outputs.

The expected values were produced by real MindSpore 2.10 on the same generated inputs (same corpus, same
dictionary files, same vector files).
"""
import os
import random

import numpy as np
import pytest

import mindseed.dataset as ds
import mindseed.dataset.text as text

SENTENCE = "Hello world, today is tuesday"
WORDS = ["hello", "world", "today", "tuesday", "friday", "mind", "seed", "spore", "data", "set", "token", "piece"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    rng = random.Random(0)
    path = tmp_path_factory.mktemp("sp") / "corpus.txt"
    with open(path, "w") as f:
        for _ in range(300):
            f.write(" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9))) + "\n")
    return str(path)


# ---------------------------------------------------------------------------------------------- SentencePiece
SP_EXPECTED = {
    "BPE": (60, ["▁", "H", "ello", "▁world", ",", "▁today", "▁", "i", "s", "▁t", "u", "e", "s", "day"],
            [40, 0, 13, 36, 0, 20, 40, 48, 46, 5, 59, 41, 46, 6]),
    "CHAR": (30, list("▁Hello▁world,▁today▁is▁tuesday"),
             [3, 0, 4, 10, 10, 6, 3, 20, 6, 12, 10, 5, 0, 3, 7, 6, 5, 8, 13, 3, 11, 9, 3, 7, 22, 4, 9, 5, 8, 13]),
    "UNIGRAM": (30, ["▁", "H", "e", "l", "l", "o", "▁", "w", "o", "r", "l", "d", ",", "▁today", "▁", "i", "s", "▁",
                     "t", "u", "e", "s", "d", "a", "y"],
                [29, 0, 28, 22, 22, 26, 29, 12, 26, 20, 22, 27, 0, 6, 29, 21, 23, 29, 25, 10, 28, 23, 27, 24, 19]),
    "WORD": (12, ["▁Hello▁world,", "▁today", "▁is▁tuesday"], [0, 6, 0]),
}


@pytest.mark.parametrize("model", sorted(SP_EXPECTED))
def test_sentencepiece_from_file_matches_mindspore(corpus, model):
    pytest.importorskip("sentencepiece")
    size, pieces, ids = SP_EXPECTED[model]
    vocab = text.SentencePieceVocab.from_file([corpus], size, 1.0, text.SentencePieceModel[model], {})
    out = text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.STRING)(SENTENCE)
    assert out.tolist() == pieces
    got = text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.INT)(SENTENCE)
    assert got.dtype == np.int32 and got.tolist() == ids


def test_sentencepiece_save_load_dataset_and_params(corpus, tmp_path):
    pytest.importorskip("sentencepiece")
    vocab = text.SentencePieceVocab.from_file([corpus], 60, 1.0, text.SentencePieceModel.BPE, {})
    text.SentencePieceVocab.save_model(vocab, str(tmp_path), "m.model")
    tok = text.SentencePieceTokenizer(str(tmp_path / "m.model"), text.SPieceTokenizerOutType.STRING)
    assert tok("mindseed data").tolist() == ["▁mind", "s", "e", "ed", "▁", "da", "t", "a"]
    d = ds.TextFileDataset(corpus, shuffle=False).map(operations=tok, input_columns=["text"])
    first = next(d.create_tuple_iterator(num_epochs=1, output_numpy=True))[0]
    assert first[0].startswith("▁")
    built = text.SentencePieceVocab.from_dataset(ds.TextFileDataset(corpus, shuffle=False), ["text"], 30, 0.9995,
                                                 text.SentencePieceModel.BPE, {})
    assert text.SentencePieceTokenizer(built, text.SPieceTokenizerOutType.STRING)("tuesday data").tolist() == \
        ["▁t", "u", "e", "s", "day", "▁", "da", "t", "a"]
    whole = text.SentencePieceVocab.from_file([corpus], 60, 1.0, text.SentencePieceModel.BPE,
                                              {"split_by_whitespace": "false"})
    assert text.SentencePieceTokenizer(whole, text.SPieceTokenizerOutType.STRING)("hello world").tolist() == \
        ["▁hello", "▁world"]


def test_sentencepiece_errors(corpus):
    pytest.importorskip("sentencepiece")
    with pytest.raises(RuntimeError, match="SentencePieceVocab: .*Vocabulary size too high"):
        text.SentencePieceVocab.from_file([corpus], 5000, 1.0, text.SentencePieceModel.UNIGRAM, {})
    with pytest.raises(TypeError, match="Argument mode is not an instance of str or text.SentencePieceVocab"):
        text.SentencePieceTokenizer(5, text.SPieceTokenizerOutType.STRING)
    with pytest.raises(TypeError, match="out_type is not an instance of SPieceTokenizerOutType"):
        text.SentencePieceTokenizer(corpus, 1)
    with pytest.raises(RuntimeError, match="does not exist"):
        text.SentencePieceTokenizer(corpus + ".none", text.SPieceTokenizerOutType.STRING)("a")
    vocab = text.SentencePieceVocab.from_file([corpus], 30, 1.0, text.SentencePieceModel.CHAR, {})
    with pytest.raises(RuntimeError, match="input shape should be scalar"):
        text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.STRING)(np.array(["a b", "c"]))
    with pytest.raises(TypeError, match="vocab_size"):
        text.SentencePieceVocab.from_file([corpus], "30", 1.0, text.SentencePieceModel.CHAR, {})


# ---------------------------------------------------------------------------------------------------- Jieba
SMALL_DICT = ["今天 100 t", "天气 200 n", "今天天气 5 n", "不错 150 a", "我 500 r", "来到 80 v", "北京 300 ns",
              "清华 50 nt", "清华大学 60 nt", "大学 100 n"]
TINY_HMM = "#B E M S\n-0.26 -3.14e+100 -3.14e+100 -1.46\n" + \
    "\n".join(["-3.14e+100 -0.51 -0.91 -3.14e+100", "-0.58 -3.14e+100 -3.14e+100 -0.80",
               "-3.14e+100 -0.33 -1.26 -3.14e+100", "-0.72 -3.14e+100 -3.14e+100 -0.66"]) + \
    "\n#B\n今:-1.0\n#E\n天:-1.0\n#M\n气:-1.0\n#S\n我:-1.0\n"


def _write(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        f.write(lines if isinstance(lines, str) else "\n".join(lines) + "\n")
    return str(path)


def test_jieba_mp_mode_with_a_small_dictionary(tmp_path):
    hmm = _write(tmp_path / "hmm_model.utf8", TINY_HMM)
    mp = _write(tmp_path / "jieba.dict.utf8", SMALL_DICT)
    tok = text.JiebaTokenizer(hmm, mp, mode=text.JiebaMode.MP, with_offsets=True)
    words, start, limit = tok("我来到北京清华大学")
    assert words.tolist() == ["我", "来到", "北京", "清华大学"]
    assert start.dtype == np.uint32 and start.tolist() == [0, 3, 9, 15] and limit.tolist() == [3, 9, 15, 27]
    assert text.JiebaTokenizer(hmm, mp, mode=text.JiebaMode.MP)("床前明月光").tolist() == ["床", "前", "明", "月", "光"]
    assert tok("")[0].tolist() == [""] and tok("")[1].tolist() == []
    d = ds.NumpySlicesDataset(["今天天气不错"], column_names=["text"], shuffle=False)
    d = d.map(operations=text.JiebaTokenizer(hmm, mp, mode=text.JiebaMode.MP), input_columns=["text"])
    assert next(d.create_tuple_iterator(num_epochs=1, output_numpy=True))[0].tolist() == ["今天", "天气", "不错"]
    with pytest.raises(TypeError, match="Wrong input type for mode, should be JiebaMode"):
        text.JiebaTokenizer(hmm, mp, mode=1)
    with pytest.raises(ValueError, match="jieba mode file .*none.utf8 is not exist"):
        text.JiebaTokenizer(str(tmp_path / "none.utf8"), mp)
    with pytest.raises(RuntimeError, match="input shape should be scalar"):
        tok(np.array(["今天", "天气"]))
    _write(tmp_path / "bad.dict", ["今天 100"])
    with pytest.raises(RuntimeError, match="bad.dict should be 'word freq tag'"):
        text.JiebaTokenizer(hmm, str(tmp_path / "bad.dict"))("今天")


@pytest.fixture(scope="module")
def jieba_files(tmp_path_factory):
    pytest.importorskip("jieba")
    from jieba_files import write_cppjieba_files
    small = write_cppjieba_files(str(tmp_path_factory.mktemp("jieba_small")), SMALL_DICT)
    full = write_cppjieba_files(str(tmp_path_factory.mktemp("jieba_full")))
    return small, full


def test_jieba_hmm_and_mix_with_jieba_models_match_mindspore(jieba_files, tmp_path):
    (hmm, mp), _ = jieba_files
    hmm_tok = text.JiebaTokenizer(hmm, mp, mode=text.JiebaMode.HMM)
    assert hmm_tok("他来到了网易杭研大厦").tolist() == ["他来", "到", "了", "网易", "杭", "研大厦"]
    assert hmm_tok("小明硕士毕业于中国科学院计算所，后在日本京都大学深造 ABC123 x.5").tolist() == \
        ["小明", "硕士", "毕业于", "中国", "科学院", "计算", "所", "，", "后", "在", "日", "本京", "都", "大学", "深造",
         " ", "ABC123", " ", "x", ".", "5"]
    mix = text.JiebaTokenizer(hmm, mp, mode=text.JiebaMode.MIX, with_offsets=True)
    words, start, limit = mix("他来到了网易杭研大厦")
    assert words.tolist() == ["他", "来到", "了", "网易", "杭", "研大厦"]
    assert start.tolist() == [0, 3, 9, 12, 18, 21] and limit.tolist() == [3, 9, 12, 18, 21, 30]
    user = text.JiebaTokenizer(hmm, mp, mode=text.JiebaMode.MIX)
    user.add_word("网易杭研")
    user.add_dict({"明月光": 1000, "杭研大厦": 0})
    _write(tmp_path / "user.dict", ["天气不错 30", "了网", "  bad line here 3"])
    user.add_dict(str(tmp_path / "user.dict"))
    assert user("他来到了网易杭研大厦").tolist() == ["他", "来到", "了网", "易", "杭研大厦"]
    assert user("床前明月光").tolist() == ["床前", "明月光"]
    assert user("今天天气不错").tolist() == ["今天", "天气不错"]
    with pytest.raises(ValueError, match="user dict file .* is not exist"):
        user.add_dict(str(tmp_path / "none.dict"))


def test_jieba_full_dictionary_matches_mindspore(jieba_files):
    _, (hmm, mp) = jieba_files
    mix = text.JiebaTokenizer(hmm, mp)
    assert mix("今天天气不错").tolist() == ["今天天气", "不错"]
    assert mix("他来到了网易杭研大厦").tolist() == ["他", "来到", "了", "网易", "杭研", "大厦"]
    words, start, _ = text.JiebaTokenizer(hmm, mp, with_offsets=True)(
        "小明硕士毕业于中国科学院计算所，后在日本京都大学深造 ABC123 x.5")
    assert words.tolist() == ["小明", "硕士", "毕业", "于", "中国科学院", "计算所", "，", "后", "在", "日本京都大学",
                              "深造", " ", "ABC123", " ", "x", ".", "5"]
    assert start.tolist() == [0, 6, 12, 18, 21, 36, 45, 48, 51, 54, 72, 78, 79, 85, 86, 87, 88]


# -------------------------------------------------------------------------------------------------- vectors
@pytest.fixture()
def vec_files(tmp_path):
    plain = _write(tmp_path / "vec.txt", ["ok 0.1 0.2 0.3", "Hello 1 2 3", "hello 4 5 6", "ok 9 9 9",
                                          "world -1 -2.5 3e-2"])
    fast = _write(tmp_path / "wiki.test.vec", ["3 3", "ok 0.1 0.2 0.3", "Hello 1 2 3", "world -1 -2.5 3e-2"])
    glove = _write(tmp_path / "glove.6B.test.txt", ["the 0.5 0.25", "of 1 -1"])
    grams = _write(tmp_path / "charngram.txt", ["2gram-#BEGIN#a 1 0", "2gram-ab 0 2", "3gram-#BEGIN#ab 4 4",
                                                "2gram-b#END# 1 1", "4gram-ab#END#x 9 9"])
    return plain, fast, glove, grams


def test_vectors_lookup_matches_mindspore(vec_files):
    plain, fast, glove, grams = vec_files
    v = text.Vectors.from_file(plain)
    out = text.ToVectors(v)(["ok", "Hello", "hello", "HELLO", "zz"])
    assert out.dtype == np.float32 and out.shape == (5, 3)
    np.testing.assert_array_equal(out, np.float32([[0.1, 0.2, 0.3], [1, 2, 3], [4, 5, 6], [0, 0, 0], [0, 0, 0]]))
    np.testing.assert_array_equal(text.ToVectors(v, unk_init=[7, 7, 7], lower_case_backup=True)(
        ["ok", "Hello", "HELLO", "zz"]), np.float32([[0.1, 0.2, 0.3], [4, 5, 6], [4, 5, 6], [7, 7, 7]]))
    np.testing.assert_array_equal(text.ToVectors(v)("world"), np.float32([-1, -2.5, 0.03]))
    two = text.ToVectors(text.Vectors.from_file(plain, max_vectors=2))(["ok", "hello", "world"])
    np.testing.assert_array_equal(two, np.float32([[0.1, 0.2, 0.3], [0, 0, 0], [0, 0, 0]]))
    grid = text.ToVectors(v)(np.array([["ok", "zz"], ["Hello", "world"]]))
    assert grid.shape == (2, 2, 3) and grid[1, 0].tolist() == [1, 2, 3]
    np.testing.assert_array_equal(text.ToVectors(text.FastText.from_file(fast))(["ok", "world"]),
                                  np.float32([[0.1, 0.2, 0.3], [-1, -2.5, 0.03]]))
    np.testing.assert_array_equal(text.ToVectors(text.GloVe.from_file(glove))(["of", "the", "x"]),
                                  np.float32([[1, -1], [0.5, 0.25], [0, 0]]))
    cng = text.CharNGram.from_file(grams)
    np.testing.assert_array_equal(text.ToVectors(cng)(["ab", "zz", "AB"]), np.float32([[1.5, 1.75], [0, 0], [0, 0]]))
    np.testing.assert_array_equal(text.ToVectors(cng, lower_case_backup=True)(["AB"]), np.float32([[1.5, 1.75]]))
    np.testing.assert_allclose(text.ToVectors(cng, unk_init=[1, 0])(["ab", "zz"]),
                               np.float32([[5 / 3, 7 / 3], [1, 0]]), rtol=1e-6)
    d = ds.NumpySlicesDataset(["ok", "zz"], column_names=["text"], shuffle=False).map(text.ToVectors(v))
    assert [r[0].tolist() for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)] == \
        [np.float32([0.1, 0.2, 0.3]).tolist(), [0, 0, 0]]


def test_vectors_errors(vec_files, tmp_path):
    plain, _, _, _ = vec_files
    with pytest.raises(RuntimeError, match="unk_init must be the same length as vectors, but got unk_init: 2"):
        text.ToVectors(text.Vectors.from_file(plain), unk_init=[1, 2])(["zz"])
    with pytest.raises(RuntimeError, match=r"FastText: invalid file, can not find file '\*.vec'"):
        text.FastText.from_file(plain)
    with pytest.raises(RuntimeError, match=r"GloVe: invalid file, can not find file 'glove.6B.\*.txt'"):
        text.GloVe.from_file(plain)
    with pytest.raises(RuntimeError, match="Vectors: get real path failed"):
        text.Vectors.from_file(str(tmp_path / "none.txt"))
    with pytest.raises(ValueError, match=r"max_vectors is not within the required interval of \[0, 2147483647\]"):
        text.Vectors.from_file(plain, max_vectors=-1)
    bad = _write(tmp_path / "bad.txt", ["a 1 2 3", "b 1 2"])
    with pytest.raises(RuntimeError, match="same number of dimensions, but got dim 2 while expecting 3 in .*bad.txt, "
                                           "line 2"):
        text.Vectors.from_file(bad)
    with pytest.raises(TypeError, match="Argument vectors"):
        text.ToVectors("not vectors")


# ------------------------------------------------------------------------------------------ FilterWikipediaXML
WIKI = [("Welcome    to    China", "welcome to china"), ("!!!", ""), ("ABC", "abc"),
        ("Rock 'n' Roll 1990s", "ock n oll one nine nine zero s"),
        ("<text xml:space=\"preserve\">Hello [[World|world]] {{cite}} &amp; R2D2</text>", ""),
        ("[[Category:Physics|x]] see [[image:foo.png|thumb|A caption]] and [http://x.org link] |120px",
         "category physics x see image foo png thumb a caption and http x org link one two zero px"),
        ("#REDIRECT [[Foo]]", ""), ("line one\nline two\n\nLine 3", "line one line twonline three"),
        ("Über café 42", "ber caf four two"), ("a &lt;b&gt; c &nbsp; d", "a b c d")]


def test_filter_wikipedia_xml_matches_mindspore():
    op = text.FilterWikipediaXML()
    for raw, clean in WIKI:
        assert str(op(raw)) == clean, raw
    assert op(np.array(["AB", "CD"])).tolist() == ["ab", ""]
    d = ds.NumpySlicesDataset([w for w, _ in WIKI[:3]], column_names=["text"], shuffle=False).map(op)
    assert [str(r[0]) for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)] == \
        ["welcome to china", "", "abc"]
    with pytest.raises(RuntimeError, match="RegexReplace: input is not of type string"):
        op(np.array([1, 2]))


def test_text_namespace_has_mindspore_names():
    for name in ["SentencePieceVocab", "SentencePieceTokenizer", "SentencePieceModel", "SPieceTokenizerOutType",
                 "SPieceTokenizerLoadType", "JiebaTokenizer", "JiebaMode", "Vectors", "GloVe", "FastText",
                 "CharNGram", "ToVectors", "FilterWikipediaXML"]:
        assert hasattr(text, name), name
    assert text.transforms.ToVectors is text.ToVectors and text.utils.SentencePieceVocab is text.SentencePieceVocab
    assert int(text.SPieceTokenizerLoadType.MODEL) == 1 and int(text.SentencePieceModel.WORD) == 3
    assert os.path.basename(text.validators.__file__) == "validators.py"
