"""Real multi-process runs on localhost (torch.distributed gloo): collectives, their gradients, data parallelism.

Each test launches worker processes with the environment msrun would give them (a free port, a 120 s limit)
and kills whatever is left in `finally`; the workers write their results to JSON files checked here.
"""
import json
import os
import sys

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from _dist_worker import rank_input, train_data  # noqa: E402
from _workers import clean_env, free_port, run  # noqa: E402

def _launch(tmp_path, scenario, n=2, scheduler=False):
    """Run `n` workers (plus msrun's scheduler process when `scheduler`); the workers' JSON results by rank."""
    env = clean_env(MS_WORKER_NUM=str(n), MS_SCHED_HOST="127.0.0.1", MS_SCHED_PORT=str(free_port()),
                    MS_TOPO_TIMEOUT="60")
    roles = (["sched"] if scheduler else []) + [f"w{i}" for i in range(n)]
    workers = []
    for role in roles:
        penv = dict(env)
        if role == "sched":
            penv["MS_ROLE"] = "MS_SCHED"
        elif scheduler:
            penv["MS_ROLE"] = "MS_WORKER"    # msrun without node ids: ranks in arrival order
        else:
            penv["MS_NODE_ID"] = role[1:]
        workers.append((role, [os.path.join(HERE, "_dist_worker.py"), scenario, str(tmp_path / f"{role}.json")],
                        penv))
    run(tmp_path, workers)
    results = [json.loads((tmp_path / f"{role}.json").read_text()) for role in roles if role != "sched"]
    return sorted(results, key=lambda r: r["rank"])


@pytest.fixture(scope="module")
def collectives(tmp_path_factory):
    # launched as msrun does: a scheduler process hosts the rendezvous, workers take ranks in arrival order
    return _launch(tmp_path_factory.mktemp("collectives"), "collectives", scheduler=True)


def _close(a, b, dtype="float64"):
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_all_reduce_values(collectives, dtype):
    xs = [rank_input(r, (2, 3), dtype) for r in range(2)]
    expected = {"sum": xs[0] + xs[1], "max": np.maximum(*xs), "min": np.minimum(*xs), "prod": xs[0] * xs[1],
                "avg": (xs[0] + xs[1]) / 2}
    for res in collectives:
        assert res["size"] == 2
        for op, want in expected.items():
            _close(res[f"all_reduce_{op}_{dtype}"], want, dtype)
            assert res[f"all_reduce_{op}_{dtype}_dtype"] == dtype.capitalize()
        assert res["all_reduce_int32"] == (rank_input(0, (3,), "int32") + rank_input(1, (3,), "int32")).tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_all_gather_reduce_scatter_broadcast_values(collectives, dtype):
    xs = [rank_input(r, (2, 3), dtype) for r in range(2)]
    x4s = [rank_input(r, (4, 3), dtype) for r in range(2)]
    for res in collectives:
        r = res["rank"]
        _close(res[f"all_gather_{dtype}"], np.concatenate(xs), dtype)
        _close(res[f"reduce_scatter_{dtype}"], (x4s[0] + x4s[1])[2 * r:2 * r + 2], dtype)
        _close(res[f"reduce_scatter_max_{dtype}"], np.maximum(*x4s)[2 * r:2 * r + 2], dtype)
        _close(res[f"broadcast_{dtype}"][0], xs[1], dtype)
        _close(res[f"broadcast_{dtype}"][1], x4s[1], dtype)


def test_collective_gradients(collectives):
    xs = [rank_input(r, (2, 3), "float64") for r in range(2)]
    ws = [rank_input(r, (2, 3), "float64") * 0.5 + 1.0 for r in range(2)]
    w4s = [rank_input(r, (4, 3), "float64") * 0.25 - 1.0 for r in range(2)]
    wsum = ws[0] + ws[1]
    mx, mn, prod = np.maximum(*xs), np.minimum(*xs), xs[0] * xs[1]
    for res in collectives:
        r = res["rank"]
        _close(res["grad_all_reduce_sum"], wsum)
        _close(res["grad_all_reduce_avg"], wsum / 2)
        _close(res["grad_all_reduce_max"], wsum * (xs[r] == mx))
        _close(res["grad_all_reduce_min"], wsum * (xs[r] == mn))
        # d/dx_r sum_j w_j * prod(x) = sum_j w_j * prod / x_r (MindSpore's rule; x_r has no zeros here but x_0[0])
        with np.errstate(divide="ignore", invalid="ignore"):
            want = wsum * prod / xs[r]
        got = np.asarray(res["grad_all_reduce_prod"])
        finite = np.isfinite(want)
        _close(got[finite], want[finite])
        # AllGather's cotangent is reduce-scattered; ReduceScatter's is all-gathered
        _close(res["grad_all_gather"], (w4s[0] + w4s[1])[2 * r:2 * r + 2])
        _close(res["grad_reduce_scatter"], np.concatenate(ws))
        # the ranks' losses add up: F = sum_r sum(S^3) = 2 sum(S^3) with S = x_0 + x_1, so dF/dx_r = 6 S^2 on
        # every rank, and the gradient of H = sum_r sum(6 S^2) is 24 S
        _close(res["grad2_all_reduce"], 24 * (xs[0] + xs[1]))


def test_collectives_under_jit_and_groups(collectives):
    xs = [rank_input(r, (2, 3), "float64") for r in range(2)]
    ws = [rank_input(r, (2, 3), "float64") * 0.5 + 1.0 for r in range(2)]
    total = xs[0] + xs[1]
    for res in collectives:
        _close(res["jit_all_reduce"][0], 3 * total)
        _close(res["jit_all_reduce"][1], 3 * (total + 2))
        _close(res["jit_grad_all_reduce"], ws[0] + ws[1])
        assert res["group"] == [res["rank"], 2, 1, 0]
        _close(res["group_all_reduce"], total)
        _close(res["comm_func_all_reduce"], total)
        _close(res["comm_func_broadcast"], xs[1])
        _close(res["comm_func_all_gather"], np.concatenate(xs))


def _reference_training(mode):
    inputs, labels, w, b = train_data()
    ms.set_context(mode=mode)
    try:
        net = nn.Dense(4, 3, weight_init=ms.Tensor(w), bias_init=ms.Tensor(b), dtype=ms.float64)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                   nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9))
        assert step.reducer_flag is False
        for _ in range(3):
            step(ms.Tensor(inputs), ms.Tensor(labels))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return net.weight.asnumpy(), net.bias.asnumpy(), w


def test_data_parallel_training_matches_full_batch(tmp_path):
    results = _launch(tmp_path, "data_parallel")
    weight, bias, w0 = _reference_training(ms.PYNATIVE_MODE)
    assert not np.allclose(weight, w0)          # the reference did train
    for res in results:
        assert res["size"] == 2
        for mode in ("pynative", "graph"):
            run = res[mode]
            assert run["reducer"] == "DistributedGradReducer" and run["degree"] == 2
            _close(run["weight"], weight)
            _close(run["bias"], bias)
    # both ranks hold the same weights (each saw only its half of the batch)
    assert results[0]["pynative"]["weight"] == results[1]["pynative"]["weight"]


def test_parameter_broadcast_starts_every_rank_from_rank_0(tmp_path):
    results = _launch(tmp_path, "parameter_broadcast")
    weight, bias, _ = _reference_training(ms.PYNATIVE_MODE)   # rank 0's initial weights, the full batch
    for res in results:
        for mode in ("pynative", "graph"):
            _close(res[mode]["weight"], weight)
            _close(res[mode]["bias"], bias)


def test_loss_scale_overflow_on_one_rank_skips_the_step_on_all(tmp_path):
    results = _launch(tmp_path, "loss_scale_overflow")
    for res in results:
        assert res["distributed"] is True
        assert res["overflow"] == [False, True, False]          # rank 0's own gradients were finite at step 2
        assert res["scales"] == [1024.0, 512.0, 512.0]
        assert np.isfinite(np.asarray(res["weight"])).all()
    assert results[0]["weight"] == results[1]["weight"] and results[0]["bias"] == results[1]["bias"]


def test_msrun_scheduler_assigns_ranks(collectives):
    assert [r["rank"] for r in collectives] == [0, 1]
    for res in collectives:
        assert res["size"] == 2 and res["world"] == "mccl_world_group"


def test_merged_param_data_gathers_the_ranks_slices(tmp_path):
    # mindspore.train.serialization._get_merged_param_data (mindformers' checkpoint saving): the whole parameter
    # from each rank's slice, by the layout's device matrix and tensor map
    for res in _launch(tmp_path, "merged_param_data"):
        np.testing.assert_array_equal(res["rows"], np.arange(12).reshape(4, 3))
        np.testing.assert_array_equal(res["cols"], np.arange(8).reshape(4, 2) * 10)
