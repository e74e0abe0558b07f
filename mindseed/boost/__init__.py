"""mindspore.boost: training accelerations. Gradient accumulation is what model zoos build on
(`boost.GradientAccumulation` and its per-gradient ops)."""
from mindseed.boost.grad_accumulation import GradientAccumulation  # noqa: F401

__all__ = ["GradientAccumulation"]
