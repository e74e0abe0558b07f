"""mindspore.ops.functional_overload: the functions that take several signatures (`any(input)`, `any(input, dim)`,
`max(input)`, `max(input, dim, keepdim)`, ...). They are mint's functions of those names: `mindseed._registration`
puts them here (mint sits above ops; `ops.auto_generate._ext.ALIASES` lists them)."""
from mindseed._utils import _lazy


def __getattr__(name):
    """The internal names of mint's functions (`ops.auto_generate._ext.ALIASES`) come with the top level's deferred
    part."""
    return _lazy.missing(__name__, name)


def __dir__():
    return _lazy.listing(__name__)
