"""Class API of the core ops."""
from mindseed.common.tensor import Tensor
from mindseed.ops._api import _attr_value
from mindseed.ops._prims.core import matmul_p
from mindseed.ops.functional import _core as F
from mindseed.ops.functional._math_elementwise import tensor_div as _tensor_div
from mindseed.ops.operations._base import REQUIRED, Primitive, attr_primitive, simple_primitive as _simple

__all__ = ["Add", "Sub", "Mul", "Div", "RealDiv", "Neg", "MatMul", "BatchMatMul", "Pow", "Exp", "Log", "Maximum",
           "Minimum", "ReLU", "Greater", "Less", "GreaterEqual", "LessEqual", "Equal", "NotEqual", "ReduceSum",
           "Reshape", "Transpose", "Cast", "BroadcastTo", "ZerosLike", "OnesLike", "StopGradient", "Concat",
           "Stack", "Select", "Fill", "Zeros", "Ones", "Sign"]


Add = _simple("Add", F.add, "x + y.")
Sub = _simple("Sub", F.sub, "x - y.")
Mul = _simple("Mul", F.mul, "x * y.")
Div = _simple("Div", F.div, "x / y.")
RealDiv = _simple("RealDiv", _tensor_div, "x / y (integers: rounded toward zero).")
Neg = _simple("Neg", F.neg, "-x.")
Pow = _simple("Pow", F.pow, "x ** y.", numbers=True)
Exp = _simple("Exp", F.exp, "e ** x.")
Log = _simple("Log", F.log, "ln x.")
Maximum = _simple("Maximum", F.maximum, "max(x, y).", numbers=True)
Minimum = _simple("Minimum", F.minimum, "min(x, y).", numbers=True)
ReLU = _simple("ReLU", F.relu, "max(x, 0).")
Sign = _simple("Sign", F.sign, "sign(x).")
Greater = _simple("Greater", F.greater, "x > y.", numbers=True)
Less = _simple("Less", F.less, "x < y.")
GreaterEqual = _simple("GreaterEqual", F.greater_equal, "x >= y.")
LessEqual = _simple("LessEqual", F.less_equal, "x <= y.")
Equal = _simple("Equal", F.equal, "x == y.")
NotEqual = _simple("NotEqual", F.not_equal, "x != y.")
ZerosLike = _simple("ZerosLike", F.zeros_like, "zeros of x's shape and dtype.")
OnesLike = _simple("OnesLike", F.ones_like, "ones of x's shape and dtype.")
StopGradient = _simple("StopGradient", F.stop_gradient, "x, without gradient.")
Reshape = _simple("Reshape", F.reshape, "x reshaped.")
Transpose = _simple("Transpose", F.transpose, "x permuted.")
Cast = _simple("Cast", F.cast, "x cast to a dtype.")
Select = _simple("Select", F.where, "x where cond else y.")


class MatMul(Primitive):
    """Matrix product of 2-D tensors, optionally transposing either."""

    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__("MatMul")
        self.transpose_a, self.transpose_b = transpose_a, transpose_b
        self.attrs.update(transpose_a=transpose_a, transpose_b=transpose_b)

    def __call__(self, x, y):
        if self.name == "MatMul" and isinstance(x, Tensor) and isinstance(y, Tensor) and (x.ndim != 2 or y.ndim != 2):
            raise ValueError("MatMul inputs should have the same dimension size and equal to 2.")   # (BatchMatMul: N-D)
        if not (self.transpose_a or self.transpose_b):
            # MindSpore's MatMul / BatchMatMul shape inference: a ValueError (ops.matmul's kernel: a RuntimeError)
            if isinstance(x, Tensor) and isinstance(y, Tensor) and min(x.ndim, y.ndim) >= 2 \
                    and x.shape[-1] != y.shape[-2]:
                raise ValueError(f"For '{self.name}' the input dimensions must be equal, but got 'x1_col': "
                                 f"{x.shape[-1]} and 'x2_row': {y.shape[-2]}.")
            return F.matmul(x, y)
        # one primitive call with the transpose attributes: a strategy given to `shard` names these two inputs
        for arg, t in (("x", x), ("y", y)):
            if not isinstance(t, Tensor) or t.ndim < 2:
                raise TypeError(f"For '{self.name}', the input '{arg}' must be a Tensor of at least 2 dims when "
                                f"transposed, but got {t.shape if isinstance(t, Tensor) else type(t).__name__}.")
        k1 = x.shape[-2] if self.transpose_a else x.shape[-1]
        k2 = y.shape[-1] if self.transpose_b else y.shape[-2]
        if k1 != k2:
            raise ValueError(f"For '{self.name}', the input dimensions must be equal, but got 'x1_col': {k1} and "
                             f"'x2_row': {k2}.")
        return matmul_p(x, y, transpose_a=self.transpose_a, transpose_b=self.transpose_b)


class BatchMatMul(MatMul):
    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__(transpose_a, transpose_b)
        self.name = "BatchMatMul"


class ReduceSum(Primitive):
    """Sum over `axis` (all when empty), keeping reduced dims when `keep_dims`."""

    def __init__(self, keep_dims=False, skip_mode=False):
        super().__init__("ReduceSum")
        keep_dims, skip_mode = _attr_value(keep_dims), _attr_value(skip_mode)
        self.keep_dims, self.skip_mode = keep_dims, skip_mode
        self.attrs.update(keep_dims=keep_dims)

    def __call__(self, x, axis=()):
        axis = _attr_value(axis)   # the axes as a Tensor (empty: all of them)
        empty = isinstance(axis, (tuple, list)) and len(axis) == 0
        if self.skip_mode and empty:
            return x
        return F.sum(x, None if empty else axis, self.keep_dims, dtype=x.dtype)


BroadcastTo = attr_primitive("BroadcastTo", F.broadcast_to, "x broadcast to `shape`.", (("shape", REQUIRED),))
Concat = attr_primitive("Concat", F.concat, "The tensors joined along `axis`.", (("axis", 0),))
Stack = attr_primitive("Stack", F.stack, "The tensors stacked along a new `axis`.", (("axis", 0),))


class Fill(Primitive):
    def __init__(self):
        super().__init__("Fill")

    def __call__(self, type, shape, value):
        return F.fill(type, shape, value)


class Zeros(Primitive):
    def __init__(self):
        super().__init__("Zeros")

    def __call__(self, size, type=None):
        return F.zeros(size, type)


class Ones(Primitive):
    def __init__(self):
        super().__init__("Ones")

    def __call__(self, size, type=None):
        return F.ones(size, type)
