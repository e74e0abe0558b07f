"""Resource limits: a training loop (PyNative and jitted) and a compiled function keep their memory flat over many
steps -- the compile cache holds one signature, no tape stays active, resident memory does not grow.

`python tests/train/_memory_loop.py 10000` prints the figures for 10 000 steps."""
import json
import os
import subprocess
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))


def test_training_and_compiled_function_keep_memory_flat():
    steps = int(os.environ.get("MINDSEED_MEMORY_STEPS", "1500"))
    env = dict(os.environ, PYTHONPATH=_ROOT, OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, os.path.join(_HERE, "_memory_loop.py"), str(steps)], env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    print(out)
    for name, res in out.items():
        assert res["tapes"] == 0, name
        assert res.get("compiled_signatures", 1) == 1, name
        early, late = res["rss_mb"]["100"], res["rss_mb"][str(steps)]
        assert late - early < 20, f"{name}: resident memory grew from {early} MB at step 100 to {late} MB at " \
                                  f"step {steps}"
    assert out["jit_function"]["traces"] == 1
