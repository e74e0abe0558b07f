"""`mindspore.mint.nn.layer.conv` (MindSpore's module path; the same Cells as mint.nn)."""
from mindseed.mint.nn.layer import (Conv1d, Conv2d, Conv3d, ConvTranspose2d)

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose2d"]
