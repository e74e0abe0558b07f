"""Differentiating a compiled function from outside: `ms.grad(ms.jit(f))`, `value_and_grad` of a GRAPH_MODE Cell.

The first differentiated call with an input signature traces one joint graph: f's forward under a tape,
then that tape's backward seeded by cotangent parameters (one per floating output), so the backward is
produced from the same bprop registry (control flow differentiated as control flow, see control.py). The
joint graph is optimized by the pass pipeline and split:

* forward graph: (inputs, captured tensors) -> (outputs, residuals); everything that does not depend on
  the cotangents, so the residuals are exactly the forward values the backward reads (saved-value stacks
  of loops included);
* backward graph: (residuals, cotangents) -> gradients of the requested inputs and weights; one variant
  per set of requested gradients (dead code removed), generated when first needed.

Both are generated code, cached on the jitted function. Each call runs the forward graph and puts one node
on the caller's tapes whose bprop runs the backward graph. When that backward is itself differentiated
(grad of grad from outside), the node's bprop instead calls a jitted function computing the vjp, which
goes through this same mechanism one order up.
"""
import importlib

from mindseed._utils import _state
from mindseed.autograd._tape import Tape, active, backward, is_differentiable
from mindseed.autograd.custom import _UserBprop
from mindseed.autograd.grad import vjp
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.compiler import codegen, passes
from mindseed.compiler.codegen import _free_vars
from mindseed.compiler.control import recording
from mindseed.compiler.dump import dumper
from mindseed.compiler.ir import Graph, Var, verify
from mindseed.compiler.passes.dce import eliminate_dead_code
from mindseed.compiler.trace import GraphBreak, GraphBuilder, ShardedCall, building, tentative
from mindseed.ops._prims import core as P

__all__ = ["call_differentiated"]


class _WatchingTape(Tape):
    """The joint trace's tape: also differentiates the tensors the function reads from outside.

    Those are Parameters and tensors the caller's tapes track (e.g. a closure over a tracked value); they
    become captured inputs of the graph, and their gradients become outputs of the backward graph.
    """

    __slots__ = ("root", "caller_tapes", "external")

    def __init__(self, root, caller_tapes):
        super().__init__()
        self.root = root
        self.caller_tapes = caller_tapes
        self.external = []

    def record(self, prim, args, attrs, out):
        if prim.bprop is not None:
            tracing = _state.tracing
            for a in args:
                if isinstance(a, Tensor) and id(a) not in self.tracked and \
                        (id(a) in self.root._captured_ids or tracing.lookup(a) is None):
                    self.adopt_external(a)
        Tape.record(self, prim, args, attrs, out)

    def adopt_external(self, a):
        """Differentiate `a`, a tensor from outside the function, if it is a weight or the caller tracks it.

        Also called by control.py for the outer tensors an If/While body reads (bodies trace tape-less)."""
        # an integer weight too when the caller differentiates it (MindSpore gives integer Parameters gradients)
        if id(a) not in self.tracked and ((is_differentiable(a) and isinstance(a, Parameter))
                                          or any(tp.is_tracked(a) for tp in self.caller_tapes)):
            self.tracked[id(a)] = a
            self.external.append(a)


_MISSING = object()


class _GradEntry:
    __slots__ = ("fwd", "joint", "arg_tmpl", "n_leaves", "wrt_inputs", "external", "captured", "roots", "out_tmpl",
                 "grad_vars", "residuals", "sens_vars", "bwd_nodes", "variants", "higher", "first", "dump")


def call_differentiated(compiled, args, kwargs):
    """compiled(*args, **kwargs) under the caller's grad tapes: compiled forward, compiled backward."""
    J = importlib.import_module("mindseed.compiler.jit")  # lazily: jit imports us; `compiler.jit` names the function
    tapes = [tp for tp in _state.tapes if not getattr(tp, "records_all", False)]
    leaves = []
    tmpl = J._flatten((args, kwargs), leaves)
    cache = compiled.__dict__.setdefault("_grad_cache", {})
    # integer tensors are differentiated when the caller's tapes track them (MindSpore gives them gradients)
    ints = tuple(i for i, x in enumerate(leaves) if isinstance(x, Tensor) and not is_differentiable(x)
                 and any(tp.is_tracked(x) for tp in tapes))
    key = (J._key_of((args, kwargs)), ints)
    entry = cache.get((key, compiled.mode_key()), _MISSING)
    first = None
    if entry is _MISSING:
        entry = _build(compiled, tmpl, leaves, tapes, J, ints)
        cache[(key, compiled.mode_key())] = entry
        if entry is not None:
            first, entry.first = entry.first, None
    if entry is None:
        # the function cannot be compiled (JIT fallback, warned once): run it in the interpreter under the tapes
        return compiled._target()(*args, **kwargs)
    if first is None:
        raw = [t._data for t in leaves] + [t._data for t, _ in entry.captured]
        outs = codegen.run_profiled(entry.fwd, compiled.name, *raw) if _state.profiling else entry.fwd(*raw)
        n_out = len(outs) - len(entry.residuals)
        first = outs[:n_out], outs[n_out:]
    out_raw, res_raw = first
    out = tuple(Tensor._from_raw(o) for o in out_raw)
    wrt = [leaves[i] for i in entry.wrt_inputs] + entry.external
    if wrt:
        _record(compiled, entry, tapes, leaves, wrt, out, res_raw)
    return J._unflatten(entry.out_tmpl, out)


def _record(compiled, entry, tapes, leaves, wrt, out, res_raw):
    def bprop(*all_args):
        *_, o, dout = all_args
        douts = dout if isinstance(dout, tuple) else (dout,)
        sens = [douts[j] for j in entry.roots]
        outer = [tp for tp in _state.tapes if not getattr(tp, "records_all", False)]
        if outer and any(tp.is_tracked(x) for tp in outer for x in tuple(wrt) + tuple(sens)):
            return tuple(_higher(compiled, entry)(*leaves, *sens))
        mask = tuple(any(tp.is_tracked(x) for tp in tapes) for x in wrt)
        run = entry.variants.get(mask)
        if run is None:
            run = entry.variants[mask] = _backward_variant(compiled.name, entry, mask, entry.dump)
        raw = [*res_raw, *[s._data for s in sens]]
        grads = iter(codegen.run_profiled(run, f"Gradients/{compiled.name}", *raw) if _state.profiling else run(*raw))
        return tuple(Tensor._from_raw(next(grads)) if m else None for m in mask)

    node = _UserBprop(compiled.name, bprop, True)
    args = tuple(wrt)
    for tp in tapes:
        tp.record(node, args, {}, out)


# ---------------------------------------------------------------- building the graphs
def _build(compiled, tmpl, leaves, caller_tapes, J, ints=()):
    target = compiled._target()
    builder = GraphBuilder(compiled.name)
    builder.bytecode = compiled.capture_mode == "bytecode"
    inputs = [Tensor._from_raw(t._data) for t in leaves]
    for x in inputs:
        builder.add_input(x)
    targs, tkwargs = J._unflatten(tmpl, inputs)
    tape = _WatchingTape(builder, caller_tapes)
    wrt_inputs = [i for i, x in enumerate(inputs) if is_differentiable(x) or i in ints]
    for i in wrt_inputs:
        tape.watch(inputs[i])
    saved = list(_state.tapes)
    _state.tapes.clear()   # the caller's tapes see one node for the whole call, recorded afterwards
    updated = {}    # the values the Parameters the trace run updates had before it
    try:
        with building(builder), tentative(), recording(updated):
            with active(tape):
                result = target(*targs, **tkwargs)
            out_leaves = []
            out_tmpl = J._flatten(result, out_leaves)
            roots = [j for j, o in enumerate(out_leaves) if tape.is_tracked(o)]
            sens = []
            for j in roots:
                # the trace needs some cotangent value; the graph takes the real one as a parameter
                s = Tensor._from_raw(out_leaves[j]._data)
                builder.add_input(s, "s")
                sens.append(s)
            ct = backward(tape, [out_leaves[j] for j in roots], sens)
            wrt = [inputs[i] for i in wrt_inputs] + tape.external
            # an input updated in place is differentiated at its original value, which the tape moved elsewhere
            grads = [ct.get(id(tape.moved.get(id(x), x))) for x in wrt]
            grads = [P.zeros_like_p(x) if g is None else g for x, g in zip(wrt, grads)]
    except ShardedCall:
        raise
    except GraphBreak as exc:
        compiled.fall_back(exc, f"the gradient of '{compiled.name}'")
        return None
    finally:
        _state.tapes[:] = saved
        compiled.note_cells(builder)
    graph = builder.graph
    n_in, n_sens = len(inputs), len(sens)
    graph.outputs = [builder.operand(t) for t in out_leaves] + [builder.operand(g) for g in grads]
    in_vars, sens_vars = graph.params[:n_in], graph.params[n_in:n_in + n_sens]
    for _, v in builder.captured:
        graph.add_param(v)
    verify(graph)
    dump = dumper(compiled.name + "_grad")    # save_graphs: the joint graph, then the forward and backward graphs
    graph = passes.run_pipeline(graph, dump=dump)
    entry = _GradEntry()
    entry.dump = dump
    entry.n_leaves = len(leaves)
    entry.arg_tmpl = tmpl
    entry.wrt_inputs = wrt_inputs
    entry.external = list(tape.external)
    entry.captured = builder.captured
    entry.roots = roots
    entry.out_tmpl = out_tmpl
    entry.variants = {}
    entry.higher = None
    entry.joint = graph
    n_out = len(out_leaves)
    out_vars, entry.grad_vars = graph.outputs[:n_out], graph.outputs[n_out:]
    entry.sens_vars = sens_vars
    fwd_params = in_vars + [v for _, v in builder.captured]
    fwd_nodes, entry.bwd_nodes = _split(graph, {v.id for v in entry.sens_vars})
    entry.residuals = _residuals(entry.bwd_nodes, entry.grad_vars, {v.id for v in entry.sens_vars},
                                 _all_vars(graph, {}))
    fwd = Graph(compiled.name + "_forward")
    fwd.params, fwd.nodes, fwd.outputs = fwd_params, fwd_nodes, list(out_vars) + entry.residuals
    verify(fwd)
    source, entry.fwd = codegen.generate(fwd, "forward_fn")
    if dump is not None:
        dump("90_forward", fwd)
        dump("91_forward_codegen", source)
    # the trace run was a real execution: its outputs and residuals serve this first call
    entry.first = None
    known = {}
    for t in builder.keep:
        v = builder.vars.get(id(t))
        if v is not None:
            known[v.id] = t._data
    for t, v in builder.captured:
        known[v.id] = t._data
    if all(v.id in known for v in entry.residuals):
        entry.first = ([o._data for o in out_leaves], [known[v.id] for v in entry.residuals])
    else:
        # the forward code runs this call: the updates of the trace run are its own
        for p, raw in updated.values():
            p._data = raw
        outs = entry.fwd(*[t._data for t in leaves], *[t._data for t, _ in entry.captured])
        entry.first = (outs[:n_out], outs[n_out:])
    return entry


def _reads(node):
    ids = {x.id for x in node.inputs if isinstance(x, Var)}
    for g in node.subgraphs():
        ids |= _free_vars(g)
    return ids


def _split(graph, sens_ids):
    """(forward nodes, backward nodes): a node is backward when it reads, directly or not, a cotangent."""
    tainted = set(sens_ids)
    fwd, bwd = [], []
    for node in graph.nodes:
        if _reads(node) & tainted:
            bwd.append(node)
            tainted.update(o.id for o in node.outputs)
        else:
            fwd.append(node)
    return fwd, bwd


def _residuals(bwd_nodes, grad_vars, sens_ids, all_vars):
    """Forward values (and inputs) the backward nodes or the gradient outputs read, in a stable order."""
    defined = set(sens_ids)
    res, seen = [], set()

    def need(vid):
        if vid not in defined and vid not in seen:
            seen.add(vid)
            res.append(all_vars[vid])
    for node in bwd_nodes:
        for vid in sorted(_reads(node)):
            need(vid)
        defined.update(o.id for o in node.outputs)
    for v in grad_vars:
        if isinstance(v, Var):
            need(v.id)
    return res


def _all_vars(graph, found):
    """id -> Var of every value defined in graph and its sub-graphs."""
    for p in graph.params:
        found[p.id] = p
    for node in graph.nodes:
        for o in node.outputs:
            found[o.id] = o
        for g in node.subgraphs():
            _all_vars(g, found)
    return found


def _backward_variant(name, entry, mask, dump=None):
    """Generated backward code returning only the gradients in mask (what the caller's tapes track)."""
    g = Graph(name + "_backward")
    g.params = list(entry.residuals) + list(entry.sens_vars)
    g.nodes = list(entry.bwd_nodes)
    g.outputs = [v for v, m in zip(entry.grad_vars, mask) if m]
    g = eliminate_dead_code(g)
    verify(g)
    source, run = codegen.generate(g, "backward_fn", scope_prefix="Gradients/")
    if dump is not None:
        bits = "".join("1" if m else "0" for m in mask)
        dump(f"92_backward_{bits}", g)
        dump(f"93_backward_{bits}_codegen", source)
    return run


def _higher(compiled, entry):
    """A jitted function computing this vjp, for when the backward is itself differentiated."""
    if entry.higher is not None:
        return entry.higher
    J = importlib.import_module("mindseed.compiler.jit")
    target = compiled._target()
    n, wrt_inputs, external, roots, arg_tmpl = entry.n_leaves, entry.wrt_inputs, entry.external, entry.roots, \
        entry.arg_tmpl

    def vjp_of_compiled(*xs):
        ins, sens = list(xs[:n]), xs[n:]

        def f(*d):
            full = list(ins)
            for i, v in zip(wrt_inputs, d):
                full[i] = v
            a, k = J._unflatten(arg_tmpl, full)
            flat = []
            J._flatten(target(*a, **k), flat)
            return tuple(flat[j] for j in roots)
        _, pull = vjp(f, *[ins[i] for i in wrt_inputs], weights=external or None)
        g = pull(*sens)
        if external:
            return tuple(g[0]) + tuple(g[1])
        return tuple(g)

    entry.higher = J.jit(vjp_of_compiled)
    return entry.higher
