"""AdaSum (Adaptive Summation, https://arxiv.org/abs/2006.02924): the data-parallel combination of gradients (or
of optimizer steps) across nodes by recursive halving, MindSpore's `nn.AdaSumByGradWrapCell` and
`nn.AdaSumByDeltaWeightWrapCell`.

Nodes are groups of `device_number` consecutive ranks (8, MindSpore's). At step s (log2(node count) steps) each
rank pairs with the rank `device_number * 2**s` away: the left one of the pair sends its tensors' first halves and
keeps the second ones, the right one the reverse, and each combines its kept half with the partner's same half as

    AdaSum(a, b) = (1 - a.b / (2 |a|^2)) a + (1 - a.b / (2 |b|^2)) b,

the dot products summed over the 2**(s+1) nodes holding the pieces (an AllReduce); the halves are scaled by the
local maximum first (MindSpore's numerics). A tensor with no dim above 1 is averaged instead. The steps are then
undone (halves exchanged back and concatenated), so every rank ends with the whole combined tensor.
"""
import math

from mindseed import ops
from mindseed._backend.kernels import comm as K
from mindseed.common._parallel import GlobalComm, _device_num_if_set, _get_parallel_mode, get_auto_parallel_context
from mindseed.common.parameter import ParameterTuple
from mindseed.nn.cell import Cell
from mindseed.nn.optim.optimizer import Optimizer
from mindseed.ops.operations.comm_ops import AllReduce, Receive, Send, _group_size, _rank

__all__ = ["AdaSumByGradWrapCell", "AdaSumByDeltaWeightWrapCell"]

_DEVICE_NUMBER = 8    # ranks per node
_EPS = 1e-12


def _halves(shape):
    """(left shape, right shape) of a tensor cut at its first dim above 1, or None when it has none."""
    for i, d in enumerate(shape):
        if d > 1:
            return shape[:i] + (d // 2,) + shape[i + 1:], shape[:i] + (d - d // 2,) + shape[i + 1:]
    return None


def _numel(shape):
    return math.prod(shape)


class _AdaSum(Cell):
    """AdaSum of per-parameter tensors over `group_number` nodes of `device_number` ranks (this one is `rank`)."""

    def __init__(self, rank, device_number, group_number, parameters):
        super().__init__(auto_prefix=False)
        self.rank, self.device_number, self.group_number = rank, device_number, group_number
        self.calc_times = int(math.log2(group_number))
        self.shapes = [tuple(int(d) for d in p.shape) for p in parameters]
        self.steps = []    # per step: (left sender?, partner, the AllReduce of the step's group)
        for step in range(self.calc_times):
            current = device_number * 2 ** step
            left = (rank // current) % 2 == 0
            partner = rank + current if left else rank - current
            double = 2 ** (step + 1)
            node = rank // device_number
            ranks = [(node // double * double + i) * device_number + rank % device_number for i in range(double)]
            name = "-".join(map(str, ranks))
            if not K.has_group(name):    # (the members of the step's group create it together)
                K.new_group(name, ranks)
            self.steps.append((left, partner, AllReduce("sum", name)))

    def _swap(self, left, partner, piece, shape, tag):
        """Send `piece` to the partner and receive its piece of `shape` (the left one sends first)."""
        send, recv = Send(tag, partner), Receive(tag, partner, list(shape), piece.dtype)
        if left:
            send(piece)
            return recv()
        got = recv()
        send(piece)
        return got

    def _combine(self, left, local, recv, allreduce):
        scale = ops.reduce_max(local) + _EPS
        ls, rs = local / scale, recv / scale
        # a: the left rank's side, b: the right rank's; each sum gathers the pieces of the whole group
        (sa, sb), (a, b) = ((ls, rs), (local, recv)) if left else ((rs, ls), (recv, local))
        v0 = allreduce(ops.reduce_sum(sa * sb) + _EPS)
        v1, v2 = allreduce(ops.reduce_sum(sa * sa) + _EPS), allreduce(ops.reduce_sum(sb * sb) + _EPS)
        return (1 - v0 / (2 * v1)) * a + (1 - v0 / (2 * v2)) * b

    def construct(self, tensors):
        flats = [ops.reshape(t, (-1,)) for t in tensors]
        shapes = list(self.shapes)
        kept = []   # per step: (the shape of each piece before the step)
        for step, (left, partner, allreduce) in enumerate(self.steps):
            kept.append(shapes)
            new_flats, new_shapes = [], []
            for i, (flat, shape) in enumerate(zip(flats, shapes)):
                cut = _halves(shape)
                if cut is None:     # nothing to halve: the nodes' average
                    new_flats.append(allreduce(flat) / 2 ** (step + 1))
                    new_shapes.append(shape)
                    continue
                n_left = _numel(cut[0])
                mine, sent, kept_shape, their_shape = (flat[n_left:], flat[:n_left], cut[1], cut[1]) if left else \
                    (flat[:n_left], flat[n_left:], cut[0], cut[0])
                recv = self._swap(left, partner, sent, (_numel(their_shape),), self._tag(step, i, 0))
                new_flats.append(self._combine(left, mine, recv, allreduce))
                new_shapes.append(kept_shape)
            flats, shapes = new_flats, new_shapes
        for step in reversed(range(self.calc_times)):
            left, partner, _ = self.steps[step]
            before = kept[step]
            out = []
            for i, (flat, shape) in enumerate(zip(flats, before)):
                cut = _halves(shape)
                if cut is None:
                    out.append(flat)
                    continue
                other = cut[0] if left else cut[1]
                recv = self._swap(left, partner, flat, (_numel(other),), self._tag(step, i, 1))
                out.append(ops.concat((recv, flat) if left else (flat, recv)))
            flats = out
        return tuple(ops.reshape(f, t.shape) for f, t in zip(flats, tensors))

    def _tag(self, step, index, phase):
        return (step * len(self.shapes) + index) * 2 + phase


def _stage_device_num():
    device_num = _device_num_if_set() or _group_size(GlobalComm.WORLD_COMM_GROUP)
    return device_num // get_auto_parallel_context("pipeline_stages")


def _parallel_check():
    if _get_parallel_mode() == "stand_alone":
        raise RuntimeError("Stand alone mode is not supported to apply adasum.")
    if get_auto_parallel_context("enable_parallel_optimizer"):
        raise RuntimeError("Currently, the optimizer shard is not supported with applying adasum.")
    if get_auto_parallel_context("pipeline_stages") > 1:
        raise RuntimeError("Currently, the pipeline parallel is not supported with applying adasum.")
    n = _stage_device_num()
    if n < 16 or n & (n - 1):
        raise RuntimeError("The device_num must be at least 16 and must be the power of 2 when applying adasum.")


class _AdaSumWrap(Cell):
    def __init__(self, optimizer):
        super().__init__(auto_prefix=False)
        _parallel_check()
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"For '{type(self).__name__}', the 'optimizer' must be a mindspore.nn.Optimizer, but got "
                            f"{type(optimizer).__name__}.")
        self.optimizer = optimizer
        self.parameters = optimizer.parameters
        self.adasum = _AdaSum(_rank(GlobalComm.WORLD_COMM_GROUP), _DEVICE_NUMBER, _stage_device_num() // _DEVICE_NUMBER,
                              ParameterTuple(self.parameters))
        self.sync = AllReduce()


class AdaSumByGradWrapCell(_AdaSumWrap):
    """Apply `optimizer` to the AdaSum of the data-parallel ranks' gradients (semi-auto/auto parallel, data
    parallel): gradients combined node by node with the adaptive summation instead of averaged.

    Args:
        optimizer (nn.Optimizer): updates the weights from one input, the gradients.

    Inputs:
        grads (tuple[Tensor]): the gradients, in the optimizer's parameter order.

    Raises:
        RuntimeError: stand-alone mode, the parallel optimizer or pipeline parallel in use, or a device number
            below 16 or not a power of 2 (MindSpore's conditions).
        TypeError: `optimizer` is not an Optimizer.
    """

    def construct(self, grads):
        combined = self.adasum(tuple(grads))
        self.sync(ops.zeros((1,), "int32"))
        return self.optimizer(combined)


class AdaSumByDeltaWeightWrapCell(_AdaSumWrap):
    """Run `optimizer` on each rank, then replace each rank's step (old weight - new weight) by the AdaSum of the
    ranks' steps: w := w_old - AdaSum(steps).

    Args:
        optimizer (nn.Optimizer): updates the weights from one input, the gradients.

    Inputs:
        grads (tuple[Tensor]): the gradients, in the optimizer's parameter order.

    Raises:
        As `AdaSumByGradWrapCell`.
    """

    def construct(self, grads):
        old = [ops.mul(p, 1.0) for p in self.parameters]
        self.optimizer(grads)
        steps = self.adasum(tuple(o - p for o, p in zip(old, self.parameters)))
        for p, o, s in zip(self.parameters, old, steps):
            p.set_data(o - s)
        self.sync(ops.zeros((1,), "int32"))
        return tuple(self.parameters)
