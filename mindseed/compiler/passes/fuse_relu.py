"""ReLU without a buffer of its own: `relu(x + y)` as one kernel, and ReLU written over a fresh input.

* `Add(a, b) -> ReLU` where the sum is read by nothing else becomes `AddReLU(a, b)`: one pass over memory
  instead of two (aten's fused CPU kernel; the residual joins of a ResNet). Same values: relu of the same
  float sum.
* `ReLU(x)` where x is the result of a kernel that always returns a new buffer (a convolution, batch norm,
  dense or matmul, an elementwise add/sub/mul) and nothing else reads x becomes `ReLUInplace(x)`, which writes
  into that buffer: no allocation, and the data is still in cache.

A value read by anything else (another node, a sub-graph, the graph's outputs) is left alone. The pass runs
after common-subexpression elimination, which could otherwise give the overwritten buffer a second reader
(the passes after it only remove nodes).
"""
from mindseed.compiler.ir import Node, Var
from mindseed.compiler.passes._util import FLOATS, FRESH, single_use, uses_of
from mindseed.ops._prims.core import add_relu_p, relu_inplace_p

__all__ = ["fuse_relu"]


def fuse_relu(graph):
    for node in graph.nodes:
        for g in node.subgraphs():
            fuse_relu(g)
    uses = uses_of(graph)
    producer = {}
    for node in graph.nodes:
        for k, out in enumerate(node.outputs):
            producer[out.id] = (node, k)
    replace, drop = {}, set()
    for node in graph.nodes:
        if node.prim.name != "ReLU" or len(node.inputs) != 1 or not isinstance(node.inputs[0], Var):
            continue
        x, out = node.inputs[0], node.outputs[0]
        if not single_use(x, uses) or x.id not in producer or x.dtype not in FLOATS:
            continue
        src, k = producer[x.id]
        if k != 0 or id(src) in drop:
            continue
        if src.prim.name == "Add" and len(src.inputs) == 2 and all(
                isinstance(v, Var) and v.shape == out.shape and v.dtype == out.dtype for v in src.inputs):
            replace[id(node)] = Node(add_relu_p, list(src.inputs), {}, [out], node.loc)
            drop.add(id(src))
        elif src.prim.name in FRESH:
            replace[id(node)] = Node(relu_inplace_p, [x], {}, [out], node.loc)
    if replace:
        # each new node takes the ReLU's place (an Add's inputs are ready there too; the ReLU came after it)
        graph.nodes = [replace.get(id(n), n) for n in graph.nodes if id(n) not in drop]
    return graph
