"""The submodules of `mindspore.parallel` that MindSpore 2.10's user code imports: `nn` (Pipeline, PipelineCell,
GradAccumulation, MicroBatchInterleaved, PipelineGradReducer: the values and gradients of `mindseed.nn`'s cells, their
checks under their own names), `function.reshard`, `checkpoint_convert`, `algo_parameter_config` and
`transform_safetensors` (a safetensors checkpoint saved in halves re-cut for another strategy)."""
import io
import os

import numpy as np
import pytest

import mindseed as ms
from _mlp import MLP
from mindseed import Tensor, nn
from mindseed.parallel import algo_parameter_config, checkpoint_convert, function, transform_safetensors
from mindseed.parallel import nn as pnn
from mindseed.parallel._layout import TensorLayout, shard_array
from mindseed.parallel._strategy_file import write_strategy_file
from mindseed.train.serialization import load_checkpoint, save_checkpoint

RNG = np.random.default_rng(2)
X, Y = Tensor(RNG.standard_normal((8, 4))), Tensor(RNG.standard_normal((8, 6)))


def _grads(cell):
    loss, grads = ms.value_and_grad(cell, None, cell.trainable_params())(X, Y)
    return float(loss.asnumpy()), [g.asnumpy() for g in grads]


@pytest.mark.parametrize("wrapper", ["Pipeline", "PipelineCell", "GradAccumulation", "MicroBatchInterleaved"])
def test_the_micro_batch_cells_sum_the_micro_batches(wrapper):
    cell = getattr(pnn, wrapper)(MLP(), 4)
    loss, grads = _grads(cell)
    # the sum over 4 micro-batches of 2 rows of each one's mean squared error
    ref_net = MLP()
    parts = [_grads_of(ref_net, X[2 * i:2 * i + 2], Y[2 * i:2 * i + 2]) for i in range(4)]
    np.testing.assert_allclose(loss, sum(p[0] for p in parts), rtol=0, atol=1e-12)
    for k, g in enumerate(grads):
        np.testing.assert_allclose(g, sum(p[1][k] for p in parts), rtol=0, atol=1e-12)


def _grads_of(net, x, y):
    loss, grads = ms.value_and_grad(net, None, net.trainable_params())(x, y)
    return float(loss.asnumpy()), [g.asnumpy() for g in grads]


def test_the_classes_are_mindspore_s():
    assert issubclass(pnn.Pipeline, pnn.PipelineCell) and pnn.Pipeline is not nn.PipelineCell
    assert issubclass(pnn.PipelineCell, nn.PipelineCell)
    assert pnn.__all__ == ["PipelineGradReducer", "PipelineCell", "Pipeline", "MicroBatchInterleaved",
                           "GradAccumulation"]
    with pytest.raises(TypeError, match="For 'GradAccumulation', the argument 'network' must cell type"):
        pnn.GradAccumulation(lambda x: x, 2)
    with pytest.raises(ValueError, match="For 'GradAccumulation', the argument 'micro_size' must be large than 0, "
                                         "but got 0."):
        pnn.GradAccumulation(MLP(), 0)
    with pytest.raises(TypeError, match="For 'PipelineCell', the argument 'micro_size' must be integer"):
        pnn.Pipeline(MLP(), 2.0)
    with pytest.raises(KeyError, match="For 'PipelineCell', the argument 'stage_config' : \\{'fc': 0\\} is not found"):
        pnn.Pipeline(MLP(), 2, stage_config={"fc": 0})
    with pytest.raises(ValueError, match="For 'MicroBatchInterleaved', the argument 'interleave_num' must be large "
                                         "than 0"):
        pnn.MicroBatchInterleaved(MLP(), 0)


def test_stage_config_sets_the_stages():
    net = nn.SequentialCell([nn.Dense(4, 4), nn.Dense(4, 2)])
    pnn.Pipeline(net, 2, stage_config={"0": 0, "1": 1})
    assert (net[0].pipeline_stage, net[1].pipeline_stage) == (0, 1)


def test_pipeline_grad_reducer_scales_and_zeroes_the_accumulators():
    net = MLP()
    reducer = pnn.PipelineGradReducer(net.trainable_params(), scale_sense=4.0, opt_shard=False)
    reducer.accu_grads[0].set_data(Tensor(np.ones((4, 8))))
    grads = tuple(Tensor(np.full(p.shape, 2.0)) for p in net.trainable_params())
    out = reducer(grads)
    np.testing.assert_array_equal(out[0].asnumpy(), np.full((4, 8), 0.75))
    np.testing.assert_array_equal(out[2].asnumpy(), np.full((8, 6), 0.5))
    assert not reducer.accu_grads[0].asnumpy().any()
    assert isinstance(reducer, nn.PipelineGradReducer)


def test_reshard_is_the_identity_on_one_device():
    layout = ms.parallel.Layout((2, 2), ("dp", "mp"))
    x = Tensor(np.arange(8.0).reshape(4, 2))
    np.testing.assert_array_equal(function.reshard(x, layout("dp", "mp")).asnumpy(), x.asnumpy())
    assert function.__all__ == ["reshard"]


def test_the_renamed_modules_hold_the_functions():
    assert checkpoint_convert.convert_checkpoints is ms.parallel.convert_checkpoints
    assert checkpoint_convert.rank_list_for_convert is ms.parallel.rank_list_for_convert
    algo_parameter_config.set_algo_parameters(tensor_slice_align_size=32)
    try:
        assert ms.parallel.get_algo_parameters("tensor_slice_align_size") == 32
    finally:
        algo_parameter_config.reset_algo_parameters()
    assert ms.parallel.get_algo_parameters("tensor_slice_align_size") == 16


def test_transform_safetensors_by_rank(tmp_path):
    # w1 (4, 8) saved in column halves by 2 ranks; rank 1 of a 4-rank row cut reads its rows 1 of 4
    w1 = RNG.standard_normal((4, 8))
    src = TensorLayout.from_strategy((4, 8), (1, 2), 2)
    dst = TensorLayout.from_strategy((4, 8), (4, 1), 4)
    files = {}
    for rank, piece in enumerate(shard_array(w1, src)):
        files[rank] = str(tmp_path / f"rank_{rank}.safetensors")
        save_checkpoint({"w1": Tensor(np.ascontiguousarray(piece))}, files[rank], format="safetensors")
    src_file, dst_file = str(tmp_path / "src.json"), str(tmp_path / "dst.json")
    write_strategy_file(src_file, {"w1": src})
    write_strategy_file(dst_file, {"w1": dst})
    out = str(tmp_path / "out" / "rank_1.safetensors")
    os.makedirs(os.path.dirname(out))
    transform_safetensors.transform_safetensors_by_rank(1, files, out, src_file, dst_file)
    np.testing.assert_array_equal(load_checkpoint(out, format="safetensors")["w1"].asnumpy(), w1[1:2])
    with pytest.raises(ValueError, match="should end with .safetensors"):
        transform_safetensors.transform_safetensors_by_rank(1, files, str(tmp_path / "a.ckpt"), src_file, dst_file)
    with pytest.raises(TypeError, match="The safetensor_files_map should be a dict."):
        transform_safetensors.transform_safetensors_by_rank(1, [], out, src_file, dst_file)
    with pytest.raises(TypeError, match="The rank_id should be a int."):
        transform_safetensors.transform_safetensors_by_rank("1", files, out, src_file, dst_file)
    with pytest.raises(ValueError, match="not exits"):
        transform_safetensors.transform_safetensors_by_rank(1, {0: str(tmp_path / "no.safetensors")}, out)


def test_data_access_adapters(tmp_path):
    from mindseed.parallel import data_access_adapter as daa
    path = tmp_path / "blob.bin"
    path.write_bytes(b"\x00\x01safetensors")
    adapter = daa.create_data_access_adapter(str(path))
    assert isinstance(adapter, daa.FileDataAccessAdapter) and adapter.data_source[2:] == b"safetensors"
    adapter.close()
    assert path.read_bytes() == b"\x00\x01safetensors"
    stream = io.BytesIO(b"abcdef")
    stream.seek(2)
    adapter = daa.create_data_access_adapter(stream)
    assert isinstance(adapter, daa.IODataAccessAdapter) and adapter.data_source == b"cdef" and stream.tell() == 2
    with pytest.raises(TypeError, match="Unsupported source type: <class 'bytes'>. Expected str or io.BytesIO."):
        daa.create_data_access_adapter(b"abc")


def test_transform_safetensors_by_stage(tmp_path):
    # stage 1 of a pipeline ran w2 (8, 6) in row halves on its 2 ranks (global ranks 2 and 3); re-cut for a stage of
    # 3 ranks cutting its columns
    w2 = RNG.standard_normal((8, 6))
    src = TensorLayout.from_strategy((8, 6), (2, 1), 2)
    dst = TensorLayout.from_strategy((8, 6), (1, 3), 3)
    for local, piece in enumerate(shard_array(w2, src)):
        os.makedirs(tmp_path / "src" / f"rank_{2 + local}")
        save_checkpoint({"w2": Tensor(np.ascontiguousarray(piece))},
                        str(tmp_path / "src" / f"rank_{2 + local}" / "net.safetensors"), format="safetensors")
    src_file, dst_file = str(tmp_path / "src.json"), str(tmp_path / "dst.json")
    write_strategy_file(src_file, {"w2": src}, [("MatMul-op0", ((1, 2), (2, 1)))], stage=1)
    # the destination file also names a parameter of another stage (w1): not this stage's, not written
    write_strategy_file(dst_file, {"w2": dst, "w1": TensorLayout.from_strategy((4, 6), (1, 3), 3)},
                        [("MatMul-op0", ((1, 1), (1, 3)))], stage=1)
    transform_safetensors.transform_safetensors_by_stage(str(tmp_path / "src"), str(tmp_path / "dst"), "net",
                                                         src_file, dst_file)
    for local in range(3):
        got = load_checkpoint(str(tmp_path / "dst" / f"rank_{local}" / f"net{local}_part1.safetensors"),
                              format="safetensors")
        assert sorted(got) == ["w2"]
        np.testing.assert_array_equal(got["w2"].asnumpy(), w2[:, 2 * local:2 * local + 2])
    transform_safetensors.transform_safetensors_by_stage(str(tmp_path / "src"), str(tmp_path / "whole"), "net",
                                                         src_file)
    whole = load_checkpoint(str(tmp_path / "whole" / "rank_0" / "net0_part1.safetensors"), format="safetensors")
    np.testing.assert_array_equal(whole["w2"].asnumpy(), w2)
    empty = str(tmp_path / "empty.json")
    write_strategy_file(empty, {"w2": src})
    with pytest.raises(ValueError, match="if empty"):
        transform_safetensors.transform_safetensors_by_stage(str(tmp_path / "src"), str(tmp_path / "x"), "net", empty)


def test_the_submodules_import_mindspore_binds_are_attributes():
    # MindSpore's `import mindspore` binds these; auto_parallel, distributed and strategy are imported by name
    for name in ("nn", "function", "checkpoint_convert", "transform_safetensors", "algo_parameter_config",
                 "data_access_adapter"):
        assert getattr(ms.parallel, name).__name__ == f"mindseed.parallel.{name}"
        assert name in dir(ms.parallel)
    assert ms.parallel.nn.MicroBatchInterleaved is pnn.MicroBatchInterleaved
    with pytest.raises(AttributeError, match="has no attribute 'pipeline'"):
        ms.parallel.pipeline  # noqa: B018
