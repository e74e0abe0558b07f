"""Data-type independent transforms: `mindspore.dataset.transforms`."""
import enum
import numbers

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.dataset import _validate as V
from mindseed.dataset._random import rng
from mindseed.dataset.transforms._base import PyTensorOperation, TensorOperation

__all__ = ["Compose", "Concatenate", "Duplicate", "Fill", "Mask", "OneHot", "PadEnd", "RandomApply",
           "RandomChoice", "RandomOrder", "Relational", "Slice", "TypeCast", "Unique", "not_random", "PyFunc"]


def _np_dtype(data_type, name="data_type"):
    if isinstance(data_type, mstype.Type):
        return np.dtype(mstype.dtype_to_nptype(data_type))
    if isinstance(data_type, np.dtype) or (isinstance(data_type, type) and issubclass(data_type, np.generic)):
        return np.dtype(data_type)
    raise TypeError(f"Argument {name} with value {data_type} is not of type [<class 'mindspore.dtype'>, "
                    f"<class 'numpy.dtype'>], but got {type(data_type)}.")


def _check_transforms(transforms, name="transforms"):
    if not isinstance(transforms, list):
        raise TypeError(f"Argument {name} with value {transforms!r} is not of type [<class 'list'>].")
    if not transforms:
        raise ValueError(f"{name} should not be empty.")
    for i, t in enumerate(transforms):
        if not callable(t):
            raise TypeError(f"{name}[{i}] is not callable: {t!r}.")


def _run(op, vals):
    res = op(*vals)
    return res if isinstance(res, tuple) else (res,)


def _chain(ops, args):
    """`args` through `ops` in order (each one's outputs are the next one's inputs); a single output unwrapped."""
    vals = args
    for op in ops:
        vals = _run(op, vals)
    return vals[0] if len(vals) == 1 else vals


def not_random(function):
    """Mark a Python function as deterministic (kept for MindSpore compatibility)."""
    if not callable(function):
        raise TypeError(f"not_random: the argument 'function' must be a callable, but got {type(function)}.")
    function.random = False
    return function


class Compose(PyTensorOperation):
    """Apply transforms in order (each one's outputs are the next one's inputs).

    Args:
        transforms (list): transforms or Python callables.

    >>> Compose([Fill(2), TypeCast(mindseed.float32)])(np.array([1, 2]))
    array([2., 2.], dtype=float32)
    """

    def __init__(self, transforms):
        _check_transforms(transforms)
        self.transforms = list(transforms)

    def _apply(self, *args):
        return _chain(self.transforms, args)

    @staticmethod
    def reduce(operations):
        """Kept for MindSpore compatibility: the list itself."""
        return list(operations)


class TypeCast(TensorOperation):
    """Cast to `data_type` (a mindseed dtype or a numpy dtype)."""

    def __init__(self, data_type):
        self.data_type = data_type
        self._dtype = _np_dtype(data_type)

    def _apply(self, x):
        x = np.asarray(x)
        if x.dtype.kind in "USO":
            raise RuntimeError(f"TypeCast: cannot cast a string tensor to {self._dtype}.")
        return x.astype(self._dtype)

    def _batch_apply(self, x):
        return self._apply(x)


class OneHot(TensorOperation):
    """One-hot encode integer labels (with optional label smoothing, which gives float64)."""

    def __init__(self, num_classes, smoothing_rate=0.0):
        if isinstance(num_classes, bool) or not isinstance(num_classes, int):
            raise TypeError(f"Argument num_classes with value {num_classes} is not of type [<class 'int'>].")
        if num_classes <= 0:
            raise ValueError("Input must be greater than 0.")
        if not isinstance(smoothing_rate, numbers.Real) or not 0.0 <= smoothing_rate <= 1.0:
            raise ValueError("Input smoothing_rate is not within the required interval of [0.0, 1.0].")
        self.num_classes = num_classes
        self.smoothing_rate = float(smoothing_rate)

    def _apply(self, x):
        x = np.asarray(x)
        if x.dtype.kind not in "iu":
            raise RuntimeError(f"OneHot: the input must be of integer type, but got {x.dtype}.")
        if x.ndim > 1:
            raise RuntimeError(f"OneHot: the input must be a scalar or 1-D, but got shape {x.shape}.")
        if x.size and (x.min() < 0 or x.max() >= self.num_classes):
            raise RuntimeError(f"OneHot: label {int(x.max() if x.max() >= self.num_classes else x.min())} is out of "
                               f"range [0, {self.num_classes - 1}].")
        eye = np.eye(self.num_classes, dtype=x.dtype)[x]
        if self.smoothing_rate:
            s = self.smoothing_rate
            return eye.astype(np.float64) * (1 - s) + s / self.num_classes
        return eye


class Fill(TensorOperation):
    """A tensor of the input's shape (and dtype) filled with `fill_value`."""

    def __init__(self, fill_value):
        if not isinstance(fill_value, (str, bytes, numbers.Number)):
            raise TypeError(f"Argument fill_value with value {fill_value} is not of type [str, bytes, int, float, "
                            f"bool].")
        self.fill_value = fill_value

    def _apply(self, x):
        x = np.asarray(x)
        if isinstance(self.fill_value, str) != (x.dtype.kind == "U"):
            raise RuntimeError("Fill: the fill_value and the input must both be strings or both be numbers.")
        if x.dtype.kind == "U":
            return np.full(x.shape, self.fill_value)
        return np.full(x.shape, self.fill_value, dtype=x.dtype)


class Duplicate(TensorOperation):
    """Two copies of the input (two output columns)."""

    def _apply(self, x):
        x = np.asarray(x)
        return x, x.copy()


class Concatenate(TensorOperation):
    """Concatenate the 1-D input with `prepend` and `append` along `axis`."""

    def __init__(self, axis=0, prepend=None, append=None):
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"Argument axis with value {axis} is not of type [<class 'int'>].")
        self.axis = axis
        self.prepend = None if prepend is None else V.to_array(prepend, "prepend")
        self.append = None if append is None else V.to_array(append, "append")

    def _apply(self, *xs):
        parts = ([self.prepend] if self.prepend is not None else []) + [np.asarray(x) for x in xs] + \
                ([self.append] if self.append is not None else [])
        for p in parts:
            if p.ndim != 1:
                raise RuntimeError(f"Concatenate: only 1-D tensors are supported, but got shape {p.shape}.")
        return np.concatenate(parts, axis=self.axis)


class Relational(enum.Enum):
    """Comparison operators of Mask."""
    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_REL = {Relational.EQ: np.equal, Relational.NE: np.not_equal, Relational.GT: np.greater,
        Relational.GE: np.greater_equal, Relational.LT: np.less, Relational.LE: np.less_equal}


class Mask(TensorOperation):
    """Elementwise `input <operator> constant`, cast to `dtype` (bool by default)."""

    def __init__(self, operator, constant, dtype=mstype.bool_):
        if not isinstance(operator, Relational):
            raise TypeError(f"Argument operator with value {operator} is not of type [Relational].")
        if not isinstance(constant, (str, bytes, numbers.Number)):
            raise TypeError(f"Argument constant with value {constant} is not of type [str, int, float, bool].")
        self.operator = operator
        self.constant = constant
        self.dtype = dtype
        self._dtype = _np_dtype(dtype, "dtype")

    def _apply(self, x):
        return _REL[self.operator](np.asarray(x), self.constant).astype(self._dtype)

    def _batch_apply(self, x):
        return self._apply(x)


class PadEnd(TensorOperation):
    """Pad (or cut) each dimension at its end to `pad_shape`, with `pad_value` (0 or '')."""

    def __init__(self, pad_shape, pad_value=None):
        if not isinstance(pad_shape, list) or not all(isinstance(s, int) and not isinstance(s, bool)
                                                      for s in pad_shape):
            raise TypeError(f"Argument pad_shape with value {pad_shape} is not of type [<class 'list'>] of int.")
        if any(s <= 0 for s in pad_shape):
            raise ValueError("pad_shape should contain positive integers.")
        if pad_value is not None and not isinstance(pad_value, (str, bytes, numbers.Number)):
            raise TypeError(f"Argument pad_value with value {pad_value} is not of type [str, bytes, int, float].")
        self.pad_shape = pad_shape
        self.pad_value = pad_value

    def _apply(self, x):
        x = np.asarray(x)
        if x.ndim != len(self.pad_shape):
            raise RuntimeError(f"PadEnd: pad_shape {self.pad_shape} has {len(self.pad_shape)} dimensions, but the "
                               f"input has shape {list(x.shape)}.")
        x = x[tuple(slice(0, s) for s in self.pad_shape)]
        value = self.pad_value
        if value is None:
            value = "" if x.dtype.kind == "U" else b"" if x.dtype.kind == "S" else 0
        dtype = np.result_type(x.dtype, np.asarray(value).dtype) if x.dtype.kind in "US" else x.dtype
        out = np.full(self.pad_shape, value, dtype=dtype)
        out[tuple(slice(0, s) for s in x.shape)] = x
        return out


class Slice(TensorOperation):
    """Index each dimension with an int (kept as a size-1 dim), a list of ints, a slice, None or Ellipsis."""

    def __init__(self, *slices):
        for s in slices:
            if not (s is None or s is Ellipsis or isinstance(s, (int, slice, list)) and not isinstance(s, bool)):
                raise TypeError(f"Slice: unsupported index {s!r}; use int, list of int, slice, None or Ellipsis.")
        self.slices = slices

    def _apply(self, x):
        x = np.asarray(x)
        idx = []
        for s in self.slices:
            if s is None:
                idx.append(slice(None))
            elif isinstance(s, int):
                idx.append([s])
            else:
                idx.append(s)
        if Ellipsis in idx:
            k = idx.index(Ellipsis)
            idx = idx[:k] + [slice(None)] * (x.ndim - len(idx) + 1) + idx[k + 1:]
        if len(idx) > x.ndim:
            raise RuntimeError(f"Slice: {len(idx)} indices for a tensor of rank {x.ndim}.")
        try:
            for d, s in enumerate(idx):
                x = x[(slice(None),) * d + (s,)]
        except IndexError as e:
            raise RuntimeError(f"Slice: {e}.") from None
        return x


class Unique(TensorOperation):
    """(unique values in order of first appearance, index of each input element among them, counts) of the
    flattened input, which must be at least 2-D (MindSpore 2.10's check: a 1-D row is refused)."""

    def _apply(self, x):
        x = np.asarray(x)
        if x.ndim < 2:
            raise RuntimeError(f"Unique: input must be at least 2-D in order to do unique op, got rank:{x.ndim}")
        x = x.ravel()
        values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return values[order], rank[inverse].astype(np.int32), counts[order].astype(np.int32)


class RandomApply(TensorOperation):
    """Apply the transforms (in order) with probability `prob`."""

    def __init__(self, transforms, prob=0.5):
        _check_transforms(transforms)
        if not isinstance(prob, numbers.Real) or not 0 <= prob <= 1:
            raise ValueError("Input prob is not within the required interval of [0.0, 1.0].")
        self.transforms = list(transforms)
        self.prob = prob

    def _apply(self, *args):
        return _chain(self.transforms if rng().random() < self.prob else (), args)


class _RandomTransforms(TensorOperation):
    """A transform that applies its list of transforms in an order drawn at random (`_pick`)."""

    def __init__(self, transforms):
        _check_transforms(transforms)
        self.transforms = list(transforms)

    def _apply(self, *args):
        return _chain(self._pick(), args)


class RandomChoice(_RandomTransforms):
    """Apply one transform chosen uniformly at random."""

    def _pick(self):
        return (self.transforms[int(rng().integers(len(self.transforms)))],)


class RandomOrder(_RandomTransforms):
    """Apply all transforms in a random order."""

    def _pick(self):
        return [self.transforms[k] for k in rng().permutation(len(self.transforms))]


class PyFunc(TensorOperation):
    """Wrap a Python callable as a transform (what map does with plain functions)."""

    _tensor_inputs = False

    def __init__(self, func):
        if not callable(func):
            raise TypeError("PyFunc: func must be callable.")
        self.func = func

    @property
    def _op_name(self):
        return "PyFunc"

    def _apply(self, *args):
        return self.func(*args)
