"""One process of a sharded run on real processes; tests/communication/test_parallel_processes.py launches it.

usage: python _parallel_worker.py SCENARIO DIR   (the launcher environment is set by the test)
Each scenario writes what this rank computed to DIR/result_<rank>.json; the test checks the numbers against the
single-process run.
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "parallel"))

import mindseed as ms  # noqa: E402
from _mlp import MLP, lazy_mlp  # noqa: E402
from _pipeline_worker import batches as pipeline_batches, pipeline_cell, run as run_pipeline  # noqa: E402
from _sliced_worker import pipeline_zero  # noqa: E402
from _spatial_net import Net as SpatialNet, X as SPATIAL_X  # noqa: E402
from mindseed import Tensor, nn  # noqa: E402
from mindseed.communication import get_group_size, get_rank, init  # noqa: E402
from mindseed.parallel._layout import TensorLayout, shard_array  # noqa: E402
from mindseed.parallel._sliced import held_bytes, holds_data  # noqa: E402
from mindseed.parallel._process_world import ProcessWorld  # noqa: E402
from mindseed.parallel._spmd import execute, record  # noqa: E402
from mindseed.parallel._train import process_training  # noqa: E402

RNG = np.random.default_rng(11)
BATCHES = [(RNG.standard_normal((8, 4)), RNG.standard_normal((8, 6))) for _ in range(2)]
# name: (ranks, operator strategies, dataset strategy of x and y)
PLANS = {
    "data_2": (2, dict(mm1=((2, 1), (1, 1))), (2, 1)),
    "column_row_2": (2, dict(mm1=((1, 1), (1, 2)), add=((1, 2), (2,)), mm2=((1, 2), (2, 1))), None),
    "data_4": (4, dict(mm1=((4, 1), (1, 1))), (4, 1)),
    "column_row_4": (4, dict(mm1=((1, 1), (1, 4)), add=((1, 4), (4,)), mm2=((1, 4), (4, 1))), None),
    "data_x_tensor_4": (4, dict(mm1=((2, 1), (1, 2)), add=((2, 2), (2,)), mm2=((2, 2), (2, 1))), (2, 1)),
}
CHECKPOINT_PLAN = "column_row_2"       # the tensor-parallel strategy trained and saved at 2 ranks
LOAD_PLAN = "data_x_tensor_4"          # the strategy it is loaded into at 4 ranks


def _whole(world, ex, t, layout=None):
    layout = layout or TensorLayout.replicated(ex.layout_of(t).mesh, tuple(t.shape))
    return world.assemble(ex.value(t, layout).shards, layout).tolist()


GROUPINGS = ([[3, 1, 0, 2]], [[1, 0], [3, 2]], [[0, 1], [2, 3]])   # group-rank orders, ascending or not


def rank_array(rank):
    return np.arange(16.0).reshape(4, 4) * (rank + 1) + rank


def collectives(rank, world):
    """Each collective of the world in groups listed in and out of ascending order: this rank's results and the
    log's (kind, group size, groups, bytes)."""
    out = []
    for groups in GROUPINGS:
        values = [None] * world.size
        values[rank] = rank_array(rank)
        results = [world.all_reduce(values, groups), world.all_gather(values, groups, axis=1),
                   world.reduce_scatter(values, groups, axis=1), world.all_to_all(values, groups, 0, 1),
                   world.broadcast(values, groups, root=1)]
        out.append([r[rank].tolist() for r in results])
    log = [[rec.kind, rec.group_size, rec.groups, rec.input_bytes, rec.sent_bytes] for rec in world.log]
    return out, log


# ranks: the strategy of the spatial-cut network's first convolution (rows cut; rows and columns at 4)
SPATIAL = {2: ((1, 1, 2, 1), (1, 1, 1, 1)), 4: ((1, 1, 2, 2), (1, 1, 1, 1))}


def spatial_cut(world, size):
    """One step of the convolutions with H (and W) cut (`_spatial_net`): the loss, the gradients and the log's
    NeighborExchanges (group size, groups, input and sent bytes) and other collectives' kinds."""
    net = SpatialNet(SPATIAL[size])
    program = record(ms.value_and_grad(net, None, net.trainable_params()), SPATIAL_X)
    start = len(world.log)
    ex = execute(program, world)
    loss, grads = program.result
    log = world.log[start:]
    return {"loss": _whole(world, ex, loss),
            "grads": {p.name: _whole(world, ex, g, ex.layout_of(p)) for p, g in zip(net.trainable_params(), grads)},
            "halos": [[r.group_size, r.groups, r.input_bytes, r.sent_bytes] for r in log
                      if r.kind == "NeighborExchange"],
            "kinds": [r.kind for r in log]}


def run_plan(name, net, world):
    """One step of `net` (loss and gradients) recorded and run sharded on the processes: {loss, grads, kinds}."""
    _, strategies, data = PLANS[name]
    x, y = (Tensor(a) for a in BATCHES[0])
    program = record(ms.value_and_grad(net, None, net.trainable_params()), x, y)
    start = len(world.log)
    ex = execute(program, world, [(x, data), (y, data)] if data else None)
    loss, grads = program.result
    out = {"loss": _whole(world, ex, loss),
           "grads": {p.name: _whole(world, ex, g, ex.layout_of(p)) for p, g in zip(net.trainable_params(), grads)}}
    out["kinds"] = [rec.kind for rec in world.log[start:]]
    return out, ex


ZERO_OPTIMIZERS = {"adam": lambda ps: nn.Adam(ps, learning_rate=0.01),
                   "lamb": lambda ps: nn.Lamb(ps, learning_rate=0.05, weight_decay=0.01)}


def zero(rank, size, level, mode=ms.PYNATIVE_MODE, optimizer="adam"):
    """ZeRO through nn.TrainOneStepCell, each rank feeding its slice of the batch (MindSpore's dataset); in GRAPH_MODE
    the steps are partitioned from their graph (`graph`: whether the last one was). With Lamb the norms of the
    update are all-reduced over the slices."""
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", dataset_strategy="data_parallel",
                                 enable_parallel_optimizer=True,
                                 parallel_optimizer_config={"optimizer_level": level,
                                                            "parallel_optimizer_threshold": 0})
    net = MLP()
    step = nn.TrainOneStepCell(net, ZERO_OPTIMIZERS[optimizer](net.trainable_params()))
    rows = slice(rank * 8 // size, (rank + 1) * 8 // size)
    ms.set_context(mode=mode)
    losses = [float(step(Tensor(x[rows]), Tensor(y[rows])).asnumpy()) for x, y in BATCHES]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    sharded = process_training().sharded_optimizer(step)
    out = {"losses": losses, "params": {p.name: p.asnumpy().tolist() for p in net.trainable_params()},
           "state": {q.name: q.asnumpy().tolist() for _, q in step.optimizer.parameters_and_names()},
           "state_bytes": sharded.state_bytes(rank),
           "graph": process_training().executions[-1].program.graph is not None}
    ms.reset_auto_parallel_context()
    return out


def pipeline_parallel_optimizer():
    """The parallel optimizer inside the stages of a 2-stage pipeline whose Parameters hold data (2 processes, one
    per stage), two steps of TrainOneStepCell with Momentum: the first step cuts the Parameters, each process keeping
    only its stage's (as MindSpore's compilation does)."""
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=2, enable_parallel_optimizer=True,
                                 pipeline_config={"pipeline_interleave": False, "pipeline_scheduler": "1f1b"})
    cell = pipeline_cell()
    step = nn.TrainOneStepCell(cell, nn.Momentum(cell.trainable_params(), learning_rate=0.1, momentum=0.9))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in pipeline_batches()]
    ms.reset_auto_parallel_context()
    params = cell.trainable_params()
    return {"losses": losses, "params": {p.name: p.asnumpy().tolist() for p in params if holds_data(p)},
            "param_bytes": held_bytes(params)}


def train_and_save(rank, directory):
    """Two steps of a tensor-parallel MLP through TrainOneStepCell; the rank's slices saved in rank_<r>/ with the
    strategy file (strategy_ckpt_config)."""
    _, strategies, _ = PLANS[CHECKPOINT_PLAN]
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", dataset_strategy="full_batch",
                                 strategy_ckpt_config={"save_file": os.path.join(directory, f"strategy_{rank}.ckpt")})
    net = MLP(**strategies)
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in BATCHES]
    os.makedirs(os.path.join(directory, f"rank_{rank}"), exist_ok=True)
    ms.save_checkpoint(net, os.path.join(directory, f"rank_{rank}", f"net{rank}.ckpt"), integrated_save=False)
    whole = os.path.join(directory, f"whole_{rank}.ckpt")   # integrated_save=True (the default): whole parameters
    ms.save_checkpoint(net, whole)
    ms.reset_auto_parallel_context()
    sliced = process_training().rank_parameters(step, rank)
    return {"losses": losses, "params": {p.name: p.asnumpy().tolist() for p in net.trainable_params()},
            "rank_parameters": {name: t.asnumpy().tolist() for name, t in sliced.items()}}


def load_at_4(rank, world, directory):
    """The 2-rank checkpoint into a fresh network of another strategy at 4 ranks: loaded whole
    (load_distributed_checkpoint), run sharded; and transformed to this rank's slices of the new strategy."""
    src = os.path.join(directory, "strategy_0.ckpt")
    files = [os.path.join(directory, f"rank_{r}", f"net{r}.ckpt") for r in range(2)]
    net = MLP(seed=9, **PLANS[LOAD_PLAN][1])
    ms.load_distributed_checkpoint(net, files, None, src)
    ms.set_auto_parallel_context(strategy_ckpt_save_file=os.path.join(directory, f"dst_strategy_{rank}.ckpt"))
    out, ex = run_plan(LOAD_PLAN, net, world)
    ms.reset_auto_parallel_context()
    dst = os.path.join(directory, f"dst_{rank}.ckpt")
    ms.transform_checkpoint_by_rank(rank, {r: f for r, f in enumerate(files)}, dst, src,
                                    os.path.join(directory, f"dst_strategy_{rank}.ckpt"))
    got = ms.load_checkpoint(dst)
    mine = ex.rank_parameters(rank)     # the slices this rank's run cut from the loaded network
    out["transformed"] = {name: [got[name].asnumpy().tolist(), t.asnumpy().tolist()] for name, t in mine.items()}
    return out


SLICED = {2: ("column_row_2", "data_2"), 4: ("column_row_4", "data_x_tensor_4")}   # plans trained holding slices


def sliced(rank, name, directory, mode=ms.PYNATIVE_MODE):
    """Two steps of TrainOneStepCell with Momentum on a lazily initialized MLP (`lazy_mlp`), each rank feeding only
    its slice of the batch: the process holds only its slices of the Parameters and of the momenta; in GRAPH_MODE
    the steps are partitioned from their graph traced on shapes (`graph`: whether they were)."""
    n, strategies, data = PLANS[name]
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel",
                                 dataset_strategy=(data, data) if data else "full_batch")
    net = lazy_mlp(**strategies)
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9))
    losses = []
    ms.set_context(mode=mode)
    for x, y in BATCHES:
        if data:
            x, y = (shard_array(a, TensorLayout.from_strategy(a.shape, data, n))[rank] for a in (x, y))
        losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    graph = process_training().executions[-1].program.graph is not None
    params = net.trainable_params()
    moments = [q for _, q in step.optimizer.parameters_and_names() if q.name.startswith("moments.")]
    path = os.path.join(directory, f"sliced_{name}_{mode}_{rank}.ckpt")
    ms.save_checkpoint(net, path)    # integrated_save: gathered whole from the processes
    ms.reset_auto_parallel_context()
    return {"losses": losses, "slices": {p.name: p.asnumpy().tolist() for p in params},
            "moments": {q.name: q.asnumpy().tolist() for q in moments}, "sliced": [p.sliced for p in params],
            "param_bytes": held_bytes(params), "moment_bytes": held_bytes(moments),
            "whole": {k: v.asnumpy().tolist() for k, v in ms.load_checkpoint(path).items()}, "graph": graph}


def sliced_lamb(rank, directory):
    """Two steps of TrainOneStepCell with Lamb on the lazily initialized tensor-parallel MLP (`CHECKPOINT_PLAN`):
    each process holds its slices, the norms of the update all-reduced over the pieces; the losses and the
    parameters gathered whole (`save_checkpoint`)."""
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", dataset_strategy="full_batch")
    net = lazy_mlp(**PLANS[CHECKPOINT_PLAN][1])
    step = nn.TrainOneStepCell(net, nn.Lamb(net.trainable_params(), learning_rate=0.05, weight_decay=0.01))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in BATCHES]
    path = os.path.join(directory, f"sliced_lamb_{rank}.ckpt")
    ms.save_checkpoint(net, path)    # integrated_save: gathered whole from the processes
    whole = {k: v.asnumpy().tolist() for k, v in ms.load_checkpoint(path).items()}
    ms.reset_auto_parallel_context()
    return {"losses": losses, "whole": whole, "sliced": [p.sliced for p in net.trainable_params()]}


def sliced_refused(rank):
    """A lazily initialized network whose Parameters are cut, under an optimizer whose state is not shaped as the
    parameters (AdaFactor's factored moments): the step refuses before initializing anything."""
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", dataset_strategy="full_batch")
    net = lazy_mlp(**PLANS[CHECKPOINT_PLAN][1])
    step = nn.TrainOneStepCell(net, nn.AdaFactor(net.trainable_params()))
    try:
        step(*(Tensor(a) for a in BATCHES[0]))
    except TypeError as exc:
        return [str(exc), [p.has_init for p in net.trainable_params()]]
    finally:
        ms.reset_auto_parallel_context()
    return None


def main(scenario, directory):
    init()
    rank, size = get_rank(), get_group_size()
    world = ProcessWorld()
    out = {"rank": rank, "size": size, "plans": {}}
    if size == 4:
        out["collectives"] = collectives(rank, world)
        world.log.clear()
    for name, (ranks, strategies, _) in PLANS.items():
        if ranks == size:
            out["plans"][name] = run_plan(name, MLP(**strategies), world)[0]
    out["spatial"] = spatial_cut(world, size)
    out["zero"] = {level: zero(rank, size, level) for level in ("level1", "level3")}
    out["zero"]["level3-graph"] = zero(rank, size, "level3", ms.GRAPH_MODE)
    out["zero"]["level1-lamb"] = zero(rank, size, "level1", optimizer="lamb")
    out["sliced"] = {name: sliced(rank, name, directory) for name in SLICED[size]}
    out["sliced"].update({name + "-graph": sliced(rank, name, directory, ms.GRAPH_MODE) for name in SLICED[size]})
    if size == 2:
        out["sliced_refused"] = sliced_refused(rank)
        out["sliced_lamb"] = sliced_lamb(rank, directory)
    if size == 2:
        out["pipeline_parallel_optimizer"] = pipeline_parallel_optimizer()
    if scenario == "save":
        out["saved"] = train_and_save(rank, directory)
    elif scenario == "load":
        out["loaded"] = load_at_4(rank, world, directory)
        out["pipeline"] = run_pipeline(world, "1f1b", data=(2, 1))   # 2 stages x data parallel 2
        out["pipeline_zero"] = pipeline_zero(rank, "level3")   # and the parallel optimizer inside the stages
    with open(os.path.join(directory, f"result_{rank}.json"), "w", encoding="utf-8") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
