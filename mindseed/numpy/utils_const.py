"""mindspore.numpy.utils_const: the shape and axis arithmetic of mindspore.numpy, on Python values (what MindSpore
evaluates at compile time): broadcast shapes, axis checks and normalization."""

__all__ = []


def _infer_out_shape(*shapes):
    """The shape `shapes` broadcast to.

    Raises:
        ValueError: shapes that cannot be broadcast together.
    """
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        items = [s[i - rank + len(s)] if i - rank + len(s) >= 0 else 1 for s in shapes]
        size = 0 if 0 in items else max(items)
        if any(item not in (1, size) for item in items):
            raise ValueError(f"operands could not be broadcast together with shapes {(*shapes,)}")
        out.append(size)
    return tuple(out)


def _check_axis_in_range(axis, ndim):
    """`axis` (an int in [-ndim, ndim)) made non-negative.

    Raises:
        TypeError: `axis` not an int.
        ValueError: `axis` out of range.
    """
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"axes should be integers, not {type(axis)}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _canonicalize_axis(axis, ndim):
    """`axis` (an int, or a tuple/list of ints) with negative axes made non-negative: an int for an int or a single
    axis, else a sorted tuple.

    Raises:
        TypeError / ValueError: an axis that is not an int or out of range; ValueError for a duplicated axis.
    """
    axes = [axis] if isinstance(axis, int) and not isinstance(axis, bool) else list(axis)
    axes = tuple(_check_axis_in_range(a, ndim) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate axes in {axes}.")
    return tuple(sorted(axes)) if len(axes) > 1 else axes[0]
