"""mindspore.hal.stream: streams and their selection."""
from mindseed.runtime.stream import *  # noqa: F401,F403
from mindseed.runtime.stream import __all__  # noqa: F401
