"""The world of the processes of a real run (`mindseed.communication` on gloo / NCCL): the world object the
partitioner talks to (`_spmd.execute`, `_redistribute`, `_zero`, `_train`), with real collectives.

A value is a list indexed by rank, as on a `SimulatedWorld`, but a process holds only its own rank's array (the
other entries are None): `ranks` names the ranks this process computes, so the executor runs each kernel once, on
its shards. A collective finds the group of `groups` this process belongs to and runs the communication operator
(`ops.AllReduce`, `ops.AllGather`, `ops.ReduceScatter`, `ops.AlltoAll`, `ops.Broadcast`) in a communication group
of those ranks, created on first use by its members (`communication.create_group`); the log holds what a
simulated world logs, so a plan's collectives and bytes are the same on both. A group of one rank needs no
communication.

`ProcessWorld(members)` (or `world.stage(stages)`) is the world of some of the processes, numbered from 0 in it (a
pipeline stage's ranks); `send` / `receive` move an array between two processes (world ranks), as the stages of a
pipeline do (`_pipeline.execute_pipeline`).

Groups are lists of ranks in group-rank order (the order a mesh axis numbers them, `DeviceMesh.groups`), while a
communication group numbers its members in ascending order: a collective whose group is not ascending permutes its
pieces locally before or after the operator, so that member i of the list always gets piece i.
"""
import numpy as np

from mindseed.common.tensor import Tensor
from mindseed.parallel._layout import assemble
from mindseed.parallel._world import CommRecord, _bytes_by_kind, _halo_record, _take, group_name, sent_bytes

__all__ = ["ProcessWorld"]

_GROUPS = {}   # world ranks (ascending) -> the communication group this process created for them (every world's)
_HALO_TAGS = 1 << 20   # the tags of the overlaps' sends (`neighbor_exchange`), above the pipelines'


class ProcessWorld:
    """The processes of the run this process belongs to (`mindseed.communication.init()` first).

    Raises:
        RuntimeError: communication not initialized.
    """

    abstract = False

    def __init__(self, members=None):
        from mindseed.communication import get_group_size, get_rank  # noqa: PLC0415  (parallel sits below it)
        from mindseed.communication.management import GlobalComm  # noqa: PLC0415
        if not GlobalComm.INITED:
            raise RuntimeError("For 'ProcessWorld', the communication service is not initialized: call "
                               "mindspore.communication.init() first.")
        self.world_size = get_group_size()
        # the world ranks of this world's ranks 0, 1, ... (a pipeline stage's: a run of them), ascending
        self.members = tuple(range(self.world_size)) if members is None else tuple(members)
        if list(self.members) != sorted(set(self.members)) or get_rank() not in self.members or \
                not all(0 <= m < self.world_size for m in self.members):
            raise ValueError(f"For 'ProcessWorld', the 'members' must be ascending world ranks in [0, "
                             f"{self.world_size}) holding this process's rank {get_rank()}, but got {members!r}.")
        self.rank, self.size = self.members.index(get_rank()), len(self.members)
        self.log = []
        self._sends = []    # the handles of the sends started (`send`), until `wait_sends`
        self._halos = 0     # exchanges of overlaps so far (every process runs the same: their tags agree)
        self._stages = {}   # stages -> the world of this process's stage (`stage`)

    def stage(self, stages):
        """The world of this process's pipeline stage when this world's ranks form `stages` stages of equal size
        (stage s: ranks s * size / stages onwards), numbered from 0 in it; its collectives run in groups of those
        processes. The same world each time, so its log holds every collective of the stage.

        Raises:
            ValueError: `stages` does not divide the world's size.
        """
        if isinstance(stages, bool) or not isinstance(stages, int) or stages < 1 or self.size % stages:
            raise ValueError(f"For 'ProcessWorld.stage', the 'stages' ({stages!r}) must be a positive int dividing "
                             f"the world's size {self.size}.")
        world = self._stages.get(stages)
        if world is None:
            per = self.size // stages
            first = self.rank // per * per
            world = self._stages[stages] = ProcessWorld(self.members[first:first + per])
        return world

    @property
    def ranks(self):
        """The ranks whose arrays this process computes: its own."""
        return (self.rank,)

    # ------------------------------------------------------------ groups
    def _group(self, ranks):
        """The name of the communication group of `ranks` (ascending), created by its members on first use."""
        from mindseed.communication import create_group  # noqa: PLC0415
        from mindseed.communication.management import GlobalComm  # noqa: PLC0415
        ranks = tuple(self.members[r] for r in ranks)
        if len(ranks) == self.world_size:
            return GlobalComm.WORLD_COMM_GROUP
        name = _GROUPS.get(ranks)
        if name is None:
            name = _GROUPS[ranks] = group_name(ranks)
            create_group(name, list(ranks))
        return name

    def _mine(self, kind, values, groups):
        """(group in group-rank order, its ranks ascending, my array) of the group this process is in."""
        if len(values) != self.size:
            raise ValueError(f"For '{kind}', the value must hold one entry per rank ({self.size}), but got "
                             f"{len(values)}.")
        group = next((list(g) for g in groups if self.rank in g), None)
        if group is None:
            raise ValueError(f"For '{kind}', rank {self.rank} is in none of the groups {groups}.")
        return group, tuple(sorted(group)), np.asarray(values[self.rank])

    def _collective(self, kind, values, groups, per_group):
        """Run a collective: `per_group(group, sorted ranks, my array)` gives my result."""
        group, ascending, mine = self._mine(kind, values, groups)
        n = len(group)
        self.log.append(CommRecord(kind, n, len(groups), int(mine.nbytes), sent_bytes(kind, n, int(mine.nbytes))))
        out = [None] * self.size
        out[self.rank] = np.array(mine) if n == 1 else per_group(group, ascending, mine)
        return out

    @staticmethod
    def _run(op, x):
        return np.asarray(op(Tensor(np.ascontiguousarray(x))).asnumpy())

    # ------------------------------------------------------------ collectives (SimulatedWorld's signatures)
    def all_reduce(self, values, groups, op="sum"):
        """Every member of a group gets the reduction of the group's arrays."""
        from mindseed.ops.operations.comm_ops import AllReduce  # noqa: PLC0415
        return self._collective("AllReduce", values, groups,
                                lambda g, asc, x: self._run(AllReduce(op, self._group(asc)), x).reshape(x.shape))

    def all_gather(self, values, groups, axis=0):
        """Every member gets the group's arrays concatenated along `axis`, in group order."""
        from mindseed.ops.operations.comm_ops import AllGather  # noqa: PLC0415

        def per_group(g, asc, x):
            got = self._run(AllGather(self._group(asc)), np.moveaxis(x, axis, 0)[None])
            return np.concatenate([np.moveaxis(got[asc.index(r)], 0, axis) for r in g], axis=axis)
        return self._collective("AllGather", values, groups, per_group)

    def reduce_scatter(self, values, groups, axis=0, op="sum"):
        """The group's arrays reduced, then cut into len(group) equal pieces along `axis`: member i keeps piece i.

        Raises:
            ValueError: `axis` of the arrays is not a multiple of the group size.
        """
        from mindseed.ops.operations.comm_ops import ReduceScatter  # noqa: PLC0415

        def per_group(g, asc, x):
            if x.shape[axis] % len(g):
                raise ValueError(f"For 'ReduceScatter', the dim {axis} of the input ({x.shape[axis]}) must be "
                                 f"divisible by the group size {len(g)}.")
            pieces = np.split(x, len(g), axis=axis)
            ordered = np.stack([np.moveaxis(pieces[g.index(r)], axis, 0) for r in asc])  # the piece of each member
            got = self._run(ReduceScatter(op, self._group(asc)), ordered.reshape((-1,) + ordered.shape[2:]))
            return np.moveaxis(got, 0, axis)
        return self._collective("ReduceScatter", values, groups, per_group)

    def all_to_all(self, values, groups, split_axis, concat_axis):
        """Member i cuts its array into len(group) pieces along `split_axis` and sends piece j to member j; each
        member concatenates what it received along `concat_axis`, in group order.

        Raises:
            ValueError: `split_axis` is not a multiple of the group size.
        """
        from mindseed.ops.operations.comm_ops import AlltoAll  # noqa: PLC0415

        def per_group(g, asc, x):
            n = len(g)
            if x.shape[split_axis] % n:
                raise ValueError(f"For 'AllToAll', the split dim {split_axis} of the input ({x.shape[split_axis]}) "
                                 f"must be divisible by the group size {n}.")
            pieces = np.split(x, n, axis=split_axis)
            send = np.stack([pieces[g.index(r)] for r in asc])   # block k goes to the k-th member in ascending order
            got = self._run(AlltoAll(n, 0, 0, self._group(asc)), send)   # block k came from that member
            return np.concatenate([got[asc.index(r)] for r in g], axis=concat_axis)
        return self._collective("AllToAll", values, groups, per_group)

    def broadcast(self, values, groups, root=0):
        """Every member of a group gets the array of the member at group rank `root`."""
        from mindseed.ops.operations.comm_ops import Broadcast  # noqa: PLC0415

        def per_group(g, asc, x):
            out = Broadcast(asc.index(g[root]), self._group(asc))((Tensor(np.ascontiguousarray(x)),))
            return np.asarray(out[0].asnumpy()).reshape(x.shape)
        return self._collective("Broadcast", values, groups, per_group)

    # ------------------------------------------------------------ overlaps of neighbouring pieces
    def _halo(self, values, groups, axis, before, after, fold):
        """My array after an exchange of overlaps with my neighbours in my group (sends and receives between the
        processes; see `SimulatedWorld.neighbor_exchange` / `neighbor_reduce`)."""
        group, _, mine = self._mine("NeighborExchange", values, groups)
        i = group.index(self.rank)
        prev = self.members[group[i - 1]] if i else None
        nxt = self.members[group[i + 1]] if i + 1 < len(group) else None
        tag = _HALO_TAGS + 2 * self._halos
        self._halos += 1
        self.log.append(_halo_record(len(group), len(groups), before, after,
                                     mine.nbytes // max(mine.shape[axis], 1)))
        n = mine.shape[axis]

        def shaped(k):
            shape = list(mine.shape)
            shape[axis] = k
            return tuple(shape)

        if not fold:   # my last `before` to the next, my first `after` to the previous; theirs around mine
            if nxt is not None and before:
                self.send(_take(mine, axis, n - before, None), nxt, tag)
            if prev is not None and after:
                self.send(_take(mine, axis, 0, after), prev, tag + 1)
            head = self.receive(shaped(before), mine.dtype, prev, tag) if prev is not None and before else \
                np.zeros(shaped(before), mine.dtype)
            tail = self.receive(shaped(after), mine.dtype, nxt, tag + 1) if nxt is not None and after else \
                np.zeros(shaped(after), mine.dtype)
            out = np.concatenate([head, mine, tail], axis=axis)
        else:   # my first `before` back to the previous, my last `after` to the next; theirs added into mine
            out = np.array(_take(mine, axis, before, n - after))
            if prev is not None and before:
                self.send(_take(mine, axis, 0, before), prev, tag)
            if nxt is not None and after:
                self.send(_take(mine, axis, n - after, None), nxt, tag + 1)
            if nxt is not None and before:
                _take(out, axis, out.shape[axis] - before, None)[...] += \
                    self.receive(shaped(before), mine.dtype, nxt, tag)
            if prev is not None and after:
                _take(out, axis, 0, after)[...] += self.receive(shaped(after), mine.dtype, prev, tag + 1)
        self.wait_sends()
        result = [None] * self.size
        result[self.rank] = out
        return result

    def neighbor_exchange(self, values, groups, axis, before, after):
        """`SimulatedWorld.neighbor_exchange` between the processes (sends and receives with the neighbours)."""
        return self._halo(values, groups, axis, before, after, fold=False)

    def neighbor_reduce(self, values, groups, axis, before, after):
        """`SimulatedWorld.neighbor_reduce` between the processes (sends and receives with the neighbours)."""
        return self._halo(values, groups, axis, before, after, fold=True)

    # ------------------------------------------------------------ point to point (world ranks)
    def send(self, array, dst, tag):
        """Start sending `array` to the process of world rank `dst` (it receives it with `receive`, same `tag`);
        the send completes in the background (`wait_sends`)."""
        from mindseed.communication.comm_func import isend  # noqa: PLC0415
        self._sends.append(isend(Tensor(np.ascontiguousarray(array)), dst=dst, tag=tag))

    def receive(self, shape, dtype, src, tag):
        """The array of `shape` and numpy `dtype` the process of world rank `src` sent with `tag`."""
        from mindseed.communication.comm_func import recv  # noqa: PLC0415
        return np.asarray(recv(Tensor(np.zeros(shape, dtype)), src=src, tag=tag).asnumpy())

    def share(self, array, root, shape, dtype):
        """The array of the process of world rank `root` (`array` there; elsewhere None) on every process of the
        run, of `shape` and numpy `dtype` (a Broadcast in the world group, outside the log: how the processes of a
        pipeline read a value of one stage)."""
        from mindseed.communication.management import GlobalComm  # noqa: PLC0415
        from mindseed.ops.operations.comm_ops import Broadcast  # noqa: PLC0415
        mine = np.zeros(shape, dtype) if array is None else np.ascontiguousarray(array, dtype)
        out = Broadcast(root, GlobalComm.WORLD_COMM_GROUP)((Tensor(mine),))
        return np.asarray(out[0].asnumpy()).reshape(shape)

    def wait_sends(self):
        """Block until every send started has been handed over."""
        while self._sends:
            self._sends.pop(0).wait()

    # ------------------------------------------------------------ whole values
    def assemble(self, shards, layout):
        """The global array of the ranks' shards under `layout`, on this process (which holds its own shard):
        a replicated value is its shard; otherwise every rank's shard is gathered first (outside the log: this
        is how a process reads a whole value, not a step of the plan)."""
        from mindseed.ops.operations.comm_ops import AllGather  # noqa: PLC0415
        mine = np.asarray(shards[self.rank])
        if layout.is_replicated():
            return np.array(mine)
        every = self._run(AllGather(self._group(tuple(range(self.size)))), mine[None])
        return assemble(list(every), layout)

    def bytes_by_kind(self):
        """{collective kind: total bytes sent per rank}, over the log."""
        return _bytes_by_kind(self.log)
