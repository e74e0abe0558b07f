"""Where a training step's time goes, mindseed (ms.jit) next to the torch eager peer, by kernel family.

    python bench/step_breakdown.py W4 [--steps 20] [--rest]    (--rest: the largest ops outside the families)

Both steps are run under torch's profiler (mindseed's kernels are aten ops too) and each aten op's own
time is put in a family: matrix products, convolutions, attention, GELU, and the rest. The families other
than "rest" are kernels both sides run with the same shapes (mindseed calls the same aten kernels, or for
attention a fused one), so they bound what removing framework overhead can give: the last line prints
the jit/eager ratio mindseed would reach if everything outside those families took no time. Profiling slows
small ops, so read the families' milliseconds, not the profiled step totals; the unprofiled step times are
measured separately (median of 5 blocks).
"""
import functools
import statistics
import sys
import time

import _workloads as W
import common

# attention shares a family with the matrix products: the peer computes it as bmm + softmax, mindseed with the
# fused flash-attention kernels
FAMILIES = (
    ("matmul+attn", ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::mv",
                     "aten::addmv", "aten::_scaled_dot_product_flash_attention_for_cpu",
                     "aten::_scaled_dot_product_flash_attention_for_cpu_backward", "aten::_softmax",
                     "aten::_softmax_backward_data")),
    ("convolution", ("aten::mkldnn_convolution", "aten::convolution_backward", "aten::_convolution",
                     "aten::convolution", "aten::mkldnn_convolution_backward", "aten::slow_conv_transpose2d")),
    ("gelu", ("aten::gelu", "aten::gelu_backward")),
)
_FAMILY_OF = {op: fam for fam, ops in FAMILIES for op in ops}


def _profile(rows, n, rest, fw, mode, wl, step, sync, **_):
    """common.run_benchmark's stand-in: rows[fw] = (unprofiled ms/step, {family: ms/step})."""
    from torch.profiler import ProfilerActivity, profile  # noqa: PLC0415 -- both frameworks' kernels are aten ops
    for i in range(5):
        out = step(i)
    sync(out)
    blocks = []
    for _ in range(5):
        t = time.perf_counter()
        for i in range(n):
            out = step(i)
        sync(out)
        blocks.append((time.perf_counter() - t) / n)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for i in range(n):
            out = step(i)
        sync(out)
    fam = {name: 0.0 for name, _ in FAMILIES}
    fam["rest"] = 0.0
    for e in prof.key_averages():
        if e.key.startswith("aten::"):
            fam[_FAMILY_OF.get(e.key, "rest")] += e.self_cpu_time_total / n / 1e3
    rows[fw] = (statistics.median(blocks) * 1e3, fam)
    if rest:
        rest = sorted(((e.self_cpu_time_total / n / 1e3, e.key, e.count // n) for e in prof.key_averages()
                       if e.key.startswith("aten::") and e.key not in _FAMILY_OF), reverse=True)
        print(f"  {fw} rest, largest: " + ", ".join(f"{k[6:]} {ms:.2f} ms ({c}x)" for ms, k, c in rest[:12]))
    common.emit(fw, mode, wl, dict(steps_per_s=1.0 / statistics.median(blocks)))


def main(wl, steps, rest=False):
    rows = {}
    saved, common.run_benchmark = common.run_benchmark, functools.partial(_profile, rows, steps, rest)
    try:
        W.run_mindseed(wl, "graph_jit")
        W.run_torch(wl, "eager")
    finally:
        common.run_benchmark = saved
    ms_step, ms_fam = rows["mindseed"]
    pt_step, pt_fam = rows["torch"]
    print(f"\n{wl}: ms/step by kernel family (aten self time under the profiler)")
    print(f"{'family':12s} {'mindseed':>9s} {'torch':>9s}")
    for name in list(ms_fam):
        print(f"{name:12s} {ms_fam[name]:9.2f} {pt_fam[name]:9.2f}")
    print(f"{'step':12s} {ms_step:9.2f} {pt_step:9.2f}   (unprofiled, median of 5 blocks of {steps})")
    shared = sum(v for k, v in ms_fam.items() if k != "rest")
    print(f"jit/eager now {pt_step / ms_step:.2f}x; with mindseed's step reduced to its matmul/attention/convolution/"
          f"GELU kernels ({shared:.2f} ms) it would be {pt_step / shared:.2f}x")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--rest"]
    n = W.pop_option(args, "--steps", 20, int)
    main(args[0] if args else "W4", n, rest="--rest" in sys.argv)
