"""What the fuzz suite calls: the public ops and Tensor methods, the table of bad inputs, and how an outcome is judged.

A call is `(target, slot, bad)`: `target` is ``"<family>.<name>"`` (a function or class of a public namespace,
`FAMILIES`) or ``"Tensor.<name>"``, `slot` says where the bad input
goes (``"0"``, ``"1"``: that positional argument, every other required one a small valid-looking value;
``"kw:<param>"``: that keyword), `bad` names a row of `BAD_INPUTS`. Calls are plain strings so a worker process
can rebuild them: the parent names the call that crashed or hung the worker.

Outcomes: a result, or a clean error (TypeError/ValueError/RuntimeError/IndexError/KeyError raised on purpose by
mindseed's own code, whose text holds no torch vocabulary). Anything else is a finding: ``internal`` (another
exception type, a Python failure inside mindseed such as ``tuple index out of range``, an exception raised from a
kernel that nothing translated, a Tensor result without data), ``leaked`` (torch text in a message or warning),
``crash``, ``hang``.
"""
import enum
import inspect
import math
import os
import re
import signal
import time
import zlib

import numpy as np

CLEAN_TYPES = (TypeError, ValueError, RuntimeError, IndexError, KeyError)     # KeyError: MindSpore's for a name

# torch's vocabulary, which no message of mindseed should carry: names, C++ namespaces, its dtype spellings and
# its allocator (MindSpore reports memory exhaustion in its own words)
_TORCH_TEXT = re.compile(
    r"(?i:torch|c10::|\bc10\b|\baten\b|at::|DefaultCPUAllocator|CUDACachingAllocator|enhancement request|"
    r"requires_grad|IntArrayRef|SymInt|long long)|"
    r"ComplexFloat|ComplexDouble|ScalarType|scalar type|\w+Tensor\{|\bTHP\w*|TensorOptions|\bDouble\b|\bLong\b|"
    r"\bHalf\b|\bVariables\b|\b(?:Long|Float|Double|Int|Byte|Bool|Half|Short|Char)Tensor\b")


def leaked_torch_text(text):
    """The first piece of torch vocabulary in `text`, or None."""
    # MindSpore's own API names that torch shares (`Tensor.requires_grad_`, a Parameter's 'requires_grad'), quoted
    text = text.replace("'Tensor.requires_grad_'", "").replace("'requires_grad'", "")
    m = _TORCH_TEXT.search(text)
    return m.group(0) if m else None


# ------------------------------------------------------------------------------------------------ bad inputs
def _tensor(ms, a):
    return ms.Tensor(np.asarray(a))


def _bad_inputs():
    import mindseed as ms
    rng = np.random.RandomState(0)
    f32 = rng.standard_normal((2, 3)).astype(np.float32)
    return {
        "none": lambda: None,
        "str": lambda: "abc",
        "list": lambda: [1, 2],
        "ragged": lambda: [[1], [2, 3]],
        "dict": lambda: {"a": 1},
        "empty_tuple": lambda: (),
        "bool": lambda: True,
        "complex": lambda: 1 + 2j,
        "nan": lambda: math.nan,
        "inf": lambda: math.inf,
        "neg": lambda: -1,
        "huge": lambda: 10 ** 12,
        "overflow": lambda: 2 ** 64,
        "float": lambda: 2.5,
        "dtype": lambda: ms.int32,
        "t_bool": lambda: _tensor(ms, f32 > 0),
        "t_complex": lambda: _tensor(ms, (f32 + 1j * f32).astype(np.complex64)),
        "t_int": lambda: _tensor(ms, np.arange(6, dtype=np.int32).reshape(2, 3)),
        "t_f64": lambda: _tensor(ms, f32.astype(np.float64)),
        "t_f16": lambda: _tensor(ms, f32.astype(np.float16)),
        "t_empty": lambda: _tensor(ms, np.zeros((0,), np.float32)),
        "t_empty2": lambda: _tensor(ms, np.zeros((0, 3), np.float32)),
        "t_0d": lambda: _tensor(ms, np.float32(1.5)),
        "t_nan": lambda: _tensor(ms, np.array([[np.nan, np.inf, -np.inf], [1, 2, 3]], np.float32)),
        "t_mismatch": lambda: _tensor(ms, rng.standard_normal((4, 5)).astype(np.float32)),
        "t_5d": lambda: _tensor(ms, np.ones((1, 2, 1, 3, 1), np.float32)),
    }


BAD_NAMES = ("none", "str", "list", "ragged", "dict", "empty_tuple", "bool", "complex", "nan", "inf", "neg", "huge",
             "overflow", "float", "dtype", "t_bool", "t_complex", "t_int", "t_f64", "t_f16", "t_empty", "t_empty2",
             "t_0d", "t_nan", "t_mismatch", "t_5d")
# keyword arguments that take an axis or a count: the bad values that probe ranges and sizes
_RANGE_KEYWORDS = {"axis", "dim", "dims", "n", "k", "num", "size", "shape", "repeats", "diagonal", "offset", "start",
                   "end", "length", "chunks", "sections", "split_size_or_sections", "output_size", "num_classes",
                   "depth", "seq_lengths", "maxlen", "kernel_size", "stride", "padding", "dilation", "groups",
                   "num_samples", "batch_dims", "indices_or_sections", "out_channels", "steps", "minlength"}
_RANGE_BAD = ("none", "nan", "neg", "huge", "overflow", "float", "str", "t_empty")


# ------------------------------------------------------------------------------------------------ targets
# The public callables that are not ops: they configure, inspect or run other code, and their misuse is not an
# input-validation question (ms.ops.Print-like I/O runs with its output thrown away).
_NOT_OPS = {"TENSOR_METHOD_TABLES"}
# The public namespaces, as (prefix, module, whether its classes are fuzzed too: their constructors). `ops` comes
# first so its names stay the ones reported; a function reached again under another name is called once.
# ops' own classes are its Primitives, whose attributes are checked by the functional ops above them; an Enum's
# "constructor" is a lookup of its members (Python's ValueError names the value and the Enum).
FAMILIES = (("ops", "mindseed.ops", False), ("mint", "mindseed.mint", False),
            ("mint.nn.functional", "mindseed.mint.nn.functional", False),
            ("mint.linalg", "mindseed.mint.linalg", False), ("mint.special", "mindseed.mint.special", False),
            ("mint.distributed", "mindseed.mint.distributed", True), ("comm", "mindseed.communication.comm_func", True),
            ("nn", "mindseed.nn", True), ("mint.nn", "mindseed.mint.nn", True),
            ("mint.optim", "mindseed.mint.optim", True),
            ("train", "mindseed.train", True), ("dataset", "mindseed.dataset", True),
            ("dataset.transforms", "mindseed.dataset.transforms", True),
            ("dataset.vision", "mindseed.dataset.vision", True), ("dataset.text", "mindseed.dataset.text", True),
            ("dataset.audio", "mindseed.dataset.audio", True))
# families that need a world of processes (a world of one, joined by the worker before its first call)
COMM_PREFIXES = ("comm.", "mint.distributed.")


def targets():
    """{"<family>.<name>" | "Tensor.<name>": callable}, one entry per distinct public function or class (aliases
    dropped)."""
    import importlib

    import mindseed as ms
    out, seen = {}, set()
    for prefix, module, with_classes in FAMILIES:
        mod = importlib.import_module(module)
        for name in sorted(getattr(mod, "__all__", None) or dir(mod)):
            obj = getattr(mod, name)
            if name.startswith("_") or name in _NOT_OPS or inspect.ismodule(obj) or not callable(obj) \
                    or id(obj) in seen or (inspect.isclass(obj) and (not with_classes or issubclass(obj, enum.Enum))):
                continue
            seen.add(id(obj))
            out[prefix + "." + name] = obj
    for name in sorted(dir(ms.Tensor)):
        obj = inspect.getattr_static(ms.Tensor, name)
        if name.startswith("_") or isinstance(obj, (property, staticmethod, classmethod)) or not callable(obj):
            continue
        out["Tensor." + name] = obj
    if os.environ.get("MINDSEED_FUZZ_SELFTEST"):
        out.update({"selftest." + f.__name__[1:]: f for f in (_crash, _hang, _internal, _leak)})
    return out


def prepare(calls):
    """What a worker sets up before `calls`: the collectives need a world (of one process)."""
    if any(c.startswith(COMM_PREFIXES) for c in calls):
        from mindseed.communication import init
        init()


# targets that misbehave on purpose, to check that the runner names each kind of finding (MINDSEED_FUZZ_SELFTEST)
def _crash(x):
    os.kill(os.getpid(), signal.SIGSEGV)


def _hang(x):
    time.sleep(3600)


def _internal(x):
    return x._no_such_attribute


def _leak(x):
    raise RuntimeError("DefaultCPUAllocator: can't allocate memory")


def _params(fn):
    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None


def _required(params):
    return [p for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def calls(target, fn):
    """Every fuzz call of one target: the bad inputs in each of its first three required positions (the first
    three optional ones when it requires none), and the range probes in its axis/count keywords."""
    params = _params(fn)
    if params is None:
        return [f"{target}|0|{b}" for b in BAD_NAMES]
    if target.startswith("Tensor."):
        params = params[1:]
    req = _required(params)
    slots = req[:3] or [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][:3]
    out = [f"{target}|{i}|{b}" for i in range(len(slots)) for b in BAD_NAMES]
    for p in params:
        if p.default is not p.empty and p.name in _RANGE_KEYWORDS and p.kind is not p.POSITIONAL_ONLY:
            out += [f"{target}|kw:{p.name}|{b}" for b in _RANGE_BAD]
    if not out:
        out = [f"{target}|-|none"]
    return out


def all_calls():
    return [c for t, fn in targets().items() for c in calls(t, fn)]


def sample(all_, fraction):
    """A fixed, spread-out subset: the calls whose crc32 falls in the first `fraction` of the range."""
    cut = int(fraction * 2 ** 32)
    return [c for c in all_ if zlib.crc32(c.encode()) < cut]


# ------------------------------------------------------------------------------------------------ building a call
def _good_value(ms, name, index):
    """A small valid-looking value for a required parameter the call does not fuzz, by its name."""
    if name in ("shape", "size", "sizes", "output_size", "dims", "perm", "multiples", "new_shape"):
        return (2, 3)
    if name in ("axis", "dim", "n", "k", "num", "repeats", "diagonal", "offset", "start", "chunks", "groups",
                "sections", "split_size_or_sections", "indices_or_sections", "length"):
        return 1
    if name in ("dtype", "type", "new_type"):
        return ms.float32
    if name.endswith(("channels", "features", "_size", "_dim", "_num")) or name.startswith("num_") or \
            name in ("vocab_size", "d_model", "nhead", "normalized_shape", "padding", "stride", "max_norm"):
        return 2
    if name in ("learning_rate", "lr", "p", "decay_rate", "momentum", "epsilon", "eps"):
        return 0.1
    if name == "params":
        return [ms.Parameter(ms.Tensor(np.ones((2, 3), np.float32)), name="fuzz_w")]
    if name in ("network", "net", "backbone", "net_with_loss", "cell", "loss_fn", "model"):
        return ms.nn.Dense(3, 2)
    if name in ("index", "indices", "idx", "pivots", "target", "labels", "label", "segment_ids", "seq_lengths"):
        return ms.Tensor(np.array([0, 1], np.int32))
    if name in ("mask",):
        return ms.Tensor(np.array([[True, False, True], [False, True, False]]))
    return ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 7 + index)


def build(call, fns, bad):
    """(callable, args, kwargs) of one call string."""
    import mindseed as ms
    target, slot, name = call.split("|")
    fn = fns[target]
    params = _params(fn) or []
    if target.startswith("Tensor."):
        params = params[1:]
        self_ = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 7)
        fn = getattr(self_, target.split(".", 1)[1])
    req = _required(params)
    positional = req or [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][:3]
    if slot == "-":
        return fn, [], {}
    if slot.startswith("kw:"):
        return fn, [_good_value(ms, p.name, i) for i, p in enumerate(req)], {slot[3:]: bad[name]()}
    pos = int(slot)
    n = max(len(req), pos + 1)
    args = [_good_value(ms, positional[i].name, i) if i < len(positional) else None for i in range(n)]
    args[pos] = bad[name]()
    return fn, args, {}
