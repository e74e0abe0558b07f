"""A world of N ranks simulated in one process: the collectives on per-rank lists of arrays.

The partitioner and the redistribution planner talk to a world object, never to module-level state, so the same
plan runs on the simulated world (tests, the planner that needs no cluster) and, later, on torch.distributed.
A value of the world is a list holding each rank's numpy array; a collective takes the groups it runs in
(disjoint lists of ranks, each in group-rank order) and returns the new list. Every call is logged with the
bytes it moves (`CommRecord`).

Bytes are those each rank sends with the ring algorithms (n ranks in a group, S the bytes of one rank's input):
AllReduce 2 (n-1)/n S, AllGather (n-1) S, ReduceScatter (n-1)/n S, AllToAll (n-1)/n S, Broadcast S (pipelined).
A NeighborExchange of overlaps (`neighbor_exchange`, `neighbor_reduce`: b elements of a piece go to the next rank,
a to the previous, R bytes per element along the axis) sends (b + a) R from an inner rank, max(b, a) R in a group
of 2 (`halo_sent_bytes`; its input bytes are (b + a) R).
"""
import numpy as np

from mindseed.parallel._layout import assemble

__all__ = ["SimulatedWorld", "ShapeWorld", "CommRecord", "group_name", "halo_sent_bytes"]

_REDUCE = {"sum": np.add, "max": np.maximum, "min": np.minimum, "prod": np.multiply}


class CommRecord:
    """One collective as it ran: `kind`, the size of its groups, how many groups, the bytes of one rank's input
    and the bytes each rank sends (see the module docstring)."""

    __slots__ = ("kind", "group_size", "groups", "input_bytes", "sent_bytes")

    def __init__(self, kind, group_size, groups, input_bytes, sent_bytes):
        self.kind, self.group_size, self.groups = kind, group_size, groups
        self.input_bytes, self.sent_bytes = input_bytes, sent_bytes

    def __repr__(self):
        return (f"{self.kind}(groups={self.groups}x{self.group_size}, input={self.input_bytes} B, "
                f"sent/rank={self.sent_bytes} B)")


def sent_bytes(kind, n, input_bytes):
    """Bytes one rank sends for collective `kind` in a group of `n` ranks with `input_bytes` of input each."""
    if n <= 1:
        return 0
    if kind == "AllReduce":
        return 2 * (n - 1) * input_bytes // n
    if kind == "AllGather":
        return (n - 1) * input_bytes
    if kind in ("ReduceScatter", "AllToAll"):
        return (n - 1) * input_bytes // n
    if kind == "Broadcast":
        return input_bytes
    raise ValueError(f"For 'sent_bytes', the collective must be one of AllReduce, AllGather, ReduceScatter, "
                     f"AllToAll, Broadcast, but got {kind!r}.")


def halo_sent_bytes(n, before, after, row_bytes):
    """Bytes the busiest rank of a group of `n` sends in a NeighborExchange of `before` elements to the next rank and
    `after` to the previous (`row_bytes` each): both from an inner rank, one side from either end."""
    if n <= 1:
        return 0
    return (before + after if n > 2 else max(before, after)) * row_bytes


def _halo_record(n, groups, before, after, row_bytes):
    return CommRecord("NeighborExchange", n, groups, (before + after) * row_bytes,
                      halo_sent_bytes(n, before, after, row_bytes))


def _take(x, axis, start, stop):
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, stop)
    return x[tuple(index)]


def _zeros_along(x, axis, n):
    shape = list(x.shape)
    shape[axis] = n
    return np.zeros(shape, x.dtype)


def _extended(xs, axis, before, after):
    """Each of a group's pieces `xs` (in order) extended along `axis` by the last `before` elements of the previous
    piece and the first `after` of the next (zeros past the ends)."""
    out = []
    for i, x in enumerate(xs):
        x = np.asarray(x)
        head = _take(np.asarray(xs[i - 1]), axis, x.shape[axis] - before, None) if i else _zeros_along(x, axis, before)
        tail = _take(np.asarray(xs[i + 1]), axis, 0, after) if i + 1 < len(xs) else _zeros_along(x, axis, after)
        out.append(np.concatenate([head, x, tail], axis=axis))
    return out


def _folded(xs, axis, before, after):
    """Each of a group's extended pieces `xs` cut back to its own elements, the previous piece's last `after` added
    into its first and the next piece's first `before` into its last (what `_extended` read from them)."""
    out = []
    for i, x in enumerate(xs):
        x = np.asarray(x)
        own = np.array(_take(x, axis, before, x.shape[axis] - after))
        n = own.shape[axis]
        if i and after:
            prev = np.asarray(xs[i - 1])
            _take(own, axis, 0, after)[...] += _take(prev, axis, prev.shape[axis] - after, None)
        if i + 1 < len(xs) and before:
            _take(own, axis, n - before, None)[...] += _take(np.asarray(xs[i + 1]), axis, 0, before)
        out.append(own)
    return out


def _reduced(arrays, op):
    """A new array: the arrays combined by the reduction `op`, in order."""
    acc = np.array(arrays[0])
    for x in arrays[1:]:
        acc = _REDUCE[op](acc, x)
    return acc


def group_name(ranks):
    """The name of the communication group of `ranks` (ascending; not the whole world): what `ProcessWorld`
    creates it as, and what the group information file lists."""
    return "parallel_" + "_".join(map(str, ranks))


def _copies(a, n):
    return [np.array(a) for _ in range(n)]


def _init_world(world, size):
    """A world of `size` ranks with an empty collective log (SimulatedWorld, ShapeWorld)."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"For '{type(world).__name__}', the 'size' must be a positive int, but got {size!r}.")
    world.size = size
    world.log = []


class SimulatedWorld:
    """`size` ranks in one process. Values are lists of numpy arrays indexed by rank.

    Args:
        size (int): the number of ranks.

    Raises:
        ValueError: `size` below 1.
    """

    def __init__(self, size):
        _init_world(self, size)

    @property
    def ranks(self):
        """The ranks whose arrays this process computes: all of them."""
        return range(self.size)

    @staticmethod
    def assemble(shards, layout):
        """The global array of the ranks' `shards` under `layout` (`_layout.assemble`)."""
        return assemble(shards, layout)

    # ------------------------------------------------------------ helpers
    def _check(self, name, values, groups):
        if len(values) != self.size:
            raise ValueError(f"For '{name}', the value must hold one array per rank ({self.size}), but got "
                             f"{len(values)}.")
        seen = [r for g in groups for r in g]
        if len(set(seen)) != len(seen) or any(not 0 <= r < self.size for r in seen):
            raise ValueError(f"For '{name}', the groups {groups} must be disjoint lists of ranks in "
                             f"[0, {self.size}).")
        sizes = {len(g) for g in groups}
        if len(sizes) > 1:
            raise ValueError(f"For '{name}', all groups must have the same size, but got {groups}.")

    def _record(self, kind, groups, values):
        n = len(groups[0]) if groups else 1
        nbytes = int(np.asarray(values[groups[0][0]]).nbytes) if groups else 0
        self.log.append(CommRecord(kind, n, len(groups), nbytes, sent_bytes(kind, n, nbytes)))

    abstract = False  # the ranks hold arrays (ShapeWorld: only layouts)

    def _collective(self, kind, values, groups, per_group):
        """Run a collective: `per_group(arrays of one group, in group order)` gives each member's result."""
        self._check(kind, values, groups)
        out = list(values)
        for g in groups:
            for r, res in zip(g, per_group([values[r] for r in g])):
                out[r] = res
        self._record(kind, groups, values)
        return out

    # ------------------------------------------------------------ collectives
    def all_reduce(self, values, groups, op="sum"):
        """Every member of a group gets the reduction of the group's arrays."""
        return self._collective("AllReduce", values, groups,
                                lambda xs: _copies(_reduced(xs, op), len(xs)))

    def all_gather(self, values, groups, axis=0):
        """Every member gets the group's arrays concatenated along `axis`, in group order."""
        return self._collective("AllGather", values, groups,
                                lambda xs: _copies(np.concatenate(xs, axis=axis), len(xs)))

    def reduce_scatter(self, values, groups, axis=0, op="sum"):
        """The group's arrays reduced, then cut into len(group) equal pieces along `axis`: member i keeps piece i.

        Raises:
            ValueError: `axis` of the arrays is not a multiple of the group size.
        """
        def per_group(xs):
            acc = _reduced(xs, op)
            if acc.shape[axis] % len(xs):
                raise ValueError(f"For 'ReduceScatter', the dim {axis} of the input ({acc.shape[axis]}) must be "
                                 f"divisible by the group size {len(xs)}.")
            return [piece.copy() for piece in np.split(acc, len(xs), axis=axis)]
        return self._collective("ReduceScatter", values, groups, per_group)

    def all_to_all(self, values, groups, split_axis, concat_axis):
        """Member i cuts its array into len(group) pieces along `split_axis` and sends piece j to member j; each
        member concatenates what it received along `concat_axis`, in group order.

        Raises:
            ValueError: `split_axis` is not a multiple of the group size.
        """
        def per_group(xs):
            n = len(xs)
            if xs[0].shape[split_axis] % n:
                raise ValueError(f"For 'AllToAll', the split dim {split_axis} of the input "
                                 f"({xs[0].shape[split_axis]}) must be divisible by the group size {n}.")
            pieces = [np.split(x, n, axis=split_axis) for x in xs]
            return [np.concatenate([pieces[i][j] for i in range(n)], axis=concat_axis) for j in range(n)]
        return self._collective("AllToAll", values, groups, per_group)

    def broadcast(self, values, groups, root=0):
        """Every member of a group gets the array of the member at group rank `root`."""
        return self._collective("Broadcast", values, groups, lambda xs: _copies(xs[root], len(xs)))

    def _halo(self, name, values, groups, axis, before, after, per_group):
        self._check(name, values, groups)
        out = list(values)
        for g in groups:
            for r, res in zip(g, per_group([values[r] for r in g], axis, before, after)):
                out[r] = res
        first = np.asarray(values[groups[0][0]])
        row = first.nbytes // max(first.shape[axis], 1)
        self.log.append(_halo_record(len(groups[0]), len(groups), before, after, row))
        return out

    def neighbor_exchange(self, values, groups, axis, before, after):
        """Each member of a group (holding the group's pieces of a tensor in group order) gets its array extended
        along `axis` by the last `before` elements of the previous member's and the first `after` of the next's
        (zeros past the group's ends): MindSpore's exchange of overlaps between neighbour ranks."""
        return self._halo("NeighborExchange", values, groups, axis, before, after, _extended)

    def neighbor_reduce(self, values, groups, axis, before, after):
        """The reverse of `neighbor_exchange` (its gradient): each member's array, `before` + own + `after` elements
        along `axis`, is cut back to its own, the previous member's last `after` added into its first and the next
        member's first `before` into its last (the group's outer overlaps dropped)."""
        return self._halo("NeighborExchange", values, groups, axis, before, after, _folded)

    # ------------------------------------------------------------ accounting
    def bytes_by_kind(self):
        """{collective kind: total bytes sent per rank}, over the log."""
        return _bytes_by_kind(self.log)


def _bytes_by_kind(log):
    out = {}
    for rec in log:
        out[rec.kind] = out.get(rec.kind, 0) + rec.sent_bytes
    return out


class ShapeWorld:
    """`size` ranks that hold no arrays: a sharded program runs on layouts only (shapes and dtypes), and every
    collective is logged with its group size, its number of groups and its bytes, as `SimulatedWorld` logs it.
    What a plan at thousands of ranks needs: no rank's shard is ever computed.

    Raises:
        ValueError: `size` below 1.
    """

    abstract = True
    ranks = ()  # no rank's array is computed

    def __init__(self, size):
        _init_world(self, size)

    def halo(self, group_size, before, after, row_bytes):
        """Log a NeighborExchange of overlaps in groups of `group_size` ranks (see `SimulatedWorld.neighbor_exchange`),
        `row_bytes` per element along the exchanged axis."""
        self.log.append(_halo_record(group_size, self.size // group_size, before, after, row_bytes))

    def collective(self, kind, group_size, input_bytes):
        """Log collective `kind` run in groups of `group_size` ranks (the world cut into equal groups), each rank
        with `input_bytes` of input."""
        self.log.append(CommRecord(kind, group_size, self.size // group_size, input_bytes,
                                   sent_bytes(kind, group_size, input_bytes)))

    def bytes_by_kind(self):
        """{collective kind: total bytes sent per rank}, over the log."""
        return _bytes_by_kind(self.log)
