"""Distributed checkpoints: a tensor-parallel MLP run on a simulated world saves one checkpoint per rank and the
strategy file; merged, transformed to other strategies and rank counts, or loaded into a network, the values are
those of the single-process network, and the loaded network gives the single-process loss."""
import json
import os

import numpy as np
import pytest
from _shard_model import model_shards

import mindseed as ms
from _mlp import MLP
from mindseed import Parameter, Tensor, nn
from mindseed.parallel import _strategy_file as SF
from mindseed.parallel._layout import DeviceMesh, TensorLayout, assemble, shard_array
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._world import SimulatedWorld


RNG = np.random.default_rng(0)
X, Y = Tensor(RNG.standard_normal((8, 4))), Tensor(RNG.standard_normal((8, 6)))
COLUMN_ROW_4 = dict(mm1=((1, 1), (1, 4)), add=((1, 4), (4,)), mm2=((1, 4), (4, 1)))
DATA_X_TENSOR_2x2 = dict(mm1=((2, 1), (1, 2)), add=((2, 2), (2,)), mm2=((2, 2), (2, 1)))
COLUMN_2 = dict(mm1=((1, 1), (1, 2)), add=((1, 2), (2,)), mm2=((1, 2), (2, 1)))
DATA_4 = dict(mm1=((4, 1), (1, 1)))


def _run(net, n, strategy_file=None, data=None):
    """Record one step of `net`, run it on n simulated ranks (writing the strategy file when given)."""
    program = record(ms.value_and_grad(net, None, net.trainable_params()), X, Y)
    ms.set_auto_parallel_context(strategy_ckpt_save_file=strategy_file or "")
    try:
        layouts = [(X, data), (Y, data)] if data else None
        return program, execute(program, SimulatedWorld(n), layouts)
    finally:
        ms.reset_auto_parallel_context()


def _save_ranks(ex, n, directory, format="ckpt"):
    """What every rank does with save_checkpoint(net, ..., integrated_save=False): its slices, rank_<r>/."""
    for r in range(n):
        os.makedirs(os.path.join(directory, f"rank_{r}"), exist_ok=True)
        ms.save_checkpoint(ex.rank_parameters(r), os.path.join(directory, f"rank_{r}", f"net{r}.{format}"),
                           format=format)


@pytest.fixture(name="saved")
def saved_fixture(tmp_path):
    """A column/row tensor-parallel MLP at 4 ranks: per-rank checkpoints and its strategy file."""
    net = MLP(**COLUMN_ROW_4)
    _, ex = _run(net, 4, str(tmp_path / "src_strategy.ckpt"))
    _save_ranks(ex, 4, str(tmp_path / "src"))
    whole = {p.name: p.asnumpy() for p in net.trainable_params()}
    return tmp_path, ex, whole


def test_strategy_file_records_each_parameters_cut(saved):
    tmp_path, ex, _ = saved
    strategy = ms.build_searched_strategy(str(tmp_path / "src_strategy.ckpt"))
    assert sorted(strategy) == ["b1", "w1", "w2"]
    # w1 (4, 8) cut in 4 along its columns: MindSpore's tensor map counts device-matrix axes from the right
    assert strategy["w1"].dev_matrix[0].dim == [4] and strategy["w1"].tensor_map[0].dim == [-1, 0]
    assert strategy["w2"].tensor_map[0].dim == [0, -1] and strategy["b1"].tensor_map[0].dim == [0]
    assert strategy["w1"].opt_weight_shard_size == 0 and strategy["w1"].field == 0
    # JSON holds the same
    ex.save_strategy(str(tmp_path / "s.json"))
    assert ms.build_searched_strategy(str(tmp_path / "s.json")) == strategy
    content = json.loads((tmp_path / "s.json").read_text())
    assert content["parallel_layout_item"]["w1"]["tensor_map"] == [-1, 0]
    assert content["parallel_strategy_item"]["MatMul-op0"] == {"stage": 0, "parallel_strategy": [[1, 1], [1, 4]]}


def test_merge_sliced_parameter_gives_the_single_process_values(saved):
    tmp_path, _, whole = saved
    strategy = ms.build_searched_strategy(str(tmp_path / "src_strategy.ckpt"))
    for name, value in whole.items():
        slices = [ms.load_checkpoint(str(tmp_path / "src" / f"rank_{r}" / f"net{r}.ckpt"))[name] for r in range(4)]
        merged = ms.merge_sliced_parameter(slices, strategy)
        assert merged.name == name
        np.testing.assert_array_equal(merged.asnumpy(), value)
    # without a strategy, the slices join along dim 0
    parts = [Parameter(Tensor(np.arange(3.0) + 3 * i), name="e") for i in range(4)]
    np.testing.assert_array_equal(ms.merge_sliced_parameter(parts).asnumpy(), np.arange(12.0))


@pytest.mark.parametrize("dst, n, data", [(DATA_X_TENSOR_2x2, 4, (2, 1)), (COLUMN_2, 2, None),
                                          (DATA_4, 4, (4, 1))])
def test_transform_checkpoints_to_another_strategy_and_rank_count(saved, dst, n, data):
    tmp_path, _, whole = saved
    _, dst_ex = _run(MLP(seed=5, **dst), n, str(tmp_path / "dst_strategy.ckpt"), data)
    ms.transform_checkpoints(str(tmp_path / "src"), str(tmp_path / "dst"), "new_", str(tmp_path / "src_strategy.ckpt"),
                             str(tmp_path / "dst_strategy.ckpt"))
    layouts = dst_ex.parameter_layouts()
    for r in range(n):
        got = ms.load_checkpoint(str(tmp_path / "dst" / f"rank_{r}" / f"new_{r}.ckpt"))
        assert sorted(got) == sorted(whole)
        for name, value in whole.items():
            layout = layouts[name]
            expected = model_shards(value, layout.mesh.shape, layout.dims)[r]
            np.testing.assert_array_equal(got[name].asnumpy(), expected)
    assert not os.path.exists(tmp_path / "dst" / f"rank_{n}")


def test_rank_list_for_transform_names_the_overlapping_source_ranks(saved, tmp_path):
    path, _, _ = saved
    src = str(path / "src_strategy.ckpt")
    _run(MLP(**COLUMN_2), 2, str(tmp_path / "col2.ckpt"))
    _run(MLP(**DATA_4), 4, str(tmp_path / "data4.ckpt"), (4, 1))
    # column halves of 2 ranks each take two of the four column quarters
    assert ms.rank_list_for_transform(0, src, str(tmp_path / "col2.ckpt")) == [0, 1]
    assert ms.rank_list_for_transform(1, src, str(tmp_path / "col2.ckpt")) == [2, 3]
    # whole parameters need every quarter
    assert ms.rank_list_for_transform(3, src, str(tmp_path / "data4.ckpt")) == [0, 1, 2, 3]
    assert ms.rank_list_for_transform(0, src, None) == [0, 1, 2, 3]
    assert ms.rank_list_for_transform(2, None, src) == [0]
    # replicated source pieces are read from the lowest rank holding them
    assert ms.rank_list_for_transform(3, str(tmp_path / "data4.ckpt"), src) == [0]
    with pytest.raises(TypeError, match="rank_id"):
        ms.rank_list_for_transform("0", src)


def test_transform_checkpoint_by_rank_writes_one_rank(saved, tmp_path):
    path, _, whole = saved
    src = str(path / "src_strategy.ckpt")
    _, dst_ex = _run(MLP(**COLUMN_2), 2, str(tmp_path / "col2.ckpt"))
    ranks = ms.rank_list_for_transform(1, src, str(tmp_path / "col2.ckpt"))
    files = {r: str(path / "src" / f"rank_{r}" / f"net{r}.ckpt") for r in ranks}
    out = str(tmp_path / "r1.ckpt")
    ms.transform_checkpoint_by_rank(1, files, out, src, str(tmp_path / "col2.ckpt"))
    got = ms.load_checkpoint(out)
    for name, value in whole.items():
        layout = dst_ex.parameter_layouts()[name]
        np.testing.assert_array_equal(got[name].asnumpy(), shard_array(value, layout)[1])
    with pytest.raises(ValueError, match="checkpoint file of rank 0 is needed"):
        ms.transform_checkpoint_by_rank(0, files, out, src, str(tmp_path / "col2.ckpt"))
    with pytest.raises(ValueError, match="should end with .ckpt"):
        ms.transform_checkpoint_by_rank(1, files, str(tmp_path / "r1.bin"), src, str(tmp_path / "col2.ckpt"))


def test_a_checkpoint_saved_at_4_ranks_loads_and_trains_at_2_with_the_single_process_loss(saved):
    tmp_path, _, whole = saved
    files = [str(tmp_path / "src" / f"rank_{r}" / f"net{r}.ckpt") for r in range(4)]
    fresh = MLP(seed=9, **COLUMN_2)
    assert ms.load_distributed_checkpoint(fresh, files, None, str(tmp_path / "src_strategy.ckpt")) is True
    for p in fresh.trainable_params():
        np.testing.assert_array_equal(p.asnumpy(), whole[p.name])
    reference = MLP(seed=1)
    loss, grads = ms.value_and_grad(reference, None, reference.trainable_params())(X, Y)
    program, ex = _run(fresh, 2)
    got_loss, got_grads = program.result
    value = ex.value(got_loss)
    np.testing.assert_allclose(assemble(value.shards, value.layout), loss.asnumpy(), rtol=0, atol=1e-12)
    for p, g, ref in zip(fresh.trainable_params(), got_grads, grads):
        layout = ex.layout_of(p)
        np.testing.assert_allclose(assemble(ex.value(g, layout).shards, layout), ref.asnumpy(), rtol=0, atol=1e-12)


def test_load_distributed_checkpoint_cuts_for_the_predict_strategy(saved):
    tmp_path, _, whole = saved
    files = [str(tmp_path / "src" / f"rank_{r}" / f"net{r}.ckpt") for r in range(4)]

    class Sliced(nn.Cell):  # what rank 1 of a 2-way row-cut (dim 0) network holds
        def __init__(self):
            super().__init__()
            self.w1 = Parameter(Tensor(np.zeros((2, 8))), name="w1")
            self.b1 = Parameter(Tensor(np.zeros((8,))), name="b1")
            self.w2 = Parameter(Tensor(np.zeros((4, 6))), name="w2")

    net = Sliced()
    predict = {"w1": [[2], [0, -1]], "w2": [[2], [0, -1]], "b1": [[2], [-1]]}
    ms.set_auto_parallel_context(strategy_ckpt_load_file=str(tmp_path / "src_strategy.ckpt"))
    try:
        got = ms.load_distributed_checkpoint(net, files, predict, rank_id=1, return_param_dict=True)
    finally:
        ms.reset_auto_parallel_context()
    np.testing.assert_array_equal(net.w1.asnumpy(), whole["w1"][2:])
    np.testing.assert_array_equal(net.w2.asnumpy(), whole["w2"][4:])
    np.testing.assert_array_equal(net.b1.asnumpy(), whole["b1"])
    assert sorted(got) == ["b1", "w1", "w2"]
    with pytest.raises(ValueError, match="the length of 'checkpoint_filenames' should be equal to the device count"):
        ms.load_distributed_checkpoint(net, files[:2], None, str(tmp_path / "src_strategy.ckpt"))
    with pytest.raises(ValueError, match="training strategy file is needed"):
        ms.load_distributed_checkpoint(net, files)


def test_unified_safetensors_then_load_by_predict_strategy(tmp_path):
    net = MLP(**DATA_X_TENSOR_2x2)
    _, ex = _run(net, 4, str(tmp_path / "s.ckpt"), (2, 1))
    _save_ranks(ex, 4, str(tmp_path / "src"), "safetensors")
    ms.unified_safetensors(str(tmp_path / "src"), str(tmp_path / "s.ckpt"), str(tmp_path / "unified"))
    names = json.loads((tmp_path / "unified" / "param_name_map.json").read_text())["weight_map"]
    assert names == {"w1": "part0.safetensors", "b1": "part0.safetensors", "w2": "part0.safetensors"}
    merged = ms.load_checkpoint(str(tmp_path / "unified" / "part0.safetensors"), format="safetensors")
    for p in net.trainable_params():
        np.testing.assert_array_equal(merged[p.name].asnumpy(), p.asnumpy())
    # and cut again for each rank of another strategy, written per rank
    _, dst_ex = _run(MLP(**COLUMN_2), 2, str(tmp_path / "col2.ckpt"))
    ms.load_distributed_checkpoint(None, predict_strategy=str(tmp_path / "col2.ckpt"), format="safetensors",
                                   unified_safetensors_dir=str(tmp_path / "unified"),
                                   dst_safetensors_dir=str(tmp_path / "cut"))
    for r in range(2):
        got = ms.load_checkpoint(str(tmp_path / "cut" / f"rank_{r}" / f"checkpoint_{r}.safetensors"),
                                 format="safetensors")
        for p in net.trainable_params():
            layout = dst_ex.parameter_layouts()[p.name]
            np.testing.assert_array_equal(got[p.name].asnumpy(), shard_array(p.asnumpy(), layout)[r])


def test_optimizer_shard_in_the_strategy_cuts_dim_0_over_the_repeated_devices():
    # 4 devices all repeating the parameter; the optimizer shard over 2 of them: ranks 0,1 hold halves, as 2,3
    rec = SF.ParallelLayouts([4], [-1, -1], opt_weight_shard_step=1, opt_weight_shard_size=2)
    layout = SF.tensor_layout(rec, (4, 3))
    x = np.arange(12.0).reshape(4, 3)
    shards = shard_array(x, layout)
    np.testing.assert_array_equal(shards[0], x[:2])
    np.testing.assert_array_equal(shards[1], x[2:])
    np.testing.assert_array_equal(shards[2], x[:2])
    # model parallel on dim 0 first, then the optimizer shard inside each piece
    rec = SF.ParallelLayouts([2, 2], [1, -1], opt_weight_shard_step=1, opt_weight_shard_size=-1)
    shards = shard_array(np.arange(8.0).reshape(8, 1), SF.tensor_layout(rec, (8, 1)))
    assert [s.ravel().tolist() for s in shards] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    params = [Parameter(Tensor(s), name="m") for s in shards]
    np.testing.assert_array_equal(ms.merge_sliced_parameter(params, {"m": rec}).asnumpy().ravel(), np.arange(8.0))


def test_merge_sliced_parameter_with_uneven_dim_0():
    rec = SF.ParallelLayouts([2], [0], param_split_shape=[3, 1])
    params = [Parameter(Tensor(np.arange(3.0)), name="e"), Parameter(Tensor(np.array([3.0])), name="e")]
    np.testing.assert_array_equal(ms.merge_sliced_parameter(params, {"e": rec}).asnumpy(), np.arange(4.0))
    with pytest.raises(ValueError, match="the slice 1 should be 1 in 0 axis, but got 3"):
        ms.merge_sliced_parameter([params[0], params[0]], {"e": rec})


def test_merge_sliced_parameter_rejects_bad_input():
    p = Parameter(Tensor(np.ones((2, 2))), name="p")
    rec = SF.ParallelLayouts([2], [0, -1])
    with pytest.raises(TypeError, match="should be list"):
        ms.merge_sliced_parameter((p, p))
    with pytest.raises(ValueError, match="should not be empty"):
        ms.merge_sliced_parameter([])
    with pytest.raises(KeyError, match="should be a key in the 'strategy'"):
        ms.merge_sliced_parameter([p, p], {"q": rec})
    with pytest.raises(ValueError, match="is 3, but device_count is 2"):
        ms.merge_sliced_parameter([p, p, p], {"p": rec})
    with pytest.raises(ValueError, match="same name, dimension length and shape except 0 axis"):
        ms.merge_sliced_parameter([p, Parameter(Tensor(np.ones((2, 3))), name="p")])


def test_strategy_file_errors(tmp_path):
    with pytest.raises(TypeError, match="'strategy_filename' should be string"):
        ms.build_searched_strategy(3)
    with pytest.raises(ValueError, match="no such strategy file"):
        ms.build_searched_strategy(str(tmp_path / "missing.ckpt"))
    bad = tmp_path / "bad.ckpt"
    bad.write_bytes(b"\xff\xff\xff")
    with pytest.raises(TypeError, match="should be one of json or protobuf"):
        ms.build_searched_strategy(str(bad))
    mesh = DeviceMesh((2, 2, 2))
    with pytest.raises(ValueError, match="not neighbours"):
        SF.record_of(TensorLayout(mesh, (8,), ((0, 2),)))
    # neighbouring axes cutting one dim merge into one device-matrix axis
    rec = SF.record_of(TensorLayout(mesh, (8, 2), ((0, 1), (2,))))
    assert rec.dev_matrix[0].dim == [4, 2] and rec.tensor_map[0].dim == [1, 0]


def test_merge_pipeline_strategys_names_parameters_by_stage(tmp_path):
    stages = tmp_path / "stages"
    stages.mkdir()
    mesh = DeviceMesh((2,))
    SF.write_strategy_file(str(stages / "s0.ckpt"), {"w1": TensorLayout(mesh, (4, 8), ((), (0,)))},
                           [("MatMul-op0", [[1, 1], [1, 2]])], stage=0)
    SF.write_strategy_file(str(stages / "s1.ckpt"), {"w2": TensorLayout(mesh, (8, 6), ((0,), ()))},
                           [("MatMul-op1", [[1, 2], [2, 1]])], stage=1)
    ms.merge_pipeline_strategys(str(stages), str(tmp_path / "merged" / "all.ckpt"))
    merged = ms.build_searched_strategy(str(tmp_path / "merged" / "all.ckpt"))
    assert sorted(merged) == ["0-w1", "1-w2"]
    # stage 1's parameters live on ranks 2, 3: a whole w2 reads rank 2 only (its ranks hold halves: 2 and 3)
    assert ms.rank_list_for_transform(0, str(tmp_path / "merged" / "all.ckpt")) == [0, 1, 2, 3]
    with pytest.raises(NotADirectoryError):
        ms.merge_pipeline_strategys(str(tmp_path / "nothing"), str(tmp_path / "x.ckpt"))


def test_load_segmented_checkpoints_and_group_info(tmp_path):
    (tmp_path / "seg").mkdir()
    ms.save_checkpoint({"a": Tensor(np.ones(2))}, str(tmp_path / "seg" / "a.ckpt"))
    ms.save_checkpoint({"b": Tensor(np.zeros(3))}, str(tmp_path / "seg" / "b.ckpt"))
    got = ms.load_segmented_checkpoints(str(tmp_path / "seg"))
    assert sorted(got) == ["a", "b"] and got["b"].shape == (3,)
    with pytest.raises(ValueError, match="Or it's not a directory"):
        ms.load_segmented_checkpoints(str(tmp_path / "nope"))
    SF.write_group_info_file(str(tmp_path / "group.pb"), {"dp_group": [0, 2]}, [0, 2])
    assert ms.restore_group_info_list(str(tmp_path / "group.pb")) == [0, 2]
    with pytest.raises(ValueError, match="no such group information file"):
        ms.restore_group_info_list(str(tmp_path / "none.pb"))


def test_get_ckpt_path_with_strategy_finds_a_rank_with_the_same_slices(tmp_path):
    # data parallel on 4: every rank holds whole parameters, so any rank's file restores rank 0
    _, ex = _run(MLP(**DATA_4), 4, str(tmp_path / "dp.ckpt"), (4, 1))
    _save_ranks(ex, 4, str(tmp_path / "ck"))
    os.remove(tmp_path / "ck" / "rank_0" / "net0.ckpt")
    os.remove(tmp_path / "ck" / "rank_1" / "net1.ckpt")
    os.rename(tmp_path / "ck" / "rank_2" / "net2.ckpt", tmp_path / "ck" / "rank_2" / "net0.ckpt")
    path = ms.get_ckpt_path_with_strategy(str(tmp_path / "ck" / "rank_0" / "net0.ckpt"), str(tmp_path / "dp.ckpt"))
    assert path == str(tmp_path / "ck" / "rank_2" / "net0.ckpt")
    # under column parallel no other rank holds rank 0's columns
    _run(MLP(**COLUMN_ROW_4), 4, str(tmp_path / "tp.ckpt"))
    assert ms.get_ckpt_path_with_strategy(str(tmp_path / "ck" / "rank_0" / "net0.ckpt"),
                                          str(tmp_path / "tp.ckpt")) is None


def _strategy_schema():
    """MindSpore's node_strategy.proto (the messages of a strategy file), built with protobuf's descriptors."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: PLC0415
    L = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(name="node_strategy_test.proto", package="straspb", syntax="proto2")

    def message(name, *fields):
        m = fdp.message_type.add(name=name)
        for fname, number, kind, label, type_name in fields:
            m.field.add(name=fname, number=number, type=kind, label=label,
                        **({"type_name": f".straspb.{type_name}"} if type_name else {}))

    rep, req, msg = L.LABEL_REPEATED, L.LABEL_REQUIRED, L.TYPE_MESSAGE
    message("ParallelStrategy", ("dim", 1, L.TYPE_UINT32, rep, None))
    message("ParallelStrategys", ("stage", 1, L.TYPE_UINT32, req, None),
            ("parallel_strategy", 2, msg, rep, "ParallelStrategy"))
    message("ParallelStrategyItem", ("node_name", 1, L.TYPE_STRING, req, None),
            ("parallel_strategys", 2, msg, req, "ParallelStrategys"))
    message("DevMatrix", ("dim", 1, L.TYPE_UINT32, rep, None))
    message("TensorMap", ("dim", 1, L.TYPE_INT32, rep, None))
    message("ParamSplitShape", ("dim", 1, L.TYPE_INT64, rep, None))
    message("IndicesOffset", ("dim", 1, L.TYPE_INT64, rep, None))
    message("ParallelLayouts", ("dev_matrix", 1, msg, rep, "DevMatrix"), ("tensor_map", 2, msg, rep, "TensorMap"),
            ("param_split_shape", 3, msg, rep, "ParamSplitShape"), ("indices_offset", 4, msg, rep, "IndicesOffset"),
            ("field", 5, L.TYPE_INT32, req, None), ("opt_weight_shard_step", 6, L.TYPE_INT32, req, None),
            ("opt_weight_shard_size", 7, L.TYPE_INT32, req, None))
    message("ParallelLayoutItem", ("param_name", 1, L.TYPE_STRING, req, None),
            ("parallel_layouts", 2, msg, req, "ParallelLayouts"))
    message("ParallelStrategyMap", ("current_stage", 1, L.TYPE_UINT32, req, None),
            ("parallel_strategy_item", 2, msg, rep, "ParallelStrategyItem"),
            ("parallel_layout_item", 3, msg, rep, "ParallelLayoutItem"))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return lambda name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"straspb.{name}"))


def test_strategy_file_parses_with_mindspores_schema_both_ways(saved, tmp_path):
    pytest.importorskip("google.protobuf")
    path, _, _ = saved
    StrategyMap = _strategy_schema()("ParallelStrategyMap")
    parsed = StrategyMap()
    parsed.ParseFromString((path / "src_strategy.ckpt").read_bytes())
    assert parsed.IsInitialized()  # every required field is there
    items = {i.param_name: i.parallel_layouts for i in parsed.parallel_layout_item}
    assert list(items["w1"].dev_matrix[0].dim) == [4] and list(items["w1"].tensor_map[0].dim) == [-1, 0]
    assert [i.node_name for i in parsed.parallel_strategy_item][:1] == ["MatMul-op0"]
    assert [list(s.dim) for s in parsed.parallel_strategy_item[0].parallel_strategys.parallel_strategy] == \
        [[1, 1], [1, 4]]
    # a file protobuf writes (with an optimizer shard) reads back
    written = StrategyMap(current_stage=0)
    item = written.parallel_layout_item.add(param_name="m")
    lay = item.parallel_layouts
    lay.dev_matrix.add().dim.extend([2, 2])
    lay.tensor_map.add().dim.extend([1, -1])
    lay.param_split_shape.add()
    lay.indices_offset.add()
    lay.field, lay.opt_weight_shard_step, lay.opt_weight_shard_size = 0, 1, 2
    (tmp_path / "pb.ckpt").write_bytes(written.SerializeToString())
    rec = ms.build_searched_strategy(str(tmp_path / "pb.ckpt"))["m"]
    assert rec == SF.ParallelLayouts([2, 2], [1, -1], opt_weight_shard_step=1, opt_weight_shard_size=2)


def test_earlier_names_and_top_level_names(saved, tmp_path):
    path, _, whole = saved
    src = str(path / "src_strategy.ckpt")
    assert ms.parallel.rank_list_for_convert(0, src) == ms.rank_list_for_transform(0, src)
    ms.parallel.convert_checkpoints(str(path / "src"), str(tmp_path / "whole"), "w", src)
    np.testing.assert_array_equal(ms.load_checkpoint(str(tmp_path / "whole" / "rank_0" / "w0.ckpt"))["w1"].asnumpy(),
                                  whole["w1"])
    assert ms.Layout is ms.parallel.Layout
