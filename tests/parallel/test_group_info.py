"""Group information files written by a sharded run (`group_ckpt_save_file` / ``GROUP_INFO_FILE``): every
communication group of the rank and the ranks whose checkpoints restore it, read back by
`restore_group_info_list` and by protobuf with MindSpore's schema."""
import numpy as np
import pytest
from _mlp import MLP

import mindseed as ms
from mindseed.common._parallel import GlobalComm
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._world import SimulatedWorld

RNG = np.random.default_rng(0)
X, Y = ms.Tensor(RNG.standard_normal((8, 4))), ms.Tensor(RNG.standard_normal((8, 6)))

DATA_4 = dict(mm1=((4, 1), (1, 1)))
DATA_X_TENSOR = dict(mm1=((2, 1), (1, 2)), add=((2, 2), (2,)), mm2=((2, 2), (2, 1)))
COLUMN_ROW_2 = dict(mm1=((1, 1), (1, 2)), add=((1, 2), (2,)), mm2=((1, 2), (2, 1)))


@pytest.fixture(autouse=True)
def _context(monkeypatch):
    monkeypatch.delenv("GROUP_INFO_FILE", raising=False)
    yield
    ms.reset_auto_parallel_context()


def _run(strategies, n, data=None):
    net = MLP(**strategies)
    program = record(ms.value_and_grad(net, None, net.trainable_params()), X, Y)
    return execute(program, SimulatedWorld(n), [(X, data), (Y, data)] if data else None)


def _group_map(path):
    """(groups {name: ranks}, restore ranks) of a group information file, parsed by protobuf with MindSpore's
    ParallelGroupMap schema (node_strategy.proto)."""
    pytest.importorskip("google.protobuf")
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: PLC0415
    L = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(name="group_info_test.proto", package="straspb", syntax="proto2")
    ranks = fdp.message_type.add(name="ParallelGroupRanks")
    ranks.field.add(name="dim", number=1, type=L.TYPE_UINT32, label=L.LABEL_REPEATED)
    item = fdp.message_type.add(name="ParallelGroupItem")
    item.field.add(name="group_name", number=1, type=L.TYPE_STRING, label=L.LABEL_REQUIRED)
    item.field.add(name="parallel_group_ranks", number=2, type=L.TYPE_MESSAGE, label=L.LABEL_REQUIRED,
                   type_name=".straspb.ParallelGroupRanks")
    group_map = fdp.message_type.add(name="ParallelGroupMap")
    group_map.field.add(name="parallel_group_item", number=1, type=L.TYPE_MESSAGE, label=L.LABEL_REPEATED,
                        type_name=".straspb.ParallelGroupItem")
    group_map.field.add(name="ckpt_restore_rank_list", number=2, type=L.TYPE_MESSAGE, label=L.LABEL_REQUIRED,
                        type_name=".straspb.ParallelGroupRanks")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    parsed = message_factory.GetMessageClass(pool.FindMessageTypeByName("straspb.ParallelGroupMap"))()
    parsed.ParseFromString(path.read_bytes())
    assert parsed.IsInitialized()
    return ({i.group_name: list(i.parallel_group_ranks.dim) for i in parsed.parallel_group_item},
            list(parsed.ckpt_restore_rank_list.dim))


def test_a_data_parallel_run_writes_its_group_info_file(tmp_path):
    path = tmp_path / "info" / "group_info.pb"
    ms.set_auto_parallel_context(group_ckpt_save_file=str(path))
    _run(DATA_4, 4, (4, 1))
    # every rank holds the whole parameters: each restores from any
    assert ms.restore_group_info_list(str(path)) == [0, 1, 2, 3]
    groups, restore = _group_map(path)
    assert restore == [0, 1, 2, 3]
    assert groups == {GlobalComm.WORLD_COMM_GROUP: [0, 1, 2, 3]}   # the gradients' all-reduce


@pytest.mark.parametrize("rank, same", [(0, [0, 2]), (1, [1, 3]), (2, [0, 2]), (3, [1, 3])])
def test_data_x_tensor_ranks_restore_from_the_ranks_holding_their_columns(tmp_path, rank, same):
    ex = _run(DATA_X_TENSOR, 4, (2, 1))
    path = tmp_path / f"group_info_{rank}.pb"
    ex.save_group_info(str(path), rank)
    assert ms.restore_group_info_list(str(path)) == same
    groups, _ = _group_map(path)
    # the mirror group of the cut weights, and the tensor-parallel group the row product reduces in
    other = sorted({0, 1} if rank in (0, 1) else {2, 3})
    assert groups["parallel_" + "_".join(map(str, same))] == same
    assert groups["parallel_" + "_".join(map(str, other))] == other
    assert all(rank in g and g == sorted(g) for g in groups.values())


def test_a_tensor_parallel_rank_restores_from_itself_only(tmp_path):
    ex = _run(COLUMN_ROW_2, 2)
    for rank in (0, 1):
        ex.save_group_info(str(tmp_path / "g.pb"), rank)
        assert ms.restore_group_info_list(str(tmp_path / "g.pb")) == [rank]
        assert _group_map(tmp_path / "g.pb")[0] == {GlobalComm.WORLD_COMM_GROUP: [0, 1]}


def test_the_environment_names_the_file_first(tmp_path, monkeypatch):
    ms.set_auto_parallel_context(group_ckpt_save_file=str(tmp_path / "context.pb"))
    monkeypatch.setenv("GROUP_INFO_FILE", str(tmp_path / "env.pb"))
    _run(DATA_4, 4, (4, 1))
    assert (tmp_path / "env.pb").exists() and not (tmp_path / "context.pb").exists()


@pytest.mark.parametrize("shard_size, restore", [(-1, [0]), (2, [0, 2])])
def test_the_parallel_optimizer_narrows_the_restore_list(tmp_path, shard_size, restore):
    ms.set_auto_parallel_context(enable_parallel_optimizer=True)
    if shard_size != -1:
        ms.set_auto_parallel_context(optimizer_weight_shard_size=shard_size)
    ex = _run(DATA_4, 4, (4, 1))
    ex.save_group_info(str(tmp_path / "g.pb"), 0)
    # the optimizer state is cut over the shard size's innermost repeated ranks: rank 2 holds rank 0's slice
    assert ms.restore_group_info_list(str(tmp_path / "g.pb")) == restore


def test_a_rank_outside_the_world_is_refused(tmp_path):
    ex = _run(DATA_4, 4, (4, 1))
    with pytest.raises(ValueError, match=r"For 'save_group_info', the rank must be in \[0, 4\), but got 4"):
        ex.save_group_info(str(tmp_path / "g.pb"), 4)
