"""TreeNodeHelper: the sub-tree of a `Tree` node."""
from .node import Node
from .node_type import NodeType


class TreeNodeHelper:
    """Helpers for `Tree` nodes."""

    @staticmethod
    def get_sub_tree(node):
        """The SymbolTree of a `Tree` (or a CellContainer's Tree) node; None for other nodes."""
        if not isinstance(node, Node):
            raise TypeError(f"For 'TreeNodeHelper.get_sub_tree', the node must be a Node, but got "
                            f"{type(node).__name__}.")
        if node.get_node_type() != NodeType.Tree:
            return None
        return node.get_sub_tree()
