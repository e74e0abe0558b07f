"""Tensor methods: dtype shorthands, sparse and DLPack conversions, bytes, storage, host memory queries, `data`."""
import numpy as np
import pytest

import mindseed as ms


def test_shorthands_conversions_and_bytes():
    t = ms.Tensor(np.array([[0, 1.5], [2, 0]], np.float32))
    assert t.bfloat16().dtype == ms.bfloat16 and t.short().dtype == ms.int16
    assert t.short().asnumpy().tolist() == [[0, 1], [2, 0]]
    np.testing.assert_array_equal(t.to_coo().to_dense().asnumpy(), t.asnumpy())
    csr = t.to_csr()
    assert csr.indptr.asnumpy().tolist() == [0, 1, 2] and csr.values.asnumpy().tolist() == [1.5, 2.0]
    np.testing.assert_array_equal(ms.Tensor.from_dlpack(t.to_dlpack()).asnumpy(), t.asnumpy())
    raw = t.get_bytes()
    assert raw == t.asnumpy().tobytes()
    np.testing.assert_array_equal(ms.Tensor.convert_bytes_to_tensor(raw, (2, 2), ms.float32).asnumpy(), t.asnumpy())
    with pytest.raises(TypeError, match="'bytes_data' must be bytes"):
        ms.Tensor.convert_bytes_to_tensor("x", (1,), ms.float32)


def test_storage_memory_and_properties():
    t = ms.Tensor(np.zeros((3, 4), np.float64))
    s = t.untyped_storage()
    assert isinstance(s, ms.UntypedStorage) and s.nbytes() == 96 and s.data_ptr() == t.data_ptr()
    assert t.storage().nbytes() == 96 and not t.is_shared()
    assert t.is_pinned() in (True, False) and t.pin_memory().shape == (3, 4)
    assert not t.is_meta


def test_data_shares_memory_outside_differentiation():
    # values from MindSpore 2.10: `.data` is a Tensor (not the Parameter) sharing its memory, without gradient
    p = ms.Parameter(ms.Tensor([1.0, 2.0]), name="p")
    d = p.data
    assert type(d) is ms.Tensor and d is not p and ms.Tensor([1.0]).data is not None
    d[0] = 5.0
    assert p.asnumpy().tolist() == [5.0, 2.0]
    p.set_data(ms.Tensor([7.0, 8.0]))
    assert d.asnumpy().tolist() == [5.0, 2.0]           # set_data gives p new memory; the old view keeps its own
    p.data.fill_(3.0)
    assert p.asnumpy().tolist() == [3.0, 3.0]
    np.testing.assert_array_equal(ms.grad(lambda w: (w.data * w).sum())(ms.Tensor([1.0, 2.0])).asnumpy(), [1, 2])

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")

        def construct(self, x):
            return (self.w.data * x).sum() + (self.w * x).sum()

    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = Net()
        grads = ms.grad(net, grad_position=None, weights=net.trainable_params())(ms.Tensor([3.0, 4.0]))
        np.testing.assert_array_equal(grads[0].asnumpy(), [3, 4])
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_setting_data_replaces_the_value():
    t = ms.Tensor(np.ones(2, np.float32))
    u = ms.Tensor(np.zeros(3, np.int32))
    t.data = u                                   # shape and dtype follow the new data, as in MindSpore
    assert t.shape == (3,) and t.dtype == ms.int32 and t.asnumpy().tolist() == [0, 0, 0]
    net = ms.nn.Dense(2, 2, has_bias=False)
    weight = net.weight
    net.weight.data = net.weight.data * 0 + 2    # `layer.weight.data = ...`: the same Parameter, a new value
    assert net.weight is weight and net.weight.name == "weight"
    np.testing.assert_array_equal(net(ms.Tensor(np.ones((1, 2), np.float32))).asnumpy(), [[4, 4]])
    with pytest.raises(RuntimeError, match="Tensor.data.*must be a Tensor, but got list"):
        t.data = [1, 2]


def test_membership():
    t = ms.Tensor(np.array([[1, 2], [3, 4]]))
    assert 3 in t and 5 not in t and ms.Tensor(2) in t
    # only tensors and numbers are looked for: a string, a list, a numpy array are not in a Tensor
    assert "a" not in t and [1] not in t and np.array(1) not in t and ms.Tensor([4]) in t and 2.0 in t


@pytest.mark.parametrize("data", [[1 + 2j, 2 - 1j], 1 + 2j, np.array([1 + 2j, 2 - 1j]), [[1 + 2j, 3]]])
def test_complex_data_under_a_real_dtype_keeps_the_real_part(data):
    import warnings
    expect = np.real(np.asarray(data))
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # no backend warning about the discarded imaginary part
        np.testing.assert_array_equal(ms.Tensor(data, ms.float32).asnumpy(), expect.astype(np.float32))
        np.testing.assert_array_equal(ms.Tensor(data, ms.int32).asnumpy(), expect.astype(np.int32))
    np.testing.assert_array_equal(ms.Tensor(data, ms.complex64).asnumpy(), np.asarray(data, np.complex64))


def test_offload_writes_the_bytes_and_remembers_the_path(tmp_path):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = ms.Tensor(a)
    assert x.offload_file_path() == ""
    path = str(tmp_path / "x.data")
    assert x.offload(path) is True
    assert x.offload_file_path() == path
    np.testing.assert_array_equal(np.fromfile(path, np.float32).reshape(2, 3), a)
    assert ms.Tensor(a).offload_file_path() == ""          # another tensor of equal values was not offloaded
    with pytest.raises(TypeError, match="argument 1 must be str, not int"):
        x.offload(3)
    from mindseed.common import tensor as tensor_module
    key = id(x)
    del x
    assert key not in tensor_module._OFFLOADED                # the record goes with the tensor


def test_expand_as_takes_other_or_x():
    a = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    b = ms.Tensor(np.ones((2, 3), np.float32))
    want = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(a.expand_as(b).asnumpy(), want)
    np.testing.assert_array_equal(a.expand_as(other=b).asnumpy(), want)
    np.testing.assert_array_equal(a.expand_as(x=b).asnumpy(), want)
    with pytest.raises(TypeError, match="expand_as"):
        a.expand_as()
    with pytest.raises(TypeError, match="'other' must be a Tensor"):
        a.expand_as(x=[1, 2])


def test_move_to_copies_to_the_cpu_or_the_device_target_in_pynative_only():
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    y = x.move_to("CPU")
    assert y is not x and y.dtype == x.dtype
    np.testing.assert_array_equal(y.asnumpy(), [0.0, 1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"The value of 'to' must be one of \['Ascend', 'GPU', 'CPU'\], but got gpu"):
        x.move_to("gpu")
    with pytest.raises(ValueError, match="The type of 'blocking' must be bool, but got 1"):
        x.move_to("CPU", 1)
    with pytest.raises(RuntimeError, match="should be same with device target, bug got to:Ascend, device target: "):
        x.move_to("Ascend")
    with pytest.raises(ValueError, match="The method 'move_to' is not supported in jit."):
        ms.jit(lambda t: t.move_to("CPU") + 1)(x)
