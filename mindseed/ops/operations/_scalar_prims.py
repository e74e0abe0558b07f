"""MindSpore's Python-scalar primitives of `ops.operations.manually_defined` (`ScalarAdd()(x, y)` is `x + y`, ...):
what its graph compiler lowers Python scalar arithmetic to. Their values are Python's, with MindSpore's errors for a
zero divisor. Traced in a graph they run as the Python they are (constant-folded, or on `mutable` scalars)."""
import math
import operator

from mindseed.ops.operations._base import Primitive

__all__ = ["ScalarAdd", "ScalarSub", "ScalarMul", "ScalarDiv", "ScalarFloorDiv", "ScalarMod", "ScalarPow",
           "ScalarEq", "ScalarGt", "ScalarGe", "ScalarLt", "ScalarLe", "ScalarMax", "ScalarMin", "ScalarBool",
           "ScalarLog", "ScalarUadd", "ScalarUsub",
           "scalar_add", "scalar_sub", "scalar_mul", "scalar_div", "scalar_floordiv", "scalar_mod", "scalar_pow",
           "scalar_eq", "scalar_gt", "scalar_ge", "scalar_lt", "scalar_le", "scalar_max", "scalar_min",
           "scalar_bool", "scalar_log", "scalar_uadd", "scalar_usub"]

_ZERO_DIVISOR = "The divisor could not be zero. But the divisor is zero now."


def _divide(fn, message):
    def rule(x, y):
        if y == 0:
            raise ValueError(message)
        return fn(x, y)
    return rule


class _ScalarPrim(Primitive):
    _rule = None

    def __init__(self):
        super().__init__(type(self).__name__)

    def __call__(self, *args):
        return type(self)._rule(*args)


def _scalar_prim(name, rule, doc):
    return type(name, (_ScalarPrim,), {"_rule": staticmethod(rule), "__doc__": doc, "__module__": __name__})


ScalarAdd = _scalar_prim("ScalarAdd", operator.add, "`ScalarAdd()(x, y)`: x + y of two Python scalars.")
ScalarSub = _scalar_prim("ScalarSub", operator.sub, "`ScalarSub()(x, y)`: x - y.")
ScalarMul = _scalar_prim("ScalarMul", operator.mul, "`ScalarMul()(x, y)`: x * y.")
ScalarDiv = _scalar_prim("ScalarDiv", _divide(operator.truediv, _ZERO_DIVISOR),
                         "`ScalarDiv()(x, y)`: x / y (a float); ValueError for y == 0.")
ScalarFloorDiv = _scalar_prim("ScalarFloorDiv", _divide(operator.floordiv, _ZERO_DIVISOR),
                              "`ScalarFloorDiv()(x, y)`: x // y; ValueError for y == 0.")
ScalarMod = _scalar_prim("ScalarMod", _divide(operator.mod, "Cannot perform modulo operation on zero."),
                         "`ScalarMod()(x, y)`: x % y (the sign of y); ValueError for y == 0.")
ScalarPow = _scalar_prim("ScalarPow", operator.pow, "`ScalarPow()(x, y)`: x ** y.")
ScalarEq = _scalar_prim("ScalarEq", operator.eq, "`ScalarEq()(x, y)`: x == y.")
ScalarGt = _scalar_prim("ScalarGt", operator.gt, "`ScalarGt()(x, y)`: x > y.")
ScalarGe = _scalar_prim("ScalarGe", operator.ge, "`ScalarGe()(x, y)`: x >= y.")
ScalarLt = _scalar_prim("ScalarLt", operator.lt, "`ScalarLt()(x, y)`: x < y.")
ScalarLe = _scalar_prim("ScalarLe", operator.le, "`ScalarLe()(x, y)`: x <= y.")
ScalarMax = _scalar_prim("ScalarMax", max, "`ScalarMax()(x, y)`: the larger of x and y.")
ScalarMin = _scalar_prim("ScalarMin", min, "`ScalarMin()(x, y)`: the smaller of x and y.")
ScalarBool = _scalar_prim("ScalarBool", bool, "`ScalarBool()(x)`: bool(x).")
ScalarLog = _scalar_prim("ScalarLog", math.log, "`ScalarLog()(x)`: the natural logarithm of x (a float).")
ScalarUadd = _scalar_prim("ScalarUadd", operator.pos, "`ScalarUadd()(x)`: +x.")
ScalarUsub = _scalar_prim("ScalarUsub", operator.neg, "`ScalarUsub()(x)`: -x.")

scalar_add, scalar_sub, scalar_mul, scalar_div = ScalarAdd(), ScalarSub(), ScalarMul(), ScalarDiv()
scalar_floordiv, scalar_mod, scalar_pow = ScalarFloorDiv(), ScalarMod(), ScalarPow()
scalar_eq, scalar_gt, scalar_ge, scalar_lt, scalar_le = ScalarEq(), ScalarGt(), ScalarGe(), ScalarLt(), ScalarLe()
scalar_max, scalar_min, scalar_bool, scalar_log = ScalarMax(), ScalarMin(), ScalarBool(), ScalarLog()
scalar_uadd, scalar_usub = ScalarUadd(), ScalarUsub()
