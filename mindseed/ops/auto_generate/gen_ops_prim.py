"""mindspore.ops.auto_generate.gen_ops_prim: the Primitive classes (the same classes as
`mindspore.ops.operations`)."""
from mindseed.ops import operations as _operations
from mindseed.ops.operations._base import Primitive as _Primitive

__all__ = sorted(_n for _n, _v in vars(_operations).items()
                 if not _n.startswith("_") and isinstance(_v, type) and issubclass(_v, _Primitive)
                 and _v.__module__.startswith("mindseed.ops.operations._") and _v.__module__ != _Primitive.__module__)
globals().update({_n: getattr(_operations, _n) for _n in __all__})
