"""Python operators and core methods of Tensor, attached here because they dispatch to ops.

Other functional families declare `TENSOR_METHODS = {name: function(self, ...)}`; `attach()` puts
all of them on the Tensor class once, when `mindseed.ops` is imported.
"""
import numpy as np

from mindseed._utils import _state
from mindseed.common import _tensor_state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import core as P
from mindseed.ops._python_scalars import narrow, narrow_pair
from mindseed.ops.functional import _core as F
from mindseed.ops.functional._array_shape import swapaxes as _swapaxes


def _holds_tensor(seq):
    return any(isinstance(x, Tensor) or (isinstance(x, (list, tuple)) and _holds_tensor(x)) for x in seq)


def _sequence_tensor(seq, dtype=None):
    """A list or tuple as a Tensor; one holding Tensors is stacked, so gradients reach its elements (`x + (y, z)`
    differentiates y and z, as MindSpore's does)."""
    if not _holds_tensor(seq):
        return Tensor(seq) if dtype is None else Tensor(seq, dtype)
    if dtype is None:
        dtype = next((x.dtype for x in seq if isinstance(x, Tensor)), None)
    parts = [x if isinstance(x, Tensor) else _sequence_tensor(x, dtype) if isinstance(x, (list, tuple))
             else Tensor(x, dtype) for x in seq]
    if dtype is not None:
        parts = [F.cast(x, dtype) if x.dtype != dtype else x for x in parts]
    return F.stack(parts)


_STRING_REFUSED = ("Add", "Sub", "Mul")


def _refuse_string(prim, other):
    """A string operand of `t + s` (or -, *): MindSpore's TypeError of its argument-type check."""
    name = getattr(prim, "name", None)
    if isinstance(other, str) and name in _STRING_REFUSED:
        raise TypeError(f'Failed calling {name} with "{name}()(input=Tensor, other=string)".\nThe valid calling '
                        f'should be: \n"{name}()(input=<Number, Tensor>, other=<Number, Tensor>)".')


def _binary(prim, op):
    def method(self, other):
        if isinstance(other, Tensor) or isinstance(other, (int, float, bool, complex)):
            return prim(self, narrow(other, self))
        if isinstance(other, (list, tuple)):
            # a sequence of numbers becomes a tensor of self's dtype (`int32_t + [1.5, 2.5]` adds [1, 2])
            return prim(self, _sequence_tensor(other, self.dtype))
        if isinstance(other, np.generic) and other.dtype.kind in "biuf":
            return prim(self, narrow(other.item(), self))   # a numpy number is a Python number to MindSpore
        if isinstance(other, (np.ndarray, np.generic)):
            return prim(self, Tensor(other))
        _refuse_string(prim, other)
        return NotImplemented
    method.__name__ = op
    return method


def _scaled(prim, op):
    # `x.__sub__(y, alpha=2)` and `x.__iadd__(y, alpha=2)`: MindSpore's add and sub scale `other` by alpha first
    plain = _binary(prim, op)

    def method(self, other, *, alpha=1):
        if alpha != 1:
            other = (_sequence_tensor(other) if isinstance(other, (list, tuple)) else other) * alpha
        return plain(self, other)
    method.__name__ = op
    return method


def _equality(prim, op, unequal):
    # MindSpore compares a Tensor elementwise only with a Tensor or a Python number; anything else (a list, a tuple,
    # an ndarray, a string, None) is simply not equal: `t == [1, 2]` is False, `t != (1, 2)` is True
    def method(self, other):
        if isinstance(other, (Tensor, int, float)):
            return prim(self, narrow(other, self))
        return unequal
    method.__name__ = op
    return method


def _rbinary(prim, op):
    def method(self, other):
        # (`array - t` never comes here: numpy computes it through Tensor.__array_ufunc__)
        _refuse_string(prim, other)
        if isinstance(other, (list, tuple)):
            other = _sequence_tensor(other, self.dtype)
        return prim(narrow(other, self), self)
    method.__name__ = op
    return method


def _functional(name):
    """A call of `ops.functional.<name>`, looked up when called (the math family is attached after this module)."""
    def call(*args):
        from mindseed.ops import functional  # noqa: PLC0415
        return getattr(functional, name)(*(narrow_pair(*args) if len(args) == 2 else args))
    call.__name__ = name
    return call


_floordiv, _mod, _abs = _functional("floor_divide"), _functional("remainder"), _functional("abs")
# `&`, `|`, `^` are MindSpore's BitwiseAnd/Or/Xor for every operand: two bools stay Bool, a bool tensor with an int
# promotes (`mask & 2` is Int64), and a float operand is refused
_and, _or, _xor = _functional("bitwise_and"), _functional("bitwise_or"), _functional("bitwise_xor")


def _matmul(x, y):
    return F.matmul(x, y)


def _invert(self):
    # MindSpore's `~t` is a logical not for every dtype (`~Tensor([12, 0])` is [False, True]); `Tensor.invert()` /
    # `ops.bitwise_not` are the bitwise ones
    from mindseed.ops import functional  # noqa: PLC0415
    return functional.logical_not(self)


def _basic_index(index):
    """Is `index` basic indexing (ints, slices, None, ...), whose result is a view of the indexed tensor?"""
    for i in index if type(index) is tuple else (index,):
        if not (i is None or i is Ellipsis or type(i) in (int, slice) or isinstance(i, np.integer)):
            return False
    return True


def _getitem(self, index):
    out = F.tensor_getitem(self, index)
    if _state.tracing is None and out is not self and type(out) is Tensor and _basic_index(index):
        # in PyNative a basic slice is a view: `x[0][1] = v` writes into x. A slice of a slice keeps the root tensor
        # and the path of indices, not its parent, so that `x = x[1:]` in a loop does not keep every copy alive.
        root, path = getattr(self, "_view", None) or (self, ())
        out._view = (root, path + (index,))
    return out


def _along(root, path):
    """The values of `root` at the end of a path of basic indices, now."""
    parts = [root]
    for at in path:
        parts.append(F.tensor_getitem(parts[-1], at))
    return parts


def _setitem(self, index, value):
    # refused under an eager gradient, as in PyNative; a compiled graph traces it as a functional update
    for t in _state.tapes if _state.tracing is None else ():
        if id(self) in getattr(t, "inputs", ()):
            raise RuntimeError("Can not modify tensor id of input tensor from network by assign value, this may caused "
                               "by slice op, please check your code to avoid this error!")
    view = getattr(self, "_view", None) if _state.tracing is None else None
    if view is not None and view[1]:    # a slice; a `t.data` view (empty path) is written by update_in_place
        root, path = view
        parts = _along(root, path)   # the root's values along the path now (it may have been written since)
        if parts[-1].shape == self.shape and parts[-1].dtype == self.dtype:
            # the write lands in the root, through each level of the path; the view then reads the root back
            new = F.tensor_setitem(parts[-1], index, value)
            for part, at in zip(parts[-2:0:-1], path[:0:-1]):
                new = F.tensor_setitem(part, at, new)
            _setitem(root, path[0], new)
            F.update_in_place(self, lambda old: _along(root, path)[-1], value)
            return
        self._view = None   # the root changed shape or dtype: the slice stands alone from now on
    F.update_in_place(self, lambda old: F.tensor_setitem(old, index, value), value)


# each with its reflected (__radd__) and in-place (__iadd__, a new tensor) forms
_ARITHMETIC = (("add", P.add_p), ("sub", F.sub_keeping_bool), ("mul", P.mul_p), ("truediv", P.div_p),
               ("floordiv", _floordiv), ("mod", _mod), ("pow", P.pow_p), ("matmul", _matmul), ("and", _and),
               ("or", _or), ("xor", _xor))

_IN_PLACE = ("add", "sub", "mul", "truediv", "floordiv", "mod")


def _augmented(method):
    """`x op= y` (__iadd__, ...): in PyNative a new tensor, as `x op y`; in a compiled graph MindSpore's in-place
    update, which keeps x's dtype: y is cast to it first, and so is the result (`x += 1.5` adds 1 to an Int64 x,
    `h *= f32` keeps a Float16 h)."""
    def call(self, other, **kwargs):
        if _state.tracing is None or not isinstance(self, Tensor):
            return method(self, other, **kwargs)
        if isinstance(other, Tensor) and other.dtype != self.dtype:
            other = F.cast(other, self.dtype)
        elif isinstance(other, (bool, int, float)) and not isinstance(other, bool):
            other = bool(other) if self.dtype == mstype.bool_ else \
                int(other) if mstype.is_integral(self.dtype) else other
        out = method(self, other, **kwargs)
        return F.cast(out, self.dtype) if isinstance(out, Tensor) and out.dtype != self.dtype else out
    call.__name__ = method.__name__
    return call


_OPERATORS = {
    **{f"__{kind}{name}__": make(fn, f"__{kind}{name}__")
       for name, fn in _ARITHMETIC for kind, make in (("", _binary), ("r", _rbinary))},
    # MindSpore's graphs update in place for +=, -=, *=, /=, //=, %= only; **=, @=, &=, |=, ^= stay `x = x op y`
    **{f"__i{name}__": (_augmented if name in _IN_PLACE else lambda m: m)(_binary(fn, f"__i{name}__"))
       for name, fn in _ARITHMETIC},
    **{"__add__": _scaled(P.add_p, "__add__"), "__sub__": _scaled(F.sub_keeping_bool, "__sub__"),
       "__iadd__": _augmented(_scaled(P.add_p, "__iadd__")),
       "__isub__": _augmented(_scaled(F.sub_keeping_bool, "__isub__"))},
    "__lt__": _binary(P.less_p, "__lt__"), "__le__": _binary(P.less_equal_p, "__le__"),
    "__gt__": _binary(P.greater_p, "__gt__"), "__ge__": _binary(P.greater_equal_p, "__ge__"),
    "__eq__": _equality(P.equal_p, "__eq__", False), "__ne__": _equality(P.not_equal_p, "__ne__", True),
    "__req__": _rbinary(P.equal_p, "__req__"),
    "__neg__": lambda self: P.neg_p(self),
    "__pos__": lambda self: self,
    "__abs__": _abs,
    "__invert__": _invert,
    "__getitem__": _getitem,
    "__setitem__": _setitem,
}


def _reshape(self, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return F.reshape(self, shape)


def _transpose(self, *axes, dim0=None, dim1=None):
    """Tensor.transpose in MindSpore's two forms: two ints (or dim0=, dim1=) swap those dimensions, as
    transpose(dim0, dim1); otherwise the axes (or one tuple of them) are a permutation, None reversing them."""
    if dim0 is not None or dim1 is not None:
        axes = axes + tuple(d for d in (dim0, dim1) if d is not None)
        if len(axes) != 2:
            raise TypeError(f"For 'Tensor.transpose', 'dim0' and 'dim1' must both be given, but got {axes}.")
    if len(axes) == 2 and all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        return _swapaxes(self, *axes)
    if not axes or (len(axes) == 1 and axes[0] is None):
        axes = tuple(range(self.ndim - 1, -1, -1))
    elif len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = axes[0]
    return F.transpose(self, axes)


def _broadcast_to(self, *shape):
    # Tensor.broadcast_to(shape) and broadcast_to(*shape)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return F.broadcast_to(self, tuple(shape))


def _permute(self, *axes):
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = axes[0]
    return F.transpose(self, axes)


def _astype(self, dtype, copy=True):
    """The tensor cast to `dtype`: a mindspore dtype, a numpy dtype or type, or its name ("float16")."""
    if isinstance(dtype, str):
        # "bool" / "int" / "float" are numpy's names here (float is Float64), not mindspore.bool/int/float
        named = None if dtype in ("bool", "int", "float") else getattr(mstype, dtype, None)
        try:
            dtype = named if isinstance(named, mstype.Type) else np.dtype(dtype)
        except TypeError:
            raise TypeError(f"For 'Tensor.astype', the 'dtype' must be a mindspore dtype, a numpy dtype or the name "
                            f"of one, but got '{dtype}'.") from None
    if not isinstance(dtype, mstype.Type):
        dtype = mstype.pytype_to_dtype(dtype)
    return F.cast(self, dtype)


def _sum(self, *args, **kwargs):
    """Tensor.sum in MindSpore's two forms: (dim=None, keepdim=False, *, dtype=None), chosen by `dim`/`keepdim`
    keywords or a bool second argument, else the numpy-like (axis=None, dtype=None, keepdims=False, initial=None)."""
    if {"dim", "keepdim"} & kwargs.keys() or (len(args) > 1 and isinstance(args[1], bool)):
        return F.sum(self, *args, **kwargs)
    return _sum_numpy(self, *args, **kwargs)


def _sum_numpy(self, axis=None, dtype=None, keepdims=False, initial=None):
    # `initial` joins the sum before the cast to `dtype` (a bool dtype gives whether the total is non-zero)
    if initial is None:
        return F.sum(self, axis, keepdims, dtype=dtype)
    out = F.sum(self, axis, keepdims) + initial
    return out if dtype is None else F.cast(out, dtype)


def _T(self):
    return F.transpose(self, tuple(range(self.ndim - 1, -1, -1)))


def _type(self, dtype=None):
    """Tensor.type(): the dtype's name ("Float32"); Tensor.type(dtype): the tensor cast to dtype."""
    return str(self.dtype) if dtype is None else F.cast(self, dtype)


def _contiguous(self):
    """The tensor in contiguous memory, differentiated as the identity (already contiguous: an Identity, which a
    graph also treats as the value at this point of a Parameter updated later)."""
    return P.identity_p(self) if self.is_contiguous() else P.contiguous_p(self)


def _conj_T(self, swap_last_two):
    from mindseed.ops import functional  # noqa: PLC0415 -- the math family, attached after import
    axes = tuple(range(self.ndim - 2)) + (self.ndim - 1, self.ndim - 2) if swap_last_two else \
        tuple(range(self.ndim - 1, -1, -1))
    t = F.transpose(self, axes)
    return functional.conj(t) if mstype.is_complex(self.dtype) else t


def _expand_as(self, other=None, x=None):
    # MindSpore's two overloads: expand_as(other) and the older expand_as(x)
    if (other is None) == (x is None):
        raise TypeError("Failed calling expand_as with the arguments given: the valid callings are "
                        "'expand_as(other=<Tensor>)' and 'expand_as(x=<Tensor>)'.")
    other = x if other is None else other
    if not isinstance(other, Tensor):
        raise TypeError(f"For 'expand_as', the 'other' must be a Tensor, but got {type(other).__name__}.")
    return F.broadcast_to(self, other.shape)


def _to(self, *args, **kwargs):
    """Tensor.to in MindSpore's forms: (dtype=None, non_blocking=False, copy=False) and (device=None, dtype=None,
    non_blocking=False, copy=False), the device a str ('CPU', 'GPU'); to(other) takes other's dtype."""
    args = list(args)
    if args and isinstance(args[0], Tensor):        # to(other): other's dtype
        args[0] = args[0].dtype
    device = args.pop(0) if args and isinstance(args[0], str) else None
    names = ("dtype", "non_blocking", "copy")
    if len(args) > len(names) or set(kwargs) - set(names) - {"device"} or set(names[:len(args)]) & set(kwargs):
        raise TypeError(f"For 'Tensor.to', the arguments must be (dtype=None, non_blocking=False, copy=False) or "
                        f"(device=None, dtype=None, non_blocking=False, copy=False), but got {len(args)} positional "
                        f"and {sorted(kwargs)} keyword arguments.")
    given = dict(zip(names, args), **kwargs)
    device = given.get("device", device)
    dtype = given.get("dtype")
    if dtype is not None and not isinstance(dtype, mstype.Type):
        raise TypeError(f"For 'Tensor.to', the 'dtype' must be a mindspore dtype, but got {type(dtype).__name__}.")
    out = self
    if device is not None:
        moved = _tensor_state.device_data(self._data, device, "Tensor.to")
        # already there, or in a graph (where MindSpore ignores the device): the tensor itself, which tapes and
        # traces know
        if moved is not self._data and _state.tracing is None:
            out = Tensor._from_raw(moved)
    if dtype is not None:
        out = F.cast(out, dtype)
    if out is self and given.get("copy", False):
        out = self.copy()
    return out


CORE_METHODS = {
    "reshape": _reshape, "view": _reshape, "transpose": _transpose, "permute": _permute, "astype": _astype,
    "sum": _sum, "broadcast_to": _broadcast_to, "expand_as": _expand_as, "to": _to,
    "add": F.add, "sub": F.sub, "mul": F.mul, "div": F.div, "neg": F.neg, "matmul": F.matmul, "pow": F.pow,
    "exp": F.exp, "log": F.log, "maximum": F.maximum, "minimum": F.minimum, "relu": F.relu, "sign": F.sign,
    "greater": F.greater, "less": F.less, "greater_equal": F.greater_equal, "less_equal": F.less_equal,
    "equal": F.equal, "not_equal": F.not_equal, "gt": F.gt, "lt": F.lt, "ge": F.ge, "le": F.le, "eq": F.eq,
    "ne": F.ne, "subtract": F.sub, "multiply": lambda self, value: F.mul(self, value), "divide": F.div,
    "negative": F.neg,
    "true_divide": lambda self, other: F.true_divide(self, other), "float": lambda self: F.cast(self, mstype.float32),
    "half": lambda self: F.cast(self, mstype.float16), "int": lambda self: F.cast(self, mstype.int32),
    "long": lambda self: F.cast(self, mstype.int64), "bool": lambda self: F.cast(self, mstype.bool_),
    "double": lambda self: F.cast(self, mstype.float64), "byte": lambda self: F.cast(self, mstype.uint8),
    "type": _type, "contiguous": _contiguous,
}


def attach(*tables):
    for table in (_OPERATORS, CORE_METHODS) + tables:
        for name, fn in table.items():
            setattr(Tensor, name, fn)
    # the methods with several signatures refuse bad arguments with MindSpore's overload message
    from mindseed.ops._overload import attach_explained  # noqa: PLC0415
    attach_explained(Tensor)
    Tensor.T = property(_T)
    Tensor.mT = property(lambda self: F.transpose(self, tuple(range(self.ndim - 2)) + (self.ndim - 1, self.ndim - 2)))
    Tensor.H = property(lambda self: _conj_T(self, False))
    Tensor.mH = property(lambda self: _conj_T(self, True))
