"""Manual check: the converter's generated MindSpore files run on real MindSpore 2.10 and match onnxruntime.

    .venv/bin/python tests/export/oracle_converter_check.py [--oracle PYTHON]

Writes the ONNX files of tests/export/_onnx_models.py (torch.onnx.export of a CNN with batch norms, an MLP with
GELUs, LSTMs, a transformer block at opsets 17 and 14; mindseed's exporter's LeNet, ResNet block, MLP, ResNet-20,
GPT and the net with a tensor `if` and `while`) into a temporary folder, converts each with `python -m
mindseed.converter`, runs the generated file with the oracle's Python (real MindSpore: `create_network()` loads the
.ckpt, then the network runs on the saved inputs, in PyNative and in graph mode) and compares its outputs with
onnxruntime's on the same inputs (1e-5). Prints one line per file and "N passed, M failed"; exits 0 when the oracle
is not installed (nothing to check). `--oracle` defaults to the first of /work/msvenv/bin/python and
/work/oracle/bin/python that exists.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "export"))

RUNNER = r"""
import importlib, os, sys
import numpy as np
import mindspore as ms
sys.path.insert(0, os.path.dirname(sys.argv[1]))     # imported as a module: graph mode reads its source
module = importlib.import_module(os.path.splitext(os.path.basename(sys.argv[1]))[0])
inputs = np.load(sys.argv[2])
results = []
for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
    ms.set_context(mode=mode)
    net = module.create_network()
    outputs = net(*[ms.Tensor(inputs[k]) for k in sorted(inputs.files, key=int)])
    results += [o.asnumpy() for o in (outputs if isinstance(outputs, tuple) else (outputs,))]
np.savez(sys.argv[3], *results)
print("MINDSPORE", ms.__version__, ms.__file__)
"""


def _oracle(given):
    for path in [given] if given else ["/work/msvenv/bin/python", "/work/oracle/bin/python"]:
        if path and os.path.exists(path):
            return path
    return None


def main():
    import _onnx_models  # noqa: PLC0415
    parser = argparse.ArgumentParser()
    parser.add_argument("--oracle", default=None)
    args = parser.parse_args()
    oracle = _oracle(args.oracle)
    if oracle is None:
        print("no MindSpore oracle installed: nothing to check")
        return 0
    passed = failed = 0
    env = dict(os.environ, PYTHONPATH=ROOT)
    with tempfile.TemporaryDirectory() as folder:
        files = _onnx_models.torch_onnx_files(folder)
        files.update(_onnx_models.mindseed_onnx_files(folder))
        for name, path in files.items():
            out_dir = os.path.join(folder, "out_" + name)
            conv = subprocess.run([sys.executable, "-m", "mindseed.converter", path, "-o", out_dir],
                                  capture_output=True, text=True, env=env, timeout=600)
            if conv.returncode:
                print(f"FAIL {name}: the converter failed: {conv.stderr.strip().splitlines()[-1:]}")
                failed += 1
                continue
            feeds = _onnx_models.inputs_for(path)
            want = _onnx_models.onnxruntime_outputs(path, feeds)
            np.savez(os.path.join(folder, name + "_in.npz"), **{str(i): v for i, v in enumerate(feeds.values())})
            run = subprocess.run([oracle, "-c", RUNNER, os.path.join(out_dir, name + ".py"),
                                  os.path.join(folder, name + "_in.npz"), os.path.join(folder, name + "_out.npz")],
                                 capture_output=True, text=True, timeout=600, env={"PATH": os.environ["PATH"]})
            if run.returncode or "MINDSPORE" not in run.stdout:
                print(f"FAIL {name}: MindSpore could not run the generated file: "
                      f"{run.stderr.strip().splitlines()[-1:]}")
                failed += 1
                continue
            got = np.load(os.path.join(folder, name + "_out.npz"))
            got = [got[f"arr_{i}"] for i in range(len(got.files))]     # PyNative's outputs, then graph mode's
            want = want + want
            errors = [float(np.abs(g - w).max() / max(1.0, float(np.abs(w).max()))) for g, w in zip(got, want)]
            ok = len(got) == len(want) and all(g.shape == w.shape for g, w in zip(got, want)) and max(errors) <= 1e-5
            passed, failed = passed + ok, failed + (not ok)
            shapes = [g.shape for g in got[:len(got) // 2]]
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {len(shapes)} output(s) {shapes}, max error vs onnxruntime in "
                  f"PyNative and graph mode {max(errors):.2e} ({run.stdout.split()[1]})")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
