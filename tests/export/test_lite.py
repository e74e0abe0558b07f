"""The Lite runtime's Python API (mindspore_lite) on MindIR files from MindSpore and from mindseed."""
import os
import shutil
import subprocess
import sys
import threading

import numpy as np
import pytest

import mindseed as ms
from export import _nets
from mindseed import lite as mslite

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "mindir")


@pytest.fixture(scope="module")
def expected():
    with np.load(os.path.join(FIXTURES, "expected.npz"), allow_pickle=False) as f:
        return dict(f)


def _model(path, threads=1):
    context = mslite.Context()
    context.target = ["cpu"]
    context.cpu.thread_num = threads
    model = mslite.Model()
    model.build_from_file(path, mslite.ModelType.MINDIR, context)
    return model


@pytest.mark.parametrize("name", ["lenet", "resnet", "gpt", "control"])
def test_predict_mindspore_file(expected, name):
    model = _model(os.path.join(FIXTURES, name + ".mindir"))
    inputs = model.get_inputs()
    x = expected[name + "_x"]
    assert inputs[0].shape == list(x.shape) and mslite.DataType[inputs[0].dtype.name] is inputs[0].dtype
    inputs[0].set_data_from_numpy(x)
    outs = model.predict(inputs)
    np.testing.assert_allclose(outs[0].get_data_to_numpy(), expected[name + "_y0"], rtol=1e-5, atol=1e-5)
    # a second call runs the compiled graph's generated code (the first ran while it was traced)
    np.testing.assert_allclose(model.predict(inputs)[0].get_data_to_numpy(), expected[name + "_y0"], rtol=1e-5,
                               atol=1e-5)


def test_resize_batch_of_a_model_without_baked_shapes(tmp_path):
    net = ms.nn.SequentialCell([ms.nn.Dense(4, 3), ms.nn.ReLU()])
    ms.export(net, ms.Tensor(np.ones((2, 4), np.float32)), file_name=str(tmp_path / "d"))
    model = _model(str(tmp_path / "d.mindir"))
    inputs = model.get_inputs()
    model.resize(inputs, [[5, 4]])
    assert inputs[0].shape == [5, 4]
    x = np.random.RandomState(0).randn(5, 4).astype(np.float32)
    inputs[0].set_data_from_numpy(x)
    np.testing.assert_allclose(model.predict(inputs)[0].get_data_to_numpy(), net(ms.Tensor(x)).asnumpy(),
                               rtol=1e-5, atol=1e-6)   # the native path sums in another order


def test_parallel_runner_serves_threads(expected):
    runner = mslite.ModelParallelRunner()
    runner.build_from_file(os.path.join(FIXTURES, "mlp.mindir"), mslite.RunnerConfig(workers_num=2))
    x, want = expected["mlp_x"], expected["mlp_y0"]
    results = []

    def work():
        inputs = runner.get_inputs()
        inputs[0].set_data_from_numpy(x)
        results.append(runner.predict(inputs)[0].get_data_to_numpy())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    for r in results:
        np.testing.assert_allclose(r, want, rtol=1e-5, atol=1e-5)


def test_lite_errors(tmp_path, expected):
    model = mslite.Model()
    with pytest.raises(RuntimeError, match="build the model first"):
        model.get_inputs()
    with pytest.raises(RuntimeError, match="does not exist"):
        model.build_from_file(str(tmp_path / "none.mindir"), mslite.ModelType.MINDIR)
    (tmp_path / "junk.mindir").write_bytes(b"junk")
    with pytest.raises(ValueError, match="junk.mindir"):
        model.build_from_file(str(tmp_path / "junk.mindir"), mslite.ModelType.MINDIR)
    with pytest.raises(ValueError, match="'target'"):
        mslite.Context().target = ["tpu"]
    model = _model(os.path.join(FIXTURES, "mlp.mindir"))
    inputs = model.get_inputs()
    with pytest.raises(RuntimeError, match="dtype FLOAT32"):
        inputs[0].set_data_from_numpy(np.ones((5, 6), np.float64))
    with pytest.raises(RuntimeError, match=r"shape \[5, 6\]"):
        inputs[0].set_data_from_numpy(np.ones((2, 2), np.float32))


def test_importable_as_mindspore_lite():
    code = ("import mindseed.compat as c; c.install(); import mindspore_lite as m; "
            "print(m.Model.__module__, m.ModelType.MINDIR.name)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.stdout.split() == ["mindseed.lite._model", "MINDIR"], out.stderr


@pytest.fixture(scope="module")
def nets():
    return _nets.build(ms)


def _exported(tmp_path, net, x, name):
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / name))
    model = _model(str(tmp_path / (name + ".mindir")))
    inputs = model.get_inputs()
    inputs[0].set_data_from_numpy(x)
    return model, inputs


@pytest.mark.parametrize("name,batch", [("lenet", 1), ("lenet", 3), ("resnet", 4), ("resblock", 2)])
def test_folded_model_equals_eager(tmp_path, nets, name, batch):
    """Batch norms and biases folded into convolutions, MatMul + bias as Dense: the outputs are eager's."""
    net, x = nets[name]
    x = np.random.RandomState(batch).randn(batch, *x.shape[1:]).astype(np.float32)
    model, inputs = _exported(tmp_path, net, x, name)
    want = net(ms.Tensor(x)).asnumpy()
    for _ in range(2):
        got = model.predict(inputs)[0].get_data_to_numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    (compiled,) = model._compiled.values()
    prims = [n.prim.name for n in compiled.graph.nodes]
    # nothing left of the batch norms, the bias additions and the weight transposes
    assert not {"BatchNormInference", "MatMul", "Add", "Transpose"} & set(prims), prims
    assert sum(prims.count(k) for k in ("Convolution", "ConvolutionGemm", "ConvolutionPacked")) == sum(
        1 for _, c in net.cells_and_names() if isinstance(c, ms.nn.Conv2d))


def test_predict_reads_new_data_and_resizes(tmp_path, nets):
    net, x = nets["lenet"]
    model, inputs = _exported(tmp_path, net, x, "lenet")
    for seed in (1, 2):
        y = np.random.RandomState(seed).randn(*x.shape).astype(np.float32)
        inputs[0].set_data_from_numpy(y)
        out = model.predict(inputs)[0].get_data_to_numpy()
        np.testing.assert_allclose(out, net(ms.Tensor(y)).asnumpy(), rtol=1e-5, atol=1e-5)
        out[...] = 0     # the caller owns the result: the next call is not affected
    model.resize(inputs, [[5] + list(x.shape[1:])])
    y = np.random.RandomState(3).randn(5, *x.shape[1:]).astype(np.float32)
    inputs[0].set_data_from_numpy(y)
    with pytest.raises(ValueError, match="Reshape"):
        model.predict(inputs)           # the file's reshape target (2, 32) is baked in: fails at predict


def _check_plan(plan):
    """No two activations alive at the same time share bytes; the arena holds them all."""
    bufs = plan.buffers
    for i, (_, off, size, first, last) in enumerate(bufs):
        assert off % 64 == 0 and off + size <= plan.peak_bytes
        for _, off2, size2, first2, last2 in bufs[i + 1:]:
            if not (last < first2 or last2 < first):
                assert off + size <= off2 or off2 + size2 <= off
    assert plan.total_bytes == sum(b[2] for b in bufs)


def test_memory_plan_reuses_buffers(tmp_path, nets):
    net = ms.nn.SequentialCell([ms.nn.Dense(16, 32), ms.nn.ReLU(), ms.nn.Dense(32, 32), ms.nn.Sigmoid(),
                                ms.nn.Dense(32, 8)])
    x = np.ones((4, 16), np.float32)
    model, inputs = _exported(tmp_path, net, x, "chain")
    model.predict(inputs)
    (plan,) = model.memory_plan()
    _check_plan(plan)
    # Dense(4x32) -> ReLU in place -> Dense(4x32) -> Sigmoid (4x32) -> Dense(4x8): four buffers of 512, 512, 512
    # and 128 bytes (aligned to 64); a chain needs two alive at once: 512 + 512
    assert sorted(b[2] for b in plan.buffers) == [128, 512, 512, 512]
    assert plan.total_bytes == 1664 and plan.peak_bytes == 1024
    net, x = nets["resnet"]
    model, inputs = _exported(tmp_path, net, x, "resnet")
    model.predict(inputs)
    (plan,) = model.memory_plan()
    _check_plan(plan)
    assert plan.peak_bytes < plan.total_bytes / 2


def test_gemm_convolution_equals_convolution():
    from mindseed import _backend as B  # noqa: PLC0415
    from mindseed.ops._prims.conv import conv_gemm_p, conv_p  # noqa: PLC0415
    rng = np.random.RandomState(0)
    for shape, wshape, stride, pads in [((1, 1, 12, 12), (3, 1, 5, 5), (1, 1), (0, 0, 0, 0)),
                                        ((2, 3, 9, 9), (4, 3, 3, 3), (2, 2), (1, 1, 1, 1)),
                                        ((2, 3, 9, 7), (4, 3, 3, 3), (1, 2), (1, 2, 0, 1))]:
        x, w, b = (B.from_numpy(rng.randn(*s).astype(np.float64)) for s in (shape, wshape, wshape[:1]))
        attrs = dict(stride=stride, pads=pads, dilation=(1, 1), groups=1)
        want = B.to_numpy(conv_p.kernel(x, w, b, **attrs))
        np.testing.assert_allclose(B.to_numpy(conv_gemm_p.kernel(x, w, b, **attrs)), want, rtol=1e-12, atol=1e-12)


def _convert(src, out, fmk):
    converter = mslite.Converter()
    converter.save_type = mslite.ModelType.MINDIR
    converter.convert(fmk_type=fmk, model_file=str(src), output_file=str(out))
    return _model(str(out) + ".mindir")


@pytest.mark.parametrize("name", ["lenet", "resnet", "mlp", "resblock", "control", "gpt"])
def test_converter_runs_onnx_files_in_lite(tmp_path, nets, name):
    """mindseed's ONNX export -> Converter (ONNX -> MindIR) -> the Lite runtime: the network's outputs."""
    net, x = nets[name]
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / name), file_format="ONNX")
    model = _convert(tmp_path / (name + ".onnx"), tmp_path / ("conv_" + name), mslite.FmkType.ONNX)
    inputs = model.get_inputs()
    assert inputs[0].shape == list(x.shape)
    inputs[0].set_data_from_numpy(x)
    want = _nets.outputs(net(ms.Tensor(x)))
    got = [t.get_data_to_numpy() for t in model.predict(inputs)]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(w).max()))


def test_converter_on_torch_exported_models(tmp_path):
    """ONNX files written by torch.onnx.export (its flatten is Shape/Gather/Concat/Reshape arithmetic)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")

    class CNN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(2, 4, 3, padding=1)
            self.bn = torch.nn.BatchNorm2d(4)
            self.fc = torch.nn.Linear(4 * 4 * 4, 5)

        def forward(self, x):
            y = torch.nn.functional.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)
            return torch.softmax(self.fc(y.flatten(1)), -1)

    torch.manual_seed(0)
    net = CNN().eval()
    with torch.no_grad():
        net.bn.running_mean.uniform_(-1, 1)
        net.bn.running_var.uniform_(0.5, 2)
    x = np.random.RandomState(0).randn(3, 2, 8, 8).astype(np.float32)
    with torch.inference_mode(False), torch.no_grad():
        want = net(torch.from_numpy(x)).numpy()
        try:
            torch.onnx.export(net, (torch.from_numpy(x),), str(tmp_path / "cnn.onnx"), opset_version=13, dynamo=False)
        except Exception as e:  # noqa: BLE001 -- the exporter's own dependencies
            pytest.skip(f"torch.onnx.export is not available here: {e}")
    model = _convert(tmp_path / "cnn.onnx", tmp_path / "cnn", mslite.FmkType.ONNX)
    np.testing.assert_allclose(model.predict([mslite.Tensor(x)])[0].get_data_to_numpy(), want, rtol=1e-5,
                               atol=1e-6)


def test_converter_errors(tmp_path, expected):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper  # noqa: PLC0415
    converter = mslite.Converter()
    with pytest.raises(ValueError, match="TFLITE is not supported"):
        converter.convert(mslite.FmkType.TFLITE, str(tmp_path / "m"), str(tmp_path / "o"))
    with pytest.raises(RuntimeError, match="does not exist"):
        converter.convert(mslite.FmkType.ONNX, str(tmp_path / "none.onnx"), str(tmp_path / "o"))
    (tmp_path / "junk.onnx").write_bytes(b"\x08junk")
    with pytest.raises(ValueError, match="junk.onnx' is not a valid ONNX model"):
        converter.convert(mslite.FmkType.ONNX, str(tmp_path / "junk.onnx"), str(tmp_path / "o"))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    graph = helper.make_graph([helper.make_node("Hardmax", ["x"], ["y"], name="hm")], "g", [x], [y])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(tmp_path / "hm.onnx"))
    with pytest.raises(ValueError, match="hm.onnx', node 'hm': the operator Hardmax is not supported"):
        converter.convert(mslite.FmkType.ONNX, str(tmp_path / "hm.onnx"), str(tmp_path / "o"))
    # a MindIR file is checked and copied
    model = _convert(os.path.join(FIXTURES, "mlp.mindir"), tmp_path / "mlp_copy", mslite.FmkType.MINDIR)
    model.get_inputs()[0].set_data_from_numpy(expected["mlp_x"])
    np.testing.assert_allclose(model.predict(model.get_inputs())[0].get_data_to_numpy(), expected["mlp_y0"],
                               rtol=1e-5, atol=1e-5)


def test_packed_convolution_equals_convolution():
    from mindseed import _backend as B  # noqa: PLC0415
    from mindseed._backend.kernels import conv as K  # noqa: PLC0415
    from mindseed.ops._prims.conv import conv_p, conv_packed_p  # noqa: PLC0415
    rng = np.random.RandomState(1)
    for shape, wshape, stride, pads in [((2, 3, 9, 9), (16, 3, 3, 3), (1, 1), (1, 1, 1, 1)),
                                        ((3, 16, 8, 8), (32, 16, 1, 1), (2, 2), (0, 0, 0, 0))]:
        x, w, b = (B.from_numpy(rng.randn(*s).astype(np.float32)) for s in (shape, wshape, wshape[:1]))
        attrs = dict(stride=stride, pads=pads, dilation=(1, 1), groups=1)
        want = B.to_numpy(conv_p.kernel(x, w, b, **attrs)).astype(np.float64)
        packed = K.pack_conv_weight(w, shape, **attrs)
        if packed is None:
            pytest.skip("oneDNN is not available")
        np.testing.assert_allclose(B.to_numpy(conv_packed_p.kernel(x, packed, b, **attrs)), want, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(B.to_numpy(conv_packed_p.kernel(x, packed, b, relu=True, **attrs)),
                                   np.maximum(want, 0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("pick", ["ConvolutionPacked", "ConvolutionGemm", "Convolution"])
def test_each_convolution_kernel_gives_eager_outputs(tmp_path, nets, monkeypatch, pick):
    """Whichever kernel the timing picks (forced here), the model computes the same: ReLUs fused into packed
    convolutions included."""
    from mindseed.lite import _compile  # noqa: PLC0415
    monkeypatch.setattr(_compile, "_time", lambda kernel, inputs, attrs: 0.0 if kernel.__name__ == {
        "ConvolutionPacked": "conv_packed", "ConvolutionGemm": "conv_gemm", "Convolution": "conv"}[pick] else 1.0)
    net, x = nets["resnet"]
    model, inputs = _exported(tmp_path, net, x, "resnet")
    want = net(ms.Tensor(x)).asnumpy()
    got = model.predict(inputs)[0].get_data_to_numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    (compiled,) = model._compiled.values()
    convs = [n for n in compiled.graph.nodes if n.prim.name.startswith("Convolution")]
    assert {n.prim.name for n in convs} == {pick}
    if pick == "ConvolutionPacked":
        assert sum(bool(n.attrs.get("relu")) for n in convs) >= 7      # conv-bn-relu of the stem and each block
        assert not any(n.prim.name.startswith("ReLU") for n in compiled.graph.nodes)


def _force_native(monkeypatch):
    """Time the generated C as the faster, whatever it measures."""
    from mindseed.lite import _model as lite_model  # noqa: PLC0415
    from mindseed.lite._native import NativeModel  # noqa: PLC0415
    monkeypatch.setattr(lite_model, "_time", lambda run, *a, **k: 0.0 if isinstance(
        getattr(run, "__self__", None), NativeModel) else 1.0)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="the native path builds the generated C with gcc")
@pytest.mark.parametrize("name,batch", [("lenet", 1), ("resnet", 3), ("control", 3)])
def test_native_path_equals_eager(tmp_path, nets, monkeypatch, name, batch):
    """The model compiled to C and loaded as a library runs predict when it measures faster: timed as the faster
    here, it gives eager's outputs, on new data too."""
    _force_native(monkeypatch)
    net, x = nets[name]
    x = np.random.RandomState(batch).randn(batch, *x.shape[1:]).astype(np.float32)
    model, inputs = _exported(tmp_path, net, x, name)
    for seed in (0, 1):
        data = np.random.RandomState(seed).randn(*x.shape).astype(np.float32)
        inputs[0].set_data_from_numpy(data)
        got = model.predict(inputs)[0].get_data_to_numpy()
        want = net(ms.Tensor(data)).asnumpy()
        assert got.shape == want.shape and got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    assert model.uses_native() == [True]
    (arena,) = model.native_arena_bytes()      # the generated C's static arena: at least the largest activation
    assert arena >= max(np.prod(v.shape) * 4 for v in (x, want))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="the native path builds the generated C with gcc")
@pytest.mark.parametrize("name", ["gpt", "gpt_w4", "ms_gpt"])
def test_native_path_takes_int32_token_ids(tmp_path, nets, monkeypatch, name):
    """A GPT's int32 token ids go to the generated C as they are (its `const int32_t *` input): the model runs
    compiled to C, on mindseed's W4 GPT and on MindSpore's GPT file, and gives mindseed's logits within 1e-4."""
    from mindseed.lite._native import NativeModel, build_native  # noqa: PLC0415
    _force_native(monkeypatch)
    if name == "ms_gpt":
        path = os.path.join(FIXTURES, "gpt.mindir")
        net = ms.nn.GraphCell(ms.load(path))
        x = np.load(os.path.join(FIXTURES, "expected.npz"))["gpt_x"]
        vocab = int(x.max()) + 1
    else:
        net, x = nets[name] if name in nets else _nets.build(ms, full=True)[name]
        ms.export(net, ms.Tensor(x), file_name=str(tmp_path / name))
        path, vocab = str(tmp_path / (name + ".mindir")), net.vocab
    assert x.dtype == np.int32
    native = build_native(path, [x])
    assert isinstance(native, NativeModel) and [np.dtype(d) for d in native.in_dtypes] == [np.int32]
    model = _model(path)
    inputs = model.get_inputs()
    assert inputs[0].dtype is mslite.DataType.INT32
    for seed in (0, 1):
        ids = np.random.RandomState(seed).randint(0, vocab, size=x.shape).astype(np.int32)
        ids[0, 0] = -1      # a negative id counts from the end, as mindseed's Gather
        inputs[0].set_data_from_numpy(ids)
        got = model.predict(inputs)[0].get_data_to_numpy()
        want = net(ms.Tensor(ids)).asnumpy()
        assert got.shape == want.shape and got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
        np.testing.assert_allclose(native.run(ids)[0], want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    assert model.uses_native() == [True]
    # int64 ids are not what the C takes: that signature runs the kernels
    assert build_native(path, [x.astype(np.int64)]) is None


class _Floor(ms.nn.Cell):
    def construct(self, x):
        return ms.ops.floor(x * 4.0) + x


def test_native_path_falls_back(tmp_path, nets, monkeypatch):
    """No C translation (an operator without a C kernel), or no C compiler: build_native gives None and predict
    runs the kernels."""
    from mindseed.lite import _native  # noqa: PLC0415
    net, x = _Floor(), nets["mlp"][1]
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "floor"))
    assert _native.build_native(str(tmp_path / "floor.mindir"), [x]) is None
    model, inputs = _exported(tmp_path, net, x, "floor")
    np.testing.assert_allclose(model.predict(inputs)[0].get_data_to_numpy(), net(ms.Tensor(x)).asnumpy(),
                               rtol=1e-5, atol=1e-5)
    assert model.uses_native() == [False] and model.native_arena_bytes() == [None]
    net, x = nets["lenet"]
    monkeypatch.setattr(_native, "_compiler", lambda: None)
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "lenet"))
    assert _native.build_native(str(tmp_path / "lenet.mindir"), [x]) is None


def test_dynamic_batch_shows_minus_one_and_takes_any_batch():
    """A file with a dynamic batch (MindSpore's dyn_lenet): get_inputs shows -1 for it, set_data_from_numpy takes
    any batch with the other dims fixed, resize gives it a size; the outputs are MindSpore's."""
    with np.load(os.path.join(FIXTURES, "dyn_expected.npz"), allow_pickle=False) as f:
        x, y = f["lenet_x"], f["lenet_y0"]
    model = _model(os.path.join(FIXTURES, "dyn_lenet.mindir"))
    inputs = model.get_inputs()
    assert inputs[0].shape == [-1, 1, 16, 16]
    inputs[0].set_data_from_numpy(x)
    assert inputs[0].shape == [3, 1, 16, 16]
    np.testing.assert_allclose(model.predict(inputs)[0].get_data_to_numpy(), y, rtol=1e-5, atol=1e-5)
    model.resize(inputs, [[-1, 1, 16, 16]])
    assert model.get_inputs()[0].shape == [-1, 1, 16, 16]
    inputs[0].set_data_from_numpy(x[:1])
    np.testing.assert_allclose(model.predict(inputs)[0].get_data_to_numpy(), y[:1], rtol=1e-5, atol=1e-5)
    assert inputs[0].shape == [1, 1, 16, 16]
    model.resize(inputs, [[-1, 1, 16, 16]])
    with pytest.raises(RuntimeError, match=r"has shape \[-1, 1, 16, 16\] \(-1: any size\), but the numpy array has "
                                           r"shape \[2, 1, 8, 8\]"):
        model.get_inputs()[0].set_data_from_numpy(np.zeros((2, 1, 8, 8), np.float32))
    model.resize(inputs, [[2, 1, 16, 16]])
    with pytest.raises(RuntimeError, match="has shape"):
        inputs[0].set_data_from_numpy(x)
