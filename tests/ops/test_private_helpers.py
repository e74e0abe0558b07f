"""MindSpore's private helper names that user code imports: standard_method.ms_len, composite.base.core,
F.tuple_to_array of a range."""
import numpy as np

import mindseed as ms
from mindseed import jit
from mindseed._extends.parse.standard_method import ms_len
from mindseed.ops import functional as F
from mindseed.ops.composite.base import core


def test_ms_len_is_len():
    @jit
    def f(x):
        return x * ms_len([1, 2, 3])

    assert ms_len((1, 2)) == 2 and ms_len("abc") == 3
    np.testing.assert_allclose(f(ms.Tensor([1.0, 2.0])).asnumpy(), [3.0, 6.0])


def test_core_flags_the_function():
    @core(tg=True)
    def g(x):
        return x + 1

    def h(x):
        return x

    assert g._func_graph_flags == {"core": True, "tg": True} and g(1) == 2
    assert core(h) is h and h._func_graph_flags == {"core": True}


def test_tuple_to_array_of_a_range():
    t = F.tuple_to_array(range(1, 7, 2))
    assert t.dtype == ms.int32 and t.asnumpy().tolist() == [1, 3, 5]


def test_sequence_conversion_primitives():
    from mindseed.ops._utils.arg_dtype_cast import ListToTuple, TupleToList, is_sequence_shape_unknown

    @jit
    def f(x):
        return ListToTuple()([x, x + 1]), TupleToList()((x * 2,))

    t, lst = f(ms.Tensor([1.0]))
    assert isinstance(t, tuple) and isinstance(lst, list)
    assert [v.asnumpy().tolist() for v in t] == [[1.0], [2.0]] and lst[0].asnumpy().tolist() == [2.0]
    assert TupleToList()((1, 2)) == [1, 2] and ListToTuple()([3]) == (3,) and is_sequence_shape_unknown((1,)) is False
    grads = ms.grad(lambda a, b: ListToTuple()([a * 3, b])[0], (0, 1))(ms.Tensor(2.0), ms.Tensor(1.0))
    assert [g.asnumpy().tolist() for g in grads] == [3.0, 0.0]


def test_bprop_getter_registry():
    from mindseed.ops._grad_experimental.grad_base import bprop_getters, get_bprop_fn
    from mindseed.ops.primitive import Primitive

    class Twice(Primitive):
        def __init__(self):
            super().__init__("Twice")

        def __call__(self, x):
            return x * 2

    @bprop_getters.register(Twice)
    def get_bprop(self):
        def bprop(x, out, dout):
            return (dout * 2,)
        return bprop

    prim = Twice()
    assert get_bprop_fn(prim)(1.0, 2.0, 3.0) == (6.0,) and get_bprop_fn("Twice", get_closure=True) is get_bprop
    assert get_bprop_fn("Other") is None
    g = ms.grad(lambda x: prim(x))(ms.Tensor(1.5))
    assert g.asnumpy().tolist() == 2.0


def test_slice_ext_view_op():
    from mindseed.ops.auto_generate.gen_ops_def import slice_ext_view_op

    x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    np.testing.assert_array_equal(slice_ext_view_op(x, 2, 0, 4, 2).asnumpy(), np.arange(24).reshape(2, 3, 4)[..., ::2])
    assert slice_ext_view_op(x, 1, 1, 3, 1).shape == (2, 2, 4)
    g = ms.grad(lambda v: slice_ext_view_op(v * 3, 0, 0, 1, 1).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), np.concatenate([np.full((1, 3, 4), 3.0), np.zeros((1, 3, 4))]))
