"""Networks for the export tests, written once for both frameworks: `build(ms)` takes `mindspore` or `mindseed`.

Weights come from numpy (seeded by the parameter's name), so the same network has the same numbers on both.
"""
import zlib

import numpy as np


def _det_init(ms, net):
    for name, p in net.parameters_and_names():
        rng = np.random.RandomState(zlib.crc32(name.encode()) % (2 ** 31))
        v = rng.uniform(-0.5, 0.5, p.shape).astype(np.float32)
        if "variance" in name:
            v = np.abs(v) + 0.5
        p.set_data(ms.Tensor(v))
    net.set_train(False)
    return net


def build(ms, full=False):
    """{name: (net, input array)}: LeNet-5 at 16x16, a ResNet basic block, an MLP, a net with an if and a while
    on tensor values, a narrow ResNet-20 and a tiny GPT (and with `full` LeNet-5, ResNet-20 and the W4 GPT at
    their real sizes)."""
    nn, ops = ms.nn, ms.ops

    class LeNet(nn.Cell):
        """LeNet-5's layers; the default sizes make a small one for 16x16 inputs."""

        def __init__(self, c1=4, c2=8, k2=3, fc=(32, 16, 12), conv_bias=True):
            super().__init__()
            self.conv1 = nn.Conv2d(1, c1, 5, pad_mode="valid", has_bias=conv_bias)
            self.conv2 = nn.Conv2d(c1, c2, k2, pad_mode="valid")
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.flatten = nn.Flatten()
            self.fc1 = nn.Dense(fc[0], fc[1])
            self.fc2 = nn.Dense(fc[1], fc[2])
            self.fc3 = nn.Dense(fc[2], 10)

        def construct(self, x):
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            x = self.flatten(x)
            x = self.relu(self.fc1(x))
            x = self.relu(self.fc2(x))
            return self.fc3(x)

    class ResidualBlock(nn.Cell):
        """ResNet-20's basic block: conv-bn-relu-conv-bn, identity shortcut, relu; then pooling and a head."""

        def __init__(self, c=4):
            super().__init__()
            self.conv1 = nn.Conv2d(c, c, 3, stride=1, pad_mode="pad", padding=1)
            self.bn1 = nn.BatchNorm2d(c)
            self.conv2 = nn.Conv2d(c, c, 3, stride=1, pad_mode="same")
            self.bn2 = nn.BatchNorm2d(c)
            self.relu = nn.ReLU()
            self.pool = nn.AvgPool2d(kernel_size=2, stride=2)
            self.fc = nn.Dense(c, 3)

        def construct(self, x):
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            y = self.relu(y + x)
            y = ops.mean(self.pool(y), (2, 3))
            return self.fc(y)

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.l1 = nn.Dense(6, 8)
            self.l2 = nn.Dense(8, 8)
            self.l3 = nn.Dense(8, 3)
            self.act = nn.Sigmoid()

        def construct(self, x):
            h = self.act(self.l1(x))
            h = ops.tanh(self.l2(h)) + h
            return ops.softmax(self.l3(h), -1), h * 2.0 - 1.0

    class Control(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d = nn.Dense(4, 4)

        def construct(self, x):
            if x.sum() > 0:
                x = self.d(x)
            else:
                x = x * 2
            while x.sum() < 20:
                x = x + 1.5
            return x

    def conv(cin, cout, k, stride):
        return nn.Conv2d(cin, cout, k, stride=stride, pad_mode="pad", padding=k // 2, has_bias=False)

    class BasicBlock(nn.Cell):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1, self.bn1 = conv(cin, cout, 3, stride), nn.BatchNorm2d(cout)
            self.conv2, self.bn2 = conv(cout, cout, 3, 1), nn.BatchNorm2d(cout)
            proj = stride != 1 or cin != cout
            self.shortcut = nn.SequentialCell([conv(cin, cout, 1, stride), nn.BatchNorm2d(cout)]) if proj \
                else nn.Identity()
            self.relu = nn.ReLU()

        def construct(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + self.shortcut(x))

    class ResNet20(nn.Cell):
        """The W3/W5 ResNet-20 (3 stages of 3 basic blocks, 1x1 projections when downsampling)."""

        def __init__(self, widths=(16, 32, 64)):
            super().__init__()
            self.conv1, self.bn1, self.relu = conv(3, widths[0], 3, 1), nn.BatchNorm2d(widths[0]), nn.ReLU()
            blocks, cin = [], widths[0]
            for s, cout in enumerate(widths):
                for b in range(3):
                    blocks.append(BasicBlock(cin, cout, 2 if s > 0 and b == 0 else 1))
                    cin = cout
            self.layers = nn.SequentialCell(blocks)
            self.fc = nn.Dense(widths[-1], 10)

        def construct(self, x):
            x = self.layers(self.relu(self.bn1(self.conv1(x))))
            return self.fc(ops.mean(x, (2, 3)))

    class GPTBlock(nn.Cell):
        def __init__(self, d, heads, ffn):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm((d,), epsilon=1e-5), nn.LayerNorm((d,), epsilon=1e-5)
            self.qkv, self.proj = nn.Dense(d, 3 * d), nn.Dense(d, d)
            self.fc1, self.fc2 = nn.Dense(d, ffn), nn.Dense(ffn, d)
            self.act = nn.GELU(approximate=True)
            self.scale, self.heads = 1.0 / float(np.sqrt(d // heads)), heads

        def construct(self, x, mask):
            b, t, c = x.shape
            h = self.heads
            qkv = self.qkv(self.ln1(x)).reshape(b, t, 3, h, c // h).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            att = ops.softmax(ops.matmul(q, k.swapaxes(-2, -1)) * self.scale + mask, axis=-1)
            y = ops.matmul(att, v).swapaxes(1, 2).reshape(b, t, c)
            x = x + self.proj(y)
            return x + self.fc2(self.act(self.fc1(self.ln2(x))))

    class GPT(nn.Cell):
        """The W4 GPT (pre-LN decoder blocks, causal additive mask, explicit attention)."""

        def __init__(self, vocab=1000, d=256, heads=4, ffn=1024, layers=2, seq=128):
            super().__init__()
            self.tok_emb = nn.Embedding(vocab, d)
            self.pos_emb = ms.Parameter(ms.Tensor(np.zeros((seq, d), np.float32)), name="pos_emb")
            self.blocks = nn.CellList([GPTBlock(d, heads, ffn) for _ in range(layers)])
            self.ln_f, self.head = nn.LayerNorm((d,), epsilon=1e-5), nn.Dense(d, vocab)
            self.mask = ms.Tensor(np.triu(np.full((seq, seq), -1e9, np.float32), 1))
            self.vocab = vocab

        def construct(self, idx):
            x = self.tok_emb(idx) + self.pos_emb
            for blk in self.blocks:
                x = blk(x, self.mask)
            return self.head(self.ln_f(x)).reshape(-1, self.vocab)

    rng = np.random.RandomState(7)
    nets = {
        "lenet": (_det_init(ms, LeNet()), rng.randn(2, 1, 16, 16).astype(np.float32)),
        "resblock": (_det_init(ms, ResidualBlock()), rng.randn(2, 4, 8, 8).astype(np.float32)),
        "mlp": (_det_init(ms, MLP()), rng.randn(5, 6).astype(np.float32)),
        "control": (_det_init(ms, Control()), rng.randn(3, 4).astype(np.float32)),
        "resnet": (_det_init(ms, ResNet20((4, 8, 8))), rng.randn(2, 3, 8, 8).astype(np.float32)),
        "gpt": (_det_init(ms, GPT(vocab=20, d=8, heads=2, ffn=16, layers=1, seq=6)),
                rng.randint(0, 20, size=(2, 6)).astype(np.int32)),
    }
    if full:   # the benchmark sizes of W5 (ResNet-20, 3x32x32) and W4 (GPT)
        nets["resnet20"] = (_det_init(ms, ResNet20()), rng.randn(2, 3, 32, 32).astype(np.float32))
        nets["gpt_w4"] = (_det_init(ms, GPT()), rng.randint(0, 1000, size=(2, 128)).astype(np.int32))
    if full:   # the LeNet-5 of MindSpore's tutorials, 1x32x32 inputs
        nets["lenet5"] = (_det_init(ms, LeNet(6, 16, 5, (400, 120, 84), conv_bias=False)),
                          np.random.RandomState(3).randn(2, 1, 32, 32).astype(np.float32))
    return nets


def outputs(result):
    """A network's result as a list of numpy arrays."""
    result = result if isinstance(result, (tuple, list)) else (result,)
    return [r.asnumpy() for r in result]

