"""The W4 GPT (2 pre-LN decoder layers, d_model 256, 4 heads, ffn 1024 with tanh GELU, vocab 1000, sequence 128,
batch 8, causal additive mask) written with the class-API operators a MindSpore user shards, and its Megatron-style
strategies on a (dp, mp) mesh: the batch over dp; q, k, v and fc1 column-parallel, proj and fc2 row-parallel (one
all-reduce each in the forward pass); the attention heads over gcd(heads, mp) of the mp ranks, fc1/fc2 over mp, the
vocabulary projection over gcd(vocab, mp). The fused qkv projection of the benchmark is three projections here (the
same function: its weight split in three), so the heads can be cut.

`GPT(config, dtype).shard_megatron(dp, mp)`; `inputs(config, dtype)`; `dataset_strategy(dp)`.
"""
import contextlib
import math

import numpy as np

from mindseed import _backend as B
from mindseed import nn, ops
from mindseed.common import dtype as mstype
from mindseed.nn.utils import no_init_parameters
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor

__all__ = ["W4", "GPT", "inputs", "dataset_strategy"]

# batch, sequence, d_model, heads, ffn, vocab, layers
W4 = dict(batch=8, seq=128, d=256, heads=4, ffn=1024, vocab=1000, layers=2)


_abstract = [False]   # `abstract()`: the Tensors made hold shapes and dtypes only


def _tensor(array):
    if _abstract[0]:
        return Tensor._from_raw(B.meta(array.shape, mstype.pytype_to_dtype(array.dtype).name))
    return Tensor(array)


@contextlib.contextmanager
def abstract():
    """Within it, `GPT` and `inputs` make data-less Tensors and Parameters (shapes and dtypes: what a shapes-only
    plan reads), so that no kernel runs and the backend need not load."""
    _abstract[0] = True
    try:
        with no_init_parameters():
            yield
    finally:
        _abstract[0] = False


def _weight(rng, shape, dtype, name, scale=0.02):
    return Parameter(_tensor((rng.standard_normal(shape) * scale).astype(dtype)), name=name)


class _Linear(nn.Cell):
    """y = x @ w.T + b on (tokens, features), with the MatMul and the bias Add a strategy can cut."""

    def __init__(self, rng, d_in, d_out, dtype, name):
        super().__init__()
        self.weight = _weight(rng, (d_out, d_in), dtype, f"{name}.weight")
        self.bias = Parameter(_tensor(np.zeros((d_out,), dtype)), name=f"{name}.bias")
        self.matmul, self.add = ops.MatMul(transpose_b=True), ops.Add()

    def construct(self, x):
        return self.add(self.matmul(x, self.weight), self.bias)

    def shard(self, x_cut, out_cut, in_cut):
        """Cuts of the tokens, of the output and of the input features."""
        self.matmul.shard(((x_cut, in_cut), (out_cut, in_cut)))
        self.add.shard(((x_cut, out_cut), (out_cut,)))


class _Block(nn.Cell):
    def __init__(self, rng, c, dtype, i):
        super().__init__()
        d = c["d"]
        self.c = c
        self.ln1, self.ln2 = nn.LayerNorm((d,), epsilon=1e-5), nn.LayerNorm((d,), epsilon=1e-5)
        if dtype != np.float32:
            for ln in (self.ln1, self.ln2):
                ln.gamma.set_data(_tensor(np.ones((d,), dtype)))
                ln.beta.set_data(_tensor(np.zeros((d,), dtype)))
        self.q, self.k, self.v = (_Linear(rng, d, d, dtype, f"blocks.{i}.{n}") for n in "qkv")
        self.proj = _Linear(rng, d, d, dtype, f"blocks.{i}.proj")
        self.fc1 = _Linear(rng, d, c["ffn"], dtype, f"blocks.{i}.fc1")
        self.fc2 = _Linear(rng, c["ffn"], d, dtype, f"blocks.{i}.fc2")
        self.split = [ops.Transpose() for _ in range(3)]
        self.merge = ops.Transpose()
        self.scores, self.mix = ops.BatchMatMul(transpose_b=True), ops.BatchMatMul()
        self.scale, self.masked, self.softmax = ops.Mul(), ops.Add(), ops.Softmax(axis=-1)
        self.gelu = ops.GeLU()
        self.res1, self.res2 = ops.Add(), ops.Add()
        self.scale_value = _tensor(np.array(1.0 / math.sqrt(d // c["heads"]), dtype))

    def shard(self, dp, hp, mp):
        for lin in (self.q, self.k, self.v):
            lin.shard(dp, hp, 1)
        self.proj.shard(dp, 1, hp)
        self.fc1.shard(dp, mp, 1)
        self.fc2.shard(dp, 1, mp)
        for t in self.split:
            t.shard(((dp, 1, hp, 1),))
        self.merge.shard(((dp, hp, 1, 1),))
        heads = (dp, hp, 1, 1)
        self.scores.shard((heads, heads))
        self.mix.shard((heads, heads))
        self.scale.shard((heads, ()))
        self.masked.shard((heads, (1, 1)))
        self.softmax.shard((heads,))
        self.gelu.shard(((dp, mp),))
        self.res1.shard(((dp, 1), (dp, 1)))
        self.res2.shard(((dp, 1), (dp, 1)))

    def construct(self, x, mask):
        c = self.c
        b, t, h = c["batch"], c["seq"], c["heads"]
        y = self.ln1(x)
        q, k, v = (ops.reshape(lin(y), (b, t, h, c["d"] // h)) for lin in (self.q, self.k, self.v))
        q, k, v = (tr(z, (0, 2, 1, 3)) for tr, z in zip(self.split, (q, k, v)))
        att = self.softmax(self.masked(self.scale(self.scores(q, k), self.scale_value), mask))
        y = ops.reshape(self.merge(self.mix(att, v), (0, 2, 1, 3)), (b * t, c["d"]))
        x = self.res1(x, self.proj(y))
        return self.res2(x, self.fc2(self.gelu(self.fc1(self.ln2(x)))))


class GPT(nn.Cell):
    """The W4 GPT on tokens (batch, seq) and one-hot targets (batch * seq, vocab): the mean cross entropy.

    Args:
        config (dict): `W4` or a smaller one with the same keys.
        dtype (type): numpy float type of the parameters.
    """

    def __init__(self, config=None, dtype=np.float32):
        super().__init__()
        c = dict(W4 if config is None else config)
        self.c = c
        rng = np.random.default_rng(0)
        self.tok_emb = _weight(rng, (c["vocab"], c["d"]), dtype, "tok_emb")
        self.pos_emb = _weight(rng, (c["seq"], c["d"]), dtype, "pos_emb")
        self.blocks = nn.CellList([_Block(rng, c, dtype, i) for i in range(c["layers"])])
        self.ln_f = nn.LayerNorm((c["d"],), epsilon=1e-5)
        if dtype != np.float32:
            self.ln_f.gamma.set_data(_tensor(np.ones((c["d"],), dtype)))
            self.ln_f.beta.set_data(_tensor(np.zeros((c["d"],), dtype)))
        self.head = _Linear(rng, c["d"], c["vocab"], dtype, "head")
        self.mask = _tensor(np.triu(np.full((c["seq"], c["seq"]), -1e9), 1).astype(dtype))
        self.embed, self.add_pos = ops.Gather(), ops.Add()
        self.probs, self.log, self.pick = ops.Softmax(axis=-1), ops.Log(), ops.Mul()
        self.total, self.mean = ops.ReduceSum(), ops.ReduceMean()

    def shard_megatron(self, dp, mp, products_only=False):
        """Megatron-style strategies on a (dp, mp) mesh (see the module docstring); with `products_only` only the
        weight products (the MatMuls), the rest left to sharding propagation. Returns self."""
        c = self.c
        hp, vp = math.gcd(c["heads"], mp), math.gcd(c["vocab"], mp)
        if products_only:
            for blk in self.blocks:
                for lin, cuts in ((blk.q, (hp, 1)), (blk.k, (hp, 1)), (blk.v, (hp, 1)), (blk.proj, (1, hp)),
                                  (blk.fc1, (mp, 1)), (blk.fc2, (1, mp))):
                    lin.matmul.shard(((dp, cuts[1]), cuts))
            self.head.matmul.shard(((dp, 1), (vp, 1)))
            return self
        self.embed.shard(((1, 1), (dp, 1)))
        self.add_pos.shard(((dp, 1, 1), (1, 1)))
        for blk in self.blocks:
            blk.shard(dp, hp, mp)
        self.head.shard(dp, vp, 1)
        self.probs.shard(((dp, 1),))
        self.pick.shard(((dp, 1), (dp, 1)))
        return self

    def construct(self, idx, target):
        c = self.c
        x = ops.reshape(self.add_pos(self.embed(self.tok_emb, idx, 0), self.pos_emb), (c["batch"] * c["seq"], c["d"]))
        for blk in self.blocks:
            x = blk(x, self.mask)
        logits = self.head(self.ln_f(x))
        picked = self.total(self.pick(self.log(self.probs(logits)), target), -1)
        return -self.mean(picked)


def inputs(config=None, dtype=np.float32):
    """(tokens int32 (batch, seq), one-hot targets (batch * seq, vocab)) drawn from a fixed seed."""
    c = dict(W4 if config is None else config)
    rng = np.random.default_rng(1)
    idx = rng.integers(0, c["vocab"], (c["batch"], c["seq"])).astype(np.int32)
    target = np.eye(c["vocab"], dtype=dtype)[rng.integers(0, c["vocab"], c["batch"] * c["seq"])]
    return _tensor(idx), _tensor(target)


def dataset_strategy(dp):
    """The data cut over dp ranks along the batch."""
    return ((dp, 1), (dp, 1))
