"""Tensor: MindSpore's n-dimensional array, a thin handle over one backend tensor.

The class here holds data-level behaviour only (construction, attributes, numpy interop,
printing). Operators and the ~300 math methods are attached by `mindseed.ops` (which sits above
this layer) so that every one of them goes through the primitive dispatcher and autodiff.
"""
import numbers
import operator
import weakref

import numpy as np

from mindseed import _backend as B
from mindseed._backend import _lazy
from mindseed._utils import _state
from mindseed._utils._files import atomic_write
from mindseed._utils._jit_forbidden import jit_forbidden_register
from mindseed._utils._public_type import PublicType
from mindseed.common import dtype as mstype
from mindseed.common.symbol import Symbol, register_placeholder

__all__ = ["Tensor", "COOTensor", "CSRTensor", "RowTensor"]

# backend dtype -> MindSpore dtype, filled when the backend loads (a Tensor with data loads it); a placeholder made
# before (`_backend.meta`: a shapes-only recording) has the MindSpore dtype's name
_ALL_DTYPES = mstype.all_types + (mstype.float8_e4m3fn, mstype.float8_e5m2, mstype.qint4x2)
_DTYPE_OF = {t.name: t for t in _ALL_DTYPES}


@_lazy.when_loaded
def _backend_dtypes():
    _DTYPE_OF.update({B.torch_dtype(t.name): t for t in _ALL_DTYPES})


def _infer_dtype(data):
    """MindSpore's dtype of Python data: bool -> Bool, int -> Int64, float -> Float32."""
    kind = -1  # -1 no element, 0 bool, 1 int, 2 float, 3 complex
    arrays = False

    def walk(x):
        nonlocal kind, arrays
        if isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        elif isinstance(x, np.ndarray):
            arrays = True
        elif isinstance(x, Tensor):
            k = 0 if x.dtype == mstype.bool_ else 1 if mstype.is_integral(x.dtype) else \
                3 if mstype.is_complex(x.dtype) else 2
            kind = max(kind, k)
        elif isinstance(x, (bool, np.bool_)):
            kind = max(kind, 0)
        elif isinstance(x, (int, np.integer)):
            kind = max(kind, 1)
        elif isinstance(x, (float, np.floating)):
            kind = max(kind, 2)
        elif isinstance(x, (complex, np.complexfloating)):
            kind = 3
        elif isinstance(data, (list, tuple)):
            raise _unsupported_element(data)
        else:
            raise TypeError(f"For 'Tensor', the type of input_data element must be bool, int, float or complex, "
                            f"but got {type(x).__name__}.")
    walk(data)
    if arrays:
        return _stacked_dtype(data)
    # no element at all (`Tensor([])`): MindSpore's default float32; a Python complex is a double pair: Complex128
    return (mstype.float32, mstype.bool_, mstype.int64, mstype.float32, mstype.complex128)[kind + 1]


def _unsupported_element(data):
    """MindSpore's TypeError for a list/tuple that is ragged or holds something that is not a number."""
    return TypeError(f"For Tensor, the input_data is {data if len(str(data)) <= 200 else type(data).__name__} "
                     f"that contain unsupported element.")


# a list holding numpy arrays takes numpy's dtype of the whole, except these (MindSpore's defaults for Python data)
_LIST_DEFAULTS = {np.dtype(np.float64): mstype.float32, np.dtype(np.int32): mstype.int64}


def _stacked_dtype(data):
    """The dtype of a list/tuple with numpy arrays among its elements (`Tensor((a, b))` stacks a and b)."""
    try:
        dt = np.asarray(_to_numpy_nested(data)).dtype
    except ValueError:  # ragged
        dt = np.dtype(object)
    if dt.kind in "OUS":
        raise _unsupported_element(data)
    return _LIST_DEFAULTS.get(dt) or mstype.pytype_to_dtype(dt)


def _to_numpy_nested(data):
    if isinstance(data, (list, tuple)):
        return [_to_numpy_nested(x) for x in data]
    if isinstance(data, Tensor):
        return data.asnumpy()
    return data


def _wrap(raw):
    t = _new(Tensor)
    t._data = raw
    return t


_new = object.__new__
_TENSOR_DTYPE_NAMES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
                       "float64", "bfloat16", "complex64", "complex128", "int4", "float8_e4m3fn", "float8_e5m2",
                       "hifloat8", "bool", "string_")


def _graph_constant(x):
    # a numpy scalar stays a Python number (weakly typed, as a literal in the source is); an array becomes a Tensor
    return x.item() if isinstance(x, np.generic) else Tensor(x)


_GRAPH_UFUNCS = {
    np.add: operator.add, np.subtract: operator.sub, np.multiply: operator.mul, np.true_divide: operator.truediv,
    np.floor_divide: operator.floordiv, np.remainder: operator.mod, np.power: operator.pow,
    np.matmul: operator.matmul, np.equal: operator.eq, np.not_equal: operator.ne, np.less: operator.lt,
    np.less_equal: operator.le, np.greater: operator.gt, np.greater_equal: operator.ge,
}


# id(placeholder Tensor) -> (a weak reference to it, its shape with -1 for each dynamic dim), for the
# Tensor(shape=[None, 3], dtype=...) placeholders (Tensors compare elementwise: they are not dictionary keys)
_DYNAMIC = {}


def _note_dynamic(tensor, shape):
    key = id(tensor)
    _DYNAMIC[key] = (weakref.ref(tensor, lambda _: _DYNAMIC.pop(key, None)),
                     tuple(s if isinstance(s, int) and s != -1 else -1 for s in shape))


# Tensors whose data is a torch-free Placeholder (made before torch loaded): once torch loads, their data becomes
# a meta tensor, so the backend's readers (which then take torch tensors only) keep working on them
_PLACEHOLDER_TENSORS = weakref.WeakSet()


def _keep_placeholder(t):
    if B.is_placeholder(t._data):
        _PLACEHOLDER_TENSORS.add(t)
    return t


@_lazy.when_loaded
def _materialize_placeholders():
    for t in list(_PLACEHOLDER_TENSORS):
        t._data = B.materialize(t._data)
    _PLACEHOLDER_TENSORS.clear()


class Tensor(metaclass=PublicType):
    """A multi-dimensional array of one dtype.

    Args:
        input_data: a Tensor, numpy array, Python scalar, list or tuple. Default: ``None``.
        dtype (mindspore.dtype): the element type; inferred from the data when ``None``.
        shape (tuple): with ``init``, the shape of a tensor to initialize.
        init (Initializer): an initializer that fills a tensor of ``shape`` and ``dtype``.

    >>> import mindseed as ms
    >>> ms.Tensor([[1, 2], [3, 4]], ms.float32).shape
    (2, 2)
    """

    # _view: (root, path of indices) of a slice taken by basic indexing in PyNative (`x[0]`): a write into it lands
    # in the root too, as into a MindSpore view (mindseed.ops._tensor_ops); unset otherwise
    __slots__ = ("_data", "_view", "__weakref__", "__dict__")   # __dict__: user attributes, as MindSpore allows

    def __new__(cls, input_data=None, *args, **kwargs):
        # a numpy array of str or bytes makes a tensor of dtype String (its __init__ runs next)
        if cls is Tensor and (isinstance(input_data, (np.ndarray, np.str_, np.bytes_)) and
                              np.asarray(input_data).dtype.kind in "US" or isinstance(input_data, StringTensor)):
            return _new(StringTensor)
        return _new(cls)

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, internal=False, const_arg=False,
                 device=None):
        if const_arg:
            _tensor_state.set_const_arg(self, const_arg)
        if dtype is not None and not isinstance(dtype, mstype.Type):
            # MindSpore takes its own dtypes only: a Python or numpy type is refused
            names = ", ".join(f"mindspore.{n}" for n in _TENSOR_DTYPE_NAMES)
            raise TypeError(f"For 'Tensor', the 'dtype' should be one of [{names}], but got "
                            f"'{getattr(dtype, '__name__', dtype)}'.")
        if dtype == mstype.string and input_data is not None:
            dtype = None    # numbers asked for as String keep their own dtype (MindSpore)
        if input_data is None and dtype is None and init is None:
            if isinstance(shape, (list, tuple)) and any(d is None or d == -1 for d in shape):
                raise ValueError("If setting dynamic shape, dtype must not be None, init must be None")
            raise TypeError("For 'Tensor', the type of 'input_data' should be one of '['Tensor', 'ndarray', 'str_', "
                            "'list', 'tuple', 'float', 'int', 'bool', 'complex', 'bytes']', but got type 'NoneType'.")
        if input_data is None:
            if init is not None:
                self._data = _init_data(init, shape, dtype)
                return
            if shape is None and dtype is None:
                raise ValueError("For 'Tensor', 'input_data' and 'shape' can not both be None.")
            if shape is not None and not isinstance(shape, (int, list, tuple)):
                raise TypeError(f"For 'Tensor', the 'shape' should be one of [list, tuple], but got "
                                f"'{type(shape)}'.")
            shape = None if shape is None else (shape,) if isinstance(shape, int) else tuple(shape)
            if shape is None or shape == (-2,):
                # a dynamic-rank placeholder (Tensor(shape=None or [-2], dtype=...)) for set_inputs: no data
                self._data = B.meta([], dtype.name)
                _keep_placeholder(self)
                return
            if any(s is None or isinstance(s, Symbol) or s == -1 for s in shape):
                # a dynamic-shape placeholder (Tensor(shape=[None, 3]), a Symbol for a constrained dim) for
                # set_inputs; holds no data
                self._data = B.meta([s if isinstance(s, int) and s != -1 else 0 for s in shape],
                                    (dtype or mstype.float32).name)
                _keep_placeholder(self)
                _note_dynamic(self, shape)
                if any(isinstance(s, Symbol) for s in shape):
                    register_placeholder(self, shape)
                return
            if any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in shape):
                raise ValueError(f"For 'Tensor', the 'shape' must hold non-negative ints, but got {shape}.")
            try:
                self._data = B.full(shape, 0, (dtype or mstype.float32).name)
            except (RuntimeError, MemoryError, OverflowError, TypeError) as exc:
                kind, msg = B.kernel_error(exc)
                raise kind(f"For 'Tensor', no data of shape {shape} can be made: {msg}") from None
            return
        if init is not None:
            raise ValueError("For 'Tensor', 'init' must be None when 'input_data' is given.")
        rec = _state.tracing
        if rec is not None and isinstance(input_data, Tensor):
            # a copy of a value of the graph, not a constant (gradients stop at it, as in PyNative)
            if dtype is None or dtype == input_data.dtype:
                self._data = B.clone(input_data._data)
                rec.on_copy(input_data, self)
            else:
                cast = _handle(input_data, input_data._data).astype(dtype)
                self._data = cast._data
                rec.rebind(cast, self)
            return
        self._data = _checked_convert(input_data, dtype)

    # ------------------------------------------------------------ construction helpers
    @staticmethod
    def from_numpy(array):
        """A Tensor sharing memory with the numpy array (on CPU)."""
        if not isinstance(array, np.ndarray):
            raise TypeError(f"For 'Tensor.from_numpy', the input must be numpy.ndarray, but got "
                            f"{type(array).__name__}.")
        t = _wrap(B.from_numpy(array, copy=False))
        _tensor_state._set(t, "numpy_repr", True)   # its repr is numpy's, as MindSpore's numpy-backed tensors print
        return t

    @classmethod
    def _from_raw(cls, raw):
        return _wrap(raw)

    # ------------------------------------------------------------ attributes
    @property
    def shape(self):
        s = tuple(B.shape_of(self._data))
        if _DYNAMIC and 0 in s:     # a dynamic-shape placeholder: its unknown dims read -1, as in MindSpore
            entry = _DYNAMIC.get(id(self))
            if entry is not None and entry[0]() is self:
                return entry[1]
        return s

    @property
    def dtype(self):
        return _DTYPE_OF[B.dtype_of(self._data)]

    @property
    def ndim(self):
        return B.ndim(self._data)

    @property
    def size(self):
        return B.numel(self._data)

    @property
    def itemsize(self):
        return B.itemsize(self._data)

    @property
    def nbytes(self):
        return B.numel(self._data) * B.itemsize(self._data)

    @property
    def strides(self):
        es = B.itemsize(self._data)
        return tuple(s * es for s in B.strides_of(self._data))

    @property
    def has_init(self):
        return False

    @property
    def init(self):
        return None

    def init_data(self, slice_index=None, shape=None, opt_shard_group=None):
        return self

    def dim(self):
        return B.ndim(self._data)

    def numel(self):
        return B.numel(self._data)

    def nelement(self):
        return B.numel(self._data)

    def element_size(self):
        return B.itemsize(self._data)

    def is_contiguous(self):
        return B.is_contiguous(self._data)

    def stride(self, dim=None):
        s = tuple(B.strides_of(self._data))
        if dim is None:
            return list(s)      # a list, as MindSpore's
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or not -max(len(s), 1) <= dim < len(s):
            raise IndexError(f"For 'stride', the 'dim' must be an int in [{-len(s)}, {len(s)}), but got {dim!r}.")
        return s[dim]

    def storage_offset(self):
        return B.storage_offset(self._data)

    def data_ptr(self):
        return B.data_ptr(self._data)

    def is_complex(self):
        return mstype.is_complex(self.dtype)

    def is_floating_point(self):
        return mstype.is_float(self.dtype)

    def is_signed(self):
        return self.dtype in mstype.signed_type

    def is_persistent_data(self):
        return False

    @property
    def device(self):
        return B.device_target()

    def data_sync(self, wait=True):
        return self

    def _offload(self):
        """MindSpore's hint to move the data of a device tensor to host memory (repeatable); returns None. The
        data of a mindseed tensor stays where its kernels run (as `cpu()` and `move_to` keep it): nothing moves."""
        return None

    def _load(self):
        """MindSpore's hint to bring offloaded data back to the device; returns None (see `_offload`)."""
        return None

    # ------------------------------------------------------------ numpy interop
    def asnumpy(self):
        """The values as a numpy array (shares memory with the tensor on CPU)."""
        rec = _state.tracing
        if rec is not None:
            rec.on_concrete_read(self, "asnumpy()")
        a = B.to_numpy(self._data)
        # MindSpore's int64 arrays are C's long long, which numpy's repr names (`array([1, 2], dtype=int64)`)
        return a.view(np.longlong) if a.dtype.char == "l" else a

    def numpy(self):
        return self.asnumpy()

    def __array__(self, dtype=None, copy=None):
        a = self.asnumpy()
        return a if dtype is None else a.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # MindSpore's Tensor leaves numpy alone: `np.float32(2) * t` or `array == t` is numpy's computation on the
        # tensor's values, an ndarray, in PyNative. Inside a graph MindSpore's compiler makes the numpy constant a
        # tensor and the result is a Tensor: the same operator on Tensors here.
        op = _GRAPH_UFUNCS.get(ufunc) if method == "__call__" and not kwargs else None
        if op is not None and _state.tracing is not None:
            return op(*(x if isinstance(x, Tensor) else _graph_constant(x) for x in inputs))
        arrays = tuple(x.asnumpy() if isinstance(x, Tensor) else x for x in inputs)
        return getattr(ufunc, method)(*arrays, **kwargs)

    def item(self, index=None):
        if index is not None:
            return self[index].item()
        if B.numel(self._data) != 1:
            raise ValueError(f"For 'Tensor.item', the tensor must have exactly one element, but got shape "
                             f"{self.shape}.")
        rec = _state.tracing
        if rec is not None:
            scalar = rec.on_item(self)
            if scalar is not None:
                return scalar
            rec.on_concrete_read(self, "item()")
        return B.item(self._data)

    def tolist(self):
        rec = _state.tracing
        if rec is not None:
            rec.on_concrete_read(self, "tolist()")
        if self.dtype == mstype.bfloat16:
            return B.tolist(B.cast(self._data, "Float32"))
        return B.tolist(self._data)

    def __bool__(self):
        rec = _state.tracing
        if rec is not None:
            rec.on_concrete_read(self, "bool()")
        if B.numel(self._data) != 1:
            raise ValueError("The truth value of an array with more than one element is ambiguous. "
                             "Use a.any() or a.all()")
        return bool(B.item(self._data))

    def _one_element(self):
        if B.numel(self._data) != 1:
            raise ValueError("Only one element tensors can be converted to Python scalars")
        return self.item()

    def __int__(self):
        return int(self._one_element())

    def __float__(self):
        return float(self._one_element())

    def __complex__(self):
        return complex(self.item())

    def __index__(self):
        rec = _state.tracing
        if rec is not None:
            rec.on_concrete_read(self, "an index")
        if not mstype.is_integral(self.dtype) or B.numel(self._data) != 1:
            raise ValueError("Only integer tensors of a single element can be converted to an index.")
        return int(B.item(self._data))

    def __len__(self):
        if B.ndim(self._data) == 0:
            raise TypeError("Not support len of a 0-D tensor.")
        return B.shape_of(self._data)[0]

    def __iter__(self):
        if B.ndim(self._data) == 0:
            raise TypeError("iteration over a 0-d tensor" if _state.tracing is None else
                            "Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(B.shape_of(self._data)[0]))

    def __hash__(self):
        return id(self)

    def __reduce__(self):
        values = self.asnumpy() if self.dtype != mstype.bfloat16 else B.to_numpy(B.cast(self._data, "Float32"))
        return (_rebuild, (values, self.dtype.name))

    def __getstate__(self):
        """MindSpore's pickled state: ``{"value": (ndarray,)}``."""
        return {"value": (self.asnumpy() if self.dtype != mstype.bfloat16
                          else B.to_numpy(B.cast(self._data, "Float32")),)}

    def __setstate__(self, state):
        """Restore the value from `__getstate__`'s dict (or its bare ``(ndarray,)`` tuple), keeping the dtype the
        array carries."""
        value = state if isinstance(state, tuple) else state.get("value") if isinstance(state, dict) else None
        if not isinstance(value, tuple) or len(value) != 1:
            raise TypeError(f"For 'Tensor.__setstate__', the state must be a dict with a 'value' tuple (ndarray,) or "
                            f"that tuple, but got {type(state).__name__}.")
        self._data = Tensor(value[0])._data

    def __copy__(self):
        return _wrap(B.clone(self._data))

    def __deepcopy__(self, memo):
        t = _wrap(B.clone(self._data))
        memo[id(self)] = t
        return t

    # ------------------------------------------------------------ printing
    def __repr__(self):
        if B.ndim(self._data) > 0 and _tensor_state._get(self, "numpy_repr", False):
            text = np.array2string(_host_array(self), separator=", ")
            return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value={chr(10) if self.ndim > 1 else ' '}" \
                   f"{text})"
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value={_value_str(self)})"

    def __str__(self):
        return _value_str(self, for_str=True)

    def __format__(self, spec):
        if B.ndim(self._data) == 0 and spec:
            return format(self.item(), spec)
        return str(self)

    # ------------------------------------------------------------ data movement
    def set_dtype(self, dtype):
        if not isinstance(dtype, mstype.Type):
            raise TypeError(f"For 'set_dtype', the 'dtype' must be a mindspore dtype, but got {dtype!r}.")
        self._data = B.cast(self._data, dtype.name)
        return self

    @jit_forbidden_register
    def assign_value(self, value):
        """Replace the data of this tensor (no autodiff)."""
        if isinstance(value, Tensor):
            self._data = value._data
        else:
            self._data = _checked_convert(value, self.dtype)
        return self

    def copy(self):
        return _handle(self, B.clone(self._data))

    def value(self):
        """The value of the tensor: the tensor itself (a Parameter returns its data as a Tensor)."""
        return self

    def detach(self):
        return _handle(self, self._data)

    def contiguous(self):
        return _handle(self, B.contiguous(self._data))

    def cpu(self):
        return self

    def move_to(self, to, blocking=True):
        """A copy of the tensor on the device `to` ("CPU", or the context's device target: "GPU" on a CUDA
        machine). PyNative only.

        Raises:
            ValueError: `blocking` is not a bool, `to` is not "Ascend", "GPU" or "CPU", or the call is in a graph.
            RuntimeError: `to` is neither "CPU" nor the device target.
        """
        if not isinstance(blocking, bool):
            raise ValueError(f"The type of 'blocking' must be bool, but got {blocking}")
        if to not in ("Ascend", "GPU", "CPU"):
            raise ValueError(f"The value of 'to' must be one of ['Ascend', 'GPU', 'CPU'], but got {to}")
        if _state.tracing is not None:
            raise ValueError("The method 'move_to' is not supported in jit.")
        target = B.device_target()
        moved = B.to_device(self._data, to) if to in ("CPU", target) else None
        if moved is None:
            raise RuntimeError(f"The value of arg 'to' of method 'move_to' should be same with device target, bug got "
                               f"to:{to}, device target: {target}")
        return _handle(self, B.clone(moved) if moved is self._data else moved)

    def asnumpy_of_slice_persistent_data(self, param_key, slice_index):
        return self.asnumpy()

    def offload(self, file_path):
        """Write the tensor's bytes to `file_path` (MindSpore's offload; the data also stays in memory here) and
        return True; `offload_file_path` then gives the path.

        Raises:
            TypeError: `file_path` is not a str.
        """
        if not isinstance(file_path, str):
            raise TypeError(f"argument 1 must be str, not {type(file_path).__name__}")
        atomic_write(file_path, np.ascontiguousarray(self.asnumpy()).tobytes())
        if id(self) not in _OFFLOADED:
            weakref.finalize(self, _OFFLOADED.pop, id(self), None)   # the entry goes with the tensor
        _OFFLOADED[id(self)] = (weakref.ref(self), file_path)
        return True

    def offload_file_path(self):
        """The file the tensor was offloaded to, or '' if it never was."""
        ref, path = _OFFLOADED.get(id(self), (None, ""))
        return path if ref is not None and ref() is self else ""

    def flush_from_cache(self):
        return None


# id(Tensor) -> (a weak reference to it, the file `offload` wrote it to); by id: Tensor == is elementwise
_OFFLOADED = {}


def _rebuild(array, dtype_name):
    return Tensor(array, dtype=mstype._by_name(dtype_name))


def _handle(x, raw):
    """A new Tensor object around `raw`, which holds x's value (detach(), copy(), Parameter.value()): while a
    graph is traced it is an Identity of x in the graph (recorded by the graph only: a new object is on no grad
    tape, so gradients stop at it), which keeps x's value at this point if x is a Parameter updated later."""
    t = _wrap(raw)
    rec = _state.tracing
    if rec is not None:
        rec.on_copy(x, t)
    return t


def _convert_error(data, dtype, exc):
    """Why Python/numpy data cannot become a Tensor (ragged lists, values out of the dtype's range), in the
    Tensor's words."""
    kind, msg = B.kernel_error(exc)
    if "inhomogeneous" in msg or "sequence" in msg:
        kind, msg = ValueError, "the nested sequences have different lengths (a Tensor needs a rectangular shape)."
    elif isinstance(exc, OverflowError) or "out of bounds" in msg:
        kind, msg = ValueError, "a value is out of the range of the dtype."
    what = type(data).__name__ if not isinstance(data, (list, tuple)) or len(str(data)) > 60 else str(data)
    dt = "" if dtype is None else f" as {dtype}"
    return kind(f"For 'Tensor', the input_data {what} cannot be converted{dt}: {msg}")


def _checked_convert(data, dtype):
    """`_convert`, with a failure to convert told in the Tensor's words."""
    try:
        return _convert(data, dtype)
    except (ValueError, TypeError, OverflowError, RuntimeError) as exc:
        if str(exc).startswith(("For '", "For Tensor,", "initializing tensor")):
            raise
        if isinstance(data, int) and not isinstance(data, bool):
            if not -2 ** 63 <= data < 2 ** 64:     # no integer type holds it: MindSpore's RuntimeError
                raise RuntimeError(f"For 'Tensor', cannot construct a Tensor of the int {data}: unsupported data "
                                   f"type (it fits no 64-bit integer).") from None
            if dtype is None and data >= 2 ** 63:   # past int64: MindSpore's UInt64
                return _convert(data, mstype.uint64)
            if dtype is not None and mstype.is_integral(dtype) and dtype != mstype.bool_:
                # a Python int cast as C casts it (MindSpore): wrapped into the integer dtype's range
                bits = mstype.type_size_in_bytes(dtype) * 8
                wrapped = data % 2 ** bits
                if dtype.name.startswith("Int") and wrapped >= 2 ** (bits - 1):
                    wrapped -= 2 ** bits
                return _convert(wrapped, dtype)
        if isinstance(data, (list, tuple)) and (isinstance(exc, OverflowError) or _ragged(exc)):
            raise _unsupported_element(data) from None
        raise _convert_error(data, dtype, exc) from None


def _ragged(exc):
    msg = str(exc)
    return "inhomogeneous" in msg or "sequence" in msg


def _convert(data, dtype):
    """Python/numpy data -> backend tensor with MindSpore's dtype defaults."""
    if isinstance(data, Tensor):
        raw = data._data
        if dtype is not None and B.dtype_of(raw) != B.torch_dtype(dtype.name):
            return B.cast(raw, dtype.name)
        return B.clone(raw)
    if isinstance(data, np.ndarray):
        if data.dtype == object:
            raise TypeError(f"initializing tensor by numpy array failed, numpy array: {data}, data type: object.\n"
                            f"The supported element types of an ndarray are bool, int, uint, float and complex.")
        if data.dtype.type is np.void:   # structured or raw bytes (ml_dtypes floats are kind V too)
            raise TypeError(f"initializing tensor by numpy array failed, because the element type "
                            f"'{type(data.reshape(-1)[0]) if data.size else np.void}' of array is not supported.\n"
                            f"The element index in array: {(0,) * data.ndim}, numpy array: {data}.")
        if data.dtype.kind in "US":
            raise TypeError("For 'Tensor', string arrays are not supported.")
        return B.from_numpy(data, dtype.name if dtype is not None else None, copy=True)
    if isinstance(data, np.generic):
        return B.from_numpy(np.asarray(data), dtype.name if dtype is not None else None)
    if isinstance(data, (bool, numbers.Number)):
        if isinstance(data, complex) and dtype is not None and not mstype.is_complex(dtype):
            data = data.real          # a real dtype keeps the real part, as MindSpore (and numpy's astype) do
        return B.tensor(data, (dtype or _infer_dtype(data)).name)
    if isinstance(data, (list, tuple)):
        if dtype is None:
            dtype = _infer_dtype(data)
        if any(isinstance(x, (Tensor, np.ndarray)) for x in _flat(data)):
            data = _to_numpy_nested(data)
        if dtype.name in _NO_NUMPY_FLOATS:
            return B.from_numpy(np.asarray(data, dtype=np.float32), dtype.name)
        nptype = np.int8 if dtype == mstype.qint4x2 else mstype.dtype_to_nptype(dtype)     # qint4x2: its bytes
        try:
            array = np.asarray(data, dtype=nptype)
        except TypeError:
            if not any(isinstance(x, complex) for x in _flat(data)):
                raise
            array = np.asarray(data).real.astype(nptype)      # complex values under a real dtype: the real part
        return B.from_numpy(array, dtype.name)
    if B.is_array(data):
        return data
    raise TypeError(f"For 'Tensor', the type of input_data must be Tensor, numpy.ndarray, bool, int, float, "
                    f"complex, list or tuple, but got {type(data).__name__}.")


def _flat(data):
    for x in data:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def _init_data(init, shape, dtype):
    from mindseed.common import initializer as _init  # noqa: PLC0415 (initializer imports Tensor)
    if shape is None:
        raise ValueError("For 'Tensor', 'shape' must be given with 'init'.")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    dtype = dtype or mstype.float32
    return _init.initializer(init, shape, dtype)._data


# ---------------------------------------------------------------- printing
# MindSpore's repr is its C++ printer: dims longer than 6 (a 1-D tensor: 1000) show their first and last 3
# entries; Float16/32/64 in scientific notation of fixed width, scalars as C++ `%g`, integers right-aligned to
# the widest printed one; a 1-D tensor breaks its line every 12 (float, bool) or 24 (other) entries.
# str() is numpy's str of `asnumpy()`.
_EDGE, _THRESHOLD, _THRESHOLD_1D = 3, 6, 1000
_SCI = {"Float16": (11, 4), "Float32": (15, 8), "Float64": (15, 8)}


# floats numpy has no type for: printed from their float32 values
_NO_NUMPY_FLOATS = ("BFloat16", "Float8E4M3FN", "Float8E5M2")


def _host_array(t):
    if t.dtype.name in _NO_NUMPY_FLOATS:
        return B.to_numpy(B.cast(t._data, "Float32"))
    return t.asnumpy()


def _g(v):
    return f"{float(v):g}"


def _scalar_str(v):
    """numpy 1.x's str of a float scalar (numpy 2 switches float32 to scientific notation much earlier)."""
    f = abs(float(v))
    if f != f or f == float("inf"):
        return str(v)
    if f == 0 or 1e-4 <= f < 1e16:
        return np.format_float_positional(v, unique=True, trim="0")
    return np.format_float_scientific(v, unique=True, trim="-")


def _complex_str(v):
    return f"{v.real:g}{v.imag:+g}j"


def _value_str(t, for_str=False, comma=True):
    """The value part of repr (MindSpore's printer) or, with `for_str`, str() (numpy's). `comma=False` is the
    printer's form without separating commas (what a sparse tensor's repr shows of its parts)."""
    a = _host_array(t)
    name = t.dtype.name
    if for_str:
        if name in _NO_NUMPY_FLOATS:
            fmt = {"float_kind": lambda v: f"{v:f}"}
            return f"{a.item():f}" if a.ndim == 0 else np.array2string(a, formatter=fmt)
        if a.ndim == 0 and a.dtype.kind == "f":
            return _scalar_str(a[()])
        return str(a)
    if a.ndim == 0:
        v = a.item()
        if isinstance(v, bool):
            return " " + str(v)
        if isinstance(v, complex):
            return " " + _complex_str(v)
        return " " + (_g(v) if isinstance(v, float) else str(v))
    if a.size == 0:
        body = ""
    else:
        if name in _SCI:
            width, prec = _SCI[name]
            item, line = (lambda v: f"{float(v):>{width}.{prec}e}"), 12
        elif name == "Bool":
            item, line = (lambda v: f"{str(bool(v)):>5}"), 12
        elif a.dtype.kind == "c":
            item, line = _complex_str, 24
        elif name in _NO_NUMPY_FLOATS:
            item, line = _g, 24
        else:
            item, line = str, 24
        pad = name not in _SCI and name != "Bool" and a.dtype.kind != "c"
        parts = []
        _summary(a, 0, parts, item, line, comma)
        body = "".join(parts)
        if pad:
            cells = [p for p in parts if isinstance(p, _Cell)]
            width = max(len(c) for c in cells) if cells else 0
            body = "".join(p.rjust(width) if isinstance(p, _Cell) else p for p in parts)
    return ("\n" if a.ndim > 1 else " ") + body


_SMALL_TENSOR = 30     # the C++ ToString of a tensor shows its values only below this many elements


def _to_string(t):
    """MindSpore's C++ Tensor::ToString: `Tensor(shape=[..], dtype=.., value=..)` with the values printed without
    commas, and `[...]` for a tensor of 30 elements or more (how a sparse tensor's repr shows its parts)."""
    if t.size >= _SMALL_TENSOR:
        value = "[...]"
    else:
        value = _value_str(t, comma=False)
        value = value[1:] if value.startswith(" ") else value
    return f"Tensor(shape={list(t.shape)}, dtype={t.dtype}, value={value})"


class _Cell(str):
    """One printed entry (integers are right-aligned to the widest one afterwards)."""


def _summary(a, depth, out, item, line, comma=True):
    n = a.shape[0]
    out.append("[")
    if a.ndim == 1:
        limit = _THRESHOLD_1D if depth == 0 else _THRESHOLD
        if n > limit:
            _entries(a[:_EDGE], out, item, line, False, comma)
            out.append(" ... ")
            _entries(a[n - _EDGE:], out, item, line, False, comma)
        else:
            _entries(a, out, item, line, depth == 0, comma)
    else:
        indent = "\n" + " " * (depth + 1)
        sep = "," if comma else ""
        for i in range(min(_EDGE, n)):
            if i:
                out.append(sep + indent)
            _summary(a[i], depth + 1, out, item, line, comma)
        if n > _THRESHOLD:
            out.append(sep + indent + "...")
        if n > _EDGE:
            rest = range(max(n - _EDGE, _EDGE), n)
            for k, i in enumerate(rest):
                out.append((sep if k or n <= _THRESHOLD else "") + indent)
                _summary(a[i], depth + 1, out, item, line, comma)
    out.append("]")


def _entries(a, out, item, line, breaks, comma=True):
    last = len(a) - 1
    for i, v in enumerate(a.tolist()):
        out.append(_Cell(item(v)))
        if i != last:
            out.append(", " if comma else " ")
        if breaks and last >= _EDGE and (i + 1) % line == 0:
            out.append("\n ")


from mindseed.common import _tensor_state  # noqa: E402
_tensor_state.attach(Tensor)

# the sparse formats live in their own module (MindSpore's mindspore.common.sparse_tensor)
from mindseed.common.sparse_tensor import COOTensor, CSRTensor, RowTensor  # noqa: E402,F401

# tensors of strings (dtype String) hold the numpy array itself
from mindseed.common._string_tensor import StringTensor  # noqa: E402
