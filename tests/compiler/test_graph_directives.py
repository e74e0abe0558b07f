"""Graph-mode rules of MindSpore's parser beyond plain Python: comment directives, compile-time checks."""

import numpy as np
import pytest

import mindseed as ms
from _graph import no_fallback


def test_jit_cond_comment_picks_the_branch():
    def f(x):
        if x.sum() > 100:  # @jit.cond: True
            y = x * 2
        else:
            y = x * 3
        if x.sum() > 0:  # @jit.cond: False
            return y + 1
        return y - 1

    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    # the comments override the tests: x * 2 - 1
    np.testing.assert_allclose(no_fallback(ms.jit(f), x).asnumpy(), [1.0, 3.0])
    # without jit the comment is only a comment: x * 3 + 1
    np.testing.assert_allclose(f(x).asnumpy(), [4.0, 7.0])



def test_jit_of_a_bound_method_keeps_tensor_control_flow_in_the_graph():
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = ms.Parameter(ms.Tensor(np.array([5.0], np.float32)), name="a")
            self.b = ms.Parameter(ms.Tensor(np.array([4.0], np.float32)), name="b")

        def construct(self, x):
            if self.a > self.b:
                out = x * 2
            else:
                out = x + 2
            return out

    net = Net()
    f = ms.jit(net.construct)
    x = ms.Tensor(np.array([1.0, 3.0], np.float32))
    np.testing.assert_allclose(no_fallback(f, x).asnumpy(), [2.0, 6.0])
    net.b.set_data(ms.Tensor(np.array([6.0], np.float32)))     # the condition is read at run time
    np.testing.assert_allclose(no_fallback(f, x).asnumpy(), [3.0, 5.0])
    assert len(f.cache) == 1


def test_if_branches_of_different_shapes_run_in_the_interpreter():

    @ms.jit
    def f(x, y, z):
        if z < 3:
            c = ms.ops.reshape(x + 2, y.shape)
        else:
            c = x
        return c * 2, c.shape

    x, y = ms.Tensor(np.ones((6, 1), np.float32)), ms.Tensor(np.ones((3, 2), np.float32))
    with pytest.warns(UserWarning, match="different shapes"):
        out, shape = f(x, y, ms.Tensor(2.0))
    assert shape == (3, 2)
    np.testing.assert_allclose(out.asnumpy(), np.full((3, 2), 6.0))
    out, shape = f(x, y, ms.Tensor(5.0))
    assert shape == (6, 1)
    np.testing.assert_allclose(out.asnumpy(), np.full((6, 1), 2.0))


def test_if_branches_of_different_dtypes_cannot_join():

    @ms.jit
    def f(x, z):
        if z < 3:
            c = x + 1
        else:
            c = ms.ops.cast(x, ms.int32)
        return c

    with pytest.raises(TypeError, match="Type Join Failed: dtype1 = Float32, dtype2 = Int32"):
        f(ms.Tensor(np.ones(2, np.float32)), ms.Tensor(2.0))


def test_graph_while_differentiates_integer_carried_values():
    def f(x, y):
        out = y * 3
        while x < 5:
            x = x + 1
            out = out * 2
        return out

    x, y = ms.Tensor(np.array([2], np.int32)), ms.Tensor(np.array([1], np.int32))
    grad = ms.ops.GradOperation(get_all=True)
    gx, gy = no_fallback(grad(ms.jit(f)), x, y)
    # out = y * 3 * 2 ** (5 - x): d/dy = 24 (an integer gradient, as MindSpore gives), x only counts
    assert gy.dtype == ms.int32 and gy.asnumpy().tolist() == [24]
    assert gx.asnumpy().tolist() == [0]
    assert [g.asnumpy().tolist() for g in grad(f)(x, y)] == [[0], [24]]


def test_constexpr_gets_compile_time_values_in_a_graph():
    from mindseed.ops.primitive import constexpr

    def helper():
        return 0

    @constexpr(check=False)
    def is_none(value):
        return value is None

    @constexpr
    def doubled(n):
        return n * 2

    @ms.jit
    def f(x):
        # a function is no constant of the graph: the constexpr sees None; numbers are passed as they are
        return x * doubled(3), is_none(helper)

    out, flag = f(ms.Tensor(2.0))
    assert out.asnumpy() == 12.0 and flag is True
    assert is_none(helper) is False and doubled(4) == 8     # plain calls outside graphs


def test_annotations_naming_a_local_class_do_not_stop_the_conversion():
    from collections import namedtuple

    def make():
        point = namedtuple("Point", ["x", "y"])

        def fn(p: point) -> point:      # `point` appears in annotations only: no closure variable of fn
            if p.x.sum() > 0:           # converted: a graph If
                return p.x + p.y
            return p.x - p.y
        return fn, point

    fn, point = make()
    f = ms.jit(fn)
    x, y = ms.Tensor(np.array([1.0, 2.0], np.float32)), ms.Tensor(np.array([0.5, 0.5], np.float32))
    np.testing.assert_allclose(no_fallback(f, point(x, y)).asnumpy(), [1.5, 2.5])
    np.testing.assert_allclose(no_fallback(f, point(-x, y)).asnumpy(), [-1.5, -2.5])
    assert len(f.cache) == 1


def _returns_a_dict():
    return {"a": ms.Tensor(1.0)}


def test_jit_syntax_level_priorities(monkeypatch):
    monkeypatch.delenv("MS_DEV_JIT_SYNTAX_LEVEL", raising=False)
    assert ms.JitConfig(jit_syntax_level="STRICT").jit_config_dict["jit_syntax_level"] == "STRICT"
    # jit's own setting: STRICT returns a dict's values as a tuple
    assert isinstance(ms.jit(_returns_a_dict, fullgraph=True)(), tuple)
    assert isinstance(ms.jit(_returns_a_dict)(), dict)
    # the environment variable overrides it
    monkeypatch.setenv("MS_DEV_JIT_SYNTAX_LEVEL", "2")
    assert isinstance(ms.jit(_returns_a_dict, fullgraph=True)(), dict)
    monkeypatch.setenv("MS_DEV_JIT_SYNTAX_LEVEL", "0")
    assert isinstance(ms.jit(_returns_a_dict)(), tuple)


def test_cell_jit_config_sets_the_syntax_level(monkeypatch):
    from _graph import graph_mode

    monkeypatch.delenv("MS_DEV_JIT_SYNTAX_LEVEL", raising=False)

    class Net(ms.nn.Cell):
        def construct(self):
            return {"a": 1}

    with graph_mode():
        strict, compatible = Net(), Net()
        strict.set_jit_config(ms.JitConfig(jit_syntax_level="STRICT"))
        compatible.set_jit_config(ms.JitConfig(jit_syntax_level="COMPATIBLE"))
        assert strict() == (1,) and compatible() == {"a": 1}


def test_jit_config_defaults_leave_the_level_to_the_context():
    config = ms.JitConfig()
    assert config.jit_config_dict == {"jit_level": "", "exc_mode": "auto", "jit_syntax_level": "",
                                      "debug_level": "RELEASE", "infer_boost": "off"}
    assert ms.JitConfig(infer_boost="on").jit_config_dict["infer_boost"] == "on"
    f = ms.jit(lambda x: x * 2 + 1, jit_config=config)
    np.testing.assert_array_equal(f(ms.Tensor(np.array([1.0, 2.0], np.float32))).asnumpy(), [3.0, 5.0])
