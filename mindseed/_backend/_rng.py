"""`Generator`, a seeded stream of random numbers, which imports torch only when it first draws."""
import numpy as np


class Generator:
    """A seeded stream of random numbers for one purpose (initializers, ops). Its torch generator is made at the
    first draw or state read (`raw`), which loads the backend: making one (the global op stream, at import) does
    not."""

    __slots__ = ("_seed", "_g")

    def __init__(self, seed=None):
        self._seed = None if seed is None else int(seed)   # None: a non-deterministic seed
        self._g = None

    def manual_seed(self, seed):
        if self._g is None:
            self._seed = int(seed)
        else:
            self._g.manual_seed(int(seed))

    def get_state(self):
        """The stream's state as a numpy uint8 array."""
        return self.raw.get_state().numpy().copy()

    def set_state(self, state):
        """Continue from a numpy uint8 array of `get_state`."""
        from mindseed._backend import _core  # noqa: PLC0415 -- torch, loaded by `raw` already
        self.raw.set_state(_core.torch.from_numpy(np.ascontiguousarray(state, dtype=np.uint8)))

    @property
    def raw(self):
        """The torch generator."""
        if self._g is None:
            from mindseed._backend import _core, _lazy  # noqa: PLC0415 -- the first draw loads torch
            _lazy.load()
            g = _core.torch.Generator(device="cpu")
            if self._seed is None:
                g.seed()
            else:
                g.manual_seed(self._seed)
            self._g = g
        return self._g
