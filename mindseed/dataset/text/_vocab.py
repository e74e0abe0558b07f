"""Vocab: word <-> id tables built from lists, dicts, files or datasets."""
import collections
import os

import numpy as np

from mindseed.dataset import _validate as V

__all__ = ["Vocab", "to_str", "to_bytes"]


def _first_duplicate(words):
    seen = set()
    for w in words:
        if w in seen:
            return w
        seen.add(w)
    return None


def _special(special_tokens):
    if special_tokens is None:
        return []
    if not isinstance(special_tokens, list) or not all(isinstance(t, str) for t in special_tokens):
        raise TypeError("special_tokens should be a list of str.")
    dup = _first_duplicate(special_tokens)
    if dup is not None:
        raise ValueError(f"special_tokens contains duplicate word: {dup}.")
    return list(special_tokens)


def _check_first(special_first):
    V.bool_arg(special_first, "special_first")


def _check_freq_range(freq_range):
    """`Vocab.from_dataset`'s freq_range: None, or a tuple (min, max) of ints or None with 0 <= min <= max."""
    if freq_range is None:
        return
    V.type_check(freq_range, (tuple,), "freq_range")
    if len(freq_range) != 2:
        raise ValueError("freq_range needs to be a tuple of 2 element.")
    if any(n is not None and not isinstance(n, int) for n in freq_range):
        raise ValueError("freq_range needs to be either None or a tuple of 2 integers or an int and a None.")
    lo, hi = freq_range
    if isinstance(lo, int) and isinstance(hi, int) and (lo > hi or lo < 0):
        raise ValueError("frequency range [a,b] should be 0 <= a <= b (a,b are inclusive).")


class Vocab:
    """A vocabulary: word -> id (ids are consecutive from 0)."""

    def __init__(self):
        self._word2id = {}

    @classmethod
    def _build(cls, words, special_tokens, special_first):
        v = cls()
        order = (special_tokens + [w for w in words if w not in special_tokens]) if special_first else \
            ([w for w in words if w not in special_tokens] + special_tokens)
        for w in order:
            if w not in v._word2id:
                v._word2id[w] = len(v._word2id)
        return v

    @classmethod
    def from_list(cls, word_list, special_tokens=None, special_first=True):
        """Words in order (ids 0, 1, ...), with `special_tokens` first or last.

        Raises:
            ValueError: `word_list` has duplicates.
        """
        if not isinstance(word_list, list) or not all(isinstance(w, str) for w in word_list):
            raise TypeError("word_list should be a list of str.")
        dup = _first_duplicate(word_list)
        if dup is not None:
            raise ValueError(f"word_list contains duplicate word: {dup}.")
        specials = _special(special_tokens)
        _check_first(special_first)
        clash = set(specials) & set(word_list)
        if clash:
            raise ValueError(f"special_tokens and word_list contain duplicate word :{clash}.")
        return cls._build(word_list, specials, special_first)

    @classmethod
    def from_dict(cls, word_dict):
        """A vocab with exactly the given {word: id} table."""
        if not isinstance(word_dict, dict):
            raise TypeError("word_dict should be a dict of {str: int}.")
        for w, i in word_dict.items():
            if not isinstance(w, str) or isinstance(i, bool) or not isinstance(i, int):
                raise ValueError(f"word_dict entry {w!r}: {i!r} is invalid (need str -> non-negative int).")
            _check_id("word_id", i)
        v = cls()
        v._word2id = dict(word_dict)
        return v

    @classmethod
    def from_file(cls, file_path, delimiter="", vocab_size=None, special_tokens=None, special_first=True):
        """One word per line (the text before `delimiter` if given), the first `vocab_size` lines."""
        if not isinstance(file_path, str) or not os.path.isfile(file_path):
            raise ValueError(f"The file {file_path} does not exist or permission denied!")
        if vocab_size is not None and (isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or
                                       vocab_size <= 0):
            raise ValueError("Input vocab_size is not within the required interval of [1, 2147483647].")
        specials = _special(special_tokens)
        _check_first(special_first)
        words = []
        with open(file_path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\r\n")
                word = line.split(delimiter)[0] if delimiter else line
                word = word.strip() if not delimiter else word
                if not word:
                    continue
                if word in words:
                    raise RuntimeError(f"Vocab.from_file: duplicate word '{word}' in {file_path}.")
                words.append(word)
                if vocab_size is not None and len(words) >= vocab_size:
                    break
        return cls._build(words, specials, special_first)

    @classmethod
    def from_dataset(cls, dataset, columns=None, freq_range=None, top_k=None, special_tokens=None,
                     special_first=True):
        """Words counted over `columns` of `dataset` (1-D string rows): frequency in `freq_range`, the `top_k`
        most frequent (ties broken alphabetically)."""
        from mindseed.dataset._engine import Ctx, _base_seed, _number_nodes
        _check_freq_range(freq_range)
        V.type_check(top_k, (int, type(None)), "top_k")
        if isinstance(top_k, int):
            V.check_positive(top_k, "top_k")
        names = dataset.get_col_names()
        cols = names if columns is None else ([columns] if isinstance(columns, str) else list(columns))
        for c in cols:
            if c not in names:
                raise ValueError(f"Column '{c}' is not in the dataset columns {names}.")
        idx = [names.index(c) for c in cols]
        counts = collections.Counter()
        rows = dataset._rows(Ctx(_base_seed(), (0,), _number_nodes(dataset)))
        for row in rows:
            for i in idx:
                a = np.asarray(row[i])
                if a.dtype.kind not in "US":
                    raise TypeError(f"Vocab.from_dataset: column '{names[i]}' is not a string column.")
                counts.update(x.decode() if isinstance(x, bytes) else str(x) for x in a.reshape(-1))
        lo, hi = (freq_range if freq_range is not None else (None, None))
        lo = 0 if lo is None else lo        # a None bound: no limit on that side
        hi = hi if hi is not None else max(counts.values(), default=0)
        words = sorted((w for w, c in counts.items() if lo <= c <= hi), key=lambda w: (-counts[w], w))
        if top_k is not None:
            words = words[:top_k]
        specials = _special(special_tokens)
        _check_first(special_first)
        return cls._build([w for w in words if w not in specials], specials, special_first)

    def vocab(self):
        """The {word: id} table."""
        return dict(self._word2id)

    def tokens_to_ids(self, tokens):
        """Id of a word (or list of ids); -1 for unknown words."""
        self._check_built()
        if not isinstance(tokens, (str, list, np.ndarray)):
            raise TypeError(f"Argument tokens with value {tokens} is not of type [<class 'str'>, <class 'list'>, "
                            f"<class 'numpy.ndarray'>], but got {type(tokens)}.")
        if isinstance(tokens, np.ndarray):
            tokens = tokens.tolist()        # a 0-d array is one word
        if isinstance(tokens, str):
            return self._word2id.get(tokens, -1)
        for i, t in enumerate(tokens):
            if not isinstance(t, str):
                raise TypeError(f"Argument tokens[{i}] with value {t} is not of type [<class 'str'>, "
                                f"<class 'numpy.str_'>], but got {type(t)}.")
        return [self._word2id.get(t, -1) for t in tokens]

    def ids_to_tokens(self, ids):
        """Word of an id (or list of words); '' for unknown ids."""
        inv = {i: w for w, i in self._word2id.items()}
        self._check_built()
        if isinstance(ids, bool) or not isinstance(ids, (int, np.integer, list, np.ndarray)):
            raise TypeError(f"Argument ids with value {ids} is not of type [<class 'int'>, <class 'list'>, "
                            f"<class 'numpy.ndarray'>], but got {type(ids)}.")
        if isinstance(ids, np.ndarray):
            ids = ids.tolist()              # a 0-d array is one id
        if isinstance(ids, (int, np.integer)):
            _check_id("ids", ids)
            return inv.get(int(ids), "")
        for i, v in enumerate(ids):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"Argument ids[{i}] with value {v} is not of type [<class 'int'>, "
                                f"<class 'numpy.int64'>], but got {type(v)}.")
            _check_id(f"ids[{i}]", v)
        return [inv.get(int(i), "") for i in ids]

    def _check_built(self):
        if not self._word2id:
            raise RuntimeError("The Vocab has not built yet, got type <class 'NoneType'>. Use Vocab.from_dataset(), "
                               "Vocab.from_list(), Vocab.from_file() or Vocab.from_dict() to build a Vocab.")

    def __len__(self):
        return len(self._word2id)


def _check_id(name, value):
    if not 0 <= value <= 2 ** 31 - 1:
        raise ValueError(f"Input {name} is not within the required interval of [0, 2147483647].")


def to_str(array, encoding="utf8"):
    """A bytes (S) numpy array as a str (U) array."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"input should be a NumPy array. Got {type(array)}.")
    return np.char.decode(array, encoding)


def to_bytes(array, encoding="utf8"):
    """A str (U) numpy array as a bytes (S) array."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"input should be a NumPy array. Got {type(array)}.")
    return np.char.encode(array, encoding)
