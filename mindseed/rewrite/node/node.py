"""The implementation behind `mindspore.rewrite.Node`: one statement of a network's forward method.

A node holds its statement as data — targets, callee, args and kwargs as `ScopedValue`s — and writes it back as
a Python statement (`to_ast`). Statements rewrite does not take apart (`Python`, `ControlFlow`) keep their AST;
their inputs and outputs are the names they read and assign. Which node provides an argument is decided by the
names, as Python would when the generated code runs: the latest earlier node of the same tree assigning it.
"""
import ast

from mindseed.ops.primitive import Primitive
from ..api.node_type import NodeType
from ..api.scoped_value import ScopedValue, ValueType

_CALL_TYPES = (NodeType.CallCell, NodeType.CallPrimitive, NodeType.CallFunction, NodeType.CallMethod,
               NodeType.Tree, NodeType.CellContainer)


def value_to_ast(value):
    """The expression a ScopedValue stands for."""
    if value.type == ValueType.NamingValue:
        if not value.scope:
            return ast.Name(value.value, ast.Load())
        expr = None
        for part in value.scope.split("."):
            expr = ast.Name(part, ast.Load()) if expr is None else ast.Attribute(expr, part, ast.Load())
        return ast.Attribute(expr, value.value, ast.Load())
    if value.type == ValueType.ConstantValue:
        return ast.Constant(value.value)
    if value.type == ValueType.TupleValue:
        return ast.Tuple([value_to_ast(v) for v in value.value], ast.Load())
    if value.type == ValueType.ListValue:
        return ast.List([value_to_ast(v) for v in value.value], ast.Load())
    if value.type == ValueType.DictValue:
        return ast.Dict([ast.Constant(k) for k in value.value], [value_to_ast(v) for v in value.value.values()])
    raise ValueError(f"For rewrite, the object {value.value!r} of a CustomObjValue can only be written into code once "
                     f"its node is inserted into a SymbolTree.")


def ast_to_value(expr):
    """The ScopedValue of a simple expression (a name, `a.b.c`, a constant, a tuple/list of those), else None."""
    if isinstance(expr, ast.Name):
        return ScopedValue.create_naming_value(expr.id)
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (type(None), int, float, str, bool)):
        return ScopedValue(ValueType.ConstantValue, "", expr.value)
    if isinstance(expr, ast.Attribute):
        scope = dotted_name(expr.value)
        return None if scope is None else ScopedValue.create_naming_value(expr.attr, scope)
    if isinstance(expr, (ast.Tuple, ast.List)):
        items = [ast_to_value(e) for e in expr.elts]
        if any(v is None for v in items):
            return None
        if isinstance(expr, ast.Tuple):
            return ScopedValue(ValueType.TupleValue, "", tuple(items))
        return ScopedValue(ValueType.ListValue, "", items)
    return None


def dotted_name(expr):
    """`a.b.c` of an attribute chain rooted at a name, else None."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        base = dotted_name(expr.value)
        return None if base is None else f"{base}.{expr.attr}"
    return None


def naming_names(value):
    """The local variable names a ScopedValue reads."""
    if value is None:
        return []
    if value.type == ValueType.NamingValue:
        return [value.value] if not value.scope else [value.scope.split(".")[0]]
    if value.type in (ValueType.TupleValue, ValueType.ListValue):
        return [n for v in value.value for n in naming_names(v)]
    if value.type == ValueType.DictValue:
        return [n for v in value.value.values() for n in naming_names(v)]
    return []


def as_target(target):
    return ScopedValue.create_naming_value(target) if isinstance(target, str) else target


def as_arg(arg):
    return ScopedValue.create_naming_value(arg) if isinstance(arg, str) else arg


def names_of(node, ctx):
    """Names a statement's AST stores (ctx ast.Store) or loads (ast.Load), in order, each once."""
    seen = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ctx) and sub.id not in seen:
            seen.append(sub.id)
    return seen


_ATTRIBUTE_TYPES = (NodeType.CallModule, NodeType.CallCell, NodeType.CallPrimitive)


def _instance_attributes(obj):
    if obj is None:
        return {}
    attributes = {k: v for k, v in vars(obj).items() if not k.startswith("_")}
    attributes["cls"] = type(obj)
    return attributes


class Node:
    """One statement of a SymbolTree (see the module docstring)."""

    def __init__(self, node_type, ast_node=None, targets=None, func=None, args=None, kwargs=None, name="",
                 instance=None):
        self._node_type = node_type
        self._ast = ast_node
        self._targets = [as_target(t) for t in (targets or [])]
        self._func = func
        self._args = [as_arg(a) for a in (args or [])]
        self._kwargs = dict(kwargs or {})
        self._name = name
        self._instance = instance
        self._belong_tree = None
        # a Cell's or Primitive's public attributes and its class, as MindSpore's node holds them (transforms read
        # the layer's settings through `get_attribute`)
        self._attributes = _instance_attributes(instance) if node_type in _ATTRIBUTE_TYPES else {}
        self._arg_providers = {}        # set_arg_providers: providers given by hand (nodes outside a tree)
        self.container = None           # the CellContainer node holding this node
        self.symbol_tree = None         # Tree nodes: the sub-tree
        self.children = []              # CellContainer nodes: one node per cell
        self.op = None                  # MathOps nodes: the ast operator

    # ------------------------------------------------------------ creation
    @classmethod
    def create_call_op(cls, op, ast_node, targets, args=None, kwargs=None, name="", is_sub_net=False):
        """A node calling the Cell or Primitive `op`: ``targets = self.<name>(*args, **kwargs)``."""
        from ..common.namespace import is_subtree
        if isinstance(op, Primitive):
            node_type = NodeType.CallPrimitive
        elif is_sub_net and is_subtree(type(op)):
            node_type = NodeType.Tree
        else:
            node_type = NodeType.CallCell
        node = cls(node_type, ast_node, targets, None, args, kwargs, name or type(op).__name__.lower(), op)
        if node_type == NodeType.Tree:
            from ..symbol_tree.builder import SymbolTreeBuilder
            node.symbol_tree = SymbolTreeBuilder(op).build()
        return node

    @classmethod
    def _create_call_function(cls, function, targets, args=None, kwargs=None):
        """A node calling `function`, which the network keeps as a field: ``targets = self.<name>(...)``."""
        name = getattr(function, "__name__", type(function).__name__)
        return cls(NodeType.CallFunction, None, targets, None, args, kwargs, name, function)

    @classmethod
    def create_input_node(cls, ast_node, param_name, default=None, name=""):
        node = cls(NodeType.Input, ast_node, [param_name], None, [], {}, name or f"input_{param_name}")
        node._default = default
        return node

    # ------------------------------------------------------------ properties
    def get_name(self):
        return self._name

    def set_name(self, name):
        self._name = name

    def get_node_type(self):
        return self._node_type

    def get_instance(self):
        return self._instance

    def get_instance_type(self):
        if self._node_type in (NodeType.CallCell, NodeType.CallPrimitive, NodeType.Tree, NodeType.CellContainer,
                               NodeType.CallFunction):
            return type(self._instance)
        return type(None)

    def get_targets(self):
        return list(self._targets)

    def get_args(self):
        return list(self._args)

    def get_kwargs(self):
        return dict(self._kwargs)

    def get_func(self):
        return self._func

    def get_ast(self):
        return self._ast

    def get_belong_symbol_tree(self):
        return self._belong_tree

    def set_belong_symbol_tree(self, tree):
        self._belong_tree = tree
        for child in self.children:
            child.set_belong_symbol_tree(tree)

    def set_attribute(self, key, value):
        self._attributes[key] = value

    def get_attribute(self, key):
        return self._attributes.get(key)

    def get_attributes(self):
        return self._attributes

    def nodes(self):
        """The nodes of the cells of a CellContainer node."""
        return list(self.children)

    # ------------------------------------------------------------ arguments and topology
    def check_arg_index(self, index, api="set_arg"):
        if not 0 <= index < len(self._args):
            raise ValueError(f"For '{api}', the index {index} is out of range [0, {len(self._args)}) of the args of "
                             f"node '{self._name}'.")

    def set_arg(self, arg, index):
        """Replace argument `index` by `arg` (a ScopedValue or a variable name)."""
        if self._node_type in (NodeType.Python, NodeType.ControlFlow, NodeType.Input):
            raise TypeError(f"For 'set_arg', node '{self._name}' of type {self._node_type} has no arguments to set.")
        self.check_arg_index(index)
        self._args[index] = as_arg(arg)

    def set_arg_by_node(self, arg_idx, src_node, out_idx=None):
        """Argument `arg_idx` becomes output `out_idx` of `src_node` (its first one when `out_idx` is None)."""
        self.check_arg_index(arg_idx, "set_arg_by_node")
        targets = src_node.get_targets()
        if out_idx is None:
            if len(targets) != 1:
                raise ValueError(f"For 'set_arg_by_node', node '{src_node.get_name()}' has {len(targets)} outputs; "
                                 f"give 'out_idx'.")
            out_idx = 0
        if not 0 <= out_idx < len(targets):
            raise ValueError(f"For 'set_arg_by_node', the out_idx {out_idx} is out of range [0, {len(targets)}) of "
                             f"the outputs of node '{src_node.get_name()}'.")
        self._args[arg_idx] = targets[out_idx]
        self._arg_providers[arg_idx] = (src_node, out_idx)

    def set_arg_providers(self, index, provider):
        """Node `provider[0]`'s output `provider[1]` feeds argument `index` (for nodes kept outside a tree)."""
        self._arg_providers[index] = provider

    def get_arg_providers(self):
        tree = self._belong_tree
        if tree is None:
            return dict(self._arg_providers)
        return tree.get_node_arg_providers(self)

    def get_inputs(self):
        """The nodes whose outputs this node reads, in argument order."""
        return [provider[0] for _, provider in sorted(self.get_arg_providers().items())]

    def read_names(self):
        """Per read position (an argument index, or -1 for a callee / free name), the variable names it reads."""
        if self._node_type in (NodeType.Python, NodeType.ControlFlow):
            return [(-1, names_of(self._ast, ast.Load))]
        reads = [(i, naming_names(a)) for i, a in enumerate(self._args)]
        reads += [(len(self._args) + i, naming_names(v)) for i, v in enumerate(self._kwargs.values())]
        if self._func is not None and self._func.scope and self._func.scope != "self":
            reads.append((-1, [self._func.scope.split(".")[0]]))
        return reads

    def written_names(self):
        if self._node_type in (NodeType.Python, NodeType.ControlFlow):
            return names_of(self._ast, ast.Store)
        return [n for t in self._targets for n in naming_names(t)]

    # ------------------------------------------------------------ code
    def _call_expr(self):
        func = value_to_ast(self._func)
        return ast.Call(func, [value_to_ast(a) for a in self._args],
                        [ast.keyword(k, value_to_ast(v)) for k, v in self._kwargs.items()])

    def _math_expr(self):
        args = [value_to_ast(a) for a in self._args]
        if isinstance(self.op, ast.unaryop):
            return ast.UnaryOp(self.op, args[0])
        if isinstance(self.op, ast.cmpop):
            return ast.Compare(args[0], [self.op], [args[1]])
        return ast.BinOp(args[0], self.op, args[1])

    def to_ast(self):
        """The statement this node writes into the forward method (None for an Input node)."""
        if self._node_type == NodeType.Input:
            return None
        if self._node_type in (NodeType.Python, NodeType.ControlFlow):
            return self._ast
        if self._node_type == NodeType.Output:
            if len(self._args) == 1:
                return ast.Return(value_to_ast(self._args[0]))
            return ast.Return(ast.Tuple([value_to_ast(a) for a in self._args], ast.Load()))
        value = self._math_expr() if self._node_type == NodeType.MathOps else self._call_expr()
        if not self._targets:
            return ast.Expr(value)
        if len(self._targets) == 1:
            target = value_to_store(self._targets[0])
        else:
            target = ast.Tuple([value_to_store(t) for t in self._targets], ast.Store())
        return ast.Assign([target], value)

    def get_source_code(self):
        stmt = self.to_ast()
        return "" if stmt is None else ast.unparse(ast.fix_missing_locations(stmt))

    def __repr__(self):
        return f"Node({self._node_type.name}, {self._name!r})"


def value_to_store(value):
    if value.type == ValueType.NamingValue and not value.scope:
        return ast.Name(value.value, ast.Store())
    if value.type in (ValueType.TupleValue, ValueType.ListValue):
        return ast.Tuple([value_to_store(v) for v in value.value], ast.Store())
    raise ValueError(f"For rewrite, a target must be a variable name, but got '{value}'.")


__all__ = ["Node", "value_to_ast", "ast_to_value", "dotted_name", "names_of", "_CALL_TYPES"]
