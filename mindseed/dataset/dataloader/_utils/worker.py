"""What a DataLoader worker process knows about itself (`get_worker_info`), how it seeds its random streams, and the
codec carrying a worker's batch (nested dicts, lists and tuples of Tensors, arrays, numbers, strings) to the main
process as plain arrays (no pickle)."""
import importlib
import json
import random

import numpy as np

from mindseed.common.tensor import Tensor

_WORKER_INFO = [None]
_MASK32 = 0xFFFFFFFF


class WorkerInfo:
    """id, num_workers, seed and dataset (the worker's own copy) of the worker the code runs in; read-only."""

    _initialized = False

    def __init__(self, id, num_workers, seed, dataset):  # noqa: A002 -- MindSpore's field name
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset
        self._initialized = True

    def __setattr__(self, key, value):
        if self._initialized:
            raise RuntimeError("Cannot modify the attributes of WorkerInfo object after initialization.")
        super().__setattr__(key, value)

    def __repr__(self):
        return (f"WorkerInfo: {{id: {self.id}, num_workers: {self.num_workers}, seed: {self.seed}, "
                f"dataset: {self.dataset}}}")


def get_worker_info():
    """Inside a DataLoader worker process, its `WorkerInfo`; in the main process, None."""
    return _WORKER_INFO[0]


def _hashmix(value, const):
    value = (value ^ const) & _MASK32
    const = (const * 0x931E8875) & _MASK32
    value = (value * const) & _MASK32
    return (value ^ (value >> 16)) & _MASK32, const


def _mix(x, y):
    r = (((0xCA01F9DD * x) & _MASK32) - ((0x4973F715 * y) & _MASK32)) & _MASK32
    return (r ^ (r >> 16)) & _MASK32


def seed_sequence(base_seed, worker_id):
    """Four 32-bit words seeding numpy's global generator in worker `worker_id` (numpy's SeedSequence mixing of
    (worker_id, base_seed low, base_seed high, 0)), so numpy's stream differs from the `random` module's."""
    const = 0x43B0D7E5
    pool = [0] * 4
    for i, v in enumerate((worker_id, base_seed & _MASK32, base_seed >> 32, 0)):
        pool[i], const = _hashmix(v, const)
    for src in range(4):
        for dst in range(4):
            if src != dst:
                value, const = _hashmix(pool[src], const)
                pool[dst] = _mix(pool[dst], value)
    const, state = 0x8B51F9DD, []
    for v in pool:
        v = (v ^ const) & _MASK32
        const = (const * 0x58F38DED) & _MASK32
        v = (v * const) & _MASK32
        state.append((v ^ (v >> 16)) & _MASK32)
    return state


def start_worker(worker_id, num_workers, base_seed, dataset, worker_init_fn):
    """A worker's first steps: its seeds (Python's `random`, MindSpore's and numpy's), its WorkerInfo, then the
    user's worker_init_fn."""
    from mindseed.common import seed as ms_seed  # noqa: PLC0415 -- the worker's own streams

    seed = base_seed + worker_id
    random.seed(seed)
    ms_seed.set_seed(seed & _MASK32)
    np.random.seed(seed_sequence(base_seed, worker_id))
    _WORKER_INFO[0] = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    if worker_init_fn is not None:
        worker_init_fn(worker_id)


# ---------------------------------------------------------------------------- codec
def encode(data):
    """`data` as a row of arrays: a JSON description of its structure (uint8), then its arrays."""
    arrays = []

    def leaf(kind, array, **extra):
        arrays.append(np.ascontiguousarray(array))
        return {"t": kind, "i": len(arrays), **extra}

    def walk(x):
        if isinstance(x, Tensor):
            return leaf("T", x.asnumpy())
        if isinstance(x, np.ndarray):
            return leaf("a", x)
        if isinstance(x, np.generic):
            return leaf("g", np.asarray(x))
        if isinstance(x, (bool, int, float, complex)):
            return {"t": "n", "v": repr(x), "k": type(x).__name__}
        if isinstance(x, str):
            return {"t": "s", "v": x}
        if isinstance(x, bytes):
            return leaf("b", np.frombuffer(x, np.uint8))
        if x is None:
            return {"t": "N"}
        if isinstance(x, dict):
            return {"t": "d", "k": [walk(k) for k in x], "v": [walk(v) for v in x.values()]}
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            cls = type(x)
            return {"t": "nt", "c": [cls.__module__, cls.__qualname__], "v": [walk(v) for v in x]}
        if isinstance(x, (list, tuple)):
            return {"t": "l" if isinstance(x, list) else "u", "v": [walk(v) for v in x]}
        raise TypeError(f"A DataLoader worker can send Tensors, numpy arrays, numbers, str, bytes, None and dicts, "
                        f"lists and tuples of them to the main process, but got {type(x).__name__}.")

    spec = json.dumps(walk(data)).encode()
    return [np.frombuffer(spec, np.uint8)] + arrays


_NUMBERS = {"bool": lambda v: v == "True", "int": int, "float": float, "complex": complex}


def decode(row):
    """The data `encode` made `row` from."""
    def build(s):
        t = s["t"]
        if t == "T":
            return Tensor.from_numpy(row[s["i"]])
        if t == "a":
            return row[s["i"]]
        if t == "g":
            return row[s["i"]][()]
        if t == "n":
            return _NUMBERS[s["k"]](s["v"])
        if t == "s":
            return s["v"]
        if t == "b":
            return row[s["i"]].tobytes()
        if t == "N":
            return None
        if t == "d":
            return {build(k): build(v) for k, v in zip(s["k"], s["v"])}
        if t == "nt":
            module, name = s["c"]
            cls = importlib.import_module(module)
            for part in name.split("."):
                cls = getattr(cls, part)
            return cls(*(build(v) for v in s["v"]))
        values = [build(v) for v in s["v"]]
        return values if t == "l" else tuple(values)

    return build(json.loads(bytes(row[0]).decode()))
