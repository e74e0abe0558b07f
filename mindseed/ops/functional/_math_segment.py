"""Segment reductions (`unsorted_segment_sum` and friends) and MindSpore's scalar arithmetic helpers."""
import math
import operator

from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import math as P
from mindseed.ops.functional._math_elementwise import _tensor

__all__ = [
    "unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod",
    "scalar_add", "scalar_sub", "scalar_mul", "scalar_div", "scalar_floordiv", "scalar_mod", "scalar_pow",
    "scalar_eq", "scalar_ne", "scalar_lt", "scalar_le", "scalar_gt", "scalar_ge", "scalar_max", "scalar_min",
    "scalar_log", "scalar_uadd", "scalar_usub", "scalar_cast",
]


# ---------------------------------------------------------------- segment reductions
def _segment_args(op, x, segment_ids, num_segments):
    _tensor(op, x, "x")
    _tensor(op, segment_ids, "segment_ids")
    if not mstype.is_integral(segment_ids.dtype) or segment_ids.dtype == mstype.bool_:
        raise TypeError(f"For '{op}', the 'segment_ids' must be a Tensor of int, but got {segment_ids.dtype}.")
    if isinstance(num_segments, Tensor):
        num_segments = num_segments.item()
    if isinstance(num_segments, bool) or not isinstance(num_segments, int) or num_segments < 0:
        raise ValueError(f"For '{op}', the 'num_segments' must be a non-negative int, but got {num_segments}.")
    if x.shape[:segment_ids.ndim] != segment_ids.shape:
        raise ValueError(f"For '{op}', the 'segment_ids' shape {segment_ids.shape} must be a prefix of the 'x' "
                         f"shape {x.shape}.")
    if segment_ids.size and _state.tracing is None and \
            int(P.reduce_max_p(segment_ids, axis=None).item()) >= num_segments:
        # MindSpore's kernel finds it while it runs: the launch fails (RuntimeError); inside a graph the ids are
        # known only when it runs, where the scatter kernel fails the same way
        raise RuntimeError(f"For '{op}', the 'segment_ids' must be less than 'num_segments' {num_segments}: "
                           f"segment_ids value should be [0, {num_segments}).")
    return num_segments


def unsorted_segment_sum(input_x, segment_ids, num_segments):
    """out[k] = the sum of the rows of input_x whose segment id is k (negative ids are dropped).

    Args:
        input_x (Tensor): the values; its leading dimensions are those of `segment_ids`.
        segment_ids (Tensor): int ids, any order.
        num_segments (Union[int, Tensor]): the number of segments (output rows).

    Raises:
        TypeError: `segment_ids` is not an int Tensor.
        ValueError: the shapes do not match, or an id is >= `num_segments`.

    >>> import mindseed as ms
    >>> ms.ops.unsorted_segment_sum(ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([0, 1, 0]), 2).asnumpy().tolist()
    [4.0, 2.0]
    """
    n = _segment_args("UnsortedSegmentSum", input_x, segment_ids, num_segments)
    return P.segment_sum_p(input_x, segment_ids, num_segments=n)


def _unsorted_segment(name, op, prim, doc):
    def reduce(x, segment_ids, num_segments):
        return prim(x, segment_ids, num_segments=_segment_args(op, x, segment_ids, num_segments))
    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = doc
    return reduce


unsorted_segment_max = _unsorted_segment("unsorted_segment_max", "UnsortedSegmentMax", P.segment_max_p,
                                         "The maximum of each segment (the dtype's lowest value for an empty one).")
unsorted_segment_min = _unsorted_segment("unsorted_segment_min", "UnsortedSegmentMin", P.segment_min_p,
                                         "The minimum of each segment (the dtype's largest value for an empty one).")
unsorted_segment_prod = _unsorted_segment("unsorted_segment_prod", "UnsortedSegmentProd", P.segment_prod_p,
                                          "The product of each segment (1 for an empty one).")


# ---------------------------------------------------------------- scalar arithmetic (Python numbers)
def _number(name, arg, v):
    """`v` when it is a Python number (int, float or bool), else MindSpore's TypeError naming the op."""
    if not isinstance(v, (int, float, bool)):
        raise TypeError(f"For '{name}', the '{arg}' must be a number, but got {type(v).__name__}.")
    return v


def _scalar_op(name, fn, doc):
    def op(x, y):
        return fn(_number(name, "x", x), _number(name, "y", y))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


scalar_add = _scalar_op("scalar_add", operator.add, "x + y for Python numbers.")
scalar_sub = _scalar_op("scalar_sub", operator.sub, "x - y for Python numbers.")
scalar_mul = _scalar_op("scalar_mul", operator.mul, "x * y for Python numbers.")
scalar_div = _scalar_op("scalar_div", operator.truediv, "x / y (true division) for Python numbers.")
scalar_floordiv = _scalar_op("scalar_floordiv", operator.floordiv, "x // y for Python numbers.")
scalar_mod = _scalar_op("scalar_mod", operator.mod, "x % y (the sign of y) for Python numbers.")
scalar_pow = _scalar_op("scalar_pow", operator.pow, "x ** y for Python numbers.")
scalar_eq = _scalar_op("scalar_eq", operator.eq, "x == y for Python numbers.")
scalar_ne = _scalar_op("scalar_ne", operator.ne, "x != y for Python numbers.")
scalar_lt = _scalar_op("scalar_lt", operator.lt, "x < y for Python numbers.")
scalar_le = _scalar_op("scalar_le", operator.le, "x <= y for Python numbers.")
scalar_gt = _scalar_op("scalar_gt", operator.gt, "x > y for Python numbers.")
scalar_ge = _scalar_op("scalar_ge", operator.ge, "x >= y for Python numbers.")
scalar_max = _scalar_op("scalar_max", lambda x, y: x if x >= y else y, "The larger of two Python numbers.")
scalar_min = _scalar_op("scalar_min", lambda x, y: x if x <= y else y, "The smaller of two Python numbers.")


def scalar_log(x):
    """The natural logarithm of a Python number (as C's log: -inf at 0, nan below it)."""
    x = _number("scalar_log", "x", x)
    if x != x or x < 0:
        return math.nan
    return math.log(x) if x > 0 else -math.inf


def scalar_uadd(x):
    """+x for a Python number."""
    return +_number("scalar_uadd", "x", x)


def scalar_usub(x):
    """-x for a Python number."""
    return -_number("scalar_usub", "x", x)


def scalar_cast(input_x, input_y):
    """A Python number converted to the Python type of dtype `input_y` (int64, float64 or bool)."""
    if input_y not in (mstype.int64, mstype.float64, mstype.bool_):
        raise ValueError(f"For 'ScalarCast', the supported type is in the list: [mindspore.int64, mindspore.float64, "
                         f"mindspore.bool], but got {input_y}.")
    return mstype.dtype_to_pytype(input_y)(input_x)
