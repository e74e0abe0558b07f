"""DatasetCache speed-up: the same pipeline's first epoch (computing and filling the cache), its later epochs, and a
second process, all reading from a local cache server.

    .venv/bin/python bench/dataset_cache.py [--images 1000] [--epochs 3]

Pipeline: ImageFolderDataset of generated JPEGs (10 classes, 160..320 px) -> map([Decode(), Resize((224, 224))],
cache=DatasetCache(...)) -> batch(32), iterated as numpy. The uncached pipeline is timed too. Prints images/s of
each epoch and the speed-up of the cached epochs over the uncached pipeline.
"""
import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _pipeline(folder, cache):
    import mindseed.dataset as ds
    from mindseed.dataset import vision
    data = ds.ImageFolderDataset(folder, shuffle=False)
    data = data.map([vision.Decode(), vision.Resize((224, 224))], input_columns="image", cache=cache)
    return data.batch(32)


def _epochs(data, epochs):
    out = []
    it = data.create_tuple_iterator(output_numpy=True, num_epochs=epochs)
    for _ in range(epochs):
        n, t0 = 0, time.perf_counter()
        for image, _ in it:
            n += image.shape[0]
        out.append(n / (time.perf_counter() - t0))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--images", type=int, default=1000)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)  # folder session port
    args = ap.parse_args()
    import mindseed.dataset as ds
    if args.child:
        folder, sid, port = args.child
        print("RESULT", _epochs(_pipeline(folder, ds.DatasetCache(int(sid), port=int(port))), 1)[0])
        return
    from dataset_pipeline import make_jpegs

    from mindseed.dataset import cache_admin as ca
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as folder:
        make_jpegs(folder, args.images)
        plain = _epochs(_pipeline(folder, None), args.epochs)
        ca.start_server(port=port)
        try:
            sid = ca.call("127.0.0.1", port, {"cmd": "new_session"})["session_id"]
            cached = _epochs(_pipeline(folder, ds.DatasetCache(sid, port=port)), args.epochs)
            proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", folder, str(sid), str(port)],
                                  capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
            line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT")]
            other = float(line[0].split()[1]) if line else float("nan")
        finally:
            ca.stop_server(port=port)
    best_plain = max(plain)
    print("uncached pipeline         : " + "  ".join(f"{v:8.0f}" for v in plain) + "  img/s per epoch")
    print(f"cached, epoch 1 (filling) : {cached[0]:8.0f} img/s  ({cached[0] / best_plain:.2f}x)")
    for k, v in enumerate(cached[1:], 2):
        print(f"cached, epoch {k} (reading) : {v:8.0f} img/s  ({v / best_plain:.2f}x the best uncached epoch)")
    print(f"second process, epoch 1   : {other:8.0f} img/s  ({other / best_plain:.2f}x)")


if __name__ == "__main__":
    main()
