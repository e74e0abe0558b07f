"""Graph control flow, loops: a `while` or `for i in range(...)` whose condition is a traced tensor becomes a
While node.

Converted code reaches these through helpers.py (`__ms_while`, `__ms_for_range`). A loop on a Python condition
unrolls while tracing; once the condition is a traced tensor, the condition and the body are traced into
sub-graphs and one While node is emitted (the graph's size does not depend on the trip count), carrying the
loop's variables (tuples leaf by leaf) and the Parameters its body updates. The loop then runs eagerly for the
values the rest of the trace needs (`running_loop`).

Gradient: a differentiated While pushes its carried values (and the body's random draws) on a saved-value
stack each iteration (`StackNew` / `StackPush`, kernels in `_backend/kernels/stack.py`); its backward is a
While from the last iteration to the first that re-runs one body at the values read back (`StackGet`) and
applies its vjp: linear time. Differentiated again (grad of grad), the rule recomputes the iteration's values
with a nested While instead (see docs/compiler.md).
"""
from mindseed._backend.kernels import stack as KS
from mindseed._utils import _state
from mindseed.autograd import _tape
from mindseed.autograd.grad import vjp
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.compiler.control import (_ParamValues, _Pinned, _Undef, _alias, _numbers_to_tensors, _traced,
                                       _tracked_free, _truth, _zeros_like_tree, no_container_changes)
from mindseed.compiler.codegen import _free_vars
from mindseed.compiler.ir import WHILE, Var
from mindseed.compiler.trace import GraphBreak, GraphBuilder, building, replay, speculating, user_location
from mindseed.ops._prims import core as P
from mindseed.ops._registry import Prim, RandomDraws

__all__ = ["while_", "for_range"]


# saved-value stacks of differentiated loops (see _backend/kernels/stack.py); never differentiated themselves
stack_new_p = Prim("StackNew", KS.stack_new, side_effect=True)
stack_push_p = Prim("StackPush", KS.stack_push, side_effect=True)
stack_len_p = Prim("StackLen", KS.stack_len)
stack_get_p = Prim("StackGet", KS.stack_get, multi_output=True)


# > 0 while a graph loop runs eagerly during its trace (for the values the rest of the trace needs): it is the
# graph's first run, so `print` prints as the graph's Print node does
running_loop = [0]


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


def _retype_numbers(vals, carried_idx, out):
    """`vals` with each Python number the body turns into a 0-D tensor of another dtype (`y = 1` before the loop,
    `y = Tensor(2, float32)` in it) made a tensor of that dtype, as MindSpore joins a scalar with a tensor; None
    when there is none."""
    new = list(vals)
    for i, b in zip(carried_idx, out):
        v = vals[i]
        if not isinstance(b, Tensor) or b.ndim != 0:
            continue
        if isinstance(v, (bool, int, float)) and b.dtype != _numbers_to_tensors(v).dtype:
            new[i] = Tensor(v, b.dtype)
        elif isinstance(v, Tensor) and v.ndim == 0 and v.dtype != b.dtype:
            var = _state.tracing.lookup(v)
            if var is not None and getattr(var, "pytype", None) is not None:    # a Python scalar of the graph
                new[i] = v.astype(b.dtype)
    return None if all(a is b for a, b in zip(new, vals)) else tuple(new)


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
    where = user_location()
    parent = _state.tracing
    tapes = [tp for tp in _state.tapes if not getattr(tp, "records_all", False)]
    carried_idx = [i for i, v in enumerate(vals) if not isinstance(v, _Undef)]
    init = [_numbers_to_tensors(vals[i]) if isinstance(vals[i], (int, float, bool)) else vals[i] for i in carried_idx]
    for v in init:
        if not isinstance(v, Tensor):
            # e.g. a numpy array updated by the loop: MindSpore runs such code in the interpreter (JIT fallback)
            raise GraphBreak(f"a loop variable of type {type(v).__name__} cannot be carried by the loop on a tensor "
                             f"condition at {where}")

    def full_args(carried):
        args = list(vals)
        for i, v in zip(carried_idx, carried):
            args[i] = v
        return args

    def loop_graph(name):
        """A builder for the condition or the body: the carried values and the updated Parameters as inputs."""
        builder = GraphBuilder(name, parent=parent)
        inputs = [_alias(v) for v in init]
        for a in inputs:
            builder.add_input(a)
        p_in = [_alias(p) for p in params]
        for p, a in zip(params, p_in):
            builder.vars[id(p)] = builder.add_input(a)
        return builder, inputs, p_in

    cb, c_in, _ = loop_graph("cond")
    # the bodies are traced with the grad tapes paused: the loop's gradient is its own rule (below), which
    # re-runs the body under a tape of its own; a loop nested in the body must not save values for nobody.
    # Parameter updates traced here are undone: the loop runs for real below.
    with building(cb), _tape.paused(), speculating():
        c = cond_fn(*full_args(c_in))
    if not isinstance(c, Tensor):
        c = Tensor(bool(c))
    cb.graph.outputs = [cb.operand(c)]
    bb, b_in, bp_in = loop_graph("body")
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
    retyped = _retype_numbers(vals, carried_idx, out)
    if retyped is not None:
        return _graph_while(cond_fn, body_fn, retyped, params)
    for a, b in zip(init, out):
        if not isinstance(b, Tensor) or a.shape != b.shape or a.dtype != b.dtype:
            # MindSpore joins the shapes (dynamic shape) or finds the variable dead before the next iteration
            # reads it; the traced graph has one signature per carried value: the interpreter runs the loop
            raise GraphBreak(f"a loop variable changes type in the body of the loop at {where}: {a.shape} {a.dtype} "
                             f"-> {getattr(b, 'shape', type(b))} {getattr(b, 'dtype', '')}")
    bb.graph.outputs = [bb.operand(t) for t in out] + [bb.operand(p) for p in params]
    free = _differentiated_free(tapes, (cb, bb), init) if tapes else None
    stack = None
    if free is not None:
        # differentiated: every iteration pushes its carried values and the Parameters it updates as they are
        # when it starts (before the body's Assigns), then its random draws; the backward loop reads them back
        stack = stack_new_p()
        c_s, s_in = _alias(stack), _alias(stack)
        cb.add_input(c_s)
        bb.add_input(s_in)
        with building(bb):
            s_out = stack_push_p(s_in, *b_in, *bp_in)
        bb.graph.nodes.insert(0, bb.graph.nodes.pop())
        if bdraws.leaves():
            with building(bb):
                s_out = stack_push_p(s_out, *bdraws.leaves(), extend=True)
        bb.graph.outputs.append(bb.operand(s_out))
        _mark_stacks(parent, [stack])
        _mark_stacks(bb, [s_in, s_out])
        _mark_stacks(cb, [c_s])
    _mark_stacks(cb, c_in)
    _mark_stacks(bb, b_in)
    values = _ParamValues(parent) if stack is not None else None
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
                KS.stack_push(stack._data, *(v._data for v in cur), *(p._data for p in params))
                it_draws = RandomDraws()
                with it_draws.active(replaying=False):
                    res = body_fn(*full_args(cur))
                if it_draws.leaves():
                    KS.stack_push(stack._data, *(x._data for x in it_draws.leaves()), extend=True)
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
        values.emitted()
        _record_while_gradient(tapes, body_fn, full_args, carried_idx, init, free, results, final_stack, bdraws,
                               params, values, _differentiated_slots(tapes, init, bb, parent, free))
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


def _differentiated(tapes, v):
    """Does the loop differentiate its carried value `v`: a floating one, or an integer one a tape tracks (MindSpore
    gives integer inputs integer gradients)?"""
    return _tape.is_differentiable(v) or any(tp.is_tracked(v) for tp in tapes)


def _differentiated_slots(tapes, init, body, parent, free):
    """The carried values the loop differentiates: those `_differentiated` at the start, and the integer ones
    the body computes from a differentiated value (a `return x` in the loop: the returned value starts as a zero
    nobody tracks and takes x's value in the body)."""
    diff = {i for i, v in enumerate(init) if _differentiated(tapes, v)}
    outer = set()
    for obj in free:
        var = parent.lookup(obj)
        if var is not None:
            outer.add(var.id)
    graph = body.graph
    while True:
        deps = {graph.params[i].id for i in diff} | outer
        for node in graph.nodes:
            reads = {x.id for x in node.inputs if isinstance(x, Var)}
            for g in node.subgraphs():
                reads |= _free_vars(g)
            if reads & deps:
                deps.update(o.id for o in node.outputs)
        more = {i for i in range(len(init)) if isinstance(graph.outputs[i], Var) and graph.outputs[i].id in deps}
        if more <= diff:
            return sorted(diff)
        diff |= more


def _differentiated_free(tapes, builders, init):
    """None when no tape differentiates the loop; else the outer tracked tensors its bodies read (e.g. weights)."""
    free = _tracked_free(tapes, [b.graph for b in builders], builders[0].parent)
    if not any(_differentiated(tapes, v) for v in init) and all(_tape.is_differentiable(v) for v in free):
        # only integer/bool values nobody differentiates flow around the loop; an integer tensor a tape tracks that
        # the body reads may still flow into them (`out = x * y + out` from a constant integer `out`)
        return None
    if not free and not any(tp.is_tracked(v) for tp in tapes for v in init):
        return None
    if not any(_differentiated(tapes, v) for v in init) and \
            not _differentiated_slots(tapes, init, builders[1], builders[0].parent, free):
        return None   # only integer/bool values nobody differentiates flow around the loop
    return free


def _record_while_gradient(tapes, body_fn, full_args, carried_idx, init, free, results, stack, bdraws, params,
                           values, diff):
    """One node per grad tape for a While: its backward is a While running from the last iteration to the first.

    Iteration k of the backward loop reads the carried values the forward loop pushed at the start of its
    iteration k (`StackGet`, with the values the Parameters the loop updates had then), re-runs that one body
    under a tape and applies its vjp: time is linear in the
    trip count and the graph size does not depend on it. When the backward itself is being differentiated
    (an outer tape tracks its inputs: grad of grad), the values read from the stack would cut the dependence
    on the loop's inputs, so that rule instead recomputes iteration k's values from the start with a nested
    While, which the outer tape differentiates (quadratic, for higher order only).
    """
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
        like = tuple(init) + tuple(params) + tuple(P.fill_p(shape=tuple(sh), value=0, dtype=dt.name)
                                                   for sh, dt in shapes)
        entry = stack_get_p(stack, k, *like)
        n_s = len(init) + len(params)
        draws = bdraws.refilled(entry[n_s:]) if shapes else None   # the iteration's pushed draws
        with values.pinned({id(p): (p, v) for p, v in zip(params, entry[len(init):n_s])}):
            g_c, d_f = step_vjp(entry[:len(init)], acc[:n_d], acc[n_d:], draws)
        return (P.sub_p(k, 1),) + g_c + d_f

    def back_body_recompute(k, *acc):
        def fwd_cond(j, *v):
            return P.less_p(j, k)

        def fwd_body(j, *v):
            return (P.add_p(j, 1),) + body_carried(*v)
        with values.pinned():
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
