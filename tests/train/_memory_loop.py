"""Runs a training loop (PyNative or a jitted step) and a compiled function for many steps and prints, as JSON, the
resident memory at step 100 and at the end, the compile cache sizes and the tapes left active.

    python tests/train/_memory_loop.py STEPS
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mindseed as ms  # noqa: E402
from mindseed import nn  # noqa: E402
from mindseed._utils import _state  # noqa: E402

from _train_helpers import BlobNet, TrainStep  # noqa: E402


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def _run(step, args, steps):
    rss = {}
    for i in range(1, steps + 1):
        step(*args)
        if i in (100, steps):
            rss[i] = round(_rss_mb(), 1)
    return rss


def main(steps):
    rs = np.random.RandomState(0)
    x = ms.Tensor(rs.standard_normal((16, 2)).astype(np.float32))
    y = ms.Tensor(rs.randint(0, 3, 16).astype(np.int32))
    out = {}
    for name, jitted in (("pynative_train", False), ("jit_train", True)):
        net = BlobNet()
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
        train = TrainStep(net, nn.CrossEntropyLoss(), opt)
        step = ms.jit(train.construct) if jitted else train
        out[name] = {"rss_mb": _run(step, (x, y), steps), "tapes": len(_state.tapes)}
        if jitted:
            out[name]["compiled_signatures"] = len(step.cache)
    fn = ms.jit(lambda a, b: ms.ops.tanh(a @ b.T).sum() * 2 + 1)
    out["jit_function"] = {"rss_mb": _run(fn, (x, x), steps), "compiled_signatures": len(fn.cache),
                           "traces": fn.traces, "tapes": len(_state.tapes)}
    print(json.dumps(out))


if __name__ == "__main__":
    main(int(sys.argv[1]))
