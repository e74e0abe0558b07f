"""Graph mode resolves every name of a compiled function first, as MindSpore's parser does: a name bound nowhere is
a NameError naming it and its line, even on a line that would not run; PIJit and PyNative raise Python's only
when the line runs."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn

X = ms.Tensor(np.array([1.0, -2.0, 3.0], np.float32))


class _UnboundInUntakenBranch(nn.Cell):
    def construct(self, x):
        if x.sum() > 100:
            undefined_thing  # noqa: B018, F821
        return x + x


def _uses_every_kind_of_binding(x, *rest, k=2, **kw):
    import math as m          # noqa: PLC0415
    total = x * k
    for i, v in enumerate([1.0, 2.0]):
        total = total + v * i
    sq = [j * j for j in range(3)]
    if (n := len(sq)) > 2:
        total = total + n

    def inner(a):
        return a + m.pi

    try:
        pass
    except ValueError as err:
        raise err
    return inner(total) + sum(rest) + len(kw)


def test_an_unbound_name_is_a_name_error_at_compile_time_with_its_line():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(NameError, match=r"The name 'undefined_thing' is not defined, or not supported in graph "
                                            r"mode\.(.|\n)*test_undefined_names\.py:16"):
            _UnboundInUntakenBranch()(X)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(_UnboundInUntakenBranch()(X).asnumpy(), [2.0, -4.0, 6.0])  # PyNative: never runs
    jf = ms.jit(_UnboundInUntakenBranch().construct, capture_mode="bytecode")
    np.testing.assert_array_equal(jf(X).asnumpy(), [2.0, -4.0, 6.0])


def test_names_bound_by_any_statement_are_defined():
    x = ms.Tensor(np.array([1.0], np.float32))
    want = _uses_every_kind_of_binding(x)
    got = ms.jit(_uses_every_kind_of_binding, capture_mode="bytecode")(x)     # PIJit traces the try statement
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy())
    with pytest.raises(RuntimeError, match="Unsupported statement 'Try'"):    # resolved: only the try is refused
        ms.jit(_uses_every_kind_of_binding)(x)
