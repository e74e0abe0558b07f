"""Public functions over the core primitives: arithmetic, sums, shapes, casts, creation, indexing."""
import numbers

import numpy as np

from mindseed import _backend as B
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.ops._api import _INEXACT, _check_tensor, check_inexact
from mindseed.ops._prims import core as P
from mindseed.ops._prims import index_dyn as PI
from mindseed.ops._python_scalars import narrow, narrow_pair

__all__ = [
    "add", "sub", "mul", "div", "neg", "matmul", "pow", "exp", "log", "maximum", "minimum", "relu",
    "greater", "less", "greater_equal", "less_equal", "equal", "not_equal", "gt", "lt", "ge", "le", "eq", "ne",
    "sum", "reshape", "transpose", "permute", "cast", "broadcast_to", "zeros_like", "ones_like", "stop_gradient",
    "concat", "cat", "stack", "where", "zeros", "ones", "full", "fill", "full_like", "tensor_getitem",
    "tensor_setitem", "sign", "subtract", "multiply", "divide", "negative", "true_divide",
]


def _check_operands(op, x, y):
    if isinstance(x, Tensor) or isinstance(y, Tensor):
        for name, v in (("input", x), ("other", y)):
            if not isinstance(v, (Tensor, numbers.Number, np.number, np.bool_)):
                raise TypeError(f"For '{op}', the '{name}' must be a Tensor, number or bool, but got "
                                f"{type(v).__name__}.")
        return
    raise TypeError(f"For '{op}', at least one of the inputs must be a Tensor, but got {type(x).__name__} and "
                    f"{type(y).__name__}.")


def add(input, other):
    """input + other, broadcasting, with MindSpore's type promotion.

    >>> import mindseed as ms
    >>> ms.ops.add(ms.Tensor([1.0, 2.0]), 1)
    Tensor(shape=[2], dtype=Float32, value= [2. 3.])
    """
    return P.add_p(*narrow_pair(input, other))


def sub(input, other):
    """input - other, broadcasting (a Python bool beside a non-bool tensor counts as 0 or 1)."""
    return P.sub_p(*narrow_pair(input, other))


def _integral(v):
    return isinstance(v, int) or (isinstance(v, Tensor) and mstype.is_integral(v.dtype))


def _is_bool(v):
    return isinstance(v, bool) or (isinstance(v, Tensor) and v.dtype == mstype.bool_)


def sub_keeping_bool(input, other):
    """input - other as Tensor's `-`, sub and subtract (and mint.sub) compute it: two bools give whether they
    differ, a Bool tensor (MindSpore's SubExt; its ops.sub refuses two bools)."""
    if _is_bool(input) and _is_bool(other):
        return P.not_equal_p(input, other)
    return P.sub_p(input, other)


sub_keeping_bool.name = "Sub"     # the primitive it stands for, in the operators' messages


def mul(input, other):
    """input * other, broadcasting."""
    return P.mul_p(*narrow_pair(input, other))


def div(input, other, *, rounding_mode=None):
    """input / other (true division; `rounding_mode` 'floor' or 'trunc' rounds the quotient)."""
    return _rounded_div("div", input, other, rounding_mode)


def _rounded_div(op, input, other, rounding_mode):
    """input / other, the quotient rounded by `rounding_mode` (None, 'floor' or 'trunc'); errors name `op`."""
    if rounding_mode is None:
        return P.div_p(*narrow_pair(input, other))
    from mindseed.ops import functional as F  # noqa: PLC0415 -- floor/trunc live in the math family
    if rounding_mode == "floor":
        return F.floor_divide(input, other)
    if rounding_mode == "trunc":
        if _integral(input) and _integral(other):     # integers (and bools) divide to an integer quotient
            return F.truncate_div(input, other)
        return F.trunc(P.div_p(input, other))
    raise ValueError(f"For '{op}', 'rounding_mode' must be None, 'floor' or 'trunc', but got {rounding_mode}.")


def neg(input):
    """-input."""
    return P.neg_p(input)


def subtract(input, other, *, alpha=1):
    """input - alpha * other, broadcasting; a bool `other` is scaled as an integer (`alpha * other` is Int64)."""
    if isinstance(other, Tensor) and other.dtype == mstype.bool_:
        other = P.cast_p(other, dtype="Int64")
    elif isinstance(other, (bool, np.bool_)):
        other = int(other)
    return sub(input, other if alpha == 1 else P.mul_p(other, alpha))


def true_divide(dividend, divisor):
    """dividend / divisor (true division)."""
    return P.div_p(dividend, divisor)


multiply = mul
divide = div
negative = neg


def matmul(input, other):
    """Matrix product with numpy's broadcasting rules (1-D operands are vectors).

    Raises:
        TypeError: the dtypes differ (checked first, as MindSpore's MatMulExt does).
        RuntimeError: the inner dimensions differ and `other` is a matrix (MindSpore's MatMulExt check).
        ValueError: the inner dimensions differ and `other` is a vector (MindSpore's MatMul check).

    >>> import mindseed as ms
    >>> ms.ops.matmul(ms.ops.ones((2, 3)), ms.ops.ones((3, 4))).shape
    (2, 4)
    """
    _check_tensor("MatMul", "input", input)
    _check_tensor("MatMul", "other", other)
    if input.dtype != other.dtype:
        raise TypeError(f"For 'MatMulExt', the type of 'x2' should be same as 'x1', but got 'x1' with type "
                        f"Tensor[{input.dtype}] and 'x2' with type Tensor[{other.dtype}].")
    xs, ys = input.shape, other.shape
    if not xs or not ys:
        raise ValueError(f"For 'MatMul', the inputs must have at least 1 dimension, but got shapes {xs} and {ys}.")
    k1 = xs[-1]
    k2 = ys[0] if len(ys) == 1 else ys[-2]
    if k1 != k2:
        if len(ys) == 1:
            raise ValueError(f"For 'MatMul' the input dimensions must be equal, but got 'x1_col': {k1} and "
                             f"'x2_row': {k2}.")
        raise RuntimeError(f"For 'MatMulExt' op, shape1[-1] must be equal to shape2[-2], but got {k1} and {k2}.")
    return P.matmul_p(input, other)


def pow(input, exponent):
    """input ** exponent."""
    return P.pow_p(*narrow_pair(input, exponent))


def exp(input):
    """e ** input (a floating or complex Tensor)."""
    if not isinstance(input, Tensor) or input.dtype not in _INEXACT:
        check_inexact("Exp", "input", input)
    return P.exp_p(input)


def log(input):
    """Natural logarithm (of a floating or complex Tensor)."""
    if not isinstance(input, Tensor) or input.dtype not in _INEXACT:
        check_inexact("Log", "input", input)
    return P.log_p(input)


def maximum(input, other):
    """Elementwise maximum, broadcasting."""
    return P.maximum_p(*narrow_pair(input, other))


def minimum(input, other):
    """Elementwise minimum, broadcasting."""
    return P.minimum_p(*narrow_pair(input, other))


def relu(input, inplace=False):
    """max(input, 0); with `inplace`, written into `input` and returned."""
    _check_tensor("ReLU", "input", input)
    out = P.relu_p(input)
    if inplace:
        from mindseed.ops import functional as F  # noqa: PLC0415 -- assign lives in the state family
        return F.assign(input, out)
    return out


def sign(input):
    """-1, 0 or 1 by the sign of each element."""
    return P.sign_p(input)


def greater(input, other):
    return P.greater_p(*narrow_pair(input, other))


def less(input, other):
    return P.less_p(*narrow_pair(input, other))


def greater_equal(input, other):
    return P.greater_equal_p(*narrow_pair(input, other))


def less_equal(input, other):
    return P.less_equal_p(*narrow_pair(input, other))


def equal(input, other):
    return P.equal_p(*narrow_pair(input, other))


def not_equal(input, other):
    return P.not_equal_p(*narrow_pair(input, other))


gt, lt, ge, le, eq, ne = greater, less, greater_equal, less_equal, equal, not_equal


def _axes(op, axis, ndim):
    if isinstance(axis, Tensor) and axis.ndim > 0:  # a 1-D integer Tensor of axes, as MindSpore's reductions take
        axis = tuple(_int_tensor_values(op, "axis", axis))
    if axis is None or axis == ():
        return None
    if isinstance(axis, (list, tuple)):
        out = []
        for a in axis:
            out.append(_axis(op, a, ndim))
        if len(set(out)) != len(out):
            raise ValueError(f"For '{op}', the 'axis' has duplicated elements: {axis}.")
        return tuple(out)
    return _axis(op, axis, ndim)


def _axis(op, a, ndim, scalar_ok=True):
    """`a` as an axis in [0, ndim); a 0-d input has one axis (0 or -1) unless `scalar_ok` is False (ops that take
    a slice, a size or an index along a real dimension)."""
    if isinstance(a, Tensor):
        a = _int_tensor_values(op, "axis", a)[0] if a.size == 1 else a
    if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
        raise TypeError(f"For '{op}', the 'axis' must be int, tuple or list, but got {type(a).__name__}.")
    if ndim == 0 and not scalar_ok:
        raise ValueError(f"For '{op}', the input must have at least 1 dimension, but got a 0-D Tensor.")
    n = max(ndim, 1)
    if not -n <= a < n:
        raise ValueError(f"For '{op}', the 'axis' must be in range [{-n}, {n}), but got {a}.")
    return int(a) % n


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over `dim` (all dimensions when None).

    >>> import mindseed as ms
    >>> ms.ops.sum(ms.Tensor([[1, 2], [3, 4]]), 0)
    Tensor(shape=[2], dtype=Int64, value= [4 6])
    """
    _check_tensor("sum", "input", input)
    if not isinstance(keepdim, bool):
        raise TypeError(f"For 'sum', the 'keepdim' must be bool, but got {type(keepdim).__name__}.")
    if dtype is not None:
        input = P.cast_p(input, dtype=_dtype_arg("sum", dtype).name)
    elif input.dtype == mstype.bool_ or (mstype.is_integral(input.dtype) and input.dtype != mstype.int64
                                        and input.dtype != mstype.uint64):
        input = P.cast_p(input, dtype="Int64")
    out = P.reduce_sum_p(input, axis=_axes("sum", dim, input.ndim), keep_dims=bool(keepdim))
    # the kernel sums narrow integers in Int64; an asked-for `dtype` is the result's
    return out if out.dtype == input.dtype else P.cast_p(out, dtype=input.dtype.name)


def _int_tensor_values(op, name, t):
    """The values of an integer Tensor given where ints are expected (a shape, a count), as Python ints."""
    if t.dtype == mstype.bool_ or not mstype.is_integral(t.dtype):
        raise TypeError(f"For '{op}', the '{name}' given as a Tensor must have an integer dtype, but got {t.dtype}.")
    return [int(v) for v in t.asnumpy().reshape(-1)]


def _shape_arg(op, shape, name="shape"):
    """A shape given as an int, a tuple/list of ints or an integer Tensor, as a tuple of ints."""
    if isinstance(shape, Tensor):
        shape = tuple(_int_tensor_values(op, name, shape))
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"For '{op}', the '{name}' must be a tuple, list or int, but got {type(shape).__name__}.")
    out = []
    for s in shape:
        if isinstance(s, Tensor):
            s = _int_tensor_values(op, name, s)[0] if s.size == 1 else s
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"For '{op}', the elements of '{name}' must be int, but got {shape}.")
        out.append(int(s))
    return tuple(out)


def reshape(input, shape):
    """The same data in `shape` (one dimension may be -1).

    Raises:
        ValueError: the number of elements differs.
    """
    _check_tensor("Reshape", "input", input)
    shape = _shape_arg("Reshape", shape)
    size = input.size
    known = 1
    neg = 0
    for s in shape:
        if s == -1:
            neg += 1
        elif s < 0:
            raise ValueError(f"For 'Reshape', the elements of 'shape' must be -1 or non-negative, but got {shape}.")
        else:
            known *= s
    if neg > 1 or (neg == 0 and known != size) or (neg == 1 and (known == 0 or size % known)):
        raise ValueError(f"For 'Reshape', the product of the 'input' shape {input.shape} should be equal to the "
                         f"product of 'shape' {shape}.")
    return P.reshape_p(input, shape=shape)


def transpose(input, dims):
    """Permute the dimensions by `dims` (MindSpore's Transpose primitive calls it `input_perm`)."""
    input_perm = dims
    _check_tensor("Transpose", "input", input)
    if not isinstance(input_perm, (tuple, list)):
        raise TypeError(f"For 'Transpose', the 'input_perm' must be a tuple or list of ints, but got "
                        f"{type(input_perm).__name__}.")
    perm = tuple(_axis("Transpose", p, input.ndim) for p in input_perm)
    if len(perm) != input.ndim or sorted(perm) != list(range(input.ndim)):
        raise ValueError(f"For 'Transpose', the 'input_perm' {tuple(input_perm)} is not a permutation of the "
                         f"{input.ndim} dimensions of the input.")
    return P.transpose_p(input, perm=perm)


def permute(input, axis):
    """The dimensions of `input` reordered by `axis`."""
    return transpose(input, axis)


def _dtype_arg(op, dtype):
    if isinstance(dtype, mstype.Type):
        return dtype
    try:
        return mstype.pytype_to_dtype(dtype)
    except (NotImplementedError, TypeError):
        raise TypeError(f"For '{op}', the 'dtype' must be a mindspore dtype, but got {dtype!r}.") from None


def cast(input, dtype):
    """The values converted to `dtype`."""
    dtype = _dtype_arg("Cast", dtype)
    if not isinstance(input, Tensor):
        if input is None:
            raise TypeError("For 'Cast', the 'input' must be a Tensor, a number or a sequence of numbers, but got "
                            "NoneType.")
        return Tensor(input, dtype)
    if input.dtype == dtype:
        return input
    return P.cast_p(input, dtype=dtype.name)


def broadcast_to(input, shape):
    """Broadcast to `shape` (-1 keeps the input's size)."""
    _check_tensor("BroadcastTo", "input", input)
    shape = _shape_arg("BroadcastTo", shape)
    lead = len(shape) - input.ndim
    if lead < 0:
        raise ValueError(f"For 'BroadcastTo', the 'shape' {shape} has fewer dimensions than the input {input.shape}.")
    if any(s == -1 for s in shape[:lead]):
        raise ValueError(f"For 'BroadcastTo', -1 in 'shape' {shape} must stand for a dimension of the input "
                         f"{input.shape}, not a new leading one.")
    full_shape = tuple(input.shape[i - lead] if s == -1 else s for i, s in enumerate(shape))
    for i, s in enumerate(input.shape):
        if s != 1 and s != full_shape[i + lead]:
            raise ValueError(f"For 'BroadcastTo', the input shape {input.shape} cannot be broadcast to {shape}.")
    return P.broadcast_to_p(input, shape=full_shape)


def zeros_like(input, *, dtype=None):
    """Zeros of input's shape (and dtype unless given)."""
    out = P.zeros_like_p(input)
    return out if dtype is None else cast(out, dtype)


def ones_like(input, *, dtype=None):
    """Ones of input's shape (and dtype unless given)."""
    out = P.ones_like_p(input)
    return out if dtype is None else cast(out, dtype)


def stop_gradient(value):
    """The value, through which no gradient flows."""
    if isinstance(value, Tensor):
        return P.stop_gradient_p(value)
    if isinstance(value, (tuple, list)):
        return type(value)(stop_gradient(v) for v in value)
    return value


def _tensors_arg(op, tensors):
    if isinstance(tensors, Tensor):
        tensors = tuple(tensors)
    if not isinstance(tensors, (tuple, list)) or not tensors:
        raise TypeError(f"For '{op}', the 'tensors' must be a non-empty tuple or list of Tensors.")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{op}', the elements of 'tensors' must be Tensor, but got {type(t).__name__}.")
    return tensors


def concat(tensors, axis=0):
    """Join tensors along an existing axis.

    Raises:
        ValueError: ranks differ, or sizes differ off the axis.
    """
    tensors = _tensors_arg("Concat", tensors)
    nd = tensors[0].ndim
    ax = _axis("Concat", axis, nd)
    s0 = tensors[0].shape
    for t in tensors[1:]:
        if t.ndim != nd or any(a != b for i, (a, b) in enumerate(zip(s0, t.shape)) if i != ax):
            raise ValueError(f"For 'Concat', the shapes {s0} and {t.shape} cannot be concatenated along axis {axis}.")
    dt = tensors[0].dtype
    if any(t.dtype != dt for t in tensors):
        for t in tensors[1:]:
            dt = mstype.promote_types(dt, t.dtype)
        tensors = [cast(t, dt) for t in tensors]
    return P.concat_p(*tensors, axis=ax)


def cat(tensors, axis=0):
    return concat(tensors, axis)


def stack(tensors, axis=0):
    """Join same-shaped tensors along a new axis."""
    tensors = _tensors_arg("Stack", tensors)
    s0 = tensors[0].shape
    for t in tensors[1:]:
        if t.shape != s0:
            raise ValueError(f"For 'Stack', all input shapes must be the same, but got {s0} and {t.shape}.")
    ax = _axis("Stack", axis, len(s0) + 1)
    return P.stack_p(*tensors, axis=ax)


def where(condition, input, other):
    """input where condition is True, else other (broadcasting)."""
    if not isinstance(condition, Tensor):
        condition = Tensor(condition)
    if condition.dtype != mstype.bool_:
        condition = P.cast_p(condition, dtype="Bool")
    if isinstance(input, Tensor) and isinstance(other, Tensor) and input.dtype != other.dtype:
        dt = mstype.promote_types(input.dtype, other.dtype)
        input, other = cast(input, dt), cast(other, dt)
    elif not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = Tensor(input)
    return P.where_p(condition, input, other)


def zeros(size, dtype=None):
    """A tensor of zeros (Float32 unless `dtype`)."""
    return P.fill_p(shape=_shape_arg("zeros", size), value=0, dtype=_dtype_arg("zeros", dtype or mstype.float32).name)


def ones(shape, dtype=None):
    """A tensor of ones (Float32 unless `dtype`)."""
    return P.fill_p(shape=_shape_arg("ones", shape), value=1, dtype=_dtype_arg("ones", dtype or mstype.float32).name)


def full(size, fill_value, *, dtype=None):
    """A tensor of `size` (a tuple or list) filled with `fill_value`, of `dtype` (Int64 when None, whatever the value:
    MindSpore's `ops.full`; `mint.full` infers the dtype from the value).

    >>> import mindseed as ms
    >>> ms.ops.full((2,), 2.5)
    Tensor(shape=[2], dtype=Int64, value= [2 2])
    """
    if not isinstance(size, (list, tuple)):
        raise TypeError(f"For 'ops.full', 'size' must be a tuple or list of ints, but got {type(size)}.")
    return full_ext(size, fill_value, dtype=mstype.int64 if dtype is None else dtype)


def full_ext(size, fill_value, *, dtype=None):
    """A tensor of `size` filled with `fill_value` (dtype inferred from the value unless given): `mint.full`."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = mstype.bool_ if isinstance(fill_value, bool) else \
            mstype.int64 if isinstance(fill_value, int) else mstype.float32
    return P.fill_p(shape=_shape_arg("full", size), value=fill_value, dtype=_dtype_arg("full", dtype).name)


def fill(type, shape, value):
    """MindSpore's older spelling: fill(dtype, shape, value)."""
    return full_ext(shape, value, dtype=type)


def full_like(input, fill_value, *, dtype=None):
    _check_tensor("full_like", "input", input)
    return full_ext(input.shape, fill_value, dtype=dtype or input.dtype)


# ---------------------------------------------------------------- indexing
def _normalize_index(x, index):
    """A Python/Tensor index -> a backend index (tensor indices to backend tensors, lists kept)."""
    if isinstance(index, tuple):
        items = tuple(_index_item(i) for i in index)
        # NOTE: numpy (and MindSpore) treat an int beside an array index as an advanced index too, which
        # moves the advanced dimensions to the front; the backend treats it as basic. A 1-element index
        # broadcasts like the int and restores numpy's layout.
        if any(not isinstance(i, (int, slice, type(None), type(Ellipsis))) and getattr(i, "ndim", 0) > 0
               for i in items):
            items = tuple(Tensor([i])._data if isinstance(i, int) and not isinstance(i, bool) else i for i in items)
        return items
    return _index_item(index)


def _index_item(i):
    if isinstance(i, Tensor):
        if i.dtype == mstype.uint8:     # not a mask (torch's old meaning): MindSpore refuses it
            raise IndexError(f"The tensor index must be int or bool type, but got {i.asnumpy()}")
        if i.dtype in (mstype.int8, mstype.int16):
            return cast(i, mstype.int64)._data
        if i.dtype == mstype.bool_ or mstype.is_integral(i.dtype):
            return i._data
        raise IndexError(f"For 'Tensor.__getitem__', a tensor index must be int or bool, but got {i.dtype}.")
    if isinstance(i, list):
        if any(isinstance(v, Tensor) for v in i):
            i = [int(v.item()) if isinstance(v, Tensor) else v for v in i]
        return Tensor(i)._data
    if isinstance(i, np.ndarray):
        return Tensor(i)._data
    if isinstance(i, (bool, np.bool_)):
        return bool(i)
    if isinstance(i, np.integer):
        return int(i)
    if isinstance(i, slice):
        return slice(*(int(v.item()) if isinstance(v, Tensor) else v for v in (i.start, i.stop, i.step)))
    return i


def _check_int_index(x, index):
    items = index if isinstance(index, tuple) else (index,)
    dim = 0
    for it in items:
        if it is None or it is Ellipsis:
            if it is Ellipsis:
                return
            continue
        if isinstance(it, int) and not isinstance(it, bool):
            if dim >= x.ndim:
                raise IndexError(f"For 'Tensor.__getitem__', too many indices for a tensor of dimension {x.ndim}.")
            n = x.shape[dim]
            if not -n <= it < n:
                raise IndexError(f"For 'Tensor.__getitem__', index {it} is out of bounds for dimension {dim} with "
                                 f"size {n}.")
        dim += 1


def _graph_index(index, norm, mask_ok):
    """While a graph is traced: (template with Slot(k) for each tensor of `index`, [those tensors]), so the
    graph reads the index values at run time; None when `index` holds no tensor. A boolean mask computed in the
    graph selects a data-dependent number of elements: `mask_ok=False` (getitem) stops the trace there."""
    items, nitems = (index, norm) if isinstance(index, tuple) else ((index,), (norm,))
    tensors, tmpl = [], []
    for it, n in zip(items, nitems):
        if isinstance(it, Tensor):
            if it.dtype == mstype.bool_ and not mask_ok:
                _state.tracing.on_concrete_read(it, "a boolean mask index (a result of data-dependent size)",
                                                constant=False)
            tmpl.append(PI.Slot(len(tensors)))
            tensors.append(it)
        else:
            tmpl.append(n)
    if not tensors:
        return None
    return (tuple(tmpl) if isinstance(index, tuple) else tmpl[0]), tensors


def _list_as_tuple(index):
    """A list index holding a Tensor (0-d too), a list or tuple, a slice, None or Ellipsis indexes like the tuple
    of its items (`x[[mask, 0]]` is `x[mask, 0]`, `x[[Tensor(1)]]` is `x[Tensor(1)]`, `x[[[0, 1], [1, 0]]]` is
    `x[[0, 1], [1, 0]]`), as in MindSpore; a list of numbers stays one array index."""
    if isinstance(index, list) and any(isinstance(i, (Tensor, slice, list, tuple)) or i is None or i is Ellipsis
                                       for i in index):
        return tuple(index)
    return index


def _check_slice(s):
    """A slice's bounds are ints (bools), tensors or None: MindSpore's TypeError in a graph, RuntimeError in
    PyNative."""
    for v in (s.start, s.stop, s.step):
        if v is None or isinstance(v, (int, np.integer, Tensor)):
            continue
        if _state.tracing is not None:
            raise TypeError(f"Slice indices must be integers or bool. But got a {mstype.graph_scalar_dtype(v)} "
                            f"number.")
        raise RuntimeError("Slice index type must be int, tensor or none.")


def _check_refused_index(x, index):
    """Reading with a Python False index, an empty list or a list of False only (which select nothing), or a list
    of ints past the first dim, is an IndexError, as in MindSpore."""
    if index is False or isinstance(index, np.bool_) and not index:
        raise IndexError("When tensor is indexed by a bool object, the value only support 'True'.")
    if isinstance(index, tuple) and any(i is False or isinstance(i, np.bool_) and not i for i in index):
        raise IndexError("Bool element of tuple index must be 'True', but got 'False'.")
    if isinstance(index, tuple) and any(_empty_sequence(i) for i in index):
        raise IndexError("The sequence element(tuple/list) in tuple index can't be empty.")
    if isinstance(index, list) and all(i is False or isinstance(i, np.bool_) and not i for i in index):
        # a list of bools selects the positions of its True items: none is an empty list index
        raise IndexError("When tensor is indexed by list, the list can't be empty.")
    for it in index if isinstance(index, tuple) else (index,):
        if isinstance(it, slice):
            _check_slice(it)
    if isinstance(index, list) and x.ndim and all(type(i) is int for i in index):
        n = x.shape[0]
        for i in index:
            if not -n <= i < n:
                raise IndexError(f"index {i} out of bounds for dimension with size {n}")


def _empty_sequence(i):
    return isinstance(i, (list, tuple)) and not i


def _selects_nothing(index):
    """An empty list index, or a tuple index with an empty list/tuple among its items: MindSpore's setitem writes
    nothing (its getitem refuses them)."""
    return _empty_sequence(index) if isinstance(index, list) else \
        isinstance(index, tuple) and any(_empty_sequence(i) for i in index)


def tensor_getitem(x, index):
    """x[index] with ints, slices, Ellipsis, None, bool masks, int tensors/lists and mixes."""
    index = _list_as_tuple(index)
    _check_refused_index(x, index)
    if isinstance(index, (int, tuple)) and not isinstance(index, bool):
        _check_int_index(x, index)
    norm = _normalize_index(x, index)
    if _state.tracing is not None:
        dyn = _graph_index(index, norm, False)
        if dyn is not None:
            return PI.getitem_dyn_p(x, *dyn[1], index=dyn[0])
    return P.getitem_p(x, index=norm)


def tensor_setitem(x, index, value):
    """x[index] = value, as a new tensor (the caller rebinds it)."""
    if isinstance(value, Tensor):
        pass
    elif isinstance(value, complex) and not mstype.is_complex(x.dtype):
        raise TypeError(f"For 'tensor_setitem', a complex value cannot be assigned to a Tensor of dtype {x.dtype}.")
    elif isinstance(value, (bool, numbers.Number)):
        value = narrow(float(value), x) if mstype.is_float(x.dtype) and not isinstance(value, bool) else value
    else:
        value = Tensor(value, x.dtype)
    index = _list_as_tuple(index)
    if _selects_nothing(index):
        return x
    if isinstance(index, Tensor) and index.dtype == mstype.bool_ and isinstance(value, Tensor) and \
            index.shape == x.shape == value.shape:
        # a mask and a value both of x's shape: the value where the mask holds (MindSpore's graphs; its PyNative
        # refuses it, a torch-style fill would need as many values as True elements)
        return P.where_p(index, value if value.dtype == x.dtype else cast(value, x.dtype), x)
    norm = _normalize_index(x, index)
    if _state.tracing is not None:
        dyn = _graph_index(index, norm, True)
        if dyn is not None:
            return PI.setitem_dyn_p(x, value, *dyn[1], index=dyn[0])
    return P.setitem_p(x, value, index=norm)


def _write_through(view, new):
    """An in-place update of `t.data` (a view of all of t, sharing its memory in MindSpore) writes `t` too, outside
    autodiff. (Writes into basic slices, `x[0][1] = v`, land in their root in mindseed.ops._tensor_ops.)"""
    root, path = getattr(view, "_view", None) or (None, None)
    if root is not None and not path and root.shape == new.shape and root.dtype == new.dtype:
        if isinstance(root, Parameter):
            root._remember_value()
        root._data = new._data


def inplace_result(target):
    """What an in-place op returns: `target`, but for a Parameter a Tensor of its new value, as MindSpore's in-place
    ops and primitives return Tensors (printing one prints values, not the Parameter). A trace or a recording tape
    gets the Parameter itself, the object they track."""
    if _state.tracing is None and not _state.tapes and _parameter_like(target):
        return Tensor._from_raw(target._data)
    return target


def _parameter_like(t):
    """A Parameter, or a Tensor whose class marks it one with MindSpore's `__parameter__` attribute (mindnlp's
    Parameter, a Tensor subclass): MindSpore's graph compiler takes such an object as a Parameter, so an in-place
    update of it in a graph is written back at every call."""
    return isinstance(t, Parameter) or hasattr(type(t), "__parameter__")


def update_in_place(target, fn, *others, mutate=None):
    """Make `target` hold fn(its old value) (a new Tensor): `x.add_(y)`, `x[i] = v`, the in-place index ops.

    `mutate(backend_array)`, when given, makes the same update by writing the array itself: used when nothing can
    see the old value (no tape, no trace, no undo stack, no other Tensor, view or numpy array sharing the memory:
    `_backend.sole_owner`), so that updating a few rows of a large buffer does not copy it.

    Recording tapes see `target` as the new value from now on and keep the old one under a new handle
    (`others`: the other tensors fn reads, for tapes tracking only them). While a graph is traced, the update of
    a Parameter, or of a Tensor the traced function was called with, is an Assign of the graph, so every call of the
    compiled function repeats it (the Parameter is captured first, so fn reads its value at each call, not at
    tracing).
    """
    if not isinstance(target, Tensor):
        raise TypeError(f"For the in-place update, the input to update must be a Tensor (or Parameter), but got "
                        f"{type(target).__name__}.")
    tracing = _state.tracing
    if mutate is not None and tracing is None and not _state.tapes and not _state.param_undo and \
            getattr(target, "_view", None) is None and B.is_array(target._data) and B.sole_owner(target._data):
        try:
            mutate(target._data)
            return inplace_result(target)
        except IndexError:
            pass            # nothing was written: the functional update below raises the op's own error
    param = _parameter_like(target)
    if param:
        for undo in _state.param_undo:     # Parameter._remember_value: a speculative trace restores the value
            undo.setdefault(id(target), (target, target._data))
    param = param and tracing is not None
    if param:
        tracing.operand(target)
    tapes = [t for t in _state.tapes if getattr(t, "rebinds_all", False) or t.is_tracked(target) or
             any(isinstance(o, Tensor) and t.is_tracked(o) for o in others)]
    if not tapes:
        new = fn(Tensor._from_raw(target._data))
        # a Tensor argument of a traced function: the graph writes the caller's tensor (later reads see new)
        written = tracing is not None and not param and tracing.on_argument_write(target, new)
        target._data = new._data
        if tracing is not None and not written:
            tracing.rebind(new, target)    # later reads of target in the graph read the new value
        _write_through(target, new)
        return inplace_result(target)
    old = Tensor._from_raw(target._data)
    for t in tapes:
        t.rebind(target, old)
    new = fn(old)
    if tracing is not None and not param:
        tracing.on_argument_write(target, new)
    target._data = new._data
    _write_through(target, new)
    for t in tapes:
        t.rebind(new, target)
    if param:
        tracing.on_parameter_write(target, new)
    return target
