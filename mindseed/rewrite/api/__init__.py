"""The public API of mindspore.rewrite."""
from .scoped_value import ScopedValue, ValueType  # noqa: F401
from .node_type import NodeType  # noqa: F401
from .node import Node  # noqa: F401
from .symbol_tree import SymbolTree  # noqa: F401
from .pattern_engine import PatternEngine, PatternNode, Replacement, VarNode  # noqa: F401
