"""mindspore.ops.operations._csr_ops: the primitive classes behind the CSRTensor functions, taking a CSR matrix as
its parts (indptr, indices, values, dense_shape) — `_csr_ops.CSRMV()(indptr, indices, values, shape, dense)`.
Each calls the function of `ops` over the CSRTensor of those parts; the index parts are int32 (MindSpore's)."""
from mindseed.common.tensor import CSRTensor
from mindseed.ops import functional as F
from mindseed.ops.functional._sparse import _int32_only
from mindseed.ops.operations._table import primitive_class

_PARTS = ("indptr", "indices", "values", "dense_shape")


def _csr(indptr, indices, values, dense_shape):
    _int32_only("Indptr", indptr)
    _int32_only("Indices", indices)
    return CSRTensor(indptr, indices, values, tuple(dense_shape))


def _values(fn):
    """fn(csr, dense) as MindSpore's CSRMul / CSRDiv give it: the values at the stored positions."""
    def call(indptr, indices, values, dense_shape, dense):
        out = fn(_csr(indptr, indices, values, dense_shape), dense)
        return out.values if isinstance(out, CSRTensor) else out
    return call


_ROWS = {
    "CSRReduceSum": (lambda p, i, v, s, axis: F.csr_reduce_sum(_csr(p, i, v, s), axis), _PARTS + ("axis",),
                     "The sum of the CSR matrix along `axis`, the dimension kept."),
    "CSRMV": (lambda p, i, v, s, dense: F.csr_mv(_csr(p, i, v, s), dense), _PARTS + ("dense",),
              "The CSR matrix times a dense (n, 1) vector."),
    "CSRMul": (_values(F.csr_mul), _PARTS + ("dense",),
               "The stored values times the dense operand (broadcast to the matrix) at their positions."),
    "CSRDiv": (_values(F.csr_div), _PARTS + ("dense",),
               "The stored values divided by the dense operand (broadcast to the matrix) at their positions."),
    "CSRMM": (lambda p, i, v, s, dense: F.csr_mm(_csr(p, i, v, s), dense), _PARTS + ("dense",),
              "The CSR matrix times a dense matrix."),
    "CSRGather": (F.csr_gather, ("indptr", "indices", "dense", "sparse_shape"),
                  "The elements of `dense` at the positions of the CSR pattern."),
    "CSR2COO": (F.csr2coo, ("indptr", "nnz"), "The row index of each stored value."),
    "COO2CSR": (F.coo2csr, ("row_indices", "height"), "The row pointer of sorted COO row indices."),
}

globals().update({_name: primitive_class(_name, _fn, (), _inputs, doc=_doc, module=__name__)
                  for _name, (_fn, _inputs, _doc) in _ROWS.items()})
__all__ = list(_ROWS)
