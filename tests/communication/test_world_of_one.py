"""The communication layer's newer operators in one process (a world of one): every collective and exchange is the
identity-like operation of its group of one (values, gradients, graph mode, through the op harness), bad
arguments raise MindSpore's errors, and msrun's command line is checked."""
import numpy as np
import pytest
from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests

import mindseed as ms
from mindseed import communication as comm
from mindseed import ops
from mindseed.communication import comm_func as cf
from mindseed.parallel import Layout
from mindseed.parallel.cluster import run as msrun


@pytest.fixture
def world():
    comm.init()
    yield
    comm.release()


@pytest.fixture(autouse=True)
def _restore():
    yield
    comm.release()
    ops.set_comm_ops_inplace(True)


X = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
IDS8 = [0] * 8


def _shape(x):
    return list(x.shape)


def _send_receive(x):
    # to itself: the Receive's virtual input is the Send's output, so the gradient flows back through both
    sent = ops.Send(7, 0)(x)
    return ops.Receive(7, 0, _shape(x), x.dtype)(sent)


SPECS = [
    OpSpec("alltoall", lambda x: ops.AlltoAll(1, 1, 0)(x), lambda x: x, shapes=[(2, 3)], grad2=True),
    OpSpec("alltoallv", lambda x: ops.AlltoAllV()(x, [5], [5]), lambda x: x, shapes=[(5,)], grad2=True),
    OpSpec("alltoallvc", lambda x: ops.AlltoAllVC()(x, [5]), lambda x: x, shapes=[(5,)], grad2=True),
    OpSpec("allgatherv", lambda x: ops.AllGatherV()(x, [5]), lambda x: x, shapes=[(5,)], grad2=True),
    OpSpec("reducescatterv", lambda x: ops.ReduceScatterV()(x, [5]), lambda x: x, shapes=[(5,)], grad2=True),
    OpSpec("reduce", lambda x: ops.Reduce(0)(x), lambda x: x, shapes=[(2, 3)]),
    OpSpec("collective_gather", lambda x: ops.CollectiveGather(0)(x), lambda x: x, shapes=[(2, 3)]),
    OpSpec("collective_scatter", lambda x: ops.CollectiveScatter(0)(x), lambda x: x, shapes=[(2, 3)]),
    OpSpec("send_receive", _send_receive, lambda x: x, shapes=[(2, 3)]),
    OpSpec("neighbor_exchange", lambda x: ops.NeighborExchange([0], [0], (_shape(x),), (_shape(x),), x.dtype)((x,)),
           lambda x: (x,), shapes=[(2, 3)]),
    OpSpec("neighbor_exchange_v2", lambda x: ops.NeighborExchangeV2(IDS8, [1, 1, 1, 1], IDS8, [1, 1, 1, 1],
                                                                    "NCHW")(x),
           lambda x: np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="wrap"), shapes=[(1, 2, 3, 4)], grad2=True),
    OpSpec("neighbor_exchange_v2_rows", lambda x: ops.NeighborExchangeV2([0, -1, -1, -1, -1, -1, -1, -1],
                                                                         [2, 0, 0, 0], [-1, -1, -1, -1, 0, -1, -1, -1],
                                                                         [0, 2, 0, 0], "NCHW")(x),
           lambda x: np.concatenate([x, x[..., :2, :]], axis=2), shapes=[(1, 1, 3, 2)]),
    OpSpec("batch_isend_irecv", lambda x: ops.BatchISendIRecv(("isend", "irecv"), (0, 0), (_shape(x),),
                                                              (x.dtype,))((x,))[1],
           lambda x: x, shapes=[(2, 3)]),
    OpSpec("reshard", lambda x: ops.Reshard((Layout((1,), ("dp",))("dp", "None"),),
                                            (Layout((1,), ("dp",))("dp", "None"),), ((1, 1),))(x),
           lambda x: x, shapes=[(2, 3)]),
    OpSpec("cf_reduce", lambda x: cf.reduce(x, 0), lambda x: x, shapes=[(3,)]),
    OpSpec("cf_gather_into_tensor", lambda x: cf.gather_into_tensor(x), lambda x: x, shapes=[(2, 3)]),
    OpSpec("cf_scatter_tensor", lambda x: cf.scatter_tensor(x), lambda x: x, shapes=[(2, 3)]),
    OpSpec("cf_a2a_single", lambda x: cf.all_to_all_single_with_output_shape((4, 3), x)[0], lambda x: x,
           shapes=[(4, 3)]),
    OpSpec("all_gather_matmul", lambda a, b: ops.all_gather_matmul(a, b, "mccl_world_group", 1),
           lambda a, b: (a @ b, a), shapes=[(3, 4), (4, 2)]),
    OpSpec("all_gather_matmul_t", lambda a, b: ops.all_gather_matmul(a, b, "mccl_world_group", 1, trans_x2=True)[0],
           lambda a, b: a @ b.T, shapes=[(3, 4), (2, 4)]),
    OpSpec("matmul_reduce_scatter", lambda a, b: ops.matmul_reduce_scatter(a, b, "mccl_world_group", 1),
           lambda a, b: a @ b, shapes=[(3, 4), (4, 2)]),
]
_test_value, _test_grad, _test_grad2, _test_graph = make_tests(SPECS)
test_value = pytest.mark.usefixtures("world")(_test_value)
test_grad = pytest.mark.usefixtures("world")(_test_grad)
test_grad2 = pytest.mark.usefixtures("world")(_test_grad2)
test_graph = pytest.mark.usefixtures("world")(_test_graph)


def test_before_init():
    with pytest.raises(RuntimeError, match="For 'AlltoAll', the communication service is not initialized"):
        ops.AlltoAll(1, 0, 0)(X)
    with pytest.raises(RuntimeError, match="For 'Send', the communication service is not initialized"):
        ops.Send(0, 0)(X)


def test_placeholders_and_p2p_handles(world):
    flat = ms.Tensor(np.arange(3.0))
    assert ops.AlltoAllV()(ms.Tensor(np.zeros(0)), [0], [0]).shape == ()   # nothing received: a shape-() tensor
    assert ops.BatchISendIRecv(("isend", "irecv"), (0, 0), ([3],), (ms.float64,))((flat,))[0].shape == ()
    handle = cf.isend(flat * 2, 0, tag=2)
    got, waiting = cf.irecv(flat, 0, tag=2)
    assert isinstance(waiting, cf.CommHandle)
    handle.wait()
    waiting.wait()
    np.testing.assert_array_equal(got.asnumpy(), [0.0, 2.0, 4.0])
    got = cf.batch_isend_irecv([cf.P2POp(cf.isend, flat, 0), cf.P2POp("irecv", (3,), 0, recv_dtype=ms.float64)])
    np.testing.assert_array_equal(got[1].asnumpy(), flat.asnumpy())
    out = ms.Tensor(np.zeros(3))
    assert cf.all_to_all_v_c(out, flat, [3]) is None
    np.testing.assert_array_equal(out.asnumpy(), flat.asnumpy())
    assert ops.reshard(flat, Layout((1,), ("dp",))("dp")) is flat       # one device: the tensor itself


def test_p2p_peer_outside_the_world_is_a_value_error(world):
    # gloo would crash the process on a peer rank the world does not have; MindSpore's examples send to rank 1
    from mindseed.mint import distributed as dist
    x = ms.Tensor(np.ones((2, 3), np.float32))
    for call, op in ((lambda: cf.isend(x, 1), "isend"), (lambda: dist.send(x, 1), "send"),
                     (lambda: dist.recv(x, 1), "recv"), (lambda: dist.irecv(x, src=-1), "irecv"),
                     (lambda: dist.send_object_list(["foo", 12], dst=1), "send")):
        with pytest.raises(ValueError, match=rf"For '{op}', the peer rank must be a world rank .*\(\[0\]\), but got"):
            call()
    dist.send(x * 3, 0)                         # this process itself stays a valid peer
    got = ms.Tensor(np.zeros((2, 3), np.float32))
    dist.recv(got, 0)
    np.testing.assert_array_equal(got.asnumpy(), np.full((2, 3), 3.0, np.float32))


def test_set_comm_ops_inplace(world):
    t = ms.Tensor(np.ones(3))
    ops.set_comm_ops_inplace(False, ["all_reduce", "reduce"])
    out, handle = ops.all_reduce(t)                                      # returns instead of writing
    assert handle is None and np.array_equal(out.asnumpy(), t.asnumpy())
    with pytest.raises(ValueError, match="Non-inplace mode is currently not supported."):
        ops.reduce(t, 0)
    ops.set_comm_ops_inplace(True)
    assert ops.all_reduce(t) is None


def _ne(**kw):
    """A NeighborExchange of X with rank 0, with some attributes replaced (made without any check)."""
    args = dict(send_rank_ids=[0], recv_rank_ids=[0], recv_shapes=([2, 3],), send_shapes=([2, 3],),
                recv_type=ms.float32)
    args.update(kw)
    return ops.NeighborExchange(**args)


ERRORS = [
    ErrorSpec("alltoall-split-count", lambda: comm.init() or ops.AlltoAll(2, 0, 0)(ms.Tensor(np.ones((4, 2)))),
              ValueError, "For 'AlltoAll', the 'split_count' must be equal to the group size 1"),
    ErrorSpec("alltoall-type", lambda: ops.AlltoAll(1.5, 0, 0), TypeError, "For 'AlltoAll', the 'split_count'"),
    ErrorSpec("alltoallv-count", lambda: comm.init() or ops.AlltoAllV()(ms.Tensor(np.ones(4)), [3], [3]),
              ValueError, "For 'AlltoAllV', the 'send_numel_list' [3]"),
    ErrorSpec("alltoallv-length", lambda: comm.init() or ops.AlltoAllV()(ms.Tensor(np.ones(4)), [2, 2], [4]),
              ValueError, "For 'AlltoAllV', the 'send_numel_list' must have 1 entries"),
    ErrorSpec("alltoallvc-matrix", lambda: comm.init() or ops.AlltoAllVC()(ms.Tensor(np.ones(4)), [1, 3]),
              ValueError, "For 'AlltoAllVC', the 'send_count_matrix' must have 1 entries"),
    ErrorSpec("reducescatterv-op", lambda: ops.ReduceScatterV("prod"), ValueError,
              "For 'ReduceScatterV', the 'op' must be one of ['sum', 'max', 'min']"),
    ErrorSpec("reduce-dest", lambda: comm.init() or ops.Reduce(3)(X), ValueError,
              "For 'Reduce', the 'dest_rank' must be a rank of group"),
    ErrorSpec("gather-scalar", lambda: comm.init() or ops.CollectiveGather(0)(ms.Tensor(1.0)), ValueError,
              "For 'CollectiveGather', the input must have at least one dimension"),
    ErrorSpec("receive-dtype", lambda: ops.Receive(0, 0, [2], "float32"), TypeError,
              "For 'Receive', the 'dtype' must be a mindspore dtype"),
    ErrorSpec("nev2-format", lambda: ops.NeighborExchangeV2(IDS8, [0] * 4, IDS8, [0] * 4, "NHWC"), ValueError,
              "For 'NeighborExchangeV2', the 'data_format' must be 'NCHW'"),
    ErrorSpec("nev2-rank", lambda: ops.NeighborExchangeV2([5] + [-1] * 7, [0] * 4, IDS8, [0] * 4, "NCHW"),
              ValueError, "the rank_id in send_rank_ids must be in [0, 1) or -1, but got 5"),
    ErrorSpec("nev2-lens", lambda: ops.NeighborExchangeV2(IDS8, [0, -1, 0, 0], IDS8, [0] * 4, "NCHW"), ValueError,
              "the 'send_lens' must be non-negative"),
    ErrorSpec("nev2-ids", lambda: ops.NeighborExchangeV2([0] * 7, [0] * 4, IDS8, [0] * 4, "NCHW"), ValueError,
              "the 'send_rank_ids' must have 8 entries"),
    # NeighborExchange checks its attributes when it runs (MindSpore: when the graph is compiled)
    ErrorSpec("ne-ids-tuple", lambda: comm.init() or _ne(send_rank_ids=(0,))((X,)), TypeError,
              "For 'NeighborExchange', attr 'send_rank_ids' must be a list[int, int, ...]."),
    ErrorSpec("ne-ids-float", lambda: comm.init() or _ne(recv_rank_ids=[0.0])((X,)), TypeError,
              "attr 'recv_rank_ids' must be a list"),
    ErrorSpec("ne-shapes-list", lambda: comm.init() or _ne(send_shapes=[[2, 3]])((X,)), TypeError,
              "attr 'send_shapes' must be a tuple(list, list, ...)"),
    ErrorSpec("ne-shapes-count", lambda: comm.init() or _ne(recv_shapes=([2, 3], [2, 3]))((X,)), ValueError,
              "attr 'recv_shapes' size must be equal to attr 'recv_rank_ids' size, but got attr 'recv_shapes' size: 2"),
    ErrorSpec("ne-recv-type", lambda: comm.init() or _ne(recv_type=np.float32)((X,)), TypeError,
              "attr 'recv_type' must be a mindspore data type"),
    ErrorSpec("ne-group", lambda: comm.init() or _ne(group=("g",))((X,)), TypeError,
              "For 'NeighborExchange', the type of 'group' should be 'str'"),
    ErrorSpec("ne-inputs", lambda: comm.init() or _ne()((X, X)), RuntimeError,
              "input tuple size must be equal to attr 'send_shapes' size, but got input tuple size: 2"),
    ErrorSpec("ne-shape", lambda: comm.init() or _ne()((X[:1],)), RuntimeError,
              "For 'NeighborExchange', the inputs' shapes must be 'send_shapes'"),
    ErrorSpec("batch-lengths", lambda: ops.BatchISendIRecv(("isend",), (0, 1)), ValueError,
              "length of op_types and remote_ranks must be the same."),
    ErrorSpec("batch-types", lambda: ops.BatchISendIRecv("isend", (0,)), TypeError,
              "For 'BatchISendIRecv', the 'op_types' must be a tuple or list"),
    ErrorSpec("p2pop-op", lambda: cf.P2POp("send", X, 0), ValueError, "Expected ``op`` to be of type ``isend``"),
    ErrorSpec("p2pop-tag", lambda: cf.P2POp("isend", X, 0, tag=1), NotImplementedError, "``tag`` not support yet."),
    ErrorSpec("p2pop-peer", lambda: cf.P2POp("isend", X, "0"), TypeError, "peer must be type of int"),
    ErrorSpec("batch-empty", lambda: cf.batch_isend_irecv([]), TypeError, "p2p_op_list can not be empty list."),
    ErrorSpec("recv-src", lambda: comm.init() or cf.recv(X, "0"), TypeError, "For recv, the src must be int"),
    ErrorSpec("a2a-vc-square", lambda: comm.init() or cf.all_to_all_v_c(X, X, [1, 1]), TypeError,
              "send_count_matrix must be square matrix, but got 2."),
    ErrorSpec("inplace-flag", lambda: ops.set_comm_ops_inplace(1), TypeError,
              "For 'set_comm_ops_inplace', the argument 'is_enable' must be type of bool"),
    ErrorSpec("inplace-name", lambda: ops.set_comm_ops_inplace(True, ["nope"]), ValueError,
              "The function name in `func_list` must be correct, but got nope."),
    ErrorSpec("agmm-world", lambda: comm.init() or ops.all_gather_matmul(X, X.T, "mccl_world_group", 2),
              RuntimeError, "For 'all_gather_matmul', the 'world_size' 2 must be the size of group"),
    ErrorSpec("mmrs-k", lambda: comm.init() or ops.matmul_reduce_scatter(X, X, "mccl_world_group", 1), RuntimeError,
              "The k axis of 'input' shape"),
    ErrorSpec("reshard-layout", lambda: comm.init() or _two_ranks() or ops.reshard(X, (2, 1)), TypeError,
              "Reshard only support type mindspore.parallel.Layout"),
]
test_bad_input = make_error_tests(ERRORS)


def _two_ranks():
    # ops.reshard answers from the world's size; pretend a larger one by recording a parallel run
    from mindseed.parallel import _spmd
    _spmd._state.tapes.append(_spmd._Recorder())


@pytest.fixture(autouse=True)
def _drop_recorders():
    yield
    from mindseed._utils import _state
    _state.tapes[:] = [t for t in _state.tapes if not getattr(t, "records_all", False)]


# ---------------------------------------------------------------- msrun's command line
def test_msrun_arguments():
    args = msrun.get_args(["--worker_num=4", "--local_worker_num", "2", "--node_rank=1", "--join", "True",
                           "--bind_core", "{'device0': ['0-1']}", "train.py", "--lr", "0.1"])
    assert (args.worker_num, args.local_worker_num, args.node_rank, args.join) == (4, 2, 1, True)
    assert args.task_script == "train.py" and args.task_script_args == ["--lr", "0.1"]
    assert args.bind_core == {"device0": ["0-1"]} and args.master_port == 8118 and args.cluster_time_out == 600
    manager = msrun._ProcessManager(args)
    assert [manager._node_id(i) for i in range(2)] == [2, 3]
    assert manager._affinity(0) == [0, 1] and manager._affinity(1) is None
    assert manager.cmd[1:] == ["train.py", "--lr", "0.1"]
    assert msrun._command("pytest", ["-q"])[1:] == ["-m", "pytest", "-q"]
    bare = msrun.get_args(["--worker_num=2", "--join", "--log_dir", "d", "x.py", "--join", "a"])
    assert bare.join is True and bare.log_dir == "d" and bare.task_script_args == ["--join", "a"]
    assert msrun.get_args(["--join", "False", "x.py"]).join is False
    unranked = msrun._ProcessManager(msrun.get_args(["--worker_num=4", "--local_worker_num=2", "x.py"]))
    assert unranked._node_id(1) is None        # ranks assigned at the rendezvous, in arrival order


@pytest.mark.parametrize("argv, message", [
    (["--worker_num=0", "x.py"], "worker_num must be greater than 0, but got 0."),
    (["--worker_num=2", "--local_worker_num=3", "x.py"], "Total worker number is 2, but got exceeded local worker"),
    (["--master_port=80", "x.py"], "master_port must be in [1024, 65535], but got 80."),
    (["--sim_level=0", "x.py"], "--sim_level (dry run) is not supported by msrun"),
    (["--tail_worker_log=a", "x.py"], "--tail_worker_log must be -1 or comma-separated ranks"),
])
def test_msrun_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        msrun.main(argv)
    assert info.value.code == 2
    assert message in capsys.readouterr().err
