"""`mindspore.dataset.text.utils`: vocabularies, SentencePiece models, word vectors and their enums."""
from mindseed.dataset.text._spiece import (SentencePieceModel, SentencePieceVocab,  # noqa: F401
                                           SPieceTokenizerLoadType, SPieceTokenizerOutType)
from mindseed.dataset.text._transforms import JiebaMode, NormalizeForm  # noqa: F401
from mindseed.dataset.text._vectors import CharNGram, FastText, GloVe, Vectors  # noqa: F401
from mindseed.dataset.text._vocab import Vocab, to_bytes, to_str  # noqa: F401
