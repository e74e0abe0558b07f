"""Parsing: a function's Python source (AST) rewritten so that its control flow can become graph control flow.

`if`/`while`/`for` statements, `x if c else y`, `and`/`or`/`not` are rewritten into calls of the
helpers of converted code (`helpers.py`, the `__ms_*` names), with the branch and loop bodies turned into
local functions of the variables they assign:

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
import builtins
import functools
import inspect
import itertools
import re
import sysconfig
import textwrap
import types

from mindseed._utils._jit_forbidden import forbidden_call
from mindseed.compiler import helpers
from mindseed.compiler.methods import GRAPH_METHOD_NAMES, _is_cell

__all__ = ["convert", "ConversionError"]

_uid = itertools.count()
_cache = {}
_shadowed = set()
_shadowed_all = set()      # builtin names the function being converted rebinds (a global, closure or local)
# is the function being converted the user's (MindSpore parses it and refuses `try`), not a library's from the
# standard library or an installed package (which MindSpore's graph runs in the interpreter)?
_users_code = [True]
_LIBRARY_DIRS = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")})
_HELPERS = dict(helpers.HELPERS)    # the names converted code calls; `__ms_call` (convert_call) is ours
# builtins whose calls on graph tensors become graph operations (their `__ms_*` helpers in helpers.py)
_GRAPH_BUILTINS = ("bool", "int", "float", "any", "all", "min", "max", "print", "zip", "len", "range", "enumerate",
                   "tuple", "list", "isinstance")


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
                                                              n.split("_")[3] in ("brk", "cont", "i", "it", "rf", "rv")]


def _catches(s):
    """Does `s`, a `try` or `with` statement, have an `except` clause, its own or one nested in its bodies?"""
    return any(isinstance(n, ast.Try) and n.handlers for n in _walk_no_nested(s, False))


def _contains(stmts, kinds, stop_at_loops=True):
    for s in stmts:
        for node in _walk_no_nested(s, stop_at_loops):
            if isinstance(node, kinds):
                return True
    return False


# methods that change a Python list/dict/set in place
_MUTATORS = frozenset(("append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem",
                       "sort", "reverse", "add", "discard"))


def _updated_in_place(stmts, names):
    """`names` plus the local variables a block updates in place without rebinding them (`y[i] = v`,
    `y += ...` on an item, `y.add_(1)`): a tensor updated so is a new value, which control flow on a tensor
    must carry out of its branch or loop body like an assignment (a Python container is caught by
    `_mutated_outside` and falls back)."""
    out = list(dict.fromkeys(names))
    for st in stmts:
        for node in _walk_no_nested(st, False):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            roots = [t.value for t in targets if isinstance(t, ast.Subscript)]
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_") \
                    and not node.func.attr.startswith("_"):
                roots.append(node.func.value)
            for r in roots:
                if isinstance(r, ast.Name) and r.id not in out:
                    out.append(r.id)
    return out


def _mutated_outside(stmts, assigned):
    """A thunk `lambda: {"lst": lst, "self.d": self.d}` of the values a block changes in place (`lst.append(..)`,
    `d[k] = v`, `del d[k]`) but does not bind, or None. Control flow on a tensor traces its bodies without
    running them, so such a change to a Python container cannot follow the condition (the runtime checks
    which of them are containers and falls back to the interpreter)."""
    found = {}

    def note(expr):
        if isinstance(expr, (ast.Name, ast.Attribute)):
            root = expr
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and (expr is not root or expr.id not in assigned):
                found.setdefault(ast.unparse(expr), expr)

    for st in stmts:
        for node in _walk_no_nested(st, False):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
                note(node.func.value)
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for t in targets:
                if isinstance(t, ast.Subscript):
                    note(t.value)
    if not found:
        return None
    load = [ast.parse(src, mode="eval").body for src in found]
    return ast.Lambda(args=_noargs(), body=ast.Dict(keys=[ast.Constant(k) for k in found], values=load))


def _with_mutated(call, thunk):
    if thunk is not None:
        call.keywords.append(ast.keyword(arg="mutated", value=thunk))
    return call


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


def _fixed_unpack(target):
    """Whether an assignment target unpacks a fixed number of items (`a, b = ...`, no starred name)."""
    return isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts)


def _attribute_target(s):
    """The `name.attr` (or `name.a.attr`) a plain assignment statement sets, or None."""
    if isinstance(s, ast.Assign) and len(s.targets) == 1:
        t = s.targets[0]
    elif isinstance(s, ast.AugAssign):
        t = s.target
    else:
        return None
    if not isinstance(t, ast.Attribute):
        return None
    root = t.value
    while isinstance(root, ast.Attribute):
        root = root.value
    return t if isinstance(root, ast.Name) else None


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
    def __init__(self, first_arg, local_names=()):
        self.first_arg = first_arg
        self.local_names = set(local_names)     # the function's own variables (`x[i] = v` may rebind them)

    # statements -------------------------------------------------------------
    def block(self, stmts, in_loop=False):
        stmts = self._fold_early_returns(self._lower_returns(list(stmts)))
        out = []
        for s in stmts:
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

    # `return` where folding into if/else cannot reach it (inside a loop, or in an `if` nested in a branch that
    # goes on afterwards) becomes a flag and a value: `__ms_rv_N = value; __ms_rf_N = True` (plus `break` in a
    # loop), the code after it runs under `if not __ms_rf_N`, and the statement is followed by
    # `if __ms_rf_N: return __ms_rv_N`, which folds like any early return. With a tensor condition the flag and
    # the value are carried through the If/While nodes like any variable (control.RETVAL: "no value yet").
    def _lower_returns(self, stmts):
        stmts = self._fold_early_returns(stmts)
        for i, s in enumerate(stmts):
            if not _needs_lowering(s):
                continue
            uid = next(_uid)
            rf, rv = f"__ms_rf_{uid}", f"__ms_rv_{uid}"
            init = [ast.Assign(targets=[_name(rf, ast.Store)], value=ast.Constant(False)),
                    ast.Assign(targets=[_name(rv, ast.Store)], value=_name("__ms_RETVAL"))]
            after = ast.If(test=_name(rf), body=[ast.Return(value=_name(rv))], orelse=[])
            for n in init + [after]:
                ast.copy_location(n, s)
            # on a path that returned, the statement's other variables not assigned yet are never read: RETVAL
            after_return = [n for n in _assigned([s]) if not n.startswith(("__ms_rf_", "__ms_rv_"))]
            new = _replace_returns([s], rf, rv, 0, after_return)
            return self._lower_returns(stmts[:i] + init + new + [after] + stmts[i + 1:])
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
        if isinstance(s, (ast.Try, ast.With)) and _catches(s) or type(s).__name__ == "TryStar":
            # exceptions raised by the graph at run time cannot be caught by a trace-time `try`: interpreter
            # (also for a `try: ... except` nested in a `try: ... finally` or a `with`, whose bodies the trace runs).
            # Under PIJit (capture_mode="bytecode") the statement runs as it is at trace time (its Python
            # exceptions are raised and caught then); a graph break inside it is never caught by its handlers.
            stop = ast.Expr(value=_call("__ms_unsupported", [ast.Constant("try/except"),
                                                             ast.Constant(_users_code[0]), ast.Constant(True)]))
            for node in _walk_no_nested(s, False):
                if isinstance(node, ast.ExceptHandler):
                    node.body.insert(0, ast.copy_location(ast.Expr(value=_call("__ms_pass_breaks", [])), node))
            return [ast.copy_location(stop, s), ast.fix_missing_locations(s)]
        attr_target = _attribute_target(s)
        if attr_target is not None:
            # `obj.name = value` / `obj.name op= value`: through __ms_setattr, which sees whether the graph would
            # change Python state (it cannot at run time: the interpreter runs such a function)
            value = s.value if isinstance(s, ast.Assign) else \
                ast.BinOp(left=ast.Attribute(value=attr_target.value, attr=attr_target.attr, ctx=ast.Load()),
                          op=s.op, right=s.value)
            call = _call("__ms_setattr", [attr_target.value, ast.Constant(attr_target.attr), value])
            return self.expr_in(ast.copy_location(ast.Expr(value=call), s))
        target = s.targets[0] if isinstance(s, ast.Assign) and len(s.targets) == 1 else \
            s.target if isinstance(s, ast.AugAssign) else None
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and \
                target.value.id in self.local_names:
            # `x[i] = v` / `x[i] op= v` on a local name: `x = __ms_setitem(x, i, v)` (a tensor's item assignment
            # is a new tensor)
            value = s.value if isinstance(s, ast.Assign) else ast.BinOp(
                left=ast.Subscript(value=_name(target.value.id), slice=target.slice, ctx=ast.Load()), op=s.op,
                right=s.value)
            index = target.slice
            if isinstance(index, ast.Slice):
                index = ast.copy_location(_call("slice", [e or ast.Constant(None) for e in
                                                          (index.lower, index.upper, index.step)]), index)
            call = _call("__ms_setitem", [_name(target.value.id), index, value])
            return self.expr_in(ast.copy_location(ast.Assign(targets=[_name(target.value.id, ast.Store)],
                                                             value=call), s))
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute) and \
                isinstance(target.value.value, ast.Name) and not isinstance(target.slice, ast.Slice):
            # `self.x[i] = v`: MindSpore's checks of the attribute (helpers' __ms_setitem_attr)
            value = s.value if isinstance(s, ast.Assign) else ast.BinOp(
                left=ast.Subscript(value=target.value, slice=target.slice, ctx=ast.Load()), op=s.op, right=s.value)
            owner = target.value.value
            call = _call("__ms_setitem_attr", [_name(owner.id), ast.Constant(owner.id),
                                               ast.Constant(target.value.attr), target.slice, value])
            return self.expr_in(ast.copy_location(ast.Expr(value=call), s))
        if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
            # `x op= v`: a numpy array is not updated in place in MindSpore's graph (methods.ms_augassign)
            call = _call("__ms_augassign", [ast.Constant(type(s.op).__name__), _name(s.target.id), s.value,
                                            ast.Constant(_users_code[0])])
            return self.expr_in(ast.copy_location(ast.Assign(targets=[_name(s.target.id, ast.Store)], value=call), s))
        if isinstance(s, ast.Assign) and any(_fixed_unpack(t) for t in s.targets):
            # `a, b = value`: unpacked by index, as MindSpore's compiler does (a longer tuple's extra items dropped)
            n = next(len(t.elts) for t in s.targets if _fixed_unpack(t))
            s.value = ast.copy_location(_call("__ms_unpack", [s.value, ast.Constant(n)]), s.value)
            return self.expr_in(s)
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
        mutated = _mutated_outside(s.body + s.orelse, _assigned(s.body + s.orelse))   # before rewriting
        in_place = _updated_in_place(s.body + s.orelse, [])
        test = _ExprRewriter(self.first_arg).visit(s.test)
        # both paths end the function: `return` in them (a branch that only raises, e.g. in a loop body, where a
        # `return` cannot be, is an ordinary branch: raising when taken, a run-time raise when traced only)
        returns = (_always_returns(s.body) or _always_returns(s.orelse)) and \
            _contains(s.body + s.orelse, (ast.Return,), stop_at_loops=False)
        if returns:
            # both paths end the function: the branches return the function's result
            # (a nested returning if hides its assignments in its branches)
            before = _updated_in_place(s.body + s.orelse, _assigned(s.body + s.orelse) + in_place)
            body = self.block(s.body, in_loop)
            orelse = self.block(s.orelse, in_loop) if s.orelse else []
            names = before + [n for n in _assigned(body + orelse) if n not in before]
            fns = []
            for kind, stmts in (("then", body), ("else", orelse)):
                if stmts and isinstance(stmts[-1], ast.Return):
                    fns.append(_func(f"__ms_{kind}_{uid}", names, stmts[:-1], stmts[-1].value or ast.Constant(None)))
                else:
                    fns.append(_func(f"__ms_{kind}_{uid}", names, stmts, ast.Constant(None)))
            call = _with_mutated(_call("__ms_if", [test, _name(fns[0].name), _name(fns[1].name),
                                                   _current_values(names), ast.Constant(True)]), mutated)
            return [ast.copy_location(n, s) for n in (fns[0], fns[1], ast.Return(value=call))]
        body = self.block(s.body, in_loop)
        orelse = self.block(s.orelse, in_loop)
        # after rewriting: break/continue became flag assignments
        names = _assigned(body + orelse)
        names += [n for n in in_place if n not in names]
        then_fn = _func(f"__ms_then_{uid}", names, body, _tuple(names))
        else_fn = _func(f"__ms_else_{uid}", names, orelse, _tuple(names))
        call = _with_mutated(_call("__ms_if", [test, _name(then_fn.name), _name(else_fn.name),
                                               _current_values(names)]), mutated)
        call.keywords.append(ast.keyword(arg="names", value=ast.Constant(tuple(names))))
        assign = ast.Assign(targets=[_tuple(names, ast.Store)], value=call) if names else ast.Expr(value=call)
        return [ast.copy_location(n, s) for n in (then_fn, else_fn, assign)]

    def while_stmt(self, s, uid=None, break_in_test=True):
        if s.orelse:
            raise ConversionError("while ... else is not supported in graph mode")
        if _contains(s.body, (ast.Return,)):
            raise ConversionError("return inside a loop is not supported in graph mode")
        uid = next(_uid) if uid is None else uid
        mutated = _mutated_outside(s.body, _assigned(s.body))   # before rewriting
        in_place = _updated_in_place(s.body, [])
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
        names += [n for n in in_place if n not in names]
        if has_brk and brk not in names:
            names.append(brk)
        test = _ExprRewriter(self.first_arg).visit(s.test)
        if has_brk and break_in_test:
            test = _call("__ms_and_flag", [_call("__ms_not", [_name(brk)]), ast.Lambda(args=_noargs(), body=test)])
        new_body = self.block(body, in_loop=(brk, cont))
        cond_fn = _func(f"__ms_cond_{uid}", names, [], test)
        body_fn = _func(f"__ms_body_{uid}", names, new_body, _tuple(names))
        call = _with_mutated(_call("__ms_while", [_name(cond_fn.name), _name(body_fn.name), _current_values(names)]),
                             mutated)
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
                cond = _call("__ms_not", [_call("__ms_or_flag", [_name(flags[0]), ast.Lambda(args=_noargs(), body=_name(
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
            mutated = _mutated_outside(s.body, _assigned(s.body) + [s.target.id])   # before rewriting
            names = [n for n in _updated_in_place(s.body, _assigned(s.body)) if n != s.target.id]
            args = [_ExprRewriter(self.first_arg).visit(a) for a in s.iter.args]
            body = self.block(s.body)
            body_fn = _func(f"__ms_forbody_{uid}", [s.target.id] + names, body, _tuple(names))
            call = _with_mutated(_call("__ms_for_range", [ast.Tuple(elts=args, ctx=ast.Load()), _name(body_fn.name),
                                                          _current_values(names)]), mutated)
            assign = ast.Assign(targets=[_tuple(names, ast.Store)], value=call) if names else ast.Expr(value=call)
            return [ast.copy_location(n, s) for n in (body_fn, assign)]
        step = _const_step(s.iter) if is_range else None
        if step is not None:
            # for i in range(...) with break/continue: a counting while (a bound may be a tensor)
            stop = f"__ms_stop_{uid}"
            rw = _ExprRewriter(self.first_arg)
            args = [rw.visit(a) for a in s.iter.args]
            init = [ast.Assign(targets=[_name(stop, ast.Store)], value=args[0] if len(args) == 1 else args[1]),
                    ast.Assign(targets=[_name(idx, ast.Store)], value=ast.Constant(0) if len(args) == 1 else args[0])]
            head = [ast.Assign(targets=[s.target], value=_name(idx)),
                    ast.AugAssign(target=_name(idx, ast.Store), op=ast.Add(), value=ast.Constant(step))]
            test = ast.Compare(left=_name(idx), ops=[ast.Lt() if step > 0 else ast.Gt()], comparators=[_name(stop)])
            loop = ast.While(test=test, body=head + list(s.body), orelse=[])
            for n in [loop] + init + head:
                ast.copy_location(n, s)
            return init + self.while_stmt(loop)
        # a loop with break/continue: an index-driven while over the materialized sequence
        seq = f"__ms_it_{uid}"
        init = [ast.Assign(targets=[_name(seq, ast.Store)], value=_call("__ms_seq", [
                    _ExprRewriter(self.first_arg).visit(s.iter)])),
                ast.Assign(targets=[_name(idx, ast.Store)], value=ast.Constant(0))]
        head = [ast.Assign(targets=[s.target], value=_call("__ms_item", [_name(seq), _name(idx)])),
                ast.AugAssign(target=_name(idx, ast.Store), op=ast.Add(), value=ast.Constant(1))]
        test = ast.Compare(left=_name(idx), ops=[ast.Lt()], comparators=[_call("__ms_len", [_name(seq)])])
        body = list(s.body)
        if _contains(body, (ast.Break,)):
            # the sequence's length is static: the loop unrolls, and after a break (a tensor flag when the break
            # is under a tensor condition) the remaining iterations are skipped by a guard rather than ending
            # the loop, so its items (cells, functions) never have to be loop-carried values of a graph loop
            guard = ast.If(test=_call("__ms_not", [_name(f"__ms_brk_{uid}")]), body=body, orelse=[])
            body = [ast.copy_location(guard, s)]
        loop = ast.While(test=test, body=head + body, orelse=[])
        ast.copy_location(loop, s)
        for n in init + head:
            ast.copy_location(n, s)
        return init + self.while_stmt(loop, uid=uid, break_in_test=False)


def _const_step(call):
    """The step of `range(...)` when it is a literal non-zero int (1 when omitted), else None."""
    if call.keywords or not 1 <= len(call.args) <= 3:
        return None
    if len(call.args) < 3:
        return 1
    node, sign = call.args[2], 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node, sign = node.operand, -1
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value:
        return sign * node.value
    return None


def _needs_lowering(s):
    """Does statement `s` hold a `return` that folding early returns into if/else cannot handle?"""
    if isinstance(s, (ast.While, ast.For)):
        return _contains(s.body, (ast.Return,), stop_at_loops=False)
    if isinstance(s, ast.If):
        return not (_always_returns(s.body) or _always_returns(s.orelse)) and \
            _contains([s], (ast.Return,), stop_at_loops=False)
    return False


def _replace_returns(stmts, rf, rv, loop_depth, after_return=()):
    """`stmts` with each `return e` made `rv = e; rf = True` (+ `break` inside a loop); what follows a statement
    that may have returned runs only when it did not (a loop's break machinery guards the rest of its body)."""
    out = []
    for i, st in enumerate(stmts):
        if isinstance(st, ast.Return):
            new = [ast.Assign(targets=[_name(rv, ast.Store)], value=st.value or ast.Constant(None)),
                   ast.Assign(targets=[_name(rf, ast.Store)], value=ast.Constant(True))]
            if loop_depth:
                new.append(ast.Break())
            else:
                new += [ast.Assign(targets=[_name(n, ast.Store)],
                                   value=_call("__ms_ldr", [_call("locals", []), ast.Constant(n)]))
                        for n in after_return]
            out.extend(ast.copy_location(n, st) for n in new)
            return out          # code after a return never runs
        had = _contains([st], (ast.Return,), stop_at_loops=False)
        if had and isinstance(st, ast.If):
            st.body = _replace_returns(st.body, rf, rv, loop_depth, after_return)
            st.orelse = _replace_returns(st.orelse, rf, rv, loop_depth, after_return)
        elif had and isinstance(st, (ast.While, ast.For)):
            st.body = _replace_returns(st.body, rf, rv, loop_depth + 1)
        elif had:
            raise ConversionError(f"return inside {type(st).__name__} is not supported in graph mode")
        out.append(st)
        if had and loop_depth and isinstance(st, (ast.While, ast.For)):
            # returned from an inner loop: leave this loop too
            out.append(ast.copy_location(ast.If(test=_name(rf), body=[ast.Break()], orelse=[]), st))
        elif had and not loop_depth and i + 1 < len(stmts):
            rest = _replace_returns(stmts[i + 1:], rf, rv, loop_depth, after_return)
            out.append(ast.copy_location(ast.If(test=_call("__ms_not", [_name(rf)]), body=rest, orelse=[]),
                                         stmts[i + 1]))
            return out
    return out


# `if x == 2:  # @jit.cond: True` -- MindSpore's parser takes the branch the comment names, without the test
_COND_COMMENT = re.compile(r"#\s*@jit\.cond:\s*(True|False)\b")


def _fold_commented_conditions(fdef, lines):
    """Replace the test of each `if` whose header line carries a `# @jit.cond: True|False` comment (not an `elif`:
    MindSpore does not fold those either)."""
    for node in ast.walk(fdef):
        if isinstance(node, ast.If) and node.test.end_lineno <= len(lines) and \
                not lines[node.lineno - 1].lstrip().startswith("elif"):
            found = _COND_COMMENT.search(lines[node.test.end_lineno - 1])
            if found:
                node.test = ast.copy_location(ast.Constant(found.group(1) == "True"), node.test)


def _noargs():
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


_ARITH_OPS = frozenset(("Add", "Sub", "Mult", "Div", "FloorDiv", "Mod", "Pow"))


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

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, (ast.LShift, ast.RShift)):    # shifts of Python scalars: MindSpore's checks
            op = ast.Constant("BitLeftShift" if isinstance(node.op, ast.LShift) else "BitRightShift")
            return ast.copy_location(_call("__ms_shift", [op, node.left, node.right]), node)
        if _users_code[0] and type(node.op).__name__ in _ARITH_OPS:    # scalars compute in float32 (ms_arith)
            op = ast.Constant(type(node.op).__name__)
            return ast.copy_location(_call("__ms_arith", [op, node.left, node.right]), node)
        return node

    def visit_ListComp(self, node):
        # MindSpore's graph has comprehensions of one generator, and no set comprehension
        self.generic_visit(node)
        if isinstance(node, ast.SetComp):
            return ast.copy_location(_call("__ms_syntax_error", [ast.Constant("RuntimeError"), ast.Constant(
                "Unsupported expression 'SetComp'.")]), node)
        if len(node.generators) > 1:
            kind = "DictComp" if isinstance(node, ast.DictComp) else "ListComp"
            return ast.copy_location(_call("__ms_syntax_error", [ast.Constant("TypeError"), ast.Constant(
                f"The 'generators' supports 1 'comprehension' in {kind}/GeneratorExp, but got "
                f"{len(node.generators)} comprehensions.")]), node)
        return node

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call("__ms_not", [node.operand]), node)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1:
            if isinstance(node.ops[0], (ast.In, ast.NotIn)):
                fn = "__ms_in" if isinstance(node.ops[0], ast.In) else "__ms_not_in"
                return ast.copy_location(_call(fn, [node.left, node.comparators[0]]), node)
            if isinstance(node.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) or \
                    _users_code[0] and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
                # tuples and lists are ordered as MindSpore's graph orders them (helpers._ms_order)
                op = ast.Constant(type(node.ops[0]).__name__)
                return ast.copy_location(_call("__ms_order", [op, node.left, node.comparators[0]]), node)
            return node
        # `a < b < c` is `a < b and b < c` with b evaluated once: on tensors the `and` is a graph operation
        ops_ = ast.Tuple(elts=[ast.Constant(type(o).__name__) for o in node.ops], ctx=ast.Load())
        thunks = [ast.Lambda(args=_noargs(), body=c) for c in node.comparators]
        return ast.copy_location(_call("__ms_chain", [ops_, node.left] + thunks), node)

    def visit_IfExp(self, node):
        self.generic_visit(node)
        call = _call("__ms_ifexp", [node.test, ast.Lambda(args=_noargs(), body=node.body),
                                    ast.Lambda(args=_noargs(), body=node.orelse)])
        return ast.copy_location(call, node)

    def visit_Call(self, node):
        f = node.func
        member = isinstance(f, ast.Attribute) and f.attr in _LIST_UPDATES and isinstance(f.value, ast.Subscript) \
            and isinstance(f.value.value, ast.Attribute) and isinstance(f.value.value.value, ast.Name)
        if member:
            # `self.x[i].append(v)` updates an item of the attribute: MindSpore's STRICT check (methods.ms_member_item)
            owner = f.value.value
            whole = ast.Attribute(value=_name(owner.value.id), attr=owner.attr, ctx=ast.Load())
            args = [ast.Constant(owner.value.id), ast.Constant(owner.attr), whole]
        self.generic_visit(node)
        if member:
            node.func.value = ast.copy_location(_call("__ms_member_item", [node.func.value] + args), node.func.value)
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args and self.first_arg:
            node.args = [_name("__class__"), _name(self.first_arg)]
            return node
        if isinstance(node.func, ast.Name) and node.func.id in _GRAPH_BUILTINS and node.func.id not in _shadowed:
            node.func = ast.copy_location(_name("__ms_" + node.func.id), node.func)
            return node
        if isinstance(node.func, ast.Name) and node.func.id in ("map", "filter", "sorted") and node.args \
                and node.func.id not in _shadowed_all:
            # the function handed to map/filter is called by the builtin: convert it like a direct call
            if node.func.id != "sorted":
                node.args[0] = ast.copy_location(_call("__ms_call", [node.args[0]]), node.args[0])
            if node.func.id == "map":
                node.func = ast.copy_location(_name("__ms_map"), node.func)
            for kw in node.keywords:
                if kw.arg == "key":
                    kw.value = ast.copy_location(_call("__ms_call", [kw.value]), kw.value)
            return node
        if isinstance(node.func, ast.Name) and (node.func.id.startswith("__ms_") or node.func.id in _BUILTIN_NAMES):
            return node
        if isinstance(node.func, ast.Attribute) and node.func.attr in GRAPH_METHOD_NAMES:
            node.func = ast.copy_location(_call("__ms_method", [node.func.value, ast.Constant(node.func.attr)]),
                                          node.func)
        node.func = ast.copy_location(_call("__ms_call", [node.func]), node.func)
        return node

    def visit_JoinedStr(self, node):
        # MindSpore's graph joins an f-string's parts as str() of each value: conversions (!r) and format specs
        # are not applied; a tensor of the graph makes a string known at run time (printed by a Print node)
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                v.value = self.visit(v.value)     # not the format spec: a JoinedStr of its own, kept as it is
        if not _users_code[0]:
            return node
        parts = [v.value if isinstance(v, ast.FormattedValue) else v for v in node.values]
        return ast.copy_location(_call("__ms_fstring", [ast.Tuple(elts=parts, ctx=ast.Load())]), node)

    def visit_Dict(self, node):
        self.generic_visit(node)
        if any(k is None for k in node.keys):    # `{**d}`: Python builds it
            return node
        keys, values = (ast.Tuple(elts=list(e), ctx=ast.Load()) for e in (node.keys, node.values))
        return ast.copy_location(_call("__ms_dict", [keys, values]), node)

    def visit_Subscript(self, node):
        self.generic_visit(node)
        index = node.slice
        if not isinstance(node.ctx, ast.Load) or \
                isinstance(index, ast.Tuple) and any(isinstance(e, ast.Slice) for e in index.elts):
            return node
        if isinstance(index, ast.Slice):
            index = ast.copy_location(_call("__ms_slice", [e or ast.Constant(None) for e in
                                                           (index.lower, index.upper, index.step)]), index)
        return ast.copy_location(_call("__ms_getitem", [node.value, index]), node)

    def visit_Lambda(self, node):
        # the body is an expression of the converted code: calls in it are converted too
        self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node):
        return node


_LIST_UPDATES = frozenset(("append", "extend", "insert", "pop", "remove", "reverse", "clear", "sort"))
_BUILTIN_NAMES = {"len", "range", "isinstance", "print", "tuple", "list", "dict", "int", "float", "bool", "str",
                  "zip", "enumerate", "min", "max", "abs", "sum", "all", "any", "getattr", "hasattr", "type",
                  "locals", "iter", "next", "reversed", "sorted", "round", "divmod", "map", "filter", "setattr"}


# ---------------------------------------------------------------- entry point
def _should_convert(fn, jit_class=False):
    """User code is converted; mindseed's own only when it is a method of a `jit_class` (as MindSpore parses those)."""
    if not isinstance(fn, types.FunctionType):
        return False
    if jit_class:
        return True
    mod = getattr(fn, "__module__", "") or ""
    # the `mindspore` alias of mindseed is mindseed's own; packages built on it (mindspore_rl, ...) are user code
    return not any(mod == top or mod.startswith(top + ".") for top in ("mindseed", "mindspore"))


def convert_call(fn):
    """The callee to use inside a converted function: user functions are converted, everything else kept; an API a
    graph may not call is MindSpore's RuntimeError."""
    forbidden = forbidden_call(fn)
    if forbidden is not None:
        raise forbidden
    if type(fn) is functools.partial:
        inner = convert_call(fn.func)
        return fn if inner is fn.func else functools.partial(inner, *fn.args, **fn.keywords)
    jit_class = isinstance(fn, types.MethodType) and getattr(type(fn.__self__), "__ms_class__", False)
    if isinstance(fn, types.MethodType) and _should_convert(fn.__func__, jit_class):
        conv = convert(fn.__func__, jit_class)
        return fn if conv is fn.__func__ else functools.partial(conv, fn.__self__)
    if _should_convert(fn):
        return convert(fn)
    call = _instance_call(fn)
    if call is not None:
        return call
    return _graph_method(fn)


def _instance_call(obj):
    """`obj(...)` of an instance of a user class (not a Cell: its call compiles `construct`) whose `__call__` is
    user code: that `__call__` converted and bound to `obj`, so the graph sees what it does (an attribute it sets
    is Python state, as in a method call), or None."""
    if isinstance(obj, (type, types.FunctionType, types.MethodType, types.BuiltinFunctionType, functools.partial)):
        return None
    call = next((vars(k)["__call__"] for k in type(obj).__mro__ if "__call__" in vars(k)), None)   # the class's own
    if not isinstance(call, types.FunctionType) or not _should_convert(call) or _is_cell(obj):
        return None
    conv = convert(call)
    return None if conv is call else functools.partial(conv, obj)



# in MindSpore's graph a dict's keys() and values() are tuples and its items() a list of (key, value) tuples
_DICT_VIEWS = {"keys": lambda d: tuple(d.keys()), "values": lambda d: tuple(d.values()),
               "items": lambda d: list(d.items())}


def _graph_method(fn):
    """A builtin method called in a graph, with the result MindSpore's graph gives (dict views as sequences)."""
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, dict) and isinstance(fn, types.BuiltinMethodType) and fn.__name__ in _DICT_VIEWS:
        return functools.partial(_DICT_VIEWS[fn.__name__], owner)
    return fn


_HELPERS["__ms_call"] = convert_call


# the exception types a graph's `raise` may name (MindSpore's parser refuses the others)
RAISE_TYPES = ("AssertionError", "AttributeError", "BaseException", "EnvironmentError", "Exception", "IOError",
               "IndentationError", "IndexError", "KeyError", "KeyboardInterrupt", "MemoryError", "NameError",
               "NotImplementedError", "OSError", "OverflowError", "RuntimeError", "RuntimeWarning", "StopIteration",
               "TypeError", "UnboundLocalError", "ValueError", "ZeroDivisionError")


def _check_raises(fdef):
    """Before each of the function's own `raise X(...)` / `raise X` whose type a graph cannot raise, a check that is
    MindSpore's compile-time RuntimeError when the block is traced (reached, or the other side of an `if` on a
    tensor), not a run-time raise. The check is told whether the `raise` is in the body of a `try` with `except`
    clauses (PIJit raises and catches it in its graph). Nested functions are checked when they are converted."""
    todo = [(fdef, False)]
    while todo:
        node, caught = todo.pop()
        in_try = isinstance(node, ast.Try) and bool(node.handlers)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            k = 0
            while k < len(block):
                st = block[k]
                if isinstance(st, ast.Raise) and st.exc is not None:
                    target = st.exc.func if isinstance(st.exc, ast.Call) else st.exc
                    if isinstance(target, ast.Name) and target.id not in RAISE_TYPES:
                        check = ast.Expr(value=_call("__ms_raise_types", [
                            ast.Constant(target.id), ast.Constant(caught or in_try and field == "body")]))
                        block.insert(k, ast.fix_missing_locations(ast.copy_location(check, st)))
                        k += 1
                k += 1
        tried = {id(st) for st in node.body} if in_try else ()
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                todo.append((child, caught or id(child) in tried))


def _check_undefined_names(fdef, fn):
    """MindSpore's parser resolves every name of the function before compiling it: a name bound nowhere (not in the
    function or the functions nested in it, its closure, its globals or the builtins) is its NameError, raised
    when the graph is compiled even if the line would not run. Checks at the top of the body, one per such name,
    carry the line of its first use."""
    bound = set(fn.__code__.co_freevars) | set(fn.__globals__) | set(dir(builtins)) | set(_HELPERS) | {"__class__"}
    loads = []
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loads.append(node)
            else:
                bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name or isinstance(node, ast.MatchMapping) \
                and node.rest:
            bound.add(node.name if not isinstance(node, ast.MatchMapping) else node.rest)
    first = {}
    for node in sorted(loads, key=lambda n: (n.lineno, n.col_offset)):
        if node.id not in bound and node.id not in first:
            first[node.id] = node
    checks = [ast.copy_location(ast.Expr(value=_call("__ms_undefined_name", [ast.Constant(name)])), node)
              for name, node in first.items()]
    fdef.body[:0] = checks


def convert(fn, jit_class=False):
    """`fn` with its control flow rewritten for graph tracing (or `fn` itself when it has no source / needs none)."""
    orig = fn
    fn = getattr(fn, "fn", fn)  # a jitted function: convert what it wraps
    if not _should_convert(fn, jit_class):
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


def original_code(code):
    """The code object of the user's function whose converted version has code `code` (`code` itself when it is
    not a converted function's)."""
    for fn, new in list(_cache.items()):
        if getattr(new, "__code__", None) is code:
            return fn.__code__
    return code


def _convert(fn):
    # the source of `fn`'s own code: `inspect.getsource(fn)` follows `__wrapped__` (functools.wraps) to the
    # decorated function, whose body would then run with the wrapper's globals and closure
    raw = inspect.getsource(fn.__code__)
    source = textwrap.dedent(raw)
    tree = ast.parse(source)
    fdef = tree.body[0]
    if fn.__name__ == "<lambda>":
        fdef = _lambda_def(fn, tree, len(raw) - len(raw.lstrip(" \t")) - (len(source) - len(source.lstrip(" \t"))))
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ConversionError("not a def")
    if isinstance(fdef, ast.AsyncFunctionDef):
        raise ConversionError("async functions are not supported")
    if fn.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        # a generator's body runs as Python, step by step: a tensor decision in it stops the trace (fallback)
        raise ConversionError("generators are not converted")
    first_line = fn.__code__.co_firstlineno
    _fold_commented_conditions(fdef, source.splitlines())
    fdef.decorator_list = []
    # annotations were evaluated where `fn` was defined (a local class such as a namedtuple need not be visible from
    # the rewritten function's scope): the rewritten function carries none
    fdef.returns = None
    for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs + [fdef.args.vararg, fdef.args.kwarg]:
        if a is not None:
            a.annotation = None
    # default values were evaluated where `fn` was defined (names of the enclosing scope, not of `fn`'s globals):
    # the rewritten function takes them from `fn.__defaults__`/`__kwdefaults__` below, not by evaluating them again
    fdef.args.defaults = []
    fdef.args.kw_defaults = [None] * len(fdef.args.kwonlyargs)
    args = fdef.args.posonlyargs + fdef.args.args
    first_arg = args[0].arg if args else None
    # a builtin name the function rebinds (a global, closure or local `min`) is left alone
    code = fn.__code__
    _shadowed.clear()
    rebound = set(fn.__globals__) | set(code.co_freevars) | set(code.co_varnames)
    _shadowed.update(n for n in _GRAPH_BUILTINS if n in rebound)
    _shadowed_all.clear()
    _shadowed_all.update(n for n in ("map", "filter", "sorted") if n in rebound)
    _users_code[0] = not code.co_filename.startswith(_LIBRARY_DIRS)
    if _users_code[0]:
        _check_undefined_names(fdef, fn)
        _check_raises(fdef)
    try:
        fdef.body = _Rewriter(first_arg, code.co_varnames).block(fdef.body)
    finally:
        _shadowed.clear()
        _shadowed_all.clear()
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
    new.__annotations__ = fn.__annotations__
    new.__qualname__ = fn.__qualname__    # argument errors name the user's function
    new.__ms_original__ = fn
    return new


def calls_first_parameter(fn):
    """Does the body of `fn` call its first parameter (`self(...)` in a method)? False when the source is unknown."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn.__code__)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return False
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef):
        return False
    params = fdef.args.posonlyargs + fdef.args.args
    if not params:
        return False
    first = params[0].arg
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == first
               for s in fdef.body for n in ast.walk(s))


def _lambda_def(fn, tree, dedent):
    """The `lambda` of `fn` in its source (`tree`, shifted left by `dedent` columns), as an equivalent def."""
    code = fn.__code__
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and node.lineno == 1:
            a = node.args
            if [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs] == params:
                found.append(node)
    if len(found) > 1:
        # several lambdas with these parameters on the line: the one whose body starts where the code does
        cols = [p[2] for p in code.co_positions() if p[0] == code.co_firstlineno and p[2] is not None]
        found = [n for n in found if cols and n.body.col_offset + dedent == min(cols)]
    if len(found) != 1:
        raise ConversionError("cannot find the source of this lambda")
    lam = found[0]
    fdef = ast.FunctionDef(name="__ms_lambda", args=lam.args, body=[ast.Return(value=lam.body)], decorator_list=[],
                           returns=None, type_params=[])
    return ast.copy_location(fdef, lam)


def _defining_class(fn):
    qual = fn.__qualname__.split(".")
    obj = fn.__globals__.get(qual[0])
    for part in qual[1:-1]:
        obj = getattr(obj, part, None)
    if not isinstance(obj, type):
        raise ConversionError("cannot find the class of a method using super()")
    return obj

