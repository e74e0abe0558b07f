"""mindspore.Generator and the default generator's functions (manual_seed, seed, initial_seed, get/set_rng_state).

A Generator is one stream of random numbers; random ops take one as `generator=`. The default generator is the
stream random ops draw from when given none (the one `set_seed` restarts), so `manual_seed` makes them reproducible.
"""
import random

import numpy as np

from mindseed import _backend as B
from mindseed.common import dtype as mstype
from mindseed.common import seed as _seed
from mindseed.common.tensor import Tensor

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state"]


def _check_seed(api, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{api}', the argument 'seed' must be int, but got {type(value).__name__}.")
    if not -0x8000_0000_0000_0000 <= value < 0x1_0000_0000_0000_0000:
        raise ValueError(f"For '{api}', the argument 'seed' must be in [-2**63, 2**64), but got {value}.")
    return value % 0x1_0000_0000_0000_0000


def _to_int64(value):
    """`value` wrapped into int64's range, as MindSpore's int64 seed and offset Tensors hold it."""
    return (value + 0x8000_0000_0000_0000) % 0x1_0000_0000_0000_0000 - 0x8000_0000_0000_0000


class Generator:
    """A stream of random numbers with its own state.

    >>> import mindseed as ms
    >>> g = ms.Generator().manual_seed(7)
    >>> a = ms.ops.rand(3, generator=g); g.manual_seed(7)
    >>> bool((ms.ops.rand(3, generator=g) == a).all())
    True
    """

    def __init__(self):
        self._generator = B.Generator(0)
        self._initial_seed = 0
        self._offset = 0

    def manual_seed(self, seed):
        """Restart the stream from `seed` (and the (seed, offset) counter from offset 0); returns the generator."""
        self._initial_seed = _check_seed("manual_seed", seed)
        self._generator.manual_seed(self._initial_seed)
        self._offset = 0
        return self

    def seed(self):
        """Restart the stream from a fresh non-deterministic seed; returns that seed."""
        value = random.SystemRandom().getrandbits(32)   # a std::random_device draw, as MindSpore's
        self.manual_seed(value)
        return value

    def initial_seed(self):
        """The seed the stream was last started from."""
        return self._initial_seed

    def get_state(self):
        """The stream's state, a uint8 Tensor: its seed and offset (int64 each, MindSpore's 16 bytes) followed by
        the state of the stream of random numbers."""
        head = np.array([_to_int64(self.initial_seed()), self._offset], np.int64).view(np.uint8)
        return Tensor(np.concatenate([head, self._generator.get_state()]))

    def set_state(self, state):
        """Continue from a state returned by `get_state` (the seed and offset too); returns the generator. A
        MindSpore state of 16 bytes (seed, offset) restarts the stream from that seed."""
        if not isinstance(state, Tensor):
            raise TypeError(f"For 'set_state', the argument 'state' must be a Tensor, but got {type(state).__name__}.")
        if state.dtype.name != "UInt8" or state.ndim != 1 or state.shape[0] < 16:
            raise ValueError(f"For 'set_state', the argument 'state' must be a 1-D uint8 Tensor from get_state, but "
                             f"got a {state.ndim}-D {state.dtype} Tensor of shape {state.shape}.")
        raw = state.asnumpy()
        seed, offset = (int(v) for v in raw[:16].copy().view(np.int64))
        self._set_seed(seed % 0x1_0000_0000_0000_0000)
        if raw.size > 16:
            self._generator.set_state(raw[16:])
        else:
            self._generator.manual_seed(self._initial_seed)
        self._offset = offset
        return self

    def _set_seed(self, seed):
        self._initial_seed = seed

    def _step(self, step):
        """MindSpore's counter-based interface: the current (seed, offset) as int64 scalar Tensors, the offset then
        advanced by `step` (an integer Tensor). Ops given (seed, offset), such as `DropoutExt`, draw a stream that
        is a function of that pair alone."""
        if not isinstance(step, Tensor) or step.ndim != 0 or not step.dtype.name.startswith(("Int", "UInt")):
            raise RuntimeError(f"For 'Generator._step', the argument 'step' must be an integer scalar Tensor, but "
                               f"got {step!r}.")
        offset = self._offset
        self._offset = _to_int64(offset + int(step.asnumpy()))
        return Tensor(_to_int64(self.initial_seed()), mstype.int64), Tensor(offset, mstype.int64)


class _DefaultGenerator(Generator):
    """The generator random ops draw from when given none. `set_seed` restarts its stream of numbers (mindseed's
    torch-backed samplers follow the global seed) but, as in MindSpore, not its (seed, offset): `initial_seed` and
    the head of `get_state` change only by `manual_seed`, `seed` and `set_state`."""

    def __init__(self):  # noqa: D107 -- shares the global op stream instead of owning one
        self._generator = _seed.op_generator()
        self._initial_seed = 0
        self._offset = 0


default_generator = _DefaultGenerator()


def manual_seed(seed):
    """Restart the default generator from `seed`.

    >>> import mindseed as ms
    >>> ms.manual_seed(1)
    """
    default_generator.manual_seed(seed)


def seed():
    """Restart the default generator from a fresh non-deterministic seed; returns the seed."""
    return default_generator.seed()


def initial_seed():
    """The seed the default generator was last started from."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state, a uint8 Tensor."""
    return default_generator.get_state()


def set_rng_state(state):
    """Continue the default generator from a state returned by `get_rng_state`."""
    default_generator.set_state(state)
