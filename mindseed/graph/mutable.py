"""mindspore.graph.mutable: `mutable`, a Python value that a compiled graph takes as a variable."""
from mindseed.compiler import mutable

__all__ = ["mutable"]
