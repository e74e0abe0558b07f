"""mindspore.graph.api: the graph-compilation entry points."""
from mindseed._toplevel_runtime import flops_collection, ms_memory_recycle
from mindseed.compiler import jit, jit_class

__all__ = ["ms_memory_recycle", "jit", "jit_class", "flops_collection"]
