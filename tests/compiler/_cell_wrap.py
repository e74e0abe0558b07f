"""A decorator defined in its own module, as test helpers are: it runs the function as a Cell's construct.

This module imports no `ops` and no `np`: a name of the decorated function's body must resolve in the
decorated function's globals, never in these.
"""
from functools import wraps

from mindseed import nn


class FnCell(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


def run_in_cell(fn):
    @wraps(fn)
    def wrapper(*args, **kwargs):
        return FnCell(fn)(*args, **kwargs)
    return wrapper
