"""mindspore.graph.lazy_inline: `lazy_inline`, the hint that a cell's graph is reused rather than inlined."""
from mindseed._toplevel import lazy_inline

__all__ = ["lazy_inline"]
