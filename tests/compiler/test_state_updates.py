"""State a network updates as a side effect (batch norm's running statistics, through `assign_value`) is
updated by compiled steps exactly as in PyNative: an `ms.jit` step with value_and_grad + optimizer, and a
GRAPH_MODE TrainOneStepCell. The losses alone would not show it (training-mode batch norm does not read them)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops


class ConvBN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3)
        self.bn1 = nn.BatchNorm2d(16, momentum=0.8)
        self.conv2 = nn.Conv2d(16, 16, 3)
        self.bn2 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        self.fc = nn.Dense(16, 4)

    def construct(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.relu(self.bn2(self.conv2(x)))
        return self.fc(x.mean(axis=(2, 3)))


def _data(i):
    rs = np.random.RandomState(i)
    x = ms.Tensor((rs.standard_normal((4, 3, 8, 8)) * (1 + i) + i).astype(np.float32))
    y = ms.Tensor(rs.randint(0, 4, size=(4,)).astype(np.int32))
    return x, y


def _net():
    ms.set_seed(3)
    net = ConvBN()
    net.set_train()
    return net


def _trained_with_value_and_grad(jit, read_stats=False):
    net = _net()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        if read_stats:   # the old statistic is read after the update: it must not be updated in place early
            loss = loss + 0 * net.bn1.moving_mean.sum()
        return loss
    step = ms.jit(step) if jit else step
    losses = [step(*_data(i)).asnumpy() for i in range(4)]
    if jit:
        step.nodes = [n.prim.name for g in step.graphs() for n in g.nodes]
    return net, losses, step


def _trained_with_train_one_step(mode):
    ms.set_context(mode=mode)
    try:
        net = _net()
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
        train = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
        train.set_train()
        losses = [train(*_data(i)).asnumpy() for i in range(4)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return net, losses


def _state(net):
    return {p.name: p.asnumpy() for p in net.get_parameters()}


def _assert_same(net, losses, ref_net, ref_losses):
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6)
    got, want = _state(net), _state(ref_net)
    assert got.keys() == want.keys()
    assert any("moving_mean" in k for k in want)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)
    # the running statistics moved away from their initial values, and evaluation reads them
    assert not np.allclose(want["bn1.moving_mean"], 0) and not np.allclose(want["bn2.moving_variance"], 1)
    net.set_train(False)
    ref_net.set_train(False)
    x, _ = _data(9)
    np.testing.assert_allclose(net(x).asnumpy(), ref_net(x).asnumpy(), rtol=1e-5, atol=1e-6)


def test_jit_step_updates_batch_norm_running_statistics():
    ref_net, ref_losses, _ = _trained_with_value_and_grad(jit=False)
    net, losses, step = _trained_with_value_and_grad(jit=True)
    _assert_same(net, losses, ref_net, ref_losses)
    # pass update_stats_in_place: both batch norms update their statistics in place, no Assign left
    assert step.nodes.count("BatchNormUpdate") == 2 and "BatchNorm" not in step.nodes and "Assign" not in step.nodes


def test_statistics_read_elsewhere_are_assigned_not_updated_in_place():
    ref_net, ref_losses, _ = _trained_with_value_and_grad(jit=False, read_stats=True)
    net, losses, step = _trained_with_value_and_grad(jit=True, read_stats=True)
    _assert_same(net, losses, ref_net, ref_losses)
    assert step.nodes.count("BatchNormUpdate") == 1 and step.nodes.count("BatchNorm") == 1
    assert step.nodes.count("Assign") == 2


@pytest.mark.parametrize("mode", ["GRAPH_MODE"])
def test_graph_mode_train_one_step_updates_batch_norm_running_statistics(mode):
    ref_net, ref_losses = _trained_with_train_one_step(ms.PYNATIVE_MODE)
    net, losses = _trained_with_train_one_step(getattr(ms, mode))
    _assert_same(net, losses, ref_net, ref_losses)


def test_assign_value_in_jit_is_repeated_each_call():
    acc = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="acc")

    @ms.jit
    def f(x):
        acc.assign_value(acc + x)
        return ops.reduce_sum(x)

    for _ in range(3):
        f(ms.Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(acc.asnumpy(), [3.0, 3.0, 3.0])


class _Counter(nn.Cell):
    """In-place updates of its Parameters in construct: each call of the compiled cell must repeat them."""

    def __init__(self):
        super().__init__()
        self.c = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="c")
        self.table = ms.Parameter(ms.Tensor(np.zeros((3, 2), np.float32)), name="table")
        self.hist = ms.Parameter(ms.Tensor(np.zeros(4, np.float32)), name="hist")

    def construct(self, x, i):
        self.c[1] = self.c[1] + 1
        self.c.mul_(2)
        ops.scatter_nd_update(self.table, i.reshape(1, 1), x.reshape(1, 2))
        ops.index_add(self.hist, i.reshape(1), x[:1], 0)
        self.hist.add_(1)
        return x + self.c


def _counter_run(mode):
    ms.set_context(mode=mode)
    try:
        cell = _Counter()
        outs = [cell(ms.Tensor(np.array([k + 1.0, -k], np.float32)), ms.Tensor(np.array(k % 3, np.int32))).asnumpy()
                for k in range(4)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return cell, outs


def test_in_place_updates_of_parameters_repeat_in_graph_mode():
    ref, ref_outs = _counter_run(ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(ref.c.asnumpy(), [0, 30])       # ((((0+1)*2+1)*2+1)*2+1)*2
    np.testing.assert_array_equal(ref.table.asnumpy(), [[4, -3], [2, -1], [3, -2]])
    np.testing.assert_array_equal(ref.hist.asnumpy(), [1 + 4 + 4, 2 + 4, 3 + 4, 4])
    cell, outs = _counter_run(ms.GRAPH_MODE)
    for name in ("c", "table", "hist"):
        np.testing.assert_array_equal(getattr(cell, name).asnumpy(), getattr(ref, name).asnumpy(), err_msg=name)
    np.testing.assert_array_equal(outs, ref_outs)


def test_in_place_update_of_a_global_parameter_in_jit():
    p = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="p")

    @ms.jit
    def f(x):
        p.add_(x)
        p[0] = p[0] * 2
        return x * 2

    for _ in range(3):
        f(ms.Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), [14.0, 3.0, 3.0])   # p0: (0+1)*2=2, (2+1)*2=6, (6+1)*2=14


def test_in_place_update_of_a_tensor_argument_reaches_the_caller():
    """MindSpore's graph mode writes a Tensor argument updated in place (x.add_(y)) in the caller's tensor,
    at the compiling call and at every later one (oracle, MindSpore 2.10: [4 6] [2 3], [6 8] [3 4], [12 12] [6 6])."""
    @ms.jit
    def f(x, y):
        x.add_(y)
        return x * 2

    x, one = ms.Tensor(np.array([1.0, 2.0], np.float32)), ms.Tensor(np.ones(2, np.float32))
    got = []
    for arg in (x, x):
        got.append((f(arg, one).asnumpy().tolist(), x.asnumpy().tolist()))
    z = ms.Tensor(np.array([5.0, 5.0], np.float32))
    got.append((f(z, one).asnumpy().tolist(), z.asnumpy().tolist()))
    assert got == [([4.0, 6.0], [2.0, 3.0]), ([6.0, 8.0], [3.0, 4.0]), ([12.0, 12.0], [6.0, 6.0])]

    @ms.jit
    def g(x, i):
        x[0] = x[0] + i
        return x.sum()

    # while item assignment in a graph is a new value (oracle: 2.0 three times, w unchanged)
    w = ms.Tensor(np.zeros(3, np.float32))
    totals = [float(g(w, ms.Tensor(2.0)).asnumpy()) for _ in range(3)]
    assert totals == [2.0, 2.0, 2.0] and w.asnumpy().tolist() == [0.0, 0.0, 0.0]


class _Loops(nn.Cell):
    """In-place Parameter updates under tensor conditions: traced bodies must not leave their updates behind."""

    def __init__(self):
        super().__init__()
        self.c = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="c")
        self.d = ms.Parameter(ms.Tensor(np.ones(1, np.float32)), name="d")

    def construct(self, x):
        while x < 3:
            self.c.add_(1)
            x = x + 1
        if x > 3:
            self.d[0] = self.d[0] * 10
            ops.assign_add(self.c, ms.Tensor(np.array([0.5], np.float32)))
        return x


def test_in_place_updates_under_tensor_control_flow_match_pynative():
    got = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            cell = _Loops()
            got[mode] = [(cell(ms.Tensor(np.array([v], np.float32))).asnumpy()[0], cell.c.asnumpy()[0],
                          cell.d.asnumpy()[0]) for v in (0.0, 2.0, 5.0, 1.0)]
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    assert got[ms.PYNATIVE_MODE] == [(3, 3, 1), (3, 4, 1), (5, 4.5, 10), (3, 6.5, 10)]
    assert got[ms.GRAPH_MODE] == got[ms.PYNATIVE_MODE]


def test_set_train_switches_the_compiled_graph_and_keeps_both():
    # dropout and batch statistics are in the training graph only: after set_train(False) the compiled cell and
    # an ms.jit function calling it follow the eval mode (a second graph); back in training the first graph
    # is reused
    x = ms.Tensor(np.ones((4, 8), np.float32))
    xs = ms.Tensor((np.random.RandomState(0).standard_normal((16, 8)) * 3 + 2).astype(np.float32))
    net = nn.SequentialCell(nn.BatchNorm1d(8), nn.Dropout(p=0.5))
    ref = nn.SequentialCell(nn.BatchNorm1d(8), nn.Dropout(p=0.5))
    f = ms.jit(lambda t: net(t))
    for train in (True, False, True, False):
        net.set_train(train)
        ref.set_train(train)
        want = ref(xs).asnumpy()
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            got = net(xs).asnumpy()
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        if train:   # dropout: about half zeros, the rest scaled
            assert 0.2 < np.mean(got == 0) < 0.8 and 0.2 < np.mean(want == 0) < 0.8
        else:       # eval: the moving statistics both nets updated in the same training calls
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(f(x).asnumpy(), ref(x).asnumpy())
    np.testing.assert_allclose(net[0].moving_mean.asnumpy(), ref[0].moving_mean.asnumpy(), rtol=1e-6)
    assert len(net._ms_compiled.cache) == 2 and net._ms_compiled.traces == 2
    assert f.traces == 1   # eval only


def test_reading_a_parameter_value_in_python_falls_back_instead_of_freezing_it():
    class Scaled(nn.Cell):
        def __init__(self):
            super().__init__()
            self.k = ms.Parameter(ms.Tensor(np.array([2.0], np.float32)), name="k")

        def construct(self, x):
            return x * float(self.k.asnumpy()[0])

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        cell = Scaled()
        x = ms.Tensor(np.ones(2, np.float32))
        with pytest.warns(UserWarning, match=r"JIT fallback.*Parameter 'k'"):
            np.testing.assert_array_equal(cell(x).asnumpy(), [2.0, 2.0])
        cell.k.set_data(ms.Tensor(np.array([5.0], np.float32)))
        np.testing.assert_array_equal(cell(x).asnumpy(), [5.0, 5.0])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class _ClassApiState(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="p")
        self.assign_add, self.assign_sub, self.assign = ops.AssignAdd(), ops.AssignSub(), ops.Assign()
        self.depend, self.print = ops.Depend(), ops.Print()

    def construct(self, x):
        self.assign_add(self.p, x)
        self.assign_sub(self.p, x * 0.5)
        y = self.depend(x * 2, self.p)
        self.print("p is", self.p, y)
        return y + self.p


def test_class_api_state_primitives_and_print_in_graph_mode(capsys):
    outs = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            cell = _ClassApiState()
            res = [cell(ms.Tensor(np.full(2, v, np.float32))).asnumpy().tolist() for v in (1.0, 2.0)]
            ops.Assign()(cell.p, ms.Tensor(np.array([7.0, 8.0], np.float32)))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        outs[mode] = (res, cell.p.asnumpy().tolist(), capsys.readouterr().out)
    res, p, printed = outs[ms.PYNATIVE_MODE]
    assert res == [[2.5, 2.5], [5.5, 5.5]] and p == [7.0, 8.0]
    assert printed.count("p is\n") == 2 and "Tensor(shape=[2], dtype=Float32" in printed
    assert outs[ms.GRAPH_MODE][:2] == outs[ms.PYNATIVE_MODE][:2]
    # the graph prints the same values with MindSpore's graph printer (no commas)
    assert outs[ms.GRAPH_MODE][2] == printed.replace(",  ", "  ").replace("value= [", "value=[")
    assert "value=[ 5.00000000e-01  5.00000000e-01]" in outs[ms.GRAPH_MODE][2]


_READS = {
    "row": lambda p: p[0], "slice": lambda p: p[1:], "col": lambda p: p[:, 1], "reshape": lambda p: p.reshape(-1),
    "T": lambda p: p.T, "expand_dims": lambda p: ops.expand_dims(p, 0), "stop_gradient": ops.stop_gradient,
    "broadcast": lambda p: ops.broadcast_to(p, (2, 2, 3)), "same_dtype": lambda p: p.astype(ms.float32),
    "split": lambda p: ops.split(p, 1, 0)[0], "diagonal": ops.diagonal, "contiguous": lambda p: p.contiguous(),
    "value": lambda p: p.value(), "detach": lambda p: p.detach(), "mul1": lambda p: p * 1,
}
_UPDATES = {
    "setitem": lambda p, x: p.__setitem__(0, x + p[0]), "assign": lambda p, x: ops.assign(p, p + x),
    "add_": lambda p, x: p.add_(x), "assign_add": lambda p, x: ops.assign_add(p, ops.broadcast_to(x, (2, 3))),
}


def _read_then_update(read, update):
    """A Cell class whose construct reads its Parameter with `read`, then updates it with `update`."""
    class C(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = ms.Parameter(ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), name="p")

        def construct(self, x):
            old = read(self.p)
            update(self.p, x)
            return old, self.p * 1
    return C


@pytest.mark.parametrize("update", sorted(_UPDATES))
def test_reads_of_a_parameter_before_its_update_keep_the_old_value(update):
    """A view or identity of a Parameter read before the Parameter is updated in the graph holds the value it
    had then, as in PyNative (the update gives the Parameter new storage)."""
    x = ms.Tensor(np.ones(3, np.float32))
    for read_name, read in _READS.items():
        C = _read_then_update(read, _UPDATES[update])
        eager, graph = C(), C()
        step = ms.jit(graph)
        for _ in range(3):
            for want, got in zip(eager(x), step(x)):
                np.testing.assert_array_equal(got.asnumpy(), want.asnumpy(), err_msg=read_name)
        np.testing.assert_array_equal(graph.p.asnumpy(), eager.p.asnumpy())


class _AddInPlace(nn.Cell):
    def construct(self, x, y):
        x.add_(y)
        return x * 2


@pytest.mark.parametrize("jit", [True, False])
def test_grad_of_compiled_cell_updating_its_input_in_place(jit):
    # the static-graph tutorial's in-place example: d(2 * (x + y))/dx = 2 (MindSpore 2.10 gives 2 and 2; the
    # input's gradient is taken at its value before the update)
    net = _AddInPlace()
    if jit:
        net.construct = ms.jit(net.construct)
    else:
        ms.set_context(mode=ms.GRAPH_MODE)
    try:
        x, y = ms.Tensor(2.0), ms.Tensor(3.0)
        gx, gy = ms.grad(net, grad_position=(0, 1))(x, y)
        assert (float(gx), float(gy)) == (2.0, 2.0)
        gi = ms.grad(net)(ms.Tensor(2, ms.int32), ms.Tensor(3, ms.int32))
        assert int(gi) == 2 and gi.dtype == ms.int32
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
