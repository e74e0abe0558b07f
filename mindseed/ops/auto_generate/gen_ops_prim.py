"""mindspore.ops.auto_generate.gen_ops_prim: the Primitive classes (the same classes as
`mindspore.ops.operations`) and the backward kernels of `ops.operations._grad_ops`."""
from mindseed.ops import operations as _operations
from mindseed.ops.operations import _grad_ops
from mindseed.ops.operations._base import Primitive as _Primitive

__all__ = sorted(_n for _n, _v in vars(_operations).items()
                 if not _n.startswith("_") and isinstance(_v, type) and issubclass(_v, _Primitive)
                 and _v.__module__ != _Primitive.__module__)
globals().update({_n: getattr(_operations, _n) for _n in __all__})
# the backward kernels real code calls (not in ops.operations, as in MindSpore)
globals().update({_n: getattr(_grad_ops, _n) for _n in _grad_ops.__all__})
# generated primitives MindSpore keeps out of `ops.operations` (the counter-based random ones mcore models call)
# and the view operators (`ops.auto_generate` only)
DropoutExt = _operations._nn.DropoutExt
globals().update({_n: getattr(_operations._mint_prims, _n) for _n in _operations._mint_prims.VIEWS})
__all__ = sorted(set(__all__) | set(_grad_ops.__all__) | {"DropoutExt"} | set(_operations._mint_prims.VIEWS))


# MindSpore's generated module also holds an instance of each operator under its snake-case name, `<name>_op`
# (`tracev2_grad_op = TraceV2Grad()`): the class whose name, lower-cased, is `<name>` without underscores
_BY_FOLDED = {_n.lower(): _n for _n in __all__}
_INSTANCES = {}


def __getattr__(name):
    cls = _BY_FOLDED.get(name[:-3].replace("_", "")) if name.endswith("_op") else None
    if cls is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name not in _INSTANCES:
        _INSTANCES[name] = globals()[cls]()
    return _INSTANCES[name]
