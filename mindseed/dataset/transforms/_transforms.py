"""Data-type independent transforms: `mindspore.dataset.transforms`."""
import enum
import numbers

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.dataset import _validate as V
from mindseed.dataset._random import rng, std_engine
from mindseed.dataset._std_random import canonical, uniform_int
from mindseed.dataset.transforms._base import PyTensorOperation, TensorOperation

__all__ = ["Compose", "Concatenate", "Duplicate", "Fill", "Mask", "OneHot", "PadEnd", "RandomApply",
           "RandomChoice", "RandomOrder", "Relational", "Slice", "TypeCast", "Unique", "not_random", "PyFunc"]


def _np_dtype(data_type, name="data_type"):
    if data_type == mstype.string:
        return np.dtype(np.str_)        # strings of any length
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
        if self._dtype.kind == "U":
            # only strings are strings: MindSpore casts no number (nor bytes) to String
            if x.dtype.kind != "U":
                raise RuntimeError(f"TypeCast: TypeCast does not support cast from {x.dtype} to string")
            return x
        if x.dtype.kind in "USO":
            raise RuntimeError(f"TypeCast: TypeCast does not support cast from string to {self._dtype}")
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
        # NOTE: as MindSpore's kernel, size-1 axes of the input and of the (n, num_classes) result are squeezed
        # ((3, 1) labels give (3, num_classes), one label in a (1,) array gives (num_classes,)), and a negative
        # label gives a row of zeros.
        x = np.asarray(x)
        if x.dtype.kind not in "iu":
            raise RuntimeError(f"OneHot: the input must be of integer type, but got {x.dtype}.")
        x = np.squeeze(x)
        if x.ndim > 1:
            raise RuntimeError(f"OneHot: Only support scalar or 1D input, got rank: {x.ndim}")
        if x.size and x.max() >= self.num_classes:
            raise RuntimeError(f"OneHot: index values should not bigger than num classes: {self.num_classes}, "
                               f"but got: {int(x.max())}")
        labels = x.reshape(-1).astype(np.int64)
        eye = np.zeros((labels.size, self.num_classes), dtype=x.dtype)
        hit = labels >= 0
        eye[np.nonzero(hit)[0], labels[hit]] = 1
        if self.smoothing_rate:
            s = self.smoothing_rate
            eye = eye.astype(np.float64) * (1 - s) + s / self.num_classes
        return np.squeeze(eye)


def _type_name(a):
    """MindSpore's name of an array's data type (str arrays are `string`, bytes arrays `bytes`)."""
    return {"U": "string", "S": "bytes"}.get(a.dtype.kind, a.dtype.name)


def _scalar_like(value, a):
    """`value` (a number) as a 0-d array of `a`'s numeric dtype, converted as C++ casts (300 -> 44 in uint8)."""
    with np.errstate(all="ignore"):
        v = np.array(value)
        return v.astype(a.dtype) if v.dtype.kind != "f" or a.dtype.kind == "f" else \
            np.array(int(value)).astype(a.dtype)


class Fill(TensorOperation):
    """A tensor of the input's shape and dtype filled with `fill_value` (cast to the input's type; strings only
    fill string tensors and bytes only bytes tensors)."""

    def __init__(self, fill_value):
        V.type_check(fill_value, (str, float, bool, int, bytes), "fill_value")
        self.fill_value = fill_value

    def _apply(self, x):
        x = np.asarray(x)
        v = np.array(self.fill_value)
        if (v.dtype.kind in "US" or x.dtype.kind in "US") and v.dtype.kind != x.dtype.kind:
            raise RuntimeError(f"Fill: fill_value and the input tensor must be of the same data type when involving "
                               f"strings or bytes, but got fill_value data type {_type_name(v)} and input tensor "
                               f"data type {_type_name(x)}")
        if x.dtype.kind in "US":
            return np.full(x.shape, self.fill_value)
        return np.full(x.shape, _scalar_like(self.fill_value, x), dtype=x.dtype)


class Duplicate(TensorOperation):
    """Two copies of the input (two output columns)."""

    def _apply(self, x):
        x = np.asarray(x)
        return x, x.copy()


class Concatenate(TensorOperation):
    """Concatenate the 1-D inputs with `prepend` and `append` (1-D numpy arrays of the inputs' type)."""

    def __init__(self, axis=0, prepend=None, append=None):
        if axis is not None:
            V.type_check(axis, (int,), "axis")
            if axis not in (0, -1):
                raise ValueError("only 1D concatenation supported.")
        for name, arr in (("prepend", prepend), ("append", append)):
            if arr is not None:
                V.type_check(arr, (np.ndarray,), name)
                if arr.ndim != 1:
                    raise ValueError(f"can only {name} 1D arrays.")
        self.axis, self.prepend, self.append = axis, prepend, append

    def _apply(self, *xs):
        xs = [np.asarray(x) for x in xs]
        if any(_type_name(x) != _type_name(xs[0]) for x in xs[1:]):
            raise RuntimeError("Concatenate: inconsistent datatype of input.")
        for x in xs:
            if x.ndim != 1:
                raise RuntimeError(f"Concatenate: only 1D input supported, got rank of input: {x.ndim}")
        for name, arr in (("prepend", self.prepend), ("append", self.append)):
            if arr is not None and _type_name(arr) != _type_name(xs[0]):
                raise RuntimeError(f"Concatenate: input datatype does not match the {name} datatype, got input "
                                   f"datatype: {_type_name(xs[0])}, {name} datatype:{_type_name(arr)}")
        parts = ([self.prepend] if self.prepend is not None else []) + xs + \
                ([self.append] if self.append is not None else [])
        return np.concatenate(parts)


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
        V.type_check(operator, (Relational,), "operator")
        V.type_check(constant, (str, float, bool, int, bytes), "constant")
        V.type_check(dtype, (mstype.Type,), "dtype")
        self.operator = operator
        self.constant = constant
        self.dtype = dtype
        self._dtype = _np_dtype(dtype, "dtype") if dtype == mstype.bool_ or dtype in mstype.number_type else None

    def _apply(self, x):
        if self._dtype is None:
            raise RuntimeError(f"Mask: Only supports bool or numeric datatype for generated mask type, but "
                               f"got:{str(self.dtype).lower()}")
        x = np.asarray(x)
        c = np.array(self.constant)
        if (x.dtype.kind in "US") != (c.dtype.kind in "US"):
            raise RuntimeError("Mask: input datatype does not match the value datatype, both should be numeric or "
                               "non-numerical in the same time.")
        if x.dtype.kind in "US":  # str and bytes compare as UTF-8 text
            x, c = (np.char.decode(v, "utf-8") if v.dtype.kind == "S" else v for v in (x, c))
        else:
            c = _scalar_like(self.constant, x)  # the constant takes the input's type (3.5 -> 3 for ints)
        return _REL[self.operator](x, c).astype(self._dtype)

    def _batch_apply(self, x):
        return self._apply(x)


class PadEnd(TensorOperation):
    """Pad (or cut) each dimension at its end to `pad_shape` (None keeps the input's size), with `pad_value`
    (cast to the input's type; 0, '' or b'' by default)."""

    def __init__(self, pad_shape, pad_value=None):
        if pad_value is not None:
            V.type_check(pad_value, (str, float, bool, int, bytes), "pad_value")
        V.type_check(pad_shape, (list,), "pad_shape")
        for dim in pad_shape:
            if dim is not None:
                if not isinstance(dim, int):
                    raise TypeError("a value in the list is not an integer.")
                V.check_value(dim, (1, 2 ** 63 - 1))
        self.pad_shape = pad_shape
        self.pad_value = pad_value

    def _apply(self, x):
        x = np.asarray(x)
        if x.ndim != len(self.pad_shape):
            raise RuntimeError(f"PadEnd: invalid pad shape, as rank of input is: {x.ndim}, and rank of pad value: "
                               f"{len(self.pad_shape)}")
        if self.pad_value is None:
            value = "" if x.dtype.kind == "U" else b"" if x.dtype.kind == "S" else 0
        else:
            value = self.pad_value
        v = np.array(value)
        text_in, text_pad = x.dtype.kind in "US", v.dtype.kind in "US"
        if text_in != text_pad:
            raise RuntimeError(f"PadEnd: can not pad numeric and string tensors together, but got: {_type_name(v)} "
                               f"and {_type_name(x)}.")
        if text_in and v.dtype.kind != x.dtype.kind:
            raise RuntimeError(f"PadEnd: can not pad string and byte tensors together, but got: {_type_name(v)} and "
                               f"{_type_name(x)}.")
        shape = [x.shape[i] if s is None else s for i, s in enumerate(self.pad_shape)]
        x = x[tuple(slice(0, s) for s in shape)]
        if text_in:
            out = np.full(shape, value, dtype=np.result_type(x.dtype, v.dtype))
        else:
            out = np.full(shape, _scalar_like(value, x), dtype=x.dtype)
        out[tuple(slice(0, s) for s in x.shape)] = x
        return out


class Slice(TensorOperation):
    """Index each dimension (the first ones; the rest are kept whole) with an int (kept as a size-1 dim), a list
    of ints, a slice, or None / Ellipsis / True (the whole dimension)."""

    def __init__(self, *slices):
        for s in slices:
            if s is not None:
                V.type_check(s, (int, list, slice, bool, type(Ellipsis)), "slice")
                if isinstance(s, list) and s and isinstance(s[0], int):
                    V.type_check_list(s, (int,), "slice")
        for s in slices:
            if isinstance(s, list):
                V.type_check_list(s, (int,), "slice_option")
        self.slices = slices

    def _apply(self, x):
        x = np.asarray(x)
        if len(self.slices) > x.ndim:
            raise RuntimeError("Invalid shape, should be greater than slices index.")
        for d, s in enumerate(self.slices):
            if s is None or s is Ellipsis or s is True:
                continue
            if s is False or (isinstance(s, list) and not s):
                raise RuntimeError("Both indices and slices can not be empty.")
            if isinstance(s, slice):
                idx = s
            else:
                idx = []
                for i in [s] if isinstance(s, int) else s:
                    j = i + x.shape[d] if i < 0 else i
                    if not 0 <= j < x.shape[d]:
                        raise RuntimeError(f"Index {j} is out of bounds.")
                    idx.append(j)
            x = x[(slice(None),) * d + (idx,)]
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
        g = _engine(self, 2)
        # MindSpore's C++ RandomApply: uniform_real_distribution<double>(0, 1) <= prob
        hit = rng().random() < self.prob if g is None else canonical(g) <= self.prob
        return _chain(self.transforms if hit else (), args)


def _engine(op, draws):
    """`op`'s MindSpore generator in a map when all its transforms are C++ ones there (MindSpore runs the Python
    implementation, with Python's `random`, as soon as one is a Python function or a Python op)."""
    if all(isinstance(t, TensorOperation) and not isinstance(t, PyTensorOperation) for t in op.transforms):
        return std_engine(op, draws)
    return None


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
        g = _engine(self, 1)
        n = len(self.transforms)
        return (self.transforms[int(rng().integers(n)) if g is None else uniform_int(g, 0, n - 1)],)


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
