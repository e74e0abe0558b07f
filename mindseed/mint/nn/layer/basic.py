"""`mindspore.mint.nn.layer.basic` (MindSpore's module path; the same Cells as mint.nn)."""
from mindseed.mint.nn.layer import Flatten

__all__ = ["Flatten"]
