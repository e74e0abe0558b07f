"""Parsing a network's forward method into a SymbolTree.

The source of `construct` is parsed with Python's `ast` and flattened so that every call, arithmetic operation and
comparison is a statement of its own (``x = self.relu(self.fc1(x))`` becomes ``fc1_var = self.fc1(x)`` and
``x = self.relu(fc1_var)``); each statement becomes a node. Calls of the network's cells are `CallCell` nodes,
of user-defined networks `Tree` nodes holding their own SymbolTree, of a `SequentialCell` `CellContainer` nodes
with a node per cell. Statements whose evaluation order flattening could change (short-circuit operators,
comprehensions, lambdas), loops and other syntax stay whole as `Python` nodes; `if` statements as `ControlFlow`
nodes.
"""
import ast
import builtins
import inspect
import keyword
import sys
import textwrap
import types

from mindseed.nn import Cell, SequentialCell
from mindseed.ops.primitive import Primitive
from ..api.node_type import NodeType
from ..common.namespace import is_subtree
from ..node.node import Node, ast_to_value, dotted_name, names_of

_SIMPLE = (ast.Name, ast.Constant, ast.Attribute)


def _op_name(op):
    return type(op).__name__.lower()


def class_def_of(cls):
    """The ast.ClassDef of `cls`'s source."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError) as e:
        raise RuntimeError(f"For 'SymbolTree.create', the source of network class '{cls.__name__}' cannot be read: "
                           f"{e}") from e
    for stmt in ast.parse(source).body:
        if isinstance(stmt, ast.ClassDef):
            return stmt
    raise RuntimeError(f"For 'SymbolTree.create', no class definition found in the source of '{cls.__name__}'.")


def construct_owner(cls):
    """The class of `cls`'s MRO that defines `construct`."""
    for klass in cls.__mro__:
        if "construct" in vars(klass):
            if klass is Cell:
                break
            return klass
    raise RuntimeError(f"For 'SymbolTree.create', network class '{cls.__name__}' does not define 'construct'.")


class _Flattener:
    """Splits the statements of a function body so that each call/operation is a statement of its own."""

    def __init__(self, used_names):
        self._used = set(used_names)

    def fresh(self, base):
        name, i = base, 0
        while name in self._used:
            i += 1
            name = f"{base}_{i}"
        self._used.add(name)
        return name

    @staticmethod
    def _flattenable(expr):
        for sub in ast.walk(expr):
            if isinstance(sub, (ast.BoolOp, ast.IfExp, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                                ast.GeneratorExp, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr,
                                ast.Starred, ast.JoinedStr)):
                return False
            if isinstance(sub, ast.Subscript) and any(isinstance(s, ast.Call) for s in ast.walk(sub)):
                return False
            if isinstance(sub, ast.Call) and any(k.arg is None for k in sub.keywords):
                return False
            if isinstance(sub, ast.Compare) and len(sub.ops) != 1:
                return False
        return True

    @staticmethod
    def _temp_base(expr):
        """MindSpore's name for the variable holding `expr`: the callee's name, the operator's, or the node kind's
        (``relu_var``, ``add_var``, ``not_var``, ``compare_var``)."""
        if isinstance(expr, ast.Call):
            callee = expr.func
            if isinstance(callee, ast.Name):
                return callee.id + "_var"
            return callee.attr + "_var" if isinstance(callee, ast.Attribute) else "function_var"
        if isinstance(expr, (ast.BinOp, ast.BoolOp, ast.UnaryOp)):
            return _op_name(expr.op) + "_var"
        if isinstance(expr, ast.Name):
            return expr.id
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            return f"{expr.value.id}_{expr.attr}"
        name = type(expr).__name__.lower() + "_var"
        return name + "_var" if keyword.iskeyword(name) else name

    def expr(self, expr, pre, top):
        """Flatten `expr`, appending the statements computing its parts to `pre`; the expression left."""
        if isinstance(expr, _SIMPLE) and (not isinstance(expr, ast.Attribute) or dotted_name(expr)):
            return expr
        if isinstance(expr, (ast.Tuple, ast.List)):
            elts = [self.expr(e, pre, False) for e in expr.elts]
            return type(expr)(elts, ast.Load())
        if isinstance(expr, ast.Call):
            func = expr.func if dotted_name(expr.func) else self.expr(expr.func, pre, False)
            new = ast.Call(func, [self.expr(a, pre, False) for a in expr.args],
                           [ast.keyword(k.arg, self.expr(k.value, pre, False)) for k in expr.keywords])
        elif isinstance(expr, ast.BinOp):
            new = ast.BinOp(self.expr(expr.left, pre, False), expr.op, self.expr(expr.right, pre, False))
        elif isinstance(expr, ast.UnaryOp):
            new = ast.UnaryOp(expr.op, self.expr(expr.operand, pre, False))
        elif isinstance(expr, ast.Compare):
            new = ast.Compare(self.expr(expr.left, pre, False), expr.ops, [self.expr(expr.comparators[0], pre, False)])
        else:
            new = expr
        if top:
            return new
        name = self.fresh(self._temp_base(expr))
        pre.append(ast.Assign([ast.Name(name, ast.Store())], new))
        return ast.Name(name, ast.Load())

    def stmt(self, stmt):
        """The flattened statements of `stmt`."""
        if isinstance(stmt, ast.If):
            # the test becomes a variable of its own (``not_var = not self.flag``, ``if not_var:``)
            if not self._flattenable(stmt.test):
                return [stmt]
            pre = []
            test = self.expr(stmt.test, pre, False)
            # the branches are flattened too (MindSpore's control-flow flattening)
            flat = ast.If(test, [f for s in stmt.body for f in self.stmt(s)],
                          [f for s in stmt.orelse for f in self.stmt(s)])
            flat.origin_test = getattr(stmt, "origin_test", stmt.test)   # what a static `if` is judged by
            return pre + [flat]
        value = getattr(stmt, "value", None)
        simple_target = isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and all(
            isinstance(n, ast.Name) for n in ([stmt.targets[0]] if isinstance(stmt.targets[0], ast.Name)
                                              else getattr(stmt.targets[0], "elts", [None])))
        if not (simple_target or isinstance(stmt, (ast.Expr, ast.Return))) or value is None \
                or not self._flattenable(value):
            return [stmt]
        pre = []
        if isinstance(stmt, ast.Return) and not isinstance(value, (ast.Name, ast.Tuple)):
            value = self.expr(value, pre, False)
        else:
            value = self.expr(value, pre, not isinstance(stmt, ast.Return))
        if isinstance(stmt, ast.Assign):
            return pre + [ast.Assign(stmt.targets, value)]
        return pre + [type(stmt)(value)]


class SymbolTreeBuilder:
    """Builds the SymbolTree of `network`."""

    def __init__(self, network):
        if not isinstance(network, Cell):
            raise TypeError(f"For 'SymbolTree.create', the argument 'network' must be Cell, but got "
                            f"{type(network).__name__}.")
        self._net = network

    def build(self):
        from .symbol_tree import SymbolTree
        cls = type(self._net)
        owner = construct_owner(cls)
        class_def = class_def_of(owner)
        func_def = next((s for s in class_def.body if isinstance(s, ast.FunctionDef) and s.name == "construct"),
                        None)
        if func_def is None:
            raise RuntimeError(f"For 'SymbolTree.create', 'construct' of '{owner.__name__}' cannot be found in its "
                               f"source.")
        module = sys.modules.get(owner.__module__)
        tree = SymbolTree(self._net, func_def.args, vars(module) if module is not None else {})
        flattener = _Flattener(names_of(func_def, (ast.Load, ast.Store)) + [a.arg for a in ast.walk(func_def.args)
                                                                             if isinstance(a, ast.arg)])
        for arg in func_def.args.args[1:] + func_def.args.kwonlyargs:
            tree.append_origin_node(Node.create_input_node(arg, arg.arg))
        for extra in (func_def.args.vararg, func_def.args.kwarg):
            if extra is not None:
                tree.append_origin_node(Node.create_input_node(extra, extra.arg))
        for stmt in func_def.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(
                    stmt.value.value, str):
                continue        # the docstring
            for flat in flattener.stmt(stmt):
                tree.append_origin_node(self.node_of(flat, tree))
        tree.flattener = flattener
        return tree

    def _resolve(self, expr, tree):
        """The object a callee expression names (`self.x`, a global, `module.attr`), or None."""
        path = dotted_name(expr)
        if path is None:
            return None
        head, *rest = path.split(".")
        if head == "self":
            obj = self._net
        elif head in tree.globals:
            obj = tree.globals[head]
        elif hasattr(builtins, head):
            obj = getattr(builtins, head)
        else:
            return None
        for part in rest:
            if not hasattr(obj, part):
                return None
            obj = getattr(obj, part)
        return obj

    def node_of(self, stmt, tree):
        """The node of one flattened statement."""
        if isinstance(stmt, ast.If):
            node = Node(NodeType.ControlFlow, stmt, name="if_node")
            node.branch_names = self._branch_names(stmt, tree)
            return node
        if isinstance(stmt, ast.Return):
            values = stmt.value.elts if isinstance(stmt.value, ast.Tuple) else [stmt.value]
            args = [ast_to_value(v) for v in values] if stmt.value is not None else []
            if all(a is not None for a in args) and args:
                return Node(NodeType.Output, stmt, [], None, args, {}, "return")
            return Node(NodeType.Python, stmt, name="python_node")
        if isinstance(stmt, ast.Assign):
            target = stmt.targets[0]
            targets = [e.id for e in target.elts] if isinstance(target, ast.Tuple) else [target.id]
        elif isinstance(stmt, ast.Expr):
            targets = []
        else:
            return Node(NodeType.Python, stmt, name="python_node")
        value = stmt.value
        if isinstance(value, (ast.BinOp, ast.UnaryOp, ast.Compare)):
            operands = [value.operand] if isinstance(value, ast.UnaryOp) else (
                [value.left, value.right] if isinstance(value, ast.BinOp) else [value.left, value.comparators[0]])
            args = [ast_to_value(o) for o in operands]
            if any(a is None for a in args):
                return Node(NodeType.Python, stmt, name="python_node")
            op = value.ops[0] if isinstance(value, ast.Compare) else value.op
            kind = {ast.BinOp: "binop", ast.UnaryOp: "unaryop", ast.Compare: "compare"}[type(value)]
            node = Node(NodeType.MathOps, stmt, targets, None, args, {}, f"{kind}_{_op_name(op)}")
            node.op = op
            return node
        if not isinstance(value, ast.Call):
            return Node(NodeType.Python, stmt, name="python_node")
        func = ast_to_value(value.func)
        args = [ast_to_value(a) for a in value.args]
        kwargs = {k.arg: ast_to_value(k.value) for k in value.keywords}
        if func is None or any(a is None for a in args) or any(v is None for v in kwargs.values()):
            return Node(NodeType.Python, stmt, name="python_node")
        return self._call_node(stmt, tree, func, targets, args, kwargs)

    def _branch_names(self, stmt, tree):
        """The names of the nodes MindSpore makes of the statements inside an `if` (nested ifs' included): the
        tree reserves them, so the nodes after the `if` are numbered as MindSpore numbers them."""
        names = []
        for inner in stmt.body + stmt.orelse:
            node = self.node_of(inner, tree)
            names.append(node.get_name())
            names.extend(getattr(node, "branch_names", ()))
        return names

    def _call_node(self, stmt, tree, func, targets, args, kwargs):
        obj = self._resolve(stmt.value.func, tree)
        if func.scope == "self" and isinstance(obj, Cell):
            node_type = NodeType.CallCell
            if isinstance(obj, SequentialCell):
                node_type = NodeType.CellContainer
            elif is_subtree(type(obj)):
                node_type = NodeType.Tree
            node = Node(node_type, stmt, targets, func, args, kwargs, func.value, obj)
            if node_type == NodeType.Tree:
                self._attach_subtree(node, obj)
            elif node_type == NodeType.CellContainer:
                self._attach_children(node, obj)
            return node
        if isinstance(obj, Primitive):
            return Node(NodeType.CallPrimitive, stmt, targets, func, args, kwargs, func.value, obj)
        if func.scope == "self" or isinstance(obj, types.MethodType) or obj is None:
            return Node(NodeType.CallMethod, stmt, targets, func, args, kwargs, func.value, obj)
        return Node(NodeType.CallFunction, stmt, targets, func, args, kwargs, func.value, obj)

    @staticmethod
    def _attach_subtree(node, cell):
        try:
            node.symbol_tree = SymbolTreeBuilder(cell).build()
        except (RuntimeError, SyntaxError):      # no readable source: called as a whole
            node._node_type = NodeType.CallCell

    @staticmethod
    def _attach_children(node, container):
        arg = node.get_args()[:1]
        for key, cell in container.name_cells().items():
            child_type = NodeType.Tree if is_subtree(type(cell)) else NodeType.CallCell
            target = f"{node.get_name()}_{key}_var"
            child = Node(child_type, None, [target], None, arg, {}, f"{node.get_name()}_{key}", cell)
            arg = [target]
            child.container = node
            child.container_key = key
            if child_type == NodeType.Tree:
                SymbolTreeBuilder._attach_subtree(child, cell)
            node.children.append(child)
