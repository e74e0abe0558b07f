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
