"""Weights folded into the layers that read them, once, when the weights are constants (an inference model: the
Lite runtime binds a loaded model's weights as constants before the passes run).

* `BatchNormInference(Convolution(x, W, b), gamma, beta, mean, var)` becomes `Convolution(x, W', b')` with
  `s = gamma / sqrt(var + eps)`, `W' = W * s` (per output channel) and `b' = (b - mean) * s + beta`;
* `Add(Convolution(x, W, b), c)` with a per-channel constant `c` (a bias added after the convolution, as
  MindSpore's BiasAdd or Conv2d's bias reads in a MindIR file) becomes `Convolution(x, W, b + c)`;
* `MatMul(x, W)` (either `transpose_b`) with a constant 2-d `W`, and the `Add` of a constant bias after it, become
  one `Dense(x, W', b)` with `W'` laid out (out, in) as the kernel reads it: no transpose and no separate
  addition at run time.

The products are computed in float64 and rounded once to the weight's dtype. A value read by anything else
(another node, a sub-graph, an output) is not folded into. Graphs whose weights are inputs (training, `jit`)
have no constant weights and are left unchanged.
"""
import numpy as np

from mindseed import _backend as B
from mindseed.compiler.ir import Const, Node, Var
from mindseed.compiler.passes._util import FLOATS, inner_graphs_first, single_use, uses_of
from mindseed.ops._prims.conv import conv_p
from mindseed.ops._prims.core import add_p, matmul_p
from mindseed.ops._prims.nn import dense_p
from mindseed.ops._prims.nn_norm import batch_norm_infer_p

__all__ = ["fold_weights"]


def _array(x):
    """The numpy value of a constant tensor operand, else None."""
    if not isinstance(x, Const) or not B.is_array(x.value):
        return None
    return B.to_numpy(x.value)


def _const(a, like):
    return Const(B.from_numpy(np.ascontiguousarray(a.astype(B.to_numpy(like.value).dtype)), B.dtype_name(like.value)))


def _is_none(x):
    return x is None or isinstance(x, Const) and x.value is None


def _channel_bias(c, n_out, ndim):
    """A constant added to a (N, C, *spatial) convolution output as a length-C vector, when it is one per channel."""
    if c is None or c.ndim > ndim or c.ndim < 1 or c.size != n_out:
        return None
    shape = (1,) * (ndim - c.ndim) + c.shape      # broadcast against (N, C, *spatial)
    if shape[1] != n_out:
        return None
    return c.reshape(n_out)


class _Folder:
    def __init__(self, graph):
        self.uses = uses_of(graph)
        self.producer = {n.outputs[0].id: n for n in graph.nodes if len(n.outputs) == 1}
        self.replace, self.drop = {}, set()

    def source(self, x, prim):
        """(the graph's node defining x, what it computes now) when that is a node of `prim` and x is read by this
        node only (so it may be folded into); else (None, None)."""
        if not isinstance(x, Var) or not single_use(x, self.uses) or x.dtype not in FLOATS:
            return None, None
        node = self.producer.get(x.id)
        now = self.replace.get(id(node), node)
        if now is None or now.prim is not prim or id(node) in self.drop:
            return None, None
        return node, now

    def fold(self, src, node, new_node):
        """`new_node` (computing node's output) takes node's place; the graph's node src is dropped."""
        self.drop.add(id(src))
        self.replace.pop(id(src), None)
        self.replace[id(node)] = new_node

    def conv_parts(self, src):
        """(W, b or None) of a convolution with constant weights, as numpy arrays; else None."""
        w = _array(src.inputs[1])
        if w is None or w.dtype.kind != "f":
            return None
        b = src.inputs[2] if len(src.inputs) > 2 else None
        if _is_none(b):
            return w, None
        b = _array(b)
        return None if b is None else (w, b)

    def conv_node(self, src, node, w, b):
        return Node(conv_p, [src.inputs[0], _const(w, src.inputs[1]), _const(b, src.inputs[1])], dict(src.attrs),
                    node.outputs, node.loc)


def _fold_batch_norm(f, node):
    orig, src = f.source(node.inputs[0], conv_p)
    parts = f.conv_parts(src) if src is not None else None
    stats = [_array(x) for x in node.inputs[1:5]]
    if parts is None or any(s is None for s in stats) or len(node.inputs) != 5:
        return
    w, b = parts
    gamma, beta, mean, var = (s.astype(np.float64).reshape(-1) for s in stats)
    scale = gamma / np.sqrt(var + float(node.attrs["eps"]))
    if scale.size != w.shape[0]:
        return
    w2 = w.astype(np.float64) * scale.reshape((-1,) + (1,) * (w.ndim - 1))
    b2 = ((b.astype(np.float64) if b is not None else 0.0) - mean) * scale + beta
    f.fold(orig, node, f.conv_node(src, node, w2, b2))


def _fold_add(f, node):
    for k in (0, 1):
        x, c = node.inputs[k], node.inputs[1 - k]
        orig, conv = f.source(x, conv_p)
        if conv is not None:
            parts = f.conv_parts(conv)
            bias = _channel_bias(_array(c), x.shape[1], len(x.shape)) if parts else None
            if bias is not None and node.outputs[0].shape == x.shape:
                w, b = parts
                b2 = bias.astype(np.float64) + (b.astype(np.float64) if b is not None else 0.0)
                f.fold(orig, node, f.conv_node(conv, node, w, b2))
                return
        orig, mm = f.source(x, dense_p)
        bias = _array(c)
        if mm is not None and _is_none(mm.inputs[2]) and bias is not None and bias.ndim == 1 \
                and node.outputs[0].shape == x.shape and bias.shape[0] == x.shape[-1]:
            f.fold(orig, node, Node(dense_p, [mm.inputs[0], mm.inputs[1], _const(bias, mm.inputs[1])], {},
                                    node.outputs, node.loc))
            return


def _matmul_as_dense(node):
    """MatMul(x, constant W) as Dense(x, W laid out (out, in), None), else None."""
    w = _array(node.inputs[1])
    x = node.inputs[0]
    if w is None or w.ndim != 2 or node.attrs.get("transpose_a") or not isinstance(x, Var) or x.shape is None \
            or len(x.shape) != 2 or x.dtype not in FLOATS:
        return None
    if not node.attrs.get("transpose_b"):
        w = w.T
    return Node(dense_p, [x, _const(w, node.inputs[1]), None], {}, node.outputs, node.loc)


@inner_graphs_first
def fold_weights(graph):
    # first every MatMul by a constant weight as a Dense (a later Add of its bias joins it)
    graph.nodes = [(_matmul_as_dense(n) or n) if n.prim is matmul_p else n for n in graph.nodes]
    f = _Folder(graph)
    for node in graph.nodes:
        if node.prim is batch_norm_infer_p:
            _fold_batch_norm(f, node)
        elif node.prim is add_p and len(node.inputs) == 2:
            _fold_add(f, node)
    if f.replace:
        # each folded node takes the place of the node it ends in (its inputs are ready there)
        graph.nodes = [f.replace.get(id(n), n) for n in graph.nodes if id(n) not in f.drop]
    return graph
