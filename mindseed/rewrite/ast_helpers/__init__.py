"""MindSpore's `rewrite.ast_helpers`: helpers searching a Python AST (`AstFinder`, `AstClassFinder`,
`AstFunctionFinder`)."""
from mindseed.rewrite.ast_helpers.ast_finder import AstClassFinder, AstFinder, AstFunctionFinder

__all__ = ["AstFinder", "AstClassFinder", "AstFunctionFinder"]
