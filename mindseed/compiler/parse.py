"""Parsing: a function's Python source (AST) rewritten so that its control flow can become graph control flow.

`if`/`while`/`for` statements, `x if c else y`, `and`/`or`/`not` are rewritten into calls of the
helpers in `control.py`, with the branch and loop bodies turned into local functions of the
variables they assign:

    if x.sum() > 0:                 def __ms_then_1(y):  y = x * 2; return (y,)
        y = x * 2          ==>      def __ms_else_1(y):  y = -x;    return (y,)
    else:                           (y,) = __ms_if(x.sum() > 0, __ms_then_1, __ms_else_1, (...current y...))
        y = -x

At trace time the helper runs the Python `if` when the condition is a Python value, and emits an
If node with both bodies as sub-graphs when it is a tensor. Early `return`s are folded into
if/else; `break`/`continue` become flag variables. Calls to user functions are converted the same
way when they are made (`__ms_call`). Line numbers are kept, so errors point at the user's source.
"""
import ast
import functools
import inspect
import itertools
import textwrap
import types

from mindseed import _backend as B
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.compiler import control
from mindseed.compiler.trace import GraphBreak

__all__ = ["convert", "ConversionError"]

_uid = itertools.count()
_cache = {}
_shadowed = set()
_HELPERS = {
    "__ms_if": None, "__ms_while": None, "__ms_for_range": None,
    "__ms_and": control.and_, "__ms_or": control.or_, "__ms_not": control.not_, "__ms_ifexp": control.ifexp,
    "__ms_call": None, "__ms_UNDEF": control.UNDEF, "__ms_ld": control.load, "__ms_seq": None,
    "__ms_len": len, "__ms_item": None, "__ms_assert": None,
}
# builtins whose calls on graph tensors become graph operations (by the helpers at the end of this file)
_GRAPH_BUILTINS = ("bool", "int", "float", "any", "all", "min", "max", "print")


class ConversionError(Exception):
    """The function cannot be rewritten (no source, or syntax we do not support in graphs)."""


# ---------------------------------------------------------------- analysis helpers
def _assigned(stmts):
    """Names bound by a statement list (not inside nested defs), in first-appearance order."""
    names = []

    class V(ast.NodeVisitor):
        def visit_Name(self, node):
            if isinstance(node.ctx, ast.Store) and node.id not in names:
                names.append(node.id)

        def visit_FunctionDef(self, node):
            if node.name not in names:
                names.append(node.name)

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_ClassDef(self, node):
            if node.name not in names:
                names.append(node.name)

        def visit_Lambda(self, node):
            pass

        def visit_ListComp(self, node):
            pass

        visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    for s in stmts:
        V().visit(s)
    return [n for n in names if not n.startswith("__ms_")] + [n for n in names if n.startswith("__ms_") and
                                                              n.split("_")[3] in ("brk", "cont", "i", "it")]


def _contains(stmts, kinds, stop_at_loops=True):
    for s in stmts:
        for node in _walk_no_nested(s, stop_at_loops):
            if isinstance(node, kinds):
                return True
    return False


def _walk_no_nested(node, stop_at_loops):
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if stop_at_loops and isinstance(child, (ast.For, ast.While)):
            continue
        yield from _walk_no_nested(child, stop_at_loops)


def _always_returns(stmts):
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return False


def _name(id_, ctx=ast.Load):
    return ast.Name(id=id_, ctx=ctx())


def _tuple(names, ctx=ast.Load):
    return ast.Tuple(elts=[_name(n, ctx) for n in names], ctx=ctx())


def _call(fn, args):
    return ast.Call(func=_name(fn) if isinstance(fn, str) else fn, args=args, keywords=[])


def _current_values(names):
    """(a if bound else UNDEF, ...) for each name, without raising for unbound locals."""
    return ast.Tuple(elts=[_call("__ms_ld", [_call("locals", []), ast.Constant(n)]) for n in names], ctx=ast.Load())


def _func(name, params, body, returns):
    ret = ast.Return(value=returns)
    return ast.FunctionDef(
        name=name, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                                      kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=(body or []) + [ret], decorator_list=[], returns=None, type_params=[])


# ---------------------------------------------------------------- the rewriter
class _Rewriter:
    def __init__(self, first_arg):
        self.first_arg = first_arg

    # statements -------------------------------------------------------------
    def block(self, stmts, in_loop=False):
        stmts = self._fold_early_returns(list(stmts))
        out = []
        for i, s in enumerate(stmts):
            new = self.stmt(s, in_loop)
            out.extend(new if isinstance(new, list) else [new])
        return out

    def _fold_early_returns(self, stmts):
        """`if c: return a` followed by more code  ->  `if c: return a` / `else: <more code>`."""
        for i, s in enumerate(stmts):
            if isinstance(s, ast.If) and i + 1 < len(stmts):
                if _always_returns(s.body) and not _always_returns(s.orelse):
                    s.orelse = self._fold_early_returns(s.orelse + stmts[i + 1:])
                    return stmts[:i + 1]
                if _always_returns(s.orelse) and not _always_returns(s.body) and s.orelse:
                    s.body = self._fold_early_returns(s.body + stmts[i + 1:])
                    return stmts[:i + 1]
        return stmts

    def stmt(self, s, in_loop):
        if isinstance(s, ast.If):
            return self.if_stmt(s, in_loop)
        if isinstance(s, ast.While):
            return self.while_stmt(s)
        if isinstance(s, ast.For):
            return self.for_stmt(s)
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return s
        if isinstance(s, ast.Break) and in_loop:
            return ast.copy_location(ast.Assign(targets=[_name(in_loop[0], ast.Store)], value=ast.Constant(True)), s)
        if isinstance(s, ast.Continue) and in_loop:
            return ast.copy_location(ast.Assign(targets=[_name(in_loop[1], ast.Store)], value=ast.Constant(True)), s)
        if isinstance(s, ast.Assert):
            # an assert on a graph tensor becomes a run-time check node
            test = _ExprRewriter(self.first_arg).visit(s.test)
            msg = ast.Constant(None) if s.msg is None else ast.Lambda(
                args=_noargs(), body=_ExprRewriter(self.first_arg).visit(s.msg))
            return ast.copy_location(ast.Expr(value=_call("__ms_assert", [test, msg])), s)
        return self.expr_in(s)

    def expr_in(self, s):
        return _ExprRewriter(self.first_arg).visit(s)

    def if_stmt(self, s, in_loop):
        uid = next(_uid)
        test = _ExprRewriter(self.first_arg).visit(s.test)
        returns = _always_returns(s.body) or _always_returns(s.orelse)
        if returns:
            # both paths end the function: the branches return the function's result
            body = self.block(s.body, in_loop)
            orelse = self.block(s.orelse, in_loop) if s.orelse else []
            names = _assigned(body + orelse)
            fns = []
            for kind, stmts in (("then", body), ("else", orelse)):
                if stmts and isinstance(stmts[-1], ast.Return):
                    fns.append(_func(f"__ms_{kind}_{uid}", names, stmts[:-1], stmts[-1].value or ast.Constant(None)))
                else:
                    fns.append(_func(f"__ms_{kind}_{uid}", names, stmts, ast.Constant(None)))
            call = _call("__ms_if", [test, _name(fns[0].name), _name(fns[1].name), _current_values(names),
                                     ast.Constant(True)])
            return [ast.copy_location(n, s) for n in (fns[0], fns[1], ast.Return(value=call))]
        body = self.block(s.body, in_loop)
        orelse = self.block(s.orelse, in_loop)
        names = _assigned(body + orelse)  # after rewriting: break/continue became flag assignments
        then_fn = _func(f"__ms_then_{uid}", names, body, _tuple(names))
        else_fn = _func(f"__ms_else_{uid}", names, orelse, _tuple(names))
        call = _call("__ms_if", [test, _name(then_fn.name), _name(else_fn.name), _current_values(names)])
        assign = ast.Assign(targets=[_tuple(names, ast.Store)], value=call) if names else ast.Expr(value=call)
        return [ast.copy_location(n, s) for n in (then_fn, else_fn, assign)]

    def while_stmt(self, s):
        if s.orelse:
            raise ConversionError("while ... else is not supported in graph mode")
        if _contains(s.body, (ast.Return,)):
            raise ConversionError("return inside a loop is not supported in graph mode")
        uid = next(_uid)
        brk, cont = f"__ms_brk_{uid}", f"__ms_cont_{uid}"
        has_brk = _contains(s.body, (ast.Break,))
        has_cont = _contains(s.body, (ast.Continue,))
        body = list(s.body)
        if has_brk or has_cont:
            body = self._guard_after_jumps(body, brk if has_brk else None, cont if has_cont else None)
        pre = []
        if has_brk:
            pre.append(ast.Assign(targets=[_name(brk, ast.Store)], value=ast.Constant(False)))
        if has_cont:
            body.insert(0, ast.Assign(targets=[_name(cont, ast.Store)], value=ast.Constant(False)))
            pre.append(ast.Assign(targets=[_name(cont, ast.Store)], value=ast.Constant(False)))
        names = _assigned(body)
        if has_brk and brk not in names:
            names.append(brk)
        test = _ExprRewriter(self.first_arg).visit(s.test)
        if has_brk:
            test = _call("__ms_and", [_call("__ms_not", [_name(brk)]), ast.Lambda(args=_noargs(), body=test)])
        new_body = self.block(body, in_loop=(brk, cont))
        cond_fn = _func(f"__ms_cond_{uid}", names, [], test)
        body_fn = _func(f"__ms_body_{uid}", names, new_body, _tuple(names))
        call = _call("__ms_while", [_name(cond_fn.name), _name(body_fn.name), _current_values(names)])
        assign = ast.Assign(targets=[_tuple(names, ast.Store)], value=call) if names else ast.Expr(value=call)
        return [ast.copy_location(n, s) for n in pre + [cond_fn, body_fn, assign]]

    def _guard_after_jumps(self, stmts, brk, cont):
        """Statements after one that may break/continue run only if no jump happened."""
        out = []
        for i, st in enumerate(stmts):
            if isinstance(st, ast.If):
                st.body = self._guard_after_jumps(st.body, brk, cont)
                st.orelse = self._guard_after_jumps(st.orelse, brk, cont)
            out.append(st)
            if _contains([st], (ast.Break, ast.Continue)) and i + 1 < len(stmts):
                flags = [f for f in (brk, cont) if f]
                cond = _call("__ms_not", [_call("__ms_or", [_name(flags[0]), ast.Lambda(args=_noargs(), body=_name(
                    flags[1]))])]) if len(flags) == 2 else _call("__ms_not", [_name(flags[0])])
                rest = self._guard_after_jumps(stmts[i + 1:], brk, cont)
                out.append(ast.copy_location(ast.If(test=cond, body=rest, orelse=[]), stmts[i + 1]))
                break
        return out

    def for_stmt(self, s):
        if s.orelse:
            raise ConversionError("for ... else is not supported in graph mode")
        jumps = _contains(s.body, (ast.Break, ast.Continue))
        is_range = isinstance(s.iter, ast.Call) and isinstance(s.iter.func, ast.Name) and s.iter.func.id == "range"
        if not jumps and not is_range:
            # a loop over a Python sequence (list, tuple, zip, enumerate, a tensor's rows) unrolls as it runs
            s.iter = _ExprRewriter(self.first_arg).visit(s.iter)
            s.body = self.block(s.body)
            return s
        uid = next(_uid)
        idx = f"__ms_i_{uid}"
        if is_range and not jumps and isinstance(s.target, ast.Name):
            # for i in range(...): stays a loop in the graph when a bound is a tensor
            args = [_ExprRewriter(self.first_arg).visit(a) for a in s.iter.args]
            body = self.block(s.body)
            names = [n for n in _assigned(s.body) if n != s.target.id]
            body_fn = _func(f"__ms_forbody_{uid}", [s.target.id] + names, body, _tuple(names))
            call = _call("__ms_for_range", [ast.Tuple(elts=args, ctx=ast.Load()), _name(body_fn.name),
                                            _current_values(names)])
            assign = ast.Assign(targets=[_tuple(names, ast.Store)], value=call) if names else ast.Expr(value=call)
            return [ast.copy_location(n, s) for n in (body_fn, assign)]
        # a loop with break/continue: an index-driven while over the materialized sequence
        seq = f"__ms_it_{uid}"
        init = [ast.Assign(targets=[_name(seq, ast.Store)], value=_call("__ms_seq", [
                    _ExprRewriter(self.first_arg).visit(s.iter)])),
                ast.Assign(targets=[_name(idx, ast.Store)], value=ast.Constant(0))]
        head = [ast.Assign(targets=[s.target], value=_call("__ms_item", [_name(seq), _name(idx)])),
                ast.AugAssign(target=_name(idx, ast.Store), op=ast.Add(), value=ast.Constant(1))]
        loop = ast.While(test=ast.Compare(left=_name(idx), ops=[ast.Lt()], comparators=[_call("__ms_len", [_name(seq)])]),
                         body=head + list(s.body), orelse=[])
        ast.copy_location(loop, s)
        for n in init + head:
            ast.copy_location(n, s)
        return init + self.while_stmt(loop)


def _noargs():
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


class _ExprRewriter(ast.NodeTransformer):
    """Expressions: and/or/not and conditional expressions on tensors; calls of user functions; super()."""

    def __init__(self, first_arg):
        self.first_arg = first_arg

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        fn = "__ms_and" if isinstance(node.op, ast.And) else "__ms_or"
        expr = node.values[0]
        for v in node.values[1:]:
            expr = _call(fn, [expr, ast.Lambda(args=_noargs(), body=v)])
        return ast.copy_location(expr, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call("__ms_not", [node.operand]), node)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        call = _call("__ms_ifexp", [node.test, ast.Lambda(args=_noargs(), body=node.body),
                                    ast.Lambda(args=_noargs(), body=node.orelse)])
        return ast.copy_location(call, node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args and self.first_arg:
            node.args = [_name("__class__"), _name(self.first_arg)]
            return node
        if isinstance(node.func, ast.Name) and node.func.id in _GRAPH_BUILTINS and node.func.id not in _shadowed:
            node.func = ast.copy_location(_name("__ms_" + node.func.id), node.func)
            return node
        if isinstance(node.func, ast.Name) and (node.func.id.startswith("__ms_") or node.func.id in _BUILTIN_NAMES):
            return node
        node.func = ast.copy_location(_call("__ms_call", [node.func]), node.func)
        return node

    def visit_Lambda(self, node):
        return node

    def visit_FunctionDef(self, node):
        return node


_BUILTIN_NAMES = {"len", "range", "isinstance", "print", "tuple", "list", "dict", "int", "float", "bool", "str",
                  "zip", "enumerate", "min", "max", "abs", "sum", "all", "any", "getattr", "hasattr", "type",
                  "locals", "iter", "next", "reversed", "sorted", "round", "divmod", "map", "filter", "setattr"}


# ---------------------------------------------------------------- entry point
def _should_convert(fn):
    if not isinstance(fn, types.FunctionType):
        return False
    mod = getattr(fn, "__module__", "") or ""
    return not (mod == "mindseed" or mod.startswith("mindseed.") or mod.startswith("mindspore"))


def convert_call(fn):
    """The callee to use inside a converted function: user functions are converted, everything else kept."""
    if isinstance(fn, types.MethodType) and _should_convert(fn.__func__):
        conv = convert(fn.__func__)
        return conv if conv is fn.__func__ else functools.partial(conv, fn.__self__)
    if _should_convert(fn):
        return convert(fn)
    return fn


_HELPERS["__ms_call"] = convert_call


def convert(fn):
    """`fn` with its control flow rewritten for graph tracing (or `fn` itself when it has no source / needs none)."""
    orig = fn
    fn = getattr(fn, "fn", fn)  # a jitted function: convert what it wraps
    if not _should_convert(fn):
        return orig
    cached = _cache.get(fn)
    if cached is not None:
        return cached
    try:
        new = _convert(fn)
    except (ConversionError, OSError, TypeError, SyntaxError, IndentationError):
        new = fn
    _cache[fn] = new
    return new


def _convert(fn):
    source = textwrap.dedent(inspect.getsource(fn))
    tree = ast.parse(source)
    fdef = tree.body[0]
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ConversionError("not a def")
    if isinstance(fdef, ast.AsyncFunctionDef):
        raise ConversionError("async functions are not supported")
    first_line = fn.__code__.co_firstlineno
    fdef.decorator_list = []
    args = fdef.args.posonlyargs + fdef.args.args
    first_arg = args[0].arg if args else None
    # a builtin name the function rebinds (a global, closure or local `min`) is left alone
    code = fn.__code__
    _shadowed.clear()
    _shadowed.update(n for n in _GRAPH_BUILTINS if n in fn.__globals__ or n in code.co_freevars or n in code.co_varnames)
    try:
        fdef.body = _Rewriter(first_arg).block(fdef.body)
    finally:
        _shadowed.clear()
    freevars = list(fn.__code__.co_freevars)
    uses_super = "super" in fn.__code__.co_names
    if uses_super and "__class__" not in freevars:
        freevars.append("__class__")
    factory = ast.FunctionDef(
        name="__ms_factory", args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=v) for v in freevars],
                                                vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[fdef, ast.Return(value=_name(fdef.name))], decorator_list=[], returns=None, type_params=[])
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, first_line - 1)
    code = compile(module, fn.__code__.co_filename, "exec")
    namespace = dict(fn.__globals__)
    namespace.update(_HELPERS)
    exec(code, namespace)  # noqa: S102 -- the user's own function, rewritten
    cells = []
    closure = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    for v in freevars:
        if v in closure:
            try:
                cells.append(closure[v].cell_contents)
            except ValueError:
                raise ConversionError(f"closure variable {v} is not bound yet") from None
        else:
            cells.append(_defining_class(fn))
    new = namespace["__ms_factory"](*cells)
    new.__defaults__ = fn.__defaults__
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__ms_original__ = fn
    return new


def _defining_class(fn):
    qual = fn.__qualname__.split(".")
    obj = fn.__globals__.get(qual[0])
    for part in qual[1:-1]:
        obj = getattr(obj, part, None)
    if not isinstance(obj, type):
        raise ConversionError("cannot find the class of a method using super()")
    return obj


# ---------------------------------------------------------------- helpers of converted code
# MindSpore compiles these where they act on graph tensors; here they become graph operations instead of
# stopping the trace. Outside a trace (or on Python values) each does exactly what the builtin does.
_AMBIGUOUS = "The truth value of an array with more than one element is ambiguous."


def _traced(x):
    b = _state.tracing
    return b is not None and isinstance(x, Tensor) and b.is_traced(x)


def _speculative():
    """True while tracing code whose trace-time values are not this call's: an untaken branch, a loop body."""
    b = _state.tracing
    while b is not None:
        if getattr(b, "speculative", False) or b.graph.name in ("cond", "body"):
            return True
        b = b.parent
    return False


def _scalar(t, dtype, pytype, what):
    if t.size != 1:
        raise ValueError(_AMBIGUOUS if pytype is bool else
                         f"For '{what}', only a tensor with one element can be converted to a Python scalar, but "
                         f"got shape {t.shape}.")
    src = t
    if t.ndim:
        t = t.reshape(())
    if t.dtype != dtype:
        t = t.astype(dtype)
    if t is src:
        from mindseed.ops._prims.core import identity_p  # noqa: PLC0415 -- a new value to mark, not x itself
        t = identity_p(t)
    return _state.tracing.mark_scalar(t, pytype)


def _ms_bool(x=False):
    """bool(x); a graph tensor gives a bool scalar of the graph."""
    if _traced(x):
        return _scalar(x, mstype.bool_, bool, "bool")
    return bool(x)


def _ms_int(x=0, *base):
    """int(x); a graph tensor gives an int scalar of the graph (truncated toward zero)."""
    if not base and _traced(x):
        return _scalar(x, mstype.int64, int, "int")
    return int(x, *base)


def _ms_float(x=0.0):
    """float(x); a graph tensor gives a float scalar of the graph."""
    if _traced(x):
        return _scalar(x, mstype.float64 if x.dtype == mstype.float64 else mstype.float32, float, "float")
    return float(x)


def _reduce_bool(x, kind):
    from mindseed.ops import functional as F  # noqa: PLC0415 -- ops sit below; imported at use
    if _traced(x):
        r = x.astype(mstype.bool_)
        r = F.any(r) if kind == "any" else F.all(r)
        return _state.tracing.mark_scalar(r.reshape(()) if r.ndim else r, bool)
    if _state.tracing is None or not isinstance(x, (tuple, list)) or not any(_traced(e) for e in x):
        return any(x) if kind == "any" else all(x)
    acc = None
    for e in x:
        b = _ms_bool(e)
        if not isinstance(b, Tensor):
            if b == (kind == "any"):
                return b if acc is None else _state.tracing.mark_scalar(F.ones_like(acc), bool)
            continue
        acc = b if acc is None else (F.logical_or(acc, b) if kind == "any" else F.logical_and(acc, b))
    return (kind == "all") if acc is None else _state.tracing.mark_scalar(acc, bool)


def _ms_any(x):
    """any(x); on graph tensors a reduction in the graph."""
    return _reduce_bool(x, "any")


def _ms_all(x):
    """all(x); on graph tensors a reduction in the graph."""
    return _reduce_bool(x, "all")


def _minmax(kind, args, kwargs):
    import builtins  # noqa: PLC0415
    fn = builtins.min if kind == "min" else builtins.max
    if _state.tracing is None or kwargs:
        return fn(*args, **kwargs)
    if len(args) == 1:
        x = args[0]
        if _traced(x):
            if x.ndim > 1:
                raise ValueError(_AMBIGUOUS)
            return x.min() if kind == "min" else x.max()
        if not (isinstance(x, (tuple, list)) and any(_traced(e) for e in x)):
            return fn(x)
        args = tuple(x)
    if not any(_traced(a) for a in args):
        return fn(*args)
    from mindseed.ops import functional as F  # noqa: PLC0415
    for a in args:
        if isinstance(a, Tensor) and a.size != 1:
            raise ValueError(_AMBIGUOUS)
    best = args[0]
    for a in args[1:]:
        x, y = (best if isinstance(best, Tensor) else Tensor(best), a if isinstance(a, Tensor) else Tensor(a))
        best = F.minimum(x, y) if kind == "min" else F.maximum(x, y)
    return best


def _ms_min(*args, **kwargs):
    """min(...); on graph tensors a reduction / minimum in the graph."""
    return _minmax("min", args, kwargs)


def _ms_max(*args, **kwargs):
    """max(...); on graph tensors a reduction / maximum in the graph."""
    return _minmax("max", args, kwargs)


# ---------------------------------------------------------------- print and assert: run-time nodes
def _print_text(obj):
    """One argument as MindSpore's graph-mode Print shows it."""
    import numpy as np  # noqa: PLC0415
    if not isinstance(obj, Tensor) and hasattr(obj, "shape") and hasattr(obj, "dtype"):
        obj = Tensor._from_raw(obj)
    if isinstance(obj, Tensor):
        a = B.to_numpy(obj._data)
        if a.ndim == 0:
            v = a.item()
            return str(int(v)) if isinstance(v, (bool, int)) else f"{v:g}"
        if a.dtype.kind == "f":
            body = np.array2string(a, separator=" ", max_line_width=10 ** 6, threshold=10 ** 9,
                                   formatter={"float_kind": lambda v: f"{v: .8e}"})
        else:
            body = np.array2string(a, separator=" ", max_line_width=10 ** 6, threshold=10 ** 9)
        return f"Tensor(shape={list(a.shape)}, dtype={obj.dtype}, value={chr(10) if a.ndim > 1 else ''}{body})"
    if isinstance(obj, bool):
        return str(int(obj))
    if isinstance(obj, float):
        return f"{obj:g}"
    if isinstance(obj, (tuple, list)):
        return "(" + ", ".join(_print_text(o) for o in obj) + ")"
    return str(obj)


def _ms_print(*args, sep=" ", end="\n", file=None, flush=False):
    """print(...); inside a graph a Print node: each argument on its own line, at every run of the graph."""
    import builtins  # noqa: PLC0415
    builder = _state.tracing
    if builder is None:
        return builtins.print(*args, sep=sep, end=end, file=file, flush=flush)
    leaves = []
    tmpl = control._flatten(args, leaves)

    def run(*raw):
        values = control._unflatten(tmpl, list(raw))
        builtins.print("\n".join(_print_text(v) for v in values), file=file, flush=True)
    from mindseed.ops._prims.core import py_call_p  # noqa: PLC0415
    builder.emit(py_call_p, [builder.operand(t) for t in leaves], {"fn": run}, [])
    if not _speculative():
        run(*[t._data for t in leaves])
    return None


def _ms_assert(cond, msg_fn=None):
    """`assert cond, msg`; on a graph tensor a run-time check node raising AssertionError."""
    if not _traced(cond):
        if not cond:
            raise AssertionError(*(() if msg_fn is None else (msg_fn(),)))
        return
    if cond.size != 1:
        raise ValueError(_AMBIGUOUS)
    exc_args = () if msg_fn is None else (msg_fn(),)

    def check(c):
        if not bool(c.reshape(-1)[0]):
            raise AssertionError(*exc_args)
        return ()
    from mindseed.ops._prims.core import py_call_p  # noqa: PLC0415
    builder = _state.tracing
    builder.emit(py_call_p, [builder.operand(cond)], {"fn": check}, [])
    if not _speculative():
        check(cond._data)


# ---------------------------------------------------------------- control flow wrappers
def _pytype_like(out, ref):
    """Mark tensors of `out` that stand where `ref` held Python numbers (a loop counter) as Python scalars."""
    if isinstance(out, Tensor):
        if isinstance(ref, (bool, int, float)) and _traced(out) and out.ndim == 0:
            _state.tracing.mark_scalar(out)
        return
    if isinstance(out, (tuple, list)) and isinstance(ref, (tuple, list)) and len(out) == len(ref):
        for o, r in zip(out, ref):
            _pytype_like(o, r)


def _ms_if(cond, then_fn, else_fn, vals, returns=False):
    """`if` of converted code. On a graph tensor both branches are traced; a branch that raises when traced
    but is not taken now becomes a branch that raises at run time (MindSpore's `raise` in graphs)."""
    if not _traced(cond):
        return then_fn(*vals) if cond else else_fn(*vals)
    if cond.size != 1:
        raise ValueError(_AMBIGUOUS)
    taken_then = bool(cond._data.reshape(-1)[0])
    taken_results = []

    def run_taken(*a):
        r = (then_fn if taken_then else else_fn)(*a)
        taken_results.append(r)
        return r

    def run_other(*a):
        b = _state.tracing
        saved = getattr(b, "speculative", False)
        b.speculative = True
        try:
            return (else_fn if taken_then else then_fn)(*a)
        except GraphBreak:
            raise
        except Exception as exc:  # noqa: BLE001 -- raised at run time if this branch is ever taken
            return _raising_branch(b, exc, taken_results[-1] if taken_results else None)
        finally:
            b.speculative = saved
    out = control.if_(cond, run_taken if taken_then else run_other, run_other if taken_then else run_taken, vals,
                      returns)
    if taken_results:
        _pytype_like(out, taken_results[0] if returns else vals)
    return out


def _raising_branch(builder, exc, like):
    from mindseed.ops import functional as F  # noqa: PLC0415
    from mindseed.ops._prims.core import py_call_p  # noqa: PLC0415

    def throw(*_):
        raise exc
    builder.emit(py_call_p, [], {"fn": throw}, [])

    def placeholder(x):
        # the branch's values after the raise never exist; they only match the other branch's structure
        if isinstance(x, Tensor):
            return F.zeros(x.shape, x.dtype)
        if isinstance(x, (tuple, list)):
            return type(x)(placeholder(e) for e in x)
        return x
    return placeholder(like)


def _ms_while(cond_fn, body_fn, vals):
    """`while` of converted code; Python numbers carried by a loop on a graph tensor stay Python scalars."""
    out = control.while_(cond_fn, body_fn, vals)
    if _state.tracing is not None:
        _pytype_like(out, vals)
    return out


def _ms_for_range(bounds, body_fn, vals):
    """`for i in range(...)` of converted code."""
    out = control.for_range(bounds, body_fn, vals)
    if _state.tracing is not None:
        _pytype_like(out, vals)
    return out


def _ms_seq(it):
    """The sequence a `for` with break/continue walks by index: a tensor stays a tensor (rows read by index)."""
    if isinstance(it, Tensor) and it.ndim > 0:
        return it
    return control.as_sequence(it)


def _ms_item(seq, i):
    """seq[i] for the loop index i, which is a graph value once the loop is a graph loop."""
    if _traced(i) and isinstance(seq, Tensor):
        from mindseed.ops import functional as F  # noqa: PLC0415
        return F.gather(seq, i, 0)
    return seq[i]


_HELPERS.update({
    "__ms_if": _ms_if, "__ms_while": _ms_while, "__ms_for_range": _ms_for_range, "__ms_seq": _ms_seq,
    "__ms_item": _ms_item, "__ms_assert": _ms_assert, "__ms_bool": _ms_bool, "__ms_int": _ms_int,
    "__ms_float": _ms_float, "__ms_any": _ms_any, "__ms_all": _ms_all, "__ms_min": _ms_min, "__ms_max": _ms_max,
    "__ms_print": _ms_print,
})
