"""mindspore.nn.sparse: Cells over COO sparse tensors given as (indices, values, dense shape)."""
from mindseed.nn.cell import Cell
from mindseed.ops import operations as P

__all__ = ["SparseToDense", "SparseTensorDenseMatmul"]


class SparseToDense(Cell):
    """The dense Tensor of a COOTensor.

    >>> import mindseed as ms
    >>> x = ms.COOTensor(ms.Tensor([[0, 1]]), ms.Tensor([2.0]), (1, 2))
    >>> ms.nn.SparseToDense()(x).tolist()
    [[0.0, 2.0]]
    """

    def __init__(self):
        super().__init__()
        self.sparse_to_dense = P.SparseToDense()

    def construct(self, sparse_tensor):
        return self.sparse_to_dense(sparse_tensor.indices, sparse_tensor.values, sparse_tensor.shape)


class SparseTensorDenseMatmul(Cell):
    """A COO sparse matrix (indices, values, sparse_shape) times a dense matrix; `adjoint_st` / `adjoint_dt` transpose
    the sparse / dense operand."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        self.matmul = P.SparseTensorDenseMatmul(adjoint_st, adjoint_dt)

    def construct(self, indices, values, sparse_shape, dense):
        return self.matmul(indices, values, sparse_shape, dense)
