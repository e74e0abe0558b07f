"""Control flow in the generated C: an IR `If` becomes `if (cond) { then } else { else }`, a `While` a `for (;;)`
loop over its carried values (the condition graph, a `break`, the body graph, the new carried values copied in).

Values computed inside a branch or a loop body live in the arena past the top-level memory plan, each at its own
offset (nothing there is shared: a sub-graph runs many times, and a value of one iteration may be read in the next
through the carried values); a reshape inside one is a view of its input. The carried values live in the While
node's output buffers; a sub-graph's parameters are pointers to them (a While's condition and body) or to the If's
operands. Booleans (comparisons, logical operators, conditions) are stored as floats 0 / 1, so that a Cast of one
to float32 reads the same bytes.
"""
from mindseed.compiler.ir import Const, Var

__all__ = ["COMPARE", "CONTROL", "LOGICAL", "ControlFlow", "drop_invariant_constants"]

_ALIGN = 64
# comparisons and logical operators: their (bool) results are 1.0f / 0.0f
COMPARE = {"Greater": "a > b", "Less": "a < b", "GreaterEqual": "a >= b", "LessEqual": "a <= b", "Equal": "a == b",
           "NotEqual": "a != b"}
LOGICAL = {"LogicalAnd": "a != 0.0f && b != 0.0f", "LogicalOr": "a != 0.0f || b != 0.0f",
           "LogicalNot": "a == 0.0f"}
CONTROL = ("If", "While")


def _substitute(graph, values):
    """Every read of a Var whose id is in `values` (in graph and its sub-graphs) reads values[id] instead."""
    for node in graph.nodes:
        node.inputs = [values.get(x.id, x) if isinstance(x, Var) else x for x in node.inputs]
        for g in node.subgraphs():
            _substitute(g, values)
    graph.outputs = [values.get(x.id, x) if isinstance(x, Var) else x for x in graph.outputs]


def drop_invariant_constants(graph):
    """A While's carried value that starts as a constant and that the body passes on unchanged (MindIR carries the
    weights a loop reads this way) is that constant: its reads in the loop and after it read the constant (a weight
    the kernels pack at generation time), and it is no longer carried. Sub-graphs first."""
    for node in graph.nodes:
        for g in node.subgraphs():
            drop_invariant_constants(g)
        if node.prim.name != "While":
            continue
        cond_g, body_g = node.attrs["cond"], node.attrs["body"]
        keep = [k for k, x in enumerate(node.inputs)
                if not (isinstance(x, Const) and body_g.outputs[k] is body_g.params[k])]
        if len(keep) == len(node.inputs):
            continue
        for k in set(range(len(node.inputs))) - set(keep):
            const = node.inputs[k]
            _substitute(cond_g, {cond_g.params[k].id: const})
            _substitute(body_g, {body_g.params[k].id: const})
            _substitute(graph, {node.outputs[k].id: const})
        for g in (cond_g, body_g):
            g.params = [g.params[k] for k in keep]
        body_g.outputs = [body_g.outputs[k] for k in keep]
        node.inputs = [node.inputs[k] for k in keep]
        node.outputs = [node.outputs[k] for k in keep]


class ControlFlow:
    """The Lowered methods of control flow; `extra_bytes`: the arena past the plan that sub-graph values take."""

    def _bind_sub(self, graph, pointers):
        """Give the sub-graph `graph`'s parameters the C pointers `pointers`, and every value its nodes compute an
        arena offset past the plan (views: their input's)."""
        for p, ptr in zip(graph.params, pointers):
            self.alias[p.id] = ptr
        views = {p.name for p in self._views}
        for node in graph.nodes:
            for k, out in enumerate(node.outputs):
                if k == 0 and node.prim.name in views and isinstance(node.inputs[0], Var):
                    self.alias[out.id] = self.ptr(node.inputs[0])
                else:
                    self.alias[out.id] = f"(A + {self._extra(self._bytes(out)) // 4})"

    def _extra(self, nbytes):
        off = self.plan.peak_bytes + self.extra_bytes
        off = (off + _ALIGN - 1) // _ALIGN * _ALIGN
        self.extra_bytes = off + nbytes - self.plan.peak_bytes
        return off

    @staticmethod
    def _bytes(v):
        n = 4
        for d in v.shape:
            n *= d
        return n

    def _lower_nodes(self, graph):
        for node in graph.nodes:
            self.node = node
            self._lower_node(node)

    def _assign(self, dst, x, n):
        """dst[0..n) = x (a value, a constant array of n elements, or a number)."""
        if isinstance(x, Var) or isinstance(x, Const) and hasattr(x.value, "shape") and self._numel_of(x) == n:
            self.emit(f"memmove({dst}, {self.ptr(x)}, {n} * sizeof(float));")
            return
        literal, _ = self.operand(x)
        self.emit(f"for (long i = 0; i < {n}; i++) {dst}[i] = {literal};")

    def _numel_of(self, x):
        n = 1
        for d in self._shape_of(x):
            n *= d
        return n

    def _condition(self, x):
        """The C truth value of a condition (a value, or a constant)."""
        if isinstance(x, Var):
            return f"{self.ptr(x)}[0] != 0.0f"
        literal, _ = self.operand(x)
        return f"({literal}) != 0.0f"

    def _if(self, node):
        then_g, else_g = node.attrs["then"], node.attrs["else_"]
        outs = [(self.ptr(o), self._numel_of(o)) for o in node.outputs]
        operands = [self.ptr(x) if isinstance(x, Var) else None for x in node.inputs[1:]]
        self.emit(f"if ({self._condition(node.inputs[0])}) {{")
        for g, word in ((then_g, None), (else_g, "} else {")):
            if word:
                self.emit(word)
            self._sub_operands(node, g, node.inputs[1:], operands)
            self._lower_nodes(g)
            for (ptr, n), o in zip(outs, g.outputs):
                self._assign(ptr, o, n)
        self.emit("}")

    def _sub_operands(self, node, graph, values, pointers):
        """Bind graph's parameters to the node's operands (a constant operand is placed in the weights)."""
        ptrs = [p if p is not None else self.ptr(v) for v, p in zip(values, pointers)]
        if len(ptrs) != len(graph.params):
            raise self.error(node, f"the sub-graph {graph.name} takes {len(graph.params)} values, but the node passes "
                                   f"{len(ptrs)}")
        self._bind_sub(graph, ptrs)

    def _while(self, node):
        cond_g, body_g = node.attrs["cond"], node.attrs["body"]
        slots = [(self.ptr(o), self._numel_of(o)) for o in node.outputs]
        for (ptr, n), x in zip(slots, node.inputs):
            self._assign(ptr, x, n)
        staging = [f"(A + {self._extra(4 * n) // 4})" for _, n in slots]
        self._sub_operands(node, cond_g, node.outputs, [p for p, _ in slots])
        self._sub_operands(node, body_g, node.outputs, [p for p, _ in slots])
        self.emit("for (;;) {")
        self._lower_nodes(cond_g)
        self.emit(f"if (!({self._condition(cond_g.outputs[0])})) break;")
        self._lower_nodes(body_g)
        # the new carried values may read the old ones (a swap): all are staged before any is replaced
        for tmp, (_, n), o in zip(staging, slots, body_g.outputs):
            self._assign(tmp, o, n)
        for tmp, (ptr, n) in zip(staging, slots):
            self.emit(f"memcpy({ptr}, {tmp}, {n} * sizeof(float));")
        self.emit("}")
