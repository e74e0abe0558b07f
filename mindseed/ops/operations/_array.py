"""Class API of the array ops (`ops.ExpandDims()(x, 0)`, `ops.Gather()(x, idx, 1)`, `ops.TopK()(x, k)`)."""
from mindseed.common import dtype as mstype
from mindseed.ops.functional import _array as F
from mindseed.ops.functional import _core as C
from mindseed.ops.operations._base import Primitive, simple_primitive as _simple

__all__ = [
    "ExpandDims", "Squeeze", "Flatten", "Tile", "Gather", "GatherV2", "SparseGatherV2", "GatherD", "GatherNd",
    "OneHot", "TopK", "Sort", "Unstack", "Unpack", "Pack", "Split", "SplitV", "ScatterNd", "ScatterNdAdd",
    "ScatterNdSub", "ScatterNdMul", "ScatterNdDiv", "ScatterNdMax", "ScatterNdMin", "ScatterNdUpdate", "ScatterAdd",
    "ScatterSub", "ScatterMul", "ScatterDiv", "ScatterMax", "ScatterMin", "ScatterUpdate", "ScatterNonAliasingAdd",
    "ScatterAddWithAxis", "TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMax",
    "TensorScatterMin", "TensorScatterMul", "TensorScatterDiv", "TensorScatterElements", "Eye", "Range", "LinSpace",
    "LogSpace", "StridedSlice", "Slice", "Unique", "UniqueConsecutive", "UniqueWithPad", "Tril", "Triu",
    "TrilIndices", "TriuIndices", "Diag", "DiagPart", "ReverseV2", "Roll", "ReverseSequence", "MaskedFill",
    "MaskedSelect", "MaskedScatter", "IndexAdd", "IndexFill", "IndexPut", "InplaceUpdate", "InplaceUpdateV2",
    "InplaceAdd", "InplaceSub", "InplaceIndexAdd", "NonZero", "SearchSorted", "LowerBound", "UpperBound",
    "Bucketize", "Bincount", "Histogram", "Meshgrid", "Identity", "FillDiagonal", "MatrixBandPart", "Trace", "Size",
    "Rank", "Shape", "TensorShape", "DynamicShape", "TupleToArray", "Fills", "Padding",
]


def _with_attrs(name, fn, params, doc):
    """A Primitive class whose __init__ takes `params` (name, default) and whose call passes them after the inputs."""
    def __init__(self, *args, **kwargs):
        Primitive.__init__(self, name)
        values = dict(params)
        values.update(zip([p for p, _ in params], args))
        values.update(kwargs)
        for k, v in values.items():
            setattr(self, k, v)
            self.attrs[k] = v

    def __call__(self, *inputs):
        return fn(self, *inputs)

    return type(name, (Primitive,), {"__init__": __init__, "__call__": __call__, "__doc__": doc})


ExpandDims = _simple("ExpandDims", F.expand_dims, "x with a new axis of size 1: ExpandDims()(x, axis).")
Squeeze = _with_attrs("Squeeze", lambda self, x: F.squeeze(x, self.axis or None), [("axis", ())],
                      "x without its size-1 dimensions (or those in `axis`).")
Flatten = _simple("Flatten", lambda x: F.flatten(x), "x reshaped to (batch, -1).")
Tile = _simple("Tile", F.tile, "x repeated along each dimension: Tile()(x, multiples).")
Gather = _with_attrs("Gather", lambda self, x, idx, axis: F.gather(x, idx, axis, self.batch_dims),
                     [("batch_dims", 0)], "Slices of x at indices along axis: Gather()(x, indices, axis).")
GatherV2 = _simple("GatherV2", lambda x, idx, axis: F.gather(x, idx, axis), "Same as Gather.")
SparseGatherV2 = _simple("SparseGatherV2", lambda x, idx, axis: F.gather(x, idx, axis), "Same as Gather.")
GatherD = _simple("GatherD", F.gather_d, "torch.gather semantics: GatherD()(x, dim, index).")
GatherNd = _simple("GatherNd", F.gather_nd, "x[indices[..., 0], indices[..., 1], ...].")
OneHot = _with_attrs("OneHot", lambda self, idx, depth, on, off: F.one_hot(idx, depth, on, off, self.axis),
                     [("axis", -1)], "OneHot(axis)(indices, depth, on_value, off_value).")
TopK = _with_attrs("TopK", lambda self, x, k: F.topk(x, k, None, True, self.sorted), [("sorted", True)],
                   "The k largest entries of the last dimension and their indices.")
Sort = _with_attrs("Sort", lambda self, x: F.sort(x, self.axis, self.descending),
                   [("axis", -1), ("descending", False)], "Sorted values and their indices.")
Unstack = _with_attrs("Unstack", lambda self, x: F.unstack(x, self.axis), [("axis", 0), ("num", None)],
                      "The slices of x along axis.")
Unpack = _with_attrs("Unpack", lambda self, x: F.unstack(x, self.axis), [("axis", 0)], "Same as Unstack.")
Pack = _with_attrs("Pack", lambda self, xs: C.stack(xs, self.axis), [("axis", 0)], "Same as Stack.")


def _split_equal(self, x):
    n = x.shape[self.axis]
    if self.output_num <= 0 or n % self.output_num:
        raise ValueError(f"For 'Split', the size {n} of axis {self.axis} must be divisible by 'output_num' "
                         f"{self.output_num}.")
    return F.split(x, n // self.output_num, self.axis)


Split = _with_attrs("Split", _split_equal, [("axis", 0), ("output_num", 1)], "output_num equal pieces of x.")
SplitV = _with_attrs("SplitV", lambda self, x: F.split(x, list(self.size_splits), self.split_dim),
                     [("size_splits", ()), ("split_dim", 0), ("num_split", 0)], "Pieces of the given sizes.")


ScatterNd = _simple("ScatterNd", F.scatter_nd, "Zeros of shape with updates added at indices.")


def _ref_class(name, fn):
    return _with_attrs(name, lambda self, x, idx, upd: fn(x, idx, upd), [("use_locking", False)],
                       f"{name}: update input_x in place at indices and return it.")


ScatterNdAdd = _ref_class("ScatterNdAdd", F.scatter_nd_add)
ScatterNdSub = _ref_class("ScatterNdSub", F.scatter_nd_sub)
ScatterNdMul = _ref_class("ScatterNdMul", F.scatter_nd_mul)
ScatterNdDiv = _ref_class("ScatterNdDiv", F.scatter_nd_div)
ScatterNdMax = _ref_class("ScatterNdMax", F.scatter_nd_max)
ScatterNdMin = _ref_class("ScatterNdMin", F.scatter_nd_min)
ScatterNdUpdate = _ref_class("ScatterNdUpdate", F.scatter_nd_update)
ScatterAdd = _ref_class("ScatterAdd", F.scatter_add)
ScatterSub = _ref_class("ScatterSub", F.scatter_sub)
ScatterMul = _ref_class("ScatterMul", F.scatter_mul)
ScatterDiv = _ref_class("ScatterDiv", F.scatter_div)
ScatterMax = _ref_class("ScatterMax", F.scatter_max)
ScatterMin = _ref_class("ScatterMin", F.scatter_min)
ScatterUpdate = _ref_class("ScatterUpdate", F.scatter_update)
ScatterNonAliasingAdd = _ref_class("ScatterNonAliasingAdd", F.scatter_nd_add)
ScatterAddWithAxis = _with_attrs("ScatterAddWithAxis", lambda self, x, idx, upd: F.tensor_scatter_elements(
    x, idx, upd, self.axis, "add"), [("axis", 0)], "x with updates added at indices along axis.")
TensorScatterUpdate = _simple("TensorScatterUpdate", F.tensor_scatter_update, "A copy of x updated at indices.")
TensorScatterAdd = _simple("TensorScatterAdd", F.tensor_scatter_add, "A copy of x plus updates at indices.")
TensorScatterSub = _simple("TensorScatterSub", F.tensor_scatter_sub, "A copy of x minus updates at indices.")
TensorScatterMax = _simple("TensorScatterMax", F.tensor_scatter_max, "A copy of x, maxed with updates at indices.")
TensorScatterMin = _simple("TensorScatterMin", F.tensor_scatter_min, "A copy of x, mined with updates at indices.")
TensorScatterMul = _simple("TensorScatterMul", F.tensor_scatter_mul, "A copy of x times updates at indices.")
TensorScatterDiv = _simple("TensorScatterDiv", F.tensor_scatter_div, "A copy of x over updates at indices.")
TensorScatterElements = _with_attrs("TensorScatterElements", lambda self, x, idx, upd: F.tensor_scatter_elements(
    x, idx, upd, self.axis, self.reduction), [("axis", 0), ("reduction", "none")],
    "x with updates written (or added) at indices along axis.")
Eye = _simple("Eye", lambda n, m, t: F.eye(n, m, t), "An n x m identity matrix of dtype t.")
Range = _with_attrs("Range", lambda self, s, e, d: F.range(s, e, d, self.maxlen), [("maxlen", 1000000)],
                    "Numbers from start to limit by delta.")
LinSpace = _simple("LinSpace", F.linspace, "num evenly spaced numbers from start to stop.")
LogSpace = _with_attrs("LogSpace", lambda self, s, e: F.logspace(s, e, self.steps, self.base, dtype=self.dtype),
                       [("steps", 10), ("base", 10), ("dtype", mstype.float32)], "base ** linspace(start, end).")
StridedSlice = _with_attrs("StridedSlice", lambda self, x, b, e, s: F.strided_slice(
    x, b, e, s, self.begin_mask, self.end_mask, self.ellipsis_mask, self.new_axis_mask, self.shrink_axis_mask),
    [("begin_mask", 0), ("end_mask", 0), ("ellipsis_mask", 0), ("new_axis_mask", 0), ("shrink_axis_mask", 0)],
    "x[begin:end:strides] with TensorFlow-style masks.")
Slice = _simple("Slice", F.slice, "The block of x at begin of shape size.")
Unique = _simple("Unique", F.unique, "Distinct elements (first-appearance order) and inverse indices.")
UniqueConsecutive = _with_attrs("UniqueConsecutive", lambda self, x: F.unique_consecutive(
    x, self.return_inverse, self.return_counts, self.dim),
    [("return_inverse", False), ("return_counts", False), ("dim", None)], "Consecutive repeats collapsed.")
UniqueWithPad = _simple("UniqueWithPad", F.unique_with_pad, "unique padded with pad_num.")
Tril = _with_attrs("Tril", lambda self, x: F.tril(x, self.diagonal), [("diagonal", 0)], "Lower triangle.")
Triu = _with_attrs("Triu", lambda self, x: F.triu(x, self.diagonal), [("diagonal", 0)], "Upper triangle.")
TrilIndices = _with_attrs("TrilIndices", lambda self: F.tril_indices(self.row, self.col, self.offset,
                                                                     dtype=self.dtype),
                          [("row", 0), ("col", 0), ("offset", 0), ("dtype", mstype.int32)],
                          "Indices of the lower triangle.")
TriuIndices = _with_attrs("TriuIndices", lambda self: F.triu_indices(self.row, self.col, self.offset,
                                                                     dtype=self.dtype),
                          [("row", 0), ("col", 0), ("offset", 0), ("dtype", mstype.int32)],
                          "Indices of the upper triangle.")
Diag = _simple("Diag", F.diag, "A tensor with x on its diagonal (shape x.shape * 2).")


def _diag_part(x):
    """The inverse of Diag: a tensor of shape s from one of shape s + s."""
    k = x.ndim // 2
    if x.ndim % 2 or x.shape[:k] != x.shape[k:]:
        raise ValueError(f"For 'DiagPart', the input shape must be s + s, but got {x.shape}.")
    n = 1
    for s in x.shape[:k]:
        n *= s
    return C.reshape(F.diagonal(C.reshape(x, (n, n))), x.shape[:k])


DiagPart = _simple("DiagPart", _diag_part, "The diagonal of a tensor of shape s + s, of shape s.")
class ReverseV2(Primitive):
    """`ReverseV2(axis)(x)`: x reversed along the dims of `axis` (a list or tuple of int)."""

    def __init__(self, axis):
        Primitive.__init__(self, "ReverseV2")
        if not isinstance(axis, (list, tuple)) or any(isinstance(a, bool) or not isinstance(a, int) for a in axis):
            raise TypeError(f"For 'ReverseV2', the type of 'axis' should be one of '[list of int, tuple of int]', "
                            f"but got {type(axis)}.")
        self.axis = axis
        self.attrs["axis"] = axis

    def __call__(self, x):
        return F.flip(x, self.axis)
Roll = _with_attrs("Roll", lambda self, x: F.roll(x, self.shifts, self.dims), [("shifts", 0), ("dims", None)],
                   "x shifted cyclically.")
ReverseSequence = _with_attrs("ReverseSequence", lambda self, x, lens: F.reverse_sequence(
    x, lens, self.seq_dim, self.batch_dim), [("seq_dim", 0), ("batch_dim", 0)], "Variable-length reversal.")
MaskedFill = _simple("MaskedFill", F.masked_fill, "x with value where mask.")
MaskedSelect = _simple("MaskedSelect", F.masked_select, "Elements of x where mask, 1-D.")
MaskedScatter = _simple("MaskedScatter", F.masked_scatter, "x with mask positions taken from source.")
IndexAdd = _with_attrs("IndexAdd", lambda self, x, idx, y: F.index_add(x, idx, y, self.axis),
                       [("axis", 0), ("use_lock", True), ("check_index_bound", True)],
                       "x[..., idx, ...] += y along axis, in place.")
IndexFill = _simple("IndexFill", F.index_fill, "IndexFill()(x, dim, index, value).")
IndexPut = _with_attrs("IndexPut", lambda self, x, values, indices: F.TENSOR_METHODS["index_put"](
    x, tuple(indices), values, bool(self.accumulate)), [("accumulate", 0)], "x[indices] = values (or +=).")
InplaceUpdate = _with_attrs("InplaceUpdate", lambda self, x, v: F.inplace_update(x, v, self.indices),
                            [("indices", ())], "Rows of x replaced by v.")
InplaceUpdateV2 = _simple("InplaceUpdateV2", lambda x, indices, v: F.inplace_update(x, v, indices),
                          "Rows of x replaced by v.")
InplaceAdd = _with_attrs("InplaceAdd", lambda self, x, v: F.inplace_add(x, v, self.indices), [("indices", ())],
                         "v added to rows of x.")
InplaceSub = _with_attrs("InplaceSub", lambda self, x, v: F.inplace_sub(x, v, self.indices), [("indices", ())],
                         "v subtracted from rows of x.")
InplaceIndexAdd = _with_attrs("InplaceIndexAdd", lambda self, var, idx, upd: F.index_add(var, idx, upd, self.axis),
                              [("axis", 0)], "var[..., idx, ...] += updates along axis, in place.")
NonZero = _simple("NonZero", F.nonzero, "Indices of the non-zero elements.")
SearchSorted = _with_attrs("SearchSorted", lambda self, seq, v: F.searchsorted(
    seq, v, out_int32=self.dtype == mstype.int32, right=self.right), [("dtype", mstype.int64), ("right", False)],
    "Insertion positions of values in a sorted sequence.")
LowerBound = _with_attrs("LowerBound", lambda self, seq, v: C.cast(F.searchsorted(seq, v), self.out_type),
                         [("out_type", mstype.int32)], "Left insertion positions (searchsorted).")
UpperBound = _with_attrs("UpperBound", lambda self, seq, v: C.cast(F.searchsorted(seq, v, right=True),
                                                                   self.out_type),
                         [("out_type", mstype.int32)], "Right insertion positions (searchsorted).")
Bucketize = _with_attrs("Bucketize", lambda self, x: F.bucketize(x, list(self.boundaries), right=True),
                        [("boundaries", ())], "Bucket index of each element: how many boundaries are <= it.")


def _bincount(array, size, weights):
    n = int(size.item()) if hasattr(size, "item") else int(size)
    out = F.bincount(C.reshape(array, (-1,)), C.reshape(weights, (-1,)) if weights.size else None, n)
    return out[:n] if out.shape[0] > n else out


Bincount = _simple("Bincount", _bincount, "Bincount()(array, size, weights): counts of 0..size-1.")
Histogram = _with_attrs("Histogram", lambda self, x: F.histc(x, self.bins, self.min, self.max),
                        [("bins", 100), ("min", 0.0), ("max", 0.0)], "Histogram of x.")
Meshgrid = _with_attrs("Meshgrid", lambda self, xs: F.meshgrid(*xs, indexing=self.indexing), [("indexing", "xy")],
                       "Coordinate grids of 1-D inputs.")
Identity = _simple("Identity", F._S.tensor_identity, "A copy of the Tensor x.")
FillDiagonal = _with_attrs("FillDiagonal", lambda self, x: F.TENSOR_METHODS["fill_diagonal"](
    x, self.fill_value, self.wrap), [("fill_value", 0.0), ("wrap", False)], "x with its main diagonal filled.")
MatrixBandPart = _simple("MatrixBandPart", F.matrix_band_part, "x outside the band set to zero.")
Trace = _simple("Trace", F.trace, "The sum of the diagonal of a matrix.")
Size = _simple("Size", F.size, "The number of elements.")
Rank = _simple("Rank", F.rank, "The number of dimensions.")
Shape = _simple("Shape", F.shape, "The shape as a tuple.")
TensorShape = _simple("TensorShape", F.dyn_shape, "The shape as a 1-D tensor.")
DynamicShape = _with_attrs("DynamicShape", lambda self, x: F.dyn_shape(x), [("dtype", 9)], "The shape as a tensor.")
TupleToArray = _simple("TupleToArray", F.tuple_to_array, "A tuple of numbers as a tensor.")
Fills = _simple("Fills", F.fills, "A tensor of x's shape filled with value.")
Padding = _with_attrs("Padding", lambda self, x: F.padding(x, self.pad_dim_size), [("pad_dim_size", 8)],
                      "The last dimension (size 1) zero-padded to pad_dim_size.")
