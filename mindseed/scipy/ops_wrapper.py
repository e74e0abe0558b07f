"""mindspore.scipy.ops_wrapper: wrappers of array primitives for the scipy functions (matrix_set_diag)."""
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops.operations.array_ops import MatrixSetDiagV3

__all__ = ["matrix_set_diag"]


def matrix_set_diag(input_x, diagonal, k=0, alignment="RIGHT_LEFT"):
    """`input_x` with its diagonal(s) `k` (an int, or a (low, high) pair for a band) replaced by `diagonal`
    (MatrixSetDiagV3 with `alignment`).

    Raises:
        ValueError: `k` neither an int nor a list/tuple.
    """
    if isinstance(k, int) and not isinstance(k, bool):
        k_vec = (k, k)
    elif isinstance(k, (list, tuple)):
        k_vec = tuple(k)
    else:
        raise ValueError("input k to indicate diagonal region is invalid.")
    return MatrixSetDiagV3(alignment)(input_x, diagonal, Tensor(list(k_vec), mstype.int32))
