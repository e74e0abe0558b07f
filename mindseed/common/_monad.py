"""MindSpore's `common._monad`: the state tokens `U` (memory) and `IO` that order side effects in its graphs
(`F.depend(x, monad.U)`). In mindseed they are plain markers: operations run in program order."""

__all__ = ["U", "IO", "UMonad", "IOMonad"]


class UMonad:
    """The memory state token."""
    __slots__ = ()

    def __repr__(self):
        return "U"


class IOMonad:
    """The input/output state token."""
    __slots__ = ()

    def __repr__(self):
        return "IO"


U = UMonad()
IO = IOMonad()
