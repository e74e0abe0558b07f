"""Random streams of the random transforms.

Inside a pipeline, every row a map processes gets its own stream, keyed by (pipeline seed, map node, epoch,
row index): the same seed gives the same augmentations whatever the number or kind of workers and whichever
worker runs the row. The streams are counter-based (Philox), so switching rows costs one state assignment.

Called eagerly (outside a pipeline), a transform draws from its thread's numpy Generator, which restarts
whenever the seed is set again (so eager calls after `set_seed` repeat too).
"""
import itertools
import threading

import numpy as np

from mindseed.dataset import config as _cfg

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


class RowStreams:
    """The per-row random streams of one map node for one epoch (picklable state: two integers)."""

    __slots__ = ("k0", "k1")

    def __init__(self, seed, node, path):
        self.k0, self.k1 = (int(v) for v in np.random.SeedSequence([seed, node] + list(path)).generate_state(
            2, np.uint64))

    def enter(self, index):
        """Make row `index`'s stream the current one of this thread (until `leave`)."""
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
        """Back to the thread's own stream."""
        _local.row = None


def reseed_worker(index):
    """Called in a forked worker process: give it its own streams."""
    _worker[0] = index + 1
    _local.__dict__.clear()
