"""Pre-trained word vectors (Vectors, GloVe, FastText, CharNGram) and the ToVectors lookup transform.

A vector file holds one token per line followed by its values, separated by single spaces; a first line of
exactly two fields ("rows dim", as in FastText's .vec files) is a header and is skipped. The first occurrence
of a token wins, and `max_vectors` keeps only the first lines. CharNGram files key 2/3/4-grams of a token
framed by `#BEGIN#`/`#END#` (e.g. "2gram-#BEGIN#a"); a token's vector is the mean of its n-grams found.
"""
import os

import numpy as np

from mindseed.dataset.text.validators import check_from_file_vectors, check_to_vectors_args
from mindseed.dataset.transforms._base import TensorOperation

__all__ = ["Vectors", "GloVe", "FastText", "CharNGram", "ToVectors"]


def _read_vectors(cls_name, file_path, max_vectors):
    if not os.path.isfile(file_path):
        raise RuntimeError(f"{cls_name}: get real path failed, path: {file_path}")
    limit = max_vectors or 0
    table, dim, rows = {}, -1, 0
    with open(file_path, encoding="utf-8", errors="surrogateescape") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            fields = line.split(" ")
            if dim == -1 and len(fields) == 2:
                continue  # "rows dim" header
            if limit and rows >= limit:
                break
            token, values = fields[0], [v for v in fields[1:] if v]
            if dim == -1:
                dim = len(fields) - 1
            if len(values) <= 1:
                raise RuntimeError(f"{cls_name}: token with 1-dimensional vector in {file_path}, line {lineno}.")
            if len(values) != dim:
                raise RuntimeError(f"{cls_name}: all vectors must have the same number of dimensions, but got dim "
                                   f"{len(values)} while expecting {dim} in {file_path}, line {lineno}.")
            try:
                vec = np.asarray([float(v) for v in values], dtype=np.float32)
            except ValueError:
                raise RuntimeError(f"{cls_name}: line {lineno} of {file_path} has a non-numeric value.") from None
            table.setdefault(token, vec)
            rows += 1
    if dim == -1:
        raise RuntimeError(f"{cls_name}: invalid file, file is empty: {file_path}")
    return table, dim


class Vectors:
    """Pre-trained word embeddings: token -> float32 vector."""

    def __init__(self):
        self._table, self._dim = {}, 0

    @classmethod
    def from_file(cls, file_path, max_vectors=None):
        """Load a vector file (see the module docstring); `max_vectors` keeps only its first lines."""
        check_from_file_vectors(file_path, max_vectors)
        cls._check_name(file_path)
        obj = cls()
        obj._table, obj._dim = _read_vectors(cls.__name__, file_path, max_vectors)
        return obj

    @classmethod
    def _check_name(cls, file_path):
        """Subclasses require their distribution's file names."""

    @property
    def dim(self):
        return self._dim

    def _unk(self, unk_init):
        if not unk_init:
            return np.zeros(self._dim, dtype=np.float32)
        if len(unk_init) != self._dim:
            raise RuntimeError(f"ToVectors: unk_init must be the same length as vectors, but got unk_init: "
                               f"{len(unk_init)} and vectors: {self._dim}")
        return np.asarray(unk_init, dtype=np.float32)

    def _lookup(self, token, unk, lower_case_backup):
        if lower_case_backup:
            token = token.lower()
        vec = self._table.get(token)
        return unk if vec is None else vec


class GloVe(Vectors):
    """Global Vectors (GloVe) pre-trained word embeddings (files named `glove.6B.<dim>d.txt`)."""

    @classmethod
    def _check_name(cls, file_path):
        if not os.path.isfile(file_path):
            raise RuntimeError("GloVe: invalid file, failed to open GloVe file.")
        stem, _, suffix = os.path.basename(file_path).rpartition(".")
        name = stem.rpartition(".")[0]
        prefix, _, infix = name.rpartition(".")
        if suffix != "txt" or infix != "6B" or prefix != "glove":
            raise RuntimeError(f"GloVe: invalid file, can not find file 'glove.6B.*.txt', but got: {file_path}")


class FastText(Vectors):
    """FastText pre-trained word embeddings (`*.vec` files, header line skipped)."""

    @classmethod
    def _check_name(cls, file_path):
        if not os.path.isfile(file_path):
            raise RuntimeError("FastText: invalid file, failed to open FastText file.")
        if os.path.basename(file_path).rpartition(".")[2] != "vec":
            raise RuntimeError(f"FastText: invalid file, can not find file '*.vec', but got: {file_path}")


class CharNGram(Vectors):
    """Character n-gram embeddings: a token is the mean of its 2/3/4-gram vectors."""

    def _lookup(self, token, unk, lower_case_backup):
        if lower_case_backup:
            token = token.lower()
        chars = ["#BEGIN#"] + list(token.encode("utf-8").decode("latin-1")) + ["#END#"]
        total, count = np.zeros(self._dim, dtype=np.float32), 0
        for n in (2, 3, 4):
            for pos in range(len(chars) - n + 1):
                gram = "".join(chars[pos:pos + n]).encode("latin-1").decode("utf-8", "surrogateescape")
                vec = self._table.get(f"{n}gram-{gram}", unk)
                if not np.array_equal(vec, unk):
                    total += vec
                    count += 1
        return total / count if count else unk


class ToVectors(TensorOperation):
    """Look up each token's vector; unknown tokens get `unk_init` (zeros by default)."""

    def __init__(self, vectors, unk_init=None, lower_case_backup=False):
        check_to_vectors_args(vectors, unk_init, lower_case_backup, Vectors)
        self.vectors = vectors
        self.unk_init = list(unk_init) if unk_init is not None else []
        self.lower_case_backup = lower_case_backup

    def _apply(self, x):
        a = np.asarray(x)
        if a.dtype.kind not in "US":
            raise RuntimeError(f"ToVectors: input tensor type should be string, but got {a.dtype}.")
        unk = self.vectors._unk(self.unk_init)
        rows = [self.vectors._lookup(t.decode("utf-8") if isinstance(t, bytes) else str(t), unk,
                                     self.lower_case_backup) for t in a.reshape(-1).tolist()]
        out = np.stack(rows) if rows else np.zeros((0, self.vectors.dim), dtype=np.float32)
        return out.reshape(a.shape + (self.vectors.dim,)).astype(np.float32, copy=False)
