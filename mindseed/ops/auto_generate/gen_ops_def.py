"""mindspore.ops.auto_generate.gen_ops_def: the functional ops (the same functions as `mindspore.ops`) and, as in
MindSpore, the Primitive classes of `gen_ops_prim`."""
from mindseed.common.tensor import Tensor
from mindseed.ops.auto_generate.gen_ops_prim import *  # noqa: F401,F403
from mindseed.ops.auto_generate import gen_ops_prim
from mindseed.ops.auto_generate.gen_ops_prim import __all__ as _prims
from mindseed.ops.function import *  # noqa: F401,F403
from mindseed.ops.function import __all__ as _functions
from mindseed.ops.functional import deepcopy as _deepcopy


def copy(input):
    """A new Tensor with `input`'s values (differentiable; MindSpore's generated `copy`)."""
    return _deepcopy(input)


def contiguous(input):
    """`input` laid out contiguously: itself when it already is, else a contiguous copy (`Tensor.contiguous`)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'contiguous', 'input' must be a Tensor, but got {type(input).__name__}.")
    return input.contiguous()


def grouped_matmul(x, weight, bias=None, scale=None, offset=None, antiquant_scale=None, antiquant_offset=None,
                   group_list=None, split_item=0, group_type=-1, transpose_a=False, transpose_b=False):
    """A matrix product per group: `GroupedMatmul(split_item, group_type, transpose_a, transpose_b)` applied to
    the inputs (MindSpore's generated `grouped_matmul`)."""
    return gen_ops_prim.GroupedMatmul(split_item, group_type, transpose_a, transpose_b)(
        x, weight, bias, scale, offset, antiquant_scale, antiquant_offset, group_list)


__all__ = sorted(set(_prims) | set(_functions) | {"copy", "contiguous", "grouped_matmul"})


def __getattr__(name):
    """The operator instances `<name>_op` (gen_ops_prim) and MindSpore's `<name>_ext` functions (mint's forms,
    `ops.auto_generate._ext`), made on first use."""
    if name.endswith("_op"):
        return gen_ops_prim.__getattr__(name)
    from mindseed.ops.auto_generate import _ext  # noqa: PLC0415
    globals()[name] = fn = _ext.lookup(__name__, name)
    return fn
