"""nn.Cell behaviour: parameter naming, repr exactly as MindSpore 2.10 prints it, hooks with removable
handles, custom bprop, to_float, set_train and the containers."""
from collections import OrderedDict

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, weight_init="ones")
        self.bn = nn.BatchNorm2d(2)
        self.blocks = nn.CellList([nn.ReLU(), nn.Dense(2, 2, weight_init="ones", bias_init="zeros")])
        self.d = nn.CellDict({"a": nn.Tanh()})

    def construct(self, x):
        return x


# what MindSpore 2.10 prints for Net()
NET_REPR = """Net(
  (conv): Conv2d(input_channels=1, output_channels=2, kernel_size=(3, 3), stride=(1, 1), pad_mode=same, padding=0, \
dilation=(1, 1), group=1, has_bias=False, weight_init=ones, bias_init=None, format=NCHW)
  (bn): BatchNorm2d(num_features=2, eps=1e-05, momentum=0.9, gamma=Parameter (name=bn.gamma, shape=(2,), \
dtype=Float32, requires_grad=True), beta=Parameter (name=bn.beta, shape=(2,), dtype=Float32, requires_grad=True), \
moving_mean=Parameter (name=bn.moving_mean, shape=(2,), dtype=Float32, requires_grad=False), \
moving_variance=Parameter (name=bn.moving_variance, shape=(2,), dtype=Float32, requires_grad=False))
  (blocks): CellList(
    (0): ReLU()
    (1): Dense(input_channels=2, output_channels=2, has_bias=True)
  )
  (d): CellDict(
    (a): Tanh()
  )
)"""


def test_repr_matches_mindspore():
    assert repr(Net()) == NET_REPR
    assert str(Net()) == NET_REPR
    seq = nn.SequentialCell([nn.Flatten(), nn.Dense(4, 3), nn.ReLU(), nn.Dense(3, 2), nn.Softmax()])
    assert repr(seq) == ("SequentialCell(\n  (0): Flatten()\n  (1): Dense(input_channels=4, output_channels=3, "
                         "has_bias=True)\n  (2): ReLU()\n  (3): Dense(input_channels=3, output_channels=2, "
                         "has_bias=True)\n  (4): Softmax()\n)")
    named = nn.SequentialCell(OrderedDict([("inp", nn.Dense(3, 5)), ("act", nn.ReLU())]))
    assert repr(named) == ("SequentialCell(\n  (inp): Dense(input_channels=3, output_channels=5, has_bias=True)\n"
                           "  (act): ReLU()\n)")
    assert repr(nn.Dense(3, 2, has_bias=False, activation=nn.ReLU())) == (
        "Dense(\n  input_channels=3, output_channels=2, activation=ReLU()\n  (activation): ReLU()\n)")
    assert repr(nn.SequentialCell(nn.Dense(2, 3), nn.Dropout(p=0.1))) == (
        "SequentialCell(\n  (0): Dense(input_channels=2, output_channels=3, has_bias=True)\n  (1): Dropout(p=0.1)\n)")


def test_parameter_names():
    net = Net()
    want = ["conv.weight", "bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta", "blocks.1.weight",
            "blocks.1.bias"]
    assert [n for n, _ in net.parameters_and_names()] == want
    assert [p.name for p in net.get_parameters()] == want
    assert list(net.parameters_dict()) == want
    assert [n for n, _ in net.cells_and_names()] == ["", "conv", "bn", "blocks", "blocks.0", "blocks.1", "d", "d.a"]
    assert [p.name for p in net.trainable_params()] == ["conv.weight", "bn.gamma", "bn.beta", "blocks.1.weight",
                                                        "blocks.1.bias"]
    assert [p.name for p in net.untrainable_params()] == ["bn.moving_mean", "bn.moving_variance"]
    assert list(net.name_cells()) == ["conv", "bn", "blocks", "d"]
    assert [n for n, _ in net.parameters_and_names(expand=False)] == []
    assert net.cls_name == "Net"


def test_parameter_name_must_be_str_or_none():
    # MindSpore 2.10 raises ValueError (not TypeError) for a name of another type, at creation and on rename
    with pytest.raises(ValueError, match="should be 'string' or 'None', but got <class 'int'>"):
        ms.Parameter(ms.Tensor([1.0]), name=3)
    p = ms.Parameter(ms.Tensor([1.0]), name="w")
    with pytest.raises(ValueError, match="but got <class 'bytes'>"):
        p.name = b"x"
    assert p.name == "w"


def test_auto_prefix_and_parameter_tuples():
    class NoPrefix(nn.Cell):
        def __init__(self):
            super().__init__(auto_prefix=False)
            self.d = nn.Dense(1, 1)

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = NoPrefix()

    assert [p.name for p in NoPrefix().get_parameters()] == ["weight", "bias"]
    assert [p.name for p in Outer().get_parameters()] == ["p.d.weight", "p.d.bias"]

    class WithTuple(nn.Cell):
        def __init__(self):
            super().__init__()
            self.ws = ms.ParameterTuple([ms.Parameter(ms.Tensor([1.0]), name="a.b"),
                                         ms.Parameter(ms.Tensor([2.0]), name="c")])

    class Holder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = WithTuple()

    # MindSpore: the items of a ParameterTuple are parameters of the cell under their own names
    assert [n for n, _ in WithTuple().parameters_and_names()] == ["a.b", "c"]
    assert [p.name for p in Holder().get_parameters()] == ["inner.a.b", "inner.c"]
    with pytest.raises(ValueError, match="already exists"):
        WithTuple().ws2 = ms.ParameterTuple([ms.Parameter(ms.Tensor([1.0]), name="z"),
                                             ms.Parameter(ms.Tensor([1.0]), name="z")])


def test_insert_and_update_names():
    c = nn.Cell()
    c.insert_param_to_cell("w", ms.Parameter(ms.Tensor([1.0])))
    assert c.w.name == "w"
    c.insert_child_to_cell("dense", nn.Dense(1, 1))
    # MindSpore's insert_child_to_cell keeps the child's parameter names; parameters_and_names has the path
    assert [p.name for p in c.get_parameters()] == ["w", "weight", "bias"]
    assert [n for n, _ in c.parameters_and_names()] == ["w", "dense.weight", "dense.bias"]
    c.update_parameters_name("net.")
    assert [p.name for p in c.get_parameters()] == ["net.w", "net.dense.weight", "net.dense.bias"]
    c.attr = nn.Dense(1, 1)     # an attribute assignment is what prefixes
    assert [p.name for p in c.get_parameters()][3:] == ["attr.weight", "attr.bias"]
    with pytest.raises(TypeError, match="must be str"):
        c.insert_child_to_cell(1, nn.Dense(1, 1))
    with pytest.raises(KeyError, match="can not be None"):
        c.insert_child_to_cell("", nn.Dense(1, 1))
    with pytest.raises(KeyError):
        c.insert_param_to_cell("a.b", ms.Parameter(ms.Tensor([1.0])))
    with pytest.raises(TypeError):
        c.insert_child_to_cell("x", 3)
    c.w = ms.Tensor([5.0])  # assigning a Tensor to a parameter attribute sets its data
    assert isinstance(c.w, ms.Parameter) and float(c.w) == 5.0


class Doubler(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(x) * 2


def test_backward_hook_and_handle_removal():
    seen = []

    def hook(cell, grad_input, grad_output):
        seen.append((type(cell).__name__, [g.asnumpy().tolist() for g in grad_input],
                     [g.asnumpy().tolist() for g in grad_output]))
        return (grad_input[0] * 10,)

    net = Doubler()
    handle = net.relu.register_backward_hook(hook)
    x = ms.Tensor(np.array([-1.0, 2.0], np.float32))
    np.testing.assert_allclose(ms.grad(net)(x).asnumpy(), [0.0, 20.0])  # MindSpore prints [0, 20]
    assert seen == [("ReLU", [[0.0, 2.0]], [[2.0, 2.0]])]
    handle.remove()
    np.testing.assert_allclose(ms.grad(net)(x).asnumpy(), [0.0, 2.0])


def test_forward_hooks():
    net = Doubler()
    x = ms.Tensor(np.array([-1.0, 2.0], np.float32))
    h_pre = net.relu.register_forward_pre_hook(lambda cell, inputs: (inputs[0] + 1,))
    np.testing.assert_allclose(net(x).asnumpy(), [0.0, 6.0])
    h_fwd = net.register_forward_hook(lambda cell, inputs, out: out * 3)
    np.testing.assert_allclose(net(x).asnumpy(), [0.0, 18.0])
    np.testing.assert_allclose(ms.grad(net)(x).asnumpy(), [0.0, 6.0])  # relu(x + 1) is flat at x = -1
    h_pre.remove()
    h_fwd.remove()
    np.testing.assert_allclose(net(x).asnumpy(), [0.0, 4.0])
    calls = []
    with net.register_forward_hook(lambda cell, inputs, out: calls.append(out.shape)):
        net(x)
    net(x)
    assert calls == [(2,)]
    with pytest.raises(TypeError):
        net.register_forward_hook(3)


def test_custom_bprop():
    class Mul(nn.Cell):
        def construct(self, x, y):
            return x * y

        def bprop(self, x, y, out, dout):
            return dout * 5, y * 0

    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    y = ms.Tensor(np.array([3.0, 4.0], np.float32))
    gx, gy = ms.grad(Mul(), (0, 1))(x, y)
    np.testing.assert_allclose(gx.asnumpy(), [5.0, 5.0])
    np.testing.assert_allclose(gy.asnumpy(), [0.0, 0.0])
    np.testing.assert_allclose(Mul()(x, y).asnumpy(), [3.0, 8.0])


def test_to_float_and_set_train():
    d = nn.Dense(2, 2).to_float(ms.float16)
    assert d(ms.Tensor(np.ones((1, 2), np.float32))).dtype == ms.float16
    net = nn.SequentialCell([nn.Dense(2, 2), nn.Dropout(p=0.5)])
    assert not net.training
    assert net.set_train() is net
    assert net.training and net[1].training
    net.set_train(False)
    assert not net[1].training and net.phase == "predict"
    with pytest.raises(ValueError):
        nn.Dense(2, 2).to_float(ms.int32)


def test_sequential_cell():
    seq = nn.SequentialCell([nn.Dense(2, 3), nn.ReLU(), nn.Dense(3, 1)])
    assert len(seq) == 3 and type(seq[1]).__name__ == "ReLU" and isinstance(seq[-1], nn.Dense)
    part = seq[1:]
    assert repr(part) == ("SequentialCell(\n  (1): ReLU()\n  (2): Dense(input_channels=3, output_channels=1, "
                          "has_bias=True)\n)")
    assert [n for n, _ in part.parameters_and_names()] == ["2.weight", "2.bias"]
    del seq[0]
    assert [n for n, _ in seq.parameters_and_names()] == ["1.weight", "1.bias"]
    seq.append(nn.Dense(1, 1))
    assert [n for n, _ in seq.parameters_and_names()] == ["1.weight", "1.bias", "2.weight", "2.bias"]
    x = ms.Tensor(np.ones((4, 3), np.float32))
    assert seq(x).shape == (4, 1)
    with pytest.raises(TypeError):
        nn.SequentialCell([nn.ReLU(), 3])
    with pytest.raises(IndexError):
        seq[5]


def test_sequential_cell_list_is_the_children_construct_runs():
    """MindSpore's public `cell_list` follows append/del/setitem; iterating it by hand gives construct's output."""
    seq = nn.SequentialCell(OrderedDict([("a", nn.Dense(2, 3, weight_init="ones", bias_init="zeros")),
                                         ("b", nn.ReLU())]))
    assert [type(c).__name__ for c in seq.cell_list] == ["Dense", "ReLU"]
    seq.append(nn.Dense(3, 1, weight_init="ones", bias_init="ones"))
    seq[1] = nn.Tanh()
    assert [type(c).__name__ for c in seq.cell_list] == ["Dense", "Tanh", "Dense"]
    x = ms.Tensor(np.array([[0.1, -0.3]], np.float32))
    y = x
    for cell in seq.cell_list:
        y = cell(y)
    np.testing.assert_allclose(y.asnumpy(), [[3 * np.tanh(-0.2) + 1]], rtol=1e-6)
    np.testing.assert_allclose(seq(x).asnumpy(), y.asnumpy())
    del seq[1]
    assert [type(c).__name__ for c in seq.cell_list] == ["Dense", "Dense"]


def test_cell_list_and_dict():
    cl = nn.CellList([nn.ReLU()])
    cl.append(nn.Dense(1, 1))
    cl.insert(0, nn.Tanh())
    assert repr(cl) == ("CellList(\n  (0): Tanh()\n  (1): ReLU()\n  (2): Dense(input_channels=1, output_channels=1, "
                        "has_bias=True)\n)")
    assert [n for n, _ in cl.parameters_and_names()] == ["2.weight", "2.bias"]
    assert len(cl) == 3 and isinstance(cl[-1], nn.Dense)
    cl.extend([nn.Sigmoid()])
    assert len(cl) == 4
    cd = nn.CellDict({"a": nn.Dense(1, 1)})
    cd["b"] = nn.ReLU()
    assert list(cd.keys()) == ["a", "b"] and "a" in cd and len(cd) == 2
    assert [n for n, _ in cd.parameters_and_names()] == ["a.weight", "a.bias"]
    assert isinstance(cd.pop("b"), nn.ReLU) and list(cd) == ["a"]
    with pytest.raises(TypeError):
        cd[1] = nn.ReLU()


def test_cell_containers_check_elements_keys_and_indices_as_mindspore():
    with pytest.raises(TypeError, match="can not be CellDict"):
        nn.CellList([nn.CellDict({"a": nn.ReLU()})])
    with pytest.raises(TypeError, match="list"):
        nn.CellList((nn.ReLU(),))
    cl = nn.CellList([nn.ReLU(), nn.Tanh()])
    with pytest.raises(TypeError, match="'index'"):
        cl["0"]
    with pytest.raises(IndexError, match=r"\[-2, 2\)"):
        cl[2]
    with pytest.raises(IndexError, match=r"\[-2, 2\]"):
        cl.insert(3, nn.ReLU())
    cl.insert(2, nn.Sigmoid())
    cl[-1] = nn.ReLU()
    del cl[-3]
    assert [type(c).__name__ for c in cl] == ["Tanh", "ReLU"]
    cd = nn.CellDict()
    for key, exc in (("a.b", KeyError), ("", KeyError), ("training", KeyError), (3, TypeError)):
        with pytest.raises(exc):
            cd[key] = nn.ReLU()
    for cell in (None, nn.CellList(), nn.SequentialCell(), nn.CellDict()):
        with pytest.raises(TypeError):
            cd["x"] = cell
    cd.update([("p", nn.ReLU()), ["q", nn.Tanh()]])
    assert list(cd) == ["p", "q"]
    with pytest.raises(ValueError, match="length 2"):
        cd.update([("r", nn.ReLU(), 1)])
    with pytest.raises(TypeError):
        cd.update(5)


def test_cell_errors():
    class Early(nn.Cell):
        def __init__(self):
            self.d = nn.Dense(1, 1)

    with pytest.raises(AttributeError, match="super"):
        Early()
    with pytest.raises(AttributeError):
        nn.Cell()(ms.Tensor([1.0]))
    with pytest.raises(AttributeError, match="no attribute"):
        nn.Dense(1, 1).nope  # noqa: B018 (the access is what raises)


def test_parameter_tuple_attribute_names_as_mindspore():
    """Unnamed members of a ParameterTuple attribute become 'Parameter$<n>' (n counts from 1 per cell)."""
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(2, 3)
            self.extra = ms.ParameterTuple([ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="a"),
                                            ms.Parameter(ms.Tensor(np.ones(2, np.float32))),
                                            ms.Parameter(ms.Tensor(np.ones(1, np.float32)))])
            self.w = ms.Parameter(ms.Tensor(np.ones(1, np.float32)))

    net = Net()
    expected = ["a", "Parameter$1", "Parameter$2", "w", "dense.weight", "dense.bias"]
    assert [p.name for p in net.get_parameters()] == expected
    assert list(net.parameters_dict()) == expected
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    assert [p.name for p in opt.moments] == ["moments." + n for n in expected]


def test_set_jit_config_sets_the_cells_graph_jit_level_once():
    class Double(nn.Cell):
        def construct(self, x):
            return x * 2

    net = Double()
    net.set_jit_config(ms.JitConfig(jit_level="O0"))
    with pytest.warns(UserWarning, match="jit config can only be set once"):
        net.set_jit_config(ms.JitConfig(jit_level="O1"))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = net(ms.Tensor(np.array([1.0, 2.0], np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(out.asnumpy(), [2.0, 4.0])
    assert net._ms_compiled.jit_level == "O0"       # the first setting holds
    with pytest.raises(AttributeError, match="'jit_config' must be a JitConfig, but got dict"):
        Double().set_jit_config({"jit_level": "O0"})


def test_hook_handles_are_mindspores_hookhandle():
    # MindSpore 2.10: type(cell.register_forward_hook(...)).__name__ == 'HookHandle'
    net = nn.Dense(2, 1)
    handles = [net.register_forward_pre_hook(lambda cell, inputs: None),
               net.register_forward_hook(lambda cell, inputs, out: None),
               net.register_backward_hook(lambda cell, gin, gout: None)]
    assert [type(h).__name__ for h in handles] == ["HookHandle"] * 3
    assert len({h.handle_id for h in handles}) == 3
    for h in handles:
        h.remove()


def test_a_parameter_name_cannot_take_a_cell_and_back():
    """MindSpore's KeyError: a Cell assigned where a Parameter is (even set to None), or the other way round."""

    class ParamThenCell(nn.Cell):
        def __init__(self):
            super().__init__()
            self.weight = ms.Parameter(ms.Tensor([1.0]), name="weight")
            self.weight = None
            self.weight = nn.ReLU()

    class CellThenParam(nn.Cell):
        def __init__(self):
            super().__init__()
            self.sub = nn.ReLU()
            self.sub = ms.Parameter(ms.Tensor([1.0]), name="x")
    with pytest.raises(KeyError, match="the weight child cell already exists"):
        ParamThenCell()
    with pytest.raises(KeyError, match="the sub parameter already exists"):
        CellThenParam()


def test_graph_mode_call_with_an_unexpected_keyword_argument():
    """MindSpore's compiler: RuntimeError 'Got an unexpected keyword argument' (the error is a TypeError too)."""
    class Sub(nn.Cell):
        def construct(self, a=1, b=2):
            return a + b

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.subnet = Sub()

        def construct(self, a, b):
            return self.subnet(aa=a, bb=b)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(RuntimeError, match="Got an unexpected keyword argument"):
            Net()(ms.Tensor(1), ms.Tensor(2))
        assert Sub()(a=ms.Tensor(3), b=ms.Tensor(4)).asnumpy() == 7
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_update_local_parameters_name_skips_the_users_parameters():
    """Cell._update_local_parameters_name (mindspore_rl's TD3 networks): every parameter but those the user handed
    in (an optimizer's) gets the prefix; the prefix must be a name (MindSpore's ValueError)."""
    import re

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d = nn.Dense(2, 3)
            self.sub = nn.SequentialCell([nn.Dense(3, 1)])
            self._update_local_parameters_name(prefix="actor")

    assert [p.name for p in Net().get_parameters()] == ["actord.weight", "actord.bias", "actorsub.0.weight",
                                                        "actorsub.0.bias"]
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    opt = nn.Adam([p])
    assert opt._user_parameters == ["w"]
    opt._update_local_parameters_name("opt_")
    assert sorted(q.name for q in opt.get_parameters()) == [
        "opt_beta1_power", "opt_beta2_power", "opt_global_step", "opt_learning_rate", "opt_moment1.w",
        "opt_moment2.w", "w"]
    for bad in ("", "a b"):
        with pytest.raises(ValueError, match=re.escape(f"The '{bad}' is illegal, it must be match regular")):
            nn.Dense(1, 1)._update_local_parameters_name(bad)
    with pytest.raises(TypeError, match="must be list type"):
        opt._user_parameters = ("w",)


def test_cell_compile_traces_without_changing_the_parameters():
    class Counter(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="p")

        def construct(self, x):
            ms.ops.assign_add(self.p, x)
            return self.p * 2

    net = Counter()
    x = ms.Tensor(np.ones(2, np.float32))
    net.compile(x)
    assert net.p.asnumpy().tolist() == [0.0, 0.0]
    assert net(x).asnumpy().tolist() == [2.0, 2.0] and net.p.asnumpy().tolist() == [1.0, 1.0]


def test_dynamic_shape_inputs_is_what_set_inputs_declared():
    net = nn.Dense(3, 2)
    assert net._dynamic_shape_inputs is None
    dyn = ms.Tensor(shape=[None, 3], dtype=ms.float32)
    net.set_inputs(dyn)
    assert net._dynamic_shape_inputs == (dyn,) and net.get_inputs() == (dyn,)
    net._dynamic_shape_inputs = None
    assert net.get_inputs() is None


def test_bprop_debug_is_a_checked_switch():
    net = nn.Dense(3, 2)
    assert net.bprop_debug is False
    net.bprop_debug = True
    assert net.bprop_debug is True
    with pytest.raises(TypeError, match="'bprop_debug' must be bool type"):
        net.bprop_debug = 1


def test_graph_mode_phase_keeps_the_flags_it_was_compiled_with():
    """MindSpore compiles a cell once per named phase (mindformers' generation: 'prefill' then 'increment') and runs
    that graph again: the add_flags flags of a phase's first compile stay its own (oracle: MindSpore 2.10 gives
    6 / 4 / 6 / 4 / 4 below); a new shape compiles with them too."""
    class Net(nn.Cell):
        def construct(self, x):
            if self.double:
                return x * 2
            return x + 1

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Net()
        x = ms.Tensor(np.array([3.0], np.float32))
        got = []
        for phase, flag in (("prefill", True), ("increment", False), ("prefill", None), ("increment", None),
                            ("other", None)):
            net.phase = phase
            if flag is not None:
                net.add_flags(double=flag)
            got.append(float(net(x).asnumpy()[0]))
        assert got == [6.0, 4.0, 6.0, 4.0, 4.0]
        assert net.double is False                 # the call puts the cell's current flags back
        net.phase = "prefill"
        np.testing.assert_array_equal(net(ms.Tensor(np.array([3.0, 4.0], np.float32))).asnumpy(), [6.0, 8.0])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)

    class JitNet(nn.Cell):          # PyNative with a jitted construct: the same (oracle: 6 / 4 / 6)
        @ms.jit
        def construct(self, x):
            if self.double:
                return x * 2
            return x + 1

    net = JitNet()
    got = []
    for phase, flag in (("prefill", True), ("increment", False), ("prefill", None)):
        net.phase = phase
        if flag is not None:
            net.add_flags(double=flag)
        got.append(float(net(x).asnumpy()[0]))
    assert got == [6.0, 4.0, 6.0] and net.double is False


class _PickConstruct(nn.Cell):
    def construct(self, *inputs):
        raise NotImplementedError

    def add_two(self, x, y):
        return x + y * 2


def test_instance_construct_set_to_another_method_is_the_one_compiled():
    # setattr(net, "construct", net.other_method) makes graph mode (and @jit) parse that method
    net = _PickConstruct()
    net.construct = net.add_two
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = ms.Tensor(np.ones((2, 3), np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = net(x, y).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(out, np.arange(6).reshape(2, 3) + 2.0)
    out = ms.jit(lambda a, b: net(a, b))(x, y).asnumpy()
    np.testing.assert_allclose(out, np.arange(6).reshape(2, 3) + 2.0)


def test_pipeline_stage_and_segment_are_checked_when_set():
    cell = nn.Cell()
    with pytest.raises(ValueError, match="the property 'pipeline_stage' can not be less than 0, but got -1"):
        cell.pipeline_stage = -1
    with pytest.raises(TypeError, match="'pipeline_stage' must be int type, but got type : <class 'float'>"):
        cell.pipeline_stage = 1.5
    with pytest.raises(ValueError, match="'pipeline_stages' can not be less than 0, but got -2"):
        cell.pipeline_segment = -2
    cell.pipeline_stage, cell.pipeline_segment = 2, 0
    assert (cell.pipeline_stage, cell.pipeline_segment) == (2, 0)


def test_cell_subclass_may_mix_in_abc():
    """MindSpore's Cell is a plain class: `class Router(ABC, nn.Cell)` (mindformers' MoE router) defines a network
    whose abstract methods must be overridden before it is instantiated."""
    import abc

    class Base(abc.ABC, nn.Cell):
        @abc.abstractmethod
        def scale(self):
            """How much construct multiplies by."""

        def construct(self, x):
            return x * self.scale()

    class Double(Base):
        def scale(self):
            return 2.0

    with pytest.raises(TypeError, match="abstract"):
        Base()
    net = Double()
    assert isinstance(net, nn.Cell) and isinstance(net, abc.ABC)
    np.testing.assert_array_equal(net(ms.Tensor(np.array([1.5, -2.0], np.float32))).asnumpy(), [3.0, -4.0])
