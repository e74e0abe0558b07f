"""Inference: mindseed's Lite runtime next to onnxruntime (on mindseed's ONNX export of the same network), torch
eager and torch.compile, and the network compiled to C (`mindseed.lite.codegen`), in one process (issue 23's
speed targets: Lite >= the best of them on W5; the generated C's batch-1 LeNet latency <= 2x onnxruntime's).

    python bench/inference.py [W5] [LeNet1] [--rounds N] [--no-inductor] [--no-c] [--threads N]

W5 is ResNet-20 inference at batch 32 (../shared/bench/peers); LeNet1 is the W2 LeNet-5 at batch 1. The networks,
weights and batches are the peers' own (`ms_w*.py` run with `import mindspore` resolving to mindseed, exported to
MindIR and ONNX; `torch_w*.py` as they are); every runner is timed by the peers' harness (`common.run_benchmark`)
and gives the same checksum (check0). The generated C is built with the system gcc (-O3 -march=native, its Makefile)
and timed by its own driver: blocks of back-to-back predict calls, the median over blocks (no Python in the loop;
the other runners' figures include their Python call). Every runner uses the same number of threads (default 1:
on a shared machine more threads mostly measure the other processes). With --rounds N the runners run N times,
interleaved, and the medians are printed (these machines are noisy).
Without ../shared the benchmark says so and exits.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import types

import numpy as np

try:
    import _workloads as W
except ImportError as exc:        # no ../shared/bench/peers next to the repository
    print(f"bench/inference.py: skipped: {exc}")
    sys.exit(0)

common = W.common
SPECS = {"W5": ("w5_resnet20_infer", None), "LeNet1": ("w2_lenet5", 1)}   # peer script, batch (None: the peer's)


def _recorded(kind):
    """The (make_net, params, xs) a peer script hands to its train_main / infer_main, without running it."""
    seen = {}

    def record(wl, make_net, params, xs, *_):
        seen.update(wl=wl, make_net=make_net, params=params, xs=xs)
    if kind == "ms":
        m = W._ms_util_module("pynative")
    else:
        import _torch_util  # noqa: PLC0415 -- the peers' torch helpers (load_state, infer_main)
        m = types.ModuleType("_torch_util")
        m.__dict__.update({k: v for k, v in vars(_torch_util).items() if not k.startswith("__")})
    m.train_main = m.infer_main = record
    return m, seen


def _peer(kind, key):
    """Run the peer script of `key` for `kind` ("ms" / "torch") with a recording helper module."""
    script, batch = SPECS[key]
    helper = "_ms_util" if kind == "ms" else "_torch_util"
    real = sys.modules.get(helper)
    m, seen = _recorded(kind)
    sys.modules[helper] = m
    try:
        W._exec_as_main(os.path.join(W.PEERS, f"{kind}_{script}.py"))
    finally:
        if real is not None:
            sys.modules[helper] = real
        else:
            sys.modules.pop(helper, None)
    seen["xs"] = [np.ascontiguousarray(x[:batch]) for x in seen["xs"]]
    seen["wl"] = f"{key}_infer"
    return seen


class _Files:
    """The peer network on mindseed, exported once as MindIR and ONNX."""

    def __init__(self, key, folder):
        import mindseed as ms  # noqa: PLC0415
        p = _peer("ms", key)
        net = p["make_net"]()
        W._ms_util_module("pynative").load_params(net, p["params"])
        net.set_train(False)
        self.xs, self.wl, self.key, self.folder = p["xs"], p["wl"], key, folder
        self.c_dir = None
        base = os.path.join(folder, key)
        ms.export(net, ms.Tensor(self.xs[0]), file_name=base, file_format="MINDIR")
        ms.export(net, ms.Tensor(self.xs[0]), file_name=base, file_format="ONNX")
        self.mindir, self.onnx = base + ".mindir", base + ".onnx"


def run_lite(files, threads):
    from mindseed import lite as mslite  # noqa: PLC0415
    context = mslite.Context()
    context.target = ["cpu"]
    context.cpu.thread_num = threads
    model = mslite.Model()
    model.build_from_file(files.mindir, mslite.ModelType.MINDIR, context)
    inputs = [[mslite.Tensor(x)] for x in files.xs]     # one input list per batch (get_inputs has one)

    def step(i):
        return model.predict(inputs[i % len(inputs)])
    common.run_benchmark("mindseed", "lite", files.wl, step, sync=lambda out: None,
                         to_float=lambda out: float(out[0].get_data_to_numpy().astype(np.float64).sum()),
                         compiled=True, threads=threads)
    result = W.last_result()
    plan = model.memory_plan()[-1]
    result.update(plan_peak_kb=plan.peak_bytes / 1024, plan_total_kb=plan.total_bytes / 1024,
                  native=model.uses_native()[-1], native_arena_kb=(model.native_arena_bytes()[-1] or 0) / 1024)
    return result


def run_ort(files, threads):
    import onnxruntime as ort  # noqa: PLC0415
    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    session = ort.InferenceSession(files.onnx, options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name

    def step(i):
        return session.run(None, {name: files.xs[i % len(files.xs)]})
    common.run_benchmark("onnxruntime", "cpu", files.wl, step, sync=lambda out: None,
                         to_float=lambda out: float(out[0].astype(np.float64).sum()), compiled=True,
                         threads=threads)
    return W.last_result()


def run_c(files, rounds=101):
    """The network as C (mindseed.lite.codegen), built with its Makefile (the system gcc -O3), timed by its driver on
    the first batch: the median per-call time over `rounds` blocks of calls. Also the binary's sizes."""
    from mindseed.lite import codegen  # noqa: PLC0415
    if files.c_dir is None:
        files.c_dir = os.path.join(files.folder, files.key + "_c")
        codegen.generate(files.mindir, files.c_dir, name="model")
        r = subprocess.run(["make", "-s", "-C", files.c_dir], capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"building the generated C in {files.c_dir} failed:\n{r.stdout}{r.stderr}")
    d = files.c_dir
    np.ascontiguousarray(files.xs[0], "<f4").tofile(os.path.join(d, "in.bin"))
    r = subprocess.run([os.path.join(d, "model_run"), os.path.join(d, "model.bin"), os.path.join(d, "in.bin"),
                        os.path.join(d, "out.bin"), str(rounds)], check=True, capture_output=True, text=True)
    timing = dict(line.split() for line in r.stdout.splitlines())
    text = None
    if shutil.which("size"):         # the model's code (text) without the static arena (bss)
        text = int(subprocess.run(["size", os.path.join(d, "model.o")], capture_output=True, text=True,
                                  check=True).stdout.splitlines()[1].split()[0])
    out = np.fromfile(os.path.join(d, "out.bin"), "<f4")
    result = dict(ms_per_step=float(timing["median_us"]) / 1000.0, cpu_ms=float(timing["cpu_median_us"]) / 1000.0,
                  check0=float(out.astype(np.float64).sum()),
                  exe_kb=os.path.getsize(os.path.join(d, "model_run")) / 1024,
                  text_kb=text / 1024 if text is not None else float("nan"),
                  weights_kb=os.path.getsize(os.path.join(d, "model.bin")) / 1024,
                  py_ms=_c_through_python(files, out.size))
    print(f"  generated C          {files.wl:18s} {1000.0 / result['ms_per_step']:8.2f} steps/s  "
          f"loss0={result['check0']:.6f}", flush=True)
    return result


def _c_through_python(files, n_out):
    """The same C as a shared library called with ctypes, timed by the peers' harness like onnxruntime (its ms per
    batch): what a Python program calling it would see."""
    import ctypes  # noqa: PLC0415
    d = files.c_dir
    lib_path = os.path.join(d, "model.so")
    if not os.path.exists(lib_path):
        subprocess.run(["gcc", "-O3", "-std=c99", "-ffp-contract=fast", "-march=native", "-shared", "-fPIC", "-o",
                        lib_path, os.path.join(d, "model.c"), "-lm"], check=True, capture_output=True)
    lib = ctypes.CDLL(lib_path)
    lib.model_last_error.restype = ctypes.c_char_p
    if lib.model_init(os.path.join(d, "model.bin").encode()) != 0:
        raise RuntimeError(lib.model_last_error().decode())
    xs = [np.ascontiguousarray(x, np.float32) for x in files.xs]
    ptrs = [x.ctypes.data_as(ctypes.c_void_p) for x in xs]
    out = np.empty(n_out, np.float32)
    out_ptr = out.ctypes.data_as(ctypes.c_void_p)
    predict = lib.model_predict

    def step(i):
        predict(ptrs[i % len(ptrs)], out_ptr)
        return out
    common.run_benchmark("generated-C", "ctypes", files.wl, step, sync=lambda o: None,
                         to_float=lambda o: float(o.astype(np.float64).sum()), compiled=True, threads=1)
    return W.last_result()["ms_per_step"]


def run_torch(key, mode):
    """The torch peer: W5 as its own script runs it; LeNet1 through the peers' infer_main at batch 1."""
    if SPECS[key][1] is None:
        return W.run_torch(key, mode)
    import torch  # noqa: PLC0415 -- the peer
    p = _peer("torch", key)
    import _torch_util  # noqa: PLC0415
    saved = sys.argv
    sys.argv = [saved[0], mode]
    if mode == "compile":
        torch._dynamo.reset()
    try:
        with torch.inference_mode(False):
            _torch_util.infer_main(p["wl"], p["make_net"], p["params"], p["xs"])
    finally:
        sys.argv = saved
    return W.last_result()


def _median(results, field):
    vals = [r[field] for r in results if isinstance(r.get(field), (int, float))]
    return statistics.median(vals) if vals else float("nan")


def _cpu_ms(result):
    """CPU ms per batch: the driver's own figure for the generated C, else the harness's wall time x its CPU use
    (what a batch costs when other processes share the cores; wall time on a loaded machine mostly measures them)."""
    if "cpu_ms" in result:
        return result["cpu_ms"]
    util = result.get("cpu_util")
    return result["ms_per_step"] * util if isinstance(util, (int, float)) else float("nan")


def main(keys, inductor=True, rounds=1, threads=None, c=True):
    import torch  # noqa: PLC0415 -- the peers' framework
    threads = threads or 1
    torch.set_num_threads(threads)
    table = {}
    with tempfile.TemporaryDirectory() as folder:
        files = {k: _Files(k, folder) for k in keys}
        runners = [("lite", lambda k: run_lite(files[k], threads)), ("ort", lambda k: run_ort(files[k], threads)),
                   ("eager", lambda k: run_torch(k, "eager"))]
        if inductor:
            runners.append(("compile", lambda k: run_torch(k, "compile")))
        if c and shutil.which("gcc") and shutil.which("make"):
            runners.append(("c", lambda k: run_c(files[k])))
        elif c:
            print("the generated C is skipped: no gcc / make on this machine")
        for _ in range(rounds):
            for k in keys:
                for name, run in runners:
                    table.setdefault((k, name), []).append(run(k))
    names = [n for n, _ in runners]
    others = [n for n in names if n != "lite"]
    for what, field in (("wall-clock", "ms_per_step"), ("CPU", "cpu_ms")):
        print(f"\n{what} ms per batch (median of {rounds}, {threads} threads); ratio = other's ms / Lite's ms "
              f"(> 1: Lite is faster)\n{'workload':10s}" + "".join(f"{n:>10s}" for n in names)
              + "".join(f"{'/' + n:>10s}" for n in others) + f"{'plan KB':>10s}{'all KB':>10s}{'check0':>14s}")
        for k in keys:
            for r in table[(k, "lite")] + [r for n in others for r in table[(k, n)]]:
                r.setdefault("cpu_ms", _cpu_ms(r))
            ms_ = {n: _median(table[(k, n)], field) for n in names}
            line = f"{k:10s}" + "".join(f"{ms_[n]:10.3f}" for n in names)
            line += "".join(f"{ms_[n] / ms_['lite']:9.2f}x" for n in others)
            lite = table[(k, "lite")][-1]
            line += f"{lite['plan_peak_kb']:10.0f}{lite['plan_total_kb']:10.0f}{lite['check0']:14.4f}"
            print(line)
    print("Lite runs the generated C (native path; then its arena in KB instead of the plan above):",
          {k: (table[(k, "lite")][-1].get("native"), round(table[(k, "lite")][-1].get("native_arena_kb", 0)))
           for k in keys})
    if "c" in names:
        for k in keys:
            c_ms, ort_ms = _median(table[(k, "c")], "ms_per_step"), _median(table[(k, "ort")], "ms_per_step")
            last = table[(k, "c")][-1]
            py_ms = _median(table[(k, "c")], "py_ms")
            c_cpu, ort_cpu = _median(table[(k, "c")], "cpu_ms"), _median(table[(k, "ort")], "cpu_ms")
            print(f"generated C, {k}: CPU {c_cpu * 1000:.1f} us per batch in its driver, onnxruntime's CPU "
                  f"{ort_cpu * 1000:.1f} us (C / onnxruntime = {c_cpu / ort_cpu:.2f});")
            print(f"generated C, {k}: {c_ms * 1000:.1f} us per batch in its driver, {py_ms * 1000:.1f} us called from "
                  f"Python (ctypes); onnxruntime {ort_ms * 1000:.1f} us (from Python): C / onnxruntime = "
                  f"{c_ms / ort_ms:.2f} (driver), {py_ms / ort_ms:.2f} (both from Python); binary "
                  f"{last['exe_kb']:.0f} KB (the model's code {last['text_kb']:.0f} KB), weights "
                  f"{last['weights_kb']:.0f} KB")
    print("check0 per runner (the same network and batch):",
          {f"{k}/{n}": round(table[(k, n)][-1].get("check0", float("nan")), 4) for k in keys for n in names})


if __name__ == "__main__":
    argv = sys.argv[1:]
    rounds = W.pop_option(argv, "--rounds", 1, int)
    n_threads = W.pop_option(argv, "--threads", None, int)
    args = [a for a in argv if not a.startswith("--")]
    main(args or ["W5", "LeNet1"], inductor="--no-inductor" not in argv, rounds=rounds, threads=n_threads,
         c="--no-c" not in argv)
