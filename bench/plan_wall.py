"""Wall time of the parallel planner command, each run a fresh process as a user starts it:

    .venv/bin/python bench/plan_wall.py [--runs 5] [--devices 1024] [--mesh 8x128] [--compiled]

runs `python -m mindseed.parallel.plan --demo gpt --devices 1024 --mesh 8x128` (the W4 GPT with Megatron-style
shards, planned on shapes only) `--runs` times and prints the median wall time and the median CPU time (user + sys)
of the runs, the load average of the machine, how many modules the command imports, and the same figures for
`python -c "import mindseed"`. By default the runs see the environment as it is (with PYTHONDONTWRITEBYTECODE=1 and
no `__pycache__` in the tree, every mindseed module is compiled on each run; the line says which); `--compiled` lets
Python use and write its bytecode cache (under a temporary PYTHONPYCACHEPREFIX, warmed by one run first).
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(argv, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def _median(argv, env, runs):
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu, out = _run(argv, env)
        walls.append(wall)
        cpus.append(cpu)
    return statistics.median(walls), statistics.median(cpus), out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--devices", type=int, default=1024)
    parser.add_argument("--mesh", default="8x128")
    parser.add_argument("--compiled", action="store_true", help="use Python's bytecode cache (warmed first)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as prefix:
        env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1")
        if args.compiled:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = prefix
        plan = [sys.executable, "-m", "mindseed.parallel.plan", "--demo", "gpt", "--devices", str(args.devices),
                "--mesh", args.mesh]
        count = [sys.executable, "-c", "import sys\nfrom mindseed.parallel import plan\n"
                 "print(len(sys.modules), sum(m.startswith('mindseed') for m in sys.modules), 'torch' in sys.modules)"]
        top = [sys.executable, "-c", "import mindseed"]
        if args.compiled:
            for argv in (plan, top):
                _run(argv, env)
        wall, cpu, out = _median(plan, env, args.runs)
        modules, ours, torch = _run(count, env)[2].split()
        top_wall, top_cpu, _ = _median(top, env, args.runs)
    load = os.getloadavg()[0]
    if args.compiled:
        cache = "bytecode cached"
    elif os.path.isdir(os.path.join(ROOT, "mindseed", "__pycache__")) and not os.environ.get("PYTHONPYCACHEPREFIX"):
        cache = "the tree's bytecode cache"
    else:
        cache = "mindseed's modules compiled on every run (no bytecode cache)"
    print(f"planner: python -m mindseed.parallel.plan --demo gpt --devices {args.devices} --mesh {args.mesh}; "
          f"{cache}; median of {args.runs} runs; load average {load:.1f} on {os.cpu_count()} CPUs")
    print(f"  wall {wall:.3f} s, CPU {cpu:.3f} s; {modules} modules imported ({ours} of mindseed), torch "
          f"{'imported' if torch == 'True' else 'not imported'}")
    print(f"  `import mindseed`: wall {top_wall:.3f} s, CPU {top_cpu:.3f} s")
    print("  " + (out.strip().splitlines() or [""])[-1])


if __name__ == "__main__":
    main()
