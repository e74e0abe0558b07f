"""JiebaTokenizer: Chinese word segmentation as MindSpore runs it (cppjieba's MP, HMM and Mix segmenters).

`mp_path` is a cppjieba dictionary ("word freq tag" lines, i.e. jieba's dict.txt); a word's weight is
log(freq / sum of freqs). `hmm_path` is cppjieba's hmm_model.utf8: lines of start, transition (4 x 4) and
emission ("char:logprob,...") log-probabilities for the B/E/M/S states, '#' lines being comments.

* MP: the max-weight path through the dictionary DAG (a character outside the dictionary weighs the dictionary's
  smallest weight).
* HMM: ASCII letter/digit runs are kept whole, every other ASCII character stands alone, and the runs between
  them are cut by Viterbi decoding of the B/E/M/S model.
* MIX: MP, then each run of single characters not added as user words is re-cut by the HMM.

The text is first split at cppjieba's separators (space, tab, newline, "，" and "。"), each one a token.
Offsets are UTF-8 byte offsets.
"""
import math
import os
import re

import numpy as np

from mindseed.dataset.text._transforms import JiebaMode, _byte_offsets, _tokens_out
from mindseed.dataset.transforms._base import TensorOperation

__all__ = ["JiebaTokenizer"]

MIN_DOUBLE = -3.14e100
MAX_WORD_LENGTH = 512
_SEPARATORS = frozenset(" \t\n\uff0c\u3002")
_B, _E, _M, _S = range(4)
_USER_LINE = re.compile(r"^\s*([^\s*]+?)\s*([0-9]+)?\s*$", re.U)


def _load_dict(path):
    words, freqs = [], []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            fields = line.rstrip("\n").split(" ")
            if len(fields) != 3:
                raise RuntimeError(f"JiebaTokenizer: line {lineno} of the dictionary {path} should be "
                                   f"'word freq tag', but got {line.rstrip()!r}.")
            try:
                freqs.append(float(fields[1]))
            except ValueError:
                raise RuntimeError(f"JiebaTokenizer: line {lineno} of the dictionary {path} has a non-numeric "
                                   f"frequency {fields[1]!r}.") from None
            words.append(fields[0])
    if not words:
        raise RuntimeError(f"JiebaTokenizer: the dictionary {path} is empty.")
    total = sum(freqs)
    weights = {}
    for w, fr in zip(words, freqs):
        if fr <= 0:
            raise RuntimeError(f"JiebaTokenizer: the dictionary {path} gives {w!r} a non-positive frequency.")
        weights.setdefault(w, math.log(fr / total))
    ordered = sorted(math.log(fr / total) for fr in freqs)
    return weights, total, ordered[0], ordered[len(ordered) // 2]


def _load_hmm(path):
    lines = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                lines.append(line)
    if len(lines) < 9:
        raise RuntimeError(f"JiebaTokenizer: the HMM model {path} should hold 9 data lines (start, 4 transition, "
                           f"4 emission), but has {len(lines)}.")
    try:
        start = [float(v) for v in lines[0].split(" ")]
        trans = [[float(v) for v in lines[1 + i].split(" ")] for i in range(4)]
        emit = []
        for i in range(4):
            table = {}
            for item in lines[5 + i].split(","):
                ch, prob = item.rsplit(":", 1)
                if len(ch) != 1:
                    raise ValueError(f"emission key {ch!r} is not one character")
                table[ch] = float(prob)
            emit.append(table)
    except ValueError as e:
        raise RuntimeError(f"JiebaTokenizer: the HMM model {path} is malformed: {e}.") from None
    if len(start) != 4 or any(len(r) != 4 for r in trans):
        raise RuntimeError(f"JiebaTokenizer: the HMM model {path} should have 4 start and 4 x 4 transition values.")
    return start, trans, emit


class JiebaTokenizer(TensorOperation):
    """Segment Chinese text with a cppjieba dictionary and HMM model.

    Args:
        hmm_path (str): the HMM model file (cppjieba's hmm_model.utf8).
        mp_path (str): the dictionary file (cppjieba's jieba.dict.utf8).
        mode (JiebaMode, optional): MP, HMM or MIX. Default: ``JiebaMode.MIX``.
        with_offsets (bool, optional): also output the tokens' start and end byte offsets. Default: ``False``.
    """

    def __init__(self, hmm_path, mp_path, mode=JiebaMode.MIX, with_offsets=False):
        if hmm_path is None:
            raise ValueError("The dict of HMMSegment in cppjieba is not provided.")
        if not isinstance(hmm_path, str):
            raise TypeError("Wrong input type for hmm_path, should be string.")
        if mp_path is None:
            raise ValueError("The dict of MPSegment in cppjieba is not provided.")
        if not isinstance(mp_path, str):
            raise TypeError("Wrong input type for mp_path, should be string.")
        if not isinstance(with_offsets, bool):
            raise TypeError("Wrong input type for with_offsets, should be boolean.")
        if not isinstance(mode, JiebaMode):
            raise TypeError("Wrong input type for mode, should be JiebaMode.")
        for path in (hmm_path, mp_path):
            if not os.path.exists(os.path.realpath(path)):
                raise ValueError(f" jieba mode file {path} is not exist.")
        self.mode, self.hmm_path, self.mp_path, self.with_offsets = mode, hmm_path, mp_path, with_offsets
        self.words = []
        self._model = None

    # -- user words -------------------------------------------------------------------------------------------
    def add_word(self, word, freq=None):
        """Add `word` (with frequency `freq`; None or 0 gives it the dictionary's median weight)."""
        if word is None:
            raise ValueError("word is not provided.")
        if freq is not None:
            if isinstance(freq, bool) or not isinstance(freq, int):
                raise TypeError(f"Argument freq with value {freq!r} is not of type [<class 'int'>], but got "
                                f"{type(freq)}.")
            if not 0 <= freq <= 4294967295:
                raise ValueError("Input freq is not within the required interval of [0, 4294967295].")
        self.words.append((word, 0 if freq is None else freq))
        self._model = None

    def add_dict(self, user_dict):
        """Add words from a dict {word: freq} or a file of "word [freq]" lines (other lines are ignored)."""
        if isinstance(user_dict, str):
            if not os.path.exists(user_dict):
                raise ValueError(f"user dict file {user_dict} is not exist.")
            with open(os.path.realpath(user_dict), encoding="utf-8") as f:
                for item in f:
                    m = _USER_LINE.match(item.strip().lstrip("\ufeff"))
                    if m:
                        self.add_word(m.group(1), int(m.group(2)) if m.group(2) is not None else 0)
        elif isinstance(user_dict, dict):
            for k, v in user_dict.items():
                self.add_word(k, v)
        else:
            raise TypeError("The type of user_dict must str or dict.")

    # -- model --------------------------------------------------------------------------------------------------
    def _build(self):
        if self._model is None:
            weights, total, min_w, median_w = _load_dict(self.mp_path)
            user_single = set()
            for word, freq in self.words:
                weights[word] = math.log(freq / total) if freq else median_w
                if len(word) == 1:
                    user_single.add(word)
            longest = min(max(map(len, weights)), MAX_WORD_LENGTH)
            self._model = (weights, longest, min_w, user_single, _load_hmm(self.hmm_path))
        return self._model

    def _mp(self, text):
        weights, longest, min_w, _, _ = self._build()
        n = len(text)
        best = [0.0] * (n + 1)
        choice = [1] * n
        for i in range(n - 1, -1, -1):
            cands = [(1, weights.get(text[i]))]
            for j in range(i + 2, min(n, i + longest) + 1):
                if text[i:j] in weights:
                    cands.append((j - i, weights[text[i:j]]))
            top, pick = MIN_DOUBLE, 1
            for length, w in cands:
                val = best[i + length] + (min_w if w is None else w)
                if val > top:
                    top, pick = val, length
            best[i], choice[i] = top, pick
        spans, i = [], 0
        while i < n:
            spans.append((i, i + choice[i]))
            i += choice[i]
        return spans

    def _viterbi(self, text):
        start, trans, emit = self._build()[4]
        n = len(text)
        weight = [[start[y] + emit[y].get(text[0], MIN_DOUBLE) for y in range(4)]]
        path = [[-1] * 4]
        for x in range(1, n):
            row, back = [], []
            for y in range(4):
                e = emit[y].get(text[x], MIN_DOUBLE)
                top, arg = MIN_DOUBLE, _E
                for p in range(4):
                    v = weight[x - 1][p] + trans[p][y] + e
                    if v > top:
                        top, arg = v, p
                row.append(top)
                back.append(arg)
            weight.append(row)
            path.append(back)
        stat = _E if weight[-1][_E] >= weight[-1][_S] else _S
        states = [0] * n
        for x in range(n - 1, -1, -1):
            states[x] = stat
            stat = path[x][stat]
        return states

    def _hmm(self, text, base=0):
        spans, left, i, n = [], 0, 0, len(text)

        def internal(a, b):
            seg_start = a
            for k, st in enumerate(self._viterbi(text[a:b])):
                if st in (_E, _S):
                    spans.append((base + seg_start, base + a + k + 1))
                    seg_start = a + k + 1

        while i < n:
            if ord(text[i]) < 0x80:
                if left != i:
                    internal(left, i)
                j = i
                if text[j].isascii() and text[j].isalpha():
                    j += 1
                    while j < n and text[j].isascii() and text[j].isalnum():
                        j += 1
                elif text[j] in "0123456789":
                    j += 1
                    while j < n and (text[j] in "0123456789."):
                        j += 1
                else:
                    j += 1
                spans.append((base + i, base + j))
                left = i = j
            else:
                i += 1
        if left != n:
            internal(left, n)
        return spans

    def _mix(self, text):
        user_single = self._build()[3]
        words = self._mp(text)
        spans, i = [], 0
        while i < len(words):
            s, e = words[i]
            if e - s > 1 or text[s] in user_single:
                spans.append((s, e))
                i += 1
                continue
            j = i
            while j < len(words) and words[j][1] - words[j][0] == 1 and text[words[j][0]] not in user_single:
                j += 1
            a, b = words[i][0], words[j - 1][1]
            spans += self._hmm(text[a:b], a)
            i = j
        return spans

    def _segment(self, text):
        cut = {JiebaMode.MP: self._mp, JiebaMode.HMM: self._hmm, JiebaMode.MIX: self._mix}[self.mode]
        spans, start = [], 0
        for i, ch in enumerate(text):
            if ch in _SEPARATORS:
                if start < i:
                    spans += [(start + a, start + b) for a, b in cut(text[start:i])]
                spans.append((i, i + 1))
                start = i + 1
        if start < len(text):
            spans += [(start + a, start + b) for a, b in cut(text[start:])]
        return spans

    def _apply(self, x):
        a = np.asarray(x)
        if a.dtype.kind not in "US" or a.ndim != 0:
            raise RuntimeError(f"JiebaTokenizerOp: the input shape should be scalar and the input datatype should "
                               f"be string, but got shape {list(a.shape)} of {a.dtype}.")
        text = a.item()
        text = text.decode("utf-8") if isinstance(text, bytes) else text
        if text == "":
            out = np.array([""], dtype=str)
            if not self.with_offsets:
                return out
            return out, np.array([], np.uint32), np.array([], np.uint32)
        spans = self._segment(text)
        starts, ends = _byte_offsets(text, spans)
        return _tokens_out([text[s:e] for s, e in spans], starts, ends, self.with_offsets)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_model"] = None
        return state
