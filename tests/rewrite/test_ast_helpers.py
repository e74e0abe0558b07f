"""rewrite.ast_helpers: finding nodes of a type, and class/function definitions by name, in a parsed source."""
import ast

import pytest

from mindseed.rewrite.ast_helpers import AstClassFinder, AstFinder, AstFunctionFinder

_SRC = '''
class A:
    x = 1

    def f(self, y):
        z = self.x + y
        return z

    class B:
        def f(self):
            return 2


def f(a):
    b = a.c
    return b
'''


def test_ast_finder_counts_nodes_of_the_types():
    root = ast.parse(_SRC)
    assigns = AstFinder(root).find_all(ast.Assign)
    assert len(assigns) == 3 and all(isinstance(n, ast.Assign) for n in assigns)
    both = AstFinder(root).find_all((ast.Assign, ast.Attribute))
    assert len(both) == 5 and sum(isinstance(n, ast.Attribute) for n in both) == 2
    with pytest.raises(ValueError, match="tuple or a type"):
        AstFinder(root).find_all([ast.Assign])


def test_definition_finders():
    root = ast.parse(_SRC)
    assert [c.name for c in AstClassFinder(root).find_all("B")] == ["B"]
    assert len(AstFunctionFinder(root).find_all("f")) == 3 and AstFunctionFinder(root).find_all("g") == []
    with pytest.raises(TypeError, match="func_name should be a str"):
        AstFunctionFinder(root).find_all(1)
