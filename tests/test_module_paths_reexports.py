"""MindSpore's re-export paths: nn.metrics, common, train and nn.layer module paths hold the same objects."""
import importlib

import numpy as np

import mindseed as ms
from mindseed import nn


def test_nn_metrics_are_the_train_metrics_and_compute():
    metrics = importlib.import_module("mindseed.nn.metrics")
    for name in metrics.__all__:
        assert getattr(metrics, name) is getattr(ms.train, name), name
    assert nn.metrics is metrics and nn.Accuracy is ms.train.Accuracy
    acc = nn.metrics.Accuracy()
    acc.update(ms.Tensor(np.array([[0.2, 0.8], [0.9, 0.1], [0.3, 0.7]], np.float32)), ms.Tensor(np.array([1, 1, 1])))
    assert abs(acc.eval() - 2 / 3) < 1e-12


def test_common_reexports_the_toplevel_objects():
    from mindseed import common
    for name in ("from_numpy", "is_tensor", "manual_seed", "initial_seed", "get_rng_state", "Generator",
                 "default_generator", "lazy_inline", "no_inline", "recompute", "enable_dynamic", "save_mindir",
                 "load_mindir", "SparseTensor", "Symbol", "DeviceCtx"):
        assert getattr(common, name) is getattr(ms, name), name
    t = common.from_numpy(np.array([1.5, 2.5], np.float32))
    np.testing.assert_array_equal(t.asnumpy(), [1.5, 2.5])
    assert common.is_tensor(t) and not common.is_tensor(np.ones(2))


def test_train_reexports_export_and_distributed_checkpoint_helpers():
    from mindseed import train
    for name in ("export", "load", "export_split_mindir", "build_searched_strategy", "merge_sliced_parameter",
                 "load_distributed_checkpoint", "get_ckpt_path_with_strategy", "restore_group_info_list"):
        assert getattr(train, name) is getattr(ms, name), name
    merged = train.merge_sliced_parameter([ms.Parameter(ms.Tensor(np.array([1., 2.], np.float32)), "w"),
                                           ms.Parameter(ms.Tensor(np.array([3., 4.], np.float32)), "w")])
    np.testing.assert_array_equal(merged.asnumpy(), [1., 2., 3., 4.])


def test_nn_layer_module_paths():
    assert importlib.import_module("mindseed.nn.layer.dense").BiDense is nn.BiDense
    assert importlib.import_module("mindseed.nn.layer.channel_shuffle").ChannelShuffle is nn.ChannelShuffle
    assert importlib.import_module("mindseed.nn.layer.timedistributed").TimeDistributed is nn.TimeDistributed
    assert importlib.import_module("mindseed.nn.wrap").TimeDistributed is nn.TimeDistributed
    cs = nn.ChannelShuffle(2)
    x = ms.Tensor(np.arange(4, dtype=np.float32).reshape(1, 4, 1, 1))
    np.testing.assert_array_equal(cs(x).asnumpy().ravel(), [0., 2., 1., 3.])


def test_context_ps_context_and_optim_adasum_paths():
    from mindseed import context
    assert context.set_ps_context is ms.set_ps_context and context.get_ps_context is ms.get_ps_context
    assert context.get_ps_context("enable_ps") is False
    adasum = importlib.import_module("mindseed.nn.optim.adasum")
    assert adasum.AdaSumByGradWrapCell is nn.AdaSumByGradWrapCell is nn.optim.AdaSumByGradWrapCell
    assert adasum.AdaSumByDeltaWeightWrapCell is nn.AdaSumByDeltaWeightWrapCell


def test_ops_function_submodules_hold_the_ops_functions():
    from mindseed import ops
    from mindseed.ops.function.array_func import unsorted_segment_sum
    from mindseed.ops.function.comm_func import all_reduce, get_rank
    from mindseed.ops.function.debug_func import print_  # noqa: F401
    from mindseed.ops.function.math_func import cdist
    from mindseed.ops.function.vmap_func import vmap
    assert all_reduce is ops.all_reduce and get_rank is ops.get_rank and vmap is ops.vmap is ms.vmap
    assert importlib.import_module("mindseed.ops.function.clip_func").clamp is ops.clamp
    assert importlib.import_module("mindseed.ops.function.spectral_func").__all__
    x = ms.Tensor(np.array([[0., 0.], [3., 4.]], np.float32))
    np.testing.assert_allclose(cdist(x, x).asnumpy(), [[0., 5.], [5., 0.]], atol=1e-6)
    s = unsorted_segment_sum(ms.Tensor(np.array([1., 2., 3.], np.float32)), ms.Tensor(np.array([0, 1, 0])), 2)
    np.testing.assert_array_equal(s.asnumpy(), [4., 2.])


def test_mint_nn_layer_module_paths():
    from mindseed.mint import nn as mnn
    for name in ("activation", "basic", "conv", "normalization", "padding", "pooling"):
        module = importlib.import_module(f"mindseed.mint.nn.layer.{name}")
        for cls in module.__all__:
            assert getattr(module, cls) is getattr(mnn, cls), (name, cls)
    from mindseed.mint.nn.layer.padding import ZeroPad1d
    np.testing.assert_array_equal(ZeroPad1d((1, 2))(ms.Tensor(np.array([[1., 2.]], np.float32))).asnumpy(),
                                  [[0., 1., 2., 0., 0.]])


def test_operations_layout_modules_hold_what_mindspores_import_or_define():
    from mindseed.ops.operations import array_ops, debug_ops, image_ops, math_ops, nn_ops, other_ops, sparse_ops
    assert array_ops.ExtractVolumePatches is ms.ops.ExtractVolumePatches and "ExtractVolumePatches" in array_ops.__all__
    assert array_ops.CumSum is ms.ops.CumSum and array_ops.Tensor is ms.Tensor and array_ops.COOTensor is ms.COOTensor
    assert nn_ops.GetNext is ms.ops.GetNext and nn_ops.RNNTLoss is ms.ops.RNNTLoss
    assert nn_ops.Dilation2D is ms.ops.Dilation2D
    assert image_ops.ExtractGlimpse is ms.ops.ExtractGlimpse and math_ops.Bernoulli is ms.ops.Bernoulli
    assert other_ops.UpdateState is ms.ops.operations.UpdateState and debug_ops.Parameter is ms.Parameter
    for mod in (array_ops, nn_ops, sparse_ops, other_ops):
        assert mod.Primitive is ms.ops.Primitive
    assert nn_ops.PrimitiveWithInfer is ms.ops.PrimitiveWithInfer
    x = ms.Tensor(np.arange(27, dtype=np.float32).reshape(1, 1, 3, 3, 3))
    out = array_ops.ExtractVolumePatches([1, 1, 2, 2, 2], [1, 1, 1, 1, 1], "VALID")(x)
    assert out.shape == (1, 8, 2, 2, 2)
    np.testing.assert_array_equal(out.asnumpy()[0, :, 0, 0, 0], [0, 1, 3, 4, 9, 10, 12, 13])


def test_math_func_ext_norms_are_the_mint_norms():
    from mindseed.ops.function.math_func import matrix_norm_ext, norm_ext, vector_norm_ext
    assert norm_ext is ms.mint.norm and vector_norm_ext is ms.mint.linalg.vector_norm
    assert matrix_norm_ext is ms.mint.linalg.matrix_norm
    x = ms.Tensor(np.array([[3.0, 4.0], [0.0, 12.0]], np.float32))
    np.testing.assert_allclose(norm_ext(x).asnumpy(), 13.0)
    np.testing.assert_allclose(norm_ext(x, 1).asnumpy(), 19.0)
