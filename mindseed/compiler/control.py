"""Run-time helpers of converted code: Python control flow on Python values, graph control flow on tensors.

The parser rewrites `if`, `while`, `for i in range(...)`, `and`/`or`/`not` and `a if c else b` into
these calls. When the deciding value is a Python value (or nothing is being traced) they do what
Python does. When it is a tensor computed inside the graph being traced, they trace the bodies
into sub-graphs and emit one If/While node, so the graph keeps the control flow (its size does not
depend on how many times a loop runs). Gradients flow through If and While nodes by rules recorded on
the active grad tapes: the backward of an If is again an If on the same condition, whose branches
differentiate the corresponding forward branch; a differentiated While pushes its carried values on a
saved-value stack each iteration, and its backward is a While from the last iteration to the first
that re-runs one body at the saved values and applies its vjp (linear time; see docs/compiler.md).
"""
import functools

from mindseed import _backend as B
from mindseed._backend.kernels import stack as KS
from mindseed._utils import _state
from mindseed.autograd import _tape
from mindseed.autograd.grad import vjp
from mindseed.common import dtype as mstype
from mindseed.common.parameter import ParameterTuple
from mindseed.common.tensor import Tensor
from mindseed.compiler.codegen import _free_vars
from mindseed.compiler.ir import IF, WHILE
from mindseed.compiler.trace import GraphBreak, GraphBuilder, building, replay, speculating, user_location
from mindseed.ops._prims import core as P
from mindseed.ops._registry import Prim, RandomDraws

__all__ = ["if_", "while_", "for_range", "and_", "or_", "not_", "ifexp", "UNDEF", "RETVAL", "load", "as_sequence",
           "opaque_call"]


# saved-value stacks of differentiated loops (see _backend/kernels/stack.py); never differentiated themselves
stack_new_p = Prim("StackNew", KS.stack_new, side_effect=True)
stack_push_p = Prim("StackPush", KS.stack_push, side_effect=True)
stack_len_p = Prim("StackLen", KS.stack_len)
stack_get_p = Prim("StackGet", KS.stack_get, multi_output=True)


# > 0 while a graph loop runs eagerly during its trace (for the values the rest of the trace needs): it is the
# graph's first run, so `print` prints as the graph's Print node does
running_loop = [0]


class _Undef:
    """The value of a variable not yet assigned when control flow starts."""

    def __repr__(self):
        return "<undefined>"


UNDEF = _Undef()


class _RetVal(_Undef):
    """The value of a function's result before a `return` inside a loop or nested branch has run (parse.py):
    where control flow on a tensor merges it with a real result, it becomes zeros of that result's shape."""

    def __repr__(self):
        return "<no return value yet>"


RETVAL = _RetVal()


def load(local_vars, name):
    return local_vars.get(name, UNDEF)


def as_sequence(it):
    if isinstance(it, (list, tuple, range)):
        return it
    if isinstance(it, Tensor):
        return [it[i] for i in range(it.shape[0])]
    return list(it)


def _traced(x):
    b = _state.tracing
    return b is not None and isinstance(x, Tensor) and b.is_traced(x)


def _concrete_bool(t):
    return bool(B.item(t._data)) if t.size == 1 else _too_many(t)


def _truth(c):
    return _concrete_bool(c) if isinstance(c, Tensor) else bool(c)


def _too_many(t):
    raise ValueError(f"The truth value of a tensor with {t.size} elements is ambiguous in a condition; "
                     f"use .any() or .all().")


# ---------------------------------------------------------------- boolean operators
def _pick(a, b, take_b_when_true):
    """`a and b` / `a or b` with a a graph tensor: Python's operand choice by a's truth, as a select (both operands
    are graph values: b is traced either way). Bool with a Python bool keeps bool results."""
    from mindseed.ops import functional as F  # noqa: PLC0415 -- ops are below us; imported lazily for speed
    if isinstance(b, bool) and a.dtype == mstype.bool_:
        if take_b_when_true:     # a and True -> a; a and False -> False
            return a if b else F.zeros_like(a)
        return F.ones_like(a) if b else a
    truth = a if a.dtype == mstype.bool_ else F.not_equal(a, 0)
    if not isinstance(b, Tensor):
        b = Tensor(b, a.dtype) if mstype.is_float(a.dtype) and isinstance(b, (int, float)) else Tensor(b)
    return F.where(truth, b, a) if take_b_when_true else F.where(truth, a, b)


def and_(a, b_fn):
    if _traced(a):
        return _pick(a, b_fn(), True)
    return a and b_fn()


def or_(a, b_fn):
    if _traced(a):
        return _pick(a, b_fn(), False)
    return a or b_fn()


def not_(a):
    if _traced(a):
        from mindseed.ops import functional as F  # noqa: PLC0415
        return F.logical_not(a)
    return not a


def ifexp(cond, then_fn, else_fn):
    if _traced(cond):
        return if_(cond, then_fn, else_fn, (), True)
    return then_fn() if cond else else_fn()


# ---------------------------------------------------------------- if
def if_(cond, then_fn, else_fn, vals, returns=False):
    """`then_fn(*vals)` or `else_fn(*vals)` by cond; an If node when cond is a traced tensor."""
    if not _traced(cond):
        return then_fn(*vals) if cond else else_fn(*vals)
    if cond.size != 1:
        _too_many(cond)
    return _graph_if(cond, then_fn, else_fn, vals)


def _flatten(obj, leaves):
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return ("T",)
    if isinstance(obj, (tuple, list)):
        # a ParameterTuple comes back as a tuple: its items are rebuilt as plain Tensors (of the same buffers)
        kind = tuple if isinstance(obj, ParameterTuple) else type(obj)
        return (kind, tuple(_flatten(o, leaves) for o in obj))
    return ("C", obj)


def _unflatten(tmpl, leaves, it=None):
    it = iter(leaves) if it is None else it
    if tmpl[0] == "T":
        return next(it)
    if tmpl[0] == "C":
        return tmpl[1]
    return tmpl[0](_unflatten(t, leaves, it) for t in tmpl[1])


def _tensorize(tmpl_a, tmpl_b, leaves_a, leaves_b, where):
    """Make the two branch results the same structure: differing Python numbers become tensors."""
    if tmpl_a[0] == "T" and tmpl_b[0] == "T":
        return
    if tmpl_a[0] == "C" and tmpl_b[0] == "C":
        if tmpl_a[1] is UNDEF or tmpl_b[1] is UNDEF:
            if tmpl_a[1] is not tmpl_b[1]:
                raise ValueError(f"For 'If' at {where}, a variable is assigned in only one branch of an if on a "
                                 f"tensor; assign it before the if or in both branches.")
        elif tmpl_a[1] != tmpl_b[1] or type(tmpl_a[1]) is not type(tmpl_b[1]):
            raise _Retensorize()
        return
    if tmpl_a[0] in ("T", "C") or tmpl_b[0] in ("T", "C") or tmpl_a[0] is not tmpl_b[0] or \
            len(tmpl_a[1]) != len(tmpl_b[1]):
        if {tmpl_a[0], tmpl_b[0]} == {"T", "C"}:
            raise _Retensorize()
        raise TypeError(f"For 'If' at {where}, the two branches return different structures.")
    for x, y in zip(tmpl_a[1], tmpl_b[1]):
        _tensorize(x, y, leaves_a, leaves_b, where)


class _Retensorize(Exception):
    pass


def _numbers_to_tensors(obj):
    if isinstance(obj, bool):
        return Tensor(obj)
    if isinstance(obj, (int, float)):
        return Tensor(obj)
    if isinstance(obj, (tuple, list)):
        return type(obj)(_numbers_to_tensors(o) for o in obj)
    return obj


class _Branch:
    """One traced body: its sub-graph, outputs and the outer tensors it reads."""

    def __init__(self, parent, fn, vals, name):
        self.builder = GraphBuilder(name, parent=parent)
        self.params = []
        args = []
        for v in vals:
            if isinstance(v, Tensor):
                alias = _alias(v)
                self.builder.add_input(alias)
                args.append(alias)
            else:
                args.append(v)
        self.fn = fn
        self.draws = RandomDraws()      # its dropout masks and noise, which its gradient's re-run must reuse
        with building(self.builder), _tape.paused(), self.draws.active(replaying=False):
            self.result = fn(*args)

    def finish(self, result):
        leaves = []
        tmpl = _flatten(result, leaves)
        self.builder.graph.outputs = [self.builder.operand(t) for t in leaves]
        return tmpl, leaves


def _fill_retval(obj, ref):
    """obj with each RETVAL standing where `ref` holds a value replaced by zeros like that value."""
    if obj is RETVAL:
        if ref is RETVAL or ref is UNDEF:
            return obj
        return _zeros_like_tree(ref)
    if isinstance(obj, (tuple, list)) and isinstance(ref, (tuple, list)) and len(obj) == len(ref):
        return type(obj)(_fill_retval(o, r) for o, r in zip(obj, ref))
    return obj


def _zeros_like_tree(ref):
    if isinstance(ref, Tensor):
        return P.fill_p(shape=tuple(ref.shape), value=0, dtype=ref.dtype.name)
    if isinstance(ref, (tuple, list)):
        return type(ref)(_zeros_like_tree(r) for r in ref)
    if isinstance(ref, (bool, int, float)):
        return type(ref)(0)
    return ref


def _has_retval(obj):
    return obj is RETVAL or isinstance(obj, (tuple, list)) and any(_has_retval(o) for o in obj)


def _fill_in(builder, obj, ref):
    """_fill_retval with the zeros made inside the branch graph of `builder`."""
    if not _has_retval(obj):
        return obj
    with building(builder), _tape.paused():
        return _fill_retval(obj, ref)


def _graph_if(cond, then_fn, else_fn, vals):
    from mindseed.compiler.trace import user_location  # noqa: PLC0415
    parent = _state.tracing
    where = user_location()
    taken_then = _concrete_bool(cond)
    # the taken branch is traced first: an error it raises is this call's error
    first = _Branch(parent, then_fn if taken_then else else_fn, vals, "then" if taken_then else "else")
    try:
        with speculating():
            second = _Branch(parent, else_fn if taken_then else then_fn, vals, "else" if taken_then else "then")
    except GraphBreak:
        raise
    except Exception as exc:  # noqa: BLE001 -- e.g. `raise` in the branch not taken now: decide at run time
        raise GraphBreak(f"a branch of the if at {where} raises {type(exc).__name__} when traced") from exc
    t, e = (first, second) if taken_then else (second, first)
    rt, re_ = t.result, e.result
    # a result not produced yet on one side (a `return` taken only in the other branch) becomes zeros there
    then_ref, else_ref = re_, rt
    rt = _fill_in(t.builder, rt, re_)
    re_ = _fill_in(e.builder, re_, rt)
    lt, le = [], []
    tt, te = _flatten(rt, lt), _flatten(re_, le)
    retensorized = False
    try:
        _tensorize(tt, te, lt, le, where)
    except _Retensorize:
        rt, re_ = _numbers_to_tensors(rt), _numbers_to_tensors(re_)
        retensorized = True
        # the new constant tensors must be produced inside their branch graphs: they are captured constants
    tt, lt = t.finish(rt)
    te, le = e.finish(re_)
    for a, b in zip(lt, le):
        if a.shape != b.shape or a.dtype != b.dtype:
            raise TypeError(f"For 'If' at {where}, the branches return tensors of different shape or dtype: "
                            f"{a.shape} {a.dtype} and {b.shape} {b.dtype}.")
    taken = lt if _concrete_bool(cond) else le
    results = [Tensor._from_raw(x._data) for x in taken]
    operands = [parent.operand(v) for v in vals if isinstance(v, Tensor)]
    params = _pass_out_assigned(t.builder, e.builder)
    differentiated = any(not getattr(tp, "records_all", False) for tp in _state.tapes)
    draw_leaves = _pass_out_draws(t, e) if differentiated else []
    param_outs = [Tensor._from_raw(p._data) for p in params]
    draw_outs = [Tensor._from_raw(x._data) for x in draw_leaves]
    outs = parent.emit(IF, [parent.operand(cond)] + operands, {"then": t.builder.graph, "else_": e.builder.graph},
                       results + param_outs + draw_outs)
    for p, var in zip(params, outs[len(results):]):
        # later reads of a Parameter a branch updated see the If's output, whichever branch ran
        parent.vars[id(p)] = var
        parent.assigned[id(p)] = p
    if draw_leaves:
        # the branches' random draws as values of the enclosing graph, for the re-runs of the gradient
        n_then = len(t.draws.leaves())
        t.draws, e.draws = t.draws.refilled(draw_outs[:n_then]), e.draws.refilled(draw_outs[n_then:])
    _record_if_gradient(cond, then_fn, else_fn, vals, results, t, e, retensorized, then_ref, else_ref)
    return _unflatten(tt if _concrete_bool(cond) else te, results)


def _pass_out_draws(t, e):
    """The random draws of both branches as more outputs of each (zeros on the side that did not draw them), in
    the order then's draws, else's draws; returns the drawing branch's tensors, in that order."""
    leaves = {b: b.draws.leaves() for b in (t, e)}
    for b in (t, e):
        for owner in (t, e):
            for x in leaves[owner]:
                if owner is b:
                    b.builder.graph.outputs.append(b.builder.operand(x))
                else:
                    with building(b.builder), _tape.paused():
                        z = P.fill_p(shape=tuple(x.shape), value=0, dtype=x.dtype.name)
                    b.builder.graph.outputs.append(b.builder.operand(z))
    return leaves[t] + leaves[e]


def _pass_out_assigned(*builders):
    """Parameters updated in some of these sub-graphs: each sub-graph gets one more output, the value the
    Parameter has at its end (its update, or the value from before for a sub-graph that leaves it alone)."""
    params = {}
    for b in builders:
        params.update(b.assigned)
    params = list(params.values())
    for p in params:
        for b in builders:
            if id(p) in b.assigned:
                b.graph.outputs.append(b.vars[id(p)])
            else:
                with building(b), _tape.paused():
                    b.graph.outputs.append(b.operand(P.identity_p(p)))
    return params


def _record_if_gradient(cond, then_fn, else_fn, vals, results, t, e, retensorized, then_ref, else_ref):
    """Put one node on each active grad tape: d(results)/d(operands, weights) is an If of the branch vjps."""
    tapes = [tp for tp in _state.tapes if not getattr(tp, "records_all", False)]
    if not tapes:
        return
    operands = [v for v in vals if isinstance(v, Tensor)]
    pos = [i for i, v in enumerate(vals) if isinstance(v, Tensor)]
    # outer tensors the branches read through closures and that a tape differentiates (e.g. weights)
    free = _tracked_free(tapes, (t.builder.graph, e.builder.graph), t.builder.parent)

    def branch_vjp(fn, ref, draws):
        def run(*args):
            ops_, douts = args[:len(operands)], args[len(operands):]

            def f(*xs):
                full = list(vals)
                for i, x in zip(pos, xs):
                    full[i] = x
                with replay(), draws.active(replaying=True):
                    out = _fill_retval(fn(*full), ref)
                if retensorized:  # the same outputs as the If node: Python numbers there became tensors
                    out = _numbers_to_tensors(out)
                leaves = []
                _flatten(out, leaves)
                return tuple(leaves)
            _, pull = vjp(f, *ops_, weights=free) if ops_ else vjp(lambda: f(), weights=free)
            grads = pull(*douts)
            if free:
                ig, wg = grads
                return tuple(ig) + tuple(wg)
            return tuple(grads)
        return run

    node_args = (cond,) + tuple(operands) + tuple(free)

    pinned = _Pinned(then_fn, else_fn)

    def bprop(*all_args):
        *_, out, dout = all_args
        douts = dout if isinstance(dout, tuple) else (dout,)
        with pinned:
            grads = if_(cond, branch_vjp(then_fn, then_ref, t.draws), branch_vjp(else_fn, else_ref, e.draws),
                        tuple(operands) + tuple(douts), False)
        return (None,) + tuple(grads)

    from mindseed.autograd.custom import _UserBprop  # noqa: PLC0415
    node = _UserBprop("If", bprop, True)
    out = tuple(results)
    for tp in tapes:
        tp.record(node, node_args, {}, out)


class _Pinned:
    """The closure variables a branch or loop body reads, as they were when the forward ran.

    The backward re-runs the body later; by then the enclosing converted function may have rebound a variable
    the body reads through its closure (`if c: (if d: r = x * 10); x = x * 1`). While pinned, the closure cells
    hold their forward-time values again (the objects the vjp differentiates); the current values come back after.
    """

    def __init__(self, *fns):
        self.cells = []
        seen = set()
        for fn in fns:
            self._collect(fn, seen, 0)

    def _collect(self, fn, seen, depth):
        import types  # noqa: PLC0415
        if isinstance(fn, functools.partial):
            fn = fn.func
        if not isinstance(fn, types.FunctionType) or id(fn) in seen or depth > 4:
            return
        seen.add(id(fn))
        for cell in fn.__closure__ or ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            self.cells.append((cell, value))
            self._collect(value, seen, depth + 1)

    def __enter__(self):
        saved = []
        for cell, value in self.cells:
            try:
                saved.append((cell, cell.cell_contents))
            except ValueError:
                saved.append((cell, UNDEF))
            cell.cell_contents = value
        self._saved = getattr(self, "_saved", []) + [saved]

    def __exit__(self, *exc):
        for cell, value in reversed(self._saved.pop()):
            if value is UNDEF:
                del cell.cell_contents
            else:
                cell.cell_contents = value
        return False


# ---------------------------------------------------------------- while
_CONTAINERS = (list, dict, set, bytearray)


def no_container_changes(mutated):
    """Before tracing control flow on a tensor: the values its bodies change in place (`mutated`, the parser's
    thunk of them) must not be Python containers (a list appended to in one branch, or by a loop body traced
    once): their changes cannot follow the run-time condition, so the function runs in the interpreter."""
    if mutated is None:
        return
    try:
        values = mutated()
    except (NameError, AttributeError):
        return
    for name, value in values.items():
        if isinstance(value, _CONTAINERS):
            raise GraphBreak(f"the Python {type(value).__name__} '{name}' is changed under a condition on a tensor "
                             f"(at {user_location()}); graph control flow cannot carry that change")


def while_(cond_fn, body_fn, vals, mutated=None):
    """Run `vals = body_fn(*vals)` while `cond_fn(*vals)`; a While node when the condition is a traced tensor."""
    c = cond_fn(*vals)
    while not _traced(c):
        # a Python condition: the loop unrolls while tracing, until the condition becomes a tensor
        if not c:
            return vals
        vals = body_fn(*vals)
        c = cond_fn(*vals)
    no_container_changes(mutated)
    filled = None
    if any(isinstance(v, _Undef) for v in vals):
        filled = vals = _init_undefined(body_fn, vals)
    if any(isinstance(v, (tuple, list)) for v in vals):
        out = _graph_while_tree(cond_fn, body_fn, vals)
    else:
        out = _graph_while(cond_fn, body_fn, vals)
    if filled is not None:
        # a number the body assigns (a `for` target) stays a Python scalar of the graph, like a loop counter
        for o, r in zip(out, filled):
            if isinstance(r, (bool, int, float)) and isinstance(o, Tensor) and o.ndim == 0:
                _state.tracing.mark_scalar(o)
    return out


def _carriable(x):
    if isinstance(x, (tuple, list)):
        return len(x) > 0 and all(_carriable(e) for e in x)
    return isinstance(x, (Tensor, bool, int, float))


def _init_undefined(body_fn, vals):
    """A loop on a tensor whose body assigns variables unbound before it (the `for` target, a result set by a
    `return` in the loop (RETVAL), a value first computed in the body and read after the loop): trace the body
    once, aside, to learn their structure, and start the loop from zeros of it, so that they are carried."""
    parent = _state.tracing
    probe = GraphBuilder("body", parent=parent)    # "body": speculative, prints nothing now
    args = []
    for v in vals:
        if isinstance(v, Tensor):
            a = _alias(v)
            probe.add_input(a)
            args.append(a)
        else:
            args.append(v)
    with building(probe), _tape.paused(), speculating():
        out = body_fn(*args)
    return tuple(_zeros_like_tree(o) if isinstance(v, _Undef) and _carriable(o) else v for v, o in zip(vals, out))


def _leaves_of(obj, leaves):
    """Template of a carried tuple/list with tensors and Python numbers as leaves (both are carried)."""
    if isinstance(obj, (tuple, list)):
        return (type(obj), tuple(_leaves_of(o, leaves) for o in obj))
    leaves.append(obj)
    return ("L",)


def _rebuild(tmpl, it):
    if tmpl[0] == "L":
        return next(it)
    return tmpl[0](_rebuild(t, it) for t in tmpl[1])


def _graph_while_tree(cond_fn, body_fn, vals):
    """A While carrying tuples/lists (e.g. a `return a, b` value): their leaves are carried one by one."""
    from mindseed.compiler.trace import user_location  # noqa: PLC0415
    tmpls, flat = [], []
    for v in vals:
        if isinstance(v, (tuple, list)):
            leaves = []
            tmpls.append((_leaves_of(v, leaves), len(leaves)))
            flat.extend(leaves)
        else:
            tmpls.append(None)
            flat.append(v)

    def unflat(fl):
        out, k = [], 0
        for tm in tmpls:
            if tm is None:
                out.append(fl[k])
                k += 1
            else:
                out.append(_rebuild(tm[0], iter(fl[k:k + tm[1]])))
                k += tm[1]
        return out

    def flat_out(res):
        fl = []
        for tm, r in zip(tmpls, res):
            if tm is None:
                fl.append(r)
                continue
            leaves = []
            if _leaves_of(r, leaves) != tm[0]:
                raise TypeError(f"For 'While' at {user_location()}, a loop variable changes structure in the loop "
                                f"body.")
            fl.extend(leaves)
        return tuple(fl)
    out = _graph_while(lambda *fl: cond_fn(*unflat(fl)), lambda *fl: flat_out(body_fn(*unflat(fl))), tuple(flat))
    return tuple(unflat(out))


def _alias(v):
    """A fresh handle on v's value for tracing a body; a stack is copied, so the trace run cannot change it."""
    raw = v._data
    return Tensor._from_raw(KS.Stack(raw) if isinstance(raw, KS.Stack) else raw)


def _mark_stacks(builder, tensors):
    """Stack values print as `Stack[]` in the IR (the builder typed them from their tensor-like face)."""
    for t in tensors:
        if isinstance(t._data, KS.Stack):
            var = builder.lookup(t)
            if var is not None:
                var.dtype = "Stack"


def _graph_while(cond_fn, body_fn, vals, params=()):
    """The While node. `params`: Parameters the bodies update (Assign), carried as extra values so that reads in
    later iterations and after the loop see the updates (found by a first trace, then the loop is traced again)."""
    from mindseed.compiler.trace import user_location  # noqa: PLC0415
    where = user_location()
    parent = _state.tracing
    tapes = [tp for tp in _state.tapes if not getattr(tp, "records_all", False)]
    carried_idx = [i for i, v in enumerate(vals) if not isinstance(v, _Undef)]
    init = [_numbers_to_tensors(vals[i]) if isinstance(vals[i], (int, float, bool)) else vals[i] for i in carried_idx]
    for v in init:
        if not isinstance(v, Tensor):
            raise TypeError(f"For 'While' at {where}, a loop variable of type {type(v).__name__} cannot be carried "
                            f"by a loop on a tensor condition.")

    def full_args(carried):
        args = list(vals)
        for i, v in zip(carried_idx, carried):
            args[i] = v
        return args

    cb = GraphBuilder("cond", parent=parent)
    c_in = [_alias(v) for v in init]
    for a in c_in:
        cb.add_input(a)
    for p in params:
        cb.vars[id(p)] = cb.add_input(_alias(p))
    # the bodies are traced with the grad tapes paused: the loop's gradient is its own rule (below), which
    # re-runs the body under a tape of its own; a loop nested in the body must not save values for nobody.
    # Parameter updates traced here are undone: the loop runs for real below.
    with building(cb), _tape.paused(), speculating():
        c = cond_fn(*full_args(c_in))
    if not isinstance(c, Tensor):
        c = Tensor(bool(c))
    cb.graph.outputs = [cb.operand(c)]
    bb = GraphBuilder("body", parent=parent)
    b_in = [_alias(v) for v in init]
    for a in b_in:
        bb.add_input(a)
    for p in params:
        bb.vars[id(p)] = bb.add_input(_alias(p))
    for j, i in enumerate(carried_idx):
        if isinstance(vals[i], (bool, int, float)):
            # a Python number carried by the loop is a Python scalar of the graph in its body (`i + 1` too)
            bb.mark_scalar(b_in[j])
    bdraws = RandomDraws()    # the body's random draws: a differentiated loop pushes them with its carried values
    with building(bb), _tape.paused(), speculating(), bdraws.active(replaying=False):
        out = body_fn(*full_args(b_in))
    known = {id(p) for p in params}
    updated = [p for p in {**cb.assigned, **bb.assigned}.values() if id(p) not in known]
    if updated:
        return _graph_while(cond_fn, body_fn, vals, tuple(params) + tuple(updated))
    out = [_numbers_to_tensors(out[i]) for i in carried_idx]
    for a, b in zip(init, out):
        if not isinstance(b, Tensor) or a.shape != b.shape or a.dtype != b.dtype:
            raise TypeError(f"For 'While' at {where}, a loop variable changes type in the loop body: "
                            f"{a.shape} {a.dtype} -> {getattr(b, 'shape', type(b))} {getattr(b, 'dtype', '')}.")
    bb.graph.outputs = [bb.operand(t) for t in out] + [bb.operand(p) for p in params]
    free = _differentiated_free(tapes, (cb, bb), init) if tapes else None
    stack = None
    if free is not None:
        # differentiated: every iteration pushes its carried values, which the backward loop reads back
        stack = stack_new_p()
        c_s, s_in = _alias(stack), _alias(stack)
        cb.add_input(c_s)
        bb.add_input(s_in)
        with building(bb):
            s_out = stack_push_p(s_in, *b_in, *bdraws.leaves())
        bb.graph.outputs.append(bb.operand(s_out))
        _mark_stacks(parent, [stack])
        _mark_stacks(bb, [s_in, s_out])
        _mark_stacks(cb, [c_s])
    _mark_stacks(cb, c_in)
    _mark_stacks(bb, b_in)
    # concrete values for the rest of the trace: run the loop eagerly, recording nothing
    saved_tapes, saved_tracing = list(_state.tapes), _state.tracing
    _state.tapes.clear()
    _state.tracing = None
    running_loop[0] += 1
    try:
        cur = list(init)
        while _truth(cond_fn(*full_args(cur))):
            if stack is None:
                res = body_fn(*full_args(cur))
            else:
                it_draws = RandomDraws()
                with it_draws.active(replaying=False):
                    res = body_fn(*full_args(cur))
                KS.stack_push(stack._data, *(v._data for v in cur), *(x._data for x in it_draws.leaves()))
            cur = [_numbers_to_tensors(res[i]) for i in carried_idx]
    finally:
        running_loop[0] -= 1
        _state.tapes[:] = saved_tapes
        _state.tracing = saved_tracing
    results = [Tensor._from_raw(v._data) for v in cur]
    p_in = [parent.operand(p) for p in params]
    p_out = [Tensor._from_raw(p._data) for p in params]
    if stack is None:
        outs = parent.emit(WHILE, [parent.operand(v) for v in init] + p_in, {"cond": cb.graph, "body": bb.graph},
                           results + p_out)
        _mark_stacks(parent, results)
    else:
        final_stack = Tensor._from_raw(stack._data)
        outs = parent.emit(WHILE, [parent.operand(v) for v in init] + p_in + [parent.operand(stack)],
                           {"cond": cb.graph, "body": bb.graph}, results + p_out + [final_stack])
        _mark_stacks(parent, [final_stack])
        _record_while_gradient(tapes, body_fn, full_args, carried_idx, init, free, results, final_stack, bdraws)
    for p, var in zip(params, outs[len(results):]):
        parent.vars[id(p)] = var         # reads after the loop see its last update
        parent.assigned[id(p)] = p
    final = list(vals)
    for i, r in zip(carried_idx, results):
        final[i] = r
    return tuple(final)


def for_range(bounds, body_fn, vals, mutated=None):
    """`for i in range(*bounds)`: unrolled for Python bounds, a While node when a bound is a traced tensor."""
    if not any(_traced(b) for b in bounds):
        for i in range(*[int(b) if isinstance(b, Tensor) else b for b in bounds]):
            vals = body_fn(i, *vals)
        return vals
    no_container_changes(mutated)
    start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (bounds[0], bounds[1], 1) if len(bounds) == 2 \
        else bounds
    if isinstance(step, Tensor) or step == 0:
        raise ValueError("For 'range' in graph mode, the step must be a non-zero Python int.")
    i0 = start if isinstance(start, Tensor) else Tensor(start, mstype.int64)
    if isinstance(stop, Tensor) and stop.dtype != i0.dtype:
        i0 = P.cast_p(i0, dtype=stop.dtype.name)

    def cond(i, *vs):
        return P.less_p(i, stop) if step > 0 else P.greater_p(i, stop)

    def body(i, *vs):
        new = body_fn(i, *vs)
        return (P.add_p(i, step),) + tuple(new)

    out = while_(cond, body, (i0,) + tuple(vals))
    return tuple(out[1:])


def _tracked_free(tapes, graphs, parent):
    """The outer tensors the sub-graphs read through closures that a grad tape differentiates (e.g. weights).

    A carried value's or operand's object may also be read through a closure (`h = x`, then `h = f(h) + x`):
    it is listed too, as both paths carry gradient. A tape may first adopt a captured outer tensor read only
    inside the bodies (`adopt_external`: the tape differentiating a compiled function from outside).
    """
    free_ids = set()
    for g in graphs:
        free_ids |= _free_vars(g)
    for tp in tapes:
        adopt = getattr(tp, "adopt_external", None)
        if adopt is not None:
            for obj, var in parent.root.captured:
                if var.id in free_ids:
                    adopt(obj)
    seen, free = set(), []
    for tp in tapes:
        for obj in tp.tracked.values():
            if id(obj) in seen:
                continue
            var = parent.lookup(obj)
            if var is not None and var.id in free_ids:
                seen.add(id(obj))
                free.append(obj)
    return free


def _differentiated_free(tapes, builders, init):
    """None when no tape differentiates the loop; else the outer tracked tensors its bodies read (e.g. weights)."""
    if not any(_tape.is_differentiable(v) for v in init):
        return None   # only integer/bool values flow around the loop: nothing to differentiate
    free = _tracked_free(tapes, [b.graph for b in builders], builders[0].parent)
    if not free and not any(tp.is_tracked(v) for tp in tapes for v in init):
        return None
    return free


def _record_while_gradient(tapes, body_fn, full_args, carried_idx, init, free, results, stack, bdraws):
    """One node per grad tape for a While: its backward is a While running from the last iteration to the first.

    Iteration k of the backward loop reads the carried values the forward loop pushed at the start of its
    iteration k (`StackGet`), re-runs that one body under a tape and applies its vjp: time is linear in the
    trip count and the graph size does not depend on it. When the backward itself is being differentiated
    (an outer tape tracks its inputs: grad of grad), the values read from the stack would cut the dependence
    on the loop's inputs, so that rule instead recomputes iteration k's values from the start with a nested
    While, which the outer tape differentiates (quadratic, for higher order only).
    """
    diff = [i for i, v in enumerate(init) if _tape.is_differentiable(v)]
    n_d = len(diff)

    def body_carried(*carried, draws=None):
        with replay():
            if draws is None:
                res = body_fn(*full_args(list(carried)))
            else:
                with draws.active(replaying=True):
                    res = body_fn(*full_args(list(carried)))
        return tuple(_numbers_to_tensors(res[i]) for i in carried_idx)

    shapes = [(x.shape, x.dtype) for x in bdraws.leaves()]

    def step_vjp(saved, d_c, d_f, draws=None):
        """vjp of one iteration at its saved carried values: gradients of the float carried values and of free."""
        def f(*xs):
            full = list(saved)
            for i, x in zip(diff, xs):
                full[i] = x
            res = body_carried(*full, draws=draws)
            return tuple(res[i] for i in diff)
        _, pull = vjp(f, *[saved[i] for i in diff], weights=free)
        grads = pull(*d_c)
        if free:
            g_c, g_f = grads
            d_f = tuple(P.add_p(a, b) for a, b in zip(d_f, g_f))
        else:
            g_c = grads
        return tuple(g_c), tuple(d_f)

    def back_cond(k, *acc):
        return P.greater_equal_p(k, 0)

    def back_body_saved(k, *acc):
        # the stack is read from outside the loop, not carried: the backward loop never changes it
        like = tuple(init) + tuple(P.fill_p(shape=tuple(sh), value=0, dtype=dt.name) for sh, dt in shapes)
        entry = stack_get_p(stack, k, *like)
        draws = bdraws.refilled(entry[len(init):]) if shapes else None   # the iteration's pushed draws
        g_c, d_f = step_vjp(entry[:len(init)], acc[:n_d], acc[n_d:], draws)
        return (P.sub_p(k, 1),) + g_c + d_f

    def back_body_recompute(k, *acc):
        def fwd_cond(j, *v):
            return P.less_p(j, k)

        def fwd_body(j, *v):
            return (P.add_p(j, 1),) + body_carried(*v)
        saved = while_(fwd_cond, fwd_body, (Tensor(0, mstype.int64),) + tuple(init))[1:]
        g_c, d_f = step_vjp(saved, acc[:n_d], acc[n_d:])
        return (P.sub_p(k, 1),) + g_c + d_f

    pinned = _Pinned(body_fn)

    def bprop(*all_args):
        *_, out, dout = all_args
        douts = tuple(dout) if isinstance(dout, tuple) else (dout,)
        acc = tuple(douts[i] for i in diff) + tuple(P.zeros_like_p(f) for f in free)
        last = P.sub_p(stack_len_p(stack), 1)
        outer = [tp for tp in _state.tapes if not getattr(tp, "records_all", False)]
        with pinned:
            if outer and any(tp.is_tracked(v) for tp in outer for v in tuple(init) + tuple(free) + acc):
                final = while_(back_cond, back_body_recompute, (last,) + acc)[1:]
            else:
                final = while_(back_cond, back_body_saved, (last,) + acc)[1:]
        grads = [None] * len(init)
        for i, g in zip(diff, final[:n_d]):
            grads[i] = g
        return tuple(grads) + tuple(final[n_d:])

    from mindseed.autograd.custom import _UserBprop  # noqa: PLC0415
    node = _UserBprop("While", bprop, True)
    for tp in tapes:
        tp.record(node, tuple(init) + tuple(free), {}, tuple(results))


# ---------------------------------------------------------------- opaque steps
def speculative():
    """True while tracing code whose trace-time values are not this call's: an untaken branch, a loop body."""
    b = _state.tracing
    while b is not None:
        if getattr(b, "speculative", False) or b.graph.name in ("cond", "body"):
            return True
        b = b.parent
    return False


def opaque_call(fn, args, outputs=False, writes=()):
    """fn(*args) as one side-effect node of the graph being traced (it runs as Python at every call); outside
    tracing, fn(*args).

    Used for steps that update state through their own kernels (optimizers): the trace run performs the
    real step once, without recording its inside; the graph gets one node that repeats it each call. With
    `outputs`, the Tensors fn returns (new ones, not its arguments) are outputs of that node: later graph
    code reads the values of each call (a loss-scaled step's overflow flag); otherwise they are the trace
    run's. `writes`: the Parameters the step may update. They are inputs of the node and it gives back their
    new values, which later reads in the graph see (a loss recomputed after the step, `w * 2` before and after
    it are different values); a read before the step stays the old value.
    """
    builder = _state.tracing
    if builder is None:
        return fn(*args)          # not tracing: just the step
    leaves = []
    tmpl = _flatten(args, leaves)
    writes = list({id(p): p for p in writes}.values())
    inputs = [builder.operand(t) for t in leaves] + [builder.operand(p) for p in writes]
    if speculative():
        # traced without running now (an untaken branch, a loop body traced before the loop runs): the step must
        # not happen; the node runs it when (and as often as) the graph gets there. Its result is not known
        if outputs:
            raise GraphBreak(f"a step with results (at {user_location()}) under a condition on a tensor")
        result = None
    else:
        saved_tapes, saved_tracing = list(_state.tapes), _state.tracing
        _state.tapes.clear()
        _state.tracing = None
        try:
            result = fn(*args)
        finally:
            _state.tapes[:] = saved_tapes
            _state.tracing = saved_tracing
    outs = []
    if outputs:
        _flatten(result, outs)
    n_in, n_out = len(leaves), len(outs)
    new_params = [Tensor._from_raw(p._data) for p in writes]

    def run(*raw):
        res = fn(*_unflatten(tmpl, [Tensor._from_raw(r) for r in raw[:n_in]]))
        got = []
        if outputs:
            _flatten(res, got)
        return tuple(t._data for t in got) + tuple(p._data for p in writes)

    out_vars = builder.emit(P.py_call_p, inputs, {"fn": run}, outs + new_params)
    for p, v in zip(writes, out_vars[n_out:]):
        builder.vars[id(p)] = v           # later reads see the step's update
        builder.assigned[id(p)] = p       # control flow passes it out of a branch or loop body
    return result
