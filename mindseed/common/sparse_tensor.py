"""mindspore.common.sparse_tensor: the sparse tensor classes, by MindSpore's module layout (the same objects as
`mindspore.COOTensor`, ...). `RowTensorInner` is MindSpore's name of the RowTensor class its RowTensor derives
from; here they are one class."""
from mindseed._toplevel import SparseTensor
from mindseed.common.tensor import COOTensor, CSRTensor, RowTensor, Tensor

RowTensorInner = RowTensor

__all__ = ["COOTensor", "CSRTensor", "RowTensor", "RowTensorInner", "SparseTensor", "Tensor"]
