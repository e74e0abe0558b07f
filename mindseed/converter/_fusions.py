"""Layers that exporters write as several elementwise nodes, found by matching expression trees: GELU (erf and
tanh forms) and LayerNorm (as torch.onnx.export writes it before opset 17, and as mindseed's exporter writes it).

A pattern is a tree `(op, *operands)` matched backwards from the node computing its root. An operand is a lower-case
name (a run-time value; every use of the name must be the same value), an upper-case name (a constant, bound the
same way), a number (a one-element constant equal to it), or a sub-tree; `op:TAG` binds the sub-tree's value to
TAG so that a later `TAG` must be the same value. Add and Mul match in either operand order. Every node of a match
but the root must be read only inside the match.
"""
import numpy as np

_COMMUTATIVE = {"Add", "Mul"}
_SQRT2 = float(np.sqrt(2.0))
_TANH_INNER = ("Tanh", ("Mul", ("Add", "x", ("Mul", ("Mul", ("Mul", "x", "x"), "x"), 0.044715)), 0.7978845608))
_MEAN = ("ReduceMean", "x")
_DEV = ("Sub:D", "x", _MEAN)
_VAR = ("ReduceMean", ("Pow", "D", 2.0))
_VAR_MUL = ("ReduceMean", ("Mul", "D", "D"))

GELU_ERF = [("Mul", ("Mul", "x", ("Add", ("Erf", ("Div", "x", _SQRT2)), 1.0)), 0.5),
            ("Mul", ("Mul", "x", 0.5), ("Add", ("Erf", ("Div", "x", _SQRT2)), 1.0)),
            ("Mul", ("Mul", "x", ("Add", ("Erf", ("Mul", "x", 1 / _SQRT2)), 1.0)), 0.5)]
GELU_TANH = [("Mul", ("Mul", "x", 0.5), ("Add", _TANH_INNER, 1.0)),
             ("Mul", ("Mul", "x", ("Add", _TANH_INNER, 1.0)), 0.5)]
LAYER_NORM = [("Add", ("Mul", ("Div", _DEV, ("Sqrt", ("Add", _VAR, "E"))), "G"), "B"),
              ("Add", ("Mul", ("Mul", _DEV, ("Reciprocal", ("Sqrt", ("Add", _VAR_MUL, "E")))), "G"), "B"),
              ("Add", ("Mul", ("Div", _DEV, ("Sqrt", ("Add", _VAR_MUL, "E"))), "G"), "B")]


class _Matcher:
    def __init__(self, p):
        self.p = p
        self.producer = {out: k for k, node in enumerate(p.graph.nodes) if p.runtime[k] for out in node.outputs}

    def match(self, value, pat, bound, nodes):
        p = self.p
        if isinstance(pat, float):
            return p.is_const(value) and p.consts[value].size == 1 and \
                bool(np.isclose(float(p.consts[value].reshape(-1)[0]), pat, rtol=1e-5, atol=0))
        if isinstance(pat, str):
            if pat in bound:
                return bound[pat] == value
            if pat.islower() == p.is_const(value):
                return False
            bound[pat] = value
            return True
        op, _, tag = pat[0].partition(":")
        if tag and tag in bound:
            return bound[tag] == value
        k = self.producer.get(value)
        if k is None or k in p.done or p.graph.nodes[k].op != op or not self._reduces_last_axis(k):
            return False
        inputs = p.graph.nodes[k].inputs[:len(pat) - 1]
        orders = [pat[1:], pat[1:][::-1]] if op in _COMMUTATIVE else [pat[1:]]
        for operands in orders:
            trial_bound, trial_nodes = dict(bound), set(nodes)
            if all(self.match(v, a, trial_bound, trial_nodes) for v, a in zip(inputs, operands)):
                bound.update(trial_bound)
                nodes |= trial_nodes | {k}
                if tag:
                    bound[tag] = value
                return True
        return False

    def _reduces_last_axis(self, k):
        node = self.p.graph.nodes[k]
        if node.op != "ReduceMean":
            return True
        axes = node.attrs.get("axes")
        if axes is None and len(node.inputs) > 1 and self.p.is_const(node.inputs[1]):
            axes = self.p.consts[node.inputs[1]].reshape(-1).tolist()
        rank = len(self.p.shape(node.inputs[0]))
        return axes is not None and [a % rank for a in axes] == [rank - 1] and node.attrs.get("keepdims", 1) == 1

    def find(self, root, patterns):
        """The bindings and nodes of the first pattern matching at node `root` (read only inside the match)."""
        p = self.p
        for pat in patterns:
            bound, nodes = {}, set()
            if self.match(p.graph.nodes[root].outputs[0], pat, bound, nodes) and self._closed(root, nodes):
                return bound, nodes
        return None

    def _closed(self, root, nodes):
        p = self.p
        for k in nodes - {root}:
            for out in p.graph.nodes[k].outputs:
                if out in p.graph.outputs or any(r not in nodes for r in p.consumers.get(out, [])):
                    return False
        return True


def _layer_norm_consts(p, bound):
    """A LayerNorm's epsilon is one number, its scale and shift one value per element of the last dim."""
    dim = p.shape(bound["x"])[-1]
    return p.consts[bound["E"]].size == 1 and all(
        p.consts[bound[c]].size in (1, dim) and p.consts[bound[c]].shape[-1:] in ((), (1,), (dim,)) and
        p.consts[bound[c]].dtype.kind == "f" for c in "GB")


def find_fusions(p, write_gelu, write_layer_norm):
    """Mark the nodes of every GELU and LayerNorm in `p` done, and return {root node: function writing the
    layer}, the roots taken last to first so that the largest match wins."""
    matcher, found = _Matcher(p), {}
    for k in range(len(p.graph.nodes) - 1, -1, -1):
        if not p.runtime[k] or k in p.done or p.graph.nodes[k].op not in ("Mul", "Add"):
            continue
        for patterns, write in ((GELU_ERF, lambda b, k=k: write_gelu(k, b["x"], False)),
                                (GELU_TANH, lambda b, k=k: write_gelu(k, b["x"], True)),
                                (LAYER_NORM, lambda b, k=k: write_layer_norm(k, b))):
            hit = matcher.find(k, patterns)
            if hit is not None and (patterns is not LAYER_NORM or _layer_norm_consts(p, hit[0])):
                bound, nodes = hit
                p.done.update(nodes - {k})
                found[k] = (write, bound)
                break
    return found
