"""mindspore.common.api: the graph-compilation entry points `jit` and `jit_class`.

They live in `mindseed.compiler` (a higher layer than common); `mindseed._registration` places the same objects
here when mindseed is imported, so `from mindspore.common.api import jit` is `mindspore.jit`.
"""


def __getattr__(name):
    """Names a higher layer registers here (`mindseed._registration.complete`): loaded with the top level's deferred
    part."""
    from mindseed._utils import _lazy  # noqa: PLC0415
    return _lazy.missing(__name__, name)


def __dir__():
    from mindseed._utils import _lazy  # noqa: PLC0415
    return _lazy.listing(__name__)
