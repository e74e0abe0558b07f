"""Text transforms: tokenizers, lookup, n-grams and sequence utilities (`mindspore.dataset.text`)."""
import enum
import re
import unicodedata

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.dataset.text._vocab import Vocab
from mindseed.dataset import _validate as V
from mindseed.dataset.transforms._base import TensorOperation
from mindseed.dataset.transforms._transforms import _np_dtype

__all__ = ["NormalizeForm", "JiebaMode", "PythonTokenizer", "WhitespaceTokenizer", "UnicodeCharTokenizer",
           "RegexTokenizer", "BasicTokenizer", "WordpieceTokenizer", "BertTokenizer", "UnicodeScriptTokenizer",
           "Lookup", "Ngram", "ToNumber", "TruncateSequencePair", "SlidingWindow", "Truncate", "AddToken",
           "CaseFold", "NormalizeUTF8", "RegexReplace"]


class NormalizeForm(enum.IntEnum):
    """Unicode normalization forms."""
    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


class JiebaMode(enum.IntEnum):
    """Jieba segmentation modes."""
    MIX = 0
    MP = 1
    HMM = 2


def _text(x, who, msg=None):
    """A string input as a numpy array; with `msg` (the op's own message) only str arrays are strings (bytes are
    a type of their own in MindSpore 2.x), else bytes pass too."""
    a = np.asarray(x)
    if msg is not None:
        if a.dtype.kind != "U":
            raise RuntimeError(msg)
        return a
    if a.dtype.kind not in "US":
        raise RuntimeError(f"{who}: the input should be a string tensor, but got {a.dtype}.")
    return a


def _as_str(v):
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


def _tokens_out(tokens, starts, ends, with_offsets):
    toks = np.array(tokens if tokens else [""], dtype=str)[:len(tokens)] if tokens else np.array([], dtype="<U1")
    if not with_offsets:
        return toks
    return toks, np.asarray(starts, dtype=np.uint32), np.asarray(ends, dtype=np.uint32)


def _byte_offsets(text, spans):
    """Character spans -> UTF-8 byte offsets (what MindSpore reports)."""
    starts, ends = [], []
    for s, e in spans:
        starts.append(len(text[:s].encode("utf-8")))
        ends.append(len(text[:e].encode("utf-8")))
    return starts, ends


class _Tokenizer(TensorOperation):
    def __init__(self, with_offsets=False):
        V.bool_arg(with_offsets, "with_offsets")
        self.with_offsets = with_offsets

    def _spans(self, text):
        raise TypeError(f"{type(self).__name__} does not define how to split text.")

    def _apply(self, x):
        a = np.asarray(x)
        if a.ndim != 0 or a.dtype.kind != "U":
            raise RuntimeError(f"{type(self).__name__}Op: the input shape should be scalar and the input datatype "
                               f"should be string.")
        text = _as_str(a.item())
        spans = self._spans(text)
        tokens = [text[s:e] for s, e in spans]
        starts, ends = _byte_offsets(text, spans)
        return _tokens_out(tokens, starts, ends, self.with_offsets)


class WhitespaceTokenizer(_Tokenizer):
    """Split on whitespace."""

    def _spans(self, text):
        return [m.span() for m in re.finditer(r"\S+", text)]


class UnicodeCharTokenizer(_Tokenizer):
    """One token per Unicode character."""

    def _spans(self, text):
        return [(i, i + 1) for i in range(len(text))]


class RegexTokenizer(_Tokenizer):
    """Split on `delim_pattern`; delimiters matching `keep_delim_pattern` are kept as tokens."""

    def __init__(self, delim_pattern, keep_delim_pattern='', with_offsets=False):
        super().__init__(with_offsets)
        if not isinstance(delim_pattern, str) or not isinstance(keep_delim_pattern, str):
            raise TypeError("delim_pattern and keep_delim_pattern should be str.")
        self.delim_pattern, self.keep_delim_pattern = delim_pattern, keep_delim_pattern
        self._delim = V.compile_regex(delim_pattern, "delim_pattern", "RegexTokenizer")
        self._keep = V.compile_regex(keep_delim_pattern, "keep_delim_pattern", "RegexTokenizer") \
            if keep_delim_pattern else None

    def _spans(self, text):
        spans, pos = [], 0
        for m in self._delim.finditer(text):
            if m.start() == m.end():
                continue
            if m.start() > pos:
                spans.append((pos, m.start()))
            if self._keep is not None and self._keep.fullmatch(m.group()):
                spans.append(m.span())
            pos = m.end()
        if pos < len(text):
            spans.append((pos, len(text)))
        return spans


def _is_punct(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(ch):
    cp = ord(ch)
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF or
            0x2F800 <= cp <= 0x2FA1F)


_UNUSED = re.compile(r"\[(UNK|SEP|PAD|CLS|MASK|unused\d+)\]")


def _normalize(text, form):
    if form == NormalizeForm.NONE:
        return text
    return unicodedata.normalize(form.name, text)


class BasicTokenizer(_Tokenizer):
    """BERT's basic tokenizer: whitespace and punctuation split, CJK characters apart, optional lower case
    (which also strips accents)."""

    def __init__(self, lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
                 preserve_unused_token=True, with_offsets=False):
        super().__init__(with_offsets)
        for name, v in (("lower_case", lower_case), ("keep_whitespace", keep_whitespace),
                        ("preserve_unused_token", preserve_unused_token)):
            if not isinstance(v, bool):
                raise TypeError(f"Argument {name} with value {v!r} is not of type [<class 'bool'>].")
        if not isinstance(normalization_form, NormalizeForm):
            raise TypeError("Argument normalization_form is not of type [<enum 'NormalizeForm'>].")
        self.lower_case, self.keep_whitespace = lower_case, keep_whitespace
        self.normalization_form, self.preserve_unused_token = normalization_form, preserve_unused_token

    def _word_spans(self, text):
        spans, start = [], None
        protected = []
        if self.preserve_unused_token:
            protected = [m.span() for m in _UNUSED.finditer(text)]
        i = 0
        while i < len(text):
            hit = next((p for p in protected if p[0] == i), None)
            if hit is not None:
                if start is not None:
                    spans.append((start, i))
                    start = None
                spans.append(hit)
                i = hit[1]
                continue
            ch = text[i]
            if ch.isspace():
                if start is not None:
                    spans.append((start, i))
                    start = None
                if self.keep_whitespace:
                    spans.append((i, i + 1))
            elif _is_punct(ch) or _is_cjk(ch):
                if start is not None:
                    spans.append((start, i))
                    start = None
                spans.append((i, i + 1))
            elif unicodedata.category(ch) in ("Cc", "Cf") or ord(ch) in (0, 0xFFFD):
                if start is not None:
                    spans.append((start, i))
                    start = None
            elif start is None:
                start = i
            i += 1
        if start is not None:
            spans.append((start, len(text)))
        return spans

    def _tokens(self, text):
        text = _normalize(text, self.normalization_form)
        spans = self._word_spans(text)
        out = []
        for s, e in spans:
            tok = text[s:e]
            if self.lower_case and not (self.preserve_unused_token and _UNUSED.fullmatch(tok)):
                tok = "".join(c for c in unicodedata.normalize("NFD", tok.lower()) if unicodedata.category(c) != "Mn")
            out.append((tok, s, e))
        return text, out

    def _apply(self, x):
        a = np.asarray(x)
        if a.ndim != 0:
            raise RuntimeError(f"{type(self).__name__}: the input should be a scalar, but got a tensor with rank: "
                               f"{a.ndim}")
        a = _text(a, type(self).__name__, f"{type(self).__name__}: the input should be of type string.")
        text, toks = self._tokens(_as_str(a.item()))
        starts, ends = _byte_offsets(text, [(s, e) for _, s, e in toks])
        return _tokens_out([t for t, _, _ in toks], starts, ends, self.with_offsets)


def _check_vocab(vocab):
    if not isinstance(vocab, Vocab):
        raise TypeError(f"Argument vocab with value {vocab!r} is not of type [Vocab].")
    return vocab


def _wordpiece(word, table, suffix, max_bytes, unknown):
    """Greedy longest-match-first pieces of `word` ([(piece, start, end)] in characters), or the unknown token."""
    if len(word.encode("utf-8")) > max_bytes:
        return [(unknown if unknown else word, 0, len(word))]
    pieces, start = [], 0
    while start < len(word):
        end, found = len(word), None
        while start < end:
            sub = word[start:end] if start == 0 else suffix + word[start:end]
            if sub in table:
                found = sub
                break
            end -= 1
        if found is None:
            return [(unknown if unknown else word, 0, len(word))]
        pieces.append((found, start, end))
        start = end
    return pieces


class WordpieceTokenizer(TensorOperation):
    """Split each token of a 1-D string tensor into word pieces of `vocab`."""

    def __init__(self, vocab, suffix_indicator='##', max_bytes_per_token=100, unknown_token='[UNK]',
                 with_offsets=False):
        self.vocab = _check_vocab(vocab)
        self.suffix_indicator, self.max_bytes_per_token = suffix_indicator, max_bytes_per_token
        self.unknown_token, self.with_offsets = unknown_token, with_offsets

    def _apply(self, x):
        a = _text(x, "WordpieceTokenizer").reshape(-1)
        table = self.vocab._word2id
        tokens, starts, ends = [], [], []
        for w in a.tolist():
            w = _as_str(w)
            for piece, s, e in _wordpiece(w, table, self.suffix_indicator, self.max_bytes_per_token,
                                          self.unknown_token):
                tokens.append(piece)
                starts.append(len(w[:s].encode()))
                ends.append(len(w[:e].encode()))
        return _tokens_out(tokens, starts, ends, self.with_offsets)


class BertTokenizer(BasicTokenizer):
    """BasicTokenizer followed by WordpieceTokenizer (outputs the word-piece strings)."""

    def __init__(self, vocab, suffix_indicator='##', max_bytes_per_token=100, unknown_token='[UNK]',
                 lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
                 preserve_unused_token=True, with_offsets=False):
        super().__init__(lower_case, keep_whitespace, normalization_form, preserve_unused_token, with_offsets)
        self.vocab = _check_vocab(vocab)
        self.suffix_indicator, self.max_bytes_per_token = suffix_indicator, max_bytes_per_token
        self.unknown_token = unknown_token

    def _apply(self, x):
        a = _text(x, "BertTokenizer")
        text, toks = self._tokens(_as_str(a.item()))
        table = self.vocab._word2id
        tokens, starts, ends = [], [], []
        for tok, s, _ in toks:
            for piece, ps, pe in _wordpiece(tok, table, self.suffix_indicator, self.max_bytes_per_token,
                                            self.unknown_token):
                tokens.append(piece)
                starts.append(len(text[:s + ps].encode()))
                ends.append(len(text[:s + pe].encode()))
        return _tokens_out(tokens, starts, ends, self.with_offsets)


def _script(ch):
    """The Unicode script of a character, as ICU's UScript groups them: marks are Inherited, every non-letter
    (digits, punctuation, symbols) is Common, a letter's script is the first word of its name (LATIN, CYRILLIC,
    HIRAGANA ...; CJK ideographs are Han)."""
    cat = unicodedata.category(ch)
    if cat.startswith("M"):
        return "inherited"
    if not cat.startswith("L"):
        return "common"
    if _is_cjk(ch):
        return "han"
    name = unicodedata.name(ch, "")
    return name.split(" ")[0] if name else "other"


class UnicodeScriptTokenizer(_Tokenizer):
    """Split where the Unicode script changes (whitespace dropped unless keep_whitespace)."""

    def __init__(self, keep_whitespace=False, with_offsets=False):
        super().__init__(with_offsets)
        self.keep_whitespace = bool(keep_whitespace)

    def _spans(self, text):
        spans, start, cur = [], None, None
        for i, ch in enumerate(text + " "):
            kind = "space" if ch.isspace() else _script(ch)
            if kind != cur:
                if start is not None and (cur != "space" or self.keep_whitespace):
                    spans.append((start, i))
                start, cur = i, kind
        return spans


class PythonTokenizer(TensorOperation):
    """Tokenize a string with a Python function returning a list of str."""

    def __init__(self, tokenizer):
        if not callable(tokenizer):
            raise TypeError("tokenizer should be callable.")
        self.tokenizer = tokenizer

    def _apply(self, x):
        if not isinstance(x, np.ndarray):
            raise TypeError(f"input should be a NumPy array. Got {type(x)}.")
        a = _text(x, "PythonTokenizer")
        return np.array(self.tokenizer(_as_str(a.item())), dtype=str)

    def __call__(self, x):
        return self._apply(x)


class Lookup(TensorOperation):
    """Words -> ids with `vocab` (`unknown_token` for words not in it; error if None)."""

    def __init__(self, vocab, unknown_token=None, data_type=mstype.int32):
        self.vocab = _check_vocab(vocab)
        if unknown_token is not None:
            V.type_check(unknown_token, (str,), "unknown_token")
        self.unknown_token = unknown_token
        V.type_check(data_type, (mstype.Type,), "data_type")
        self.data_type = data_type
        # a non-numeric type is refused when the operation runs, as MindSpore validates it
        self._dtype = _np_dtype(data_type) if data_type in mstype.number_type or data_type == mstype.bool_ else None

    def _apply(self, x):
        a = _text(x, "Lookup")
        table = self.vocab._word2id
        # as MindSpore: checked when the operation runs, not when it is made
        if self._dtype is None:
            raise RuntimeError("Lookup : The parameter data_type must be numeric including bool.")
        if self.unknown_token is not None and self.unknown_token not in table:
            raise RuntimeError(f"Lookup: \"{self.unknown_token}\" doesn't exist in vocab.")
        default = table.get(self.unknown_token) if self.unknown_token is not None else None
        out = []
        for w in a.reshape(-1).tolist():
            i = table.get(_as_str(w), default)
            if i is None:
                raise RuntimeError(f"Lookup: invalid data, token: \"{_as_str(w)}\" doesn't exist in vocab and no "
                                   f"unknown token is specified.")
            out.append(i)
        return np.asarray(out, dtype=self._dtype).reshape(a.shape)


class Ngram(TensorOperation):
    """n-grams of a 1-D string tensor, joined by `separator`, with optional (token, count) end padding."""

    def __init__(self, n, left_pad=("", 0), right_pad=("", 0), separator=" "):
        n = [n] if isinstance(n, int) else n
        if not (isinstance(n, list) and n):
            raise ValueError("n needs to be a non-empty list of positive integers.")
        for i, gram in enumerate(n):
            V.type_check(gram, (int,), f"gram[{i}]")
            V.check_positive(gram, f"gram_{i}")
        for name, pad in (("left_pad", left_pad), ("right_pad", right_pad)):
            if not (isinstance(pad, tuple) and len(pad) == 2 and isinstance(pad[0], str) and isinstance(pad[1], int)):
                raise ValueError(f"{name} needs to be a tuple of (str, int) str is pad token and int is pad_width.")
        if not (left_pad[1] >= 0 and right_pad[1] >= 0):
            raise ValueError("padding width need to be positive numbers.")
        V.type_check(separator, (str,), "separator")
        self.n, self.left_pad, self.right_pad, self.separator = n, left_pad, right_pad, separator

    def _apply(self, x):
        a = np.asarray(x)
        if a.ndim != 1 or a.dtype.kind != "U":
            raise RuntimeError("Ngram: input is not a 1D data with string datatype.")
        words = a.tolist()
        out = []
        for k in self.n:  # each n-gram size pads with at most k - 1 tokens per side; none fitting gives ''
            padded = [self.left_pad[0]] * min(self.left_pad[1], k - 1) + words + \
                [self.right_pad[0]] * min(self.right_pad[1], k - 1)
            grams = [self.separator.join(padded[i:i + k]) for i in range(len(padded) - k + 1)]
            out += grams or [""]
        return np.array(out, dtype=str)


_INT_PREFIX = re.compile(r"\s*[+-]?\d+")
_FLOAT_PREFIX = re.compile(r"\s*[+-]?(0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?\d+)?|(?:\d+\.?\d*|\.\d+)"
                           r"(?:e[+-]?\d+)?|inf(?:inity)?|nan(?:\([0-9a-z_]*\))?)", re.IGNORECASE)


def _float_prefix(s):
    """The number strtod reads at the start of `s` (hex floats, inf and nan included), or None."""
    m = _FLOAT_PREFIX.match(s)
    if m is None:
        return None
    body = m.group(0).strip()
    sign = -1.0 if body.startswith("-") else 1.0
    body = body.lstrip("+-")
    if body[:2].lower() == "0x":
        return sign * float.fromhex(body)
    if body[:3].lower() == "nan":
        return float("nan")
    return sign * float(body)


class ToNumber(TensorOperation):
    """Strings -> numbers of `data_type`, read as C's strtoll / strtof / strtod read them: the longest number at
    the start of the string (`"12abc"` is 12, `"1e5"` is 1 for an integer type); an error when there is none or
    it is out of the type's range."""

    def __init__(self, data_type):
        V.type_check(data_type, (mstype.Type,), "data_type")
        if data_type not in mstype.number_type:
            raise TypeError(f"data_type: {data_type} is not numeric data type.")
        self.data_type = data_type
        self._dtype = _np_dtype(data_type)

    def _number(self, s):
        dt = self._dtype
        if dt.kind in "iu":
            m = _INT_PREFIX.match(s)
            if m is None:
                raise RuntimeError(f'ToNumber: it is invalid to convert "{s}" to a number.' if dt.kind == "i" else
                                   f'ToNumber: It is invalid to convert "{s}" to an unsigned integer.')
            v, info = int(m.group(0)), np.iinfo(dt)
            if not info.min <= v <= info.max or (dt.kind == "u" and "-" in s):
                raise RuntimeError(f"ToNumber: string input {s} will be out of bounds if cast to {dt}. The valid "
                                   f"range is: [{info.min}, {info.max}].")
            return v
        v = _float_prefix(s)
        if v is None:
            raise RuntimeError(f'ToNumber: it is invalid to convert "{s}" to a number.')
        wide = np.float64 if dt == np.float64 else np.float32  # float16 is read as a float32 first
        info = np.finfo(wide)
        if np.isinf(v) or abs(v) > info.max or (v != 0 and abs(v) < info.tiny):
            raise RuntimeError(f"ToNumber: string input {s} will be out of bounds if cast to {dt}. The valid range "
                               f"is: [{-float(info.max):f}, {float(info.max):f}].")
        if dt == np.float16 and abs(float(np.float32(v))) > 65504.0:
            raise RuntimeError(f"ToFloat16: value {float(np.float32(v)):f}in input data is outside of valid float16 "
                               f"range [65504.000000, -65504.000000].")
        return v

    def _apply(self, x):
        a = _text(x, "ToNumber", "ToNumber: input should be string datatype.")
        out = [self._number(_as_str(s)) for s in a.reshape(-1).tolist()]
        return np.asarray(out, dtype=self._dtype).reshape(a.shape)


class TruncateSequencePair(TensorOperation):
    """Cut two 1-D sequences so their total length is at most `max_length` (the longer one first)."""

    def __init__(self, max_length):
        if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length <= 0:
            raise ValueError("Input max_length is not within the required interval of [1, 2147483647].")
        self.max_length = max_length

    def _apply(self, a, b):
        a, b = np.asarray(a), np.asarray(b)
        la, lb = len(a), len(b)
        while la + lb > self.max_length:
            if la > lb:
                la -= 1
            else:
                lb -= 1
        return a[:la], b[:lb]


class SlidingWindow(TensorOperation):
    """Windows of `width` along `axis` of a 1-D tensor, stacked."""

    def __init__(self, width, axis=0):
        V.check_pos_int32(width, "width")
        V.type_check(axis, (int,), "axis")
        self.width, self.axis = width, axis

    def _apply(self, x):
        a = np.asarray(x)
        if self.axis not in (0, -1):
            raise RuntimeError(f"SlidingWindow: The parameter axis supports 0 or -1 only for now, but got "
                               f"{self.axis}.")
        if a.ndim != 1:
            raise RuntimeError(f"SlidingWindow: SlidingWindow supports 1D input only for now, but got {a.ndim}D.")
        n = len(a) - self.width + 1
        if n <= 0:  # no window fits: an empty 1-D tensor
            return np.array([], dtype=a.dtype)
        return np.stack([a[i:i + self.width] for i in range(n)])


class Truncate(TensorOperation):
    """Keep the first `max_seq_len` elements of a 1-D tensor."""

    def __init__(self, max_seq_len):
        V.check_pos_int32(max_seq_len, "max_seq_len")
        self.max_seq_len = max_seq_len

    def _apply(self, x):
        a = np.asarray(x)
        if a.ndim not in (1, 2):
            raise RuntimeError("Truncate: the input tensor should be of dimension 1 or 2.")
        if a.dtype.kind not in "biufU":
            raise RuntimeError("Truncate: Truncate: the input tensor should be in type of [bool, int, float, double, "
                               "string].")
        return a[..., :self.max_seq_len]


class AddToken(TensorOperation):
    """Add `token` at the beginning (or end) of a 1-D string tensor."""

    def __init__(self, token, begin=True):
        V.type_check(token, (str,), "token")
        V.type_check(begin, (bool,), "begin")
        self.token, self.begin = token, begin

    def _apply(self, x):
        a = np.asarray(x)
        if a.ndim not in (1, 2):
            raise RuntimeError("AddToken: input tensor rank should be 1 or 2.")
        a = _text(a, "AddToken", "AddToken: input tensor type should be string.")
        tok = np.full(a.shape[:-1] + (1,), self.token)
        return np.concatenate([tok, a] if self.begin else [a, tok], axis=-1)


class CaseFold(TensorOperation):
    """Unicode case folding."""

    def _apply(self, x):
        a = _text(x, "CaseFold", "CaseFold: input is not string datatype.")
        return np.vectorize(lambda s: _as_str(s).casefold(), otypes=[object])(a).astype(str)


class NormalizeUTF8(TensorOperation):
    """Unicode normalization (NFC, NFKC, NFD, NFKD)."""

    def __init__(self, normalize_form=NormalizeForm.NFKC):
        if not isinstance(normalize_form, NormalizeForm):
            raise TypeError("Argument normalize_form is not of type [<enum 'NormalizeForm'>].")
        self.normalize_form = normalize_form

    def _apply(self, x):
        a = _text(x, "NormalizeUTF8", "NormalizeUTF8: input is not string datatype.")
        return np.vectorize(lambda s: _normalize(_as_str(s), self.normalize_form), otypes=[object])(a).astype(str)


class RegexReplace(TensorOperation):
    """Replace matches of `pattern` by `replace` (all, or only the first)."""

    def __init__(self, pattern, replace, replace_all=True):
        self._re = V.compile_regex(pattern, "pattern", "RegexReplace")
        V.type_check(replace, (str,), "replace")
        self.pattern, self.replace, self.replace_all = pattern, replace, V.bool_arg(replace_all, "replace_all")

    def _apply(self, x):
        a = _text(x, "RegexReplace", "RegexReplace: input is not string datatype.")
        count = 0 if self.replace_all else 1
        return np.vectorize(lambda s: self._re.sub(self.replace, _as_str(s), count=count),
                            otypes=[object])(a).astype(str)
