"""mindspore.graph.jit_config: `JitConfig`, the options of a compiled graph."""
from mindseed.compiler import JitConfig

__all__ = ["JitConfig"]
