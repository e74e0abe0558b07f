"""Math cells: ReduceLogSumExp, Range, LGamma, DiGamma, IGamma, LBeta, CosineSimilarity, MatMul, Moments,
MatInverse, MatDet."""
import numpy as np

from mindseed._utils.errors import host_alloc
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.layer._utils import div_no_nan
from mindseed.ops import functional as F
from mindseed.ops._prims import core as P

__all__ = ["ReduceLogSumExp", "Range", "LGamma", "DiGamma", "IGamma", "LBeta", "CosineSimilarity", "MatMul",
           "Moments", "MatInverse", "MatDet"]


def _check_dtype(cls, name, x, allowed):
    if x.dtype not in allowed:
        names = ", ".join(str(a) for a in allowed)
        raise TypeError(f"For '{cls}', the '{name}' type must be in [{names}], but got {x.dtype}.")


_FLOATS = (mstype.float16, mstype.float32, mstype.float64)


class _FloatUnary(Cell):
    """A Cell applying `_fn` to one float16/32/64 Tensor named `_arg` in its dtype error."""

    _arg = "x"

    def construct(self, x):
        _check_dtype(type(self).__name__, self._arg, x, _FLOATS)
        return type(self)._fn(x)


class ReduceLogSumExp(Cell):
    """log(sum(exp(x))) over `axis`, stabilised by the maximum."""

    def __init__(self, axis, keep_dims=False):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, (int, list, tuple)):
            raise TypeError(f"For 'ReduceLogSumExp', the 'axis' must be int, list or tuple, but got "
                            f"{type(axis).__name__}.")
        if not isinstance(keep_dims, bool):
            raise TypeError(f"For 'ReduceLogSumExp', the 'keep_dims' must be bool, but got "
                            f"{type(keep_dims).__name__}.")
        self.axis = tuple(axis) if isinstance(axis, list) else axis
        self.keep_dims = keep_dims

    def construct(self, x):
        x_max = F.stop_gradient(F.amax(x))
        sumexp = F.sum(F.exp(P.sub_p(x, x_max)), self.axis, keepdim=self.keep_dims)
        return P.add_p(F.log(sumexp), x_max)


class Range(Cell):
    """The constant arange(start, limit, delta): float32 when any argument is a float, else int32."""

    def __init__(self, start, limit=None, delta=1):
        super().__init__()
        for name, v in (("start", start), ("limit", limit), ("delta", delta)):
            if (v is None and name != "limit") or (v is not None and (isinstance(v, bool) or
                                                                      not isinstance(v, (int, float)))):
                raise TypeError(f"For 'Range', the '{name}' must be an int or a float, but got {type(v).__name__}.")
            if isinstance(v, float) and not np.isfinite(v):
                raise ValueError(f"For 'Range', the '{name}' must be finite, but got {v}.")
        if delta == 0:
            raise ValueError("For 'Range', the 'delta' can not be zero.")
        data = host_alloc("Range", lambda: np.arange(start, limit, delta) if limit is not None else
                          np.arange(start, step=delta))
        self.ms_dtype = mstype.float32 if data.dtype == np.float64 else mstype.int32
        self.result_tensor = Tensor(data, self.ms_dtype)

    def construct(self):
        return self.result_tensor


class LGamma(_FloatUnary):
    """log|Gamma(x)|."""

    _fn = F.lgamma


class DiGamma(_FloatUnary):
    """The digamma function d/dx log Gamma(x)."""

    _fn = F.digamma


class IGamma(Cell):
    """The regularised lower incomplete gamma function P(a, x)."""

    def construct(self, a, x):
        _check_dtype("IGamma", "a", a, _FLOATS)
        if x.dtype != a.dtype:
            raise TypeError(f"For 'IGamma', the 'x' type must be {a.dtype}, but got {x.dtype}.")
        return F.igamma(a, x)


class LBeta(Cell):
    """log|Beta(x, y)| = lgamma(x) + lgamma(y) - lgamma(x + y), computed in float64 for accuracy."""

    def construct(self, x, y):
        _check_dtype("LBeta", "x", x, _FLOATS)
        if y.dtype != x.dtype:
            raise TypeError(f"For 'LBeta', the 'y' type must be {x.dtype}, but got {y.dtype}.")
        x64, y64 = F.cast(x, mstype.float64), F.cast(y, mstype.float64)
        out = P.sub_p(P.add_p(F.lgamma(x64), F.lgamma(y64)), F.lgamma(P.add_p(x64, y64)))
        return F.cast(out, x.dtype)


class MatMul(Cell):
    """Matrix product with broadcasting batch dimensions and optional transposes (1-D operands are vectors)."""

    def __init__(self, transpose_x1=False, transpose_x2=False):
        super().__init__()
        for name, v in (("transpose_x1", transpose_x1), ("transpose_x2", transpose_x2)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'MatMul', the '{name}' must be bool, but got {type(v).__name__}.")
        self.transpose_x1 = transpose_x1
        self.transpose_x2 = transpose_x2

    def construct(self, x1, x2):
        if self.transpose_x1 and x1.ndim > 1:
            x1 = F.swapaxes(x1, -1, -2)
        if self.transpose_x2 and x2.ndim > 1:
            x2 = F.swapaxes(x2, -1, -2)
        k1 = x1.shape[-1]
        k2 = x2.shape[0] if x2.ndim == 1 else x2.shape[-2]
        if k1 != k2:
            raise ValueError(f"For 'MatMul', the column of matrix dimensions of 'x1' must be equal to the row of "
                             f"matrix dimensions of 'x2', but got 'x1_col' {k1} and 'x2_row' {k2}.")
        return F.matmul(x1, x2)


class CosineSimilarity(Cell):
    """sum(x1 * x2) / sqrt(max(sum(x1^2) * sum(x2^2), eps^2)) along `dim`."""

    def __init__(self, dim=1, eps=1e-08):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def construct(self, x1, x2):
        for name, v in (("x1", x1), ("x2", x2)):
            if not isinstance(v, Tensor):
                raise TypeError(f"For 'CosineSimilarity', '{name}' must be a tensor, but got {type(v)}")
        w12 = F.sum(P.mul_p(x1, x2), self.dim)
        w1 = F.sum(P.mul_p(x1, x1), self.dim)
        w2 = F.sum(P.mul_p(x2, x2), self.dim)
        n12 = F.sqrt(F.maximum(P.mul_p(w1, w2), self.eps * self.eps))
        return div_no_nan(w12, n12)


class Moments(Cell):
    """(mean, variance) over `axis` (all axes by default); float16 inputs computed in float32."""

    def __init__(self, axis=None, keep_dims=None):
        super().__init__()
        if axis is None:
            axis = ()
        if isinstance(axis, bool) or not isinstance(axis, (int, tuple)):
            raise TypeError(f"For 'Moments', the 'axis' must be int or tuple, but got {type(axis).__name__}.")
        if isinstance(axis, tuple):
            for idx, item in enumerate(axis):
                if isinstance(item, bool) or not isinstance(item, int):
                    raise TypeError(f"For 'Moments', the 'axis[{idx}]' must be int, but got {type(item).__name__}.")
        keep_dims = False if keep_dims is None else keep_dims
        if not isinstance(keep_dims, bool):
            raise TypeError(f"For 'Moments', the 'keep_dims' must be bool, but got {type(keep_dims).__name__}.")
        self.axis = axis
        self.keep_dims = keep_dims

    def construct(self, x):
        _check_dtype("Moments", "input x", x, _FLOATS)
        dt = x.dtype
        if dt == mstype.float16:
            x = F.cast(x, mstype.float32)
        axis = None if self.axis == () else self.axis
        mean = F.mean(x, axis, True)
        diff = P.sub_p(x, F.stop_gradient(mean))
        variance = F.mean(P.mul_p(diff, diff), axis, self.keep_dims)
        if not self.keep_dims:
            mean = F.mean(x, axis, False)
        if dt == mstype.float16:
            mean, variance = F.cast(mean, dt), F.cast(variance, dt)
        return mean, variance


class MatInverse(_FloatUnary):
    """The inverse of (batched) symmetric positive-definite matrices."""

    _arg = "input_a"
    _fn = F.inverse


class MatDet(_FloatUnary):
    """The determinant of (batched) symmetric positive-definite matrices."""

    _arg = "input_a"
    _fn = F.det
