"""`python -m mindseed.converter`: ONNX files (torch.onnx.export's and mindseed's own) become MindSpore source and a
.ckpt; the generated network, run on mindseed, equals onnxruntime on the same inputs. (On real MindSpore 2.10:
tests/export/oracle_converter_check.py.)"""
import ast
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from export import _onnx_models  # noqa: E402

from mindseed import compat  # noqa: E402
from mindseed.converter import convert, main  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def mindspore_alias():
    """`import mindspore` resolves to mindseed while the generated modules are imported (removed afterwards)."""
    before = set(sys.modules)
    finder = compat.install()
    yield
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)
    for name in set(sys.modules) - before:
        if name == "mindspore" or name.startswith(("mindspore.", "mindspore_lite")):
            del sys.modules[name]


@pytest.fixture(scope="module")
def torch_files(tmp_path_factory):
    pytest.importorskip("torch")
    folder = tmp_path_factory.mktemp("torch_onnx")
    try:
        return _onnx_models.torch_onnx_files(str(folder))
    except Exception as e:  # noqa: BLE001 -- the exporter's own dependencies
        pytest.skip(f"torch.onnx.export is not available here: {e}")


@pytest.fixture(scope="module")
def mindseed_files(tmp_path_factory):
    return _onnx_models.mindseed_onnx_files(str(tmp_path_factory.mktemp("ms_onnx")))


def _load(py_file):
    spec = importlib.util.spec_from_file_location(f"converted_{abs(hash(py_file))}", py_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _convert_and_compare(path, out_dir, graph_mode=False):
    """Convert, import the generated module, load its ckpt, and compare with onnxruntime (and compiled, with
    `graph_mode`); returns the source."""
    import mindspore as ms  # noqa: PLC0415 -- the alias
    py_file, ckpt_file = convert(path, str(out_dir))
    assert ckpt_file is None or os.path.isfile(ckpt_file)
    net = _load(py_file).create_network()
    feeds = _onnx_models.inputs_for(path)
    want = _onnx_models.onnxruntime_outputs(path, feeds)
    for run in (net, ms.jit(net.construct)) if graph_mode else (net,):
        got = run(*[ms.Tensor(v) for v in feeds.values()])
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(w).max())))
    with open(py_file, encoding="utf-8") as f:
        return f.read()


def _layers(source):
    """{attribute: 'nn.X'} of the layers the generated __init__ creates."""
    layers = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                isinstance(node.targets[0], ast.Attribute) and isinstance(node.value.func, ast.Attribute) and \
                isinstance(node.value.func.value, ast.Name) and node.value.func.value.id in ("nn", "ms"):
            layers[node.targets[0].attr] = f"{node.value.func.value.id}.{node.value.func.attr}"
    return layers


def _check_layers(source, expected):
    layers = _layers(source)
    for attr, kind in expected.items():
        assert layers.get(attr) == kind, (attr, layers)


def _imports(source):
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module.split(".")[0])
    return names


EXPECTED_TORCH = {
    "cnn": {"conv1": "nn.Conv2d", "bn1": "nn.BatchNorm2d", "conv2": "nn.Conv2d", "bn2": "nn.BatchNorm2d",
            "pool": "nn.MaxPool2d", "avg": "nn.AvgPool2d", "relu": "nn.ReLU", "fc": "nn.Dense", "bn3": "nn.BatchNorm1d",
            "flatten": "nn.Flatten", "log_softmax": "nn.LogSoftmax"},
    "mlp": {"fc1": "nn.Dense", "fc2": "nn.Dense", "fc3": "nn.Dense", "gelu": "nn.GELU", "gelu_1": "nn.GELU",
            "leaky_relu": "nn.LeakyReLU", "sigmoid": "nn.Sigmoid", "tanh": "nn.Tanh"},
    "lstm": {"lstm": "nn.LSTM", "lstm_1": "nn.LSTM", "bi": "nn.LSTM", "head": "nn.Dense"},
    "transformer": {"embed": "nn.Embedding", "block_norm1": "nn.LayerNorm", "block_norm2": "nn.LayerNorm",
                    "block_linear1": "nn.Dense", "block_linear2": "nn.Dense", "block_self_attn_out_proj": "nn.Dense",
                    "block_gelu": "nn.GELU", "head": "nn.Dense"},
}
EXPECTED_TORCH["transformer14"] = EXPECTED_TORCH["transformer"]


@pytest.mark.parametrize("name", sorted(EXPECTED_TORCH))
def test_torch_exported_models(tmp_path, mindspore_alias, torch_files, name):
    source = _convert_and_compare(torch_files[name], tmp_path, graph_mode=name in ("lstm", "transformer"))
    _check_layers(source, EXPECTED_TORCH[name])
    assert _imports(source) == {"os", "mindspore"}
    # everything a known layer does is in the layer: no elementwise GELU/LayerNorm arithmetic is left over
    assert "ops.erf" not in source and "ops.sqrt" not in source and "ops.tanh" not in source


def test_generated_source_reads_like_code(tmp_path, mindspore_alias, torch_files):
    source = _convert_and_compare(torch_files["cnn"], tmp_path)
    construct = source[source.index("def construct"):source.index("def create_network")]
    lines = [line.strip() for line in construct.splitlines()[1:] if line.strip()]
    # one line per operation, named after the ONNX values ('/conv1/Conv_output_0' -> conv1_conv)
    assert lines[0] == "conv1_conv = self.conv1(input_1)"
    assert lines[1] == "relu = self.relu(conv1_conv)"
    assert lines[-1].startswith("return ")
    assert "padding=(1, 1, 0, 0)" in source          # torch's padding=(1, 0): top, bottom, left, right
    from mindseed.train.serialization import load_checkpoint  # noqa: PLC0415
    names = set(load_checkpoint(str(tmp_path / "cnn.ckpt")))
    assert {"conv1.weight", "conv1.bias", "conv2.weight", "bn1.gamma", "bn1.beta", "bn1.moving_mean",
            "bn1.moving_variance", "fc.weight", "fc.bias"} <= names
    assert "conv2.bias" not in names


MINDSEED_LAYERS = {
    "ms_lenet": {"conv1": "nn.Conv2d", "conv2": "nn.Conv2d", "fc1": "nn.Dense", "fc3": "nn.Dense"},
    "ms_resblock": {"conv1": "nn.Conv2d", "bn1": "nn.BatchNorm2d", "bn2": "nn.BatchNorm2d", "fc": "nn.Dense"},
    "ms_mlp": {"l1": "nn.Dense", "l2": "nn.Dense", "l3": "nn.Dense", "softmax": "nn.Softmax"},
    "ms_resnet": {"conv1": "nn.Conv2d", "bn1": "nn.BatchNorm2d", "fc": "nn.Dense"},
    "ms_gpt": {"tok_emb": "nn.Embedding", "blocks_0_ln1": "nn.LayerNorm", "blocks_0_qkv": "nn.Dense",
               "gelu": "nn.GELU", "ln_f": "nn.LayerNorm", "head": "nn.Dense", "const_pos_emb": "ms.Parameter"},
    "ms_control": {"d": "nn.Dense"},
}


@pytest.mark.parametrize("name", sorted(MINDSEED_LAYERS))
def test_mindseed_exported_models(tmp_path, mindspore_alias, mindseed_files, name):
    _check_layers(_convert_and_compare(mindseed_files[name], tmp_path), MINDSEED_LAYERS[name])


def _model(tmp_path, name, nodes, inputs, outputs, inits=(), opset=17):
    import onnx  # noqa: PLC0415
    graph = onnx.helper.make_graph(nodes, name, inputs, outputs, list(inits))
    path = str(tmp_path / f"{name}.onnx")
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)]), path)
    return path


def test_ops_lines_and_constants(tmp_path, mindspore_alias):
    """Operators outside a layer are `ops.*` lines and arithmetic; small constants are written out, large ones are
    kept in the ckpt."""
    from onnx import TensorProto, helper, numpy_helper  # noqa: PLC0415
    rng = np.random.RandomState(1)
    big = numpy_helper.from_array(rng.randn(4, 6).astype(np.float32), "table")
    axes = numpy_helper.from_array(np.array([1], np.int64), "axes")
    nodes = [helper.make_node("Add", ["x", "table"], ["shifted"], name="add"),
             helper.make_node("Mul", ["shifted", "half"], ["scaled"], name="mul"),
             helper.make_node("ReduceSum", ["scaled", "axes"], ["total"], name="sum", keepdims=0),
             helper.make_node("Slice", ["scaled", "starts", "ends", "axes"], ["part"], name="slice"),
             helper.make_node("Transpose", ["part"], ["t"], name="transpose", perm=[1, 0]),
             helper.make_node("Clip", ["t", "lo", "hi"], ["clipped"], name="clip"),
             helper.make_node("Concat", ["clipped", "clipped"], ["cat"], name="concat", axis=0),
             helper.make_node("Cast", ["cat"], ["ints"], name="cast", to=TensorProto.INT32)]
    inits = [big, axes, numpy_helper.from_array(np.array(0.5, np.float32), "half"),
             numpy_helper.from_array(np.array([1], np.int64), "starts"),
             numpy_helper.from_array(np.array([-1], np.int64), "ends"),
             numpy_helper.from_array(np.array(-0.3, np.float32), "lo"),
             numpy_helper.from_array(np.array(0.4, np.float32), "hi")]
    path = _model(tmp_path, "mixed", nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6])],
                  [helper.make_tensor_value_info("total", TensorProto.FLOAT, [4]),
                   helper.make_tensor_value_info("ints", TensorProto.INT32, [8, 4])], inits)
    source = _convert_and_compare(path, tmp_path)
    for line in ("shifted = x + self.const_table", "scaled = shifted * 0.5", "total = ops.sum(scaled, (1,), False)",
                 "part = scaled[:, 1:5]", "t = ops.transpose(part, (1, 0))", "clipped = ops.clamp(t, -0.3, 0.4)",
                 "cat = ops.cat((clipped, clipped,), 0)", "ints = ops.cast(cat, ms.int32)"):
        assert line in source, line


def test_unknown_operator_names_the_node(tmp_path, capsys):
    from onnx import TensorProto, helper  # noqa: PLC0415
    path = _model(tmp_path, "hm", [helper.make_node("Hardmax", ["x"], ["y"], name="my_hardmax")],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    with pytest.raises(ValueError, match="hm.onnx', node 'my_hardmax': the operator Hardmax is not supported"):
        convert(path, str(tmp_path / "out"))
    assert main([path, "-o", str(tmp_path / "out")]) == 1
    assert "node 'my_hardmax'" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "out" / "hm.py")


def test_bad_files_and_arguments(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        convert(str(tmp_path / "none.onnx"), str(tmp_path))
    (tmp_path / "junk.onnx").write_bytes(b"\x08junk")
    with pytest.raises(ValueError, match="junk.onnx' is not a valid ONNX model"):
        convert(str(tmp_path / "junk.onnx"), str(tmp_path))
    from onnx import TensorProto, helper  # noqa: PLC0415
    path = _model(tmp_path, "dyn", [helper.make_node("Relu", ["x"], ["y"], name="r")],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])])
    with pytest.raises(ValueError, match=r"input 'x' .* dynamic shape \[-1, 3\]: give its size with --input-shape"):
        convert(path, str(tmp_path))
    with pytest.raises(ValueError, match=r"'input_shape' names \['z'\]"):
        convert(path, str(tmp_path), {"z": (1, 3)})
    with pytest.raises(ValueError, match="'class_name' must be a Python identifier"):
        convert(path, str(tmp_path), {"x": (2, 3)}, class_name="no good")


def test_command_line(tmp_path):
    """`python -m mindseed.converter` with a dynamic batch fixed by --input-shape; the generated script runs
    unchanged under `python -m mindseed.compat`."""
    from onnx import TensorProto, helper, numpy_helper  # noqa: PLC0415
    w = numpy_helper.from_array(np.random.RandomState(0).randn(3, 5).astype(np.float32), "fc.weight")
    b = numpy_helper.from_array(np.arange(5, dtype=np.float32), "fc.bias")
    path = _model(tmp_path, "dense-net", [helper.make_node("Gemm", ["x", "fc.weight", "fc.bias"], ["y"], name="g")],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 5])], [w, b])
    env = dict(os.environ, PYTHONPATH=ROOT)
    run = subprocess.run([sys.executable, "-m", "mindseed.converter", path, "-o", str(tmp_path / "out"),
                          "--input-shape", "x:4,3", "--class-name", "Head"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "dense_net.py" in run.stdout and "dense_net.ckpt" in run.stdout
    source = (tmp_path / "out" / "dense_net.py").read_text()
    assert "class Head(nn.Cell):" in source and "self.fc = nn.Dense(3, 5, has_bias=True)" in source
    run = subprocess.run([sys.executable, "-m", "mindseed.compat", str(tmp_path / "out" / "dense_net.py")],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[0] == "(4," and "5)" in run.stdout


# -- ONNX If/Loop in the ONNX reader (export._onnx_load.OnnxNet) ----------------------------------------------------

@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_onnx_if_and_loop_run(tmp_path, mindseed_files, sign):
    """mindseed's exporter writes the control net's tensor `if` and `while` as ONNX If and Loop; the reader runs
    them in PyNative and compiled (If/While nodes), equal to onnxruntime, on both branches."""
    import mindseed as ms  # noqa: PLC0415
    from mindseed.export._onnx_load import OnnxNet  # noqa: PLC0415
    path = _onnx_models.mindseed_onnx_files(str(tmp_path), ("control",))["ms_control"]
    net = OnnxNet(path)
    assert {n.op for n in net._graph.nodes} >= {"If", "Loop"}
    x = _onnx_models.inputs_for(path)["x"] * np.float32(sign)
    (want,) = _onnx_models.onnxruntime_outputs(path, {"x": x})
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ms.jit(net.construct)(ms.Tensor(x)).asnumpy(), want, rtol=1e-6, atol=1e-6)


def _loop_model(tmp_path, scan=False):
    """y = x; for i in range(M) while cond: y = y * 2 + i (cond: sum(y) < 100); and an If on a constant."""
    from onnx import TensorProto, helper, numpy_helper  # noqa: PLC0415
    body_nodes = [helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT, name="cast_i"),
                  helper.make_node("Mul", ["y_in", "two"], ["y2"], name="double"),
                  helper.make_node("Add", ["y2", "fi"], ["y_out"], name="add_i"),
                  helper.make_node("ReduceSum", ["y_out"], ["s"], keepdims=0, name="sum"),
                  helper.make_node("Less", ["s", "limit"], ["c_out"], name="less")]
    outs = [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("y_out", TensorProto.FLOAT, [3])]
    if scan:
        outs.append(helper.make_tensor_value_info("s", TensorProto.FLOAT, []))
    body = helper.make_graph(body_nodes, "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                                                  helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
                                                  helper.make_tensor_value_info("y_in", TensorProto.FLOAT, [3])],
                             outs, [numpy_helper.from_array(np.array(2.0, np.float32), "two")])
    then = helper.make_graph([helper.make_node("Neg", ["y"], ["t"], name="neg")], "then", [],
                             [helper.make_tensor_value_info("t", TensorProto.FLOAT, [3])])
    other = helper.make_graph([helper.make_node("Abs", ["y"], ["e"], name="abs")], "else", [],
                              [helper.make_tensor_value_info("e", TensorProto.FLOAT, [3])])
    nodes = [helper.make_node("Loop", ["M", "go", "x"], ["y"] + (["ss"] if scan else []), body=body, name="loop"),
             helper.make_node("If", ["flag"], ["z"], then_branch=then, else_branch=other, name="if")]
    inits = [numpy_helper.from_array(np.array(5, np.int64), "M"), numpy_helper.from_array(np.array(True), "go"),
             numpy_helper.from_array(np.array(100.0, np.float32), "limit"),
             numpy_helper.from_array(np.array([False]), "flag")]
    return _model(tmp_path, "loop", nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                  [helper.make_tensor_value_info("z", TensorProto.FLOAT, [3])], inits, opset=13)


@pytest.mark.parametrize("x", [[0.5, -1.0, 2.0], [30.0, 1.0, 0.0], [-40.0, -3.0, 1.0]])
def test_onnx_loop_with_trip_count_and_condition(tmp_path, x):
    import mindseed as ms  # noqa: PLC0415
    from mindseed.export._onnx_load import OnnxNet  # noqa: PLC0415
    path = _loop_model(tmp_path)
    x = np.array(x, np.float32)
    y = x.copy()
    for i in range(5):          # numpy reference: the trip count bounds the loop, the condition can end it first
        y = y * 2 + i
        if not y.sum() < 100:
            break
    (want,) = _onnx_models.onnxruntime_outputs(path, {"x": x})
    np.testing.assert_allclose(want, np.abs(y), rtol=1e-6)
    net = OnnxNet(path)
    assert net._weights["limit"].shape == ()          # a 0-d float initializer stays 0-d
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(ms.jit(net.construct)(ms.Tensor(x)).asnumpy(), want, rtol=1e-6)
    # the Lite runtime: ONNX -> MindIR (0-d constants written with no dims) -> compiled While
    from mindseed import lite as mslite  # noqa: PLC0415
    mslite.Converter().convert(mslite.FmkType.ONNX, path, str(tmp_path / "loop_lite"))
    model = mslite.Model()
    model.build_from_file(str(tmp_path / "loop_lite.mindir"), mslite.ModelType.MINDIR)
    (got,) = model.predict([mslite.Tensor(x)])
    assert got.shape == [3]
    np.testing.assert_allclose(got.get_data_to_numpy(), want, rtol=1e-6)


def test_onnx_control_flow_errors(tmp_path):
    import mindseed as ms  # noqa: PLC0415
    from mindseed.export._onnx_load import OnnxNet  # noqa: PLC0415
    net = OnnxNet(_loop_model(tmp_path, scan=True))
    with pytest.raises(ValueError, match="loop.onnx', node 'loop': Loop with scan outputs is not supported"):
        net(ms.Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match="loop.onnx', node 'loop': Loop with scan outputs is not supported"):
        convert(_loop_model(tmp_path, scan=True), str(tmp_path / "out"))


def test_converter_writes_if_and_loop(tmp_path, mindspore_alias):
    """A Loop with a trip count and a condition is a `while`, an If on a constant only its branch; the control
    net of mindseed's exporter (tensor `if` and `while`) becomes `if`/`else` and `while` blocks."""
    source = _convert_and_compare(_loop_model(tmp_path), tmp_path / "loop", graph_mode=True)
    body = source[source.index("def construct"):source.index("def create_network")]
    assert "while i < 5 and c_in:" in body and "c_in, y_in = c_out, y_out" in body and "i = i + 1" in body
    assert "if " not in body and "e = ops.abs(y_in)" in body       # the constant If's else branch, inlined
    path = _onnx_models.mindseed_onnx_files(str(tmp_path), ("control",))["ms_control"]
    source = _convert_and_compare(path, tmp_path / "control", graph_mode=True)
    lines = [line.strip() for line in source.splitlines()]
    assert "else:" in lines and any(line.startswith("while ") for line in lines)
    assert any(line.startswith("if ") for line in lines) and "self.d = nn.Dense(4, 4, has_bias=True)" in lines
