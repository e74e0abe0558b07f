"""vmap: map a function over a batch axis of its inputs.

Runs the function once per batch element on slices and stacks the results. The slices and the
stack are ordinary differentiable ops, so vmap composes with grad (and with itself).
"""
import inspect

from mindseed.common.tensor import Tensor
from mindseed.ops._prims import core as P
from mindseed.ops.operations._random import shared_streams

__all__ = ["vmap"]


def _leaves_axes(args, in_axes):
    """Pair every tensor leaf of args with its mapped axis (None = not mapped)."""
    if isinstance(in_axes, (list, tuple)) and not isinstance(args, Tensor):
        if len(in_axes) != len(args):
            raise ValueError(f"For 'vmap', 'in_axes' has {len(in_axes)} entries but the inputs are {len(args)}.")
        return [_leaves_axes(a, ax) for a, ax in zip(args, in_axes)]
    if isinstance(args, (list, tuple)):
        return [_leaves_axes(a, in_axes) for a in args]
    return (args, in_axes)


def _batch_size(pairs, sizes):
    if isinstance(pairs, list):
        for p in pairs:
            _batch_size(p, sizes)
        return
    x, ax = pairs
    if ax is not None and (isinstance(ax, bool) or not isinstance(ax, int)):
        shown = f"{ax:g}" if isinstance(ax, float) else ax
        raise RuntimeError(f"The axis in vmap's 'in_axes' should be a None or a scalar of type Int64Imm, but got a "
                           f"{shown}.")
    if ax is not None and isinstance(x, Tensor):
        if not -x.ndim <= ax < x.ndim:
            raise RuntimeError(f"The axis: {ax} in 'in_axes' is out of bounds for array of dimension "
                               f"[{-x.ndim},{x.ndim}).")
        if x.shape[ax] not in sizes:
            sizes.append(x.shape[ax])


def _all_none(axes):
    return all(_all_none(a) if isinstance(a, (tuple, list)) else a is None for a in axes)


def _parameter_count(cell):
    try:
        return len(inspect.signature(cell.construct).parameters)
    except (TypeError, ValueError):
        return None


def _check_arguments(fn, args):
    """MindSpore's TypeError when the arguments given do not fit the parameters of fn (a Cell: its construct)."""
    try:
        params = list(inspect.signature(getattr(fn, "construct", fn)).parameters.values())
    except (TypeError, ValueError):     # no signature to check (a builtin)
        return
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return
    required = sum(1 for p in params if p.default is p.empty)
    if not required <= len(args) <= len(params):
        raise TypeError(f"The parameters number of the function is {len(params)}, but the number of provided "
                        f"arguments is {len(args)}.")


def _raise_all_none(in_axes):
    if in_axes is None:
        raise RuntimeError("The 'in_axes' of 'vmap' cannot be a single None while 'fn' is not a 'CellList'.")
    raise RuntimeError(f"The 'in_axes' of 'vmap' cannot be all None while 'fn' is not a 'CellList', but got "
                       f"{in_axes}.")


def _slice(pairs, template, i):
    if isinstance(pairs, list):
        out = [_slice(p, t, i) for p, t in zip(pairs, template)]
        return tuple(out) if isinstance(template, tuple) else out
    x, ax = pairs
    if ax is None or not isinstance(x, Tensor):
        return x
    ax = ax % x.ndim
    index = (slice(None),) * ax + (i,)
    return P.getitem_p(x, index=index)


def _stack(results, out_axes):
    first = results[0]
    if isinstance(first, (tuple, list)):
        axes = out_axes if isinstance(out_axes, (tuple, list)) else [out_axes] * len(first)
        if len(axes) != len(first):
            raise RuntimeError(f"The size of vmap's 'out_axes' should be equal to the number of results of 'fn': "
                               f"{len(first)}, but got size: {len(axes)}.")
        out = [_stack([r[k] for r in results], axes[k]) for k in range(len(first))]
        return tuple(out) if isinstance(first, tuple) else out
    if isinstance(out_axes, (tuple, list)):     # one result: a one-element out_axes holds its axis
        if len(out_axes) != 1:
            raise RuntimeError(f"The size of vmap's 'out_axes' should be equal to the result size: 1, but got size: "
                               f"{len(out_axes)}.")
        out_axes = out_axes[0]
    if out_axes is not None and (isinstance(out_axes, bool) or not isinstance(out_axes, int)):
        raise RuntimeError(f"The axis in vmap's 'out_axes' should be a None or a scalar of type int, but got "
                           f"{out_axes}.")
    if not isinstance(first, Tensor):
        first = Tensor(first)
        results = [Tensor(r) for r in results]
    if out_axes is None:
        return first
    n = first.ndim + 1
    if not -n <= out_axes < n:
        raise RuntimeError(f"The axis: {out_axes} in 'out_axes' is out of bounds for array of dimension "
                           f"[{-n},{n}).")
    ax = out_axes % n
    return P.stack_p(*results, axis=ax)


def vmap(fn, in_axes=0, out_axes=0):
    """A function that applies `fn` to each slice along `in_axes` and stacks results on `out_axes`.

    Args:
        fn (callable): the function (or Cell) to map.
        in_axes (Union[int, None, tuple]): the mapped axis of each input (None: broadcast). Default: ``0``.
        out_axes (Union[int, None, tuple]): where the mapped axis goes in each output. Default: ``0``.

    Raises:
        RuntimeError: mapped inputs disagree on the batch size, or no input is mapped.

    >>> import mindseed as ms
    >>> ms.vmap(lambda x: x.sum())(ms.ops.ones((3, 4))).shape
    (3,)
    """
    members = getattr(fn, "_ensemble_members", None)
    cells = members() if callable(members) else None

    def mapped(*args):
        if cells is None:
            _check_arguments(fn, args)
            if not args:
                raise RuntimeError("Failed to get 'axis_size' within the scope of vmap.")
            if out_axes is None:
                raise RuntimeError("The 'out_axes' of 'vmap' cannot be a single None while 'fn' is not a "
                                   "'CellList'.")
            if isinstance(out_axes, (tuple, list)) and _all_none(out_axes):
                raise RuntimeError(f"The 'out_axes' of 'vmap' cannot be all None while 'fn' is not a 'CellList', "
                                   f"but got {out_axes}.")
        if cells is not None and len(cells) < 2:
            raise RuntimeError("In the model ensembling parallel training scenario ('VmapOperation' arg0 is a "
                               f"'CellList'), the size of 'CellList' must be greater than 1, but got {len(cells)}.")
        pairs = _leaves_axes(list(args), in_axes if isinstance(in_axes, (list, tuple)) else [in_axes] * len(args))
        sizes = []
        _batch_size(pairs, sizes)
        if len(sizes) > 1:
            raise RuntimeError(f"The 'axis_size' of each argument in the scope of 'vmap' should be equal, but got "
                               f"{sizes[0]} and {sizes[1]}.")
        if cells is None:
            if not sizes:
                _raise_all_none(in_axes)
            n = sizes[0]
            results = []
            with shared_streams() as streams:      # seeded random primitives made per slice share their stream
                for i in range(n):
                    streams.next_slice()
                    results.append(fn(*_slice(pairs, list(args), i)))
            return _stack(results, out_axes)
        # a CellList: cell i takes slice i (every cell the whole input when nothing is mapped)
        if len({_parameter_count(cell) for cell in cells}) > 1:
            raise RuntimeError("'VmapOperation' arg0 is a CellList, whose elements's inputs should be consistent.")
        n = sizes.pop() if sizes else len(cells)
        if n != len(cells):
            raise ValueError("If you want to execute the model ensembling parallel training, please make sure the "
                             "'axis_size' in the scope of vmap consistent with the cell size of the input 'CellList', "
                             "otherwise, please do not enter 'CellList' as the first argument, but we get axis_size: "
                             f"{n} and the cell size: {len(cells)}.")
        return _stack([cell(*_slice(pairs, list(args), i)) for i, cell in enumerate(cells)], out_axes)
    return mapped
