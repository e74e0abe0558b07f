"""numpy data types MindSpore adds: `bfloat16` (ml_dtypes' numpy bfloat16, when that package is installed)."""
try:
    from ml_dtypes import bfloat16  # noqa: F401
except ImportError:  # NOTE: without ml_dtypes numpy has no bfloat16, as MindSpore without its np_dtypes
    __all__ = []
else:
    __all__ = ["bfloat16"]
