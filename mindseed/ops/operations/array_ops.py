"""mindspore.ops.operations.array_ops: creation, shape, indexing, gather/scatter and segment primitives, by
MindSpore's module layout (the same classes as `mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    AffineGrid, ArgMaxWithValue, ArgMinWithValue, Argmax, Argmin, BatchToSpace, BatchToSpaceNDV2, Bincount,
    BroadcastTo, Cast, CheckNumerics, Coalesce, Col2Im, Concat, ConcatOffsetV1, ConjugateTranspose, Cummax, DType,
    DepthToSpace, Diag, DiagPart, DynamicShape, EditDistance, EmbeddingLookup, Expand, ExpandDims, Eye, Fill,
    FillDiagonal, FillV2, Fills, Gather, GatherD, GatherNd, GatherV2, HammingWindow, Identity, IdentityN, Im2Col,
    IndexFill, IndexPut, InplaceIndexAdd, InplaceUpdateV2, InvertPermutation, LeftShift, ListDiff, LogSpace,
    LowerBound, Lstsq, MaskedFill, MaskedScatter, MaskedSelect, MatrixBandPart, MatrixDiagPartV3, MatrixDiagV3,
    MatrixSetDiagV3, Meshgrid, Mvlgamma, NonZero, Ones, OnesLike, Pack, Padding, ParallelConcat, PopulationCount,
    Range, Rank, Reshape, ResizeNearestNeighbor, ResizeNearestNeighborV2, ReverseSequence, ReverseV2, RightShift,
    Rint, ScalarToTensor, ScatterAdd, ScatterAddWithAxis, ScatterDiv, ScatterMax, ScatterMin, ScatterMul, ScatterNd,
    ScatterNdAdd, ScatterNdDiv, ScatterNdMax, ScatterNdMin, ScatterNdMul, ScatterNdSub, ScatterNdUpdate,
    ScatterNonAliasingAdd, ScatterSub, ScatterUpdate, SearchSorted, SegmentMax, SegmentMean, SegmentMin,
    SegmentProd, SegmentSum, Select, Shape, Size, Slice, Sort, SpaceToBatch, SpaceToBatchND, SpaceToDepth,
    SparseGatherV2, Split, SplitV, Squeeze, Stack, StridedSlice, TensorScatterAdd, TensorScatterDiv,
    TensorScatterElements, TensorScatterMax, TensorScatterMin, TensorScatterMul, TensorScatterSub,
    TensorScatterUpdate, TensorShape, Tile, TopK, Transpose, TransposeExtView, TransposeView, Tril, Triu,
    TupleToArray, Unique, UniqueConsecutive, UniqueWithPad, Unpack, UnravelIndex, UnsortedSegmentMax,
    UnsortedSegmentMin, UnsortedSegmentProd, UnsortedSegmentSum, Unstack, UpperBound, Zeros, ZerosLike)

__all__ = [
    "AffineGrid", "ArgMaxWithValue", "ArgMinWithValue", "Argmax", "Argmin", "BatchToSpace", "BatchToSpaceNDV2",
    "Bincount", "BroadcastTo", "Cast", "CheckNumerics", "Coalesce", "Col2Im", "Concat", "ConcatOffsetV1",
    "ConjugateTranspose", "Cummax", "DType", "DepthToSpace", "Diag", "DiagPart", "DynamicShape", "EditDistance",
    "EmbeddingLookup", "Expand", "ExpandDims", "Eye", "Fill", "FillDiagonal", "FillV2", "Fills", "Gather",
    "GatherD", "GatherNd", "GatherV2", "HammingWindow", "Identity", "IdentityN", "Im2Col", "IndexFill", "IndexPut",
    "InplaceIndexAdd", "InplaceUpdateV2", "InvertPermutation", "LeftShift", "ListDiff", "LogSpace", "LowerBound",
    "Lstsq", "MaskedFill", "MaskedScatter", "MaskedSelect", "MatrixBandPart", "MatrixDiagPartV3", "MatrixDiagV3",
    "MatrixSetDiagV3", "Meshgrid", "Mvlgamma", "NonZero", "Ones", "OnesLike", "Pack", "Padding", "ParallelConcat",
    "PopulationCount", "Range", "Rank", "Reshape", "ResizeNearestNeighbor", "ResizeNearestNeighborV2",
    "ReverseSequence", "ReverseV2", "RightShift", "Rint", "ScalarToTensor", "ScatterAdd", "ScatterAddWithAxis",
    "ScatterDiv", "ScatterMax", "ScatterMin", "ScatterMul", "ScatterNd", "ScatterNdAdd", "ScatterNdDiv",
    "ScatterNdMax", "ScatterNdMin", "ScatterNdMul", "ScatterNdSub", "ScatterNdUpdate", "ScatterNonAliasingAdd",
    "ScatterSub", "ScatterUpdate", "SearchSorted", "SegmentMax", "SegmentMean", "SegmentMin", "SegmentProd",
    "SegmentSum", "Select", "Shape", "Size", "Slice", "Sort", "SpaceToBatch", "SpaceToBatchND", "SpaceToDepth",
    "SparseGatherV2", "Split", "SplitV", "Squeeze", "Stack", "StridedSlice", "TensorScatterAdd", "TensorScatterDiv",
    "TensorScatterElements", "TensorScatterMax", "TensorScatterMin", "TensorScatterMul", "TensorScatterSub",
    "TensorScatterUpdate", "TensorShape", "Tile", "TopK", "Transpose", "TransposeExtView", "TransposeView", "Tril",
    "Triu", "TupleToArray", "Unique", "UniqueConsecutive", "UniqueWithPad", "Unpack", "UnravelIndex",
    "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd", "UnsortedSegmentSum", "Unstack",
    "UpperBound", "Zeros", "ZerosLike",
]

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import Primitive, PrimitiveWithCheck, PrimitiveWithInfer  # noqa: E402,F401
from mindseed.common.tensor import COOTensor, CSRTensor, Tensor  # noqa: E402,F401
from mindseed.ops.operations import (  # noqa: E402,F401
    CountNonZero, CumProd, CumSum, Cummin, ExtractVolumePatches, TopkExt)
__all__ += ["ExtractVolumePatches"]
