"""mindspore.ops: functional ops, the Primitive-class API, and Tensor's operators and methods."""
from mindseed.ops import functional  # noqa: F401
from mindseed.ops.functional import *  # noqa: F401,F403
from mindseed.ops.operations import *  # noqa: F401,F403
from mindseed.ops import _tensor_ops
# (binding the function `op_info_register` over the module of that name, as MindSpore's ops namespace does)
from mindseed.ops.op_info_register import (AiCPURegOp, AkgAscendRegOp, AkgGpuRegOp, CpuRegOp,  # noqa: F401
                                           CustomRegOp, DataType, TBERegOp, custom_info_register, op_info_register)
# MindSpore's module layout: the same objects under ops.composite, ops.function, ops.primitive, ops.auto_generate
from mindseed.ops import auto_generate, composite, function, primitive  # noqa: F401,E402
# the module ops.vm_impl_registry loaded here, then its registry object bound over the name (as in MindSpore)
from mindseed.ops.vm_impl_registry import get_vm_impl_fn, vm_impl_registry  # noqa: F401,E402

_tensor_ops.attach(*functional.TENSOR_METHOD_TABLES)


def __getattr__(name):
    """Names a higher layer registers here (`mindseed._registration.complete`): loaded with the top level's deferred
    part."""
    from mindseed._utils import _lazy  # noqa: PLC0415
    return _lazy.missing(__name__, name)


def __dir__():
    from mindseed._utils import _lazy  # noqa: PLC0415
    return _lazy.listing(__name__)
