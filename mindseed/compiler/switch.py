"""A sequence of cells (or functions) indexed by a tensor of the graph: MindSpore's switch_layer.

`self.layers[i](x)` with `i` a tensor computed in the graph (a loop counter, an argmax) cannot pick the cell while
tracing. MindSpore's graph builds a Switch over the cells; here the pick is a callable (`Switch`) whose call is a
chain of If nodes on `i == k`, each branch calling cell k with the same arguments. Every cell is traced (its
Parameters are graph inputs), the one picked at run time runs, and gradients flow through the Ifs like any
branch's. The cells must give results of one structure, shapes and dtypes, as MindSpore requires of a Switch.
"""
from mindseed.common import dtype as mstype
from mindseed.compiler import control
from mindseed.compiler.trace import user_location
from mindseed.ops._prims.index_dyn import switch_index_p

__all__ = ["Switch", "cells_of"]


def cells_of(seq):
    """The items of a CellList / SequentialCell (an nn container of cells), or None for any other object."""
    # nn sits above the compiler: the containers are known by their classes' names
    if isinstance(getattr(seq, "_cells", None), dict) and \
            any(c.__name__ in ("CellList", "SequentialCell") for c in type(seq).__mro__):
        return list(seq._cells.values())
    return None


class Switch:
    """The item of `items` that the graph tensor `index` picks at run time, as a callable."""

    def __init__(self, items, index):
        if index.dtype != mstype.int32:
            raise ValueError(f"switch_layer index must be an int32, but got {index.dtype} (at {user_location()}).")
        if index.size != 1:
            raise ValueError(f"For 'switch_layer', the index must be a scalar tensor, but got shape "
                             f"{tuple(index.shape)} (at {user_location()}).")
        uncallable = [type(c).__name__ for c in items if not callable(c)]
        if uncallable:
            raise TypeError(f"For 'switch_layer', every item of the sequence indexed by a tensor must be a Cell or "
                            f"a function, but got {uncallable[0]} (at {user_location()}).")
        self.items = list(items)
        n = len(self.items)
        # checked and made non-negative at every run, as MindSpore's switch actor does; the value this trace runs
        # with is checked by the kernel itself first (its IndexError as it is, not as a primitive's input error)
        index = index.reshape(())
        switch_index_p.kernel(index._data, n=n)
        self.index = switch_index_p(index, n=n)

    def __len__(self):
        return len(self.items)

    def __call__(self, *args, **kwargs):
        def pick(k):
            if k == len(self.items) - 1:
                return self.items[k](*args, **kwargs)
            return control.ifexp(self.index == k, lambda: self.items[k](*args, **kwargs),
                                 lambda: pick(k + 1))
        return pick(0)
