"""Searches of a Python AST: every node of some types (`AstFinder`), the class or function definitions of a name
(`AstClassFinder`, `AstFunctionFinder`; a definition found is not searched further)."""
import ast

__all__ = ["AstFinder", "AstClassFinder", "AstFunctionFinder"]


class AstFinder(ast.NodeVisitor):
    """All nodes of given ast types under `node` (itself included), in visiting order."""

    def __init__(self, node):
        self._scope = node
        self._targets = ()
        self._results = []

    def generic_visit(self, node):
        if isinstance(node, self._targets):
            self._results.append(node)
        super().generic_visit(node)

    def find_all(self, ast_types):
        """The matching nodes, a list. `ast_types` is an ast class or a tuple of them (ValueError otherwise)."""
        if isinstance(ast_types, type):
            ast_types = (ast_types,)
        elif not isinstance(ast_types, tuple):
            raise ValueError("Input ast_types should be a tuple or a type")
        self._targets = ast_types
        self._results = []
        self.visit(self._scope)
        return self._results


class _NamedDefFinder(ast.NodeVisitor):
    _kind = "name"

    def __init__(self, node):
        self._scope = node
        self._target = ""
        self._results = []

    def _found(self, node):
        if node.name == self._target:
            self._results.append(node)
        else:
            self.generic_visit(node)

    def find_all(self, name):
        """The definitions named `name` (a str, TypeError otherwise), a list."""
        if not isinstance(name, str):
            raise TypeError(f"Input {self._kind} should be a str")
        self._target = name
        self._results = []
        self.visit(self._scope)
        return self._results


class AstClassFinder(_NamedDefFinder):
    """The class definitions of a name under a node."""

    _kind = "class_name"

    def visit_ClassDef(self, node):
        self._found(node)


class AstFunctionFinder(_NamedDefFinder):
    """The function definitions of a name under a node."""

    _kind = "func_name"

    def visit_FunctionDef(self, node):
        self._found(node)
