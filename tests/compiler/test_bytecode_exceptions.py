"""Exceptions under jit(capture_mode="bytecode") (MindSpore's PIJit): a try/except of plain Python runs in the
graph, a raise that leaves the function is a graph break recorded by `get_code_extra`, and graph mode (ast) still
refuses `try` statements, nested ones included."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import _c_expression as C


def _bytecode(fn):
    return ms.jit(function=fn, capture_mode="bytecode")


def test_a_raise_leaving_the_function_is_a_graph_break_of_it_and_of_the_callee_that_raised():
    def inner(x):
        try:
            raise ValueError("inner failed")
        finally:
            pass

    def outer(x):
        return inner(x) + 1

    with pytest.raises(ValueError, match="inner failed"):
        _bytecode(outer)(ms.Tensor(1.0))
    for fn in (outer, inner):
        rec = C.get_code_extra(fn)
        assert (rec["compile_count_"], rec["break_count_"]) == (1, 1)
        assert rec["code"]["compiled_code_"] is fn.__code__


def test_try_except_of_python_code_runs_in_the_graph():
    def f(x):
        i = 1
        try:
            try:
                i = 2
                raise BufferError("caught")    # a type the graph parser refuses: fine when caught, under PIJit
            except ArithmeticError:
                i = 4
            except BufferError:
                i = 3
        finally:
            i = i * 10
        return x * i

    out = _bytecode(f)(ms.Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), [30.0, 60.0])
    rec = C.get_code_extra(f)
    assert rec["break_count_"] == 0 and "phase_" in rec["code"]


def test_a_graph_break_inside_a_try_is_not_caught_by_its_handlers():
    def f(x):
        try:
            if x > 0:                           # a tensor condition: the function runs in the interpreter
                y = x + 1
            else:
                raise ValueError("negative")
        except Exception:                       # noqa: BLE001 -- catches the ValueError only, never the break
            y = x * 0 - 5
        return y

    jf = _bytecode(f)
    with pytest.warns(UserWarning, match="JIT fallback"):
        assert float(jf(ms.Tensor(2.0))) == 3.0
    assert float(jf(ms.Tensor(-2.0))) == -5.0
    assert C.get_code_extra(f)["break_count_"] == 1


def test_graph_mode_refuses_a_try_except_nested_in_try_finally():
    def f(x):
        try:
            try:
                y = x + 1
            except ValueError:
                y = x
        finally:
            pass
        return y

    with pytest.raises(RuntimeError, match="Unsupported statement 'Try'"):
        ms.jit(f)(ms.Tensor(1.0))
    assert float(_bytecode(f)(ms.Tensor(1.0))) == 2.0
