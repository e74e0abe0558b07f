"""`mindspore.dataset.audio`: audio transforms and filterbank utilities on numpy/scipy."""
from mindseed.dataset.audio import transforms, utils, validators  # noqa: F401
from mindseed.dataset.audio.transforms import *  # noqa: F401,F403
from mindseed.dataset.audio.transforms import __all__ as _ops_all
from mindseed.dataset.audio.utils import *  # noqa: F401,F403
from mindseed.dataset.audio.utils import __all__ as _utils_all

__all__ = list(_ops_all) + list(_utils_all) + ["transforms", "utils", "validators"]
