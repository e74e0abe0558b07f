"""GRAPH_MODE trains the benchmark workloads W1-W4 of ../shared/bench/peers exactly like PyNative.

The models, initial weights and data are the peers' own (MindSpore code run on mindseed through
bench/_workloads.py); 20 training steps (Momentum) in PyNative, as an `ms.jit` step function, and as a
GRAPH_MODE TrainOneStepCell give the same losses within 1e-5.
"""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PEERS = os.path.join(ROOT, "..", "shared", "bench", "peers")
if not os.path.isfile(os.path.join(PEERS, "common.py")):
    pytest.skip("needs the peers' workloads in ../shared/bench/peers next to the repository",
                allow_module_level=True)
sys.path.insert(0, os.path.join(ROOT, "bench"))

import _workloads as W  # noqa: E402
import common  # noqa: E402  (the peers' harness)

STEPS = 20


def _losses(wl, mode):
    losses = []

    def run(fw, mode_, wl_, step, sync, to_float, **kw):
        for i in range(STEPS):
            losses.append(to_float(step(i)))

    saved = common.run_benchmark
    common.run_benchmark = run
    W._results.append({})
    try:
        W.run_mindseed(wl, mode)
    finally:
        common.run_benchmark = saved
    return np.array(losses)


@pytest.mark.parametrize("wl", ["W1", "W2", "W3", "W4"])
def test_graph_mode_losses_equal_pynative(wl):
    eager = _losses(wl, "pynative")
    assert eager.shape == (STEPS,) and np.all(np.isfinite(eager))
    assert eager[-1] < eager[0]  # it trains
    for mode in ("graph_jit", "graph_cell"):
        np.testing.assert_allclose(_losses(wl, mode), eager, rtol=1e-5, atol=1e-5, err_msg=f"{wl} {mode}")
