"""mindspore.ops.function.clip_func: clipping by value and by norm (same objects as `mindspore.ops`), and the
multitype functions MindSpore's global-norm clipping maps over a tuple of gradients (`get_square_sum`,
`apply_global_norm`), which optimizers written for MindSpore import from here."""
from mindseed.common import dtype as mstype
from mindseed.ops import functional as F
from mindseed.ops.composite import MultitypeFuncGraph
from mindseed.ops.functional import clip_by_value  # noqa: F401
from mindseed.ops.functional._misc import clip_by_global_norm, clip_by_norm  # noqa: F401

__all__ = ["clip_by_value", "clip_by_norm", "clip_by_global_norm"]

get_square_sum = MultitypeFuncGraph("get_square_sum")
apply_global_norm = MultitypeFuncGraph("apply_global_norm")


@get_square_sum.register("Tensor")
def _get_square_sum(x):
    """The sum of the squares of x, as a float32 tensor of shape (1,)."""
    return F.expand_dims(F.cast(F.sum(F.square(x)), mstype.float32), 0)


@apply_global_norm.register("Tensor", "Tensor", "Tensor")
def _apply_global_norm(clip_norm, global_norm, x):
    """x scaled by clip_norm / global_norm, in x's dtype."""
    return F.cast(x * clip_norm / global_norm, x.dtype)
