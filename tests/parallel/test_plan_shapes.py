"""Shapes-only plans (`_world.ShapeWorld`): the same communication as the simulated world, and the W4 GPT with
Megatron-style shards at 1024 ranks in closed form, planned in under a second."""
import json
import re

import numpy as np
import pytest

from mindseed import nn, ops
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.parallel import _demo_gpt as gpt
from mindseed.parallel import plan
from mindseed.parallel._spmd import record
from mindseed.parallel._world import ShapeWorld

SMALL = dict(batch=4, seq=8, d=16, heads=4, ffn=32, vocab=20, layers=2)


def _log(world):
    return [(r.kind, r.group_size, r.groups, r.input_bytes, r.sent_bytes) for r in world.log]


@pytest.mark.parametrize("dp, mp", [(2, 1), (4, 1), (2, 2), (1, 4)])
def test_shapes_only_logs_what_the_simulated_world_runs(dp, mp):
    inputs = gpt.inputs(SMALL, np.float64)
    full = plan.plan_step(gpt.GPT(SMALL, np.float64).shard_megatron(dp, mp), inputs, dp * mp,
                          gpt.dataset_strategy(dp))
    assert full.max_error < 1e-12
    shapes = plan.plan_step(gpt.GPT(SMALL, np.float64).shard_megatron(dp, mp), inputs, dp * mp,
                            gpt.dataset_strategy(dp), shapes_only=True)
    assert shapes.max_error is None and isinstance(shapes.execution.world, ShapeWorld)
    assert _log(shapes.execution.world) == _log(full.execution.world)
    assert len(full.execution.world.log) > 0
    assert [p.flops for p in shapes.execution.plans] == [p.flops for p in full.execution.plans]
    with pytest.raises(ValueError, match="ShapeWorld"):
        shapes.execution.rank_parameters(0)


def _ring(kind, n, s):
    return {"AllReduce": 2 * (n - 1) * s // n, "AllGather": (n - 1) * s}[kind]


def test_w4_gpt_megatron_at_1024_ranks_in_closed_form():
    c, dp, mp = gpt.W4, 8, 128
    hp, vp, item = 4, 8, 4  # heads over gcd(4, 128), vocabulary over gcd(1000, 128); float32
    d, f, v, t, b, layers = c["d"], c["ffn"], c["vocab"], c["seq"], c["batch"], c["layers"]
    step = plan.plan_step(gpt.GPT().shard_megatron(dp, mp), gpt.inputs(), 1024, gpt.dataset_strategy(dp),
                          shapes_only=True)
    assert step.seconds[1] < 1.0, step.seconds
    ex = step.execution
    loss_call = next(i for i, p in enumerate(ex.plans) if p.call.prim.name == "Neg")

    def comm(plans):
        return sorted((s.kind, s.group_size, s.input_bytes) for p in plans for m in p.moves for s in m.collectives())

    act = b // dp * t * d * item  # one rank's residual stream (tokens of its batch slice, whole features)
    # forward: per layer the row-parallel proj (over the head ranks) and fc2 (over mp) all-reduce; the softmax over
    # the vocabulary gathers the vocabulary-cut logits; the mean loss is a partial mean over dp (negated, it stays
    # one) until the backward pass seeds its gradient from it: one all-reduce over dp there
    forward = [("AllReduce", hp, act)] * layers + [("AllReduce", mp, act)] * layers + \
        [("AllGather", vp, b * t // dp * v // vp * item)]
    assert comm(ex.plans[:loss_call + 1]) == sorted(forward)
    assert ex.plans[loss_call].out_layouts[0].partial
    # backward: Megatron's all-reduce of the column-parallel fc1's input gradient, once per layer over mp
    backward = comm(ex.plans[loss_call + 1:])
    assert backward.count(("AllReduce", mp, act)) == layers and backward.count(("AllReduce", dp, item)) == 1
    # every gradient is all-reduced once over dp, in its parameter's (model-parallel) shard
    local = [v * d, t * d, 2 * d, v * d // vp + v // vp]  # embeddings, ln_f, the vocabulary-cut head
    local += [4 * d + 3 * (d * d // hp + d // hp) + d * d // hp + d + f * d // mp + f // mp + d * f // mp + d] * layers
    reads = [(s.kind, s.group_size, s.input_bytes) for m in ex.reads for s in m.collectives()]
    assert len(reads) == len(step.params) == 2 + 2 + 2 + 16 * layers
    assert {(k, n) for k, n, _ in reads} == {("AllReduce", dp)}
    assert sum(s for _, _, s in reads) == item * sum(local)
    # the world's totals are the sum of these, with the ring byte counts
    everything = comm(ex.plans) + reads
    totals = {}
    for kind, n, s in everything:
        totals[kind] = totals.get(kind, 0) + _ring(kind, n, s)
    assert ex.world.bytes_by_kind() == totals
    assert len(ex.world.log) == len(everything)


def test_the_planner_command_at_1024_ranks_prints_memory_communication_and_time(tmp_path, capsys):
    strategy = str(tmp_path / "w4.json")
    assert plan.main(["--demo", "gpt", "--devices", "1024", "--mesh", "8x128", "--ranks", "2",
                      "--strategy-file", strategy]) == 0
    out = capsys.readouterr().out
    assert "1024 ranks; shapes only, no shard computed" in out
    planned = float(re.search(r"planned in (\S+) s", out).group(1))
    assert planned < 1.0
    assert "(0, 1)" in out and "... 1022 more ranks" in out   # ranks by their (dp, mp) coordinates
    compute, comm = (float(x) for x in re.search(r"compute (\S+) ms \+ communication (\S+) ms", out).groups())
    assert compute > 0 and comm > 0
    with open(strategy) as f:
        saved = json.load(f)["parallel_layout_item"]  # MindSpore's JSON strategy file of the plan
    assert saved["blocks.0.fc1.weight"]["dev_matrix"] == [8, 128]
    assert saved["blocks.0.fc1.weight"]["tensor_map"] == [0, -1]   # the ffn dim over mp, the rest whole
    assert saved["tok_emb"]["tensor_map"] == [-1, -1]


def test_the_planner_refuses_a_mesh_of_another_size(capsys):
    with pytest.raises(SystemExit):
        plan.main(["--demo", "gpt", "--devices", "1024", "--mesh", "8x64"])
    assert "product is --devices 1024" in capsys.readouterr().err


class _Outer(nn.Cell):
    """mean(x @ w) for a column x and a row w: the product is n x n."""

    def __init__(self, n):
        super().__init__()
        self.w = Parameter(Tensor(np.ones((1, n), np.float32)), name="w")
        self.mm, self.mean = ops.MatMul(), ops.ReduceMean()

    def construct(self, x):
        return self.mean(self.mm(x, self.w))


def test_a_shapes_only_plan_records_without_running_a_kernel():
    n = 1 << 20   # x @ w holds n * n float32: 4 TiB, which no kernel could make on this machine
    x = Tensor(np.ones((n, 1), np.float32))
    step = plan.plan_step(_Outer(n), (x,), 4, ((4, 1),), shapes_only=True)
    names = [c.prim.name for c in step.program.calls]
    assert names[:2] == ["MatMul", "ReduceMean"] and "MatMul" in names[2:]   # the backward product dw = x.T @ dy
    assert step.program.calls[0].out.shape == (n, n)
    assert step.grads[0].shape == (1, n) and step.grads[0].dtype == step.params[0].dtype
    ex = step.execution
    assert ex.plans[0].flops == 2 * (n // 4) * n      # the rows of the product are cut over the 4 ranks
    # dw is a partial sum over the batch cut: read in w's (replicated) layout, one all-reduce of its 4 n bytes
    reads = [(s.kind, s.group_size, s.input_bytes) for m in ex.reads for s in m.collectives()]
    assert reads == [("AllReduce", 4, 4 * n)]


def _signature(program):
    return [(c.prim.name, c.strategy, [(tuple(o.shape), o.dtype) for o in c.outs]) for c in program.calls]


class _Mixed(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Dense(8, 16), nn.Dense(16, 4)
        self.mean = ops.ReduceMean()

    def construct(self, x):
        return self.mean(self.fc2(ops.relu(self.fc1(x))))


@pytest.mark.parametrize("case", ["gpt", "mixed precision"])
def test_the_abstract_recording_is_the_pynative_one(case):
    """The same primitive calls, strategies, shapes and dtypes (the casts of mixed precision included)."""
    if case == "gpt":
        make, inputs = (lambda: gpt.GPT(SMALL, np.float64).shard_megatron(2, 2)), gpt.inputs(SMALL, np.float64)
    else:
        from mindseed import amp   # noqa: PLC0415
        make = lambda: amp.auto_mixed_precision(_Mixed(), "auto")   # noqa: E731
        inputs = (Tensor(np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)),)
    real = plan.record_step(make(), inputs)[0]
    abstract = plan.record_step(make(), inputs, abstract=True)[0]
    assert _signature(abstract) == _signature(real)
    if case != "gpt":
        assert any(c.prim.name == "Cast" for c in real.calls)


def test_an_abstract_recording_refuses_a_shape_only_the_values_decide():
    x = Tensor(np.array([1.0, -2.0, 3.0]))
    with pytest.raises(ValueError, match="output shape of MaskedSelect cannot be known without computing it"):
        record(lambda v: ops.masked_select(v, v > 0).sum(), x, abstract=True)
    assert float(record(lambda v: ops.masked_select(v, v > 0).sum(), x).result.asnumpy()) == 4.0


def test_the_planner_command_never_imports_torch():
    """The W4 GPT planned on shapes only is made without data (`_demo_gpt.abstract`) and recorded with shape rules:
    the command runs without importing torch, and plans what it plans with torch loaded."""
    import os      # noqa: PLC0415
    import subprocess      # noqa: PLC0415
    import sys      # noqa: PLC0415

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = ("import sys\nfrom mindseed.parallel import plan\n"
            "plan.main(['--demo', 'gpt', '--devices', '1024', '--mesh', '8x128', '--auto'])\n"
            "print('torch loaded:', 'torch' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=root,
                         env=dict(os.environ, PYTHONPATH=root, OMP_NUM_THREADS="1"), check=True).stdout
    assert "torch loaded: False" in out
    assert "(49 collectives, 5753186 B sent)" in out          # Megatron's plan, as with data (docs/parallel.md)
    assert "searched plan (dynamic_programming): 3587584 B" in out
    net, inputs, _ = plan._gpt_demo((8, 128), abstract=True)  # torch is loaded here: data-less meta tensors
    assert all(p.is_meta for p in net.trainable_params()) and inputs[0].shape == (8, 128)
