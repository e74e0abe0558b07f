"""MindSpore's `mindspore._c_expression.typing`: the classes of its type objects and the type objects under their
C++ names (`Float`, `BFloat`, `kFloat32`, `kBFloat16`, ...): here the classes and objects of `mindseed.common.dtype`,
so `isinstance(mstype.float32, typing.Float)` holds as in MindSpore."""
from mindseed.common import dtype as _dt
from mindseed.common.dtype import BFloat, Bool, Complex, Float, Int, Number, TensorType, Type, UInt  # noqa: F401

kBool = _dt.bool_
kInt8, kInt16, kInt32, kInt64 = _dt.int8, _dt.int16, _dt.int32, _dt.int64
kUInt8, kUInt16, kUInt32, kUInt64 = _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64
kFloat16, kFloat32, kFloat64, kBFloat16 = _dt.float16, _dt.float32, _dt.float64, _dt.bfloat16
kComplex64, kComplex128 = _dt.complex64, _dt.complex128
kFloat8E4M3FN, kFloat8E5M2, kHiFloat8, kInt4 = _dt.float8_e4m3fn, _dt.float8_e5m2, _dt.hifloat8, _dt.qint4x2
kString, kTypeNone = _dt.string, _dt.type_none

# MindSpore's TypeId numbers of the number types (its `type_id.h`); the generic ids (kNumberTypeInt, Float, ...)
# stand for their default width, as MindSpore's `type_id_to_type` maps them
_TYPE_ID = {kBool: 30, kInt8: 32, kInt16: 33, kInt32: 34, kInt64: 35, kUInt8: 37, kUInt16: 38, kUInt32: 39,
            kUInt64: 40, kFloat16: 42, kFloat32: 43, kFloat64: 44, kBFloat16: 45, kFloat8E4M3FN: 46, kFloat8E5M2: 47,
            kHiFloat8: 48, kComplex64: 51, kComplex128: 52, kInt4: 53, kString: 12}
_FROM_ID = {v: k for k, v in _TYPE_ID.items()}
_FROM_ID.update({31: kInt32, 41: kFloat32, 49: kFloat64})


def type_to_type_id(type_):
    """MindSpore's TypeId number of a number type."""
    if type_ not in _TYPE_ID:
        raise TypeError(f"For 'type_to_type_id', the type must be a MindSpore number type, but got {type_!r}.")
    return _TYPE_ID[type_]


def type_id_to_type(type_id):
    """The number type of a MindSpore TypeId number (`type_to_type_id`'s inverse)."""
    if isinstance(type_id, bool) or not isinstance(type_id, int) or type_id not in _FROM_ID:
        raise TypeError(f"For 'type_id_to_type', not support the type: {type_id!r}.")
    return _FROM_ID[type_id]


def str_to_type(name):
    """The type named `name` (MindSpore's spelling: 'Float32', 'Int64', 'Bool', ...)."""
    for t in _TYPE_ID:
        if t.name == name:
            return t
    raise TypeError(f"For 'str_to_type', '{name}' is not a MindSpore type name.")


def is_subclass(type_, base):
    """Whether `type_` is `base` or of its kind (`is_subclass(kFloat32, kFloat32)`; a class as `base`)."""
    return type_ == base or (isinstance(base, type) and isinstance(type_, base))


type_size_in_bytes = _dt.type_size_in_bytes
