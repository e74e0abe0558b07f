"""Summed gradients of several reads of one tensor by basic indices, built in one buffer.

`q, k, v = qkv[0], qkv[1], qkv[2]` differentiates to three `IndexAddGrad` nodes (zeros of qkv's shape with one
slice written) added together: three full-size fills and two full-size additions. An `Add` of two such
gradients (basic indices: ints, forward slices, None, Ellipsis; same shape and dtype; each used only by that
`Add`) becomes one `IndexAddGradN` node, which fills one buffer and adds each cotangent into its view; chains
of Adds merge step by step. Same numbers: every element is the same sum of the same values.

When the merged gradient is only read through a Transpose (the backward of `qkv.reshape(B, T, 3, H, D)
.permute(2, 0, 3, 1, 4)`), its buffer is laid out in the transposed order, so the Transpose and the Reshape
back to (B, T, 3 * H * D) after it are views instead of a 3 * B * T * H * D copy.
"""
from mindseed._backend.kernels.core import _basic_index
from mindseed.compiler.ir import Node, Var
from mindseed.compiler.passes._util import inner_graphs_first, uses_of
from mindseed.ops._prims.core import add_p, index_add_grad_n_p, index_add_grad_p, transpose_p

__all__ = ["merge_index_grads"]


@inner_graphs_first
def merge_index_grads(graph):
    uses = uses_of(graph)
    terms = {}      # var id -> (cotangents, indices, node) of an index gradient that may merge
    replace, drop = {}, set()
    for node in graph.nodes:
        if node.prim is index_add_grad_p and _basic_index(node.attrs["index"]):
            terms[node.outputs[0].id] = ([node.inputs[0]], [node.attrs["index"]], node)
            continue
        if node.prim is not add_p or len(node.inputs) != 2:
            continue
        a, b = node.inputs
        if not (isinstance(a, Var) and isinstance(b, Var) and a.id in terms and b.id in terms and a.id != b.id):
            continue
        (da, ia, na), (db, ib, nb) = terms[a.id], terms[b.id]
        out = node.outputs[0]
        if len(uses.get(a.id, ())) != 1 or len(uses.get(b.id, ())) != 1 or na.attrs["shape"] != nb.attrs["shape"] \
                or not a.shape == b.shape == out.shape or not a.dtype == b.dtype == out.dtype:
            continue
        merged = Node(index_add_grad_n_p, da + db, {"shape": na.attrs["shape"], "indices": tuple(ia + ib)},
                      [out], node.loc)
        replace[id(node)] = merged
        drop.update((id(na), id(nb)))
        terms[out.id] = (da + db, ia + ib, merged)
    if replace:
        graph.nodes = [replace.get(id(n), n) for n in graph.nodes if id(n) not in drop]
        _lay_out_for_transpose(graph)
    return graph


def _lay_out_for_transpose(graph):
    uses = uses_of(graph)
    for node in graph.nodes:
        if node.prim is not index_add_grad_n_p:
            continue
        readers = uses.get(node.outputs[0].id, ())
        if len(readers) == 1 and readers[0] is not None and readers[0].prim is transpose_p:
            perm = tuple(readers[0].attrs["perm"])
            if sorted(perm) == list(range(len(node.attrs["shape"]))):
                node.attrs["order"] = perm
