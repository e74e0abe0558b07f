"""mindspore.common.sparse_tensor: the sparse tensor classes, by MindSpore's module layout (the same objects as
`mindspore.COOTensor`, ...). `RowTensorInner` is MindSpore's name of the RowTensor class its RowTensor derives
from; here they are one class."""
from mindseed.common.tensor import COOTensor, CSRTensor, RowTensor, Tensor

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
