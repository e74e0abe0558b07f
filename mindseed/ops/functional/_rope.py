"""Rotary position embedding (RoPE), MindSpore's `ops.rotary_position_embedding`: a composite, differentiable in x,
cos and sin."""
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F

__all__ = ["rotary_position_embedding"]

TENSOR_METHODS = {}


def rotary_position_embedding(x, cos, sin, mode=0):
    """y = x * cos + rotate(x) * sin, with rotate the GPT-NeoX half rotation (mode 0: (-x2, x1) of the two halves of
    the last dim) or the GPT-J interleaved one (mode 1: (-x_odd, x_even) of each pair).

    Raises:
        TypeError: x, cos or sin not a Tensor; mode not an int.
        ValueError: mode not 0 or 1, x not 4-D, or an odd last dim.

    >>> import numpy as np, mindseed as ms
    >>> x = ms.Tensor(np.ones((1, 1, 1, 2), np.float32))
    >>> ms.ops.rotary_position_embedding(x, ms.ops.ones_like(x), ms.ops.zeros_like(x)).shape
    (1, 1, 1, 2)
    """
    for name, t in (("x", x), ("cos", cos), ("sin", sin)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'RotaryPositionEmbedding', the '{name}' must be a Tensor, but got "
                            f"{type(t).__name__}.")
    if isinstance(mode, bool) or not isinstance(mode, int):
        raise TypeError(f"For 'RotaryPositionEmbedding', the 'mode' must be an int, but got {type(mode).__name__}.")
    if mode not in (0, 1):
        raise ValueError(f"For 'RotaryPositionEmbedding', the 'mode' must be 0 or 1, but got {mode}.")
    if x.ndim != 4 or x.shape[-1] % 2:
        raise ValueError(f"For 'RotaryPositionEmbedding', the 'x' must be 4-D with an even last dim, but got shape "
                         f"{x.shape}.")
    d = x.shape[-1]
    if mode == 0:
        rotated = F.concat([-x[..., d // 2:], x[..., :d // 2]], -1)
    else:
        pairs = F.reshape(x, x.shape[:-1] + (d // 2, 2))
        rotated = F.reshape(F.stack([-pairs[..., 1], pairs[..., 0]], -1), x.shape)
    return x * cos + rotated * sin
