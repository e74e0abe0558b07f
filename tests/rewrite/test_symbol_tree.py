"""mindspore.rewrite: SymbolTree parsing, editing and the networks it generates, checked against numpy."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from mindseed.rewrite import Node, NodeType, ScopedValue, SymbolTree, ValueType
from _lenet_tutorial import LeNet5


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 5)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(5, 3)

    def construct(self, x):
        y = self.fc1(x)
        z = self.relu(y)
        return self.fc2(z) + 1.0


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 3)
        self.act = nn.Tanh()

    def construct(self, x):
        return self.act(self.dense(x)) + x


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.seq = nn.SequentialCell([nn.Dense(3, 3), nn.ReLU()])
        self.head = nn.Dense(3, 2)

    def construct(self, x):
        x = self.block(x)
        x = self.seq(x)
        return self.head(x)


class Double(nn.Cell):
    def construct(self, x):
        return x * 2.0


class DenseRelu(nn.Cell):
    """Dense followed by ReLU as one cell (what a fusion pattern builds)."""

    def __init__(self, dense):
        super().__init__()
        self.dense = dense

    def construct(self, x):
        return ops.relu(self.dense(x))


def _np(t):
    return t.asnumpy().astype(np.float64)


def _dense(cell, x):
    return x @ _np(cell.weight).T + _np(cell.bias)


@pytest.fixture
def x4():
    return np.random.default_rng(1).standard_normal((6, 4)).astype(np.float32)


def test_lenet_nodes_topology_and_code():
    stree = SymbolTree.create(LeNet5())
    names = [n.get_name() for n in stree.nodes()]
    # MindSpore 2.10's names: the `return x` inside the if body takes 'return', the last node 'return_1'
    assert names == ['input_x', 'conv1', 'relu', 'max_pool2d', 'conv2', 'relu_1', 'max_pool2d_1', 'unaryop_not',
                     'if_node', 'flatten', 'fc1', 'relu_2', 'fc2', 'relu_3', 'fc3', 'return_1']
    types = [n.get_node_type() for n in stree.nodes()]
    assert types.count(NodeType.CallCell) == 12 and types[0] == NodeType.Input and types[-1] == NodeType.Output
    assert types[7] == NodeType.MathOps and types[8] == NodeType.ControlFlow
    conv2 = stree.get_node("conv2")
    assert [n.get_name() for n in conv2.get_inputs()] == ["max_pool2d"]
    assert [n.get_name() for n in stree.get_node("conv1").get_users()] == ["relu"]
    assert conv2.get_instance_type() is nn.Conv2d and str(conv2.get_args()) == "[x]"
    assert [str(t) for t in stree.get_node("fc1").get_targets()] == ["fc1_var"]
    assert [str(a) for a in stree.get_node("relu_2").get_args()] == ["fc1_var"]
    assert stree.get_node("missing") is None
    code = stree.get_code()
    assert "class LeNet5Opt(LeNet5):" in code and "fc1_var = self.fc1(x)" in code and "x = self.relu(fc1_var)" in code



class _Branchy(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()
        self.flag = True

    def construct(self, x, y):
        x = self.relu(x + y * 2)
        z = -x
        if x.sum() > 0:
            x = self.relu(x)
            return x
        if not self.flag:
            x = x * 3
        return self.relu(x - z)


def test_flattened_names_and_if_tests_as_mindspore():
    stree = SymbolTree.create(_Branchy())
    names = [n.get_name() for n in stree.nodes()]
    # as MindSpore 2.10: the nodes inside the if bodies (relu_1, return, binop_mult_1) hold their names
    assert names == ['input_x', 'input_y', 'binop_mult', 'binop_add', 'relu', 'unaryop_usub', 'sum', 'compare_gt',
                     'if_node', 'unaryop_not', 'if_node_1', 'binop_sub', 'relu_2', 'return_1']
    body = stree.get_code().split("def construct(self, x, y):\n")[1]
    assert [line.strip() for line in body.splitlines() if line.strip()] == [
        "mult_var = y * 2", "add_var = x + mult_var", "x = self.relu(add_var)", "z = -x", "sum_var = x.sum()",
        "compare_var = sum_var > 0", "if compare_var:", "x = self.relu(x)", "return x", "not_var = not self.flag",
        "if not_var:", "x = x * 3", "sub_var = x - z", "relu_var = self.relu(sub_var)", "return relu_var"]
    x = ms.Tensor(np.array([[1.0, -2.0]], np.float32))
    np.testing.assert_array_equal(stree.get_network()(x, x).asnumpy(), _Branchy()(x, x).asnumpy())


def test_cell_nodes_carry_the_layer_attributes():
    stree = SymbolTree.create(LeNet5())
    conv2 = stree.get_node("conv2")
    assert conv2.get_attribute("kernel_size") == (5, 5) and conv2.get_attribute("pad_mode") == "valid"
    assert conv2.get_attribute("in_channels") == 6 and conv2.get_attribute("out_channels") == 16
    assert conv2.get_attribute("cls") is nn.Conv2d and conv2.get_attribute("missing") is None
    assert not any(key.startswith("_") for key in conv2.get_attributes())
    assert stree.get_node("input_x").get_attributes() == {}
    created = Node.create_call_cell(nn.BatchNorm2d(4, eps=1e-3), ["y"], [ScopedValue.create_naming_value("x")])
    assert created.get_attribute("eps") == 1e-3 and created.get_attribute("cls") is nn.BatchNorm2d
    assert ms.get_context("enable_ge") is False

def test_unmodified_network_computes_the_same():
    net = LeNet5()
    x = ms.Tensor(np.random.default_rng(0).random((2, 1, 32, 32), dtype=np.float32))
    new = SymbolTree.create(net).get_network()
    assert type(new).__name__ == "LeNet5Opt" and isinstance(new, LeNet5)
    np.testing.assert_array_equal(new(x).asnumpy(), net(x).asnumpy())
    assert [p.name for p in new.trainable_params()] == [p.name for p in net.trainable_params()]


def test_flatten_static_if_removes_the_branch_not_taken():
    # the flattened test (`not_var = not self.include_top`) stays, as in MindSpore
    for include_top, count, out_shape in ((True, 15, (2, 10)), (False, 9, (2, 16, 5, 5))):
        net = LeNet5(include_top=include_top)
        stree = SymbolTree.create(net)
        stree.flatten_static_if_control_flow()
        nodes = list(stree.nodes())
        assert len(nodes) == count and nodes[-1].get_name() == ("return_1" if include_top else "return_2")
        assert all(n.get_node_type() != NodeType.ControlFlow for n in nodes)
        x = ms.Tensor(np.random.default_rng(0).random((2, 1, 32, 32), dtype=np.float32))
        new = stree.get_network()
        assert new(x).shape == out_shape
        np.testing.assert_allclose(new(x).asnumpy(), net(x).asnumpy(), rtol=1e-6, atol=1e-6)


def test_insert_after_node(x4):
    net = MLP()
    stree = SymbolTree.create(net)
    fc1 = stree.get_node("fc1")
    node = Node.create_call_cell(Double(), targets=["y"], args=[ScopedValue.create_naming_value("y")], name="double")
    inserted = stree.insert(stree.after(fc1), node)
    assert inserted.get_name() == "double"
    assert [n.get_name() for n in stree.get_node("relu").get_inputs()] == ["double"]
    assert [n.get_name() for n in fc1.get_users()] == ["double"]
    new = stree.get_network()
    expected = _dense(net.fc2, np.maximum(2 * _dense(net.fc1, x4), 0)) + 1
    np.testing.assert_allclose(_np(new(ms.Tensor(x4))), expected, rtol=1e-5, atol=1e-5)
    assert "double" in dict(new.name_cells())


def test_replace_and_erase(x4):
    net = MLP()
    stree = SymbolTree.create(net)
    relu = stree.get_node("relu")
    sig = Node.create_call_cell(nn.Sigmoid(), targets=relu.get_targets(), args=relu.get_args(), name="sigmoid")
    stree.replace(relu, [sig])
    assert stree.get_node("relu") is None and [n.get_name() for n in stree.get_node("fc2").get_inputs()] == ["sigmoid"]
    new = stree.get_network()
    h = _dense(net.fc1, x4)
    np.testing.assert_allclose(_np(new(ms.Tensor(x4))), _dense(net.fc2, 1 / (1 + np.exp(-h))) + 1, rtol=1e-5,
                               atol=1e-5)
    # as MindSpore's rewrite, the replaced cell stays an attribute of the new network (unused)
    assert list(dict(new.name_cells())) == ["fc1", "relu", "fc2", "sigmoid"]
    stree.erase(stree.get_node("sigmoid"))              # its user reads its input instead
    assert [str(a) for a in stree.get_node("fc2").get_args()] == ["y"]
    new = stree.get_network()
    np.testing.assert_allclose(_np(new(ms.Tensor(x4))), _dense(net.fc2, h) + 1, rtol=1e-5, atol=1e-5)
    assert list(dict(new.name_cells())) == ["fc1", "relu", "fc2", "sigmoid"]


def test_replaced_and_erased_cells_keep_their_parameters_in_the_new_network():
    """MindSpore 2.10 (checked): replacing fc2 by `head` and erasing relu leaves fc2 and relu on the network, so
    its trainable parameters are fc1's, fc2's and head's; the construct runs fc1 then head."""
    net = MLPInPlace()
    stree = SymbolTree.create(net)
    fc2 = stree.get_node("fc2")
    head = nn.Dense(5, 3)
    stree.replace(fc2, [Node.create_call_cell(head, fc2.get_targets(), fc2.get_args(), name="head")])
    stree.erase(stree.get_node("relu"))
    new = stree.get_network()
    assert [n for n, _ in new.cells_and_names()] == ["", "fc1", "relu", "fc2", "head"]
    assert [p.name for p in new.trainable_params()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
                                                        "head.weight", "head.bias"]
    x = np.random.default_rng(3).standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(_np(new(ms.Tensor(x))), _dense(head, _dense(net.fc1, x)), rtol=1e-5, atol=1e-5)


def test_set_arg_and_set_arg_by_node(x4):
    net = MLP()
    stree = SymbolTree.create(net)
    fc2 = stree.get_node("fc2")
    fc2.set_arg(0, "y")                 # skip the activation
    new = stree.get_network()
    np.testing.assert_allclose(_np(new(ms.Tensor(x4))), _dense(net.fc2, _dense(net.fc1, x4)) + 1, rtol=1e-5,
                               atol=1e-5)
    fc2.set_arg_by_node(0, stree.get_node("relu"))
    assert [n.get_name() for n in fc2.get_inputs()] == ["relu"]
    expected = _dense(net.fc2, np.maximum(_dense(net.fc1, x4), 0)) + 1
    np.testing.assert_allclose(_np(stree.get_network()(ms.Tensor(x4))), expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="out of range"):
        fc2.set_arg(3, "y")
    with pytest.raises(TypeError, match="arg"):
        fc2.set_arg(0, 1.5)


def test_math_ops_node_and_return():
    stree = SymbolTree.create(MLP())
    add = stree.get_node("binop_add")
    assert add.get_node_type() == NodeType.MathOps
    assert [n.get_name() for n in add.get_inputs()] == ["fc2"]
    assert add.get_args()[1].type == ValueType.ConstantValue and add.get_args()[1].value == 1.0
    assert [n.get_name() for n in stree.get_return_node().get_inputs()] == ["binop_add"]


def test_subtree_and_cell_container(x4):
    net = Outer()
    stree = SymbolTree.create(net)
    block, seq = stree.get_node("block"), stree.get_node("seq")
    assert block.get_node_type() == NodeType.Tree and seq.get_node_type() == NodeType.CellContainer
    sub = block.get_sub_tree()
    assert [n.get_name() for n in sub.nodes()] == ["input_x", "dense", "act", "binop_add", "return"]
    assert len(stree.all_nodes()) == 5 + 2 + 5
    x3 = x4[:, :3]
    np.testing.assert_allclose(stree.get_network()(ms.Tensor(x3)).asnumpy(), net(ms.Tensor(x3)).asnumpy(),
                               rtol=1e-6, atol=1e-6)
    # inside the sub-network: tanh -> sigmoid; in the SequentialCell: ReLU -> Double
    act = sub.get_node("act")
    sub.replace(act, [Node.create_call_cell(nn.Sigmoid(), act.get_targets(), act.get_args(), name="sig")])
    relu = Node(seq.get_handler().nodes()[1])
    stree.replace(relu, [Node.create_call_cell(Double(), relu.get_targets(), relu.get_args(), name="double")])
    new = stree.get_network()
    h = 1 / (1 + np.exp(-_dense(net.block.dense, x3))) + x3
    h = 2 * _dense(net.seq[0], h)
    np.testing.assert_allclose(_np(new(ms.Tensor(x3))), _dense(net.head, h), rtol=1e-5, atol=1e-5)
    assert new.block is not net.block and type(new.block).__name__ == "BlockOpt"
    names = [p.name for p in new.trainable_params()]
    assert names == ["block.dense.weight", "block.dense.bias", "seq.0.weight", "seq.0.bias", "head.weight",
                     "head.bias"]


def test_pattern_engine_replaces_a_chain(x4):
    from mindseed.rewrite import PatternEngine, Replacement

    class Fuse(Replacement):
        def build(self, pattern, is_chain_pattern, matched):
            dense, relu = list(matched.values())
            return [Node.create_call_cell(DenseRelu(dense.get_instance()), relu.get_targets(), dense.get_args(),
                                          name="dense_relu")]

    net = MLP()
    stree = SymbolTree.create(net)
    assert PatternEngine([nn.Dense, nn.ReLU], Fuse()).apply(stree)
    assert [n.get_name() for n in stree.nodes()] == ["input_x", "dense_relu", "fc2", "binop_add", "return"]
    expected = _dense(net.fc2, np.maximum(_dense(net.fc1, x4), 0)) + 1
    np.testing.assert_allclose(_np(stree.get_network()(ms.Tensor(x4))), expected, rtol=1e-5, atol=1e-5)
    assert not PatternEngine([nn.Dense, nn.ReLU], Fuse()).apply(stree)      # nothing left to match


class MLPInPlace(nn.Cell):
    """MLP writing every layer's output back to `x` (how most networks read: `x = self.conv(x); x = self.bn(x)`)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 5)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(5, 3)

    def construct(self, x):
        x = self.fc1(x)
        x = self.relu(x)
        x = self.fc2(x)
        return x


def test_pattern_engine_erases_the_whole_match_when_the_chain_reuses_one_name(x4):
    """The replacement reads the chain's input `x` (the first node's args, as Golden Stick's conv+bn fusion
    builds it): every matched node goes, so fc1 runs once, inside the fused cell."""
    from mindseed.rewrite import PatternEngine, Replacement

    class Fuse(Replacement):
        def build(self, pattern, is_chain_pattern, matched):
            dense, relu = list(matched.values())
            return [Node.create_call_cell(DenseRelu(dense.get_instance()), dense.get_targets(), dense.get_args(),
                                          name="dense_relu")]

    net = MLPInPlace()
    stree = SymbolTree.create(net)
    assert PatternEngine([nn.Dense, nn.ReLU], Fuse()).apply(stree)
    assert [n.get_name() for n in stree.nodes()] == ["input_x", "dense_relu", "fc2", "return"]
    out = stree.get_network()(ms.Tensor(x4))
    np.testing.assert_allclose(_np(out), _dense(net.fc2, np.maximum(_dense(net.fc1, x4), 0)), rtol=1e-5, atol=1e-5)


def test_generated_network_trains_in_graph_mode(x4):
    net = MLP()
    stree = SymbolTree.create(net)
    relu = stree.get_node("relu")
    stree.insert(stree.before(relu), Node.create_call_cell(Double(), ["y"], [ScopedValue.create_naming_value("y")]))
    new = stree.get_network()
    pynative = new(ms.Tensor(x4)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_allclose(new(ms.Tensor(x4)).asnumpy(), pynative, rtol=1e-6, atol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    loss_fn = nn.MSELoss()
    train = nn.TrainOneStepCell(nn.WithLossCell(new, loss_fn), nn.SGD(new.trainable_params(), 0.05))
    target = ms.Tensor(np.zeros((6, 3), np.float32))
    losses = [float(train(ms.Tensor(x4), target).asnumpy()) for _ in range(5)]
    assert losses[-1] < losses[0]


def test_bad_arguments():
    with pytest.raises(TypeError, match="network"):
        SymbolTree.create(ops.relu)
    stree = SymbolTree.create(MLP())
    node = Node.create_call_cell(nn.ReLU(), ["z"], [ScopedValue.create_naming_value("z")])
    stree.insert(stree.after("relu"), node)
    with pytest.raises(RuntimeError, match="already belongs"):
        stree.insert(stree.after("fc1"), node)
    with pytest.raises(ValueError, match="not a node of this SymbolTree"):
        stree.after("nope")
    with pytest.raises(TypeError, match="targets"):
        Node.create_call_cell(nn.ReLU(), "z")
    with pytest.raises(TypeError, match="cell"):
        Node.create_call_cell(lambda x: x, ["z"])
    block = SymbolTree.create(Block())
    with pytest.raises(RuntimeError, match="cannot be erased"):
        block.erase("binop_add")        # `act_var + x`: two inputs, none to hand its user


def test_scoped_value():
    v = ScopedValue.create_variable_value((1, [2.0, "a"], {"k": None}))
    assert v.type == ValueType.TupleValue and str(v.value[1]) == "[2.0, a]"
    assert str(ScopedValue.create_naming_value("conv", "self")) == "self.conv"
    assert [str(s) for s in ScopedValue.create_name_values(["z", "z_1"], ["self", "self"])] == ["self.z", "self.z_1"]
    with pytest.raises(RuntimeError, match="length"):
        ScopedValue.create_name_values(["a"], ["b", "c"])
    assert ms.SymbolTree is SymbolTree and ms.Node is Node and ms.NodeType is NodeType and ms.ScopedValue is ScopedValue
