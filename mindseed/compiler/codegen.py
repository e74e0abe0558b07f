"""IR -> Python source of direct kernel calls -> a compiled function.

Each node becomes `v12 = k_MatMul(v3, v7, transpose_b=True)` where `k_MatMul` is the primitive's
kernel bound in the function's globals; If/While become Python `if`/`while` on the condition
tensor; every value is `del`eted after its last use so its buffer is freed as early as possible.
What `save_graphs` shows next to the IR is this same text.
"""
import itertools
from time import perf_counter_ns as _now

from mindseed._utils import _state
from mindseed.compiler.ir import IF, WHILE, Const, Sym, Var

__all__ = ["generate", "profiled", "run_profiled"]

_profiling = _state.profiling

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
    def __init__(self, dynamic=False, timed=False, scope_prefix=""):
        self.dynamic = dynamic
        self.scope_prefix = scope_prefix
        self.timed = timed        # kernels report their times to the profiler (see `profiled`)
        self.op_count = 0
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

    def timed_kernel(self, node):
        """A kernel that reports its time to the active profiler under the node's full name (profiled twin)."""
        scope = getattr(node.loc, "scope", "Default")
        name = f"{self.scope_prefix}{scope}/{node.prim.name}-op{self.op_count}"
        self.op_count += 1
        return self.bind(_timed(node.prim.kernel, node.prim.name, name), f"k_{node.prim.name}_")

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
        kernel = self.timed_kernel(node) if self.timed else self.kernel(node.prim)
        call = f"{kernel}({', '.join(args)})"
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


def generate(graph, name="graph_fn", dynamic=False, timed=False, scope_prefix=""):
    """(python source, compiled function) for a graph; the function takes and returns backend tensors
    (and, when `dynamic`, the keyword `_d`: the dynamic input dims that Sym values are computed from).
    `timed`: each kernel reports its time to the active profiler (the twin `profiled` builds), its name's scope
    prefixed by `scope_prefix` ("Gradients/" for a backward graph)."""
    em = _Emitter(dynamic, timed, scope_prefix)
    lines = em.function(graph, name, {}, "")
    source = "\n".join(lines) + "\n"
    namespace = dict(em.globals)
    code = compile(source, f"<mindseed-graph {graph.name}>", "exec")
    exec(code, namespace)  # noqa: S102 -- our own generated source
    fn = namespace[name]
    if not timed:
        fn.__ms_graph__ = (graph, name, dynamic, scope_prefix)
    return source, fn


def profiled(fn):
    """The twin of a generated function whose kernels report their times to the active profiler (`_state.profiling`)
    under MindSpore's full op names ("Default/fc-Dense/MatMul-op0"), generated on the first profiled run and kept.
    A function that is not generated code (an inductor-compiled graph) is timed as a whole by the caller."""
    twin = getattr(fn, "__ms_profiled__", None)
    if twin is None:
        made = getattr(fn, "__ms_graph__", None)
        if made is None:
            return fn
        graph, name, dynamic, prefix = made
        twin = fn.__ms_profiled__ = generate(graph, name, dynamic, timed=True, scope_prefix=prefix)[1]
    return twin


def run_profiled(fn, name, *args, **kwargs):
    """Run a generated graph function under the active profiler: the graph as one event, each kernel as one."""
    return _profiling[-1].run_graph(name, lambda: profiled(fn)(*args, **kwargs))


def _timed(kernel, op_type, name):
    def run(*args, **attrs):
        t0 = _now()
        out = kernel(*args, **attrs)
        if _profiling:
            _profiling[-1].kernel(op_type, name, t0, _now())
        return out
    return run
