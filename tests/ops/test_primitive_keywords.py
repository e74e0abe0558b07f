"""A primitive called with a keyword argument its call does not take: Python's TypeError in PyNative, MindSpore's
compiler's RuntimeError ('Got an unexpected keyword argument') in a graph; right keywords work in both."""

import numpy as np
import pytest

import mindseed as ms
from mindseed import ops


def _softmax_ref(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_wrong_keyword_of_primitive_call_pynative_and_graph():
    x = np.array([[0.5, 1.0, -2.0], [3.0, 0.0, 1.0]], np.float32)
    with pytest.raises(TypeError, match="unexpected keyword argument 'x'"):
        ops.Softmax(-1)(x=ms.Tensor(x))
    np.testing.assert_allclose(ops.Softmax(-1)(input=ms.Tensor(x)).asnumpy(), _softmax_ref(x), rtol=1e-6)

    @ms.jit
    def wrong(t, axis):
        return ops.Softmax(axis)(x=t)

    @ms.jit
    def right(t, axis):
        return ops.Softmax(axis)(input=t)

    for axis in ((-1,), ms.mutable((-1,))):
        with pytest.raises(RuntimeError, match="Got an unexpected keyword argument 'x'"):
            wrong(ms.Tensor(x), axis)
    np.testing.assert_allclose(right(ms.Tensor(x), (-1,)).asnumpy(), _softmax_ref(x), rtol=1e-6)


def test_type_error_inside_primitive_in_graph_is_not_rewritten():
    # a TypeError raised by the op's own checks (not by the binding of its call) keeps its type and text
    @ms.jit
    def f(t):
        return ops.Softmax(-1)(input=t)

    with pytest.raises(TypeError) as info:
        f(ms.Tensor(np.array([1, 2], np.int32)))
    assert not isinstance(info.value, RuntimeError)
