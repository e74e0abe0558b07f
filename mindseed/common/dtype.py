"""MindSpore's data types: `mindseed.float32` prints `Float32`, maps to numpy and promotes as MindSpore."""
import builtins
import enum

import inspect

import numpy as np

__all__ = [
    "Type", "Number", "Bool", "Int", "UInt", "Float", "BFloat", "Complex", "TensorType",
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "bfloat16", "complex64", "complex128",
    "float8_e4m3fn", "float8_e5m2", "hifloat8", "qint4x2",
    "byte", "short", "intc", "intp", "int_", "long", "ubyte", "ushort", "uintc", "uintp", "uint",
    "half", "single", "double", "float_", "cfloat", "cdouble", "number", "tensor_type", "string",
    "type_none", "list_", "tuple_",
    "dtype_to_nptype", "type_size_in_bytes", "dtype_to_pytype", "pytype_to_dtype", "get_py_obj_dtype",
    "int_type", "uint_type", "float_type", "signed_type", "complex_type", "all_types", "number_type",
    "QuantDtype",
]


class Type:
    """Base of every MindSpore type object; equal by name, hashable."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __str__(self):
        return self._name

    def __repr__(self):  # the name it has in the mindspore namespace: mindspore.float32, mindspore.list_
        return "mindspore." + _ALIAS.get(self._name, self._name.lower())

    def __eq__(self, other):
        return isinstance(other, Type) and other._name == self._name

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._name)

    def __reduce__(self):
        return (_by_name, (self._name,))

    @property
    def name(self):
        return self._name


# repr names that are not the lower-cased str name
_ALIAS = {"Float8E4M3FN": "float8_e4m3fn", "Float8E5M2": "float8_e5m2", "String": "string_", "None": "type_none",
          "List": "list_", "Tuple": "tuple_", "TensorType": "tensor"}


class Number(Type):
    __slots__ = ("bits",)

    def __init__(self, name, bits):
        super().__init__(name)
        self.bits = bits

    @property
    def is_floating_point(self):
        """True for the float types (bfloat16 included)."""
        return isinstance(self, (Float, BFloat))

    @property
    def is_complex(self):
        return isinstance(self, Complex)

    @property
    def is_signed(self):
        """False for bool and the unsigned integers."""
        return not isinstance(self, (Bool, UInt))

    @property
    def itemsize(self):
        """Bytes per element (a bool takes 1)."""
        return max(self.bits // 8, 1)

    def to_complex(self):
        """The complex type of this float type's precision (complex types are their own)."""
        out = {"Float32": "Complex64", "BFloat16": "Complex64", "Float64": "Complex128"}.get(self._name)
        if out is None and not self.is_complex:
            raise TypeError(f"Cannot convert type {_ALIAS.get(self._name, self._name.lower())} to complex type.")
        return self if out is None else _by_name(out)

    def to_real(self):
        """The real type of this complex type's precision (other types are their own)."""
        return {"Complex64": float32, "Complex128": float64}.get(self._name, self)


# the kinds of Number (each dtype below is an instance of one), differing only in name
Bool, Int, UInt, Float, BFloat, Complex = (type(kind, (Number,), {"__slots__": (), "__module__": __name__})
                                          for kind in ("Bool", "Int", "UInt", "Float", "BFloat", "Complex"))


class TensorType(Type):
    __slots__ = ("element_type",)

    def __init__(self, element_type=None):
        super().__init__(f"Tensor[{element_type}]" if element_type is not None else "TensorType")
        self.element_type = element_type

    def element_type_(self):
        return self.element_type

    def __repr__(self):
        e = self.element_type
        return "mindspore.tensor" if e is None else f"mindspore.tensor[{repr(e).split('.', 1)[1]}]"


class _Misc(Type):
    __slots__ = ()


bool_ = Bool("Bool", 8)
int8, int16, int32, int64 = (Int(f"Int{b}", b) for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (UInt(f"UInt{b}", b) for b in (8, 16, 32, 64))
float16, float32, float64 = (Float(f"Float{b}", b) for b in (16, 32, 64))
bfloat16 = BFloat("BFloat16", 16)
complex64, complex128 = Complex("Complex64", 64), Complex("Complex128", 128)
# 8-bit floats (torch computes casts of float8_e4m3fn / float8_e5m2; hifloat8 and the packed int4 have Ascend
# kernels only: using them is a TypeError naming the dtype). Not in the number_type tuples, which list the types
# every op computes.
float8_e4m3fn, float8_e5m2, hifloat8 = Float("Float8E4M3FN", 8), Float("Float8E5M2", 8), Float("HiFloat8", 8)
qint4x2 = Int("Int4", 4)

byte, short, intc, intp, long = int8, int16, int32, int64, int64
ubyte, ushort, uintc, uintp = uint8, uint16, uint32, uint64
half, single, double = float16, float32, float64
# MindSpore's generic kinds (kInt, kUInt, kFloat): no tensor has them, and they equal no sized type
int_, uint, float_ = _Misc("Int"), _Misc("UInt"), _Misc("Float")
cfloat, cdouble = complex64, complex128
number = _Misc("Number")
tensor_type = TensorType
string = _Misc("String")
type_none = _Misc("None")
list_ = _Misc("List")
tuple_ = _Misc("Tuple")
function = _Misc("Func")        # a function, Cell or Primitive (get_py_obj_dtype)
type_type = _Misc("TypeType")   # a MindSpore type itself

int_type = (int8, int16, int32, int64)
uint_type = (uint8, uint16, uint32, uint64)
float_type = (float16, float32, float64, bfloat16)
signed_type = (int8, int16, int32, int64, float16, float32, float64, bfloat16, complex64, complex128)
complex_type = (complex64, complex128)
number_type = (int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64,
               bfloat16, complex64, complex128)
all_types = (bool_,) + number_type

_ALL = {t.name: t for t in all_types + (float8_e4m3fn, float8_e5m2, hifloat8, qint4x2)}


def _by_name(name):
    return _ALL[name]


_NP = {
    bool_: np.bool_, int8: np.int8, int16: np.int16, int32: np.int32, int64: np.int64,
    uint8: np.uint8, uint16: np.uint16, uint32: np.uint32, uint64: np.uint64,
    float16: np.float16, float32: np.float32, float64: np.float64,
    complex64: np.complex64, complex128: np.complex128,
}
_FROM_NP = {np.dtype(v): k for k, v in _NP.items()}
try:
    from ml_dtypes import bfloat16 as _np_bfloat16
except ImportError:
    pass
else:
    _FROM_NP[np.dtype(_np_bfloat16)] = bfloat16


def type_size_in_bytes(dtype):
    """The size in bytes of one element of `dtype` (a bool takes 1)."""
    if not isinstance(dtype, Number):
        raise TypeError("The argument `dtype` should be instance of mindspore.dtype, but got "
                        f"{type(dtype).__name__}.")
    return max(dtype.bits // 8, 1)


def dtype_to_nptype(type_):
    """numpy scalar type of a MindSpore dtype (bfloat16 has none: float32 is returned, as MindSpore)."""
    if type_ == bfloat16:
        return np.float32
    try:
        return _NP[type_]
    except KeyError:
        raise TypeError(f"For 'dtype_to_nptype', the type {type_} has no numpy counterpart.") from None


def np_to_dtype(np_dtype):
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(f"The numpy data type {np_dtype} is not supported by mindseed.") from None


def dtype_to_pytype(type_):
    if type_ == bool_:
        return builtins.bool
    if isinstance(type_, (Int, UInt)):
        return builtins.int
    if isinstance(type_, (Float, BFloat)):
        return builtins.float
    if isinstance(type_, Complex):
        return complex
    others = {list_: list, tuple_: tuple, string: str, type_none: type(None)}
    for t, py in others.items():
        if type_ is t:
            return py
    raise TypeError(f"For 'dtype_to_pytype', the type {type_} has no Python counterpart.")


_SIMPLE_TYPES = {list: list_, tuple: tuple_, type(None): type_none, builtins.bool: bool_, builtins.int: int64,
                 builtins.float: float64, complex: complex128, str: string}


def pytype_to_dtype(obj):
    """The MindSpore type of a Python or numpy type (a MindSpore type is returned as is)."""
    if isinstance(obj, np.dtype):
        return np_to_dtype(obj)
    if isinstance(obj, type) and issubclass(obj, np.generic):
        return np_to_dtype(obj)
    if isinstance(obj, Type):
        return obj
    if not isinstance(obj, type):
        raise TypeError(f"For 'pytype_to_dtype', the argument 'obj' must be a python type object, such as int, "
                        f"float, str, etc. But got type {type(obj)}.")
    if obj in _SIMPLE_TYPES:
        return _SIMPLE_TYPES[obj]
    raise NotImplementedError(f"The python type {obj} cannot be converted to MindSpore type.")


def get_py_obj_dtype(obj):
    """The MindSpore type of a Python object or type: a Tensor's TensorType, `function` for a function, Cell or
    Primitive, `type_type` for a MindSpore type, else that of its Python type (a float is Float64)."""
    if hasattr(obj, "shape") and hasattr(obj, "dtype") and isinstance(obj.dtype, Type):
        return TensorType(obj.dtype)
    if hasattr(obj, "__primitive_flag__") or hasattr(obj, "construct") or inspect.isfunction(obj):
        return function
    if isinstance(obj, Type):
        return type_type
    return pytype_to_dtype(obj if isinstance(obj, type) else type(obj))


def graph_scalar_dtype(obj):
    """The type a graph gives a value: as get_py_obj_dtype, but a Python float is a Float32 scalar."""
    return float32 if isinstance(obj, builtins.float) and not isinstance(obj, np.floating) else get_py_obj_dtype(obj)


def is_float(t):
    return isinstance(t, (Float, BFloat))


def is_complex(t):
    return isinstance(t, Complex)


def is_integral(t):
    return isinstance(t, (Int, UInt, Bool))


def is_differentiable(t):
    return isinstance(t, (Float, BFloat, Complex))


# ---------------------------------------------------------------- promotion
# MindSpore's tensor-tensor promotion: bool < ints < floats < complex; within a kind the wider wins;
# int8 with uint8 goes to int16; a signed/unsigned mix goes to the signed type wide enough (int64
# for uint64); float16 with bfloat16 goes to float32.
def _rank(t):
    if t == bool_:
        return 0
    if isinstance(t, (Int, UInt)):
        return 1
    if isinstance(t, (Float, BFloat)):
        return 2
    return 3


def promote_types(a, b):
    """Result dtype of a binary op on two tensors of dtypes a and b."""
    if a == b:
        return a
    ra, rb = _rank(a), _rank(b)
    if ra != rb:
        return a if ra > rb else b
    if ra == 1:
        if type(a) is type(b):
            return a if a.bits >= b.bits else b
        s, u = (a, b) if isinstance(a, Int) else (b, a)
        if s.bits > u.bits:
            return s
        return {8: int16, 16: int32, 32: int64, 64: int64}[u.bits]
    if ra == 2:
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.bits >= b.bits else b
    return a if a.bits >= b.bits else b


@enum.unique
class QuantDtype(enum.Enum):
    """Quantization data types, as `mindspore.QuantDtype`: `INT1` ~ `INT16` (values 0 ~ 15) and `UINT1` ~ `UINT16`
    (values 100 ~ 115); `value()` is the number (tools derive the bit width from it)."""
    INT1, INT2, INT3, INT4, INT5, INT6, INT7, INT8 = range(0, 8)
    INT9, INT10, INT11, INT12, INT13, INT14, INT15, INT16 = range(8, 16)
    UINT1, UINT2, UINT3, UINT4, UINT5, UINT6, UINT7, UINT8 = range(100, 108)
    UINT9, UINT10, UINT11, UINT12, UINT13, UINT14, UINT15, UINT16 = range(108, 116)

    def __str__(self):
        return self.name

    def value(self):     # noqa: D401  MindSpore's: a method, not Enum's property
        """The number of the type."""
        return self._value_


# MindSpore's aliases named as Python's builtins (mindspore.bool, mindspore.int, mindspore.float). Bound last and
# kept out of __all__ so that `from ... import *` never shadows the builtins; code in this module says `builtins.int`.
bool = bool_  # noqa: A001
int = int32  # noqa: A001
float = float32  # noqa: A001
