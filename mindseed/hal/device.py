"""mindspore.hal.device: device count, names, capabilities and properties."""
from mindseed.runtime.device import *  # noqa: F401,F403
from mindseed.runtime.device import __all__  # noqa: F401
