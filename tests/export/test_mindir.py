"""MindIR: files written by real MindSpore 2.10 load and run with its outputs; mindseed's own export loads back
with the network's outputs (PyNative and graph mode); bad files and bad calls give clear errors."""
import os
import warnings

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from mindseed.export import MindIRError

from export import _nets

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "mindir")
NAMES = ["lenet", "resblock", "mlp", "control", "resnet", "gpt"]


@pytest.fixture(scope="module")
def expected():
    with np.load(os.path.join(FIXTURES, "expected.npz"), allow_pickle=False) as f:
        return dict(f)


@pytest.fixture(scope="module")
def nets():
    return _nets.build(ms)


def _expected_outputs(expected, name):
    return [expected[f"{name}_y{i}"] for i in range(4) if f"{name}_y{i}" in expected]


def _run(cell, x, mode):
    """cell(x) in PyNative or graph mode (where a fallback to the interpreter is an error: control flow in a
    loaded file must compile to If/While)."""
    if mode == "pynative":
        return _nets.outputs(cell(x))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            return _nets.outputs(cell(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", NAMES)
def test_load_mindspore_file_matches_mindspore_outputs(expected, name, mode):
    graph = ms.load(os.path.join(FIXTURES, name + ".mindir"))
    assert type(graph).__name__ == "FuncGraph"
    got = _run(nn.GraphCell(graph), ms.Tensor(expected[name + "_x"]), mode)
    want = _expected_outputs(expected, name)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_same_network_in_mindseed_matches_mindspore(expected, nets, name):
    net, x = nets[name]
    np.testing.assert_array_equal(x, expected[name + "_x"])
    for g, w in zip(_nets.outputs(net(ms.Tensor(x))), _expected_outputs(expected, name)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", NAMES)
def test_export_then_load_round_trip(tmp_path, nets, name, mode):
    net, x = nets[name]
    ref = _nets.outputs(net(ms.Tensor(x)))
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / name), file_format="MINDIR")
    graph = ms.load(str(tmp_path / (name + ".mindir")))
    got = _run(nn.GraphCell(graph), ms.Tensor(x), mode)
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        assert g.shape == r.shape
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)


def test_zero_dim_constants_keep_their_shape(tmp_path):
    """A 0-d tensor constant is written with no dims (MindSpore's form), so a comparison with it stays 0-d."""
    class Net(nn.Cell):
        def construct(self, x):
            limit = ms.Tensor(np.array(20.0, np.float32))
            return ms.ops.less(x.sum(), limit), x + limit

    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    ms.export(Net(), x, file_name=str(tmp_path / "z"), file_format="MINDIR")
    graph = ms.load(str(tmp_path / "z.mindir"))
    less, added = nn.GraphCell(graph)(x)
    assert less.shape == () and not bool(less.asnumpy())            # sum 66 < 20 is False
    np.testing.assert_array_equal(added.asnumpy(), np.arange(12, dtype=np.float32).reshape(3, 4) + 20)
    assert [tuple(v.shape) for v in graph._consts.values() if hasattr(v, "shape")] == [()]


def test_exported_weights_are_the_checkpoint_names(tmp_path, nets):
    net, x = nets["resblock"]
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "r"))
    graph = ms.load(str(tmp_path / "r.mindir"))
    by_name = {p.name: p.asnumpy() for p in graph.parameters.values()}
    for name, p in net.parameters_and_names():
        np.testing.assert_array_equal(by_name[name], p.asnumpy())


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("source", ["mindseed", "mindspore"])
def test_control_flow_takes_the_branch_the_input_selects(tmp_path, nets, source, mode):
    net, x = nets["control"]
    path = os.path.join(FIXTURES, "control.mindir")
    if source == "mindseed":
        ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "c"))
        path = str(tmp_path / "c.mindir")
    cell = nn.GraphCell(ms.load(path))
    for sample in (np.full((3, 4), 0.5, np.float32), np.full((3, 4), -3.0, np.float32), x):
        np.testing.assert_allclose(_run(cell, ms.Tensor(sample), mode)[0], net(ms.Tensor(sample)).asnumpy(),
                                   rtol=1e-5, atol=1e-5)
    # a negative input takes the else branch (x * 2), then loops until -6 * 12 + 12 * 1.5 * k >= 20: k = 6
    out = _run(cell, ms.Tensor(np.full((3, 4), -3.0, np.float32)), mode)[0]
    np.testing.assert_allclose(out, np.full((3, 4), -6.0 + 1.5 * 6, np.float32))


def test_load_mindir_and_save_mindir_round_trip(tmp_path):
    model = ms.load_mindir(os.path.join(FIXTURES, "mlp.mindir"))
    assert model.producer_name == "MindSpore" and model.graph.parameter
    model.doc_string = "edited"
    ms.save_mindir(model, str(tmp_path / "copy"))
    assert ms.load_mindir(str(tmp_path / "copy.mindir")).doc_string == "edited"
    x = ms.Tensor(np.ones((5, 6), np.float32))
    a = ms.load(os.path.join(FIXTURES, "mlp.mindir"))(x)
    b = ms.load(str(tmp_path / "copy.mindir"))(x)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u.asnumpy(), v.asnumpy())


# ---------------------------------------------------------------- bad files
def _bytes(name):
    with open(os.path.join(FIXTURES, name), "rb") as f:
        return f.read()


@pytest.mark.parametrize("cut", [0.5, 0.9, 0.999])
def test_truncated_file_is_an_error_naming_the_file(tmp_path, cut):
    data = _bytes("lenet.mindir")
    path = tmp_path / "cut.mindir"
    path.write_bytes(data[:int(len(data) * cut)])
    with pytest.raises(ValueError, match="cut.mindir"):
        ms.load(str(path))


def test_corrupt_weights_are_an_error_naming_the_parameter(tmp_path):
    model = ms.load_mindir(os.path.join(FIXTURES, "lenet.mindir"))
    model.graph.parameter[0].raw_data = model.graph.parameter[0].raw_data[:-4]
    ms.save_mindir(model, str(tmp_path / "bad"))
    with pytest.raises(MindIRError, match=r"bad\.mindir.*conv1\.weight.*bytes"):
        ms.load(str(tmp_path / "bad.mindir"))


@pytest.mark.parametrize("payload", [b"", b"not a model at all", bytes(range(256)) * 8, b"\x0a\x05hello"])
def test_foreign_or_garbage_file_is_rejected(tmp_path, payload):
    path = tmp_path / "foreign.mindir"
    path.write_bytes(payload)
    with pytest.raises(ValueError, match="foreign.mindir"):
        ms.load(str(path))


def test_unknown_operator_is_an_error_naming_node_and_operator(tmp_path):
    model = ms.load_mindir(os.path.join(FIXTURES, "lenet.mindir"))
    prim = next(p for p in model.primitives if p.op_type == "ReLU")
    prim.op_type = "os.system"
    ms.save_mindir(model, str(tmp_path / "evil"))
    with pytest.raises(MindIRError, match=r"evil\.mindir.*node .*operator 'os\.system' is not supported"):
        ms.load(str(tmp_path / "evil.mindir"))


def test_dangling_input_is_an_error(tmp_path):
    model = ms.load_mindir(os.path.join(FIXTURES, "mlp.mindir"))
    node = next(n for n in model.graph.node if n.op_type != "Constant" and n.input)
    node.input[0] = "nowhere"
    ms.save_mindir(model, str(tmp_path / "dangle"))
    with pytest.raises(MindIRError, match="input 'nowhere' is not defined"):
        ms.load(str(tmp_path / "dangle.mindir"))


def test_load_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="should end with '.mindir'"):
        ms.load(str(tmp_path / "model.onnx"))
    with pytest.raises(ValueError, match="does not exist"):
        ms.load(str(tmp_path / "missing.mindir"))


def test_graph_cell_checks_its_inputs():
    cell = nn.GraphCell(ms.load(os.path.join(FIXTURES, "mlp.mindir")))
    with pytest.raises(ValueError, match=r"shape \[5, 6\].*\[5, 7\]"):
        cell(ms.Tensor(np.ones((5, 7), np.float32)))
    with pytest.raises(ValueError, match="takes 1 inputs, but got 2"):
        cell(ms.Tensor(np.ones((5, 6), np.float32)), ms.Tensor(np.ones((5, 6), np.float32)))
    with pytest.raises(TypeError, match="dtype float32"):
        cell(ms.Tensor(np.ones((5, 6), np.int32)))


# ---------------------------------------------------------------- export errors
def test_export_rejects_unknown_format_and_global_parameter(tmp_path, nets):
    net, x = nets["mlp"]
    with pytest.raises(ValueError, match=r"'file_format' must be one of \['AIR', 'ONNX', 'MINDIR'\], but got PTH"):
        ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "m"), file_format="PTH")
    scale = ms.Parameter(ms.Tensor(np.array([2.0], np.float32)), name="outside")

    class UsesGlobal(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lin = nn.Dense(6, 2)

        def construct(self, v):
            return self.lin(v) * scale

    with pytest.raises(ValueError, match="wasn't created in nn.Cell.*outside"):
        ms.export(UsesGlobal(), ms.Tensor(x), file_name=str(tmp_path / "g"))
    assert not os.path.exists(tmp_path / "g.mindir")


def test_export_names_an_operator_without_mindir_form(tmp_path):
    class Sorts(nn.Cell):
        def construct(self, v):
            return ms.ops.sort(v)[0]

    with pytest.raises(ValueError, match="operator 'Sort'.*has no MindIR form"):
        ms.export(Sorts(), ms.Tensor(np.ones((2, 3), np.float32)), file_name=str(tmp_path / "s"))


def test_large_model_saved_in_parts(tmp_path, monkeypatch):
    """Weights past the size limit go to <name>_variables/data_N (MindSpore's layout); load reads them back."""
    import sys  # noqa: PLC0415
    from mindseed import lite as mslite  # noqa: PLC0415
    E = sys.modules["mindseed.export"]     # the package (`mindseed.export` the attribute is the function)
    net = ms.nn.SequentialCell([ms.nn.Dense(6, 40), ms.nn.ReLU(), ms.nn.Dense(40, 3)])
    x = np.random.RandomState(0).randn(4, 6).astype(np.float32)
    want = net(ms.Tensor(x)).asnumpy()
    monkeypatch.setattr(E, "TOTAL_SAVE_KB", 0)
    monkeypatch.setattr(E, "PARAMETER_SPLIT_KB", 1)      # at most 1 KB per weights file: several files
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "big"))
    graph_file, folder = tmp_path / "big_graph.mindir", tmp_path / "big_variables"
    assert not (tmp_path / "big.mindir").exists() and graph_file.exists()
    files = sorted(os.listdir(folder))
    assert files[:2] == ["data_0", "data_1"]
    model = ms.load_mindir(str(graph_file))
    assert all(p.external_data.location.startswith("big_variables/data_") and not p.raw_data
               for p in model.graph.parameter)
    assert (folder / "data_0").read_bytes()[:64] == b"\x01" + bytes(63)
    np.testing.assert_allclose(ms.nn.GraphCell(ms.load(str(graph_file)))(ms.Tensor(x)).asnumpy(), want, rtol=1e-6)
    lite = mslite.Model()
    lite.build_from_file(str(graph_file), mslite.ModelType.MINDIR)
    # (the native C path sums in another order)
    np.testing.assert_allclose(lite.predict([mslite.Tensor(x)])[0].get_data_to_numpy(), want, rtol=1e-5, atol=1e-6)
    # a weights file cut short, a location outside the model's folder, foreign data: errors naming the file
    data = (folder / "data_0").read_bytes()
    (folder / "data_0").write_bytes(data[:100])
    with pytest.raises(ValueError, match="truncated"):
        ms.load(str(graph_file))
    (folder / "data_0").write_bytes(b"\x00" + data[1:])
    with pytest.raises(ValueError, match="not little-endian"):
        ms.load(str(graph_file))
    (folder / "data_0").write_bytes(data)
    model.graph.parameter[0].external_data.location = "../outside"
    ms.save_mindir(model, str(tmp_path / "evil_graph"))
    with pytest.raises(ValueError, match="not a file under the model's directory"):
        ms.load(str(tmp_path / "evil_graph.mindir"))
    model.graph.parameter[0].external_data.location = "big_variables/data_0"
    model.graph.parameter[0].external_data.length += 4
    ms.save_mindir(model, str(tmp_path / "bad_graph"))
    with pytest.raises(ValueError, match="bad_graph.mindir.*needs"):
        ms.load(str(tmp_path / "bad_graph.mindir"))


def test_mindspore_file_with_weights_apart(expected):
    """A model MindSpore wrote with its weights in split_variables/data_0 (its layout past 1 GB)."""
    graph = ms.load(os.path.join(FIXTURES, "split_graph.mindir"))
    outs = _nets.outputs(nn.GraphCell(graph)(ms.Tensor(expected["mlp_x"])))
    for i, y in enumerate(outs):
        np.testing.assert_allclose(y, expected[f"mlp_y{i}"], rtol=1e-5, atol=1e-6)


def _batches(x):
    """Inputs of other batch sizes built from x's rows (one row; the rows, reversed, and one more)."""
    return [x[:1], np.concatenate([x, x[::-1], x[:1]])]


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", ["lenet", "mlp", "gpt"])
def test_mindspore_file_with_a_dynamic_batch_runs_any_batch(nets, name, mode):
    """Files MindSpore wrote from Tensor(shape=[None, ...]) (its Shape / TupleGetItem / Muls nodes) run at the batch
    its outputs were taken at, and at others with the network's outputs."""
    with np.load(os.path.join(FIXTURES, "dyn_expected.npz"), allow_pickle=False) as f:
        expected = dict(f)
    cell = nn.GraphCell(ms.load(os.path.join(FIXTURES, f"dyn_{name}.mindir")))
    got = _run(cell, ms.Tensor(expected[name + "_x"]), mode)
    for g, w in zip(got, _expected_outputs(expected, name)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    net, x = nets[name]
    for sample in _batches(x):
        for g, r in zip(_run(cell, ms.Tensor(sample), mode), _nets.outputs(net(ms.Tensor(sample)))):
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_export_with_a_dynamic_batch_runs_any_batch(tmp_path, nets, name):
    """Tensor(shape=[None, ...]) as the example input: the file's input has -1 for the batch (as MindSpore writes
    it), and the loaded graph runs every batch size with the network's outputs."""
    net, x = nets[name]
    ms.export(net, ms.Tensor(shape=[None, *x.shape[1:]], dtype=ms.Tensor(x).dtype), file_name=str(tmp_path / name))
    path = str(tmp_path / (name + ".mindir"))
    assert list(ms.load_mindir(path).graph.input[0].tensor[0].dims) == [-1, *x.shape[1:]]
    cell = nn.GraphCell(ms.load(path))
    for mode in ("pynative", "graph"):
        for sample in _batches(x):
            got = _run(cell, ms.Tensor(sample), mode)
            ref = _nets.outputs(net(ms.Tensor(sample)))
            assert [g.shape for g in got] == [r.shape for r in ref]
            for g, r in zip(got, ref):
                np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)


def test_export_sizes_computed_from_a_dynamic_dim(tmp_path):
    """Reshapes to sizes derived from the batch, a division by it, slices of the dynamic dim from either end."""
    class Sizes(nn.Cell):
        def construct(self, x):
            b = x.shape[0]
            return x.reshape(b * 3, 4), x.reshape(b, -1).mean(1) / b, x[1:, ::2], x[-1]

    ms.export(Sizes(), ms.Tensor(shape=[None, 3, 4], dtype=ms.float32), file_name=str(tmp_path / "sizes"))
    cell = nn.GraphCell(ms.load(str(tmp_path / "sizes.mindir")))
    for n in (2, 9):
        x = np.arange(n * 12, dtype=np.float32).reshape(n, 3, 4)
        want = [x.reshape(n * 3, 4), x.reshape(n, -1).mean(1) / n, x[1:, ::2], x[-1]]
        for g, w in zip(_nets.outputs(cell(ms.Tensor(x))), want):
            np.testing.assert_allclose(g, w, rtol=1e-6)


def test_export_refuses_a_graph_that_depends_on_the_dynamic_size(tmp_path):
    class BySize(nn.Cell):
        def construct(self, x):
            if x.shape[0] > 4:
                return x * 2
            return x + 1

    with pytest.raises(ValueError, match="For 'export', the network's graph depends on the sizes of its dynamic"):
        ms.export(BySize(), ms.Tensor(shape=[None, 3], dtype=ms.float32), file_name=str(tmp_path / "s"))
    assert not os.path.exists(tmp_path / "s.mindir")


def test_micro_batch_slices_round_trip(tmp_path):
    """nn.GradAccumulationCell's micro-batches (MicroBatchSlice calls) are written as Getitem's slices."""
    net = nn.GradAccumulationCell(nn.Dense(3, 2), 2)
    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    ms.export(net, x, file_name=str(tmp_path / "micro"), file_format="MINDIR")
    got = nn.GraphCell(ms.load(str(tmp_path / "micro.mindir")))(x)
    np.testing.assert_allclose(got.asnumpy(), net(x).asnumpy(), rtol=1e-6, atol=1e-6)


def test_argmax_as_mindir(tmp_path):
    """A greedy policy's argmax (int32 indices; MindSpore 2.10 loads and runs the file: the oracle gives the same
    actions), over all elements and keeping the reduced dim too."""
    class Greedy(nn.Cell):
        def __init__(self):
            super().__init__()
            self.q = nn.Dense(4, 3, weight_init="normal")
            self.argmax = ms.ops.Argmax(output_type=ms.int32)

        def construct(self, v):
            q = self.q(v)
            return self.argmax(q), ms.ops.argmax(q), ms.ops.argmax(q, dim=0, keepdim=True)

    net = Greedy()
    x = np.random.default_rng(4).standard_normal((5, 4)).astype(np.float32)
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "greedy"), file_format="MINDIR")
    got = nn.GraphCell(ms.load(str(tmp_path / "greedy.mindir")))(ms.Tensor(x))
    q = net.q(ms.Tensor(x)).asnumpy()
    for g, w, r in zip(got, [np.argmax(q, -1), np.argmax(q), np.argmax(q, 0)[None]], net(ms.Tensor(x))):
        assert g.dtype == r.dtype and g.shape == r.shape
        np.testing.assert_array_equal(g.asnumpy(), w)


def test_layer_norm_over_two_axes_round_trips_with_mindspores_axis_range(tmp_path):
    # MindSpore's LayerNorm takes begin axes in [-1, rank): the file counts two trailing axes from the front, and
    # a file that counts them from the end (older mindseed exports) still loads
    from mindseed.export import _ms_ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1)

        def construct(self, x):
            return self.ln(x)

    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    want = (x - x.mean((1, 2), keepdims=True)) / np.sqrt(x.var((1, 2), keepdims=True) + 1e-7)
    ms.export(Net(), ms.Tensor(x), file_name=str(tmp_path / "ln"), file_format="MINDIR")
    got = nn.GraphCell(ms.load(str(tmp_path / "ln.mindir")))(ms.Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)
    ones, zeros = ms.ops.ones((3, 4)), ms.ops.zeros((3, 4))
    y = _ms_ops.OPS["LayerNorm"][1]([ms.Tensor(x), ones, zeros, -2, -2, 1e-7], {})[0]
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-5, atol=1e-5)
