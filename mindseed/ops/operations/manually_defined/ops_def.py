"""mindspore.ops.operations.manually_defined.ops_def: Rank / rank, Cast, Tile, Shape / shape_ (the same objects as
in `mindspore.ops`) and the Python-scalar primitives (`ScalarAdd` / `scalar_add`, ...)."""
from mindseed.ops.functional import cast, rank, tile  # noqa: F401
from mindseed.ops.operations import Cast, Rank, Shape, Tile  # noqa: F401
from mindseed.ops.operations import _scalar_prims
from mindseed.ops.operations._scalar_prims import *  # noqa: F401,F403

__all__ = ["Rank", "rank", "Cast", "cast", "Tile", "tile", "Shape", "shape_"] + _scalar_prims.__all__


def shape_(input_x):
    """The shape of the Tensor `input_x`, a tuple of ints (`Shape()(input_x)`).

    >>> import mindseed as ms
    >>> shape_(ms.Tensor([[1, 2]]))
    (1, 2)
    """
    return Shape()(input_x)
