"""Runs fuzz calls in guarded worker processes and tallies the outcomes.

    python tests/fuzz/_fuzz_run.py            # the full sweep: every finding as its batch ends, then the counts
    python tests/fuzz/_fuzz_run.py ops.diff   # only the calls whose target starts with this

A worker runs a batch of calls; the parent reads its progress with a per-call timeout. When the worker dies the
call it had started is a ``crash``, when it stops answering a ``hang`` (the worker is killed); either way a new
worker resumes after that call.
"""
import collections
import json
import os
import select
import subprocess
import sys
import tempfile
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))
FINDINGS = ("crash", "hang", "internal", "leaked", "build")
# importing mindseed comes before the first call: on a loaded machine it can take a while
_START_TIMEOUT = float(os.environ.get("MINDSEED_FUZZ_START_TIMEOUT", "600"))


def _env():
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONFAULTHANDLER="")
    env["PYTHONPATH"] = _ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _run_batch(batch, timeout, scratch):
    """Outcomes of `batch` (a list of call strings) in order; restarts the worker past a crash or a hang."""
    results = [None] * len(batch)
    start = 0
    while start < len(batch):
        todo = batch[start:]
        proc = subprocess.Popen([sys.executable, "-u", os.path.join(_HERE, "_fuzz_worker.py"), scratch],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_env())
        proc.stdin.write("\n".join(todo).encode())
        proc.stdin.close()
        current, buf = None, b""
        deadline = time.monotonic() + _START_TIMEOUT
        finished = False
        while True:
            left = deadline - time.monotonic()
            ready = select.select([proc.stdout], [], [], max(left, 0))[0]
            if not ready:
                proc.kill()
                proc.wait()
                if current is None:
                    raise RuntimeError("the fuzz worker did not start")
                results[start + current] = {"kind": "hang", "detail": f"no answer within {timeout} s"}
                break
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                code = proc.wait()
                if current is None:
                    raise RuntimeError(f"the fuzz worker failed before its first call (exit {code})")
                results[start + current] = {"kind": "crash", "detail": f"worker died: exit status {code}"}
                break
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                tag, _, rest = line.decode().partition(" ")
                if tag == "S":
                    current = int(rest)
                    deadline = time.monotonic() + timeout
                elif tag == "R":
                    i, _, res = rest.partition(" ")
                    results[start + int(i)] = json.loads(res)
                    current = None
                elif tag == "D":
                    finished = True
            if finished:
                proc.stdout.close()
                proc.wait()
                return results
        done = [i for i, r in enumerate(results) if r is not None]
        start = max(done) + 1
    return results


def run(calls, timeout=10.0, batch_size=1500, on_batch=None):
    """{call: outcome dict} for every call string; `on_batch({call: outcome})` sees each batch as it ends."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="mindseed-fuzz-") as scratch:
        for k in range(0, len(calls), batch_size):
            batch = calls[k:k + batch_size]
            done = dict(zip(batch, _run_batch(batch, timeout, scratch)))
            out.update(done)
            if on_batch is not None:
                on_batch(done)
    return out


def tally(outcomes):
    counts = collections.Counter(r["kind"] for r in outcomes.values())
    return {"calls": len(outcomes), **{k: counts.get(k, 0) for k in ("ok", "error") + FINDINGS}}


def findings(outcomes):
    return {c: r for c, r in outcomes.items() if r["kind"] in FINDINGS}


def family(call):
    """The namespace a call's target belongs to: ``"ops"``, ``"dataset.vision"``, ``"Tensor"``, ..."""
    return call.split("|")[0].rsplit(".", 1)[0]


def table(outcomes):
    """Lines of a per-family table of the tallies (calls and each finding), then the total."""
    by = collections.defaultdict(dict)
    for c, r in outcomes.items():
        by[family(c)][c] = r
    cols = ("calls",) + FINDINGS
    rows = [(f, tally(o)) for f, o in sorted(by.items())] + [("total", tally(outcomes))]
    lines = [f"{'family':22}" + "".join(f"{k:>9}" for k in cols)]
    lines += [f"{f:22}" + "".join(f"{t[k]:>9}" for k in cols) for f, t in rows]
    return lines


def main(argv):
    sys.path.insert(0, _ROOT)
    sys.path.insert(0, _HERE)
    import _fuzz_cases as cases
    calls = cases.all_calls()
    if argv:
        calls = [c for c in calls if any(c.startswith(p) for p in argv)]
    t0 = time.monotonic()

    done = [0]

    def report(batch):
        done[0] += len(batch)
        for c, r in sorted(findings(batch).items()):
            print(f"{r['kind']:8} {c}: {r['detail']}", flush=True)
        print(f"# {done[0]} of {len(calls)} calls, {time.monotonic() - t0:.0f} s", flush=True)
    outcomes = run(calls, timeout=float(os.environ.get("MINDSEED_FUZZ_TIMEOUT", "10")), on_batch=report)
    found = findings(outcomes)
    print("\n".join(table(outcomes)))
    print(json.dumps(tally(outcomes)), f"in {time.monotonic() - t0:.0f} s")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
