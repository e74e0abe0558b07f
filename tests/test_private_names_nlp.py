"""MindSpore private and internal names mindnlp 0.4.1 (written for MindSpore 2.3-2.5) uses, with MindSpore's
behaviour (values checked against MindSpore 2.10 on CPU where it still has them)."""
import json
import os

import numpy as np
import pytest

import mindseed as ms
from mindseed import ops


def test_stub_tensor_is_the_empty_class_no_op_returns():
    import mindseed.common
    from mindseed.common._stub_tensor import StubTensor
    assert mindseed.common._stub_tensor.StubTensor is StubTensor
    assert not isinstance(ops.add(ms.Tensor([1.0]), 1.0), StubTensor)


def test_get_cache_prim_makes_one_instance_per_arguments():
    from mindseed.ops._primitive_cache import _get_cache_prim
    a = _get_cache_prim(ops.ReduceSum)(True)
    assert _get_cache_prim(ops.ReduceSum)(True) is a and _get_cache_prim(ops.ReduceSum)(False) is not a
    assert _get_cache_prim(ops.ReduceSum)(keep_dims=True) is not a      # keyed by how the arguments were given
    np.testing.assert_array_equal(a(ms.Tensor([[1.0, 2.0]]), 1).asnumpy(), [[3.0]])


def test_graph_seed_pairs_advance_per_kernel_and_restart_with_set_seed():
    from mindseed.common.seed import _get_graph_seed
    from mindseed.ops.function.random_func import _get_seed
    ms.set_seed(5)
    assert _get_graph_seed(None, "nlp_test") == (5, 0)
    # values of MindSpore 2.10: the op seed steps by 3528531795 ^ 3449720151 at each call, modulo 2**31 - 1
    assert [_get_seed(3, "nlp_test") for _ in range(2)] == [(5, 3), (5, 533697031)]
    ms.set_seed(5)
    assert _get_seed(3, "nlp_test") == (5, 3)
    ms.set_seed(0)
    assert _get_seed(3, "nlp_test") == (87654321, 3)
    with pytest.raises(ValueError, match="nlp_test"):
        _get_seed(-1, "nlp_test")


def test_set_prim_op_user_data_sets_an_attribute():
    from mindseed.ops.function.random_func import _set_prim_op_user_data
    prim = ops.Dropout(keep_prob=0.5)
    assert _set_prim_op_user_data(prim, "random_cache", False) is prim and prim.attrs["random_cache"] is False


def test_strided_slice_grad_places_dy_where_the_slice_reads():
    from mindseed.ops.operations._grad_ops import StridedSliceGrad
    dy = ms.Tensor(np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    # MindSpore 2.10's values
    np.testing.assert_array_equal(StridedSliceGrad()(dy, (4, 5), (0, 4), (4, 1), (2, -1)).asnumpy(),
                                  [[0, 0, 3, 2, 1], [0] * 5, [0, 0, 6, 5, 4], [0] * 5])
    out = StridedSliceGrad(shrink_axis_mask=1)(ms.Tensor(np.array([1, 2], np.int32)), (3, 2), (1, 0), (2, 2), (1, 1))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [[0, 0], [1, 2], [0, 0]])
    # it is the gradient of StridedSlice with the same masks
    x = ms.Tensor(np.zeros((3, 4, 5), np.float32))
    args = ((0, 1, 0), (3, 4, 5), (2, 2, -2)), dict(begin_mask=1, end_mask=4, ellipsis_mask=0, new_axis_mask=0,
                                                    shrink_axis_mask=0)
    sliced, vjp_fn = ms.vjp(lambda t: ops.strided_slice(t, *args[0], **args[1]), x)
    dy = ms.Tensor(np.random.default_rng(0).random(sliced.shape).astype(np.float32))
    np.testing.assert_array_equal(StridedSliceGrad(1, 4, 0, 0, 0)(dy, x.shape, *args[0]).asnumpy(),
                                  vjp_fn(dy)[0].asnumpy())
    with pytest.raises(ValueError, match="StridedSliceGrad.*shape"):
        StridedSliceGrad()(dy, (4, 5), (0, 4), (4, 0), (2, -1))


def _weights():
    return [ms.Parameter(ms.Tensor(np.array([1.0, -2.0, 3.0], np.float32)), name="w"),
            ms.Parameter(ms.Tensor(np.array([0.5], np.float32)), name="b")]


def test_executor_top_cell_protocol_differentiates_the_recorded_forward():
    from mindseed.common.api import _pynative_executor as ex
    w, b = _weights()
    calls = []

    def fn(x):
        calls.append(1)
        noise = ops.uniform((3,), ms.Tensor(0.0), ms.Tensor(1.0))       # drawn once: the gradient is the draw's
        return (x * w * noise).sum() + b * b, noise

    x = ms.Tensor(np.array([2.0, 3.0, 4.0], np.float32))
    ex.set_grad_flag(True)
    ex.new_graph(fn, x)
    loss, noise = fn(x)
    ex.end_graph(fn, loss, x)
    gw, gb = ex.grad(fn, ops.GradOperation(get_by_list=True), (w, b), None, x)
    assert len(calls) == 1
    np.testing.assert_allclose(gw.asnumpy(), x.asnumpy() * noise.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), [1.0])
    # inputs and weights, a sensitivity as the last argument; a wrapper of the function (as has_aux wrappers are)
    # finds the newest recorded forward
    ex.new_graph(fn, x)
    loss, noise = fn(x)
    ex.end_graph(fn, loss, x)
    (gx,), gw = ex.grad(lambda t: fn(t)[0], ops.GradOperation(get_all=True, get_by_list=True, sens_param=True),
                        [w], None, x, ms.Tensor(np.array([2.0], np.float32)))
    assert len(calls) == 2
    np.testing.assert_allclose(gx.asnumpy(), 2 * w.asnumpy() * noise.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(gw[0].asnumpy(), 2 * x.asnumpy() * noise.asnumpy(), rtol=1e-6)
    ex.set_grad_flag(False)


def test_executor_grad_without_a_recorded_forward_runs_it():
    from mindseed.common.api import _pynative_executor as ex
    w, _ = _weights()
    x = ms.Tensor(np.array([2.0, 3.0, 4.0], np.float32))
    gx = ex.grad(lambda t: (t * t * w).sum(), ops.GradOperation(), None, None, x)
    np.testing.assert_allclose(gx.asnumpy(), 2 * x.asnumpy() * w.asnumpy())


def test_tensor_grad_attribute():
    t, p = ms.Tensor([1.0]), _weights()[0]
    assert t.grad is None and p.grad is None
    t.grad = ms.Tensor([2.0])
    p.grad = ms.Tensor([3.0, 3.0, 3.0])
    assert float(t.grad.asnumpy()[0]) == 2.0 and ms.Tensor([1.0]).grad is None
    np.testing.assert_array_equal(p.grad.asnumpy(), [3.0, 3.0, 3.0])
    p.grad = None
    assert p.grad is None


def test_c_expression_param_info_tensor_py_and_pyboost_empty():
    from mindseed._c_expression import ParamInfo, TensorPy, pyboost_empty
    info = ParamInfo()
    assert (info.name, info.requires_grad, info.layerwise_parallel, info.parallel_optimizer) == ("Parameter", True,
                                                                                                 False, True)
    info.parameter_shape = (2, 3)
    assert info.clone().name == "Parameter"
    assert isinstance(ms.Tensor([1]), TensorPy) and isinstance(TensorPy(np.ones(2, np.float32)), ms.Tensor)
    e = pyboost_empty([(2, 3), ms.float16, None])
    assert e.shape == (2, 3) and e.dtype == ms.float16
    with pytest.raises(RuntimeError, match="pyboost_empty"):
        pyboost_empty(None, [(2, 3), ms.float16, None, False])


def test_framework_profiler_steps_are_ranges_of_a_recording_profiler(tmp_path):
    from mindseed._c_expression import _framework_profiler_step_end, _framework_profiler_step_start
    from mindseed.profiler import profile, tensorboard_trace_handler
    _framework_profiler_step_start()        # no profiler: nothing is recorded
    _framework_profiler_step_end()
    with profile(on_trace_ready=tensorboard_trace_handler(str(tmp_path))):
        _framework_profiler_step_start()
        ops.relu(ms.Tensor([1.0, -1.0]))
        _framework_profiler_step_end()
    traces = [os.path.join(d, f) for d, _, fs in os.walk(tmp_path) for f in fs if f == "trace_view.json"]
    with open(traces[0], encoding="utf-8") as f:
        steps = [e for e in json.load(f) if e["name"] == "ProfilerStep"]
    assert len(steps) == 1 and steps[0]["dur"] > 0


def test_exec_save_and_parse_ckpt_proto_round_trip(tmp_path):
    from mindseed.train.serialization import _exec_save, _parse_ckpt_proto
    path = str(tmp_path / "m.ckpt")
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    _exec_save(path, {"w": [[2, 3], "Float32", w.reshape(-1)], "n": [[0], "Int64", np.array([7], np.int64)]})
    loaded = ms.load_checkpoint(path)
    np.testing.assert_array_equal(loaded["w"].asnumpy(), w)
    parsed = _parse_ckpt_proto(path, None, None, None)
    assert [(v.tag, list(v.tensor.dims), v.tensor.tensor_type) for v in parsed.value] == [
        ("w", [2, 3], "Float32"), ("n", [0], "Int64")]
    np.testing.assert_array_equal(np.frombuffer(parsed.value[0].tensor.tensor_content, np.float32), w.reshape(-1))
    with pytest.raises(ValueError, match="element|holds|size|bytes"):
        _exec_save(path, {"w": [[2, 4], "Float32", w.reshape(-1)]})
    with pytest.raises(ValueError, match="enc_key"):
        _exec_save(path, {"w": [[2, 3], "Float32", w.reshape(-1)]}, enc_key=b"0" * 16)
    # a dtype's repr as the type name (code that aliases str(dtype) to repr, as mindnlp's patch module does): written
    # and read back as given, as MindSpore does (mindnlp's reader looks "mindspore.float32" up), with its size checked
    _exec_save(path, {"w": [[2, 3], repr(ms.float32), w.reshape(-1)],
                      "m": [[2], repr(ms.bool_), np.array([1, 0], bool)]})
    parsed = _parse_ckpt_proto(path, None, None, None).value
    assert [v.tensor.tensor_type for v in parsed] == ["mindspore.float32", "mindspore.bool"]
    np.testing.assert_array_equal(np.frombuffer(parsed[0].tensor.tensor_content, np.float32), w.reshape(-1))
    loaded = ms.load_checkpoint(path)      # mindnlp's PEFT adapters are read back so
    assert loaded["w"].dtype == ms.float32 and loaded["m"].dtype == ms.bool_
    np.testing.assert_array_equal(loaded["w"].asnumpy(), w)
    np.testing.assert_array_equal(loaded["m"].asnumpy(), [True, False])
    with pytest.raises(ValueError, match="element|holds|size|bytes"):
        _exec_save(path, {"w": [[2, 4], repr(ms.float32), w.reshape(-1)]})
    with pytest.raises(TypeError, match="the type of 'w' must be one of"):
        _exec_save(path, {"w": [[2, 3], "mindspore.nosuchtype", w.reshape(-1)]})


def test_initializer_random_helpers_and_implementation_enum():
    from mindseed.common.initializer import _init_random_normal, _init_random_uniform
    from mindseed.dataset.text.transforms import Implementation
    ms.set_seed(3)
    u = _init_random_uniform(-0.5, 0.5, (100,))
    ms.set_seed(3)
    np.testing.assert_array_equal(_init_random_uniform(-0.5, 0.5, (100,)), u)
    assert u.dtype == np.float32 and u.min() >= -0.5 and u.max() < 0.5 and u.std() > 0.2
    assert _init_random_normal(0.0, 2.0, (2, 3)).shape == (2, 3)
    with pytest.raises(ValueError, match="sigma"):
        _init_random_normal(0.0, -1.0, (2,))
    assert (int(Implementation.C), int(Implementation.PY)) == (0, 1)


def test_executor_keeps_a_bounded_number_of_recorded_forwards():
    from mindseed.autograd import _top_cell
    from mindseed.common.api import _pynative_executor as ex
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    ex.set_grad_flag(True)
    fns = [lambda t, k=k: (t * k).sum() for k in range(1, 21)]
    for fn in fns:                   # recorded, never differentiated
        ex.new_graph(fn, x)
        ex.end_graph(fn, fn(x), x)
    ex.set_grad_flag(False)
    assert len(_top_cell._finished) == _top_cell._KEEP
    np.testing.assert_allclose(ex.grad(fns[-1], ops.GradOperation(), None, None, x).asnumpy(), [20.0, 20.0])
    _top_cell._finished.clear()
