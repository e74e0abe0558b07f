"""`mindspore.dataset.text`: tokenizers, vocabularies, word vectors and text transforms."""
from mindseed.dataset.text import transforms, utils, validators  # noqa: F401
from mindseed.dataset.text.transforms import *  # noqa: F401,F403
from mindseed.dataset.text.transforms import __all__ as _ops_all
from mindseed.dataset.text.utils import (CharNGram, FastText, GloVe, SentencePieceModel,  # noqa: F401
                                         SentencePieceVocab, SPieceTokenizerLoadType, SPieceTokenizerOutType,
                                         Vectors, Vocab, to_bytes, to_str)

__all__ = list(_ops_all) + ["Vocab", "to_str", "to_bytes", "SentencePieceVocab", "SentencePieceModel",
                            "SPieceTokenizerLoadType", "SPieceTokenizerOutType", "Vectors", "GloVe", "FastText",
                            "CharNGram", "transforms", "utils", "validators"]
