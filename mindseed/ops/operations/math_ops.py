"""mindspore.ops.operations.math_ops: elementwise, comparison, reduction, cumulative and matrix-product primitives,
by MindSpore's module layout (the same classes as `mindspore.ops.operations`)."""
from mindseed.ops import functional as F
from mindseed.ops.operations._base import Primitive
from mindseed.ops.operations import (  # noqa: F401
    ACos, Abs, AccumulateNV2, Acosh, Add, AddN, Addcdiv, Addcmul, Angle, ApproximateEqual, Asin, Asinh, AssignAdd,
    AssignSub, Atan, Atan2, Atanh, BatchMatMul, BesselI0, BesselI0e, BesselI1, BesselI1e, BesselJ0, BesselJ1,
    BesselK0, BesselK0e, BesselK1, BesselK1e, BesselY0, BesselY1, Betainc, BitwiseAnd, BitwiseOr, BitwiseXor,
    Bucketize, Cdist, Ceil, Cholesky, CholeskyInverse, CholeskySolve, CompareAndBitpack, Complex, ComplexAbs, Conj,
    Cos, Cosh, CountNonZero, Cross, CumProd, CumSum, Cummin, CumulativeLogsumexp, Digamma, Div, DivNoNan, Eig,
    Einsum, Eps, Equal, EqualCount, Erf, Erfc, Erfinv, EuclideanNorm, Exp, Expm1, FloatStatus, Floor, FloorDiv,
    FloorMod, Fmax, Fmin, Gcd, Ger, Greater, GreaterEqual, Heaviside, Histogram, HistogramFixedWidth, Hypot, Igamma,
    Igammac, Imag, IndexAdd, InplaceAdd, InplaceSub, InplaceUpdate, Inv, Invert, IsClose, IsFinite, IsInf, IsNan,
    Lcm, Lerp, LerpScalar, Less, LessEqual, Lgamma, LinSpace, Log, Log1p, LogMatrixDeterminant, LogicalAnd,
    LogicalNot, LogicalOr, LogicalXor, Logit, LpNorm, LuSolve, LuUnpack, MatMul, MatrixDeterminant, MatrixExp,
    MatrixInverse, MatrixLogarithm, MatrixPower, MatrixSolve, MatrixSolveLs, MatrixTriangularSolve, Maximum, Median,
    Minimum, Mod, Mul, MulNoNan, NMSWithMask, NanToNum, Neg, NextAfter, NotEqual, NuclearNorm, Orgqr, Ormqr, Polar,
    Polygamma, Pow, Qr, Quantile, RaggedRange, Real, RealDiv, Reciprocal, ReduceAll, ReduceAny, ReduceMax,
    ReduceMean, ReduceMin, ReduceProd, ReduceStd, ReduceSum, Renorm, Roll, Round, Rsqrt, STFT, Sign, Sin, Sinc,
    Sinh, Sqrt, Square, SquareSumAll, SquaredDifference, Sub, Tan, TensorAdd, Trace, TridiagonalMatMul, TrilIndices,
    TriuIndices, Trunc, TruncateDiv, TruncateMod, Xdivy, Xlogy, Zeta)

__all__ = [
    "ACos", "Abs", "AccumulateNV2", "Acosh", "Add", "AddN", "Addcdiv", "Addcmul", "Angle", "ApproximateEqual",
    "Asin", "Asinh", "AssignAdd", "AssignSub", "Atan", "Atan2", "Atanh", "BatchMatMul", "BesselI0", "BesselI0e",
    "BesselI1", "BesselI1e", "BesselJ0", "BesselJ1", "BesselK0", "BesselK0e", "BesselK1", "BesselK1e", "BesselY0",
    "BesselY1", "Betainc", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Bucketize", "Cdist", "Ceil", "Cholesky",
    "CholeskyInverse", "CholeskySolve", "CompareAndBitpack", "Complex", "ComplexAbs", "Conj", "Cos", "Cosh",
    "CountNonZero", "Cross", "CumProd", "CumSum", "Cummin", "CumulativeLogsumexp", "Digamma", "Div", "DivNoNan",
    "Eig", "Einsum", "Eps", "Equal", "EqualCount", "Erf", "Erfc", "Erfinv", "EuclideanNorm", "Exp", "Expm1",
    "FloatStatus", "Floor", "FloorDiv", "FloorMod", "Fmax", "Fmin", "Gcd", "Ger", "Greater", "GreaterEqual",
    "Heaviside", "Histogram", "HistogramFixedWidth", "Hypot", "Igamma", "Igammac", "Imag", "IndexAdd", "InplaceAdd",
    "InplaceSub", "InplaceUpdate", "Inv", "Invert", "IsClose", "IsFinite", "IsInf", "IsNan", "Lcm", "Lerp",
    "LerpScalar", "Less", "LessEqual", "Lgamma", "LinSpace", "Log", "Log1p", "LogMatrixDeterminant", "LogicalAnd",
    "LogicalNot", "LogicalOr", "LogicalXor", "Logit", "LpNorm", "LuSolve", "LuUnpack", "MatMul",
    "MatrixDeterminant", "MatrixExp", "MatrixInverse", "MatrixLogarithm", "MatrixPower", "MatrixSolve",
    "MatrixSolveLs", "MatrixTriangularSolve", "Maximum", "Median", "Minimum", "Mod", "Mul", "MulNoNan",
    "NMSWithMask", "NanToNum", "Neg", "NextAfter", "NotEqual", "NuclearNorm", "Orgqr", "Ormqr", "Polar",
    "Polygamma", "Pow", "Qr", "Quantile", "RaggedRange", "Real", "RealDiv", "Reciprocal", "ReduceAll", "ReduceAny",
    "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceStd", "ReduceSum", "Renorm", "Roll", "Round",
    "Rsqrt", "STFT", "Sign", "Sin", "Sinc", "Sinh", "Sqrt", "Square", "SquareSumAll", "SquaredDifference", "Sub",
    "Tan", "TensorAdd", "Trace", "TridiagonalMatMul", "TrilIndices", "TriuIndices", "Trunc", "TruncateDiv",
    "TruncateMod", "Xdivy", "Xlogy", "Zeta"]
from mindseed.ops.operations._runtime_prims import (NPUAllocFloatStatus, NPUClearFloatStatus,  # noqa: F401,E402
                                                    NPUGetFloatStatus)

__all__ += ["NPUAllocFloatStatus", "NPUClearFloatStatus", "NPUGetFloatStatus"]
# importable from here as in MindSpore, but (as there) not in ops.operations, so not in __all__
from mindseed.ops.operations._sparse_coo import SparseSegmentMean  # noqa: F401,E402


class AddV2(Primitive):
    """`AddV2()(x, y)`: x + y for two tensors of one shape (MindSpore's CPU kernel does not broadcast), in the
    promoted dtype.

    Raises:
        ValueError: the shapes differ.
    """

    def __init__(self):
        super().__init__("AddV2")
        self.init_prim_io_names(inputs=["x", "y"], outputs=["output"])

    def __call__(self, x, y):
        xs, ys = (tuple(getattr(t, "shape", ())) for t in (x, y))
        if xs != ys:
            raise ValueError(f"For primitive[AddV2], the input_shape: {list(xs)} must be equal to {list(ys)}")
        return F.add(x, y)


__all__ += ["AddV2"]
from mindseed.ops.operations._patches import FFTWithSize  # noqa: E402,F401 -- MindSpore's module for it

__all__ += ["FFTWithSize"]

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import PrimitiveWithCheck, PrimitiveWithInfer  # noqa: E402,F401
from mindseed.common.tensor import Tensor  # noqa: E402,F401
from mindseed.ops.operations import (Bernoulli, Cauchy, InplaceIndexAdd, InplaceUpdateV2)  # noqa: E402,F401
