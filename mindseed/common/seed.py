"""Global seed: `set_seed` makes initializers and random ops reproducible."""
import random

import numpy as np

from mindseed import _backend as B

__all__ = ["set_seed", "get_seed"]

_global_seed = None
_op_gen = None      # the global stream of the random ops, made at first use (which loads the backend)
_op_counter = 0

# MindSpore's graph-level seed pairs (`_get_graph_seed`): the seed used when only the op has one, and the running
# op seed of each (kernel, op seed), advanced at every use so that two calls draw different numbers
DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_SEED_STEP = 3528531795 ^ 3449720151
_KERNEL_SEED = {}


def set_seed(seed):
    """Set the global seed: initializers, random ops and dataset shuffles restart their streams.

    >>> import mindseed as ms
    >>> ms.set_seed(1)
    """
    global _global_seed, _op_counter
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"For 'set_seed', the 'seed' must be int, but got {type(seed).__name__}.")
    if seed < 0:
        raise ValueError(f"For 'set_seed', the 'seed' must be >= 0, but got {seed}.")
    _global_seed = seed
    _global_generator().manual_seed(seed)
    _op_counter = 0
    _seeded_gens.clear()
    for key in _KERNEL_SEED:
        _KERNEL_SEED[key] = key[1]
    B.manual_seed(seed)
    random.seed(seed)       # as MindSpore's: `random`'s and numpy's global generators restart from the seed too
    np.random.seed(seed)    # (the pipeline adopts the new global seed itself, dataset.config._sync_global_seed)


def get_seed():
    return _global_seed


def op_generator(seed=0, seed2=0):
    """Backend generator for a random op: a fixed stream when the op has its own seed, else the global one."""
    if seed or seed2:
        key = (seed, seed2, _global_seed)
        gen = _seeded_gens.get(key)
        if gen is None:
            gen = _seeded_gens[key] = B.Generator(seed * 1000003 + seed2 + (_global_seed or 0))
        return gen
    return _global_generator()


def _global_generator():
    global _op_gen
    if _op_gen is None:
        _op_gen = B.Generator()
    return _op_gen


_seeded_gens = {}


def _get_graph_seed(op_seed, kernel_name):
    """MindSpore's `(graph seed, op seed)` pair for a random kernel: `(0, 0)` (the kernel picks) when neither the
    global seed nor `op_seed` is set, else both truncated to int32, the op seed advancing at every call with the same
    `(kernel_name, op_seed)` so that the calls draw different streams; `set_seed` restarts them."""
    global_seed = _global_seed
    if global_seed == 0:
        global_seed = DEFAULT_GRAPH_SEED
    elif global_seed is None:
        global_seed = 0
    if op_seed is None:
        op_seed = 0
    if global_seed == 0 and op_seed == 0:
        return 0, 0
    if isinstance(op_seed, bool) or not isinstance(op_seed, int) or op_seed < 0:
        raise ValueError(f"For '{kernel_name}', the 'seed' must be a non-negative int, but got {op_seed!r}.")
    key = (kernel_name, op_seed)
    temp_seed = _KERNEL_SEED.setdefault(key, op_seed)
    _KERNEL_SEED[key] = temp_seed + _SEED_STEP
    return global_seed % _MAXINT32, temp_seed % _MAXINT32
