"""Manual check: real MindSpore 2.10 runs checkpoints mindseed obfuscated, with mindseed's outputs.

    .venv/bin/python tests/safeguard/oracle_obf_check.py [--oracle PYTHON]

mindseed obfuscates the plain fixture checkpoint (tests/fixtures/obf) with each config under several numpy
seeds; the oracle loads each file into the same net, applies load_obf_params_into_net and prints its outputs,
which are compared with mindseed's. Prints one line per check and "N passed, M failed"; exits 0 when the oracle
is not installed (nothing to check).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "obf")
sys.path.insert(0, ROOT)
sys.path.insert(0, FIXTURES)

RUNNER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import mindspore as ms
from obf_net import OBF_CONFIG, TARGET_MODULES, build, net_input
out = {}
for path, tag in json.loads(sys.argv[2]):
    net = build(ms)
    ms.load_checkpoint(path, net)
    kwargs = {"obf_config": OBF_CONFIG} if tag == "cfg" else {"target_modules": TARGET_MODULES}
    net = ms.load_obf_params_into_net(net, **kwargs)
    out[path] = net(ms.Tensor(net_input())).asnumpy().tolist()
print("RESULT" + json.dumps(out))
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--oracle", default=next((p for p in ("/work/msvenv/bin/python", "/work/oracle/bin/python")
                                                  if os.path.exists(p)), None))
    args = parser.parse_args()
    if not args.oracle:
        print("no MindSpore oracle installed: nothing to check")
        return 0
    import mindseed as ms
    from obf_net import OBF_CONFIG, TARGET_MODULES, build, net_input
    tmp = tempfile.mkdtemp()
    ours, jobs = {}, []
    for seed in (0, 1, 5):
        for tag, kwargs in (("cfg", {"obf_config": OBF_CONFIG}), ("tm", {"target_modules": TARGET_MODULES})):
            out_dir = os.path.join(tmp, f"{tag}{seed}")
            os.makedirs(out_dir)
            np.random.seed(seed)
            ms.obfuscate_ckpt(build(ms), os.path.join(FIXTURES, "plain"), saved_path=out_dir, **kwargs)
            path = os.path.join(out_dir, "net_obf.ckpt")
            net = build(ms)
            ms.load_checkpoint(path, net)
            ours[path] = ms.load_obf_params_into_net(net, **kwargs)(ms.Tensor(net_input())).asnumpy()
            jobs.append((path, tag))
    proc = subprocess.run([args.oracle, "-c", RUNNER, FIXTURES, json.dumps(jobs)], capture_output=True, text=True)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")), None)
    if line is None:
        print(proc.stderr[-2000:])
        return 1
    theirs = json.loads(line[len("RESULT"):])
    passed = failed = 0
    for path, value in ours.items():
        ok = np.allclose(value, np.array(theirs[path], np.float32), rtol=1e-5)
        passed, failed = passed + ok, failed + (not ok)
        print(("ok   " if ok else "FAIL ") + os.path.relpath(path, tmp))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
