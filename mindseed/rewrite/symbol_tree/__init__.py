"""Implementation of rewrite's SymbolTree."""
from .symbol_tree import Position, SymbolTree  # noqa: F401
from .builder import SymbolTreeBuilder  # noqa: F401
