"""`ops.operations._inner_ops.TopTypeof`: the top MindSpore type of a value (MindSpore 2.10's reprs)."""
import numpy as np

import mindseed as ms
from mindseed.common import dtype as mstype
from mindseed.ops.operations._inner_ops import TopTypeof


def test_top_types():
    t = TopTypeof()
    got = [repr(t(v)) for v in (ms.Tensor([1]), [1], (1,), 1, 1.5, None, slice(1), ..., {}, "a", np.array([1]))]
    assert got == ["mindspore.tensor", "mindspore.list_", "mindspore.tuple_", "mindspore.int64", "mindspore.float32",
                   "mindspore.type_none", "mindspore.slice", "mindspore.ellipsis", "mindspore.dictionary",
                   "mindspore.string_", "mindspore.external"]
    assert isinstance(t(ms.Parameter(ms.Tensor([True]), name="p")), mstype.TensorType)
    assert not isinstance(t([1]), mstype.TensorType)


def test_top_typeof_decides_a_graph_branch():
    @ms.jit
    def f(x, i):
        if isinstance(TopTypeof()(i), mstype.TensorType):
            return x * 2
        return x

    np.testing.assert_array_equal(f(ms.Tensor([1.0, 2.0]), ms.Tensor(1)).asnumpy(), [2.0, 4.0])
    np.testing.assert_array_equal(f(ms.Tensor([1.0, 2.0]), 1).asnumpy(), [1.0, 2.0])
