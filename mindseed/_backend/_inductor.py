"""jit_level="O1": a generated graph function handed to torch's inductor, which fuses its elementwise and
reduction chains (BatchNorm statistics, activation + bias, optimizer arithmetic) into generated C++/Triton
loops and calls the same extern kernels (convolution, matmul) for the rest.

The function the compiler generates is straight-line code over backend tensors: no tape, no Tensor
wrappers, every node one kernel call. Dynamo therefore traces it without guards on mindseed's own Python
objects. Opaque Python steps inside a graph (`PyCall` nodes: optimizers written against the Tensor API,
`print`, run-time assertions) stay in the interpreter: their kernel is excluded from tracing, so the graph
splits around them.

Compile time is seconds, not milliseconds, which is why O0 (plain generated code) is the default.
"""
import functools

import torch

from mindseed._backend._kernels.core import py_call

__all__ = ["compile_graph", "opaque"]


@functools.lru_cache(maxsize=None)
def _dynamo():
    import torch._dynamo  # noqa: PLC0415 -- heavy; only for O1
    torch._dynamo.config.cache_size_limit = max(torch._dynamo.config.cache_size_limit, 64)
    return torch._dynamo


def opaque(kernel):
    """`kernel` as a call inductor does not trace into (it runs eagerly between compiled regions)."""
    return _dynamo().disable(kernel, recursive=True)


def compile_graph(fn):
    """fn (a generated graph function; its own globals hold the kernels it calls) compiled by inductor.

    Its `py_call` kernels (opaque Python steps) are replaced by versions dynamo does not trace.
    """
    g = fn.__globals__
    for name, value in list(g.items()):
        if value is py_call:
            g[name] = opaque(value)
    _dynamo()
    return torch.compile(fn, backend="inductor", dynamic=False, fullgraph=False)
