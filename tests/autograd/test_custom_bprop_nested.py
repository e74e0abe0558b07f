"""A Cell bprop whose forward returns a nested tuple: `out` and `dout` reach the bprop with that structure."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, nn, ops


class _Relu(nn.Cell):
    def construct(self, x, y):
        return ops.relu(x)


class _Nested(nn.Cell):
    def __init__(self):
        super().__init__()
        self.f = _Relu()

    def construct(self, x, y):
        return self.f(x, y), ops.GradOperation(get_all=True)(self.f)(x, y)

    def bprop(self, x, y, out, dout):
        assert isinstance(out[1], tuple) and isinstance(dout[1], tuple)
        return out[1][0] * 3 + dout[0], dout[1][1]


class _Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.f = _Nested()

    def construct(self, x, y):
        return self.f(x, y)


def _run():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        x = Tensor(np.array([[1.0, -2.0], [3.0, 0.5]], np.float32))
        y = Tensor(np.ones([2, 2], np.float32))
        return ops.GradOperation(get_all=True)(_Outer())(x, y)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_nested_tuple_output_bprop_in_a_graph():
    # d relu(x)/dx = [[1, 0], [1, 1]]; out[1][0] * 3 + dout[0] (ones); dout[1][1] = ones (MindSpore 2.10 CPU)
    gx, gy = _run()
    np.testing.assert_allclose(gx.asnumpy(), [[4.0, 1.0], [4.0, 4.0]])
    np.testing.assert_allclose(gy.asnumpy(), np.ones([2, 2]))


class _BpropNotTuple(nn.Cell):
    def __init__(self, as_list):
        super().__init__()
        self.as_list = as_list

    def construct(self, x):
        return x * 2

    def bprop(self, x, out, dout):
        return [dout * 3] if self.as_list else dout * 3


@pytest.mark.parametrize("as_list", [False, True])
def test_bprop_output_must_be_a_tuple_in_a_graph_only(as_list):
    x = Tensor(np.array([1.0, -2.0], np.float32))
    # PyNative takes a lone gradient or a list
    np.testing.assert_allclose(ops.GradOperation()(_BpropNotTuple(as_list))(x).asnumpy(), [3.0, 3.0])
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(TypeError, match="For bprop function, output should be a tuple"):
            ops.GradOperation()(_BpropNotTuple(as_list))(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class _AddBprop(nn.Cell):
    def construct(self, x, y):
        return x + y


class _AddOutOnly(_AddBprop):
    def bprop(self, out):
        return out, out


class _AddNoDout(_AddBprop):
    def bprop(self, x, y, out):
        return out, out


class _AddRight(_AddBprop):
    def bprop(self, x, y, out, dout):
        return dout * 2, dout * 3


def test_bprop_takes_the_inputs_then_out_and_dout():
    x, y = Tensor(np.array([1.0], np.float32)), Tensor(np.array([2.0], np.float32))
    grads = ops.GradOperation(get_all=True)(_AddRight())(x, y)
    assert [g.asnumpy().tolist() for g in grads] == [[2.0], [3.0]]
    with pytest.raises(TypeError, match="requires at least 2 params 'out' and 'dout', but got only 1"):
        ops.GradOperation(get_all=True)(_AddOutOnly())(x, y)
    with pytest.raises(TypeError, match="requires the forward inputs as well as the 'out' and 'dout'"):
        ops.GradOperation(get_all=True)(_AddNoDout())(x, y)


def test_grad_operation_argument_checks():
    with pytest.raises(TypeError, match="For 'GradOperation', the 'sens_param' should be bool, but got int"):
        ops.GradOperation(sens_param=2)
    with pytest.raises(TypeError, match="For 'GradOperation', the 'get_all' should be bool, but got str"):
        ops.GradOperation(get_all="yes")
    with pytest.raises(TypeError, match="first argument must be a 'Function' or 'Cell', but got NoneType"):
        ops.GradOperation()(None)
    with pytest.raises(TypeError, match="requires a forward network or function as an input, while the input is "
                                        "empty"):
        ops.GradOperation()()


def test_hook_backward_runs_its_hook_in_pynative_only():
    seen = []
    hook = ops.HookBackward(lambda g: seen.append(g[0].asnumpy().tolist()))

    def f(x):
        return (hook(x) * 3.0).sum()

    x = Tensor(np.array([1.0, 2.0], np.float32))
    assert ms.grad(f)(x).asnumpy().tolist() == [3.0, 3.0] and seen == [[3.0, 3.0]]
    # a compiled graph keeps the identity and drops the hook, as MindSpore's does
    assert ms.grad(ms.jit(f))(x).asnumpy().tolist() == [3.0, 3.0] and seen == [[3.0, 3.0]]


class _JitBprop(nn.Cell):
    def construct(self, x, y):
        return 2 * x * x + y * y

    @ms.jit
    def bprop(self, x, y, out, dout):
        return dout, 2 * y


def test_a_jit_decorated_bprop_is_refused():
    x = Tensor(np.ones((2, 2), np.float32))
    with pytest.raises(RuntimeError, match="Decorating bprop with '@jit' is not supported."):
        ops.GradOperation(get_all=True)(_JitBprop())(x, x)


def test_hook_backward_returning_a_tuple_of_the_wrong_length_is_an_error():
    # MindSpore 2.10: the hook gets the gradients as a tuple; it may return None, a Tensor or a tuple of the same
    # length
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    for hook, expected in ((lambda g: (g[0] * 2,), [9.0, 18.0]), (lambda g: g[0] * 2, [9.0, 18.0]),
                           (lambda g: None, [6.0, 12.0])):
        hb = ops.HookBackward(hook)
        np.testing.assert_allclose(ms.grad(lambda a, hb=hb: (hb(a * 3) * a).sum())(x).asnumpy(), expected)
    hb = ops.HookBackward(lambda g: g * 2)
    with pytest.raises(TypeError, match="should be a tensor but got tuple"):
        ms.grad(lambda a: (hb(a * 3) * a).sum())(x)
