"""MicroBatchSlice and its gradient (nn's `_MicroBatch` slices, which a partitioner cuts per rank): values as rows
[i L, (i + 1) L) of the batch, gradients by finite differences to second order, graph equals PyNative; the sharding
rules keep every dim's cut and slice a shard's own rows."""
import numpy as np

from _harness import OpSpec, make_tests
from mindseed.ops import _sharding as S
from mindseed.ops._infer import Abstract
from mindseed.ops._prims import core as P


def _written(d, rows, start):
    out = np.zeros((rows,) + d.shape[1:], d.dtype)
    out[start:start + d.shape[0]] = d
    return out


SPECS = [
    OpSpec("micro_batch_slice", lambda x: P.micro_slice_p(x, index=(slice(2, 4),)), lambda a: a[2:4],
           shapes=[(6, 3)], grad2=True),
    OpSpec("micro_batch_slice_3d", lambda x: P.micro_slice_p(x, index=(slice(0, 2),)), lambda a: a[0:2],
           shapes=[(4, 2, 3)]),
    OpSpec("micro_batch_slice_grad", lambda d: P.micro_slice_grad_p(d, shape=(6, 3), index=(slice(4, 6),)),
           lambda d: _written(d, 6, 4), shapes=[(2, 3)], grad2=True),
]

test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)


def test_the_rules_keep_every_cut_and_slice_a_shards_own_rows():
    rule = S.micro_slice(Abstract((16, 4), "Float64"), index=(slice(8, 12),))
    assert rule.ins == (("x0", "x1"),) and rule.outs == (("x0", "x1"),) and not rule.whole
    # micro-batch 2 of 4 on a shard of 4 rows (the batch cut in 4): the shard's row 2 (its micro-batch 2)
    assert rule.localize({"index": (slice(8, 12),)}, [(1, 4)]) == {"index": (slice(2, 3),)}
    # the batch cut in 2 (8 rows a shard): rows 4-5; uncut: the slice itself
    assert rule.localize({"index": (slice(8, 12),)}, [(2, 4)]) == {"index": (slice(4, 6),)}
    assert rule.localize({"index": (slice(8, 12),)}, [(4, 4)]) == {"index": (slice(8, 12),)}
    grad = S.micro_slice_grad(Abstract((4, 4), "Float64"), shape=(16, 4), index=(slice(8, 12),))
    assert grad.ins == (("x0", "x1"),) and grad.outs == (("x0", "x1"),)
    assert grad.localize({"shape": (16, 4), "index": (slice(8, 12),)}, [(4, 4)]) == \
        {"shape": (4, 4), "index": (slice(2, 3),)}
