"""MsDispatchMode: every PyNative operator call inside it goes through `__ms_dispatch__`; modes nest (the innermost
handles a call) and work as decorators."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, ops
from mindseed.utils.ms_dispatch import MsDispatchMode


class _Log(MsDispatchMode):
    def __init__(self):
        self.seen = []

    def __ms_dispatch__(self, func, args, kwargs=None):
        self.seen.append(func.name)
        return func(*args)


class _Twice(MsDispatchMode):
    def __ms_dispatch__(self, func, args, kwargs=None):
        return func(*args) * 2


def test_dispatch_sees_and_changes_operator_calls():
    x, y = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([4.0, 5.0], np.float32))
    log = _Log()
    with log:
        z = x + y
        w = ops.matmul(x, y)
    assert log.seen == ["Add", "MatMul"]
    np.testing.assert_allclose(z.asnumpy(), [5.0, 7.0])
    assert float(w.asnumpy()) == 14.0
    with _Twice():
        np.testing.assert_allclose((x + y).asnumpy(), [10.0, 14.0])   # the result's own Mul is not dispatched
    np.testing.assert_allclose((x + y).asnumpy(), [5.0, 7.0])          # off outside the context
    assert ms.MsDispatchMode is MsDispatchMode


def test_nested_modes_and_decorator():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    outer, inner = _Log(), _Log()
    with outer:
        x * 2
        with inner:
            x - 1
        x + 1
    assert outer.seen == ["Mul", "Add"] and inner.seen == ["Sub"]

    log = _Log()

    @log
    def f(a):
        return a * a

    np.testing.assert_allclose(f(x).asnumpy(), [1.0, 4.0])
    assert log.seen == ["Mul"]


def test_dispatch_with_a_wrong_signature_is_a_type_error():
    class Bad(MsDispatchMode):
        def __ms_dispatch__(self, func):
            return func()

    with pytest.raises(TypeError), Bad():
        Tensor([1.0]) + Tensor([2.0])
