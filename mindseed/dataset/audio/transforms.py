"""The transforms of `mindspore.dataset.audio` (`mindspore.dataset.audio.transforms`)."""
from mindseed.dataset.audio._detect import *  # noqa: F401,F403
from mindseed.dataset.audio._detect import __all__ as _detect_all
from mindseed.dataset.audio._effects import *  # noqa: F401,F403
from mindseed.dataset.audio._effects import __all__ as _effects_all
from mindseed.dataset.audio._filters import *  # noqa: F401,F403
from mindseed.dataset.audio._filters import __all__ as _filters_all
from mindseed.dataset.audio._spectral import *  # noqa: F401,F403
from mindseed.dataset.audio._spectral import __all__ as _spectral_all
from mindseed.dataset.audio._stretch import *  # noqa: F401,F403
from mindseed.dataset.audio._stretch import __all__ as _stretch_all

__all__ = sorted(set(_detect_all) | set(_effects_all) | set(_filters_all) | set(_spectral_all) | set(_stretch_all))
