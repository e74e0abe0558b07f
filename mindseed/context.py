"""mindspore.context: the execution context and the auto-parallel context under their MindSpore 1.x module path.

Scripts written for MindSpore 1.x say ``from mindspore import context; context.set_context(...)`` and
``from mindspore.context import ParallelMode``; the names live in `mindseed.common`.
"""
from mindseed.common._parallel import (get_auto_parallel_context, reset_auto_parallel_context,  # noqa: F401
                                       set_auto_parallel_context)
from mindseed.common._search_contexts import get_ps_context, set_ps_context  # noqa: F401
from mindseed.common.context import (COMPATIBLE, DEBUG, GRAPH_MODE, LAX, PYNATIVE_MODE, RELEASE,  # noqa: F401
                                     STRICT, ParallelMode, get_context, set_context)

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "STRICT", "COMPATIBLE", "LAX", "RELEASE", "DEBUG", "ParallelMode",
           "set_context", "get_context",
           "set_auto_parallel_context", "get_auto_parallel_context", "reset_auto_parallel_context",
           "set_ps_context", "get_ps_context"]
