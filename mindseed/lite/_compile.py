"""A loaded model compiled for inference: weights bound as constants and folded, a static memory plan, and one
generated function per input signature that calls only kernels.

`compile_model(cell, args)` traces the model (the `@ms.jit` trace, `fullgraph`), binds every weight it read as a
constant, and runs `INFERENCE_PASSES`: algebra and constant folding (reshapes and transposes of weights happen
now), `fold_weights` (batch norms and bias additions into convolutions, MatMul + bias as one Dense with its
weight laid out as the kernel reads it), then the usual fusion, in-place and scheduling passes. The generated
code is what runs at `predict`: no signature lookup, no tensor wrappers, no autodiff state.
"""
import time

import numpy as np

from mindseed import _backend as B
from mindseed.common.tensor import Tensor
from mindseed.compiler import codegen, passes
from mindseed.compiler.ir import Const, Var
from mindseed.compiler.jit import trace_graph
from mindseed.compiler.passes._util import single_use, substitute, uses_of
from mindseed.compiler.passes.fold_weights import fold_weights
from mindseed._backend.kernels import conv as K
from mindseed.ops._prims.conv import conv_gemm_p, conv_p, conv_packed_p
from mindseed.ops._prims.core import relu_inplace_p, relu_p
from mindseed.ops._registry import registry

__all__ = ["CompiledModel", "MemoryPlan", "compile_model", "inference_graph", "fuse_relu_into", "INFERENCE_PASSES"]

# the pipeline's passes after the weights became constants (prune_unused_parameters is left out: every model
# input stays an argument of the generated function, read or not)
INFERENCE_PASSES = [passes.simplify_algebra, passes.fold_constants, fold_weights, passes.fold_constants] + \
    [p for p in passes.PIPELINE if p.__name__ not in ("simplify_algebra", "fold_constants", "prune_unused_parameters")]

_ITEMSIZE = {"Float64": 8, "Int64": 8, "UInt64": 8, "Complex64": 8, "Complex128": 16, "Float32": 4, "Int32": 4,
             "UInt32": 4, "Float16": 2, "BFloat16": 2, "Int16": 2, "UInt16": 2, "Int8": 1, "UInt8": 1, "Bool": 1}
_ALIGN = 64


class MemoryPlan:
    """Where each activation of the top-level graph lives in one arena, from the values' lifetimes.

    Every node output is a buffer live from the node that writes it to the last node that reads it (a graph
    output to the end); an in-place node's output is its first input's buffer. Buffers are placed greedily,
    largest first, at the lowest 64-byte-aligned offset that no buffer alive at the same time occupies (the
    arena planner of TFLite / MindSpore Lite). `peak_bytes` is the arena's size, `total_bytes` the sum of all
    activations (what keeping every value would take), `buffers` [(var id, offset, size, first, last)], `owner`
    {var id: the var id of the buffer holding it}. `views`: more primitives whose output is their first input's
    buffer (the C code generator's reshapes). `sizes`: {var id: bytes} for values stored in another size than their
    shape says (the C code generator's blocked layout, per image). `loops`: (first, last) node index ranges that run
    once per image: a buffer alive across one's boundary is kept for the whole range.
    """

    def __init__(self, graph, views=(), sizes=None, loops=()):
        self.buffers = []
        in_place = {p.inplace for p in registry.values() if getattr(p, "inplace", None) is not None} | set(views)
        owner, life, size = {}, {}, {}
        end = len(graph.nodes)
        for i, node in enumerate(graph.nodes):
            for x in node.inputs:
                if isinstance(x, Var) and owner.get(x.id, x.id) in life:
                    life[owner[x.id]][1] = i
            for g in node.subgraphs():
                for vid in codegen._free_vars(g):
                    if owner.get(vid, vid) in life:
                        life[owner[vid]][1] = i
            for k, out in enumerate(node.outputs):
                src = node.inputs[0] if k == 0 and node.prim in in_place and node.inputs else None
                if isinstance(src, Var) and owner.get(src.id, src.id) in life:
                    owner[out.id] = owner.get(src.id, src.id)
                    continue
                owner[out.id] = out.id
                life[out.id] = [i, i]
                size[out.id] = _aligned(sizes[out.id]) if sizes and out.id in sizes else _nbytes(out)
        for o in graph.outputs:
            if isinstance(o, Var) and owner.get(o.id, o.id) in life:
                life[owner[o.id]][1] = end
        for a, b in loops:
            for span in life.values():
                if span[0] <= b and span[1] >= a and not a <= span[0] <= span[1] <= b:
                    span[0], span[1] = min(span[0], a), max(span[1], b)
        placed = []
        for vid in sorted(life, key=lambda v: (-size[v], life[v][0])):
            first, last = life[vid]
            offset = 0
            for p_off, p_size, p_first, p_last in sorted((b[1], b[2], b[3], b[4]) for b in placed):
                if p_last < first or p_first > last:
                    continue    # not alive at the same time
                if offset + size[vid] <= p_off:
                    break
                offset = max(offset, _aligned(p_off + p_size))
            placed.append((vid, offset, size[vid], first, last))
        self.buffers = sorted(placed, key=lambda b: b[3])
        self.owner = owner
        self.total_bytes = sum(size.values())
        self.peak_bytes = max((b[1] + b[2] for b in placed), default=0)

    def __repr__(self):
        return (f"MemoryPlan({len(self.buffers)} activations: planned arena {self.peak_bytes} bytes, "
                f"sum of all activations {self.total_bytes} bytes)")


def _aligned(n):
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def _nbytes(var):
    shape = var.shape or ()
    n = 1
    for d in shape:
        n *= d if isinstance(d, int) else 1
    return _aligned(n * _ITEMSIZE.get(str(var.dtype), 8))


class CompiledModel:
    """The generated function of one input signature (`run(*backend tensors) -> tuple`), its source, graph and
    memory plan."""

    def __init__(self, graph, source, run, plan):
        self.graph, self.source, self.run, self.plan = graph, source, run, plan


def compile_model(cell, args):
    """Trace `cell` on `args` (Tensors) and compile it for inference (see the module's doc)."""
    graph = inference_graph(cell, args)
    choose_kernels(graph, [a._data for a in args])
    graph.outputs = [o if isinstance(o, Var) else _as_tensor(o) for o in graph.outputs]
    source, run = codegen.generate(graph, "predict")
    return CompiledModel(graph, source, run, MemoryPlan(graph))


def inference_graph(cell, args):
    """`cell` traced on `args` (Tensors), its weights bound as constants, after `INFERENCE_PASSES`."""
    entry = trace_graph(cell, args, pipeline=[])
    graph = entry.graph
    n_in = len(graph.params) - len(entry.captured)
    if n_in != len(args):
        raise ValueError(f"For 'Model.predict', the model's {len(args)} inputs must be distinct tensors.")
    consts = {var.id: Const(t._data) for (t, _), var in zip(entry.captured, graph.params[n_in:])}
    graph.params = graph.params[:n_in]
    substitute(graph, consts)
    return passes.run_pipeline(graph, pipeline=INFERENCE_PASSES)


def choose_kernels(graph, args):
    """Each float32 2-d convolution runs the fastest of oneDNN's convolution, the same with its weight packed once
    into oneDNN's blocked layout (and a ReLU after it fused), and im2col + matmul, measured now: the graph runs
    once on `args` (backend tensors), node by node, and at each convolution the kernels are timed on the input it
    really gets (its shape and memory layout). Tiny batch-1 convolutions are 2-3x faster as one matrix product,
    batched ones through oneDNN. Tuning stops at the first control-flow node."""
    env = {p.id: B.clone(a) for p, a in zip(graph.params, args)}

    def value(x):
        return env[x.id] if isinstance(x, Var) else x.value if isinstance(x, Const) else x
    for node in graph.nodes:
        if node.subgraphs() or not all(not isinstance(x, Var) or x.id in env for x in node.inputs):
            break
        inputs = [value(x) for x in node.inputs]
        x = node.inputs[0] if node.inputs else None
        if node.prim is conv_p and isinstance(x, Var) and x.dtype == "Float32" and len(x.shape or ()) == 4 \
                and isinstance(node.inputs[1], Const):
            inputs = _choose_convolution(node, inputs)
        out = node.prim.kernel(*inputs, **node.attrs)
        for var, o in zip(node.outputs, out if node.prim.multi_output else (out,)):
            env[var.id] = o
    fuse_relu_into(graph, (conv_packed_p,))


def _choose_convolution(node, inputs):
    """Time the convolution kernels on the node's real inputs; rewrite the node to the fastest; its inputs."""
    choices = [(conv_p, inputs), (conv_gemm_p, inputs)]
    packed = K.pack_conv_weight(inputs[1], B.shape_of(inputs[0]), **node.attrs)
    if packed is not None:
        choices.append((conv_packed_p, [inputs[0], packed] + inputs[2:]))
    prim, best = min(choices, key=lambda c: _time(c[0].kernel, c[1], node.attrs))
    node.prim = prim
    if prim is conv_packed_p:
        node.inputs = [node.inputs[0], Const(packed)] + node.inputs[2:]
    return best


def fuse_relu_into(graph, prims):
    """A ReLU whose only input is the output of a node of `prims` (read by nothing else) runs inside that node
    (its attribute `relu=True`)."""
    uses = uses_of(graph)
    producer = {n.outputs[0].id: n for n in graph.nodes if n.prim in prims and len(n.outputs) == 1}
    drop = set()
    for node in graph.nodes:
        x = node.inputs[0] if node.inputs else None
        if node.prim not in (relu_p, relu_inplace_p) or not isinstance(x, Var) or x.id not in producer \
                or not single_use(x, uses):
            continue
        conv = producer[x.id]
        conv.attrs = dict(conv.attrs, relu=True)
        conv.outputs = node.outputs
        drop.add(id(node))
    graph.nodes = [n for n in graph.nodes if id(n) not in drop]


def _time(kernel, inputs, attrs, runs=5, clock=time.perf_counter):
    kernel(*inputs, **attrs)
    best = float("inf")
    for _ in range(runs):
        t = clock()
        kernel(*inputs, **attrs)
        best = min(best, clock() - t)
    return best


def _as_tensor(value):
    """An output that folded to a constant, as a constant tensor operand."""
    v = value.value if isinstance(value, Const) else value
    return Const(v if B.is_array(v) else Tensor(np.asarray(v))._data)

