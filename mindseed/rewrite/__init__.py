"""mindspore.rewrite: modify a network's forward computation — insert, erase and replace its statements — and get
the modified network and its source.

`SymbolTree.create(net)` parses `net.construct` with Python's `ast` into nodes; nodes are edited through the
SymbolTree and `Node` APIs (or found and replaced by a `PatternEngine`); `get_network()` returns a new network
running the edited code and `get_code()` its source.
"""
from . import common  # noqa: F401
from .api.scoped_value import ScopedValue, ValueType
from .api.symbol_tree import SymbolTree
from .api.node import Node
from .api.node_type import NodeType
from .api.pattern_engine import PatternEngine, PatternNode, Replacement, VarNode

__all__ = ["SymbolTree", "Node", "NodeType", "ScopedValue", "ValueType", "PatternEngine", "PatternNode", "VarNode",
           "Replacement"]
