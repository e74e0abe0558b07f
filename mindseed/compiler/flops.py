"""The compiled graphs of this process, and the floating-point work in them (`mindspore.flops_collection`,
`FlopsUtilizationCollector`, `ms_memory_recycle`).

Every jitted function or graph-mode Cell (`jit._Compiled`) is registered here when created; each records the last
graph it compiled. The work counted is MindSpore's: matrix products (MatMul, Dense), convolutions with their two
backprops, and flash attention with its gradient, forward and backward, read from the shapes in the graph.
`hardware` flops add the work done again for recomputation (nodes a `Cell.recompute` re-runs in the backward)."""
import itertools
import math
import weakref

__all__ = []

_COMPILED = weakref.WeakSet()
_order = itertools.count()


def register(compiled):
    _COMPILED.add(compiled)


def note_compiled(compiled, graph):
    """`compiled` has just compiled `graph` (the newest graph of the process)."""
    compiled.last_graph = graph
    compiled.compiled_order = next(_order)


def compiled_functions():
    return list(_COMPILED)


def _shape(v):
    return tuple(getattr(v, "shape", None) or ())


def _per_dim(v, n):
    return list(v) if isinstance(v, (tuple, list)) else [v] * n


def _conv_out(x, w, attrs):
    """The output shape of a convolution of x by a weight shaped w (its gradient's dy may be broadcast)."""
    n = len(x) - 2
    stride, dilation = _per_dim(attrs["stride"], n), _per_dim(attrs["dilation"], n)
    pads = list(attrs["pads"])
    spatial = [(x[2 + i] + pads[2 * i] + pads[2 * i + 1] - dilation[i] * (w[2 + i] - 1) - 1) // stride[i] + 1
               for i in range(n)]
    return (x[0], w[0], *spatial)


def _node_flops(node):
    name, ins, outs = node.prim.name, node.inputs, node.outputs
    if not outs or not ins:
        return 0
    out = _shape(outs[0])
    if name == "MatMul":
        a = _shape(ins[0])
        k = a[-2] if node.attrs.get("transpose_a") else a[-1]
        return 2 * math.prod(out) * k
    if name == "Dense":
        return 2 * math.prod(out) * _shape(ins[0])[-1]
    if name in ("Convolution", "ConvolutionGemm", "ConvolutionPacked", "ConvBackpropInput"):
        return 2 * math.prod(_shape(ins[0]) if name == "ConvBackpropInput" else out) * math.prod(_shape(ins[1])[1:])
    if name == "ConvBackpropFilter":
        w = tuple(node.attrs["weight_shape"])
        return 2 * math.prod(_conv_out(_shape(ins[0]), w, node.attrs)) * math.prod(w[1:])
    if name in ("FlashAttention", "FlashAttentionGrad"):
        q, k = (_shape(ins[0]), _shape(ins[1])) if name == "FlashAttention" else (_shape(ins[1]), _shape(ins[2]))
        per = math.prod(q) * k[-2]          # B * H * T * D * S
        return 4 * per if name == "FlashAttention" else 8 * per
    return 0


def graph_flops(graph):
    """(model flops, hardware flops) of one graph, its control-flow sub-graphs included (each counted once)."""
    model = hardware = 0
    for node in graph.nodes:
        f = _node_flops(node)
        if node.prim.name == "FlashAttentionGrad":
            hardware += f + f // 4      # the attention blocks are recomputed from q, k
        else:
            hardware += f
        if not node.recomputed:
            model += f
        for sub in node.subgraphs():
            m, h = graph_flops(sub)
            model, hardware = model + m, hardware + h
    return model, hardware


def newest(phase=None):
    """The newest compiled `_Compiled` (of a Cell in that phase, 'train' or 'predict', when `phase` is given)."""
    best = None
    for c in _COMPILED:
        if getattr(c, "last_graph", None) is None:
            continue
        if phase is not None:
            cell = c.bound_self
            if getattr(cell, "phase", None) != phase:
                continue
        if best is None or c.compiled_order > best.compiled_order:
            best = c
    return best
