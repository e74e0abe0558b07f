"""Saved-value stacks: what a differentiated graph loop keeps per iteration for its backward loop.

A differentiated `While` pushes its carried values at the start of every iteration; the backward
`While` reads them back from the last iteration to the first. A stack is a run-time value of the graph
like a tensor (a loop carries it, a graph returns it as a residual), so to the layers above it looks
like a 0-d, non-floating backend value (`shape`, `dtype`, `is_floating_point`); it is never
differentiated. Entries are references to the pushed tensors: pushing copies nothing.
"""
import torch

__all__ = ["Stack", "stack_new", "stack_push", "stack_len", "stack_get"]


class Stack(list):
    """A list of tuples of backend tensors, one tuple per loop iteration."""

    __slots__ = ()
    shape = torch.Size(())
    dtype = torch.int64
    device = torch.device("cpu")

    def is_floating_point(self):
        return False

    def is_complex(self):
        return False

    def numel(self):
        return 1

    def dim(self):
        return 0

    def __repr__(self):
        return f"<Stack of {len(self)} entries>"


def stack_new():
    return Stack()


def stack_push(s, *xs, extend=False):
    """Push one entry (`extend`: add `xs` to the last entry, e.g. the random draws of the iteration it began).

    Entries hold aliases (new tensor objects on the same memory, nothing copied): a Parameter a loop updates
    is pushed at the start of its iteration and then given new storage by its `Assign` (`set_`), which must not
    change what was pushed."""
    xs = tuple(x.view_as(x) if isinstance(x, torch.Tensor) else x for x in xs)
    if extend:
        s[-1] = s[-1] + xs
    else:
        s.append(xs)
    return s


def stack_len(s):
    return torch.tensor(len(s), dtype=torch.int64)


def stack_get(s, k, *like):
    """Entry k; `like` (values shaped as an entry) stands in when k is out of range, which happens only when a
    loop body is traced at a point its loop never reaches (e.g. the backward of a loop that ran zero times)."""
    k = int(k)
    return s[k] if 0 <= k < len(s) else like
