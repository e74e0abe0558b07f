"""Real 2-process jobs launched through `python -m mindseed.msrun` on gloo: the values and gradients of every
AlltoAll-family, rooted and point-to-point primitive and comm_func function against numpy, and the launcher's
handling of a worker that dies or a collective a peer never joins (msrun exits non-zero naming the worker; nothing
hangs). The workers run tests/communication/_msrun_job.py.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from _msrun_job import adasum_inputs, data  # noqa: E402
from _workers import clean_env, free_port  # noqa: E402

LIMIT_S = 300    # the whole job, launcher included (a loaded 2-core machine imports slowly)


# the launcher's own file: run by path it starts without importing the framework (the failure tests use it; the
# main job goes through `python -m mindseed.msrun`)
LAUNCHER = os.path.join(os.path.dirname(os.path.dirname(HERE)), "mindseed", "parallel", "cluster", "run.py")


def _msrun(tmp_path, scenario, module=True, **env):
    """Run the job under msrun --join; (exit status, console output, the workers' results by rank)."""
    out = tmp_path / "out"
    out.mkdir()
    launcher = ["-m", "mindseed.msrun"] if module else [LAUNCHER]
    cmd = [sys.executable, *launcher, "--worker_num=2", "--local_worker_num=2",
           f"--master_port={free_port()}", f"--log_dir={tmp_path / 'logs'}", "--join=True", "--cluster_time_out=120",
           os.path.join(HERE, "_msrun_job.py"), scenario, str(out)]
    started = time.monotonic()
    proc = subprocess.run(cmd, env=clean_env(**env), capture_output=True, text=True, timeout=LIMIT_S,
                          cwd=str(tmp_path))
    results = {}
    for r in range(2):
        path = out / f"rank{r}.json"
        if path.exists():
            results[r] = json.loads(path.read_text())
    return proc.returncode, proc.stdout + proc.stderr, results, time.monotonic() - started


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("msrun")
    code, text, results, _ = _msrun(tmp, "collectives")
    assert code == 0, text[-4000:]
    assert sorted(results) == [0, 1], text[-4000:]
    return results, tmp


def _eq(got, want):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=1e-12, atol=1e-12)


def test_logs_per_worker(job):
    _, tmp = job
    logs = sorted(os.listdir(tmp / "logs"))
    assert logs == ["scheduler.log", "worker_0.log", "worker_1.log"]


def test_alltoall(job):
    res, _ = job
    x = [data(r, (2, 4)) for r in range(2)]
    w = [data(r, (4, 2), 1) for r in range(2)]
    for r in range(2):
        _eq(res[r]["alltoall"], np.concatenate([x[i][:, 2 * r:2 * r + 2] for i in range(2)], 0))
        _eq(res[r]["alltoall_jit"], np.concatenate([2 * x[i][:, 2 * r:2 * r + 2] for i in range(2)], 0))
        _eq(res[r]["alltoall_grad"], np.concatenate([w[j][2 * r:2 * r + 2] for j in range(2)], 1))


def _pieces(arrays, counts):
    """pieces[i][j]: what member i sends member j (consecutive runs of counts[i][j] elements)."""
    out = []
    for a, c in zip(arrays, counts):
        starts = np.concatenate([[0], np.cumsum(c)])
        out.append([a[starts[j]:starts[j + 1]] for j in range(len(c))])
    return out


@pytest.mark.parametrize("name", ["alltoallv", "alltoallvc"])
def test_alltoallv(job, name):
    res, _ = job
    flat = [data(r, (5,)) for r in range(2)]
    send = [[2, 3], [1, 4]]
    recv = [[send[i][r] for i in range(2)] for r in range(2)]
    w = [data(r, (sum(recv[r]),), 2) for r in range(2)]
    sent = _pieces(flat, send)
    back = _pieces(w, recv)        # back[j][i]: the cotangent of what i sent j
    for r in range(2):
        _eq(res[r][name], np.concatenate([sent[i][r] for i in range(2)]))
        _eq(res[r][name + "_grad"], np.concatenate([back[j][r] for j in range(2)]))


def test_allgatherv_reducescatterv(job):
    res, _ = job
    mine = [data(r, ([2, 3][r],)) for r in range(2)]
    wg = [data(r, (5,), 3) for r in range(2)]
    flat = [data(r, (5,)) for r in range(2)]
    ws = [data(r, ([2, 3][r],), 4) for r in range(2)]
    seg = [slice(0, 2), slice(2, 5)]
    for r in range(2):
        _eq(res[r]["allgatherv"], np.concatenate(mine))
        _eq(res[r]["allgatherv_grad"], (wg[0] + wg[1])[seg[r]])
        _eq(res[r]["reducescatterv"], (flat[0] + flat[1])[seg[r]])
        _eq(res[r]["reducescatterv_max"], np.maximum(*flat)[seg[r]])
        _eq(res[r]["reducescatterv_grad"], np.concatenate(ws))


def test_rooted_collectives(job):
    res, _ = job
    x = [data(r, (2, 3)) for r in range(2)]
    w = [data(r, (2, 3), 1) for r in range(2)]
    w4 = [data(r, (4, 3), 2) for r in range(2)]
    x4 = [data(r, (4, 3)) for r in range(2)]
    _eq(res[1]["reduce"], x[0] + x[1])
    _eq(res[1]["reduce_max"], np.maximum(*x))
    _eq(res[0]["reduce"], [0.0])
    _eq(res[0]["gather"], np.concatenate(x))
    _eq(res[1]["gather"], [0.0])
    for r in range(2):
        _eq(res[r]["reduce_grad"], w[1])                       # the root's cotangent, broadcast
        _eq(res[r]["gather_grad"], w4[0][2 * r:2 * r + 2])
        _eq(res[r]["scatter"], x4[0][2 * r:2 * r + 2])
    _eq(res[0]["scatter_grad"], np.concatenate(w))
    _eq(res[1]["scatter_grad"], np.zeros((4, 3)))


def test_send_receive_and_gradients(job):
    res, _ = job
    x = [data(r, (2, 3)) for r in range(2)]
    w = [data(r, (2, 3), 1) for r in range(2)]
    _eq(res[0]["send"], x[0])
    _eq(res[1]["receive"], x[0])
    _eq(res[0]["send_grad"], 2 * w[1])      # MindSpore's rule: received back from the receiver
    _eq(res[1]["receive_grad"], [0.0])
    for r in range(2):
        _eq(res[r]["neighbor"], x[1 - r])
        _eq(res[r]["neighbor_grad"], w[1 - r])
        _eq(res[r]["batch"][0], 0.0)
        _eq(res[r]["batch"][1], x[1 - r])
        _eq(res[r]["batch_grad"], w[1 - r])


def test_neighbor_exchange_v2(job):
    res, _ = job
    x = [data(r, (3, 4)) for r in range(2)]
    wi = [data(r, (4, 5), 1) for r in range(2)]
    out0 = np.zeros((4, 5))
    out0[0:3, 0:4] = x[0]
    out0[3, 0:4] = x[1][0]          # rank 1's top row, from the bottom
    out0[3, 4] = x[1][0, 0]         # rank 1's top-left corner, from the bottom right
    out1 = np.zeros((4, 5))
    out1[1:4, 1:5] = x[1]
    out1[0, 1:5] = x[0][2]
    out1[0, 0] = x[0][2, 3]
    dx0 = wi[0][0:3, 0:4].copy()
    dx0[2] += wi[1][0, 1:5]
    dx0[2, 3] += wi[1][0, 0]
    dx1 = wi[1][1:4, 1:5].copy()
    dx1[0] += wi[0][3, 0:4]
    dx1[0, 0] += wi[0][3, 4]
    for r, (out, dx) in enumerate(((out0, dx0), (out1, dx1))):
        _eq(np.asarray(res[r]["neighbor_v2"])[0, 0], out)
        _eq(np.asarray(res[r]["neighbor_v2_grad"])[0, 0], dx)


def test_comm_func(job):
    res, _ = job
    x = [data(r, (4, 3)) for r in range(2)]
    _eq(res[0]["cf_reduce"], x[0] + x[1])
    _eq(res[1]["cf_reduce"], [0.0])
    _eq(res[1]["cf_gather"], np.concatenate(x))
    _eq(res[0]["cf_gather"], [0.0])
    _eq(res[1]["cf_recv"], x[0])
    _eq(res[1]["cf_irecv"], 2 * x[0])
    _eq(res[0]["cf_recv"], x[1] + 1)
    for r in range(2):
        _eq(res[r]["cf_scatter"], x[1][2 * r:2 * r + 2])
        _eq(res[r]["cf_batch"], x[1 - r])
        _eq(res[r]["cf_a2a"][0], data(0, (2,), r))
        _eq(res[r]["cf_a2a"][1], data(1, (2,), r).reshape(1, 2))
        assert res[r]["cf_a2a_handle"]
    _eq(res[0]["cf_a2a_single"], np.concatenate([x[0][0:1], x[1][0:2]]))
    _eq(res[1]["cf_a2a_single"], np.concatenate([x[0][1:4], x[1][2:4]]))
    _eq(res[0]["cf_a2a_vc"], res[0]["cf_a2a_single"])
    _eq(res[1]["cf_a2a_vc"], res[1]["cf_a2a_single"])


def test_ops_forms_and_fused_tp(job):
    res, _ = job
    x = [data(r, (4, 3)) for r in range(2)]
    b = data(0, (3, 2))
    _eq(res[0]["ops_gather"], np.concatenate(x))
    _eq(res[1]["ops_gather"], np.zeros((8, 3)))
    for r in range(2):
        _eq(res[r]["ops_scatter"], x[0][2 * r:2 * r + 2])
        _eq(res[r]["all_gather_matmul"][0], np.concatenate(x) @ b)
        _eq(res[r]["all_gather_matmul"][1], np.concatenate(x))
        _eq(res[r]["matmul_reduce_scatter"], (x[0] @ b + x[1] @ b)[2 * r:2 * r + 2])


def test_parameter_broadcast_and_pipeline_shared_parameters(job):
    res, _ = job
    # a and w are replicated: group (0, 1) keeps a from rank 0 and w from rank 1 (round-robin in name order)
    for r in range(2):
        got = res[r]["broadcast"]
        _eq(got["a"], data(0, (2,)))
        _eq(got["w"], data(1, (2, 3), 1))
        _eq(got["b"], data(r, (4,), 2))            # cut over the ranks: each keeps its own slice
        synced = res[r]["synced"]
        _eq(synced["w"], data(0, (2, 3), 1))       # rank 0 sent its tied weight to rank 1
        _eq(synced["a"], data(r, (2,)))


def test_adasum(job):
    res, _ = job
    ins = [adasum_inputs(r) for r in range(2)]
    for i in range(2):
        a, b = ins[0][i].ravel(), ins[1][i].ravel()
        dot = a @ b
        want = (1 - dot / (2 * (a @ a))) * a + (1 - dot / (2 * (b @ b))) * b
        for r in range(2):
            np.testing.assert_allclose(np.ravel(res[r]["adasum"][i]), want, rtol=1e-9, atol=1e-9)
    for r in range(2):    # a tensor with no dim above 1 is averaged
        _eq(res[r]["adasum"][2], (ins[0][2] + ins[1][2]) / 2)


def test_killed_worker_ends_the_job(tmp_path):
    code, text, results, _ = _msrun(tmp_path, "killed", module=False)
    assert code == 1, text[-4000:]
    assert "worker 1" in text and "killed by signal 9" in text, text[-4000:]
    # the survivor's AllReduce failed with the communication layer's error, not a hang
    assert "a peer process has gone away" in (tmp_path / "logs" / "worker_0.log").read_text()
    assert results == {}


def test_collective_timeout(tmp_path):
    code, text, results, _ = _msrun(tmp_path, "timeout", module=False, HCCL_EXEC_TIMEOUT="4")
    assert code == 1, text[-4000:]
    log = (tmp_path / "logs" / "worker_0.log").read_text()
    assert "For 'AllReduce', the communication did not complete within 4 s (HCCL_EXEC_TIMEOUT)" in log, log[-3000:]
    assert "msrun: worker 0" in text and "exited with code 1" in text, text[-4000:]
    # rank 1 slept 120 s: msrun killed it instead of waiting
    assert "worker 1" not in text.split("msrun: worker 0")[1].split("\n")[0]
