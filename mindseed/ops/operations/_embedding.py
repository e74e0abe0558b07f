"""Class API of EmbeddingLookup: rows of a table by index, shifted by an offset (out-of-range rows are zeros)."""
from mindseed.common.tensor import Tensor
from mindseed.common import dtype as mstype
from mindseed.ops import functional as F
from mindseed.ops.operations._base import Primitive

__all__ = ["EmbeddingLookup"]


class EmbeddingLookup(Primitive):
    """`input_params[input_indices - offset]` along axis 0; an index outside `[0, rows)` after the shift gives a row of
    zeros (how MindSpore looks up a slice of a table that holds rows `offset .. offset + rows - 1`).

    >>> import mindseed as ms
    >>> table = ms.Tensor([[8.0, 9.0], [10.0, 11.0]])
    >>> ms.ops.EmbeddingLookup()(table, ms.Tensor([3, 2, 0]), 2).asnumpy().tolist()
    [[10.0, 11.0], [8.0, 9.0], [0.0, 0.0]]
    """

    def __init__(self):
        super().__init__("EmbeddingLookup")

    def __call__(self, input_params, input_indices, offset):
        name = self.name
        if not isinstance(input_params, Tensor) or input_params.ndim < 1:
            raise TypeError(f"For '{name}', 'input_params' must be a Tensor of rank >= 1, but got "
                            f"{type(input_params).__name__}.")
        if not isinstance(input_indices, Tensor) or not mstype.is_integral(input_indices.dtype):
            raise TypeError(f"For '{name}', 'input_indices' must be an int Tensor, but got "
                            f"{getattr(input_indices, 'dtype', type(input_indices).__name__)}.")
        if isinstance(offset, Tensor):
            offset = offset.item()
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise TypeError(f"For '{name}', 'offset' must be an int, but got {type(offset).__name__}.")
        idx = input_indices - offset
        valid = F.logical_and(idx >= 0, idx < input_params.shape[0])
        rows = F.gather(input_params, F.where(valid, idx, F.zeros_like(idx)), 0)
        mask = F.cast(valid, rows.dtype).reshape(valid.shape + (1,) * (input_params.ndim - 1))
        return rows * mask
