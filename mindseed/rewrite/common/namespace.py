"""Which Cells rewrite parses into sub-trees: user-defined networks, except the classes of `_subtree_black_list`
(packages built on rewrite append theirs, e.g. Golden Stick's QuantCell) and the framework's own cells."""
import inspect

_subtree_black_list = []

_FRAMEWORK_MODULES = ("mindseed", "mindspore")


def is_framework_cell(cls):
    """The class is one of the framework's own cells (nn layers, wrappers), called as a whole."""
    module = getattr(cls, "__module__", "") or ""
    return module.split(".")[0] in _FRAMEWORK_MODULES


def is_subtree(cls):
    """A call of a Cell of class `cls` is parsed into a sub-tree (NodeType.Tree)."""
    if is_framework_cell(cls):
        return False
    if any(inspect.isclass(black) and issubclass(cls, black) for black in _subtree_black_list):
        return False
    return True
