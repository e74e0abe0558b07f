"""The compile cache of a jitted function: a call's arguments as leaves and a key, and what an entry holds.

Arguments and results are pytrees (tuples, lists, dicts, namedtuples) whose tensor leaves are the graph's
inputs and outputs. The cache key is their structure with tensors as (shape, dtype), `ms.mutable`
containers by structure only, numpy arrays by value, other hashable values by value and unhashable ones
by identity; a tensor passed at several places is part of the key too (`_repeats`). Dynamic shapes key
without their dynamic dims (`dynamic._dyn_key`).
"""
import numpy as np

from mindseed.common.parameter import ParameterTuple
from mindseed.common.tensor import Tensor
from mindseed.common._mutable import _MUTABLE_SCALARS, _PLAIN, _Mutable, _ScalarLeaf

# ---------------------------------------------------------------- pytrees of arguments and results
def _no_cycle(obj, path):
    """path + (obj,) for the containers being converted; a container inside itself is MindSpore's RuntimeError."""
    if any(o is obj for o in path):
        raise RuntimeError("Detect recursion when converting python object.")
    return path + (obj,)


def _flatten(obj, leaves, _path=()):
    """Structure template of obj with tensors replaced by their index in `leaves`."""
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return ("T", len(leaves) - 1)
    if isinstance(obj, _MUTABLE_SCALARS):
        leaves.append(_ScalarLeaf(obj))
        return ("T", len(leaves) - 1)
    if isinstance(obj, (tuple, list)):
        # a mutable tuple/list is a plain one to the function (`type(t) == tuple` holds in the graph); a
        # ParameterTuple comes out of a graph as a plain tuple of its values, as MindSpore's does
        kind = tuple if isinstance(obj, ParameterTuple) else _PLAIN.get(type(obj), type(obj))
        path = _no_cycle(obj, _path)
        return (kind, tuple(_flatten(o, leaves, path) for o in obj))
    if isinstance(obj, dict):
        path = _no_cycle(obj, _path)
        return (dict, tuple((k, _flatten(v, leaves, path)) for k, v in obj.items()))
    if isinstance(obj, int) and not _INT64[0] <= obj <= _INT64[1]:
        # a graph's ints are int64 (MindSpore's Int64Imm)
        raise RuntimeError(f"For 'jit', the int {obj} is out of the int64 range of a graph's scalars: Unable to cast "
                           f"Python instance of type <class 'int'> to C++ type 'long'.")
    return ("C", obj)


_INT64 = (-2 ** 63, 2 ** 63 - 1)


def _unflatten(tmpl, leaves):
    tag = tmpl[0]
    if tag == "T":
        return leaves[tmpl[1]]
    if tag == "C":
        return tmpl[1]
    if tag is dict:
        return {k: _unflatten(v, leaves) for k, v in tmpl[1]}
    items = [_unflatten(t, leaves) for t in tmpl[1]]
    if tag in (tuple, list):
        return tag(items)
    try:
        return tag(*items)  # namedtuple
    except TypeError:
        return tag(items)


def _plain_constants(tmpl):
    """The result template with numpy scalars as Python numbers (a graph gives back bool/int/float, as
    MindSpore's does); the same object when there are none."""
    tag = tmpl[0]
    if tag == "C":
        return ("C", tmpl[1].item()) if isinstance(tmpl[1], np.generic) else tmpl
    if tag == "T":
        return tmpl
    if tag is dict:
        items = tuple((k, _plain_constants(v)) for k, v in tmpl[1])
        changed = any(a is not b for (_, a), (_, b) in zip(items, tmpl[1]))
    else:
        items = tuple(_plain_constants(t) for t in tmpl[1])
        changed = any(a is not b for a, b in zip(items, tmpl[1]))
    return (tag, items) if changed else tmpl


# ---------------------------------------------------------------- keys
class _Identity:
    """Cache-key part for an unhashable argument: the object itself, compared by identity and kept alive by the
    key (an id alone could be reused by a later object and find this object's graph)."""
    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __hash__(self):
        return id(self.obj)

    def __eq__(self, other):
        return isinstance(other, _Identity) and other.obj is self.obj




_MAX_NESTING = 6


def check_nesting(obj, depth=0):
    """A graph's result nests lists and tuples at most 6 levels deep (MindSpore's limit)."""
    if isinstance(obj, (tuple, list)):
        if depth == _MAX_NESTING:
            raise RuntimeError(f"List, tuple and dict nesting is not allowed more than {_MAX_NESTING} levels.")
        for o in obj:
            check_nesting(o, depth + 1)
    elif isinstance(obj, dict):
        for v in obj.values():
            check_nesting(v, depth)


def _key_of(obj):
    """Hashable compile-cache key: tensors by (shape, dtype), mutable containers by structure, others by value."""
    if isinstance(obj, Tensor):
        return ("T", obj.shape, obj.dtype.name)
    if isinstance(obj, _Mutable):
        if isinstance(obj, _MUTABLE_SCALARS):
            return ("M", type(obj).__name__)
        if isinstance(obj, dict):
            return ("M", dict, tuple((k, _key_of(v)) for k, v in obj.items()))
        return ("M", _PLAIN.get(type(obj), type(obj)), tuple(_key_of(v) for v in obj))
    if isinstance(obj, (tuple, list)):
        return (type(obj).__name__, tuple(_key_of(o) for o in obj))
    if isinstance(obj, dict):
        return ("d", tuple((k, _key_of(v)) for k, v in obj.items()))
    if isinstance(obj, np.ndarray):
        # a constant of the graph: keyed by value (the same array changed in place, or a new one, recompiles)
        return ("A", obj.dtype.str, obj.shape, obj.tobytes())
    try:
        hash(obj)
        return ("C", type(obj).__name__, obj)
    except TypeError:
        return ("I", _Identity(obj))


def _repeats(leaves):
    """None, or for a call passing one tensor at several places, the index of each leaf's first occurrence
    (part of the cache key: the graph for f(x, x) has one input where f(x, y) has two)."""
    if len(leaves) < 2:
        return None
    ids = [id(t) for t in leaves]
    if len(set(ids)) == len(ids):
        return None
    first = {}
    return tuple(first.setdefault(i, k) for k, i in enumerate(ids))




# ---------------------------------------------------------------- entries
class _Entry:
    """One compiled signature: the generated function `run_fn` (None: the function runs in the interpreter),
    its `source` and `graph`, the tensors it reads from outside (`captured`), the result template and Python
    types, which argument leaves it keeps (`in_keep`); for dynamic shapes the traced `samples` by shapes and
    the `general` entry fitted from them (`dims`, `fixed`, `verified`, `decided`: see dynamic.py)."""
    __slots__ = ("run_fn", "captured", "out_tmpl", "source", "graph", "n_inputs", "out_types", "in_keep", "samples",
                 "general", "dims", "fixed", "verified", "decided", "value_reads", "arg_updates",
                 "out_aliases")

    def __init__(self):
        self.general = None
        self.samples = None
        self.verified = False
        self.decided = False      # the Python code compared a dynamic dim: this graph holds for its sizes only
        self.value_reads = ()     # the argument leaves whose values the trace read (the cache keys on them)
        self.arg_updates = ()     # the caller's lists of constants the call changes, and the result's places
        self.out_aliases = ()     # that are such lists (arglists.py)

    def fits(self, leaves):
        """Do these inputs have the sizes of the generalized samples in every dim that did not vary?"""
        for i, j, n in self.fixed:
            if leaves[i].shape[j] != n:
                return False
        return True
