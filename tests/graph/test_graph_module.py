"""mindspore.graph: op wrappers and custom inferences change what a compiled graph runs for a primitive's class-API
call; the plugin registrations check their arguments as MindSpore does; the modules re-export the compilation API."""
import importlib
import os

import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, graph, ops


@pytest.fixture
def clean_registry():
    yield
    graph.clear_op_wrapper()
    graph.clear_op_infer()


def test_op_wrapper_replaces_the_primitive_in_graphs_only(clean_registry):
    @graph.register_op_wrapper("Mul")
    def mul_plus_y(x, y):
        def func(x, y):
            return ops.Mul()(x, y) + y      # the wrapper's own call of Mul is the primitive
        return func

    @ms.jit
    def f(x, y):
        return ops.Mul()(x, y), x * y

    x, y = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([3.0, 5.0], np.float32))
    wrapped, operator = f(x, y)
    np.testing.assert_allclose(wrapped.asnumpy(), [6.0, 15.0])
    np.testing.assert_allclose(operator.asnumpy(), [3.0, 10.0])       # `*` is not the class API's Mul
    np.testing.assert_allclose(ops.Mul()(x, y).asnumpy(), [3.0, 10.0])  # PyNative runs the primitive
    with pytest.raises(RuntimeError, match="Registering op wrapper for op: Mul multiple times"):
        graph.register_op_wrapper("Mul")(mul_plus_y)
    for bad in ("", " ", 3):
        with pytest.raises(ValueError, match="op_name must be a non-empty string"):
            graph.register_op_wrapper(bad)


def test_op_infer_result_is_an_attribute_of_the_output_for_later_inferences(clean_registry):
    seen = []
    graph.register_op_infer("Sub", "layout")(lambda x, y: x.shape + y.shape)
    graph.register_op_infer("Neg", "layout")(lambda x: seen.append(x.layout))

    @ms.jit
    def f(x, y):
        return ops.Neg()(ops.Sub()(x, y))

    x = Tensor(np.ones((2, 3), np.float32))
    np.testing.assert_allclose(f(x, x * 3).asnumpy(), np.full((2, 3), 2.0))
    assert seen == [(2, 3, 2, 3)]
    with pytest.raises(RuntimeError, match="Registering function: layout for op: Sub multiple times"):
        graph.register_op_infer("Sub", "layout")(lambda x, y: None)
    with pytest.raises(ValueError, match="infer_name must be a non-empty string"):
        graph.register_op_infer("Sub", "")


def test_plugin_registrations_check_arguments_and_report_no_plugin(tmp_path):
    assert str(graph.CustomPassType.PATTERN) == "CustomPassType.PATTERN"
    assert graph.register_custom_pass("p", "/no/such/plugin.so", pass_type=graph.CustomPassType.FULL_GRAPH) is False
    with pytest.raises(TypeError, match="pass_type must be of type CustomPassType, got int"):
        graph.register_custom_pass("p", "/no/such/plugin.so", pass_type=1)
    with pytest.raises(ValueError, match="must be an absolute path"):
        graph.register_custom_backend("b", "relative.so")
    with pytest.raises(ValueError, match="does not exist or permission denied"):
        graph.register_custom_backend("b", "/no/such/backend.so")
    not_so = tmp_path / "backend.txt"
    not_so.write_text("x")
    with pytest.raises(ValueError, match="is not a shared library"):
        graph.register_custom_backend("b", os.fspath(not_so))


def test_graph_and_common_modules_of_the_compilation_api():
    assert importlib.import_module("mindseed.graph.jit_config").JitConfig is ms.JitConfig
    assert importlib.import_module("mindseed.graph.mutable").mutable is ms.mutable
    assert importlib.import_module("mindseed.graph.api").jit is ms.jit
    assert importlib.import_module("mindseed.graph.symbol").Symbol is ms.Symbol
    assert importlib.import_module("mindseed.common.jit_config").JitConfig is ms.JitConfig
    assert importlib.import_module("mindseed.common.lazy_inline").lazy_inline is ms.lazy_inline
    assert importlib.import_module("mindseed.common.no_inline").no_inline is ms.no_inline
