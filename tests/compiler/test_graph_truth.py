"""A tensor deciding `and`, `or`, `not`, `if` or a conditional expression in a graph must have shape () or (1,)
(MindSpore's graph rule), also when the tensor is a constant known while tracing; PyNative only refuses tensors of
more than one element."""
import numpy as np
import pytest

import mindseed as ms


def _and():
    return ms.Tensor([0, 1]) and ms.Tensor([1, 2])


def _or():
    return ms.Tensor([0, 1]) or ms.Tensor([1, 2])


def _not():
    return not ms.Tensor([[1]])


def _ifexp():
    return 1 if ms.Tensor([[2]]) else 0


def _if():
    x = ms.Tensor([[0, 1]])
    if x:
        return 1
    return 0


@pytest.mark.parametrize("fn, shape", [(_and, "(2)"), (_or, "(2)"), (_not, "(1, 1)"), (_ifexp, "(1, 1)"),
                                       (_if, "(1, 2)")])
def test_a_constant_tensor_condition_needs_shape_scalar_or_one(fn, shape):
    with pytest.raises(ValueError, match=rf"Only tensor which shape is \(\) or \(1,\) can be converted to bool, but "
                                         rf"got tensor shape is \{shape[:-1]}\)"):
        ms.jit(fn)()


def test_constant_conditions_of_one_element_decide_at_trace_time():
    @ms.jit
    def f(x):
        a = ms.Tensor([1]) and x * 2
        b = ms.Tensor(0) or x * 3
        c = 5 if not ms.Tensor([0]) else 7
        return a, b, c

    a, b, c = f(ms.Tensor(np.array([1.5], np.float32)))
    assert (float(a[0]), float(b[0]), c) == (3.0, 4.5, 5)
    assert bool(not ms.Tensor([[0]]))          # PyNative: one element, any shape


@pytest.mark.parametrize("x, want", [(10.0, (False, False, True, True, True)), (0.0, (False, False, False, False,
                                                                                          False))])
def test_all_and_any_of_graph_tensors_and_constants(x, want):
    @ms.jit
    def f(x):
        return all((x, None)), all((x, 0)), any((None, x)), all((x, x)), any([x, 0])

    assert tuple(bool(v) for v in f(ms.Tensor(np.array(x, np.float64)))) == want
