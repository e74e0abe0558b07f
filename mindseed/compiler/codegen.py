"""IR -> Python source of direct kernel calls -> a compiled function.

Each node becomes `v12 = k_MatMul(v3, v7, transpose_b=True)` where `k_MatMul` is the primitive's
kernel bound in the function's globals; If/While become Python `if`/`while` on the condition
tensor; every value is `del`eted after its last use so its buffer is freed as early as possible.
What `save_graphs` shows next to the IR is this same text.
"""
import itertools

from mindseed.compiler.ir import IF, WHILE, Const, Sym, Var

__all__ = ["generate"]

_LITERAL_TYPES = (bool, int, float, str, type(None), type(Ellipsis))
_counter = itertools.count()


def _is_literal(v):
    if isinstance(v, Sym):
        return True
    if isinstance(v, _LITERAL_TYPES):
        return not (isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))))
    if isinstance(v, (tuple, list)):
        return all(_is_literal(x) for x in v)
    if isinstance(v, slice):
        return all(_is_literal(x) for x in (v.start, v.stop, v.step))
    return False


def _literal(v):
    if isinstance(v, Sym):
        return v.source()
    if v is Ellipsis:
        return "..."
    if isinstance(v, slice):
        return f"slice({_literal(v.start)}, {_literal(v.stop)}, {_literal(v.step)})"
    if isinstance(v, tuple):
        return "(" + "".join(_literal(x) + ", " for x in v) + ")"
    if isinstance(v, list):
        return "[" + ", ".join(_literal(x) for x in v) + "]"
    return repr(v)


class _Emitter:
    def __init__(self, dynamic=False):
        self.dynamic = dynamic
        self.globals = {}
        self._bound = {}

    def bind(self, value, hint):
        key = id(value)
        name = self._bound.get(key)
        if name is None:
            name = f"{hint}{next(_counter)}"
            self.globals[name] = value
            self._bound[key] = name
        return name

    def kernel(self, prim):
        return self.bind(prim.kernel, f"k_{prim.name}_")

    def operand(self, x, names):
        if isinstance(x, Var):
            return names[x.id]
        value = x.value if isinstance(x, Const) else x
        if _is_literal(value):
            return _literal(value)
        return self.bind(value, "c")

    def attr(self, v):
        return _literal(v) if _is_literal(v) else self.bind(v, "a")

    # ------------------------------------------------------------ graphs
    def function(self, graph, fname, names, indent):
        names = dict(names)
        params = []
        for i, p in enumerate(graph.params):
            names[p.id] = f"{fname}_p{i}" if indent else f"p{i}"
            params.append(names[p.id])
        extra = ["_d=()"] if self.dynamic and not indent else []   # dynamic dims, read by Sym values
        lines = [f"{indent}def {fname}({', '.join(params + extra)}):"]
        body = self.block(graph, names, indent + "    ")
        lines.extend(body)
        outs = [self.operand(o, names) for o in graph.outputs]
        lines.append(f"{indent}    return ({''.join(o + ', ' for o in outs)})")
        return lines

    def block(self, graph, names, indent):
        last_use = _last_uses(graph)
        outputs = {o.id for o in graph.outputs if isinstance(o, Var)}
        local = {p.id for p in graph.params}
        lines = []
        for i, node in enumerate(graph.nodes):
            for o in node.outputs:
                names[o.id] = f"v{o.id}"
                local.add(o.id)
            if node.prim is IF:
                lines.extend(self._if(node, names, indent))
            elif node.prim is WHILE:
                lines.extend(self._while(node, names, indent))
            else:
                lines.append(indent + self._apply(node, names) + (f"  # {node.loc}" if node.loc else ""))
            dead = [v for v, at in last_use.items() if at == i and v in local and v not in outputs]
            if dead:
                lines.append(indent + "del " + ", ".join(names[v] for v in sorted(dead)))
        if not graph.nodes:
            lines.append(indent + "pass")
        return lines

    def _apply(self, node, names):
        args = [self.operand(x, names) for x in node.inputs]
        args += [f"{k}={self.attr(v)}" for k, v in node.attrs.items()]
        call = f"{self.kernel(node.prim)}({', '.join(args)})"
        outs = [names[o.id] for o in node.outputs]
        if not outs:
            return call
        if node.prim.multi_output:
            return f"{''.join(o + ', ' for o in outs)}= {call}" if outs else call
        return f"{outs[0]} = {call}"

    def _if(self, node, names, indent):
        uid = next(_counter)
        then_g, else_g = node.attrs["then"], node.attrs["else_"]
        lines = self.function(then_g, f"then{uid}", names, indent)
        lines += self.function(else_g, f"else{uid}", names, indent)
        cond = self.operand(node.inputs[0], names)
        ops = ", ".join(self.operand(x, names) for x in node.inputs[1:])
        outs = "".join(names[o.id] + ", " for o in node.outputs)
        lhs = f"{outs}= " if outs else ""
        lines.append(f"{indent}if {cond}:")
        lines.append(f"{indent}    {lhs}then{uid}({ops})")
        lines.append(f"{indent}else:")
        lines.append(f"{indent}    {lhs}else{uid}({ops})")
        return lines

    def _while(self, node, names, indent):
        uid = next(_counter)
        cond_g, body_g = node.attrs["cond"], node.attrs["body"]
        lines = self.function(cond_g, f"cond{uid}", names, indent)
        lines += self.function(body_g, f"body{uid}", names, indent)
        carried = [f"w{uid}_{k}" for k in range(len(node.inputs))]
        cs = "".join(c + ", " for c in carried)
        init = ", ".join(self.operand(x, names) for x in node.inputs)
        if carried:
            lines.append(f"{indent}{cs}= ({init}, )")
        lines.append(f"{indent}while cond{uid}({', '.join(carried)})[0]:")
        if carried:
            lines.append(f"{indent}    {cs}= body{uid}({', '.join(carried)})")
        else:
            lines.append(f"{indent}    body{uid}()")
        outs = "".join(names[o.id] + ", " for o in node.outputs)
        if outs:
            lines.append(f"{indent}{outs}= ({cs})")
        return lines


def _last_uses(graph):
    """var id -> index of the last node in `graph` that reads it (reads by sub-graphs count at their node)."""
    last = {}
    for i, node in enumerate(graph.nodes):
        for x in node.inputs:
            if isinstance(x, Var):
                last[x.id] = i
        for g in node.subgraphs():
            for vid in _free_vars(g):
                last[vid] = i
    return last


def _free_vars(graph):
    defined = {p.id for p in graph.params}
    free = set()
    for node in graph.nodes:
        for x in node.inputs:
            if isinstance(x, Var) and x.id not in defined:
                free.add(x.id)
        for g in node.subgraphs():
            free |= {v for v in _free_vars(g) if v not in defined}
        defined |= {o.id for o in node.outputs}
    for o in graph.outputs:
        if isinstance(o, Var) and o.id not in defined:
            free.add(o.id)
    return free


def generate(graph, name="graph_fn", dynamic=False):
    """(python source, compiled function) for a graph; the function takes and returns backend tensors
    (and, when `dynamic`, the keyword `_d`: the dynamic input dims that Sym values are computed from)."""
    em = _Emitter(dynamic)
    lines = em.function(graph, name, {}, "")
    source = "\n".join(lines) + "\n"
    namespace = dict(em.globals)
    code = compile(source, f"<mindseed-graph {graph.name}>", "exec")
    exec(code, namespace)  # noqa: S102 -- our own generated source
    return source, namespace[name]
