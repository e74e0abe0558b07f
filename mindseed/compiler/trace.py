"""Building the IR: run the (AST-converted) function once and record every primitive call as a node.

The builder sits on the dispatcher's recorder stack while the function runs, so each primitive
call (forward ops, and the bprops of any grad transform inside) becomes a node. Values flow as
real tensors during this run, so Python-level computation on shapes and constants is simply done
and folds away; control flow on tensor values is turned into If/While nodes by `control.py`
(the parser rewrites `if`/`while`/`for` into calls there). Tensors from outside the function
(Parameters, constants) become extra graph inputs read at each call.
"""
import os
import sys

from mindseed._utils import _state
from mindseed.common._mutable import _Mutable
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.compiler.ir import WHILE, Const, Graph, Loc, Node, Var
from mindseed.ops.operations._base import scope_strategy

__all__ = ["GraphBuilder", "GraphBreak", "ShardedCall", "building", "replay", "replaying", "add_user_trace",
           "speculating", "user_trace_here", "partitioning"]

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# > 0 while forward code runs again only to be differentiated (a branch or loop body re-run for its vjp,
# a recomputed cell): `print` in it prints nothing and adds no node, as the forward run already printed
replaying = [0]


class replay:
    """Context: the code run inside is a re-run of forward code for a gradient (its Parameter updates are not
    recorded again, and undone: the forward run made them)."""

    def __enter__(self):
        replaying[0] += 1
        _undo.append({})

    def __exit__(self, *exc):
        replaying[0] -= 1
        for param, raw in _undo.pop().values():
            param._data = raw
        return False


# Parameters updated while tracing code that does not run now (an untaken branch, a loop body traced before the
# loop runs) or re-running forward code for a gradient get their values back at the end: Parameter.set_data
# records the previous value in each dict of this stack
_undo = _state.param_undo


class speculating:
    """Context: Parameter updates traced inside are undone on exit (the graph keeps them as Assign nodes)."""

    def __enter__(self):
        _undo.append({})

    def __exit__(self, *exc):
        for param, raw in _undo.pop().values():
            param._data = raw
        return False


class tentative:
    """Context: Parameter updates made inside are undone if it exits with a GraphBreak (a trace abandoned for the
    interpreter, which then runs the function again), kept otherwise (the trace run is the call's run)."""

    def __enter__(self):
        _undo.append({})

    def __exit__(self, exc_type, *exc):
        saved = _undo.pop()
        if exc_type is not None and issubclass(exc_type, GraphBreak):
            for param, raw in saved.values():
                param._data = raw
        return False


class GraphBreak(Exception):
    """The traced function needs a value known only at run time (e.g. `bool(tensor)` outside converted code)."""


class ShardedCall(GraphBreak):
    """The trace met a sharded function or cell (`ms.shard`, `Cell.shard`) while a simulated world's runner
    partitions such calls: the outermost compiled call runs partitioned there instead of compiling (jit.py)."""


def user_location():
    """'file:line' of the innermost frame outside mindseed (the user's line)."""
    f = sys._getframe(2)
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(_PKG_DIR) and not fn.startswith("<mindseed"):
            if fn.startswith("<converted"):
                return getattr(f.f_globals.get("__ms_source_map__"), "get", lambda *_: None)(f.f_lineno) or \
                    f"{fn}:{f.f_lineno}"
            return f"{os.path.basename(fn)}:{f.f_lineno}"
        f = f.f_back
    return None


def _node_loc():
    """A new node's loc: the user's line, with the Cell scope it is traced in when there is one."""
    where = user_location()
    if not _state.scopes:
        return where
    return Loc(where or "", _state.scopes[-1][1])


def user_frame(exc):
    """(file, line) of the innermost frame of exc's traceback that is user code (not mindseed), or None."""
    tb, found = exc.__traceback__, None
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename
        if not fn.startswith(_PKG_DIR) and not fn.startswith("<"):
            found = (fn, tb.tb_lineno)
        tb = tb.tb_next
    return found


_RULE = "-" * 52


def _trace_text(frames):
    import linecache  # noqa: PLC0415 -- error path only
    lines = [f"\n\n{_RULE}\n- The Traceback of Net Construct Code:\n{_RULE}"]
    for k, (fn, line, name) in enumerate(frames):
        text = linecache.getline(fn, line).rstrip()
        where = f"# {k} In file {fn}:{line}" + ("" if name.startswith("__ms_") else f", in {name}")
        lines.append(where + (f"\n    {text.strip()}" if text else ""))
    return "\n".join(lines)


def _is_user(fn):
    return not fn.startswith(_PKG_DIR) and not fn.startswith("<")


# the files that only pass a value read on (Tensor.item / __index__, the recorder, converted code's helpers)
_READERS = tuple(os.path.join(_PKG_DIR, d) + os.sep for d in ("common", "_utils", "compiler"))


def _library_read():
    """Is the value being read by mindseed's own code (an op taking a size or an axis as a tensor, which
    MindSpore's kernel reads at run time), rather than by the user's (`t.item()` in a construct)?"""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(_READERS):
        f = f.f_back
    return f is not None and f.f_code.co_filename.startswith(_PKG_DIR)


def add_user_trace(exc):
    """Append the user's frames of exc's traceback to its message, as MindSpore does ("The Traceback of Net
    Construct Code": each frame's file:line and source line, outermost first). Done once per exception; an
    exception whose message is not its single string argument is left as is."""
    if getattr(exc, "__ms_user_trace__", False):
        return exc
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        if _is_user(tb.tb_frame.f_code.co_filename):
            frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno, tb.tb_frame.f_code.co_name))
        tb = tb.tb_next
    if not frames or len(exc.args) != 1 or not isinstance(exc.args[0], str) or str(exc) != exc.args[0]:
        return exc
    try:
        exc.args = (exc.args[0] + _trace_text(frames),)
        exc.__ms_user_trace__ = True
    except (AttributeError, TypeError):
        pass
    return exc


_ENTRY_POINTS = ("_compile", "_build")     # jit.py / autodiff.py: the frames outside them are the caller's


def user_trace_here():
    """The "Traceback of Net Construct Code" text for the code being traced now (for errors raised later, when
    the graph runs: a failed assert on a graph tensor)."""
    frames = []
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if fn.startswith(_PKG_DIR) and f.f_code.co_name in _ENTRY_POINTS:
            break
        if _is_user(fn):
            frames.append((fn, f.f_lineno, f.f_code.co_name))
        f = f.f_back
    return _trace_text(frames[::-1]) if frames else ""


# > 0 while a trace is made for the parallel partitioner (`partitioning`)
_partitioning = [0]


class partitioning:
    """Context: the graphs traced inside are for the parallel partitioner (`mindseed.parallel._ir`): their builders
    count as the partitioner's recording (`common._parallel.partitioner_recording`), so a sharded function or cell
    met in the trace places its values with `Reshard` nodes instead of breaking the trace (`ShardedCall`)."""

    def __enter__(self):
        _partitioning[0] += 1

    def __exit__(self, *exc):
        _partitioning[0] -= 1
        return False


class GraphBuilder(_state.Recorder):
    """Records primitive calls into a Graph; `parent` is the enclosing builder for a branch or loop body.

    It is the `_state.Recorder` of Tensor, Parameter and Cell while it traces (`building`)."""

    records_all = True

    def __init__(self, name="graph", parent=None):
        self.partitions = _partitioning[0] > 0   # a trace for the partitioner (`partitioning`)
        self.graph = Graph(name)
        self.vars = {}          # id(tensor) -> Var
        self.raw = {}           # id(backend tensor) -> Var: another Tensor object around the same data (detach(),
        #                         Parameter.value()) is the same value of the graph
        self.keep = []          # the traced tensors, alive so their ids stay unique
        self.parent = parent
        self.root = parent.root if parent is not None else self
        self.captured = []      # root only: (external tensor, param Var) read at every call
        self._captured_ids = {}
        self.assigned = {}      # id -> Parameter updated (Assign) in this graph: control flow passes them out
        self.cells = {}         # root only: id -> Cell called while tracing (their training flags key the cache)
        self.strict = False     # root only: the graph must compile whole (fullgraph / STRICT): no fallback
        self.bytecode = False   # root only: compiling for jit(capture_mode="bytecode") (MindSpore's PIJit)
        self.by_value = None    # root only: {id(input Var): leaf index} of the inputs whose values Python may read
        #                         (the graph is then specialized on them); None: every such read is a graph break
        self.value_reads = set()  # root only: the leaf indices of the inputs whose values the trace read
        self.argument_containers = set()  # root only: ids of the (not mutable) tuples/lists/dicts passed in
        self.input_tensors = {}  # id(input Var) -> the Tensor standing for that argument in the traced function

    def is_argument_container(self, obj):
        return id(obj) in self.root.argument_containers

    def note_argument_containers(self, given, traced):
        """Remember the tuples/lists/dicts (at any depth) of the traced function's arguments that were not `mutable`:
        `traced` is `given` as the function sees it (the same structure, its tensors those of the graph)."""
        if not isinstance(traced, (tuple, list, dict)) or isinstance(given, _Mutable):
            return
        self.root.argument_containers.add(id(traced))
        self.keep.append(traced)
        pairs = zip(given.values(), traced.values()) if isinstance(traced, dict) else zip(given, traced)
        for g, t in pairs:
            self.note_argument_containers(g, t)

    # ------------------------------------------------------------ values
    def new_var(self, t, hint="v"):
        v = Var(tuple(t.shape), t.dtype.name, hint)
        self._bind(t, v)
        return v

    def _bind(self, t, v):
        self.vars[id(t)] = v
        self.raw.setdefault(id(t._data), v)     # the first value holding it (an identity kernel's output, a
        #                                         cotangent input made from an output, share the data later)
        self.keep.append(t)
        self.keep.append(t._data)

    def add_input(self, t, hint="p"):
        v = self.new_var(t, hint)
        self.graph.add_param(v)
        self.input_tensors[id(v)] = t
        return v

    def lookup(self, t):
        b = self
        while b is not None:
            v = b.vars.get(id(t))
            if v is not None:
                return v
            b = b.parent
        raw = getattr(t, "_data", None)
        if raw is None:
            return None
        b = self
        while b is not None:
            v = b.raw.get(id(raw))
            if v is not None:
                self.vars[id(t)] = v
                self.keep.append(t)
                return v
            b = b.parent
        return None

    def operand(self, x):
        if isinstance(x, Tensor):
            v = self.lookup(x)
            if v is None:
                v = self.root._capture(x)
            return v
        return Const(x)

    def _capture(self, t):
        v = self._captured_ids.get(id(t))
        if v is None:
            v = Var(tuple(t.shape), t.dtype.name, "c")
            self.captured.append((t, v))
            self._captured_ids[id(t)] = v
            self._bind(t, v)
        return v

    def is_traced(self, t):
        return self.lookup(t) is not None

    def is_tracked(self, t):
        return self.lookup(t) is not None

    # ------------------------------------------------------------ recording (called by the dispatcher)
    def record(self, prim, args, attrs, out):
        inputs = [self.operand(a) for a in args]
        if prim.multi_output:
            outs = [self.new_var(o) for o in out]
        else:
            outs = [self.new_var(out)]
            if outs[0].shape == () and _scalar_inputs(inputs):
                # arithmetic on Python scalars of the graph (`int(t) + 1`) stays a Python scalar
                outs[0].pytype = _pytype_of(outs[0].dtype)
        node = Node(prim, inputs, attrs, outs, _node_loc())
        if _recomputing[0]:
            node.recomputed = True
        # what the parallel partitioner reads of the node (`mindseed.parallel._ir`): its operator's strategy, the
        # forward node its bprop differentiates, the value whose gradient parts it adds
        node.strategy = scope_strategy(args)
        if _state.bprop_of is not None:
            of = _state.bprop_of
            node.differentiates = tuple(map(self._var_of, of)) if isinstance(of, tuple) else self._var_of(of)
        if _state.summing is not None:
            node.sums = self._var_of(_state.summing)
        if self.partitions:
            node.scopes = tuple(_state.scopes)
        self.graph.nodes.append(node)

    def _var_of(self, t):
        return self.lookup(t) if isinstance(t, Tensor) else None

    def emit(self, prim, inputs, attrs, outs_tensors):
        """Add a node for already-computed outputs (control flow nodes)."""
        outs = [self.new_var(o) for o in outs_tensors]
        if prim is WHILE:     # a loop's carried Python scalars stay Python scalars
            for i, o in zip(inputs, outs):
                if isinstance(i, Var) and i.pytype is not None:
                    o.pytype = _pytype_of(o.dtype)
        self.graph.nodes.append(Node(prim, inputs, attrs, outs, _node_loc()))
        return outs

    def mark_scalar(self, t, pytype=None):
        """`t` (a 0-d tensor of the graph) is a Python scalar in MindSpore's sense: handed back as bool/int/float."""
        v = self.operand(t)
        if isinstance(v, Var):
            v.pytype = pytype or _pytype_of(v.dtype)
        return t

    def mark_tensor(self, t):
        """`t` (a graph value computed from Python scalars of the graph) is a Tensor, not a Python scalar
        (ScalarToTensor's result)."""
        v = self.operand(t)
        if isinstance(v, Var):
            v.pytype = None
        return t

    # ------------------------------------------------------------ the Recorder protocol (_utils._state)
    def _argument_leaves(self, v):
        """The argument leaves whose values determine v (v an argument, or computed from arguments only by
        primitives that neither draw random numbers nor update state), or None."""
        by_value, leaves, todo, seen = self.root.by_value, set(), [v], set()
        producers = None
        while todo:
            v = todo.pop()
            if id(v) in seen:
                continue
            seen.add(id(v))
            leaf = by_value.get(id(v))
            if leaf is not None:
                leaves.add(leaf)
                continue
            if producers is None:
                producers = {id(o): n for b in self._chain() for n in b.graph.nodes for o in n.outputs}
            node = producers.get(id(v))
            if node is None or getattr(node.prim, "impl", None) is None or node.prim.random or node.prim.side_effect:
                return None     # read from outside, drawn, updated, or out of control flow: known at run time
            todo.extend(x for x in node.inputs if isinstance(x, Var))
        return leaves

    def _chain(self):
        b = self
        while b is not None:
            yield b
            b = b.parent

    def on_item(self, t):
        """A user's `t.item()` of a tensor computed inside a graph that must compile whole (STRICT syntax): as in
        MindSpore, a scalar of the graph (a 0-d tensor handed back as a Python number), not a graph break. Reads by
        mindseed's own code, of Parameters or of tensors from outside keep `on_concrete_read`'s rules."""
        if not self.root.strict or isinstance(t, Parameter) or self.lookup(t) is None or _library_read():
            return None
        from mindseed.compiler.helpers import _scalar  # noqa: PLC0415 -- helpers import this module
        return _scalar(t, t.dtype, None, "Tensor.item")

    def on_concrete_read(self, t, what, constant=True):
        v = self.lookup(t)
        if v is not None and constant and not isinstance(t, Parameter) and self.root.by_value is not None \
                and _library_read():
            leaves = self._argument_leaves(v)
            if leaves is not None:
                # a value fixed by the arguments' values (a depth or a range bound given as a tensor, a `mutable`
                # axis): a constant of this graph, whose cache keys on those arguments' values
                self.root.value_reads.update(leaves)
                return
        if v is not None:
            raise GraphBreak(f"{what} of a tensor computed inside the graph (at {user_location()}) is only known "
                             f"at run time")
        if isinstance(t, Parameter):
            # a Parameter's value changes between calls (optimizers, assign): not a constant of the graph
            raise GraphBreak(f"{what} of Parameter '{t.name}' (at {user_location()}) is only known at run time")

    def on_parameter_write(self, param, value):
        """`param.set_data(value)` while tracing: an Assign node; later reads of param see value."""
        from mindseed.ops._prims.core import assign_p  # noqa: PLC0415 -- ops sit below; imported at use
        var = self.lookup(param)
        target = self.root._capture(param) if var is None else self.root._captured_ids.get(id(param))
        argument = target is None and any(var is p for p in self.root.graph.params)
        if argument:
            target = var    # a Parameter the function was called with: the Assign writes the argument's buffer
        if target is None:
            return False
        self._freeze_for_tapes(param)
        if not replaying[0]:
            self.graph.nodes.append(Node(assign_p, [target, self.operand(value)], {}, [], user_location()))
        # control flow passes the new value out of a branch or loop body, a re-run's too (without the Assign):
        # its later reads, and a re-run loop's condition, see it
        self.assigned[id(param)] = param
        new = self.vars[id(param)] = self.operand(value)
        if argument:        # the other handles of the argument (the function's own parameter) read the new value too
            self.root.input_tensors[id(target)]._data = value._data
            b = self
            while b is not None:
                for key, v in list(b.vars.items()):
                    if v is target:
                        self.vars[key] = new
                b = b.parent
        return True

    def _freeze_for_tapes(self, param):
        """Before param takes a new value of the graph: the grad tapes' nodes recorded so far that read it get its
        current value for their bprops, as an Identity of it (a new handle on the old memory: the Assign gives
        the Parameter new storage). A tape active here was made in this graph (bodies trace tape-less), so its
        backward runs here too."""
        from mindseed.ops._prims.core import identity_p  # noqa: PLC0415 -- ops sit below; imported at use
        tapes = [tp for tp in _state.tapes if not getattr(tp, "records_all", False)]
        if not tapes or not any(a is param for tp in tapes for n in tp.nodes for a in n[1]):
            return
        old = Tensor._from_raw(identity_p.impl(param._data))
        self.on_copy(param, old)
        for tp in tapes:
            tp.freeze_input(param, old)

    def on_argument_write(self, t, value):
        from mindseed.ops._prims.core import assign_p  # noqa: PLC0415 -- ops sit below; imported at use
        var = self.lookup(t)
        if var is None or not any(var is p for p in self.root.graph.params):
            return False
        # this call (the trace) writes the caller's tensor too: the argument shares its buffer with it
        assign_p.impl(t._data, value._data)
        return self.on_parameter_write(t, value)

    def on_copy(self, src, t):
        """t is another handle of src's value (detach(), a copy, Parameter.value()): an Identity node of this
        graph only (src captured first if it is a tensor from outside)."""
        from mindseed.ops._prims.core import identity_p  # noqa: PLC0415 -- ops sit below; imported at use
        self.record(identity_p, [src], {}, t)

    def rebind(self, obj, replacement):
        v = self.lookup(obj)
        if v is not None:
            self.vars[id(replacement)] = v
            self.keep.append(replacement)

    def on_cell_call(self, cell):
        self.root.cells[id(cell)] = cell


def _pytype_of(dtype_name):
    if dtype_name == "Bool":
        return bool
    if dtype_name.startswith(("Int", "UInt")):
        return int
    return float


def _scalar_inputs(inputs):
    seen = False
    for x in inputs:
        if isinstance(x, Var):
            if x.pytype is None:
                return False
            seen = True
        elif not isinstance(x.value, (bool, int, float)):
            return False
    return seen


class building:
    """Context: `builder` becomes the innermost recorder (an enclosing builder stops recording meanwhile)."""

    def __init__(self, builder):
        self.builder = builder

    def __enter__(self):
        tapes = _state.tapes
        self.saved = list(tapes)
        # grad tapes stay active; only the innermost builder records
        tapes[:] = [t for t in tapes if not getattr(t, "records_all", False)] + [self.builder]
        self.saved_tracing = _state.tracing
        _state.tracing = self.builder
        return self.builder

    def __exit__(self, *exc):
        _state.tapes[:] = self.saved
        _state.tracing = self.saved_tracing
        return False


# ---------------------------------------------------------------- recomputation (Cell.recompute)
_recomputing = [0]


def recompute_call(fn, args, weights=(), name="Recompute"):
    """fn(*args) whose inner activations are not kept for the backward pass: one node on each grad tape whose
    rule runs fn again from its inputs and applies that run's vjp (the graph gets the forward twice; the
    recomputed nodes are marked so common-subexpression elimination does not merge them back)."""
    from mindseed.autograd import _tape  # noqa: PLC0415 -- autograd sits below; imported at use
    from mindseed.autograd.custom import _UserBprop  # noqa: PLC0415
    from mindseed.autograd.grad import vjp  # noqa: PLC0415
    tapes = [tp for tp in _state.tapes if not getattr(tp, "records_all", False)]
    if not tapes:
        return fn(*args)
    pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    inputs = [args[i] for i in pos]
    for tp in tapes:
        # a tape that differentiates the weights a function reads when it first meets them (a compiled
        # function differentiated from outside): fn's run below is paused, so it meets them now
        adopt = getattr(tp, "adopt_external", None)
        if adopt is not None:
            for w in weights:
                adopt(w)
    weights = [w for w in weights if any(tp.is_tracked(w) for tp in tapes)]
    if not any(tp.is_tracked(x) for tp in tapes for x in inputs + weights):
        return fn(*args)
    from mindseed.ops._registry import RandomDraws  # noqa: PLC0415
    draws = RandomDraws()     # the re-runs reuse this run's dropout masks and noise
    with _tape.paused(), draws.active(replaying=False):
        orig = fn(*args)
    multi = isinstance(orig, tuple)
    # fresh handles: an output may be an input object, which must not be confused with it on the tape
    out = tuple(Tensor._from_raw(o._data) for o in orig) if multi else Tensor._from_raw(orig._data)
    if _state.tracing is not None:
        for o, src in zip(out if multi else (out,), orig if multi else (orig,)):
            _state.tracing.rebind(src, o)

    def rerun(*xs):
        full = list(args)
        for i, x in zip(pos, xs):
            full[i] = x
        with replay(), draws.active(replaying=True):
            return fn(*full)

    def bprop(*all_args):
        *_, _o, dout = all_args
        _recomputing[0] += 1
        try:
            _, pull = vjp(rerun, *all_args[:len(inputs)], weights=weights or None)
            grads = pull(*(dout if isinstance(dout, tuple) else (dout,)))
        finally:
            _recomputing[0] -= 1
        if weights:
            ig, wg = grads
            return tuple(ig) + tuple(wg)
        return tuple(grads)

    node = _UserBprop(name, bprop, True)
    for tp in tapes:
        tp.record(node, tuple(inputs) + tuple(weights), {}, out if multi else (out,))
    return out
