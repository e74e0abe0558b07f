"""Text corpora readers on small files laid out as each corpus is distributed."""
import csv
import json

import numpy as np
import pytest

import mindseed.dataset as ds


def rows(d, **kw):
    return [[np.asarray(x) for x in r] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True, **kw)]


def strs(out, col=0):
    return [str(r[col]) for r in out]


def _write_csv(path, records):
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, quoting=csv.QUOTE_ALL).writerows(records)


CSV_CORPORA = [(ds.AGNewsDataset, ["index", "title", "description"]),
               (ds.AmazonReviewDataset, ["label", "title", "content"]),
               (ds.DBpediaDataset, ["class", "title", "content"]),
               (ds.SogouNewsDataset, ["index", "title", "content"]),
               (ds.YahooAnswersDataset, ["class", "title", "content", "answer"]),
               (ds.YelpReviewDataset, ["label", "text"])]


@pytest.mark.parametrize("cls,columns", CSV_CORPORA)
def test_csv_corpora_columns_usage_shards_and_errors(tmp_path, cls, columns):
    width = len(columns)
    train = [[str(i)] + [f"t{i}, \"quoted\"\nline {k}" for k in range(width - 1)] for i in range(5)]
    _write_csv(str(tmp_path / "train.csv"), train)
    _write_csv(str(tmp_path / "test.csv"), [["9"] + ["x"] * (width - 1)])
    d = cls(str(tmp_path), usage="train", shuffle=False)
    out = rows(d)
    assert d.get_col_names() == columns and d.get_dataset_size() == 5
    assert strs(out) == ["0", "1", "2", "3", "4"] and str(out[2][-1]) == train[2][-1]
    assert out[0][0].dtype.kind == "U"
    assert strs(rows(cls(str(tmp_path), shuffle=False))) == ["9", "0", "1", "2", "3", "4"]   # files sorted
    parts = [strs(rows(cls(str(tmp_path), usage="train", shuffle=False, num_shards=2, shard_id=i))) for i in range(2)]
    assert parts == [["0", "2", "4"], ["1", "3", "0"]]
    assert sorted(strs(rows(cls(str(tmp_path), usage="train")))) == ["0", "1", "2", "3", "4"]   # shuffled
    assert len(rows(cls(str(tmp_path), usage="train", num_samples=2))) == 2
    _write_csv(str(tmp_path / "test.csv"), [["9"] + ["x"] * (width - 1), ["8"]])
    with pytest.raises(RuntimeError, match="test.csv record 2 has 1 fields"):
        rows(cls(str(tmp_path), usage="test"))
    with pytest.raises(ValueError, match="valid set"):
        cls(str(tmp_path), usage="valid")


@pytest.mark.parametrize("cls,names", [(ds.PennTreebankDataset, "ptb.{}.txt"), (ds.WikiTextDataset, "wiki.{}.tokens")])
def test_line_corpora(tmp_path, cls, names):
    for usage in ("train", "valid", "test"):
        (tmp_path / names.format(usage)).write_text(f" {usage} one \n\n {usage} two \n")
    out = rows(cls(str(tmp_path), usage="valid", shuffle=False))
    assert strs(out) == [" valid one ", " valid two "]
    assert cls(str(tmp_path)).get_dataset_size() == 6 and cls(str(tmp_path)).get_col_names() == ["text"]
    (tmp_path / names.format("test")).unlink()
    with pytest.raises(ValueError, match="usage 'test'"):
        cls(str(tmp_path), usage="test")


def test_enwik9_streams_its_file(tmp_path):
    (tmp_path / "enwik9").write_text("<mediawiki>\n  <page>\n\n</mediawiki>\n")
    d = ds.EnWik9Dataset(str(tmp_path), shuffle=False, num_shards=2, shard_id=1)
    assert strs(rows(d)) == ["  <page>", "<mediawiki>"] and d.get_dataset_size() == 2
    with pytest.raises(ValueError, match="does not exist"):
        ds.EnWik9Dataset(str(tmp_path / "missing"))
    (tmp_path / "enwik9").unlink()
    with pytest.raises(RuntimeError, match="file not found: .*enwik9"):
        ds.EnWik9Dataset(str(tmp_path))


def test_sst2_usages(tmp_path):
    (tmp_path / "train.tsv").write_text("sentence\tlabel\nit 's great \t1\nbad , really\t0\n")
    (tmp_path / "test.tsv").write_text("index\tsentence\n0\tunlabeled one\n")
    d = ds.SST2Dataset(str(tmp_path), shuffle=False)
    assert d.get_col_names() == ["sentence", "label"]
    assert [(str(a), str(b)) for a, b in rows(d)] == [("it 's great ", "1"), ("bad , really", "0")]
    t = ds.SST2Dataset(str(tmp_path), usage="test", shuffle=False)
    assert t.get_col_names() == ["sentence"] and strs(rows(t)) == ["unlabeled one"]
    (tmp_path / "train.tsv").write_text("sentence\tlabel\nno label here\n")
    with pytest.raises(RuntimeError, match="train.tsv line 2"):
        rows(ds.SST2Dataset(str(tmp_path)))


def test_imdb_folders_labels_sampler_and_encoding_error(tmp_path):
    texts = {}
    for part in ("train", "test"):
        for sub in ("pos", "neg"):
            (tmp_path / part / sub).mkdir(parents=True)
            for k in range(2):
                text = f"{part} {sub} review {k} — good" if sub == "pos" else f"{part} {sub} {k}"
                (tmp_path / part / sub / f"{k}_{k + 5}.txt").write_text(text, encoding="utf-8")
                texts[(part, sub, k)] = text
    d = ds.IMDBDataset(str(tmp_path), usage="train", shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["text", "label"] and [int(r[1]) for r in out] == [1, 1, 0, 0]
    assert str(out[0][0]) == texts[("train", "pos", 0)] and out[0][1].dtype == np.uint32
    assert ds.IMDBDataset(str(tmp_path)).get_dataset_size() == 8
    picked = rows(ds.IMDBDataset(str(tmp_path), usage="test", sampler=ds.SubsetSampler([3, 0])))
    assert strs(picked) == [texts[("test", "neg", 1)], texts[("test", "pos", 0)]]
    parts = [rows(ds.IMDBDataset(str(tmp_path), shuffle=False, num_shards=4, shard_id=i)) for i in range(4)]
    assert [len(p) for p in parts] == [2, 2, 2, 2]
    (tmp_path / "test" / "neg" / "0_5.txt").write_bytes(b"\xff\xfe bad")
    with pytest.raises(RuntimeError, match="0_5.txt is not UTF-8"):
        rows(ds.IMDBDataset(str(tmp_path), usage="test"))


@pytest.mark.parametrize("cls,sep,names", [(ds.CoNLL2000Dataset, " ", ("train.txt", "test.txt")),
                                           (ds.UDPOSDataset, "\t", ("train.txt", "valid.txt", "test.txt"))])
def test_sentence_corpora_group_tokens(tmp_path, cls, sep, names):
    body = sep.join(["Confidence", "NN", "B-NP"]) + "\n" + sep.join(["in", "IN", "B-PP"]) + "\n\n" + \
        sep.join(["Rockwell", "NNP", "B-NP"]) + "\n"
    for n in names:
        (tmp_path / n).write_text(body)
    d = cls(str(tmp_path), usage="train", shuffle=False)
    out = rows(d)
    assert len(d.get_col_names()) == 3 and len(out) == 2
    assert out[0][0].tolist() == ["Confidence", "in"] and out[0][2].tolist() == ["B-NP", "B-PP"]
    assert out[1][1].tolist() == ["NNP"] and out[1][1].shape == (1,)
    assert cls(str(tmp_path)).get_dataset_size() == 2 * len(names)
    (tmp_path / "test.txt").write_text(body + "\nbroken" + sep + "line\n")
    with pytest.raises(RuntimeError, match="test.txt line 6 .*sentence from line 6"):
        rows(cls(str(tmp_path), usage="test"))


def test_squad_rows_per_question(tmp_path):
    doc = {"data": [{"title": "T", "paragraphs": [{"context": "Paris is in France.", "qas": [
        {"question": "Where is Paris?", "answers": [{"text": "France", "answer_start": 12},
                                                     {"text": "in France", "answer_start": 9}]},
        {"question": "Unanswerable?", "answers": [], "is_impossible": True}]}]}]}
    (tmp_path / "train-v2.0.json").write_text(json.dumps(doc))
    (tmp_path / "dev-v1.1.json").write_text(json.dumps(doc))
    d = ds.SQuADDataset(str(tmp_path), usage="train", shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["context", "question", "text", "answer_start"] and len(out) == 2
    assert out[0][2].tolist() == ["France", "in France"] and out[0][3].tolist() == [12, 9]
    assert out[0][3].dtype == np.uint32 and out[1][2].shape == (0,)
    assert ds.SQuADDataset(str(tmp_path)).get_dataset_size() == 4
    (tmp_path / "dev-v1.1.json").write_text(json.dumps(doc)[:40])
    with pytest.raises(RuntimeError, match="dev-v1.1.json is not a valid SQuAD JSON"):
        rows(ds.SQuADDataset(str(tmp_path), usage="dev"))


def test_multi30k_pairs_and_language_order(tmp_path):
    (tmp_path / "train.en").write_text("A dog runs.\nTwo men.\nA cat.\n")
    (tmp_path / "train.de").write_text("Ein Hund rennt.\nZwei Männer.\nEine Katze.\n")
    d = ds.Multi30kDataset(str(tmp_path), usage="train", shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["text", "translation"]
    assert [(str(a), str(b)) for a, b in out][1] == ("Two men.", "Zwei Männer.")
    rev = rows(ds.Multi30kDataset(str(tmp_path), usage="train", language_pair=["de", "en"], shuffle=False))
    assert (str(rev[2][0]), str(rev[2][1])) == ("Eine Katze.", "A cat.")
    parts = [rows(ds.Multi30kDataset(str(tmp_path), usage="train", shuffle=False, num_shards=3, shard_id=i))
             for i in range(3)]
    assert [str(p[0][0]) for p in parts] == ["A dog runs.", "Two men.", "A cat."]
    with pytest.raises(ValueError, match="language_pair"):
        ds.Multi30kDataset(str(tmp_path), language_pair=["en", "fr"])
    (tmp_path / "train.de").write_text("Ein Hund rennt.\n")
    with pytest.raises(RuntimeError, match="train.en and .*train.de differ in length after sentence 1"):
        rows(ds.Multi30kDataset(str(tmp_path), usage="train"))


def test_clue_tasks_usage_columns_and_types(tmp_path):
    afqmc = tmp_path / "afqmc_train.json"
    afqmc.write_text("\n".join(json.dumps({"sentence1": f"s{i}", "sentence2": f"t{i}", "label": str(i % 2)})
                               for i in range(4)) + "\n")
    d = ds.CLUEDataset(str(afqmc), task="AFQMC", usage="train", shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["sentence1", "sentence2", "label"] and strs(out, 2) == ["0", "1", "0", "1"]
    test = tmp_path / "afqmc_test.json"
    test.write_text(json.dumps({"id": 7, "sentence1": "a", "sentence2": "b"}) + "\n")
    t = rows(ds.CLUEDataset(str(test), usage="test"))
    assert int(t[0][0]) == 7 and t[0][0].dtype == np.uint32
    wsc = tmp_path / "wsc.json"
    wsc.write_text(json.dumps({"target": {"span1_index": 0, "span2_index": 3, "span1_text": "A", "span2_text": "it"},
                               "idx": 5, "text": "A ... it", "label": "true"}) + "\n")
    w = ds.CLUEDataset(str(wsc), task="WSC", usage="eval")
    row = rows(w)[0]
    assert w.get_col_names()[-1] == "label" and int(row[1]) == 3 and str(row[3]) == "it" and int(row[4]) == 5
    csl = tmp_path / "csl.json"
    csl.write_text(json.dumps({"id": 1, "abst": "x", "keyword": ["k1", "k2"], "label": "1"}) + "\n")
    assert rows(ds.CLUEDataset(str(csl), task="CSL"))[0][2].tolist() == ["k1", "k2"]
    parts = [rows(ds.CLUEDataset(str(afqmc), shuffle=False, num_shards=2, shard_id=i)) for i in range(2)]
    assert strs(parts[1]) == ["s1", "s3"]
    afqmc.write_text(json.dumps({"sentence1": "only one"}) + "\n")
    with pytest.raises(RuntimeError, match="afqmc_train.json line 1: not a CLUE AFQMC train record"):
        rows(ds.CLUEDataset(str(afqmc)))


def test_sharded_and_buffer_shuffled_lines_stream_in_bounded_memory(tmp_path, monkeypatch):
    import tracemalloc

    from mindseed.dataset import _text_sources
    path = tmp_path / "big.txt"
    line = "x" * 190
    path.write_text("".join(f"{i:08d} {line}\n" for i in range(60000)))   # ~12 MB
    monkeypatch.setattr(_text_sources, "SHUFFLE_BUFFER", 1000)
    for kw in ({"shuffle": False, "num_shards": 3, "shard_id": 2}, {"shuffle": True}):
        d = ds.TextFileDataset(str(path), **kw)
        tracemalloc.start()
        seen = [int(str(r[0])[:8]) for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 4 << 20, (kw, peak)        # rows are not all held: 60000 rows take ~15 MB
        if "num_shards" in kw:
            assert seen[:3] == [2, 5, 8] and len(seen) == 20000
        else:
            assert sorted(seen) == list(range(60000)) and seen[:100] != list(range(100))
    # a shard one row short wraps around to the start
    (tmp_path / "five.txt").write_text("a\nb\nc\nd\ne\n")
    assert strs(rows(ds.TextFileDataset(str(tmp_path / "five.txt"), shuffle=False, num_shards=3, shard_id=2))) == \
        ["c", "a"]


def _iwslt_files(root, year, src, tgt, valid, test):
    root.mkdir(parents=True)
    sents = {src: ["Hallo Welt.", "Zweiter Satz."], tgt: ["Hello world.", "Second sentence."]}
    for lang in (src, tgt):
        (root / f"train.tags.{src}-{tgt}.{lang}").write_text(
            "<url>http://www.ted.com/talks/x</url>\n<keywords>talks</keywords>\n" + "\n".join(sents[lang]) + "\n")
        for s in (valid, test):
            segs = "".join(f'<seg id="{k + 1}"> {t} </seg>\n' for k, t in enumerate(sents[lang][:1]))
            (root / f"IWSLT{year}.TED.{s}.{src}-{tgt}.{lang}.xml").write_text(
                f'<refset>\n<doc docid="1">\n<talkid>1</talkid>\n{segs}</doc>\n</refset>\n')


def test_iwslt_2016_and_2017_tags_and_xml(tmp_path):
    _iwslt_files(tmp_path / "texts" / "de" / "en" / "de-en", 16, "de", "en", "tst2013", "tst2014")
    d = ds.IWSLT2016Dataset(str(tmp_path), usage="train", shuffle=False)
    out = rows(d)
    assert d.get_col_names() == ["text", "translation"]
    assert [(str(a), str(b)) for a, b in out] == [("Hallo Welt.", "Hello world."),
                                                  ("Zweiter Satz.", "Second sentence.")]
    v = rows(ds.IWSLT2016Dataset(str(tmp_path), usage="valid", shuffle=False))
    assert [(str(a), str(b)) for a, b in v] == [("Hallo Welt.", "Hello world.")]
    assert ds.IWSLT2016Dataset(str(tmp_path), shuffle=False).get_dataset_size() == 4
    with pytest.raises(ValueError, match="no .*tst2012"):
        ds.IWSLT2016Dataset(str(tmp_path), usage="valid", valid_set="tst2012")
    with pytest.raises(ValueError, match="language_pair"):
        ds.IWSLT2016Dataset(str(tmp_path), language_pair=["de", "fr"])
    _iwslt_files(tmp_path / "DeEnItNlRo-DeEnItNlRo", 17, "it", "ro", "dev2010", "tst2010")
    t = ds.IWSLT2017Dataset(str(tmp_path), usage="test", language_pair=["it", "ro"], shuffle=False)
    assert [str(r[1]) for r in rows(t)] == ["Hello world."]
    (tmp_path / "DeEnItNlRo-DeEnItNlRo" / "train.tags.it-ro.ro").write_text("Only one.\n")
    with pytest.raises(RuntimeError, match="train.tags.it-ro.it and .*train.tags.it-ro.ro differ in length"):
        rows(ds.IWSLT2017Dataset(str(tmp_path), usage="train", language_pair=["it", "ro"]))
