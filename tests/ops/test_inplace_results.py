"""What in-place ops and primitives return for a Parameter: a Tensor of its new value (MindSpore 2.10), so printing
the result prints numbers, not `Parameter (name=...)`. Values are MindSpore 2.10's (oracle) outputs."""
import numpy as np

import mindseed as ms
from mindseed import ops


def _param(values, name="x"):
    return ms.Parameter(ms.Tensor(np.array(values, np.float32)), name=name)


def test_scatter_primitives_return_a_tensor_of_the_updated_parameter():
    x = _param(np.zeros((2, 3)))
    indices = ms.Tensor(np.array([[0, 1], [1, 1]]), ms.int32)
    updates = ms.Tensor(np.array([[[1.0] * 3, [3.0] * 3], [[7.0] * 3, [9.0] * 3]]), ms.float32)
    out = ops.ScatterAdd()(x, indices, updates)
    assert type(out) is ms.Tensor
    np.testing.assert_array_equal(out.asnumpy(), [[1.0] * 3, [19.0] * 3])
    np.testing.assert_array_equal(x.asnumpy(), [[1.0] * 3, [19.0] * 3])
    assert str(out) == "[[ 1.  1.  1.]\n [19. 19. 19.]]"
    out = ops.scatter_nd_update(x, ms.Tensor([[0, 0]], ms.int32), ms.Tensor([4.0], ms.float32))
    assert type(out) is ms.Tensor and out.asnumpy()[0, 0] == 4.0 and x.asnumpy()[0, 0] == 4.0


def test_index_add_assign_and_tensor_methods_on_a_parameter():
    x = _param(np.arange(9).reshape(3, 3))
    out = ops.IndexAdd(axis=1)(x, ms.Tensor([0, 2], ms.int32), ms.Tensor(np.full((3, 2), 0.5, np.float32)))
    assert type(out) is ms.Tensor
    np.testing.assert_array_equal(out.asnumpy(), [[0.5, 1, 2.5], [3.5, 4, 5.5], [6.5, 7, 8.5]])
    v = _param([1.0, 1.0], "v")
    assert ops.Assign()(v, ms.Tensor([3.0, 4.0])).asnumpy().tolist() == [3.0, 4.0]
    out = ops.AssignAdd()(v, ms.Tensor([3.0, 4.0]))
    assert type(out) is ms.Tensor and out.asnumpy().tolist() == [6.0, 8.0]
    out = v.add_(1)
    assert type(out) is ms.Tensor and out.asnumpy().tolist() == [7.0, 9.0] and v.asnumpy().tolist() == [7.0, 9.0]
    # a plain Tensor's in-place method still gives the tensor itself
    t = ms.Tensor([1.0, 2.0])
    assert t.add_(1) is t


def test_optimizer_primitive_outputs_are_tensors():
    var, m, v = _param([[0.6, 0.4], [0.1, 0.5]], "var"), _param([[0.6, 0.5], [0.2, 0.6]], "m"), \
        _param([[0.9, 0.1], [0.7, 0.8]], "v")
    grad = ms.Tensor(np.array([[0.3, 0.7], [0.1, 0.8]], np.float32))
    out = ops.ApplyAdaMax()(var, m, v, ms.Tensor(0.9, ms.float32), ms.Tensor(0.001, ms.float32),
                            ms.Tensor(0.9, ms.float32), ms.Tensor(0.99, ms.float32), ms.Tensor(1e-10, ms.float32),
                            grad)
    assert isinstance(out, tuple) and all(type(o) is ms.Tensor for o in out)
    np.testing.assert_allclose(out[0].asnumpy(), [[0.593602717, 0.392571449], [0.0972582996, 0.492249995]],
                               rtol=1e-6)
    np.testing.assert_allclose(out[1].asnumpy(), [[0.57, 0.52], [0.19, 0.62]], rtol=1e-6)
    np.testing.assert_allclose(out[2].asnumpy(), [[0.891, 0.7], [0.693, 0.8]], rtol=1e-6)
    np.testing.assert_array_equal(var.asnumpy(), out[0].asnumpy())


class _AddToWeight(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
        self.assign_add = ops.AssignAdd()

    def construct(self, y):
        return self.w, self.assign_add(self.w, y)


def test_graph_outputs_are_tensors_from_the_first_call():
    # MindSpore 2.10: in PyNative a returned Parameter stays one; a graph's outputs are Tensors on every call
    net = _AddToWeight()
    out = net(ms.Tensor([1.0, 1.0]))
    assert [type(t) for t in out] == [ms.Parameter, ms.Tensor] and out[1].asnumpy().tolist() == [2.0, 3.0]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _AddToWeight()
        for expected in ([2.0, 3.0], [3.0, 4.0]):
            out = net(ms.Tensor([1.0, 1.0]))
            assert [type(t) for t in out] == [ms.Tensor, ms.Tensor]
            assert out[0].asnumpy().tolist() == expected and out[1].asnumpy().tolist() == expected
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
