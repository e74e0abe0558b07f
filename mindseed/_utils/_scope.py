"""Cell scopes: MindSpore's full names of the cells being run or traced ("Default/network-WithLossCell/fc-Dense").

The outermost cell is "Default"; a child is named "<attribute>-<Class>" under its parent (MindSpore's scope names,
which its profiler and graph dumps show). Kept only while a graph is traced or a profiler records.
"""
from mindseed._utils import _state

__all__ = ["push", "push_named", "pop", "current"]

_scopes = _state.scopes


def _child_name(parent, cell):
    for name, child in getattr(parent, "__dict__", {}).get("_cells", {}).items():
        if child is cell:
            return name
    return type(cell).__name__.lower()


def push(cell):
    """Enter `cell`; returns its scope name."""
    if not _scopes:
        path = "Default"
    else:
        parent, parent_path = _scopes[-1]
        # a cell re-entered through its own compiled call keeps its scope
        path = parent_path if parent is cell else f"{parent_path}/{_child_name(parent, cell)}-{type(cell).__name__}"
    _scopes.append((cell, path))
    return path


def push_named(path):
    """Enter a scope that is no cell's ("Gradients/Default" while gradients are computed)."""
    _scopes.append((None, path))


def pop():
    _scopes.pop()


def current():
    """The scope name of the innermost cell ("Default" outside any cell)."""
    return _scopes[-1][1] if _scopes else "Default"
