"""mindspore.common.sparse_tensor: the sparse tensor formats COOTensor, CSRTensor and RowTensor (also
`mindspore.COOTensor`, ...). `RowTensorInner` is MindSpore's name of the RowTensor class its RowTensor derives
from; here they are one class.

A sparse tensor holds its parts as Tensors; what it computes (to_dense, +, *, mv, ...) goes through the sparse
functional ops (`mindseed.ops.functional._sparse`, a higher layer, registered into `_SPARSE_OPS` by
mindseed._registration), so it is differentiable in the values and traces in graph mode as those ops do.
"""
from mindseed._checkparam import check_coo_tensor_shape
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor, _to_string

_SPARSE_OPS = []     # the sparse functional ops (a higher layer): registered by mindseed._registration
_INDEX_TYPES = (mstype.int16, mstype.int32, mstype.int64)


def _sparse_ops():
    return _SPARSE_OPS[0]


def _check_parts(indices, values, shape):
    """MindSpore's common type check of a sparse tensor's parts."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"For SparseTensors, 'indices' must be Tensor, but got {type(indices)}.")
    if not isinstance(values, Tensor):
        raise TypeError(f"For SparseTensors, 'values' must be Tensor, but got {type(values)}.")
    if not isinstance(shape, tuple):
        raise TypeError(f"For SparseTensors, 'shape' must be tuple, but got {type(shape)}.")


def _same_shape(a, b):
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError("Input tensors should have the same shape.")


class _Sparse:
    """What the sparse formats share: dtype and sizes come from the stored values, ndim from the dense shape."""

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def size(self):
        return self.values.size

    @property
    def itemsize(self):
        return self.values.itemsize

    @property
    def ndim(self):
        return len(self.shape)

    def __str__(self):
        return repr(self)


class COOTensor(_Sparse):
    """A sparse tensor in coordinate format: `indices` (N, 2), `values` (N,), dense `shape` (2 ints).

    >>> import mindseed as ms
    >>> x = ms.COOTensor(ms.Tensor([[0, 1], [1, 2]], ms.int32), ms.Tensor([1., 2.]), (3, 4))
    >>> (-x).values.tolist(), (x * ms.ops.ones((3, 4))).values.tolist()
    ([-1.0, -2.0], [1.0, 2.0])
    """

    def __init__(self, indices=None, values=None, shape=None, coo_tensor=None):
        if coo_tensor is not None:
            if not isinstance(coo_tensor, COOTensor):
                raise TypeError(f"Expect input `coo_tensor` to be a COOTensor, but got {type(coo_tensor)}")
            if not (indices is None and values is None and shape is None):
                raise TypeError("If input `coo_tensor` is provided, `indices`, `values`, `shapes` should all be "
                                "`None`")
            indices, values, shape = coo_tensor.indices, coo_tensor.values, coo_tensor.shape
        if isinstance(shape, list) and _state.tracing is not None:
            shape = tuple(shape)      # a shape built in a graph may come as a list
        _check_parts(indices, values, shape)
        if _state.tracing is not None and indices.ndim == 2:
            # inside a graph MindSpore's MakeCOOTensor checks the indices' width first, then the shape's length
            if indices.shape[1] != 2:
                raise ValueError(f"For COOTensor, `indices.shape[1]` must be 2, but got {indices.shape[1]}.")
            if len(shape) != indices.shape[1]:
                raise TypeError(f"For COOTensor, `indices.shape[{list(shape)}]` must be equal to the second "
                                f"dimension of `indices`: {len(shape)} but got {indices.shape[1]}.")
        check_coo_tensor_shape(tuple(indices.shape), tuple(values.shape), tuple(shape))
        if indices.dtype not in _INDEX_TYPES:
            raise TypeError(f"For COOTensor, the type of 'indices' must be one of [int16, int32, int64], but got "
                            f"{indices.dtype}.")
        self.indices, self.values, self.shape = indices, values, tuple(shape)

    def to_dense(self):
        """The dense Tensor (zeros scattered-added with the values; duplicates summed)."""
        return _sparse_ops().coo_to_dense(self)

    def astype(self, dtype):
        return COOTensor(self.indices, self.values.astype(dtype), self.shape)

    def to_tuple(self):
        return self.indices, self.values, self.shape

    def abs(self):
        return COOTensor(self.indices, self.values.abs(), self.shape)

    def coalesce(self):
        """A copy with duplicate positions summed and the positions in row-major order."""
        ops = _sparse_ops()
        idx, values, _ = ops.coalesce(self.indices.transpose(), self.values, Tensor(self.shape, mstype.int64))
        return COOTensor(idx.transpose(), values, self.shape)

    def add(self, other, thresh):
        """self + other (a COOTensor of the same shape); sums of magnitude below `thresh` are dropped."""
        return _sparse_ops().coo_add(self, other, thresh)

    def to_csr(self):
        """The CSRTensor of a 2-D COOTensor (entries in row-major order, stored zeros kept)."""
        return _sparse_ops().coo_to_csr(self)

    def __neg__(self):
        return COOTensor(self.indices, -self.values, self.shape)

    def __add__(self, other):
        """COOTensor + COOTensor (a COOTensor) or + a dense Tensor of the same shape (a Tensor), as MindSpore."""
        _same_shape(self, other)
        if isinstance(other, Tensor):
            return _sparse_ops().F.tensor_scatter_add(other, self.indices, self.values)
        if isinstance(other, COOTensor):
            return _sparse_ops().coo_add(self, other, Tensor(0, self.values.dtype))
        raise TypeError("COOTensor add with %s is not supported." % type(other))

    def __radd__(self, other):
        return self.__add__(other)

    def __sub__(self, other):
        _same_shape(self, other)
        if isinstance(other, Tensor):
            return _sparse_ops().F.tensor_scatter_add(-other, self.indices, self.values)
        if isinstance(other, COOTensor):
            return _sparse_ops().coo_add(self, -other, Tensor(0, self.values.dtype))
        raise TypeError("COOTensor subtract with %s is not supported." % type(other))

    def __rsub__(self, other):
        """dense - COOTensor: the dense tensor with the values subtracted at their positions."""
        _same_shape(self, other)
        if isinstance(other, Tensor):
            return _sparse_ops().F.tensor_scatter_add(other, self.indices, -self.values)
        raise TypeError("%s subtract with COOTensor is not supported." % type(other))

    def __mul__(self, other):
        _same_shape(self, other)
        if isinstance(other, Tensor):
            return COOTensor(self.indices, self.values * _sparse_ops().F.gather_nd(other, self.indices), self.shape)
        raise TypeError("COOTensor multiply with %s is not supported." % type(other))

    __rmul__ = __mul__

    def __truediv__(self, other):
        _same_shape(self, other)
        if isinstance(other, Tensor):
            return COOTensor(self.indices, self.values / _sparse_ops().F.gather_nd(other, self.indices), self.shape)
        raise TypeError("COOTensor divide with %s is not supported." % type(other))

    def __repr__(self):
        return (f"COOTensor(shape={list(self.shape)}, dtype={self.dtype}, indices={_to_string(self.indices)}, "
                f"values={_to_string(self.values)})")


class CSRTensor(_Sparse):
    """A sparse matrix in compressed-sparse-row format: row pointer `indptr` (rows + 1,), column `indices` (N,),
    `values` (N, ...) and the dense `shape`.

    >>> import mindseed as ms
    >>> x = ms.CSRTensor(ms.Tensor([0, 1, 2]), ms.Tensor([0, 1]), ms.Tensor([1., 2.]), (2, 4))
    >>> (x + x).values.tolist(), (-x).to_dense().tolist()
    ([2.0, 4.0], [[-1.0, 0.0, 0.0, 0.0], [0.0, -2.0, 0.0, 0.0]])
    """

    def __init__(self, indptr=None, indices=None, values=None, shape=None, csr_tensor=None):
        if csr_tensor is not None:
            if not isinstance(csr_tensor, CSRTensor):
                raise TypeError(f"Expect input `csr_tensor` to be a CSRTensor, but got {type(csr_tensor)}")
            if not (indptr is None and indices is None and values is None and shape is None):
                raise TypeError("If input `csr_tensor` is provided, `indptr`, `indices`, `values`, `shapes` should "
                                "all be `None`")
            indptr, indices, values, shape = csr_tensor.indptr, csr_tensor.indices, csr_tensor.values, csr_tensor.shape
        if isinstance(shape, list) and _state.tracing is not None:
            shape = tuple(shape)
        if not isinstance(indptr, Tensor):
            raise TypeError(f"For CSRTensor, 'indptr' must be Tensor, but got {type(indptr)}.")
        _check_parts(indices, values, shape)
        _check_csr_shapes(tuple(indptr.shape), tuple(indices.shape), tuple(values.shape), shape)
        if indptr.dtype not in _INDEX_TYPES:
            raise TypeError(f"For CSRTensor, indptr must have int16 or int32 or int64 data type, but got "
                            f"{indptr.dtype}.")
        if indices.dtype not in _INDEX_TYPES:
            raise TypeError(f"For CSRTensor, indices must have int16 or int32 or int64 data type, but got "
                            f"{indices.dtype}.")
        self.indptr, self.indices, self.values, self.shape = indptr, indices, values, shape

    def to_dense(self):
        return _sparse_ops().csr_to_dense(self)

    def to_coo(self):
        if len(self.shape) != 2:
            raise ValueError("Currently only support 2-D CSRTensor when converting to COOTensor.")
        return _sparse_ops().csr_to_coo(self)

    def to_tuple(self):
        return self.indptr, self.indices, self.values, self.shape

    def astype(self, dtype):
        return CSRTensor(self.indptr, self.indices, self.values.astype(dtype), self.shape)

    def abs(self):
        return CSRTensor(self.indptr, self.indices, self.values.abs(), self.shape)

    def add(self, b, alpha, beta):
        """alpha * self + beta * b (b a CSRTensor of the same shape)."""
        return _sparse_ops().csr_add(self, b, alpha, beta)

    def mv(self, dense_vector):
        return _sparse_ops().csr_mv(self, dense_vector)

    def mm(self, matrix):
        return _sparse_ops().csr_mm(self, matrix)

    def sum(self, axis):
        return _sparse_ops().csr_reduce_sum(self, axis)

    def __neg__(self):
        return CSRTensor(self.indptr, self.indices, -self.values, self.shape)

    def __add__(self, other):
        _same_shape(self, other)
        if isinstance(other, CSRTensor):
            one = Tensor(1, self.values.dtype)
            return _sparse_ops().csr_add(self, other, one, one)
        raise TypeError("CSRTensor add with %s is not supported." % type(other))

    def __sub__(self, other):
        _same_shape(self, other)
        if isinstance(other, CSRTensor):
            return _sparse_ops().csr_add(self, other, Tensor(1, self.values.dtype), Tensor(-1, self.values.dtype))
        raise TypeError("CSRTensor subtract with %s is not supported." % type(other))

    def __mul__(self, other):
        return _sparse_ops().csr_mul(self, other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        return _sparse_ops().csr_div(self, other)

    def __repr__(self):
        return (f"CSRTensor(shape={list(self.shape)}, dtype={self.dtype}, indptr={_to_string(self.indptr)}, "
                f"indices={_to_string(self.indices)}, values={_to_string(self.values)})")


def _check_csr_shapes(indptr_shp, indices_shp, values_shp, csr_shp):
    """MindSpore's shape checks of a CSRTensor's parts (an empty CSRTensor passes)."""
    if indptr_shp == (0,) and indices_shp == (0,) and values_shp == (0,):
        return
    total = 1
    for item in csr_shp:
        if not isinstance(item, int) or isinstance(item, bool):
            raise TypeError(f"For CSRTensor, the element type of shape must be int, but got {type(item)}")
        if item <= 0:
            raise ValueError(f"For CSRTensor, the element of shape must be positive, but got {item}")
        total *= item
    count = 1
    for item in values_shp:
        if item <= 0:
            raise ValueError(f"The element of shape must be positive, but got {item}")
        count *= item
    if total < count:
        raise ValueError(f"Shape total size: {total} is too small to hold {count} non-zero values.")
    if len(indices_shp) != 1:
        raise ValueError(f"For CSRTensor, indices must be a 1-dimensional tensor, but got a {len(indices_shp)} "
                         f"dimension tensor.")
    if len(indptr_shp) != 1:
        raise ValueError(f"For CSRTensor, indptr must be a 1-dimensional tensor, but got a {len(indptr_shp)} "
                         f"dimension tensor.")
    if csr_shp[0] + 1 != indptr_shp[0]:
        raise ValueError(f"For CSRTensor, indptr must have length (1 + shape[0]), but got: {indptr_shp[0]}")
    if indices_shp[0] != values_shp[0]:
        raise ValueError(f"For CSRTensor, indices and values must equal in their shape, but got indices shape: "
                         f"{indices_shp[0]}, values shape: {values_shp[0]}.")
    if len(values_shp) + 1 != len(csr_shp):
        raise ValueError(f"Values' dimension should equal to CSRTensor's dimension - 1, but gotValues' dimension: "
                         f"{len(values_shp)} , CSRTensor's dimension: {len(csr_shp)}")
    if values_shp[1:] != csr_shp[2:]:
        raise ValueError(f"CSRTensor's shape[2: ] must be equal to value's shape[1: ],but CSRTensor's shape[2: ] "
                         f"got: {csr_shp[2:]} and value's shape[1: ]got: {values_shp[1:]}")


class RowTensor:
    """Rows of a dense tensor: `values[i]` is row `indices[i]` of a tensor of `dense_shape`."""

    def __init__(self, indices=None, values=None, shape=None, row_tensor=None):
        if row_tensor is not None:
            indices, values, shape = row_tensor.indices, row_tensor.values, row_tensor.dense_shape
        if not isinstance(shape, (tuple, list)):
            raise TypeError(f"For 'RowTensor', the 'shape' must be a tuple or list of ints, but got "
                            f"{type(shape).__name__}.")
        self.indices, self.values, self.dense_shape = indices, values, tuple(shape)

    @property
    def dtype(self):
        return self.values.dtype

    def __repr__(self):
        return (f"RowTensor(shape={list(self.dense_shape)}, dtype={self.dtype}, indices={_to_string(self.indices)}, "
                f"values={_to_string(self.values)})")


RowTensorInner = RowTensor


class SparseTensor(COOTensor):
    """The deprecated name of COOTensor (`SparseTensor(indices, values, shape)`); `shape` must be a tuple of ints.

    >>> import mindseed as ms
    >>> ms.SparseTensor(ms.Tensor([[0, 1]]), ms.Tensor([2.0]), (2, 2)).to_dense().tolist()
    [[0.0, 2.0], [0.0, 0.0]]
    """

    def __init__(self, indices, values, shape):
        if not isinstance(shape, tuple) or not all(isinstance(s, int) for s in shape):
            raise TypeError(f"For 'SparseTensor', the argument 'shape' must be a tuple of ints, but got {shape!r}.")
        super().__init__(indices, values, shape)


__all__ = ["COOTensor", "CSRTensor", "RowTensor", "RowTensorInner", "SparseTensor", "Tensor"]
