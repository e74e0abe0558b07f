"""Random streams of the random transforms.

Inside a pipeline, every row a map processes gets its own stream, keyed by (pipeline seed, map node, epoch,
row index): the same seed gives the same augmentations whatever the number or kind of workers and whichever
worker runs the row. The streams are counter-based (Philox), so switching rows costs one state assignment.

The random ops MindSpore runs in C++ (the flips, RandomCrop) instead draw as MindSpore's map does: every op of a
map owns a `std::mt19937` per worker thread, seeded with the pipeline seed + the worker's number; the map hands
its input rows to its workers in turn (row slot k to worker k % workers), and each pass ends with an
end-of-epoch slot that draws nothing. `std_engine(op, draws)` gives the op its generator at the current row.

Called eagerly (outside a pipeline), a transform draws from its thread's numpy Generator, which restarts
whenever the seed is set again (so eager calls after `set_seed` repeat too).
"""
import itertools
import threading

import numpy as np

from mindseed.dataset import config as _cfg
from mindseed.dataset._std_random import mt19937

_local = threading.local()
_thread_ids = itertools.count()
_worker = [0]
_MASK = (1 << 64) - 1


def rng():
    """The Generator random transforms draw from: the current row's stream inside a map, else this thread's."""
    row = getattr(_local, "row", None)
    if row is not None:
        return row
    seed = _cfg._pipeline_seed()
    gen = _cfg._config.generation
    st = getattr(_local, "state", None)
    if st is None or st[0] != gen or st[1] != _worker[0]:
        tid = getattr(_local, "tid", None)
        if tid is None:
            tid = _local.tid = next(_thread_ids)
        g = np.random.default_rng() if seed is None else np.random.default_rng([seed, _worker[0], tid])
        st = _local.state = (gen, _worker[0], g)
    return st[2]


def _slot_position(slot, workers, eoes):
    """(worker, how many rows that worker ran before) of input slot `slot` of a map (see the module doc)."""
    w = slot % workers
    return w, slot // workers - sum(1 for e in eoes if e < slot and e % workers == w)


_engines = {}   # (id(op), seed, worker) -> [std::mt19937, its next row]; rows in use are out of it
_engines_lock = threading.Lock()


def std_engine(op, draws):
    """The `std::mt19937` of `op` in the MindSpore map worker that runs the current row, positioned at that row
    (None outside a map: the op then draws from `rng()`). Rows of a worker taken in order continue its
    generator; a row taken out of order repositions a new one assuming each earlier row took `draws` 32-bit
    outputs (exact for the ops that always take the same number)."""
    pos = getattr(_local, "slot", None)
    if pos is None:
        return None
    seed, w, k = pos
    key = (id(op), seed, w)
    with _engines_lock:
        ent = _engines.pop(key, None)
        if len(_engines) > 1024:
            _engines.clear()
    if ent is None or ent[1] != k:
        g = mt19937((seed + w) & 0xFFFFFFFF)
        g.skip(k * draws)
        ent = [g, k]
    ent[1] = k + 1
    _local.taken.append((key, ent))
    return ent[0]


class RowStreams:
    """The per-row random streams of one map node for one epoch (picklable state: integers): a Philox stream per
    row, and where the row falls among MindSpore's map workers (`workers`, this pass's first input slot
    `offset` and the end-of-epoch slots `eoes` of the passes before it)."""

    __slots__ = ("k0", "k1", "seed", "workers", "offset", "eoes")

    def __init__(self, seed, node, path, workers=1, offset=0, eoes=()):
        self.k0, self.k1 = (int(v) for v in np.random.SeedSequence([seed, node] + list(path)).generate_state(
            2, np.uint64))
        self.seed, self.workers, self.offset, self.eoes = int(seed), max(1, int(workers)), int(offset), tuple(eoes)

    def enter(self, index):
        """Make row `index`'s stream the current one of this thread (until `leave`)."""
        w, k = _slot_position(self.offset + index, self.workers, self.eoes)
        _local.slot = (self.seed, w, k)
        _local.taken = []
        st = getattr(_local, "philox", None)
        if st is None:
            bits = np.random.Philox(key=0)
            state = bits.state
            st = _local.philox = (bits, np.random.Generator(bits), state)
        bits, gen, state = st
        state["state"]["counter"][:] = 0
        key = state["state"]["key"]
        key[0] = self.k0
        key[1] = (self.k1 + index) & _MASK
        state["buffer"][:] = 0
        state["buffer_pos"] = 4
        state["has_uint32"] = 0
        state["uinteger"] = 0
        bits.state = state
        _local.row = gen

    @staticmethod
    def leave():
        """Back to the thread's own stream (the row's op generators go back for the worker's next row)."""
        _local.row = None
        _local.slot = None
        taken, _local.taken = getattr(_local, "taken", []), []
        if taken:
            with _engines_lock:
                _engines.update(taken)


def reseed_worker(index):
    """Called in a forked worker process: give it its own streams."""
    _worker[0] = index + 1
    _local.__dict__.clear()
    _engines.clear()
