"""Graph control flow, branches: an `if` whose condition is a traced tensor becomes an If node.

Converted code reaches these through helpers.py (`__ms_if`, `__ms_ifexp`, `__ms_and`, ...). When the deciding
value is a Python value (or nothing is being traced) they do what Python does. When it is a tensor computed
inside the graph being traced, both branches are traced into sub-graphs and one If node is emitted, so the
graph keeps the branch; `a and b` / `a or b` / `not a` on a traced tensor are selects and a logical not.
The gradient of an If is recorded on the active grad tapes as again an If on the same condition, whose
branches re-run the corresponding forward branch under a tape and apply its vjp.

Also here, because loops.py shares them: the values of variables not assigned yet (`UNDEF`, `RETVAL`),
results as leaves, the tensor aliases bodies are traced on, closure and Parameter pinning for re-runs, the outer
tensors a body's gradient must include, and the check that no Python container changes under a condition.
"""
import functools

import numpy as np

from mindseed import _backend as B
from mindseed._backend.kernels import stack as KS
from mindseed._utils import _state
from mindseed.autograd import _tape
from mindseed.autograd.grad import vjp
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter, ParameterTuple
from mindseed.common.tensor import Tensor
from mindseed.compiler.codegen import _free_vars
from mindseed.compiler.ir import IF, Node, Var
from mindseed.compiler.opaque import opaque_call  # noqa: F401 -- its former home: nn/cell.py imports it from here
from mindseed.compiler.trace import GraphBreak, GraphBuilder, building, replay, speculating, user_location
from mindseed.ops._prims import core as P
from mindseed.ops._registry import RandomDraws

__all__ = ["if_", "and_", "or_", "not_", "ifexp", "UNDEF", "RETVAL", "no_container_changes"]


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


class _OneBranch(_Undef):
    """The value after an `if` on a tensor of a variable only one branch assigns: MindSpore compiles such an `if`
    and raises UnboundLocalError only where the variable is read after it; here the read (an operator, an
    attribute, truth, iteration, a call) raises it."""

    def __init__(self, name, branch, where):
        self.message = (f"The local variable '{name}' is not defined in {'false' if branch else 'true'} branch, "
                        f"but defined in {'true' if branch else 'false'} branch (the if at {where}).")

    def __repr__(self):
        return f"<undefined: {self.message}>"

    def _unbound(self, *args, **kwargs):
        raise UnboundLocalError(self.message)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        self._unbound()

    __bool__ = __iter__ = __len__ = __getitem__ = __call__ = __float__ = __int__ = __index__ = _unbound
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _unbound
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _unbound
    __neg__ = __pos__ = __abs__ = __invert__ = __and__ = __rand__ = __or__ = __ror__ = __xor__ = _unbound
    __lt__ = __le__ = __gt__ = __ge__ = _unbound


def _one_branch_names(rt, re_, names, where):
    """The branch results of a statement `if` (one value per name it assigns): a name one branch leaves unassigned
    is unassigned after the `if` on both paths (reading it raises, as MindSpore's compiler does)."""
    if names is None or not (isinstance(rt, tuple) and isinstance(re_, tuple) and len(rt) == len(re_) == len(names)):
        return rt, re_
    rt, re_ = list(rt), list(re_)
    for i, (name, a, b) in enumerate(zip(names, rt, re_)):
        if (a is UNDEF and b is RETVAL) or (a is RETVAL and b is UNDEF):
            rt[i] = re_[i] = UNDEF      # no value on either path that goes on (the other one has returned)
        elif _unassigned(a) != _unassigned(b):
            rt[i] = re_[i] = _OneBranch(name, not _unassigned(a), where)
        elif _unassigned(a) and a is not b:
            rt[i] = re_[i] = a if isinstance(a, _OneBranch) else b
    return tuple(rt), tuple(re_)


def _unassigned(v):
    """No value on this path: never assigned, or assigned by only one branch of an earlier if on a tensor."""
    return v is UNDEF or isinstance(v, _OneBranch)


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
def bool_cond(t):
    """MindSpore's rule for a graph tensor deciding an `if`, `and`, `or` or `not`: it must have shape () or (1,)."""
    if tuple(t.shape) not in ((), (1,)):
        raise ValueError("Only tensor which shape is () or (1,) can be converted to bool, but got tensor shape is "
                         f"({', '.join(str(d) for d in t.shape)})")


def join_error(where, detail):
    exc = TypeError(f"For 'If' at {where}: Cannot join the return values of different branches, perhaps you need "
                    f"to make them equal.\nType Join Failed: {detail}.")
    exc.bytecode_break = True   # MindSpore's PIJit (jit capture_mode="bytecode") breaks the graph there instead
    return exc


_ABSTRACT = ((bool, "AbstractScalar"), (int, "AbstractScalar"), (float, "AbstractScalar"), (str, "AbstractScalar"),
             (tuple, "AbstractTuple"), (list, "AbstractList"), (dict, "AbstractDictionary"))


def _select(a, b, take_b_when_true):
    """A select between the graph tensor `a` and `b` by a's truth (elementwise; `b` a tensor or a number)."""
    from mindseed.ops import functional as F  # noqa: PLC0415 -- ops are below us; imported lazily for speed
    truth = a if a.dtype == mstype.bool_ else F.not_equal(a, 0)
    if not isinstance(b, Tensor):
        b = Tensor(b, a.dtype) if mstype.is_float(a.dtype) and isinstance(b, (int, float)) else Tensor(b)
    return F.where(truth, b, a) if take_b_when_true else F.where(truth, a, b)


def _pick(a, b, take_b_when_true):
    """`a and b` / `a or b` with a a graph tensor: an If choosing an operand by a's truth, so MindSpore's join rule
    holds (the other operand must be a tensor of a's dtype); a select when the shapes agree (b is traced either
    way)."""
    bool_cond(a)
    if b is None:
        raise GraphBreak(f"`and`/`or` at {user_location()} gives a tensor or None by a tensor's value")
    true_val, false_val = (b, a) if take_b_when_true else (a, b)
    if not isinstance(b, Tensor):
        other = next((name for kind, name in _ABSTRACT if isinstance(b, kind)), type(b).__name__)
        first, second = ("AbstractTensor", other) if isinstance(true_val, Tensor) else (other, "AbstractTensor")
        raise join_error(user_location(), f"Abstract type {first} cannot join with {second}")
    if a.dtype != b.dtype:
        raise join_error(user_location(), f"dtype1 = {true_val.dtype}, dtype2 = {false_val.dtype}")
    if a.shape != b.shape:
        return if_(a, lambda: true_val, lambda: false_val, (), True)
    return _select(a, b, take_b_when_true)


def graph_bool(a):
    """`a`, about to decide a condition at trace time: a tensor known then must still have shape () or (1,) in a
    graph (MindSpore's rule, where PyNative only refuses more than one element)."""
    if isinstance(a, Tensor) and _state.tracing is not None:
        bool_cond(a)
    return a


def and_(a, b_fn):
    if _traced(a):
        return _pick(a, b_fn(), True)
    return graph_bool(a) and b_fn()


def and_select(a, b_fn):
    """`and` of conditions the compiler builds itself (a chained comparison, a loop's break flag): a select, without
    the join rule of the user's `and`."""
    if _traced(a):
        return _select(a, b_fn(), True)
    return a and b_fn()


def or_select(a, b_fn):
    """`or` of the compiler's own conditions (break and continue flags), as and_select."""
    if _traced(a):
        return _select(a, b_fn(), False)
    return a or b_fn()


def or_(a, b_fn):
    if _traced(a):
        return _pick(a, b_fn(), False)
    return graph_bool(a) or b_fn()


def not_(a):
    if _traced(a):
        from mindseed.ops import functional as F  # noqa: PLC0415
        bool_cond(a)
        return F.logical_not(a)
    return not graph_bool(a)


def ifexp(cond, then_fn, else_fn):
    if _traced(cond):
        return if_(cond, then_fn, else_fn, (), True)
    return then_fn() if graph_bool(cond) else else_fn()


# ---------------------------------------------------------------- if
def if_(cond, then_fn, else_fn, vals, returns=False, names=None):
    """`then_fn(*vals)` or `else_fn(*vals)` by cond; an If node when cond is a traced tensor. `names`: the
    variables a statement `if` assigns, whose values the branches return in that order."""
    if not _traced(cond):
        return then_fn(*vals) if graph_bool(cond) else else_fn(*vals)
    if cond.size != 1:
        _too_many(cond)
    return _graph_if(cond, then_fn, else_fn, vals, None if returns else names)


def _flatten(obj, leaves):
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return ("T",)
    if isinstance(obj, (tuple, list)):
        # a ParameterTuple comes back as a tuple: its items are rebuilt as plain Tensors (of the same buffers)
        kind = tuple if isinstance(obj, ParameterTuple) else type(obj)
        return (kind, tuple(_flatten(o, leaves) for o in obj))
    if type(obj) is dict:
        return ("D", tuple(obj), tuple(_flatten(o, leaves) for o in obj.values()))
    return ("C", obj)


def _unflatten(tmpl, leaves, it=None):
    it = iter(leaves) if it is None else it
    if tmpl[0] == "T":
        return next(it)
    if tmpl[0] == "C":
        return tmpl[1]
    if tmpl[0] == "D":
        return dict(zip(tmpl[1], [_unflatten(t, leaves, it) for t in tmpl[2]]))
    return tmpl[0](_unflatten(t, leaves, it) for t in tmpl[1])


def _same_constant(a, b):
    """Whether two Python values the branches give are the same constant (numpy arrays by value)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and bool((a == b).all())
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 -- values whose == gives no truth value (containers of tensors) differ
        return False


def _numberlike(v):
    return v is None or isinstance(v, (bool, int, float, _Undef))


def _tensorize(tmpl_a, tmpl_b, leaves_a, leaves_b, where):
    """Make the two branch results the same structure: differing Python numbers become tensors."""
    if tmpl_a[0] == "T" and tmpl_b[0] == "T":
        return
    if tmpl_a[0] == "C" and tmpl_b[0] == "C":
        if tmpl_a[1] is UNDEF or tmpl_b[1] is UNDEF:
            if tmpl_a[1] is not tmpl_b[1] and not {tmpl_a[1], tmpl_b[1]} <= {UNDEF, RETVAL}:
                raise ValueError(f"For 'If' at {where}, a variable is assigned in only one branch of an if on a "
                                 f"tensor; assign it before the if or in both branches.")
        elif not _same_constant(tmpl_a[1], tmpl_b[1]):
            if _numberlike(tmpl_a[1]) and _numberlike(tmpl_b[1]):
                raise _Retensorize()
            # e.g. numpy arrays or strings computed by the branches: known only when the branch runs
            raise GraphBreak(f"the branches of the if at {where} give different Python values "
                             f"({type(tmpl_a[1]).__name__} and {type(tmpl_b[1]).__name__})")
        return
    if tmpl_a[0] == "D" or tmpl_b[0] == "D":
        if tmpl_a[0] != tmpl_b[0] or tmpl_a[1] != tmpl_b[1]:
            raise GraphBreak(f"the branches of the if at {where} give dicts of different keys")
        for x, y in zip(tmpl_a[2], tmpl_b[2]):
            _tensorize(x, y, leaves_a, leaves_b, where)
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
    if type(obj) is dict:
        return {k: _numbers_to_tensors(v) for k, v in obj.items()}
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


def _one_sided_undefined(a, b):
    """The two branches' variables with each tensor the other branch never assigned made UNDEF on both sides: such
    a variable has no value after the if (MindSpore's graphs accept it while nothing reads it afterwards)."""
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        pairs = [(UNDEF, UNDEF) if x is UNDEF and isinstance(y, Tensor) or y is UNDEF and isinstance(x, Tensor)
                 else (x, y) for x, y in zip(a, b)]
        return tuple(x for x, _ in pairs), tuple(y for _, y in pairs)
    return a, b


def _graph_if(cond, then_fn, else_fn, vals, names=None):
    parent = _state.tracing
    where = user_location()
    taken_then = _concrete_bool(cond)
    # the taken branch is traced first: an error it raises is this call's error
    before = {}     # the values of the Parameters it updates (for the gradient's re-runs)
    with recording(before):
        first = _Branch(parent, then_fn if taken_then else else_fn, vals, "then" if taken_then else "else")
    try:
        with speculating():
            second = _Branch(parent, else_fn if taken_then else then_fn, vals, "else" if taken_then else "then")
    except GraphBreak:
        raise
    except Exception as exc:  # noqa: BLE001 -- e.g. `raise` in the branch not taken now: raised at run time
        if getattr(exc, "compile_time", False):
            raise
        # MindSpore's graph raises it when that branch runs: the branch is a Raise giving the taken one's structure
        raising = _raising(exc, first.result)
        if taken_then:
            else_fn = raising
        else:
            then_fn = raising
        with speculating():
            second = _Branch(parent, raising, vals, "else" if taken_then else "then")
    t, e = (first, second) if taken_then else (second, first)
    rt, re_ = _one_branch_names(t.result, e.result, names, where)
    # a result not produced yet on one side (a `return` taken only in the other branch) becomes zeros there
    then_ref, else_ref = re_, rt
    rt = _fill_in(t.builder, rt, re_)
    re_ = _fill_in(e.builder, re_, rt)
    rt, re_ = _one_sided_undefined(rt, re_)
    # positions of the variables without a value after the if: the gradient's replays of the branches drop them too
    undefined = {i: x for i, x in enumerate(rt) if _unassigned(x)} if isinstance(rt, tuple) else {}
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
        if a.dtype != b.dtype:
            raise join_error(where, f"dtype1 = {a.dtype}, dtype2 = {b.dtype}")
    for a, b in zip(lt, le):
        if a.shape != b.shape:
            # MindSpore joins them into a dynamic shape; the code after the if is traced for one shape here
            raise GraphBreak(f"the branches of the if at {where} give tensors of different shapes ({a.shape} and "
                             f"{b.shape})")
    taken = lt if _concrete_bool(cond) else le
    results = [Tensor._from_raw(x._data) for x in taken]
    operands = [parent.operand(v) for v in vals if isinstance(v, Tensor)]
    params = _pass_out_assigned(t.builder, e.builder)
    differentiated = any(not getattr(tp, "records_all", False) for tp in _state.tapes)
    values = _ParamValues(parent, before) if differentiated else None
    draw_leaves = _pass_out_draws(t, e) if differentiated else []
    param_outs = [Tensor._from_raw(p._data) for p in params]
    draw_outs = [Tensor._from_raw(x._data) for x in draw_leaves]
    outs = parent.emit(IF, [parent.operand(cond)] + operands, {"then": t.builder.graph, "else_": e.builder.graph},
                       results + param_outs + draw_outs)
    if values is not None:
        values.emitted()
    for p, var in zip(params, outs[len(results):]):
        # later reads of a Parameter a branch updated see the If's output, whichever branch ran
        parent.vars[id(p)] = var
        parent.assigned[id(p)] = p
    if draw_leaves:
        # the branches' random draws as values of the enclosing graph, for the re-runs of the gradient
        n_then = len(t.draws.leaves())
        t.draws, e.draws = t.draws.refilled(draw_outs[:n_then]), e.draws.refilled(draw_outs[n_then:])
    _record_if_gradient(cond, then_fn, else_fn, vals, results, t, e, retensorized, then_ref, else_ref, values,
                        undefined)
    return _unflatten(tt if _concrete_bool(cond) else te, results)


def _raising(exc, like):
    """A branch body that raises `exc` when it runs; its results (never produced) have the structure, shapes and
    dtypes of `like`, the other branch's."""
    def tree(ref):
        if isinstance(ref, Tensor):
            # traced on the values of this call, where the branch is not taken: a stand-in value, not a raise
            attrs = {"error": exc, "shape": tuple(ref.shape), "dtype": ref.dtype.name}
            with _tape.paused():
                out = P.fill_p(shape=attrs["shape"], value=0, dtype=attrs["dtype"])
            _state.tracing.emit(P.raise_p, [], attrs, [out])
            return out
        if isinstance(ref, (tuple, list)):
            return type(ref)(tree(r) for r in ref)
        return ref

    def body(*args):
        return tree(like)
    return body


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


def _record_if_gradient(cond, then_fn, else_fn, vals, results, t, e, retensorized, then_ref, else_ref, values,
                        undefined=None):
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
                if undefined and isinstance(out, tuple):    # assigned in one branch only: not an output of the If
                    out = tuple(undefined.get(i, o) for i, o in enumerate(out))
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
        with pinned, values.pinned():
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


class _ParamValues:
    """The values the Parameters had when a branch or loop was traced, for the re-runs of its gradient.

    The backward re-runs a body later, when the graph may have updated a Parameter the body reads (in the body
    itself, or after it: `if c: y = x * self.w` then `self.w -= 1`). Taken right after the bodies are traced
    (`builder`: the enclosing graph, whose bindings do not include their updates yet) for every Parameter the
    trace has read; `before`: the values the Parameters the traced code updated for real had before it
    (`recording`). `pinned(...)` binds, for a re-run, each Parameter whose value in the graph has changed since
    back to that value, in the graph being traced and in the values the trace computes with."""

    def __init__(self, builder, before=None):
        before = before or {}
        self.builder = builder
        self.node = None        # the control-flow node, once emitted (`emitted`)
        self.snapshots = {}
        self.start = {id(p): (p, builder.lookup(p), before.get(id(p), (p, p._data))[1])
                      for p, _ in builder.root.captured if isinstance(p, Parameter)}

    def emitted(self):
        """The control-flow node is the last one of the enclosing graph now."""
        self.node = self.builder.graph.nodes[-1]

    def value_var(self, p, var, raw):
        """The Var standing for p's value then: `var`, or, when that is the Parameter's own input of the graph (which
        its Assign later overwrites at run time), an Identity of it placed before the control-flow node (a new
        handle on the old memory)."""
        root = self.builder.root
        if var is not root._captured_ids.get(id(p)) and not any(var is q for q in root.graph.params):
            return var
        snap = self.snapshots.get(id(p))
        if snap is None:
            snap = Var(var.shape, var.dtype)
            nodes = self.builder.graph.nodes
            at = next((k for k in range(len(nodes) - 1, -1, -1) if nodes[k] is self.node), len(nodes))
            nodes.insert(at, Node(P.identity_p, [var], {}, [snap], getattr(self.node, "loc", None)))
            self.snapshots[id(p)] = snap
            held = Tensor._from_raw(P.identity_p.impl(raw))     # its value in this (tracing) run
            self.builder.vars[id(held)] = snap
            self.builder.keep.append(held)
        return snap

    def pinned(self, at=None):
        """Context for a re-run; `at`: {id(p): (p, value Tensor)} overriding the start values (a loop's Parameters
        as the iteration being re-run began)."""
        return _Pin(self, at or {})


class recording:
    """Context: `into` gets the value each Parameter had before the code run inside first updates it."""

    def __init__(self, into):
        self.into = into

    def __enter__(self):
        _state.param_undo.append(self.into)

    def __exit__(self, *exc):
        undo = _state.param_undo
        for k in range(len(undo) - 1, -1, -1):
            if undo[k] is self.into:
                del undo[k]
                break
        return False


class _Pin:
    def __init__(self, values, at):
        self.values, self.at = values, at

    def __enter__(self):
        b = _state.tracing
        binds = []
        items = dict(self.values.start)
        for key, (p, _) in self.at.items():
            items.setdefault(key, (p, None, None))
        for key, (p, var, raw) in items.items():
            if key in self.at:
                v = self.at[key][1]
                var, raw = (b.operand(v) if b is not None else None), v._data
            elif b is None:
                if p._data is raw:
                    continue
            elif var is None or b.lookup(p) is var:
                continue
            else:
                var = self.values.value_var(p, var, raw)
            binds.append((p, var, raw))
        self.saved = []
        for p, var, raw in binds:
            p._remember_value()     # undone code around (a speculative trace) restores the value before this
            self.saved.append((p, p._data, b.vars.get(id(p)) if b is not None else None))
            p._data = raw
            if b is not None:
                b.vars[id(p)] = var

    def __exit__(self, *exc):
        b = _state.tracing
        for p, raw, var in reversed(self.saved):
            p._data = raw
            if b is not None:
                if var is None:
                    b.vars.pop(id(p), None)
                else:
                    b.vars[id(p)] = var
        return False


def _alias(v):
    """A fresh handle on v's value for tracing a body; a stack is copied, so the trace run cannot change it."""
    raw = v._data
    return Tensor._from_raw(KS.Stack(raw) if isinstance(raw, KS.Stack) else raw)


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


# ---------------------------------------------------------------- containers changed under a condition
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
