"""Manual check: MindIR interop with real MindSpore 2.10, both ways.

    .venv/bin/python tests/export/oracle_mindir_check.py [--oracle /work/msvenv/bin/python]

1. mindseed exports each network of tests/export/_nets.py (and full-size LeNet-5) to MindIR; the oracle loads
   the files with `ms.load` + `nn.GraphCell` and runs them on the same inputs; outputs must match mindseed's.
2. The oracle exports the same networks; mindseed loads and runs them; outputs must match the oracle's.
Both once with static shapes and once with a dynamic batch dim (`Tensor(shape=[None, ...])`, run on a batch
one row larger than the example's).
Outputs match within 1e-5 of their largest magnitude (at least 1e-5 absolute).
Prints one line per case and "N passed, M failed"; exits 0 when the oracle is not installed.
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

ORACLE_SIDE = r'''
import os, sys
import numpy as np
import mindspore as ms
sys.path.insert(0, sys.argv[2])
import _nets
folder = sys.argv[1]
nets = _nets.build(ms, full=True)
for name, (net, x) in nets.items():
    for tag, sample, run_on in (("", ms.Tensor(x), x),
                                ("dyn_", ms.Tensor(shape=[None] + list(x.shape[1:]), dtype=ms.Tensor(x).dtype),
                                 np.concatenate([x, x[:1]]))):
        # direction 1: run mindseed's file
        try:
            g = ms.nn.GraphCell(ms.load(os.path.join(folder, "ms_" + tag + name + ".mindir")))
            outs = _nets.outputs(g(ms.Tensor(run_on)))
            np.savez(os.path.join(folder, "oracle_ran_" + tag + name + ".npz"), *outs)
        except Exception as e:
            print("LOADFAIL", tag + name, str(e).splitlines()[0][:300])
        # direction 2: export for mindseed
        ms.export(net, sample, file_name=os.path.join(folder, "oracle_" + tag + name), file_format="MINDIR")
        np.savez(os.path.join(folder, "oracle_out_" + tag + name + ".npz"), *_nets.outputs(net(ms.Tensor(run_on))))
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default="/work/msvenv/bin/python")
    args = ap.parse_args()
    if not os.path.exists(args.oracle):
        print(f"oracle interpreter {args.oracle} not found: nothing to check")
        return 0
    import _nets
    import mindseed as ms
    nets = _nets.build(ms, full=True)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as folder:
        ref, cases = {}, []
        for name, (net, x) in nets.items():
            # each network exported as traced (static shapes), and with a dynamic batch dim (run on one more row)
            for tag, sample, run_on in (("", ms.Tensor(x), x),
                                        ("dyn_", ms.Tensor(shape=[None] + list(x.shape[1:]), dtype=ms.Tensor(x).dtype),
                                         np.concatenate([x, x[:1]]))):
                ref[tag + name] = _nets.outputs(net(ms.Tensor(run_on)))
                ms.export(net, sample, file_name=os.path.join(folder, "ms_" + tag + name), file_format="MINDIR")
                cases.append((tag + name, run_on))
        run = subprocess.run([args.oracle, "-c", ORACLE_SIDE, folder, os.path.join(ROOT, "tests", "export")],
                             capture_output=True, text=True, timeout=1800)
        fails = {ln.split()[1]: ln for ln in run.stdout.splitlines() if ln.startswith("LOADFAIL")}
        if run.returncode != 0:
            print(run.stderr[-3000:])
        for name, x in cases:
            ok, detail = _compare(os.path.join(folder, "oracle_ran_" + name + ".npz"), ref[name])
            if name in fails:
                ok, detail = False, fails[name]
            print(f"{'PASS' if ok else 'FAIL'} mindseed -> MindSpore  {name}: {detail}")
            passed, failed = passed + ok, failed + (not ok)
            path = os.path.join(folder, "oracle_" + name + ".mindir")
            try:
                got = _nets.outputs(ms.nn.GraphCell(ms.load(path))(ms.Tensor(x)))
                ok, detail = _compare(os.path.join(folder, "oracle_out_" + name + ".npz"), got)
            except Exception as e:  # noqa: BLE001 -- reported as a failed case
                ok, detail = False, f"{type(e).__name__}: {e}"
            print(f"{'PASS' if ok else 'FAIL'} MindSpore -> mindseed  {name}: {detail}")
            passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def _compare(npz_path, outs):
    if not os.path.exists(npz_path):
        return False, "no outputs"
    with np.load(npz_path, allow_pickle=False) as f:
        other = [f[f"arr_{i}"] for i in range(len(f.files))]
    if len(other) != len(outs):
        return False, f"{len(other)} outputs vs {len(outs)}"
    # relative to the outputs' scale: the two frameworks' kernels sum in different orders
    err = max(float(np.abs(a - b).max()) for a, b in zip(other, outs))
    scale = max(1.0, max(float(np.abs(b).max()) for b in outs))
    return err <= 1e-5 * scale, f"max abs difference {err:.2e} (outputs up to {scale:.3g})"


if __name__ == "__main__":
    sys.exit(main())
