"""Class API of the conversions between Tensors and Python sequences / scalars (MindSpore's sequence ops):
TensorToTuple, TensorToList, TensorToScalar, TupleToTensor, ListToTensor, ScalarToTensor."""
import numbers

from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.functional._array_shape import tensor_identity
from mindseed.ops.operations._base import Primitive

__all__ = ["TensorToTuple", "TensorToList", "TensorToScalar", "TupleToTensor", "ListToTensor", "ScalarToTensor"]


def _check_tensor(op, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the input must be a Tensor, but got {type(x).__name__}.")


def _elements(op, x):
    """The elements of a 0-D or 1-D Tensor `x` as a list of Python numbers."""
    _check_tensor(op, x)
    if x.ndim > 1:
        raise ValueError(f"For '{op}', the input must be 0-D or 1-D, but got shape {x.shape}.")
    values = x.tolist()
    return values if isinstance(values, list) else [values]


class TensorToTuple(Primitive):
    """A 1-D Tensor's elements as a tuple of Python numbers (a 0-D Tensor: a tuple of one).

    >>> import mindseed as ms
    >>> ms.ops.TensorToTuple()(ms.Tensor([1, 2, 3]))
    (1, 2, 3)
    """

    def __init__(self):
        super().__init__("TensorToTuple")

    def __call__(self, input_x):
        return tuple(_elements(self.name, input_x))


class TensorToList(Primitive):
    """A 1-D Tensor's elements as a list of Python numbers."""

    def __init__(self):
        super().__init__("TensorToList")

    def __call__(self, input_x):
        return _elements(self.name, input_x)


class TensorToScalar(Primitive):
    """A 0-D Tensor's value as a Python number."""

    def __init__(self):
        super().__init__("TensorToScalar")

    def __call__(self, input_x):
        _check_tensor(self.name, input_x)
        if input_x.ndim != 0:
            raise ValueError(f"For '{self.name}', the input must be a 0-D Tensor, but got shape {input_x.shape}.")
        return input_x.item()


class _SequenceToTensor(Primitive):
    kinds = (tuple, list)

    def __init__(self):
        super().__init__(type(self).__name__)

    def __call__(self, input_x, dtype=None):
        if not isinstance(input_x, self.kinds):
            raise TypeError(f"For '{self.name}', the input must be a {self.kinds[0].__name__}, but got "
                            f"{type(input_x).__name__}.")
        kinds = []
        for v in input_x:
            if isinstance(v, bool) or not isinstance(v, (numbers.Number, Tensor)):
                raise TypeError(f"For '{self.name}', the elements must be numbers, but got {type(v).__name__}.")
            kinds.append(_graph_scalar_type(v) or (int if isinstance(v, Tensor) and mstype.is_integral(v.dtype)
                                                   else type(v)))
        if dtype is None:   # MindSpore: ints give Int64, anything else Float32
            dtype = mstype.int64 if all(issubclass(k, numbers.Integral) for k in kinds) else mstype.float32
        if any(isinstance(v, Tensor) for v in input_x):     # graph values: stacked, so the graph keeps them
            return F.stack([F.cast(v, dtype) if isinstance(v, Tensor) else Tensor(v, dtype) for v in input_x])
        return Tensor(list(input_x), dtype)


class TupleToTensor(_SequenceToTensor):
    """A tuple of numbers as a 1-D Tensor of `dtype` (default: Int64 for ints, else Float32)."""
    kinds = (tuple,)


class ListToTensor(_SequenceToTensor):
    """A list of numbers as a 1-D Tensor of `dtype` (default: Int64 for ints, else Float32)."""
    kinds = (list,)


def _graph_scalar_type(x):
    """The Python type a graph value stands for (a mutable scalar argument, a loop counter), or None."""
    if not isinstance(x, Tensor) or _state.tracing is None:
        return None
    return getattr(_state.tracing.lookup(x), "pytype", None)


class ScalarToTensor(Primitive):
    """A Python number as a 0-D Tensor of `dtype` (default Float32; a variable scalar of a graph, a mutable int or
    float argument, gives Int64 or Float32 by its type as MindSpore's graph does)."""

    def __init__(self):
        super().__init__("ScalarToTensor")

    def __call__(self, input_x, dtype=None):
        pytype = _graph_scalar_type(input_x)
        if pytype in (int, float):
            # a new graph value, a Tensor of the graph (no longer a Python scalar)
            out = tensor_identity(F.cast(input_x, dtype or (mstype.int64 if pytype is int else mstype.float32)))
            return _state.tracing.mark_tensor(out)
        if isinstance(input_x, bool) or not isinstance(input_x, numbers.Number):
            raise TypeError(f"For '{self.name}', the input must be int or float, but got {type(input_x).__name__}.")
        return Tensor(input_x, dtype or mstype.float32)
