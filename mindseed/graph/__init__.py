"""mindspore.graph: graph compilation's extension points (custom passes and backends, op wrappers and custom
inferences) and the modules of graph compilation's API (`graph.api`, `graph.jit_config`, `graph.mutable`, ...)."""
from mindseed.graph import api, jit_config, lazy_inline, mutable, no_inline, symbol  # noqa: F401
from mindseed.graph.custom_backend import register_custom_backend
from mindseed.graph.custom_infer import clear_op_infer, clear_op_wrapper, register_op_infer, register_op_wrapper
from mindseed.graph.custom_pass import CustomPassType, register_custom_pass

__all__ = ["register_custom_pass", "register_custom_backend", "register_op_infer", "register_op_wrapper",
           "clear_op_infer", "clear_op_wrapper", "CustomPassType"]
