"""SentencePiece vocabularies and tokenizer on the `sentencepiece` package.

A SentencePieceVocab holds a trained model (the serialized ModelProto MindSpore keeps), trained with MindSpore's
trainer flags: the given vocab size, character coverage and model type, `params` passed on as further trainer
flags (except the ones the arguments already set) and the trainer's logging quietened.
"""
import enum
import io
import os

import numpy as np

from mindseed.dataset._validate import type_check
from mindseed.dataset.text.validators import check_sentencepiece_args
from mindseed.dataset.transforms._base import TensorOperation

__all__ = ["SentencePieceModel", "SPieceTokenizerLoadType", "SPieceTokenizerOutType", "SentencePieceVocab",
           "SentencePieceTokenizer"]

class SentencePieceModel(enum.IntEnum):
    """Subword algorithm of a SentencePiece model."""
    UNIGRAM = 0
    BPE = 1
    CHAR = 2
    WORD = 3


class SPieceTokenizerLoadType(enum.IntEnum):
    """Where SentencePieceTokenizer loads its model from."""
    FILE = 0
    MODEL = 1


class SPieceTokenizerOutType(enum.IntEnum):
    """SentencePieceTokenizer's output: piece strings or ids."""
    STRING = 0
    INT = 1


def _spm():
    try:
        import sentencepiece
    except ImportError:
        raise ImportError("SentencePieceVocab/SentencePieceTokenizer need the 'sentencepiece' package "
                          "(pip install sentencepiece).") from None
    return sentencepiece


def _model_name(model_type):
    if isinstance(model_type, SentencePieceModel):
        return model_type.name
    return model_type.upper() if model_type.upper() in SentencePieceModel.__members__ else "UNIGRAM"


class SentencePieceVocab:
    """A trained SentencePiece model."""

    def __init__(self):
        self._proto = None

    @classmethod
    def _train(cls, vocab_size, character_coverage, model_type, params, **source):
        spm = _spm()
        flags = {str(k): str(v) for k, v in params.items()
                 if k not in ("input", "vocab_size", "model_prefix", "character_coverage", "model_type")}
        flags.update(vocab_size=str(vocab_size), character_coverage=repr(float(character_coverage)),
                     model_type=_model_name(model_type), minloglevel="1")
        out = io.BytesIO()
        try:
            spm.SentencePieceTrainer.train(model_writer=out, **source, **flags)
        except (RuntimeError, OSError, ValueError) as e:
            raise RuntimeError(f"SentencePieceVocab: {e}") from None
        vocab = cls()
        vocab._proto = out.getvalue()
        return vocab

    @classmethod
    def from_dataset(cls, dataset, col_names, vocab_size, character_coverage, model_type, params):
        """Train on the strings of `col_names` (every column when empty) of `dataset`."""
        if col_names is not None:
            type_check(col_names, (list,), "col_names")
            for i, c in enumerate(col_names):
                type_check(c, (str,), f"col_names[{i}]")
        if vocab_size is None:
            raise TypeError("vocab_size must be provided.")
        check_sentencepiece_args(vocab_size, character_coverage, model_type, params, SentencePieceModel)
        names = dataset.get_col_names()
        cols = list(col_names) if col_names else names
        missing = [c for c in cols if c not in names]
        if missing:
            raise RuntimeError(f"SentencePieceVocab.from_dataset: column {missing[0]!r} is not in the dataset's "
                               f"columns {names}.")

        def sentences():
            for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
                for c in cols:
                    for s in np.asarray(row[c]).reshape(-1).tolist():
                        yield s.decode("utf-8") if isinstance(s, bytes) else str(s)

        return cls._train(vocab_size, character_coverage, model_type, params, sentence_iterator=sentences())

    @classmethod
    def from_file(cls, file_path, vocab_size, character_coverage, model_type, params):
        """Train on the lines of the files in `file_path` (a list of paths)."""
        type_check(file_path, (list,), "file_path")
        check_sentencepiece_args(vocab_size, character_coverage, model_type, params, SentencePieceModel)
        for p in file_path:
            type_check(p, (str,), "file_path")
            if not os.path.isfile(p):
                raise RuntimeError(f"SentencePieceVocab: file {p} does not exist or is not a file.")
        return cls._train(vocab_size, character_coverage, model_type, params, input=",".join(file_path))

    @classmethod
    def save_model(cls, vocab, path, filename):
        """Write the model to `path`/`filename` (a `.model` file sentencepiece and MindSpore load)."""
        type_check(vocab, (SentencePieceVocab,), "vocab")
        type_check(path, (str,), "path")
        type_check(filename, (str,), "filename")
        if not os.path.isdir(path):
            raise RuntimeError(f"Get real path failed, path={path}")
        target = os.path.join(os.path.realpath(path), filename)
        with open(target, "wb") as f:
            f.write(vocab._proto)
        os.chmod(target, 0o600)


class SentencePieceTokenizer(TensorOperation):
    """Tokenize a scalar string with a SentencePiece model (a SentencePieceVocab or a `.model` file path)."""

    def __init__(self, mode, out_type):
        type_check(mode, (str, SentencePieceVocab), "mode is not an instance of str or text.SentencePieceVocab.")
        type_check(out_type, (SPieceTokenizerOutType,), "out_type is not an instance of SPieceTokenizerOutType")
        self.mode, self.out_type = mode, out_type
        self._processor = None

    def _load(self):
        if self._processor is None:
            proc = _spm().SentencePieceProcessor()
            if isinstance(self.mode, SentencePieceVocab):
                proc.LoadFromSerializedProto(self.mode._proto)
            else:
                if not os.path.isfile(self.mode):
                    raise RuntimeError(f"SentencePieceTokenizer: The file {self.mode} does not exist.")
                try:
                    proc.Load(self.mode)
                except (RuntimeError, OSError) as e:
                    raise RuntimeError(f"SentencePieceTokenizer: load vocab model failed: {self.mode}: {e}") from None
            self._processor = proc
        return self._processor

    def _apply(self, x):
        a = np.asarray(x)
        if a.ndim != 0 or a.dtype.kind not in "US":
            raise RuntimeError(f"SentencePieceTokenizer: the input shape should be scalar and the input datatype "
                               f"should be string, but got shape {list(a.shape)} of {a.dtype}.")
        s = a.item()
        s = s.decode("utf-8") if isinstance(s, bytes) else s
        proc = self._load()
        if self.out_type == SPieceTokenizerOutType.STRING:
            return np.array(proc.EncodeAsPieces(s), dtype=str)
        return np.asarray(proc.EncodeAsIds(s), dtype=np.int32)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_processor"] = None
        return state
