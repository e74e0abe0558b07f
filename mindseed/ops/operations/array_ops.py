"""mindspore.ops.operations.array_ops: creation, shape, indexing, gather/scatter and segment primitives, by
MindSpore's module layout (the same classes as `mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    AffineGrid, ArgMaxWithValue, ArgMinWithValue, Argmax, Argmin, Bincount, BroadcastTo, Cast, CheckNumerics,
    Col2Im, Concat, ConjugateTranspose, Cummax, DType, DepthToSpace, Diag, DiagPart, DynamicShape,
    EmbeddingLookup, ExpandDims, Eye, Fill, FillDiagonal, Fills, Gather, GatherD, GatherNd, GatherV2, Identity,
    Im2Col, IndexFill, IndexPut, InplaceIndexAdd, InplaceUpdateV2, LeftShift, LogSpace, LowerBound, Lstsq,
    MaskedFill, MaskedScatter, MaskedSelect, MatrixBandPart, Meshgrid, Mvlgamma, NonZero, Ones, OnesLike, Pack,
    Padding, PopulationCount, Range, Rank, Reshape, ResizeNearestNeighbor, ResizeNearestNeighborV2,
    ReverseSequence, ReverseV2, RightShift, Rint, ScalarToTensor, ScatterAdd, ScatterAddWithAxis, ScatterDiv,
    ScatterMax, ScatterMin, ScatterMul, ScatterNd, ScatterNdAdd, ScatterNdDiv, ScatterNdMax, ScatterNdMin,
    ScatterNdMul, ScatterNdSub, ScatterNdUpdate, ScatterNonAliasingAdd, ScatterSub, ScatterUpdate, SearchSorted,
    SegmentMax, SegmentMean, SegmentMin, SegmentProd, SegmentSum, Select, Shape, Size, Slice, Sort,
    SpaceToDepth, SparseGatherV2, Split, SplitV, Squeeze, Stack, StridedSlice, TensorScatterAdd,
    TensorScatterDiv, TensorScatterElements, TensorScatterMax, TensorScatterMin, TensorScatterMul,
    TensorScatterSub, TensorScatterUpdate, TensorShape, Tile, TopK, Transpose, Tril, Triu, TupleToArray, Unique,
    UniqueConsecutive, UniqueWithPad, Unpack, UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd,
    UnsortedSegmentSum, Unstack, UpperBound, Zeros, ZerosLike)

__all__ = [
    "AffineGrid", "ArgMaxWithValue", "ArgMinWithValue", "Argmax", "Argmin", "Bincount", "BroadcastTo", "Cast",
    "CheckNumerics", "Col2Im", "Concat", "ConjugateTranspose", "Cummax", "DType", "DepthToSpace", "Diag",
    "DiagPart", "DynamicShape", "EmbeddingLookup", "ExpandDims", "Eye", "Fill", "FillDiagonal", "Fills",
    "Gather", "GatherD", "GatherNd", "GatherV2", "Identity", "Im2Col", "IndexFill", "IndexPut",
    "InplaceIndexAdd", "InplaceUpdateV2", "LeftShift", "LogSpace", "LowerBound", "Lstsq", "MaskedFill",
    "MaskedScatter", "MaskedSelect", "MatrixBandPart", "Meshgrid", "Mvlgamma", "NonZero", "Ones", "OnesLike",
    "Pack", "Padding", "PopulationCount", "Range", "Rank", "Reshape", "ResizeNearestNeighbor",
    "ResizeNearestNeighborV2", "ReverseSequence", "ReverseV2", "RightShift", "Rint", "ScalarToTensor",
    "ScatterAdd", "ScatterAddWithAxis", "ScatterDiv", "ScatterMax", "ScatterMin", "ScatterMul", "ScatterNd",
    "ScatterNdAdd", "ScatterNdDiv", "ScatterNdMax", "ScatterNdMin", "ScatterNdMul", "ScatterNdSub",
    "ScatterNdUpdate", "ScatterNonAliasingAdd", "ScatterSub", "ScatterUpdate", "SearchSorted", "SegmentMax",
    "SegmentMean", "SegmentMin", "SegmentProd", "SegmentSum", "Select", "Shape", "Size", "Slice", "Sort",
    "SpaceToDepth", "SparseGatherV2", "Split", "SplitV", "Squeeze", "Stack", "StridedSlice", "TensorScatterAdd",
    "TensorScatterDiv", "TensorScatterElements", "TensorScatterMax", "TensorScatterMin", "TensorScatterMul",
    "TensorScatterSub", "TensorScatterUpdate", "TensorShape", "Tile", "TopK", "Transpose", "Tril", "Triu",
    "TupleToArray", "Unique", "UniqueConsecutive", "UniqueWithPad", "Unpack", "UnsortedSegmentMax",
    "UnsortedSegmentMin", "UnsortedSegmentProd", "UnsortedSegmentSum", "Unstack", "UpperBound", "Zeros",
    "ZerosLike"]
