"""mindspore.ops.function.clip_func: clipping by value and by norm (same objects as `mindspore.ops`)."""
from mindseed.ops.functional import clip_by_value  # noqa: F401
from mindseed.ops.functional._misc import clip_by_global_norm, clip_by_norm  # noqa: F401

__all__ = ["clip_by_value", "clip_by_norm", "clip_by_global_norm"]
