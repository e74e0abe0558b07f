"""mindspore.rewrite.SymbolTree: a network's forward method as nodes that can be inserted, erased and replaced,
and the new network they make."""
from mindseed import _checkparam as Validator
from mindseed.nn import Cell
from ..symbol_tree import Position, SymbolTree as SymbolTreeImpl, SymbolTreeBuilder
from .node import Node


class SymbolTree:
    """The statements of a network's forward method, as nodes, with the topology between their inputs and outputs.

    Args:
        handler (SymbolTreeImpl): the implementation handle; create SymbolTrees with `SymbolTree.create`.

    >>> import mindseed as ms
    >>> from mindseed.rewrite import SymbolTree
    >>> class Net(ms.nn.Cell):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.dense = ms.nn.Dense(2, 2)
    ...         self.relu = ms.nn.ReLU()
    ...     def construct(self, x):
    ...         return self.relu(self.dense(x))
    >>> [n.get_name() for n in SymbolTree.create(Net()).nodes()]
    ['input_x', 'dense', 'relu', 'return']
    """

    def __init__(self, handler):
        Validator.check_value_type("handler", handler, [SymbolTreeImpl], "SymbolTree")
        self._symbol_tree = handler

    def __eq__(self, other):
        return isinstance(other, SymbolTree) and self._symbol_tree is other._symbol_tree

    def __hash__(self):
        return id(self._symbol_tree)

    @classmethod
    def create(cls, network):
        """Parse `network`'s `construct` into a SymbolTree: each statement of the unfolded source becomes a node;
        calls of user-defined networks become `Tree` nodes holding their own SymbolTree."""
        Validator.check_value_type("network", network, [Cell], "SymbolTree")
        return cls(SymbolTreeBuilder(network).build())

    def get_handler(self):
        return self._symbol_tree

    def nodes(self, all_nodes=False):
        """A generator of the nodes (with `all_nodes`, also those of CellContainers and sub-trees)."""
        Validator.check_value_type("all_nodes", all_nodes, [bool], "nodes")
        for node in (self._symbol_tree.all_nodes() if all_nodes else self._symbol_tree.nodes()):
            yield Node(node)

    def all_nodes(self, subtree_nodes=True):
        Validator.check_value_type("subtree_nodes", subtree_nodes, [bool], "all_nodes")
        return [Node(n) for n in self._symbol_tree.all_nodes(subtree_nodes)]

    def get_node(self, node_name):
        """The node named `node_name`, or None."""
        Validator.check_value_type("node_name", node_name, [str], "SymbolTree")
        node = self._symbol_tree.get_node_from_name(node_name)
        return Node(node) if node is not None else None

    def get_inputs(self):
        """The `Input` nodes."""
        return [Node(n) for n in self._symbol_tree.get_input_nodes()]

    def get_return_node(self):
        node = self._symbol_tree.get_return_node()
        return Node(node) if node is not None else None

    def before(self, node):
        """The position before `node` (a Node or a node name), for `insert`."""
        Validator.check_value_type("node", node, [Node, str], "SymbolTree")
        return self._symbol_tree.before(node.get_handler() if isinstance(node, Node) else node)

    def after(self, node):
        """The position after `node` (a Node or a node name), for `insert`."""
        Validator.check_value_type("node", node, [Node, str], "SymbolTree")
        return self._symbol_tree.after(node.get_handler() if isinstance(node, Node) else node)

    def insert(self, position, node):
        """Insert `node` at `position` (from `before`/`after`); returns the inserted node."""
        Validator.check_value_type("position", position, [Position], "SymbolTree")
        Validator.check_value_type("node", node, [Node], "SymbolTree")
        if position.symbol_tree is not self._symbol_tree:
            raise ValueError("For 'SymbolTree.insert', the position does not belong to this SymbolTree.")
        return Node(self._symbol_tree.insert_node(node.get_handler(), position.node, position.before_node))

    def erase(self, node):
        """Remove `node` (a Node or a node name); returns it."""
        Validator.check_value_type("node", node, [Node, str], "SymbolTree")
        return Node(self._symbol_tree.erase_node(node.get_handler() if isinstance(node, Node) else node))

    erase_node = erase      # the name of MindSpore 1.x, which packages built on rewrite still call

    def replace(self, old_node, new_nodes):
        """Insert `new_nodes` in order after `old_node`, hand its users the last new node's outputs and erase it;
        returns the last new node."""
        Validator.check_value_type("old_node", old_node, [Node], "SymbolTree")
        Validator.check_element_type_of_iterable("new_nodes", new_nodes, [Node], "SymbolTree")
        return Node(self._symbol_tree.replace(old_node.get_handler(), [n.get_handler() for n in new_nodes]))

    def set_output(self, index, return_value):
        """Output `index` of the return statement becomes the variable `return_value`."""
        Validator.check_value_type("index", index, [int], "SymbolTree")
        Validator.check_value_type("return_value", return_value, [str], "SymbolTree")
        return Node(self._symbol_tree.set_output(return_value, index))

    def dump(self):
        self._symbol_tree.dump()

    def print_node_tabulate(self, all_nodes=False):
        """Print each node's type, name, code, argument providers and output users."""
        Validator.check_value_type("all_nodes", all_nodes, [bool], "print_node_tabulate")
        print(self._symbol_tree.get_node_tabulate(all_nodes))

    def get_code(self):
        """The source of the network the SymbolTree now describes."""
        return self._symbol_tree.get_code()

    def get_network(self):
        """A new network from the SymbolTree. It shares the original's Parameters and cells: the original should
        not be used any more."""
        return self._symbol_tree.get_network()

    def set_saved_file_name(self, file_name):
        Validator.check_value_type("file_name", file_name, [str], "Saving network")
        self._symbol_tree.set_saved_file_name(file_name)

    def get_saved_file_name(self):
        return self._symbol_tree.get_saved_file_name()

    def save_network_to_file(self):
        self._symbol_tree.save_network_to_file()

    def unique_name(self, name="output"):
        """A variable name not used in the tree: `name`, or `name_<n>`."""
        Validator.check_value_type("name", name, [str], "SymbolTree")
        return self._symbol_tree.unique_name(name)

    def flatten_static_if_control_flow(self):
        """Replace each `if` whose condition depends only on the network's attributes by the branch it takes."""
        self._symbol_tree.flatten_static_if_control_flow()

    def get_origin_network(self):
        return self._symbol_tree.get_origin_network()
