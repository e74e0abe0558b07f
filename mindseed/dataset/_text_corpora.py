"""The text corpora of `mindspore.dataset`, each read from its distribution's files in `dataset_dir`.

Most are lines of CSV, TSV or plain text read as a stream (`FileRowSource`); CoNLL2000 and UDPOS group
token lines into sentences; IMDB is one file per review (mappable); SQuAD is one JSON document per split.
"""
import csv
import json
import os

import numpy as np

from mindseed.dataset._engine import TextBaseDataset
from mindseed.dataset._readers import FileRowSource, IndexedSource, json_lines, read_bytes, strings
from mindseed.dataset._text_sources import TextFileDataset

__all__ = ["AGNewsDataset", "AmazonReviewDataset", "DBpediaDataset", "SogouNewsDataset", "YahooAnswersDataset",
           "YelpReviewDataset", "PennTreebankDataset", "WikiTextDataset", "EnWik9Dataset", "SST2Dataset",
           "IMDBDataset", "CoNLL2000Dataset", "UDPOSDataset", "SQuADDataset", "Multi30kDataset", "CLUEDataset",
           "IWSLT2016Dataset", "IWSLT2017Dataset"]

_STREAM = ("dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL, "
           "num_shards=None, shard_id=None, cache=None")
# the same arguments in the order of the readers that put num_parallel_workers after shard_id
_STREAM_LATE = ("dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, "
                "num_parallel_workers=None, cache=None")
_TRAIN_TEST = {"train": "train.csv", "test": "test.csv"}


class _Corpus(FileRowSource, TextBaseDataset):
    """A corpus whose files are named by usage (`_names`: usage -> file name; 'all' reads them all)."""

    _signature = _STREAM
    _choices = {"usage": ("train", "test", "all", None)}
    _names = _TRAIN_TEST

    def _files(self):
        return self._usage_files(self._names)


# ---------------------------------------------------------------------------- CSV corpora
class _CsvCorpus(_Corpus):
    """Quoted CSV without a header, one row per record, every field a string column."""

    def _file_rows(self, path):
        with open(path, newline="", encoding="utf-8") as f:
            for line, rec in enumerate(csv.reader(f), 1):
                if not rec:
                    continue
                if len(rec) != len(self._columns):
                    raise RuntimeError(f"Invalid csv, {path} record {line} has {len(rec)} fields, but "
                                       f"{type(self).__name__} has {len(self._columns)} columns {list(self._columns)}.")
                yield [np.array(v) for v in rec]


class AGNewsDataset(_CsvCorpus):
    """AG News (`train.csv`, `test.csv`): columns index, title, description (string)."""

    _columns = ("index", "title", "description")


class AmazonReviewDataset(_CsvCorpus):
    """Amazon reviews, polarity or full (`train.csv`, `test.csv`): columns label, title, content (string)."""

    _columns = ("label", "title", "content")


class DBpediaDataset(_CsvCorpus):
    """DBpedia ontology (`train.csv`, `test.csv`): columns class, title, content (string)."""

    _columns = ("class", "title", "content")


class SogouNewsDataset(_CsvCorpus):
    """Sogou News (`train.csv`, `test.csv`): columns index, title, content (string)."""

    _signature = _STREAM_LATE
    _columns = ("index", "title", "content")


class YahooAnswersDataset(_CsvCorpus):
    """Yahoo! Answers (`train.csv`, `test.csv`): columns class, title, content, answer (string)."""

    _columns = ("class", "title", "content", "answer")


class YelpReviewDataset(_CsvCorpus):
    """Yelp reviews, polarity or full (`train.csv`, `test.csv`): columns label, text (string)."""

    _signature = _STREAM_LATE
    _columns = ("label", "text")


# ---------------------------------------------------------------------------- line corpora
class _LineCorpus(_Corpus):
    """One row per non-empty line: column text (string)."""

    _file_rows = TextFileDataset._file_rows


class PennTreebankDataset(_LineCorpus):
    """Penn Treebank language-model text (`ptb.{train,valid,test}.txt`): column text."""

    _choices = {"usage": ("train", "valid", "test", "all", None)}
    _names = {"train": "ptb.train.txt", "valid": "ptb.valid.txt", "test": "ptb.test.txt"}


class WikiTextDataset(_LineCorpus):
    """WikiText-2/103 (`wiki.{train,valid,test}.tokens`): column text."""

    _choices = {"usage": ("train", "valid", "test", "all", None)}
    _names = {"train": "wiki.train.tokens", "valid": "wiki.valid.tokens", "test": "wiki.test.tokens"}


class EnWik9Dataset(_LineCorpus):
    """The first 10^9 bytes of English Wikipedia (the file `enwik9`): column text."""

    _signature = ("dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=True, num_shards=None, "
                  "shard_id=None, cache=None")
    _choices = {}

    def _files(self):
        return [self._need(self._path("enwik9"))]


class SST2Dataset(_Corpus):
    """SST-2 (`{train,dev,test}.tsv` with a header): columns sentence, label (string) for train and dev, sentence
    for test.

    Args:
        usage (str, optional): ``'train'``, ``'dev'`` or ``'test'``. Default: ``None`` (train).
    """

    _choices = {"usage": ("train", "dev", "test", None)}
    _names = {"train": "train.tsv", "dev": "dev.tsv", "test": "test.tsv"}

    def _check_args(self):
        if self.usage is None:
            self.usage = "train"

    def _col_names(self):
        return ["sentence"] if self.usage == "test" else ["sentence", "label"]

    def _file_rows(self, path):
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
            header = next(reader, None)
            width = 2
            for line, rec in enumerate(reader, 2):
                if not rec:
                    continue
                if header is None or len(rec) != width:
                    raise RuntimeError(f"Invalid file, {path} line {line} has {len(rec)} tab-separated fields, but "
                                       f"SST2 rows have {width}.")
                # train/dev: sentence, label; test: index, sentence
                yield [np.array(rec[1])] if self.usage == "test" else [np.array(rec[0]), np.array(rec[1])]


# ---------------------------------------------------------------------------- sentence corpora
class _SentenceCorpus(_Corpus):
    """Token lines (`_columns` fields each) grouped into sentences by blank lines: each column a 1-D string
    array of the sentence's tokens."""

    _signature = _STREAM_LATE
    _delimiter = None

    def _file_rows(self, path):
        sentence, start = [], 0
        with open(path, encoding="utf-8") as f:
            for line_no, line in enumerate(f, 1):
                fields = line.rstrip("\r\n").split(self._delimiter)
                if not line.strip():
                    if sentence:
                        yield [strings(col) for col in zip(*sentence)]
                    sentence = []
                    continue
                if not sentence:
                    start = line_no
                if len(fields) != len(self._columns):
                    raise RuntimeError(f"Invalid file, {path} line {line_no} (in the sentence from line {start}) has "
                                       f"{len(fields)} fields, but {type(self).__name__} has {len(self._columns)}.")
                sentence.append(fields)
        if sentence:
            yield [strings(col) for col in zip(*sentence)]


class CoNLL2000Dataset(_SentenceCorpus):
    """CoNLL-2000 chunking (`train.txt`, `test.txt`; "word POS chunk" per line): columns word, pos_tag,
    chunk_tag."""

    _columns = ("word", "pos_tag", "chunk_tag")
    _names = {"train": "train.txt", "test": "test.txt"}


class UDPOSDataset(_SentenceCorpus):
    """Universal Dependencies English POS (`train.txt`, `valid.txt`, `test.txt`; tab-separated "word universal
    stanford"): columns word, universal, stanford."""

    _columns = ("word", "universal", "stanford")
    _choices = {"usage": ("train", "valid", "test", "all", None)}
    _names = {"train": "train.txt", "valid": "valid.txt", "test": "test.txt"}
    _delimiter = "\t"


# ---------------------------------------------------------------------------- IMDB
class IMDBDataset(IndexedSource, TextBaseDataset):
    """IMDB reviews (`{train,test}/{pos,neg}/*.txt`): columns text (string) and label (uint32: 1 pos, 0 neg).

    Args:
        usage (str, optional): ``'train'``, ``'test'`` or ``'all'``. Default: ``None`` (all).
    """

    _signature = ("dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None, "
                  "num_shards=None, shard_id=None, cache=None")
    _choices = {"usage": ("train", "test", "all", None)}
    _columns = ("text", "label")

    def _scan(self):
        parts = ("train", "test") if self.usage == "all" else (self.usage,)
        records = []
        for part in parts:
            for label, sub in ((1, "pos"), (0, "neg")):
                folder = self._path(part, sub)
                if not os.path.isdir(folder):
                    raise RuntimeError(f"Invalid file, IMDBDataset: folder not found: {folder}.")
                records += [(os.path.join(folder, n), label) for n in sorted(os.listdir(folder)) if n.endswith(".txt")]
        return records

    def _class_labels(self):
        return np.asarray([r[1] for r in self._index()], np.uint32)

    def _load(self, record):
        path, label = record
        try:
            text = read_bytes(path).decode("utf-8")
        except UnicodeDecodeError as e:
            raise RuntimeError(f"Invalid file, {path} is not UTF-8 text: {e}.") from None
        return [np.array(text), np.array(label, np.uint32)]


# ---------------------------------------------------------------------------- SQuAD
class SQuADDataset(_Corpus):
    """SQuAD 1.1 or 2.0 (`train-v1.1.json`/`dev-v1.1.json` or `train-v2.0.json`/`dev-v2.0.json`): one row per
    question: context, question (string), text (string (k,): the answers) and answer_start (uint32 (k,));
    an unanswerable question has empty text and answer_start.

    Args:
        usage (str, optional): ``'train'``, ``'dev'`` or ``'all'``. Default: ``None`` (all).
    """

    _choices = {"usage": ("train", "dev", "all", None)}
    _columns = ("context", "question", "text", "answer_start")

    def _files(self):
        parts = ("train", "dev") if self.usage == "all" else (self.usage,)
        files = []
        for part in parts:
            found = [self._path(f"{part}-v{v}.json") for v in ("1.1", "2.0") if os.path.isfile(self._path(
                f"{part}-v{v}.json"))]
            if not found:
                raise ValueError(f"SQuADDataset: no {part}-v1.1.json or {part}-v2.0.json in {self.dataset_dir}.")
            files += found
        return files

    def _file_rows(self, path):
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (ValueError, UnicodeDecodeError) as e:
            raise RuntimeError(f"Invalid file, {path} is not a valid SQuAD JSON (truncated or corrupt: {e}).") \
                from None
        for a, article in enumerate(doc.get("data", [])):
            for p, para in enumerate(article.get("paragraphs", [])):
                for q, qa in enumerate(para.get("qas", [])):
                    try:
                        answers = qa.get("answers", [])
                        row = [np.array(para["context"]), np.array(qa["question"]),
                               strings([x["text"] for x in answers]),
                               np.asarray([x["answer_start"] for x in answers], np.uint32)]
                    except (KeyError, TypeError):
                        raise RuntimeError(f"Invalid file, {path}: data[{a}].paragraphs[{p}].qas[{q}] lacks context, "
                                           f"question or an answer's text/answer_start.") from None
                    yield row


# ---------------------------------------------------------------------------- Multi30k
class _Translation(_Corpus):
    """Parallel corpora: each file of the source language has a partner in the target language whose k-th
    sentence translates its k-th sentence; columns text and translation (string)."""

    _columns = ("text", "translation")
    _languages = ("en", "de")
    _default_pair = ("de", "en")

    def _check_args(self):
        pair = list(self._default_pair) if self.language_pair is None else self.language_pair
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or pair[0] == pair[1] or \
                not all(x in self._languages for x in pair) or "en" not in pair and "en" in self._needs_en:
            raise ValueError(f"Input language_pair is not a valid pair of {list(self._languages)}"
                             f"{' including en' if self._needs_en else ''}, but got {self.language_pair!r}.")
        self.language_pair = list(pair)

    _needs_en = ()

    def _partner(self, path):
        src, tgt = self.language_pair
        head, dot, ext = path.rpartition(f".{src}")
        return head + f".{tgt}" + ext

    @staticmethod
    def _sentences(f, path):
        for line in f:
            yield line.rstrip("\r\n")

    def _file_rows(self, path):
        other = self._need(self._partner(path))
        with open(path, encoding="utf-8") as fa, open(other, encoding="utf-8") as fb:
            sa, sb = self._sentences(fa, path), self._sentences(fb, other)
            count = 0
            while True:
                a, b = next(sa, None), next(sb, None)
                if a is None and b is None:
                    return
                if a is not None and b is not None:
                    count += 1
                    yield [np.array(a), np.array(b)]
                    continue
                raise RuntimeError(f"Invalid file, {path} and {other} differ in length after sentence {count}: every "
                                   f"sentence needs its translation.")


class Multi30kDataset(_Translation):
    """Multi30k translation pairs (`train.{en,de}`, `val.{en,de}`, `test2016.{en,de}`): columns text and
    translation (string), in `language_pair` order.

    Args:
        usage (str, optional): ``'train'``, ``'valid'``, ``'test'`` or ``'all'``. Default: ``None`` (all).
        language_pair (Sequence[str], optional): ``['en', 'de']`` or ``['de', 'en']``. Default: ``['en', 'de']``.
    """

    _signature = ("dataset_dir, usage=None, language_pair=None, num_samples=None, num_parallel_workers=None, "
                  "shuffle=None, num_shards=None, shard_id=None, cache=None")
    _choices = {"usage": ("train", "valid", "test", "all", None)}
    _default_pair = ("en", "de")

    def _files(self):
        src = self.language_pair[0]
        return self._usage_files({"train": f"train.{src}", "valid": f"val.{src}", "test": f"test2016.{src}"})


class _IWSLT(_Translation):
    """IWSLT TED talks: `train.tags.<src>-<tgt>.<src>` (metadata lines in <tags> are skipped) and
    `IWSLT1x.TED.<set>.<src>-<tgt>.<src>.xml` (the <seg> elements)."""

    _STREAM_PAIR = ("num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, "
                    "num_parallel_workers=None, cache=None")
    _choices = {"usage": ("train", "valid", "test", "all", None)}

    def _names(self, root, year, valid, test):
        src, tgt = self.language_pair
        pair = f"{src}-{tgt}"
        return {"train": os.path.join(root, f"train.tags.{pair}.{src}"),
                "valid": os.path.join(root, f"IWSLT{year}.TED.{valid}.{pair}.{src}.xml"),
                "test": os.path.join(root, f"IWSLT{year}.TED.{test}.{pair}.{src}.xml")}

    @staticmethod
    def _sentences(f, path):
        xml = path.endswith(".xml")
        for line in f:
            line = line.strip()
            if xml:
                if line.startswith("<seg") and line.endswith("</seg>"):
                    yield line[line.index(">") + 1:-len("</seg>")].strip()
            elif line and not line.startswith("<"):
                yield line


class IWSLT2016Dataset(_IWSLT):
    """IWSLT 2016 (`texts/<src>/<tgt>/<src>-<tgt>/...`): columns text and translation.

    Args:
        language_pair (Sequence[str], optional): two of en, fr, de, cs, ar, one of them en. Default: ``['de', 'en']``.
        valid_set, test_set (str, optional): ``'dev2010'``, ``'tst2010'`` ... ``'tst2014'``. Default:
            ``'tst2013'`` and ``'tst2014'``.
    """

    _signature = "dataset_dir, usage=None, language_pair=None, valid_set=None, test_set=None, " + _IWSLT._STREAM_PAIR
    _sets = ("dev2010", "tst2010", "tst2011", "tst2012", "tst2013", "tst2014", None)
    _choices = dict(_IWSLT._choices, valid_set=_sets, test_set=_sets)
    _languages = ("en", "fr", "de", "cs", "ar")
    _needs_en = ("en",)

    def _files(self):
        src, tgt = self.language_pair
        root = self._path("texts", src, tgt, f"{src}-{tgt}")
        return self._usage_files(self._names(root, 16, self.valid_set or "tst2013", self.test_set or "tst2014"))


class IWSLT2017Dataset(_IWSLT):
    """IWSLT 2017 (`DeEnItNlRo-DeEnItNlRo/...`, dev2010 and tst2010 sets): columns text and translation.

    Args:
        language_pair (Sequence[str], optional): two of en, nl, de, it, ro. Default: ``['de', 'en']``.
    """

    _signature = "dataset_dir, usage=None, language_pair=None, " + _IWSLT._STREAM_PAIR
    _languages = ("en", "nl", "de", "it", "ro")

    def _files(self):
        return self._usage_files(self._names(self._path("DeEnItNlRo-DeEnItNlRo"), 17, "dev2010", "tst2010"))


# ---------------------------------------------------------------------------- CLUE
_S, _U = "str", "uint32"
# task -> (train/eval columns, test columns), each [(json key, kind)]
_PAIR = ([("sentence1", _S), ("sentence2", _S), ("label", _S)], [("id", _U), ("sentence1", _S), ("sentence2", _S)])
_CLUE_COLUMNS = {
    "AFQMC": _PAIR, "CMNLI": _PAIR,
    "TNEWS": ([("label", _S), ("label_des", _S), ("sentence", _S), ("keywords", _S)],
              [("id", _U), ("sentence", _S), ("keywords", _S)]),
    "IFLYTEK": ([("label", _S), ("label_des", _S), ("sentence", _S)], [("id", _U), ("sentence", _S)]),
    "CSL": ([("id", _U), ("abst", _S), ("keyword", "strs"), ("label", _S)],
            [("id", _U), ("abst", _S), ("keyword", "strs")]),
}
_WSC = [("span1_index", _U), ("span2_index", _U), ("span1_text", _S), ("span2_text", _S), ("idx", _U), ("text", _S)]
_CLUE_COLUMNS["WSC"] = (_WSC + [("label", _S)], _WSC)


class CLUEDataset(FileRowSource, TextBaseDataset):
    """CLUE benchmark files (one JSON object per line) for a `task`; the columns depend on task and usage
    (e.g. AFQMC train/eval: sentence1, sentence2, label; test: id, sentence1, sentence2).

    Args:
        dataset_files (Union[str, list[str]]): files or glob patterns.
        task (str, optional): ``'AFQMC'``, ``'TNEWS'``, ``'IFLYTEK'``, ``'CMNLI'``, ``'WSC'`` or ``'CSL'``.
            Default: ``'AFQMC'``.
        usage (str, optional): ``'train'``, ``'test'`` or ``'eval'``. Default: ``'train'``.
    """

    _signature = ("dataset_files, task='AFQMC', usage='train', num_samples=None, num_parallel_workers=None, "
                  "shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None")
    _choices = {"task": tuple(_CLUE_COLUMNS), "usage": ("train", "test", "eval")}

    def _spec(self):
        return _CLUE_COLUMNS[self.task][1 if self.usage == "test" else 0]

    def _col_names(self):
        return [k for k, _ in self._spec()]

    def _file_rows(self, path):
        spec = self._spec()
        what = f"a CLUE {self.task} {self.usage} record"
        for line_no, obj in json_lines(path, what):
            try:
                if self.task == "WSC":
                    obj = dict(obj, **obj.get("target", {}))
                row = [self._value(obj[k], kind) for k, kind in spec]
            except (ValueError, KeyError, TypeError, AttributeError) as e:
                raise RuntimeError(f"Invalid file, {path} line {line_no}: not {what} ({type(e).__name__}: {e}).") \
                    from None
            yield row

    @staticmethod
    def _value(v, kind):
        if kind == _U:
            return np.array(int(v), np.uint32)
        if kind == "strs":
            return strings([str(x) for x in v])
        return np.array(str(v))
