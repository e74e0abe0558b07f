"""`jit`: compile a function or Cell.construct into generated code, cached by input signature.

`_Compiled` is the jitted function: per input signature (cache.py) it converts the source (parse.py), traces
it into a graph (trace.py), runs the passes, generates code (codegen.py) and dumps each stage when save_graphs
is on (dump.py); dynamic shapes fit one graph for all sizes (dynamic.py); differentiated from outside it
builds forward and backward graphs (autodiff.py). `mutable` (mutable.py) is re-exported here.
"""
import functools
import inspect
import os
import sys
import types
import warnings

from mindseed import _backend as B
from mindseed._backend import inductor as _inductor
from mindseed._utils import _scope, _state
from mindseed.common._parallel import runs_plain, simulated_runner
from mindseed.common.context import STRICT, get_context
from mindseed.common.parameter import Parameter, _is_parameter_generated
from mindseed.common.tensor import Tensor
from mindseed.compiler import arglists, capture, codegen, flops, passes
from mindseed.compiler.cache import (_Entry, _flatten, _key_of, _plain_constants, _repeats, _unflatten,  # noqa: F401
                                     check_nesting)
from mindseed.compiler.methods import strict_syntax
from mindseed.compiler.dump import dumper
from mindseed.compiler.dynamic import (_RANK, _agrees, _dyn_key, _DynInput, _dynamic_sig, _generalize, _same_meta,
                                       _signature_of)
from mindseed.compiler.ir import verify
from mindseed.common._mutable import _ScalarLeaf, mutable
from mindseed.compiler.helpers import _GraphStr
from mindseed.compiler.parse import calls_first_parameter, convert, original_code
from mindseed.compiler.trace import (_PKG_DIR, GraphBreak, GraphBuilder, ShardedCall, _is_user, add_user_trace,
                                     building, partitioning, tentative, user_frame)

__all__ = ["jit", "mutable", "jit_class", "JitConfig"]


def jit_class(cls):
    """Mark a class whose instances may be used inside compiled functions (attributes read as constants)."""
    if not isinstance(cls, type):
        raise TypeError(f"For 'jit_class', the argument must be a class, but got {type(cls).__name__}.")
    if hasattr(cls, "construct") and hasattr(cls, "cells_and_names"):    # a Cell (recognised by protocol)
        raise TypeError(f"Decorator jit_class is used for user-defined classes and cannot be used for nn.Cell: "
                        f"{cls}.")
    cls.__ms_class__ = True
    return cls


def _no_recursive(callable_obj):
    """MindSpore's `common.api._no_recursive`: mark a Cell class, function or method to skip the compiler's
    recursion check (`_func_graph_flags['no_recursive']`). mindseed's trace inlines calls as they run and has no
    such check: the mark is recorded only."""
    is_cell_class = isinstance(callable_obj, type) and hasattr(callable_obj, "construct") and \
        hasattr(callable_obj, "cells_and_names")
    if not is_cell_class and not inspect.ismethod(callable_obj) and not inspect.isfunction(callable_obj):
        raise TypeError(f"Decorator no_recursive is used for callable object, but got {callable_obj}.")
    flags = getattr(callable_obj, "_func_graph_flags", None)
    if flags is None:
        flags = {}
        (callable_obj.__func__ if inspect.ismethod(callable_obj) else callable_obj)._func_graph_flags = flags
    flags["no_recursive"] = True
    return callable_obj


class JitConfig:
    """Options of `jit`. jit_level '' (the default) leaves the level to the context (else 'O0'); 'O1' hands fusable
    regions to torch's inductor."""

    def __init__(self, jit_level="", exc_mode="auto", jit_syntax_level="", debug_level="RELEASE", infer_boost="off",
                 **kwargs):
        self.jit_level, self.exc_mode, self.jit_syntax_level = jit_level, exc_mode, jit_syntax_level
        self.jit_config_dict = dict(jit_level=jit_level, exc_mode=exc_mode, jit_syntax_level=jit_syntax_level,
                                    debug_level=debug_level, infer_boost=infer_boost, **kwargs)


class _Compiled:
    """A jitted function: converts, traces, optimizes and generates code once per input signature."""

    def __init__(self, fn, name, jit_level=None, bound_self=None, dyn=None, fullgraph=None, pipeline=None,
                 capture_mode="ast"):
        self.pipeline = pipeline      # the passes to run (None: passes.PIPELINE)
        self.capture_mode = capture_mode  # "bytecode": each call updates the function's record (capture.py)
        self._ran = None              # the cache entry the last call ran
        self.fullgraph = fullgraph    # True: no interpreter fallback; None: the context's jit_syntax_level
        self.dyn = dyn                # None (static shapes), "all" (dynamic=1) or per-argument shapes with None
        self.traces = 0               # how many times the function was traced (compile count)
        self.fn = fn                  # the plain function (unbound for methods)
        self.name = name
        self.jit_level = jit_level
        self.bound_self = bound_self  # the instance for a method or Cell.construct
        self.cache = {}
        self.value_keyed = {}   # cache key -> the argument leaves whose values are part of the key (read by a trace)
        self.value_graphs = {}  # cache key -> how many graphs were compiled for values of those leaves
        # the cells whose training flags are part of the cache key: the bound cell and every cell the traced
        # code called; `_modes` caches (train epoch, key part)
        self.mode_cells = {id(bound_self): bound_self} if hasattr(bound_self, "_modes") else {}
        self._modes = (None, ())
        self._converted = None
        self._inputs = None           # the bound cell's set_inputs this method was compiled for (see __get__)
        self._calls_self = None       # does the function call its first parameter (see _check_member_call)
        self.last_graph = None        # the graph compiled last (flops.py reads it)
        self.shards = False           # a trace met a sharded call: on a simulated world, calls run partitioned
        self.breaks = False           # a trace for the partitioner (`partition_trace`): a GraphBreak propagates
        functools.update_wrapper(self, fn)
        if bound_self is not None:      # a bound method's signature, as Python's: without its first parameter
            try:
                sig = inspect.signature(fn)
                self.__signature__ = sig.replace(parameters=list(sig.parameters.values())[1:])
            except (TypeError, ValueError):
                pass
        flops.register(self)

    def mode_key(self):
        """The training flags of the cells this function calls (a graph traced in training mode has dropout and
        batch statistics in it; after set_train(False) another graph is compiled, and kept)."""
        epoch = _state.train_epoch
        if self._modes[0] != epoch:
            self._modes = (epoch, tuple(c._modes() for c in self.mode_cells.values()))
        return self._modes[1]

    def note_cells(self, builder):
        """Record the cells a trace called (the key of the entry being stored uses them)."""
        if any(k not in self.mode_cells for k in builder.cells):
            self.mode_cells.update(builder.cells)
            self._modes = (None, ())

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        bound = self.__dict__.setdefault("_bound", {})
        c = bound.get(id(obj))
        # a jitted construct follows its cell's set_inputs, as the cell's own GRAPH_MODE compile does
        inputs = obj.__dict__.get("_inputs") if self.dyn is None and self.fn.__name__ == "construct" and \
            hasattr(obj, "_cells") else None
        if c is None or c._inputs is not inputs:
            dyn = self.dyn
            if inputs:
                dyn = _signature_of(inputs)
                if not any(_dynamic_sig(sg) for sg in dyn):
                    dyn = None
            c = bound[id(obj)] = _Compiled(self.fn, self.name, self.jit_level, bound_self=obj, dyn=dyn,
                                           fullgraph=self.fullgraph, capture_mode=self.capture_mode)
            c._inputs = inputs
        return c

    def _check_member_call(self, args):
        """A jitted method of a plain class, called from Python: its object (bound, or the first argument when it
        has an attribute of the method's name) is the class member namespace of the graph, whose attributes and
        methods the graph reads but which cannot be called itself (MindSpore's ValueError)."""
        if self._calls_self is None:  # read from the source once: most functions never call their first parameter
            self._calls_self = calls_first_parameter(self.fn)
        if not self._calls_self:
            return
        obj = self.bound_self
        if obj is None and args and not isinstance(args[0], Tensor) and hasattr(args[0], self.name):
            obj = args[0]
        if obj is not None and not getattr(obj, "__ms_class__", False) and not hasattr(obj, "_cells"):
            raise ValueError(f"For 'jit' function '{self.name}', its first argument, a {type(obj).__name__} object, "
                             f"is the class member namespace of the graph and is called: The object is not "
                             f"callable. Please check code.")

    def _plain(self):
        """The function as written (bound to its object), to run as PyNative calls."""
        return self.fn if self.bound_self is None else functools.partial(self.fn, self.bound_self)

    def _target(self):
        if self._converted is None:
            converted = convert(self.fn)
            if self.bound_self is not None:
                converted = functools.partial(converted, self.bound_self)
            self._converted = converted
        return self._converted

    def __call__(self, *args, **kwargs):
        if _state.tracing is not None:
            # inside another graph: inline (the enclosing trace records our ops)
            return self._target()(*args, **kwargs)
        self._check_member_call(args)
        if runs_plain():   # the partitioner records the primitive calls (or will): run them as PyNative calls
            return self._plain()(*args, **kwargs)
        cell = self.bound_self
        runner = simulated_runner()
        if runner is not None and (self.shards or hasattr(cell, "_cells") and simulated_runner(cell) is not None):
            # a cell holding a Cell.shard, or a graph calling a sharded function or cell, on a simulated world:
            # partitioned from its graph (from its PyNative recording when the graph breaks or updates other state)
            return runner.forward(lambda *a: self._plain()(*a, **kwargs), args, graph=self, kwargs=kwargs)
        # a jitted method of a cell (bound, or given the cell first) runs its phase's graph, with its flags
        owner = cell if cell is not None else (args[0] if args else None)
        changed = owner._enter_phase() if hasattr(owner, "_enter_phase") else ()
        try:
            if self.capture_mode == "bytecode" and self.fn is not _run_cell:
                traces, self._ran = self.traces, None
                try:
                    out = self._call(args, kwargs)
                except Exception as e:   # the function raised: a graph break at the raise
                    capture.note_raise(self.fn.__code__, e.__traceback__, self._ran is None, _PKG_DIR, original_code)
                    raise
                ran = self._ran
                capture.note_call(self.fn.__code__, ran, self.traces > traces, ran is None or ran.run_fn is not None)
            else:
                out = self._call(args, kwargs)
        except ShardedCall:   # the trace met a sharded call (simulated_runner(traced=True)): this graph shards
            self.shards = True
            return simulated_runner().forward(lambda *a: self._plain()(*a, **kwargs), args, graph=self, kwargs=kwargs)
        finally:
            for c, flags in changed:
                c.add_flags(**flags)
        if isinstance(out, (dict, tuple)) and _strict(self.fullgraph):
            return _strict_output(out)
        return out

    def _call(self, args, kwargs):
        if _state.grad_enabled and any(not getattr(t, "records_all", False) for t in _state.tapes):
            # differentiated from outside (not under `_no_grad`, where the tapes record nothing): compiled
            # forward + compiled backward graphs (autodiff.py)
            from mindseed.compiler.autodiff import call_differentiated  # noqa: PLC0415 -- autodiff imports jit
            return call_differentiated(self, args, kwargs)
        if self.dyn is not None:
            return self._call_dynamic(args, kwargs)
        leaves = []
        _flatten((args, kwargs), leaves)
        key = (_key_of((args, kwargs)), _repeats(leaves))
        entry = self.cache.get(self._valued((key, self.mode_key()), leaves))
        if entry is None:
            entry, result = self._compile(args, kwargs, by_value=self._valued_graphs((key, self.mode_key())))
            # the mode key again: the trace may have met cells whose training flags key the graph
            self.cache[self._valued((key, self.mode_key()), leaves, entry)] = entry
            self._ran = entry
            return result
        self._ran = entry
        if entry.run_fn is None:
            return self._target()(*args, **kwargs)
        return _replay(entry, self._run(entry, leaves), (args, kwargs))

    def _call_dynamic(self, args, kwargs):
        """Dynamic shapes: one cache entry per signature with the dynamic dims unknown. The first call traces;
        a call with other sizes traces once more and the two graphs are unified into one graph whose
        size-dependent values (reshape targets, Python shape arithmetic) are computed from the input dims at
        run time. The fitted formulas are checked against a third traced size (a non-linear one such as `n // 2`
        fits any two sizes); once they agree, every later size runs that graph without compiling. Graphs that do
        not unify or agree (structure or numbers depend on the sizes otherwise) compile per size."""
        leaves = []
        _flatten((args, kwargs), leaves)
        key = (_dyn_key((args, kwargs), self.dyn), _repeats(leaves))
        entry = self.cache.get(self._valued((key, self.mode_key()), leaves))
        if entry is None:
            entry, result = self._compile(args, kwargs, by_value=self._valued_graphs((key, self.mode_key())))
            entry.samples = {tuple(t.shape for t in leaves): entry}
            self.cache[self._valued((key, self.mode_key()), leaves, entry)] = entry
            self._ran = entry
            return result
        self._ran = entry
        general = entry.general
        if general is not None and general.verified and general.fits(leaves):
            out = self._run(general, leaves, tuple(leaves[i].shape[j] for i, j in general.dims))
            return _replay(entry, out, (args, kwargs))
        shapes = tuple(t.shape for t in leaves)
        sub = entry.samples.get(shapes)
        if sub is not None:
            if sub.run_fn is None:
                return self._target()(*args, **kwargs)
            return _replay(sub, self._run(sub, leaves), (args, kwargs))
        sub, result = self._compile(args, kwargs)
        entry.samples[shapes] = sub
        if entry.run_fn is None or sub.run_fn is None or entry.decided or sub.decided:
            entry.general = None
        elif general is None and len(entry.samples) <= 4:
            # from the first sample and this one (a later pair may tell apart dims an earlier one could not)
            first_shapes = next(iter(entry.samples))
            entry.general = _generalize(entry, first_shapes, sub, shapes)
        elif general is not None and not general.verified and general.fits(leaves):
            dims = tuple(leaves[i].shape[j] for i, j in general.dims)
            if _same_meta(sub, general) and _agrees(general.graph, sub.graph, dims):
                general.verified = True
            else:
                entry.general = None     # the sizes' formulas are not the fitted ones: compile per size
        return result

    def _valued(self, key, leaves, entry=None):
        """The cache key of a call: `key`, with the values of the arguments that traces read (a depth, a range
        bound or a `mutable` axis given as a tensor fixed a shape or an attribute: one graph per value). With the
        entry just compiled, its reads join those of the signature."""
        read = self.value_keyed.get(key)
        if entry is not None and entry.value_reads:
            read = self.value_keyed[key] = tuple(sorted(set(entry.value_reads) | set(read or ())))
            self.value_graphs[key] = self.value_graphs.get(key, 0) + 1
            return (key, _values_of(leaves, read))
        if read is None:
            return key
        valued = (key, _values_of(leaves, read))
        if entry is None and valued in self.cache:
            return valued
        # a graph that reads no value (or, past the budget, the interpreter fallback) serves every value
        return valued if self._valued_graphs(key) else key

    def _valued_graphs(self, key):
        """May a new trace of this signature read argument values (one more graph per value)? Not after
        _MAX_VALUED graphs: the values change at every call (data, not a size), the interpreter runs that code."""
        return self.value_graphs.get(key, 0) < _MAX_VALUED

    def _dyn_dims_of(self, args, leaves):
        """{leaf index: the dynamic dims of that input tensor} under set_inputs / dynamic=1."""
        if self.dyn is None:
            return {}
        out, k = {}, 0
        for i, a in enumerate(args):
            n = []
            _flatten(a, n)
            if isinstance(a, Tensor) and len(n) == 1 and n[0] is a:
                if self.dyn == "all" or i < len(self.dyn) and self.dyn[i] == _RANK:
                    out[k] = frozenset(range(len(a.shape)))
                elif i < len(self.dyn) and self.dyn[i] is not None and len(self.dyn[i]) == len(a.shape):
                    out[k] = frozenset(j for j, d in enumerate(self.dyn[i]) if d is None)
            k += len(n)
        return out

    def _run(self, entry, leaves, dims=None):
        if entry.run_fn is None:
            raise RuntimeError("internal: no compiled graph")
        if entry.in_keep is None:
            raw = [t._data for t in leaves]
        else:
            raw = [leaves[i]._data for i in entry.in_keep]
        raw += [t._data for t, _ in entry.captured]
        kw = {} if dims is None else {"_d": dims}
        if _state.profiling:
            outs = codegen.run_profiled(entry.run_fn, self.name, *raw, **kw)
        else:
            outs = entry.run_fn(*raw, **kw)
        if entry.out_types is None:
            return _unflatten(entry.out_tmpl, [Tensor._from_raw(o) for o in outs])
        return _unflatten(entry.out_tmpl, [Tensor._from_raw(o) if ty is None else ty(o.item())
                                           for o, ty in zip(outs, entry.out_types)])

    def _compile(self, args, kwargs, by_value=True):
        self.traces += 1
        obj = self.bound_self
        if obj is not None and hasattr(obj, "__dict__"):
            # as MindSpore's: the object's method compiled last is what a graph calling the object runs when its
            # class has no construct of its own (read by Cell.construct); compiling the cell's call resets it
            obj.__dict__["__parse_method__"] = "construct" if self.fn is _run_cell else self.fn.__name__
        entry = _Entry()
        target = self._target()
        builder = GraphBuilder(self.name)
        builder.strict = bool(_strict(self.fullgraph))
        builder.bytecode = self.capture_mode == "bytecode"
        leaves = []
        tmpl = _flatten((args, kwargs), leaves)
        # one graph input per distinct tensor: a tensor passed twice (f(x, x)) is one value, as in PyNative,
        # where a gradient w.r.t. it sums over its uses
        inputs, firsts, seen = [], [], {}
        dyn_dims = self._dyn_dims_of(args, leaves)
        builder.size_decisions = False
        builder.by_value = {} if by_value else None
        for i, leaf in enumerate(leaves):
            t = seen.get(id(leaf))
            if t is None:
                if dyn_dims.get(i):
                    t = object.__new__(_DynInput)
                    t._data, t._dyn_dims = leaf._data, dyn_dims[i]
                else:
                    t = Tensor._from_raw(leaf._data)
                seen[id(leaf)] = t
                firsts.append(i)
                v = builder.add_input(t)
                if isinstance(leaf, _ScalarLeaf):
                    builder.mark_scalar(t)
                if by_value and not isinstance(leaf, Parameter):
                    builder.by_value[id(v)] = i
            inputs.append(t)
        targs, tkwargs = _unflatten(tmpl, inputs)
        for given, traced in zip((*args, *kwargs.values()), (*targs, *tkwargs.values())):
            builder.note_argument_containers(given, traced)
        lists = arglists.pair_lists((args, kwargs), (targs, tkwargs))
        builder.pending_prints = []     # the trace's prints, shown once it completes (helpers._ms_print)
        try:
            with building(builder), tentative():
                result = target(*targs, **tkwargs)
            if arglists.holds(result, _GraphStr):
                raise GraphBreak("the result holds a string formatted from tensors of the graph")
        except ShardedCall:
            raise
        except GraphBreak as exc:
            return self._interpreted(entry, exc, args, kwargs)
        except Exception as exc:
            _show_prints(builder)
            if any(isinstance(a, _GraphStr) for a in exc.args):   # `raise E(f"... {x}")`: the text of this run
                exc.args = tuple(a.now() if isinstance(a, _GraphStr) else a for a in exc.args)
            if self.capture_mode == "bytecode" and getattr(exc, "bytecode_break", False):
                # PIJit captures what one graph can hold: branches whose values do not join, or a `raise` of a type the
                # graph parser refuses, break the graph
                return self._interpreted(entry, GraphBreak(str(exc).split("\n")[0]), args, kwargs)
            err = _graph_exception(exc)
            # name the user's line (MindSpore: "The Traceback of Net Construct Code"), in the traceback text
            where = user_frame(err)
            if where is not None and hasattr(err, "add_note") and not getattr(err, "__notes__", None):
                err.add_note(f"In file {where[0]}:{where[1]} (compiling '{self.name}' in graph mode)")
            add_user_trace(err)     # and in the message itself
            if err is exc:
                raise
            raise err from None
        finally:
            self.note_cells(builder)
        _show_prints(builder)
        # PIJit (bytecode capture) does not resolve Parameter objects by name: only the argument rule holds there
        _check_parameter_names(leaves, builder.captured, self.bound_self if self.capture_mode != "bytecode" else None,
                               self.name, resolved=self.capture_mode != "bytecode")
        entry.arg_updates = arglists.updates_of(lists)
        entry.out_aliases = arglists.result_aliases(result, lists)
        entry.decided = builder.size_decisions
        entry.value_reads = tuple(builder.value_reads)
        out_leaves = []
        check_nesting(result)
        entry.out_tmpl = _flatten(result, out_leaves)
        plain = _plain_constants(entry.out_tmpl)
        if plain is not entry.out_tmpl:
            entry.out_tmpl = plain
            result = _unflatten(plain, out_leaves)
        graph = builder.graph
        graph.outputs = [builder.operand(t) for t in out_leaves]
        # Python scalars of the graph (`int(t)`, a loop counter) go back to Python as bool/int/float
        types = [getattr(v, "pytype", None) for v in graph.outputs]
        entry.out_types = tuple(types) if any(types) else None
        if entry.out_types is not None or any(isinstance(t, Parameter) for t in out_leaves):
            # a graph's outputs are values, as on the compiled calls: a Parameter returned comes out as a Tensor
            result = _unflatten(entry.out_tmpl, [
                ty(B.item(t._data)) if ty is not None else Tensor._from_raw(t._data) if isinstance(t, Parameter)
                else t for t, ty in zip(out_leaves, types)])
        for _, v in builder.captured:
            graph.add_param(v)
        verify(graph)
        graph.dynamic = self.dyn is not None
        dump = dumper(self.name)
        graph = passes.run_pipeline(graph, dump=dump, pipeline=self.pipeline)
        entry.source, entry.run_fn = codegen.generate(graph, "graph_fn")
        if _jit_level(self.jit_level) in ("O1", "O2"):
            entry.run_fn = _inductor.compile_graph(entry.run_fn)   # fused by inductor on its first run
        if dump is not None:
            dump("99_codegen", entry.source)
        entry.captured = builder.captured
        entry.in_keep = None if len(firsts) == len(leaves) else firsts
        if graph.kept_params is not None:
            # unused inputs were pruned: pass only the kept ones (unread Parameters are not even read)
            n_in = len(firsts)
            entry.in_keep = [firsts[i] for i in graph.kept_params if i < n_in]
            entry.captured = [builder.captured[i - n_in] for i in graph.kept_params if i >= n_in]
        entry.graph = graph
        flops.note_compiled(self, graph)
        # the trace run was a real execution: its results are this call's results
        return entry, _replay(entry, result, (args, kwargs))

    def _interpreted(self, entry, exc, args, kwargs):
        """The trace stopped (`exc`): this signature runs in the interpreter, this call too."""
        self.fall_back(exc, f"'{self.name}'")
        entry.run_fn, entry.captured, entry.out_tmpl, entry.source, entry.graph = None, [], None, None, None
        entry.out_types, entry.value_reads = None, ()
        return entry, self._target()(*args, **kwargs)

    def fall_back(self, exc, what):
        """A trace stopped at code the graph cannot hold: warn that `what` runs in the interpreter (JIT Fallback),
        filed against the user's calling line, or raise when the whole function must be one graph (fullgraph=True,
        jit_syntax_level STRICT)."""
        if self.breaks:     # a trace for the partitioner: its caller runs the function otherwise
            raise exc
        if getattr(exc, "refused", None) is not None and self.capture_mode != "bytecode":
            raise exc.refused from None
        if _strict(self.fullgraph):
            if getattr(exc, "strict_error", None) is not None:
                raise exc.strict_error from None
            raise RuntimeError(f"For 'jit', {what} must compile as one graph (fullgraph=True / jit_syntax_level "
                               f"STRICT), but {exc}. Set fullgraph=False to run that code in the interpreter "
                               f"(JIT Fallback).") from None
        level, f = 2, sys._getframe(1)
        while f is not None and not _is_user(f.f_code.co_filename):
            f, level = f.f_back, level + 1
        warnings.warn(f"mindseed.jit: {what} runs in the interpreter (JIT fallback): {exc}",
                      stacklevel=level if f is not None else 2)

    def graphs(self):
        """The compiled graphs (one per input signature), for inspection."""
        return [e.general.graph if e.general is not None else e.graph for e in self.cache.values()
                if e.graph is not None]


def _show_prints(builder):
    """Run the prints a trace deferred (in order), once."""
    pending, builder.pending_prints = builder.pending_prints, None
    for run, raw in pending or ():
        run(*raw)


def _replay(entry, out, root):
    """What a call does to the caller's lists of constants (root = (args, kwargs)): their new contents, and the
    caller's own list objects in the result where the function returns them (arglists.py)."""
    if entry.arg_updates:
        arglists.apply_updates(entry.arg_updates, root)
    if entry.out_aliases:
        out = arglists.apply_aliases(out, entry.out_aliases, root)
    return out


_MAX_VALUED = 16    # graphs per signature keyed on argument values, before such reads fall back


def _values_of(leaves, read):
    """The values of the argument leaves at the indices `read`, hashable (part of a value-keyed cache key)."""
    return tuple(B.to_numpy(leaves[i]._data).tobytes() for i in read)


def _jit_level(level):
    """The jit level in force: jit's own argument, else the context's jit_config / jit_level, else O0."""
    if not level:
        level = (get_context("jit_config") or {}).get("jit_level") or get_context("jit_level") or "O0"
    return level


def _check_parameter_names(leaves, captured, top=None, name="", resolved=True):
    """A Parameter passed as an argument of a graph must not share its name with another Parameter the graph
    holds (another argument, or a weight it reads): a ValueError, as in MindSpore. The weights of the compiled
    cell (`top`: its Parameters and its sub-cells', ParameterTuples included) may share names among themselves;
    a Parameter the graph reads from elsewhere (a global, a cell kept in a Python list, a ParameterTuple item
    the cell no longer holds under that name) must not share its name with another one the graph reads: a
    RuntimeError, as MindSpore's resolution of Parameter objects. Unnamed Parameters are named apart."""
    names = {}
    for p in leaves:
        if isinstance(p, Parameter) and not _is_parameter_generated(p.name) and names.setdefault(p.name, p) is not p:
            _raise_duplicate(p)
    for p, _ in captured:
        if isinstance(p, Parameter) and names.get(p.name, p) is not p:
            _raise_duplicate(p)
    params = [p for p, _ in captured if isinstance(p, Parameter) and not _is_parameter_generated(p.name)]
    if len(params) < 2 or not resolved:
        return
    owned = {id(p) for p in top.get_parameters()} if hasattr(top, "get_parameters") and \
        hasattr(top, "_cells") else set()
    seen = {}
    for p in params:
        seen.setdefault(p.name, []).append(p)
    for p in params:
        if id(p) not in owned and any(q is not p for q in seen[p.name]):
            where = f"{type(top).__name__}_construct" if id(top) in owned or hasattr(top, "_cells") else name
            raise RuntimeError(f"The parameter @{where}:param_{p.name} , its name '{p.name}' already exists. "
                               f"Please set a unique name for the parameter.")


_GRAPH_TYPE_NAMES = {bool: "Bool", int: "Int", float: "Float", str: "String", tuple: "Tuple", list: "List",
                     dict: "Dict"}


def _graph_exception(exc):
    """The exception a graph raises for `exc`, raised by the user's code while tracing: a Python scalar divided by
    zero is MindSpore's ValueError of its scalar arithmetic (the same traceback), a missing attribute of a Python
    value names the value's graph type ('Int', 'NamedTuple'); anything else as it is."""
    if not isinstance(exc, (ZeroDivisionError, AttributeError)) or exc.__traceback__ is None:
        return exc
    tb = exc.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    if tb.tb_frame.f_code.co_filename.startswith(_PKG_DIR):
        return exc      # mindseed's own code: not the user's scalar arithmetic or attribute read
    text = str(exc)
    if isinstance(exc, AttributeError):
        obj, name = getattr(exc, "obj", None), getattr(exc, "name", None)
        kind = "NamedTuple" if isinstance(obj, tuple) and hasattr(type(obj), "_fields") else \
            _GRAPH_TYPE_NAMES.get(type(obj))
        if kind is None or name is None or not text.startswith(f"'{type(obj).__name__}' object has no attribute"):
            return exc
        exc.args = (f"'{kind}' object has no attribute '{name}'",)
        return exc
    msg = "Cannot perform modulo operation on zero." if text.startswith("integer modulo") or text == "float modulo" \
        else "The divisor could not be zero. But the divisor is zero now."
    return ValueError(msg).with_traceback(exc.__traceback__)


def _raise_duplicate(p):
    raise ValueError(f"The parameter {p!r} , its name '{p.name}' already exists. Please set a unique name for the "
                     f"parameter.")


def _strict_output(out):
    """Under STRICT syntax a graph returns no dict: MindSpore gives back the tuple of its values."""
    if isinstance(out, dict):
        return tuple(_strict_output(v) for v in out.values())
    if isinstance(out, tuple) and not hasattr(out, "_fields"):
        return tuple(_strict_output(v) for v in out)
    return out


def _strict(fullgraph):
    """No interpreter fallback: MindSpore's MS_DEV_JIT_SYNTAX_LEVEL when set (0 STRICT, 1 COMPATIBLE, 2 LAX: it
    overrides everything), else jit's own fullgraph / JitConfig, else the context's jit_syntax_level."""
    env = os.environ.get("MS_DEV_JIT_SYNTAX_LEVEL")
    if env in ("0", "1", "2"):
        return env == "0"
    if fullgraph is not None:
        return fullgraph
    return strict_syntax()


def _syntax_strict(level):
    """A JitConfig's jit_syntax_level as jit's `fullgraph`: True for STRICT, False for COMPATIBLE / LAX, None (the
    context decides) when unset."""
    if level in (None, ""):
        return None
    return str(level).upper() in ("STRICT", str(STRICT))


def jit(function=None, *, capture_mode="ast", jit_level=None, dynamic=0, fullgraph=False, backend="",
        mode=None, input_signature=None, hash_args=None, jit_config=None, compile_once=False, **options):
    """Compile `function` (or a Cell's construct) into a graph, run as generated code.

    Args:
        function (callable): the function, method or Cell to compile.
        capture_mode (str): ``'ast'`` (the source is parsed); ``'bytecode'`` and ``'trace'`` are accepted and
            compile the same way.
        jit_level (str): ``'O0'``: generated code calling one kernel per node, compiled in milliseconds;
            ``'O1'``: that code handed to torch's inductor, which fuses elementwise/reduction chains
            (seconds to compile). Default: the context's ``jit_config['jit_level']``, else ``'O0'``.
        dynamic (int): 1 compiles once for all sizes of the tensor inputs (dims unknown at compile time).
        input_signature (tuple): Tensor(shape=[None, 3], ...) placeholders: the None dims are dynamic.
        fullgraph (bool): raise instead of falling back to the interpreter on unsupported code.

    Returns:
        The compiled callable (a decorator when `function` is None).

    >>> import mindseed as ms
    >>> @ms.jit
    ... def f(x):
    ...     return x * 2 + 1
    >>> f(ms.Tensor([1.0]))
    Tensor(shape=[1], dtype=Float32, value= [ 3.00000000e+00])
    """
    if capture_mode not in ("ast", "bytecode", "trace"):
        raise ValueError(f"For 'jit', the argument 'capture_mode' must be one of ['ast', 'bytecode', 'trace'], but "
                         f"got {capture_mode!r}.")
    if dynamic not in (0, 1) or isinstance(dynamic, float):
        raise ValueError(f"For 'jit', the argument 'dynamic' must be 0 or 1, but got {dynamic!r}.")
    if not isinstance(fullgraph, bool):
        raise TypeError(f"For 'jit', the argument 'fullgraph' must be bool, but got {type(fullgraph).__name__}.")
    strict = fullgraph or None
    if isinstance(jit_config, JitConfig):
        jit_level = jit_config.jit_level or None      # '': the context decides
        if _syntax_strict(jit_config.jit_syntax_level):
            strict = True
    if jit_level not in (None, "O0", "O1", "O2"):
        raise ValueError(f"For 'jit', the argument 'jit_level' must be one of ['O0', 'O1', 'O2'], but got "
                         f"{jit_level!r}.")
    dyn = "all" if dynamic else None
    if input_signature is not None:
        sig = input_signature if isinstance(input_signature, (tuple, list)) else (input_signature,)
        dyn = _signature_of(sig)
        if not any(_dynamic_sig(s) for s in dyn):
            dyn = None

    def wrap(fn):
        if isinstance(fn, _Compiled):
            return fn
        if hasattr(fn, "construct") and hasattr(fn, "_cells"):
            inputs = fn.__dict__.get("_inputs")
            d = _signature_of(inputs) if dyn is None and inputs else dyn
            # the whole call, as GRAPH_MODE compiles it: to_float casts and hooks included
            compiled = _Compiled(_run_cell, type(fn).__name__, jit_level, bound_self=fn, dyn=d, fullgraph=strict)
            compiled._converted = functools.partial(_run_cell, fn)
            return compiled
        if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType) and \
                not isinstance(fn.__self__, type):
            # a bound method (`jit(net.construct)`): its function compiled with the object bound, as a decorated
            # method is, so its source is converted (control flow on tensors stays in the graph)
            return _Compiled(fn.__func__, fn.__name__, jit_level, bound_self=fn.__self__, dyn=dyn, fullgraph=strict,
                             capture_mode=capture_mode)
        if not isinstance(fn, (types.FunctionType, types.MethodType, type)) and callable(fn) and \
                not hasattr(fn, "__code__"):
            # a callable object (a Primitive instance `jit(ops.Add())`, a functools.partial): its call is the graph
            obj = fn

            def fn(*args, **kwargs):
                return obj(*args, **kwargs)
            fn.__name__ = fn.__qualname__ = getattr(obj, "__name__", type(obj).__name__)
        return _Compiled(fn, getattr(fn, "__name__", "fn"), jit_level, dyn=dyn, fullgraph=strict,
                         capture_mode=capture_mode)

    if function is None:
        return wrap
    return wrap(function)


def compile_cell_call(cell, args, kwargs):
    """GRAPH_MODE entry for Cell.__call__: the cell's whole call, compiled and cached on the cell."""
    compiled = cell.__dict__.get("_ms_compiled")
    if compiled is None:
        inputs = cell.__dict__.get("_inputs")
        dyn = _signature_of(inputs) if inputs else None
        if dyn is not None and not any(_dynamic_sig(sg) for sg in dyn):
            dyn = None
        config = cell.__dict__.get("_jit_config_dict") or {}     # Cell.set_jit_config
        compiled = _Compiled(_run_cell, type(cell).__name__, jit_level=config.get("jit_level") or None,
                             bound_self=cell, dyn=dyn, fullgraph=_syntax_strict(config.get("jit_syntax_level")))
        compiled._converted = functools.partial(_run_cell, cell)
        cell.__dict__["_ms_compiled"] = compiled
    return compiled(*args, **kwargs)


def _run_cell(cell, *args, **kwargs):
    _scope.push(cell)       # the compiled cell is the scope of what it calls ("Default" at the top)
    try:
        return cell._run(args, kwargs)
    finally:
        _scope.pop()


def trace_graph(fn, args, pipeline=None):
    """One compile of `fn` (a Cell or function) on `args` with the given passes, for the graph's consumers (export):
    the cache entry, whose `graph` has the inputs then the captured tensors (`captured`) as parameters. Code the
    graph cannot hold raises instead of falling back to the interpreter."""
    entry, _ = _compiled_for_export(fn, pipeline)._compile(tuple(args), {})
    return entry


def partition_trace(fn, args, kwargs=None):
    """The graph of one call of `fn` for the parallel partitioner (`mindseed.parallel._ir`): `fn` a Cell (its whole
    call, as GRAPH_MODE compiles it), a jitted function or method, a bound method or a function, traced on `args`
    under `trace.partitioning` (a sharded call met places its values with `Reshard` nodes) and without passes (the
    nodes are the traced primitive calls, each with its strategy and the forward node its bprop differentiates).
    Traced once per input signature, as `jit` compiles (the graphs are cached on `fn`, or on the object of a bound
    method). Returns (graph, the tensors of its parameters in order for this call, the result's template for
    `cache._unflatten`). Code the graph cannot hold raises its `GraphBreak` (the caller runs the function otherwise).
    """
    compiled = _partition_compiled(fn)
    args, kwargs = tuple(args), dict(kwargs or {})
    leaves = []
    _flatten((args, kwargs), leaves)
    key = (_key_of((args, kwargs)), _repeats(leaves))
    entry = compiled.cache.get(compiled._valued((key, compiled.mode_key()), leaves))
    if entry is None:
        broken = compiled.__dict__.setdefault("_breaks", {})
        if (key, compiled.mode_key()) in broken:   # this signature's trace broke before: it breaks again
            raise broken[(key, compiled.mode_key())]
        try:
            with partitioning():
                entry, _ = compiled._compile(args, kwargs, by_value=compiled._valued_graphs((key, compiled.mode_key())))
        except GraphBreak as exc:
            broken[(key, compiled.mode_key())] = exc
            raise
        # keyed by the mode as it is after the trace (the cells it met join the key), as the next call looks it up
        compiled.cache[compiled._valued((key, compiled.mode_key()), leaves, entry)] = entry
    inputs = [leaves[i] for i in (entry.in_keep if entry.in_keep is not None else range(len(leaves)))]
    return entry.graph, inputs + [t for t, _ in entry.captured], entry.out_tmpl


def _partition_compiled(fn):
    """The `_Compiled` tracing `fn` for the partitioner (no passes; a graph break raises), kept on `fn` (a bound
    method: on its object, per function)."""
    method = isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType) and \
        not isinstance(fn.__self__, type)
    owner, key = (fn.__self__, fn.__func__) if method else (fn, None)
    store = getattr(owner, "__dict__", None)
    kept = {} if store is None else store.setdefault("_ms_partition_compiled", {})
    compiled = kept.get(key)
    if compiled is not None:
        return compiled
    if isinstance(fn, _Compiled):
        compiled = _Compiled(fn.fn, fn.name, bound_self=fn.bound_self, pipeline=[])
        compiled._converted = fn._converted if fn.fn is _run_cell else None
    elif method:
        compiled = _Compiled(fn.__func__, fn.__name__, bound_self=fn.__self__, pipeline=[])
    else:
        compiled = _compiled_for_export(fn, [])
    compiled.fullgraph, compiled.breaks = False, True
    kept[key] = compiled
    return compiled


def _compiled_for_export(fn, pipeline, dyn=None):
    """A _Compiled of `fn` (a Cell or function) without interpreter fallback, for trace_graph(_dynamic)."""
    if hasattr(fn, "construct") and hasattr(fn, "_cells"):
        compiled = _Compiled(_run_cell, type(fn).__name__, bound_self=fn, dyn=dyn, fullgraph=True, pipeline=pipeline)
        compiled._converted = functools.partial(_run_cell, fn)
        return compiled
    return _Compiled(fn, getattr(fn, "__name__", "fn"), dyn=dyn, fullgraph=True, pipeline=pipeline)


def trace_graph_dynamic(fn, placeholders, samples, pipeline=None):
    """One graph of `fn` for every size of the dynamic dims of `placeholders` (Tensor(shape=[None, 3], ...)), for the
    graph's consumers (export): `fn` is traced on each list of example inputs in `samples` (concrete tensors whose
    dynamic dims take different sizes) and the traces are unified as a dynamic-shape `jit` does (dynamic.py).
    Returns the general entry: its `graph` reads the dynamic dims as `Sym`s over `dims` [(input, dim)], or None when
    the graphs depend on the sizes otherwise (the code compares a size, or a number is no linear function of one)."""
    compiled = _compiled_for_export(fn, pipeline, dyn=_signature_of(placeholders))
    for args in samples:
        compiled._call_dynamic(tuple(args), {})
    entries = list(compiled.cache.values())
    general = entries[0].general if len(entries) == 1 else None
    return general if general is not None and general.verified else None
