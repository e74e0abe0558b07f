"""In-process A/B of one compiled training step: the step built twice (with and without a change), run in
alternating blocks, medians compared. Resolves about 0.5% on these noisy 2-core machines, where separate runs
differ by 5-10%.

    python bench/ab_step.py W1 --without-pass write_in_place [--blocks 40]

B is the pipeline as is, A the pipeline without pass NAME. (Kernel-level changes are A/B'd the same way by
swapping a primitive's `impl` between the two builds.)
"""
import statistics
import sys
import time

import _workloads as W
import common

_captured = []


def _capture(fw, mode, wl, step, sync, **kw):
    for i in range(10):
        out = step(i)
    sync(out)
    _captured.append((step, sync))
    common.emit(fw, mode, wl, dict(steps_per_s=float("nan")))


def _build(wl):
    saved, common.run_benchmark = common.run_benchmark, _capture
    try:
        W.run_mindseed(wl, "graph_jit")
    finally:
        common.run_benchmark = saved
    return _captured[-1]


def _timed(step, sync, n):
    t = time.perf_counter()
    for i in range(n):
        out = step(i)
    sync(out)
    return (time.perf_counter() - t) / n


def main(wl, without_pass, blocks=40):
    from mindseed.compiler import passes  # noqa: PLC0415
    b = _build(wl)
    fn = next((p for p in passes.PIPELINE if p.__name__ == without_pass), None)
    if fn is None:
        raise SystemExit(f"no pass {without_pass!r} in the pipeline: {[p.__name__ for p in passes.PIPELINE]}")
    i = passes.PIPELINE.index(fn)
    passes.PIPELINE.remove(fn)
    try:
        a = _build(wl)
    finally:
        passes.PIPELINE.insert(i, fn)
    n = 60 if wl in ("W1", "W2") else 5
    ta, tb = [], []
    for k in range(blocks):
        order = ((a, ta), (b, tb))
        for (step, sync), acc in (order if k % 2 == 0 else order[::-1]):
            acc.append(_timed(step, sync, n))
    ma, mb = statistics.median(ta), statistics.median(tb)
    print(f"{wl}: A (without) {ma * 1e3:.3f} ms/step, B (as is) {mb * 1e3:.3f} ms/step, B speedup {ma / mb:.3f}x "
          f"(means: {statistics.mean(ta) / statistics.mean(tb):.3f}x), {blocks} blocks of {n} steps")


if __name__ == "__main__":
    args = sys.argv[1:]
    blocks = W.pop_option(args, "--blocks", 40, int)
    without = W.pop_option(args, "--without-pass", "write_in_place")
    main(args[0] if args else "W1", without, blocks)
