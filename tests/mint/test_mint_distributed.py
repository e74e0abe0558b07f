"""mint.distributed: a world of one process, and two processes on localhost (gloo) running every collective,
the object collectives, point-to-point operations, groups and a gradient through all_reduce."""
import json
import os

import numpy as np
import pytest
from _workers import LAUNCH_VARS, clean_env, free_port, run

import mindseed as ms
from mindseed import communication as comm
from mindseed.mint import distributed as dist

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture
def world(monkeypatch):
    for name in LAUNCH_VARS:
        monkeypatch.delenv(name, raising=False)
    for name in ("WORLD_COMM_GROUP", "BACKEND"):    # restored after the test, as before any init
        monkeypatch.setattr(comm.GlobalComm, name, getattr(comm.GlobalComm, name))
    dist.init_process_group()
    yield
    comm.release()


def _t(a):
    return ms.Tensor(np.asarray(a, np.float32))


def test_before_init():
    assert not dist.is_initialized() and dist.is_available()
    assert dist.get_rank() == -1 and dist.get_world_size() == -1
    with pytest.raises(RuntimeError, match="For 'mint.distributed.broadcast', the process group is not initialized"):
        dist.broadcast(_t([1.0]), 0)


def test_world_of_one(world):
    assert (dist.get_rank(), dist.get_world_size(), dist.is_initialized()) == (0, 1, True)
    assert dist.get_backend() == "mccl" and dist.get_process_group_ranks() == [0]
    x = _t([1.0, 2.0])
    assert dist.all_reduce(x) is None and dist.all_reduce(x, async_op=True).wait() is None
    np.testing.assert_array_equal(x.asnumpy(), [1.0, 2.0])
    lst = [_t([0.0, 0.0])]
    dist.all_gather(lst, _t([3.0, 4.0]))
    np.testing.assert_array_equal(lst[0].asnumpy(), [3.0, 4.0])
    out = _t([0.0, 0.0])
    dist.scatter(out, [_t([5.0, 6.0])], src=0)
    np.testing.assert_array_equal(out.asnumpy(), [5.0, 6.0])
    single = _t([0.0, 0.0, 0.0])
    dist.all_to_all_single(single, _t([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(single.asnumpy(), [1.0, 2.0, 3.0])
    objs = [None]
    dist.all_gather_object(objs, {"a": (1, 2), 3: b"x", "t": ms.Tensor(np.eye(2, dtype=np.float32))})
    assert objs[0]["a"] == (1, 2) and objs[0][3] == b"x"
    np.testing.assert_array_equal(objs[0]["t"].asnumpy(), np.eye(2))
    with pytest.raises(TypeError, match="objects must be built of"):
        dist.all_gather_object([None], object())
    with pytest.raises(ValueError, match="'op' must be one of"):
        dist.all_reduce(x, op="mean")
    with pytest.raises(TypeError, match="'tensor_list' must be a list of Tensors"):
        dist.all_gather(x, x)
    dist.barrier()


def test_tcp_store():
    store = dist.TCPStore("127.0.0.1", free_port(), 1, True)
    store.set("key", "value")
    assert store.get("key") == b"value" and store.add("n", 2) == 2 and store.add("n", 3) == 5
    assert store.check(["key"]) and store.num_keys() >= 2 and store.delete_key("key")


def _launch(tmp_path, n=2):
    port, env = free_port(), clean_env()
    run(tmp_path, [(f"w{rank}", [os.path.join(HERE, "_mint_dist_worker.py"), str(rank), str(port),
                                 str(tmp_path / f"w{rank}.json")], env) for rank in range(n)])
    return [json.loads((tmp_path / f"w{rank}.json").read_text()) for rank in range(n)]


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    return _launch(tmp_path_factory.mktemp("mint_dist"))


@pytest.mark.parametrize("key, want0, want1", [
    ("rank", 0, 1),
    ("size", 2, 2),
    ("backend", "mccl", "mccl"),
    ("all_reduce", [3.0, 30.0], [3.0, 30.0]),
    ("all_reduce_max", [2.0, 3.0], [2.0, 3.0]),
    ("reduce", [1.0], [3.0]),
    ("all_gather", [[0.0, 0.5], [1.0, 1.5]], [[0.0, 0.5], [1.0, 1.5]]),
    ("all_gather_into_tensor", [0.0, 0.0, 1.0, -1.0], [0.0, 0.0, 1.0, -1.0]),
    ("all_gather_uneven", [7.0, 7.0, 7.0], [7.0, 7.0, 7.0]),
    ("reduce_scatter", [3.0], [30.0]),
    ("reduce_scatter_tensor", [3.0, 6.0], [9.0, 12.0]),
    ("reduce_scatter_uneven", [2.0], [4.0, 6.0]),
    ("broadcast", [5.0, 1.0], [5.0, 1.0]),
    ("gather", [[0.25], [1.25]], [[0.0], [0.0]]),
    ("scatter", [1.0, 2.0], [3.0, 4.0]),
    ("all_to_all", [[0.0], [10.0]], [[1.0, 2.0], [11.0, 12.0]]),
    ("all_to_all_single", [0.0, 1.0, 100.0, 101.0], [2.0, 3.0, 102.0, 103.0]),
    ("all_gather_object", [[0, [1, 2.5], [0]], [1, [1, 2.5], [0, 1]]], [[0, [1, 2.5], [0]], [1, [1, 2.5], [0, 1]]]),
    ("broadcast_object_list", ["from", 0], ["from", 0]),
    ("scatter_object_list", ["zero"], ["one"]),
    ("gather_object", None, ["r0", "r1"]),
    ("isend_irecv", [2.0, 2.0, 2.0], [1.0, 1.0, 1.0]),
    ("send_recv", [-1.0], [42.0, 43.0]),
    ("batch_isend_irecv", [101.0], [100.0]),
    ("group_ranks", [0, 1], [0, 1]),
    ("group_all_reduce", [2.0], [2.0]),
    ("grad_all_reduce", [2.0], [4.0]),
    ("after_destroy", False, False),
])
def test_two_processes(two, key, want0, want1):
    assert two[0][key] == want0 and two[1][key] == want1


def test_two_processes_p2p_extras(two):
    assert two[1]["recv_src"] == 0 and two[1]["recv_object_list"] == [{"k": [1, 2]}, "s"]
    assert two[0]["global_rank"] == 1 and [two[0]["group_rank"], two[1]["group_rank"]] == [0, 1]


def test_sync_batch_norm_spans_both_processes(two):
    batch = np.arange(24, dtype=np.float32).reshape(4, 3, 2) ** 1.5
    mean, var = batch.mean((0, 2), keepdims=True), batch.var((0, 2), keepdims=True)
    want = (batch - mean) / np.sqrt(var + 1e-5)
    got = np.concatenate([np.asarray(two[r]["sync_batch_norm"]) for r in range(2)])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(two[0]["sync_running_mean"], 0.5 * mean.reshape(-1), rtol=1e-5)
