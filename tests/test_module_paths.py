"""MindSpore's module layout: the paths real code imports from hold the same objects as the flat namespaces."""
import importlib
import subprocess
import sys

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops

LAYOUT_OPERATIONS = ["array_ops", "math_ops", "nn_ops", "random_ops", "linalg_ops", "image_ops", "inner_ops",
                     "other_ops", "debug_ops", "custom_ops", "comm_ops"]
FUNCTION_MODULES = ["array_func", "math_func", "nn_func", "random_func", "linalg_func", "clip_func", "other_func",
                    "fft_func"]


def test_autodiff_names_in_functional_function_and_composite():
    from mindseed.ops.composite import GradOperation, HyperMap, Map, MultitypeFuncGraph
    from mindseed.ops.function.grad.grad_func import custom_vjp, jvp as gf_jvp
    from mindseed.ops.functional import derivative, get_grad, grad, jet, jvp, linearize, value_and_grad, vjp, vmap
    assert GradOperation is ops.GradOperation and HyperMap is ops.HyperMap and Map is ops.Map
    assert MultitypeFuncGraph is ops.MultitypeFuncGraph
    assert vmap is ops.vmap is ms.vmap and grad is ops.grad is ms.grad and vjp is ms.vjp and jvp is ms.jvp is gf_jvp
    assert value_and_grad is ms.value_and_grad and get_grad is ms.get_grad
    assert linearize is ops.linearize and jet is ops.jet and derivative is ops.derivative
    # as in MindSpore, ops.function.grad is the function; the subpackage of that name is reached by import
    assert ops.function.vmap is vmap and ops.function.grad is grad
    assert importlib.import_module("mindseed.ops.function.grad").vmap is vmap
    assert custom_vjp is importlib.import_module("mindseed.ops.function.grad").custom_vjp


def test_composite_functions_are_the_ops_functions():
    from mindseed.ops import composite as C
    for name in C.__all__:
        assert getattr(C, name) is getattr(ops, name), name


def test_common_and_common_api_hold_the_compiler_entry_points():
    from mindseed.common import JitConfig, jit, jit_class, mutable
    from mindseed.common.api import jit as api_jit, jit_class as api_jit_class
    assert jit is api_jit is ms.jit and jit_class is api_jit_class is ms.jit_class
    assert mutable is ms.mutable and JitConfig is ms.JitConfig


@pytest.mark.parametrize("module", LAYOUT_OPERATIONS)
def test_operations_layout_modules_hold_the_same_classes(module):
    mod = importlib.import_module(f"mindseed.ops.operations.{module}")
    assert mod.__all__, module
    for name in mod.__all__:
        cls = getattr(mod, name)
        if not hasattr(ops.operations, name):
            # a primitive MindSpore keeps in the layout module only (math_ops.AddV2, linalg_ops.Eigh, ...)
            assert cls.__module__ == mod.__name__ and not hasattr(ops, name), (module, name)
            continue
        assert cls is getattr(ops.operations, name) is getattr(ops, name), (module, name)


def test_each_primitive_class_is_in_at_most_one_layout_module():
    seen = {}
    for module in LAYOUT_OPERATIONS:
        for name in importlib.import_module(f"mindseed.ops.operations.{module}").__all__:
            assert name not in seen, f"{name} in {seen.get(name)} and {module}"
            seen[name] = module
    # where MindSpore puts a few of them
    assert seen["Conv2D"] == "nn_ops" and seen["Stack"] == "array_ops" and seen["Lerp"] == "math_ops"
    assert seen["StandardNormal"] == seen["TruncatedNormal"] == "random_ops"
    assert seen["Assign"] == "other_ops" and seen["Svd"] == "linalg_ops"


@pytest.mark.parametrize("module", FUNCTION_MODULES)
def test_function_layout_modules_hold_the_same_functions(module):
    mod = importlib.import_module(f"mindseed.ops.function.{module}")
    assert mod.__all__, module
    not_in_ops = set()
    for name in mod.__all__:
        assert getattr(mod, name) is getattr(ops.function, name), (module, name)
        if hasattr(ops, name):
            assert getattr(mod, name) is getattr(ops, name), (module, name)
        else:
            not_in_ops.add(name)
    assert not_in_ops <= {"new_zeros", "new_ones"}  # MindSpore has these in array_func only


def test_array_func_new_zeros_and_new_ones():
    from mindseed.ops.function.array_func import new_ones, new_zeros
    x = ms.Tensor([1.0, 2.0])
    z = new_zeros(x, (2, 3))
    assert z.shape == (2, 3) and z.dtype == ms.float32 and not z.asnumpy().any()
    o = new_ones(x, 4, ms.int32)
    assert o.dtype == ms.int32 and o.asnumpy().tolist() == [1, 1, 1, 1]
    assert new_zeros(x, 0).shape == (0,)


def test_array_func_max_ext_and_min_ext():
    from mindseed.ops.function.array_func import max_ext, min_ext
    a = np.array([[1.0, 20.0, 5.0], [67.0, 8.0, 9.0]], np.float32)
    x = ms.Tensor(a)
    values, index = min_ext(x, 1)
    np.testing.assert_array_equal(values.asnumpy(), a.min(1))
    np.testing.assert_array_equal(index.asnumpy(), a.argmin(1))
    values, index = max_ext(x, 0, True)
    np.testing.assert_array_equal(values.asnumpy(), a.max(0, keepdims=True))
    np.testing.assert_array_equal(index.asnumpy(), a.argmax(0)[None])
    assert max_ext(x).item() == 67.0 and min_ext(x).item() == 1.0
    grad = ms.grad(lambda t: min_ext(t, 1)[0].sum())(x)
    np.testing.assert_array_equal(grad.asnumpy(), (a == a.min(1, keepdims=True)).astype(np.float32))
    with pytest.raises(ValueError, match="keepdim"):
        min_ext(x, None, True)


def test_function_math_func_carries_functional_as_F():
    from mindseed.ops.function.math_func import F
    assert F is ops.functional
    assert ops.function.array_func.reshape is ops.reshape and ops.function.nn_func.conv2d is ops.conv2d
    assert ops.function.math_func.sin is ops.sin and ops.function.fft_func.rfft is ops.rfft  # generated rows


def test_auto_generate_holds_primitive_classes_and_functions():
    from mindseed.ops.auto_generate import gen_ops_def, gen_ops_prim
    from mindseed.ops.auto_generate.gen_ops_def import Reciprocal, reciprocal
    assert Reciprocal is ops.Reciprocal and reciprocal is ops.reciprocal
    assert gen_ops_prim.Conv2D is ops.Conv2D and gen_ops_def.Conv2D is ops.Conv2D
    # the attribute-less classes made by one factory too
    assert gen_ops_prim.Add is ops.Add and gen_ops_prim.Neg is ops.Neg and gen_ops_prim.MaximumGradGrad
    assert ops.auto_generate.broadcast_to is ops.broadcast_to
    for name in gen_ops_prim.__all__:
        cls = getattr(gen_ops_prim, name)
        assert isinstance(cls, type) and issubclass(cls, ops.Primitive), name
    assert "Primitive" not in gen_ops_prim.__all__ and "HyperMap" not in gen_ops_prim.__all__


def test_primitive_module():
    from mindseed.ops.primitive import Primitive, PrimitiveWithInfer, constexpr, prim_attr_register
    assert Primitive is ops.Primitive and PrimitiveWithInfer is ops.PrimitiveWithInfer
    assert constexpr is ops.constexpr and prim_attr_register is ops.prim_attr_register


def test_manually_defined():
    from mindseed.ops.operations.manually_defined import Cast, Rank, rank
    assert rank is ops.rank and Rank is ops.Rank and Cast is ops.Cast
    assert ops.operations.manually_defined.rank(ms.Tensor([[1.0, 2.0]])) == 2


def test_nn_grad_cells():
    from mindseed.nn.grad import Jvp, Vjp
    assert Jvp is nn.Jvp and Vjp is nn.Vjp


def test_compat_maps_the_new_modules_to_the_same_objects():
    code = (
        "import mindseed.compat as c; c.install()\n"
        "import mindspore.ops.composite as C, mindspore.ops.operations.nn_ops as N\n"
        "from mindspore.ops.function.array_func import reshape\n"
        "from mindspore.ops.auto_generate.gen_ops_prim import Add\n"
        "from mindspore.common.api import jit\n"
        "from mindspore.nn.grad import Jvp\n"
        "from mindspore.ops.functional import vmap\n"
        "import mindseed as ms\n"
        "assert C is ms.ops.composite and N is ms.ops.operations.nn_ops and reshape is ms.ops.reshape\n"
        "assert Add is ms.ops.Add and jit is ms.jit and Jvp is ms.nn.Jvp and vmap is ms.vmap\n"
        "print('ok')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip().endswith("ok")


def test_mutable_module_monads_and_compile_config():
    """`from mindspore.common.mutable import mutable` (the module; `common.mutable` stays the function), the state
    tokens of common._monad, and _extends.parse.compile_config's switches with MindSpore's defaults."""
    from mindseed._extends.parse import compile_config
    from mindseed.common import _monad
    from mindseed.common.mutable import mutable
    assert mutable is ms.mutable is ms.common.mutable
    assert repr(_monad.U) == "U" and repr(_monad.IO) == "IO"
    assert ops.depend(ms.Tensor(3), _monad.U).asnumpy() == 3
    assert compile_config.FALLBACK_SUPPORT_LIST_DICT_INPLACE == "" and compile_config.GRAD_JIT_FILTER == "1"
    saved, compile_config.CHECK_BPROP = compile_config.CHECK_BPROP, 1
    assert importlib.import_module("mindseed._extends.parse.compile_config").CHECK_BPROP == 1
    compile_config.CHECK_BPROP = saved


def test_composite_base_security_inner_checks_and_scopes():
    """ops.composite.base's names, _c_expression.security, _inner_ops' SameTypeShape/IsInstance (MindSpore's
    answers), Cell scopes from generate_scope and recompute."""
    from mindseed._c_expression import security
    from mindseed.ops.composite import base
    from mindseed.ops.operations import _inner_ops as inner
    assert base.GradOperation is ops.GradOperation and base.HyperMap is ops.HyperMap
    assert security.enable_security() is False
    check = inner.IsInstance()
    cases = [(1.0, ms.float32), (1.0, ms.float64), (1, ms.int32), (1, ms.int64), (True, ms.bool_), (True, ms.int64),
             ([1], ms.tuple_), ([1], ms.list_), (ms.Tensor([1.0]), ms.tensor_type), (ms.Tensor([1.0]), ms.float32)]
    assert [check(v, t) for v, t in cases] == [True, False, False, True, True, False, False, True, True, False]
    x = ms.Tensor([1.0])
    assert inner.SameTypeShape()(x, ms.Tensor([2.0])) is x
    with pytest.raises(TypeError, match="SameTypeShape"):
        inner.SameTypeShape()(x, ms.Tensor([2]))
    with pytest.raises(ValueError, match="SameTypeShape"):
        inner.SameTypeShape()(x, ms.Tensor([2.0, 3.0]))

    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 3)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.pool = nn.MaxPool2d(2)
    net = Net()
    net.pool.recompute()
    assert net.pool.get_scope() == "recompute_"
    net.generate_scope()
    assert (net.get_scope(), net.block.get_scope(), net.block.conv.get_scope(), net.pool.get_scope()) == (
        None, "Default/block-Block", "Default/block-Block/conv-Conv2d", "recompute_Default/pool-MaxPool2d")
    with pytest.raises(ValueError, match="keyword 'bad' is not recognized"):
        net.recompute(bad=1)


def test_constexpr_at_the_top_level():
    assert ms.constexpr is ops.constexpr


def test_device_manager_module_holds_the_top_level_functions():
    import mindseed as ms
    from mindseed import device_manager
    assert device_manager.set_device is ms.set_device
    assert device_manager.get_current_device is ms.get_current_device
    assert device_manager.set_deterministic is ms.set_deterministic
    assert sorted(device_manager.__all__) == ["get_current_device", "set_deterministic", "set_device"]


def test_common_recompute_module_and_function():
    import sys

    import mindseed as ms
    import mindseed.common.recompute  # noqa: F401
    assert sys.modules["mindseed.common.recompute"].recompute is ms.recompute
    assert ms.common.recompute is ms.recompute        # the package attribute stays the function, as MindSpore's


def test_clip_func_multitype_functions_and_loss_scale_manager_module():
    from mindseed.amp import DynamicLossScaleManager, FixedLossScaleManager
    from mindseed.ops.function.clip_func import apply_global_norm, get_square_sum
    from mindseed.train import loss_scale_manager as lsm
    assert lsm.FixedLossScaleManager is FixedLossScaleManager and lsm.DynamicLossScaleManager is DynamicLossScaleManager
    xs = (ms.Tensor(np.array([3.0, 4.0], np.float32)), ms.Tensor(np.array([[1.0, 2.0]], np.float16)))
    sums = ops.HyperMap()(get_square_sum, xs)
    assert [(s.shape, s.dtype) for s in sums] == [((1,), ms.float32), ((1,), ms.float32)]
    np.testing.assert_array_equal(np.concatenate([s.asnumpy() for s in sums]), [25.0, 5.0])
    scaled = ops.HyperMap()(ops.partial(apply_global_norm, ms.Tensor(1.0), ms.Tensor(2.0)), xs)
    assert scaled[1].dtype == ms.float16
    np.testing.assert_array_equal(scaled[0].asnumpy(), [1.5, 2.0])
    np.testing.assert_array_equal(scaled[1].asnumpy(), [[0.5, 1.0]])


def test_relu_layer_holds_its_primitive():
    relu = nn.ReLU()
    assert isinstance(relu.relu, ops.ReLU) and relu.relu is relu.relu
    np.testing.assert_array_equal(relu.relu(ms.Tensor([-1.0, 2.0])).asnumpy(), [0.0, 2.0])


def test_dataset_core_config_is_dataset_config():
    import mindseed.dataset as ds
    import mindseed.dataset.core.config as core_config
    from mindseed.dataset.core import config
    assert core_config is ds.config and config is ds.config
    assert callable(core_config.set_seed) and callable(core_config.get_prefetch_size)


def test_function_package_reexports_its_modules_and_functional_its_imports():
    # `from mindspore.ops.function import hann_window` and the names MindSpore's ops.functional imports
    from mindseed.ops.function import bartlett_window, fft, hardswish, mish, reshard, stop_gradient_, tensordump
    assert hardswish is ops.hardswish and mish is ops.mish and fft is ops.fft and reshard is ops.reshard
    assert bartlett_window is ops.bartlett_window and tensordump is ops.tensordump
    assert stop_gradient_ is ops.stop_gradient_ is importlib.import_module("mindseed.ops.function.grad").stop_gradient_
    assert ops.function.math_func.ifft2 is ops.ifft2
    # comm_func's gather/scatter are the collectives (tensor, gather_list, dst), not the indexing ops
    from mindseed.ops.function.comm_func import gather, scatter
    assert gather is not ops.gather and gather is ops.communication.gather and scatter is ops.communication.scatter
    F = ops.functional
    assert F.P is ops.operations and F.array_ops is ops.operations.array_ops and F.Roll is ops.operations.Roll
    assert F.UniqueConsecutive is ops.UniqueConsecutive and F.auto_generate is ops.auto_generate
    assert type(F.merge).__name__ == "Merge" and type(F.geswitch).__name__ == "GeSwitch"
