"""Max pooling before ReLU: `maxpool2x2(relu(c))` computed as `relu(maxpool2x2(c))`, on a quarter of the values.

ReLU is monotone, so the maximum of the rectified window is the rectified maximum: the forward values are
the same. The backward pass `relu_grad(maxpool_grad(r, p, d), r)` (r = relu(c)) becomes
`maxpool_grad(c, p0, relu_grad(d, p))` (p0 = maxpool(c), p = relu(p0)), also with the same values: in a
window whose maximum is positive, the positions holding it (the first in row-major order gets the gradient)
are the same in c and in relu(c), and the ReLU gradient passes there; in a window whose maximum is <= 0 both
forms give zeros. Only a window holding a NaN may route its gradient differently.

So the ReLU and its gradient run on the pooled tensor, 4x smaller (LeNet, VGG-style nets), and the
rectified full-size tensor is not kept for the backward pass (the convolution's output is kept instead).
The rewrite applies when the rectified value is read only by the pool, its gradient and the matching ReLU
gradient, and each pool gradient is read only by that ReLU gradient.
"""
from mindseed.compiler.ir import Node, Var
from mindseed.compiler.passes._util import inner_graphs_first, new_node, uses_of
from mindseed.ops._prims.conv import max_pool_2x2_grad_p, max_pool_2x2_p
from mindseed.ops._prims.core import relu_grad_p, relu_p

__all__ = ["pool_before_relu"]


def _is(x, var):
    return isinstance(x, Var) and x.id == var.id


def _pairs(r, pooled, readers, uses):
    """[(pool gradient, relu gradient)] when every reader of r but the pool is one of such a pair; else None."""
    grads = [n for n in readers if n.prim is max_pool_2x2_grad_p]
    relu_grads = [n for n in readers if n.prim is relu_grad_p]
    if len(grads) + len(relu_grads) != len(readers):
        return None
    pairs = []
    for pg in grads:
        if not (_is(pg.inputs[0], r) and _is(pg.inputs[1], pooled)) or _is(pg.inputs[2], r):
            return None
        g = pg.outputs[0]
        after = uses.get(g.id, ())
        if len(after) != 1 or after[0] is None or after[0].prim is not relu_grad_p:
            return None
        rg = after[0]
        if not (_is(rg.inputs[0], g) and _is(rg.inputs[1], r)):
            return None
        pairs.append((pg, rg))
    if sorted(id(rg) for _, rg in pairs) != sorted(id(n) for n in relu_grads):
        return None
    return pairs


@inner_graphs_first
def pool_before_relu(graph):
    uses = uses_of(graph)
    producer = {out.id: node for node in graph.nodes for out in node.outputs[:1]}
    instead, drop = {}, set()
    for node in graph.nodes:
        if node.prim is not max_pool_2x2_p or not isinstance(node.inputs[0], Var):
            continue
        r, pooled = node.inputs[0], node.outputs[0]
        relu = producer.get(r.id)
        if relu is None or relu.prim is not relu_p or id(relu) in drop or not isinstance(relu.inputs[0], Var):
            continue
        readers = uses.get(r.id, ())
        if any(n is None for n in readers):
            continue
        pairs = _pairs(r, pooled, [n for n in readers if n is not node], uses)
        if pairs is None:
            continue
        c = relu.inputs[0]
        pool = new_node(max_pool_2x2_p, [c], {}, node.loc, "pool")
        raw = pool.outputs[0]
        instead[id(node)] = [pool, Node(relu_p, [raw], {}, [pooled], relu.loc)]
        drop.add(id(relu))
        for pg, rg in pairs:
            dpool = new_node(relu_grad_p, [pg.inputs[2], pooled], {}, rg.loc, "dpool")
            # both take the pool gradient's place: its inputs are ready there, and it came before the ReluGrad
            instead[id(pg)] = [dpool,
                               Node(max_pool_2x2_grad_p, [c, raw, dpool.outputs[0]], {}, [rg.outputs[0]], pg.loc)]
            drop.add(id(rg))
    if instead:
        nodes = []
        for n in graph.nodes:
            if id(n) not in drop:
                nodes.extend(instead.get(id(n), [n]))
        graph.nodes = nodes
    return graph
