"""ReLU of a sum as one kernel: `Add(a, b) -> ReLU` where the sum is read by nothing else becomes `AddReLU(a, b)`:
one pass over memory instead of two (aten's fused CPU kernel; the residual joins of a ResNet). Same values:
relu of the same float sum. (A ReLU over another fresh buffer is written over it by `write_in_place`.)

A value read by anything else (another node, a sub-graph, the graph's outputs) is left alone. The pass runs
after common-subexpression elimination, which could otherwise give the sum a second reader (the passes after
it only remove nodes or write in place).
"""
from mindseed.compiler.ir import Node, Var
from mindseed.compiler.passes._util import FLOATS, inner_graphs_first, single_use, uses_of
from mindseed.ops._prims.core import add_p, add_relu_p, relu_p

__all__ = ["fuse_relu"]


@inner_graphs_first
def fuse_relu(graph):
    uses = uses_of(graph)
    producer = {}
    for node in graph.nodes:
        for k, out in enumerate(node.outputs):
            producer[out.id] = (node, k)
    replace, drop = {}, set()
    for node in graph.nodes:
        if node.prim is not relu_p or len(node.inputs) != 1 or not isinstance(node.inputs[0], Var):
            continue
        x, out = node.inputs[0], node.outputs[0]
        if not single_use(x, uses) or x.id not in producer or x.dtype not in FLOATS:
            continue
        src, k = producer[x.id]
        if k != 0 or id(src) in drop:
            continue
        if src.prim is add_p and len(src.inputs) == 2 and all(
                isinstance(v, Var) and v.shape == out.shape and v.dtype == out.dtype for v in src.inputs):
            replace[id(node)] = Node(add_relu_p, list(src.inputs), {}, [out], node.loc)
            drop.add(id(src))
    if replace:
        # each new node takes the ReLU's place (an Add's inputs are ready there too; the ReLU came after it)
        graph.nodes = [replace.get(id(n), n) for n in graph.nodes if id(n) not in drop]
    return graph
