"""`mindspore.parallel.distributed.DistributedDataParallel` in one process (a data-parallel group of one): the
gradients go through the parameters' accumulators (the Tensors returned are ``param.grad``), `zero_grad` zeroes them,
`no_sync` accumulates, a second step without `zero_grad` is refused as MindSpore's buckets refuse it, the buckets
split the parameters by the size threshold. Two processes: tests/parallel/test_parallel_api_processes.py."""
import numpy as np
import pytest

import mindseed as ms
from _mlp import MLP
from mindseed import Tensor
from mindseed.parallel.distributed import DistributedDataParallel
from mindseed.parallel.distributed.flatten_grad_buffer import Bucket

RNG = np.random.default_rng(9)
X, Y = RNG.standard_normal((8, 4)), RNG.standard_normal((8, 6))


def _grads(net, x=X, y=Y):
    _, grads = ms.value_and_grad(net, None, net.trainable_params())(Tensor(x), Tensor(y))
    return grads


def test_the_gradients_are_the_accumulators():
    model = DistributedDataParallel(MLP())
    grads = _grads(model)
    ref = _grads(MLP())
    for p, g, r in zip(model.trainable_params(), grads, ref):
        assert g is p.grad
        np.testing.assert_allclose(g.asnumpy(), r.asnumpy(), rtol=0, atol=1e-12)
    assert model.gradient_scaling_factor == 1.0   # a group of one
    model.zero_grad()
    assert all(not p.grad.asnumpy().any() for p in model.trainable_params())
    again = _grads(model)
    for g, r in zip(again, ref):
        np.testing.assert_allclose(g.asnumpy(), r.asnumpy(), rtol=0, atol=1e-12)


def test_a_second_step_needs_zero_grad():
    model = DistributedDataParallel(MLP())
    _grads(model)
    with pytest.raises(ValueError, match="is already registered"):
        _grads(model)


def test_no_sync_accumulates():
    model = DistributedDataParallel(MLP())
    with model.no_sync():
        _grads(model, X[:4], Y[:4])
        grads = _grads(model, X[4:], Y[4:])
    ref = MLP()
    want = [a.asnumpy() + b.asnumpy() for a, b in zip(_grads(ref, X[:4], Y[:4]), _grads(ref, X[4:], Y[4:]))]
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=0, atol=1e-12)
    assert model.sync_enabled


@pytest.mark.parametrize("cap, buckets", [(None, [["w1", "b1", "w2"]]), (0.00002, [["w1"], ["b1", "w2"]]),
                                          (0.000001, [["w1"], ["b1"], ["w2"]])])
def test_buckets_close_at_the_threshold(cap, buckets):
    # w1 32, b1 8, w2 48 elements; a bucket closes once it holds at least the threshold (MindSpore counts the
    # elements against bucket_cap_mb * 2**20)
    model = DistributedDataParallel(MLP(), bucket_cap_mb=cap)
    assert [[p.name for p in b.params_list] for buf in model.buffers for b in buf.buckets] == buckets
    offsets = [b.offset for buf in model.buffers for b in buf.buckets]
    assert offsets == {1: [0], 2: [0, 32], 3: [0, 32, 40]}[len(buckets)]


def test_frozen_parameters_are_skipped_and_the_checks():
    net = MLP()
    net.b1.requires_grad = False
    model = DistributedDataParallel(net)
    assert [p.name for p in model.skipped_params] == ["b1"]
    assert [p.name for p in model.bucketed_params] == ["w1", "w2"]
    with pytest.raises(TypeError, match="For 'DistributedDataParallel', the argument 'module' must be a Cell"):
        DistributedDataParallel(lambda x: x)
    bucket = Bucket(False, [net.w1], 0, 32, "hccl_world_group", 1, 1.0)
    with pytest.raises(ValueError, match="The param to be registered is not in the bucket"):
        bucket.register_grad_ready(net.w2)
    with pytest.raises(RuntimeError, match="The bucket reduce has not been issued with only 0/1 params ready"):
        bucket.final_grad_reduce()
