"""mindspore.graph.no_inline: `no_inline`, the hint that a function's graph is called rather than inlined."""
from mindseed._toplevel import no_inline

__all__ = ["no_inline"]
