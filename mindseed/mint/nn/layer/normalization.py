"""`mindspore.mint.nn.layer.normalization` (MindSpore's module path; the same Cells as mint.nn)."""
from mindseed.mint.nn.layer import BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, LayerNorm, SyncBatchNorm

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "LayerNorm", "SyncBatchNorm"]
