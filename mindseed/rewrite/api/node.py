"""mindspore.rewrite.Node: a statement of a network's forward method, as `SymbolTree` shows it."""
from types import FunctionType

from mindseed import _checkparam as Validator
from mindseed.nn import Cell
from mindseed.ops.primitive import Primitive
from ..node.node import Node as NodeImpl
from .node_type import NodeType
from .scoped_value import ScopedValue


class Node:
    """A node of a SymbolTree: usually one statement of the unfolded forward method — a call of a Cell, a
    Primitive or a function, an arithmetic operation, the return statement, ...

    Args:
        node (NodeImpl): the implementation handle; create nodes with `create_call_cell` and friends.
    """

    def __init__(self, node):
        self._node = node

    def __eq__(self, other):
        return isinstance(other, Node) and self._node is other._node

    def __hash__(self):
        return id(self._node)

    def __repr__(self):
        return f"Node({self._node.get_node_type().name}, {self._node.get_name()!r})"

    @staticmethod
    def create_call_cell(cell, targets, args=None, kwargs=None, name="", is_sub_net=False):
        """A node calling `cell`: ``targets = self.<name>(*args, **kwargs)`` once inserted into a SymbolTree.

        Args:
            cell (Union[Cell, Primitive]): the operator the node calls.
            targets (list[Union[ScopedValue, str]]): the output names.
            args (list[ScopedValue]): the arguments. Default: ``None``.
            kwargs (dict[str, ScopedValue]): the keyword arguments. Default: ``None``.
            name (str): the node's (and the network field's) name, made unique on insertion; derived from the
                cell's class when empty. Default: ``""``.
            is_sub_net (bool): parse `cell` into a sub-tree (a `Tree` node). Default: ``False``.
        """
        Validator.check_value_type("cell", cell, [Cell, Primitive], "Node")
        Validator.check_element_type_of_iterable("targets", targets, [ScopedValue, str], "Node")
        Validator.check_value_type("name", name, [str], "Node")
        Validator.check_value_type("is_sub_net", is_sub_net, [bool], "Node")
        if args is not None:
            Validator.check_element_type_of_iterable("args", args, [ScopedValue], "Node")
        if kwargs is not None:
            Validator.check_element_type_of_dict("kwargs", kwargs, [str], [ScopedValue], "Node")
        return Node(NodeImpl.create_call_op(cell, None, targets, args, kwargs, name, is_sub_net))

    @staticmethod
    def create_call_function(function, targets, args=None, kwargs=None):
        """A node calling `function`, which the network keeps as a field: ``targets = self.<name>(...)``."""
        Validator.check_value_type("function", function, [FunctionType, type], "create_call_function")
        Validator.check_element_type_of_iterable("targets", targets, [ScopedValue, str], "create_call_function")
        if args is not None:
            Validator.check_element_type_of_iterable("args", args, [ScopedValue], "create_call_function")
        if kwargs is not None:
            Validator.check_element_type_of_dict("kwargs", kwargs, [str], [ScopedValue], "create_call_function")
        return Node(NodeImpl._create_call_function(function, targets, args, kwargs))

    @staticmethod
    def create_input(param_name, default=None):
        """An `Input` node: an argument `param_name` of the forward method."""
        Validator.check_value_type("param_name", param_name, [str], "Node")
        if default is not None:
            Validator.check_value_type("default", default, [ScopedValue], "Node")
        return Node(NodeImpl.create_input_node(None, param_name, default, name=f"input_{param_name}"))

    def get_handler(self):
        return self._node

    def get_inputs(self):
        """The nodes whose outputs this node reads."""
        return [Node(n) for n in self._node.get_inputs()]

    def get_users(self):
        """The nodes reading this node's outputs, each once."""
        tree = self._node.get_belong_symbol_tree()
        if tree is None:
            return []
        users = []
        for user, _ in tree.get_node_users(self._node):
            if user not in users:
                users.append(user)
        return [Node(u) for u in users]

    def set_arg(self, index, arg):
        """Argument `index` becomes `arg` (a ScopedValue or a variable name)."""
        Validator.check_value_type("index", index, [int], "Node")
        Validator.check_value_type("arg", arg, [ScopedValue, str], "Node")
        tree = self._node.get_belong_symbol_tree()
        if tree is None:
            self._node.set_arg(arg, index)
        else:
            tree.set_node_arg(self._node, index, arg)

    def set_arg_by_node(self, arg_idx, src_node, out_idx=None):
        """Argument `arg_idx` becomes output `out_idx` of `src_node` (its only output when None)."""
        Validator.check_value_type("arg_idx", arg_idx, [int], "Node")
        Validator.check_value_type("src_node", src_node, [Node], "Node")
        if out_idx is not None:
            Validator.check_value_type("out_idx", out_idx, [int], "Node")
        tree = self._node.get_belong_symbol_tree()
        if tree is None:
            self._node.set_arg_by_node(arg_idx, src_node.get_handler(), out_idx)
        else:
            tree.set_node_arg_by_node(self._node, arg_idx, src_node.get_handler(), out_idx)

    def get_targets(self):
        return self._node.get_targets()

    def get_name(self):
        return self._node.get_name()

    def get_node_type(self):
        return self._node.get_node_type()

    def get_instance_type(self):
        """The type of what the node calls (Cell, Primitive, network class); NoneType for other nodes."""
        return self._node.get_instance_type()

    def get_instance(self):
        return self._node.get_instance()

    def get_args(self):
        return self._node.get_args()

    def get_kwargs(self):
        return self._node.get_kwargs()

    def get_symbol_tree(self):
        """The SymbolTree holding this node, or None."""
        from .symbol_tree import SymbolTree
        tree = self._node.get_belong_symbol_tree()
        return SymbolTree(tree) if tree is not None else None

    def get_sub_tree(self):
        """The SymbolTree of a `Tree` node's sub-network."""
        from .symbol_tree import SymbolTree
        if self._node.get_node_type() != NodeType.Tree:
            raise TypeError(f"For 'Node.get_sub_tree', node '{self.get_name()}' must be a NodeType.Tree node, but "
                            f"it is {self._node.get_node_type()}.")
        return SymbolTree(self._node.symbol_tree)

    def set_attribute(self, key, value):
        Validator.check_value_type("key", key, [str], "Node attribute")
        self._node.set_attribute(key, value)

    def get_attributes(self):
        return self._node.get_attributes()

    def get_attribute(self, key):
        Validator.check_value_type("key", key, [str], "Node attribute")
        return self._node.get_attribute(key)
