"""Compiled training steps W1-W4 (ms.jit of the step, and GRAPH_MODE TrainOneStepCell) next to torch eager
and torch.compile, in one process. Targets: >= 1.2x torch eager, >= torch.compile, LeNet compile <= 1 s.

    python bench/graph_step.py [W1 W2 ...] [--no-inductor] [--o1] [--rounds N]

--o1 adds ms.jit at jit_level="O1" (the generated code handed to torch's inductor). With --rounds N every
runner runs N times, interleaved, and the medians are printed (these machines are noisy).
"""
import statistics
import sys

import _workloads as W


def _median(results, field):
    vals = [r[field] for r in results if isinstance(r.get(field), (int, float))]
    return statistics.median(vals) if vals else float("nan")


def main(keys, inductor=True, o1=False, rounds=1):
    runners = [("jit", lambda k: W.run_mindseed(k, "graph_jit")),
               ("cell", lambda k: W.run_mindseed(k, "graph_cell"))]
    if o1:
        runners.append(("jit O1", lambda k: W.run_mindseed(k, "graph_jit", jit_level="O1")))
    runners.append(("eager", lambda k: W.run_torch(k, "eager")))
    if inductor:
        runners.append(("compile", lambda k: W.run_torch(k, "compile")))
    table = {}
    for _ in range(rounds):
        for k in keys:
            for name, run in runners:
                table.setdefault((k, name), []).append(run(k))
    names = [n for n, _ in runners]
    head = "".join(f"{n + '/s':>10s}" for n in names)
    ratios = ["jit/eager", "jit/compile"] + (["O1/eager", "O1/compile"] if o1 else [])
    print(f"\nsteps/s (median of {rounds})\n{'wl':4s}{head}" + "".join(f"{r:>12s}" for r in ratios)
          + f"{'ms compile s':>14s}{'O1 compile s':>14s}{'torch compile s':>16s}")
    for k in keys:
        sps = {n: _median(table[(k, n)], "steps_per_s") for n in names}
        cells = "".join(f"{sps[n]:10.2f}" for n in names)
        rs = [sps["jit"] / sps["eager"], sps["jit"] / sps.get("compile", float("nan"))]
        if o1:
            rs += [sps["jit O1"] / sps["eager"], sps["jit O1"] / sps.get("compile", float("nan"))]
        comp = [_median(table[(k, "jit")], "compile_s"),
                _median(table[(k, "jit O1")], "compile_s") if o1 else float("nan"),
                _median(table[(k, "compile")], "compile_s") if inductor else float("nan")]
        print(f"{k:4s}{cells}" + "".join(f"{r:11.2f}x" for r in rs) + f"{comp[0]:14.2f}{comp[1]:14.2f}{comp[2]:16.2f}")


if __name__ == "__main__":
    argv = sys.argv[1:]
    rounds = W.pop_option(argv, "--rounds", 1, int)
    args = [a for a in argv if not a.startswith("--")]
    main(args or ["W1", "W2", "W3", "W4"], inductor="--no-inductor" not in argv, o1="--o1" in argv, rounds=rounds)
