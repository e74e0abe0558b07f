"""`mindspore.dataset.text.transforms`: every text transform class (also reachable as `text.<Name>`)."""
from mindseed.dataset.text._jieba import JiebaTokenizer  # noqa: F401
from mindseed.dataset.text._spiece import SentencePieceTokenizer  # noqa: F401
from mindseed.dataset.text._transforms import *  # noqa: F401,F403
from mindseed.dataset.text._transforms import __all__ as _ops_all
from mindseed.dataset.text._vectors import ToVectors  # noqa: F401
from mindseed.dataset.text._wiki import FilterWikipediaXML  # noqa: F401
from mindseed.dataset.transforms.py_transforms_util import Implementation  # noqa: F401 (imported here, as MindSpore)

__all__ = list(_ops_all) + ["JiebaTokenizer", "SentencePieceTokenizer", "ToVectors", "FilterWikipediaXML"]
