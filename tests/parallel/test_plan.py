"""`python -m mindseed.parallel.plan`: per-operator and per-rank figures of a sharded step, in closed form."""
import os
import re
import subprocess
import sys

import pytest

import mindseed as ms
from mindseed.parallel import plan

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _collectives(text):
    section = text.split("== collectives")[1]
    return {m.group(1): (int(m.group(2)), int(m.group(3))) for m in re.finditer(r"(\w+)\s+(\d+)\s+(\d+)", section)}


def _error(text):
    return float(re.search(r"max \|error\| = (\S+)", text).group(1))


@pytest.mark.parametrize("n", [2, 4])
def test_data_parallel_sends_the_ring_all_reduce_of_every_gradient(n, capsys):
    assert plan.main(["--demo", "data", "--devices", str(n)]) == 0
    out = capsys.readouterr().out
    assert _error(out) < 1e-12
    # float64 parameters 16x32 + 32 + 32x8: each gradient all-reduced once (ring: 2 (n-1)/n bytes), plus the loss
    params = (16 * 32 + 32 + 32 * 8) * 8
    assert _collectives(out) == {"AllReduce": (4, 2 * (n - 1) * params // n + 2 * (n - 1) * 8 // n)}
    assert f"{params:>10} {params:>10}" in out  # every rank holds whole parameters and gradients


def test_tensor_parallel_cuts_the_parameters_and_all_reduces_once(capsys):
    assert plan.main(["--demo", "tensor", "--devices", "4", "--ranks", "2"]) == 0
    out = capsys.readouterr().out
    assert _error(out) < 1e-12
    # the row-parallel product (16 x 8 float64) is all-reduced once; the parameters are cut in 4
    assert _collectives(out) == {"AllReduce": (1, 2 * 3 * 16 * 8 * 8 // 4)}
    assert f"{(16 * 32 + 32 + 32 * 8) * 8 // 4:>10}" in out
    assert "... 2 more ranks" in out


def test_a_script_gives_network_inputs_and_dataset_strategy(tmp_path):
    script = tmp_path / "net.py"
    script.write_text(
        "import numpy as np\n"
        "from mindseed import Parameter, Tensor, nn, ops\n"
        "class Net(nn.Cell):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.w = Parameter(Tensor(np.ones((4, 6))), name='w')\n"
        "        self.mm = ops.MatMul().shard(((2, 1), (1, 1)))\n"
        "    def construct(self, x):\n"
        "        return ops.reduce_sum(self.mm(x, self.w) ** 2)\n"
        "network = Net()\n"
        "inputs = (Tensor(np.arange(32.0).reshape(8, 4)),)\n"
        "dataset_strategy = ((2, 1),)\n")
    env = {**os.environ, "PYTHONPATH": ROOT, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "mindseed.parallel.plan", str(script), "--devices", "2"],
                          capture_output=True, text=True, env=env, check=True)
    assert _error(done.stdout) == 0
    assert "MatMul((8, 4), (4, 6)) shard((2, 1), (1, 1))" in done.stdout
    assert _collectives(done.stdout)["AllReduce"][0] == 2  # the loss, then w's gradient


def test_plan_reports_bad_arguments(tmp_path, capsys):
    script = tmp_path / "empty.py"
    script.write_text("x = 1\n")
    with pytest.raises(SystemExit):
        plan.main([str(script)])
    assert "must define network and inputs" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        plan.main(["--demo", "data", "--devices", "0"])
    assert "--devices must be positive" in capsys.readouterr().err


@pytest.mark.parametrize("n", [2, 4])
def test_the_parallel_optimizer_cuts_the_adam_state_over_the_data_ranks(n, capsys, tmp_path):
    params = (16 * 32 + 32 + 32 * 8) * 8
    assert plan.main(["--demo", "data", "--devices", str(n), "--ranks", "1"]) == 0
    assert f"{params:>10} {params:>10} {2 * params:>10}" in capsys.readouterr().out
    strategy = str(tmp_path / "s.json")
    assert plan.main(["--demo", "data", "--devices", str(n), "--ranks", "1", "--parallel-optimizer",
                      "--strategy-file", strategy]) == 0
    out = capsys.readouterr().out
    assert f"{params:>10} {params:>10} {2 * params // n:>10}" in out
    assert sorted(ms.build_searched_strategy(strategy)) == ["b1", "w1", "w2"]
    assert plan.main(["--demo", "data", "--devices", str(n), "--ranks", "1", "--optimizer", "sgd"]) == 0
    assert f"{params:>10} {params:>10} {0:>10}" in capsys.readouterr().out
    # ZeRO-2 cuts the gradients too, ZeRO-3 the weights too
    assert plan.main(["--demo", "data", "--devices", str(n), "--ranks", "1", "--parallel-optimizer", "level2"]) == 0
    assert f"{params:>10} {params // n:>10} {2 * params // n:>10}" in capsys.readouterr().out
    assert plan.main(["--demo", "data", "--devices", str(n), "--ranks", "1", "--parallel-optimizer", "level3"]) == 0
    assert f"{params // n:>10} {params // n:>10} {2 * params // n:>10}" in capsys.readouterr().out


PIPELINE_SCRIPT = '''
import numpy as np
import mindseed as ms
from mindseed import Parameter, Tensor, nn, ops

class Layer(nn.Cell):
    def __init__(self, rng, n_in, n_out):
        super().__init__()
        self.w = Parameter(Tensor(rng.standard_normal((n_in, n_out))), name="w")
        self.mm, self.act = ops.MatMul().shard(((devices // 2, 1), (1, 1))), ops.Tanh()
    def construct(self, x):
        return self.act(self.mm(x, self.w))

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        self.layers = nn.CellList([Layer(rng, 4, 8), Layer(rng, 8, 8), Layer(rng, 8, 8), Layer(rng, 8, 4)])
        for i, layer in enumerate(self.layers):
            layer.pipeline_stage = i // 2
    def construct(self, x, y):
        for layer in self.layers:
            x = layer(x)
        return ops.reduce_mean((x - y) * (x - y))

ms.set_auto_parallel_context(pipeline_stages=2)
network = nn.PipelineCell(Net(), 4)
inputs = (Tensor(np.ones((16, 4))), Tensor(np.zeros((16, 4))))
dataset_strategy = ((devices // 2, 1), (devices // 2, 1))
'''


@pytest.mark.parametrize("scheduler", [None, "gpipe", "seqpipe"])
def test_the_planner_shows_pipeline_stages_and_their_step_time(tmp_path, capsys, scheduler):
    script = tmp_path / "pipe.py"
    script.write_text(PIPELINE_SCRIPT)
    argv = [str(script), "--devices", "4"] + (["--scheduler", scheduler] if scheduler else [])
    try:
        assert plan.main(argv) == 0
    finally:
        ms.reset_auto_parallel_context()
    out = capsys.readouterr().out
    assert f"== pipeline: 2 stages x 2 ranks, 4 micro-batches, scheduler {scheduler or '1f1b'}" in out
    rows = re.findall(r"^\s+(\d) +(\d-\d) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +([\d.]+)$", out, re.M)
    assert [r[:3] for r in rows] == [("0", "0-1", str((32 + 64) * 8)), ("1", "2-3", str((64 + 32) * 8))]
    # per micro-batch of 4 rows cut over 2 ranks: 2 x 8 float64 go forward and their gradients come back
    assert [int(r[6]) for r in rows] == [4 * 2 * 8 * 8, 4 * 2 * 8 * 8]
    # 1F1B holds at most 2 micro-batches on stage 0, GPipe all 4
    peak = int(rows[0][3])
    assert peak % (4 if scheduler == "gpipe" else 2) == 0 and peak > 0
    step = float(re.search(r"estimated step time \(the schedule's timeline of the passes\): ([\d.]+) ms", out)[1])
    assert step >= max(float(r[7]) for r in rows) > 0
