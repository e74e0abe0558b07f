"""mindspore.ops.operations._embedding_cache_ops: the embedding-cache primitives, by MindSpore's module layout (the
same classes as `mindspore.ops.operations`)."""
from mindseed.ops.operations import MapCacheIdx, PadAndShift, SubAndFilter, UpdateCache  # noqa: F401

__all__ = ["PadAndShift", "SubAndFilter", "UpdateCache", "MapCacheIdx"]

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import PrimitiveWithCheck  # noqa: E402,F401
from mindseed.ops.operations import MapUniform  # noqa: E402,F401
