"""`mindspore.common._pijit_context.PIJitCaptureContext`: the decorator object behind
``jit(capture_mode="bytecode")``. mindseed compiles every capture mode from the function's source."""
__all__ = ["PIJitCaptureContext"]

# the compiler's `jit`, set by mindseed._registration (the compiler is a higher layer than common)
_jit = None


class PIJitCaptureContext:
    """Wraps a function (or a Cell's construct) as ``jit(fn, capture_mode="bytecode", fullgraph=fullgraph)``."""

    def __init__(self, fullgraph=False, jit_config=None):
        if not isinstance(fullgraph, bool):
            raise TypeError(f"For 'PIJitCaptureContext', 'fullgraph' must be a bool, but got "
                            f"{type(fullgraph).__name__}.")
        self.fullgraph, self.jit_config = fullgraph, jit_config

    def __call__(self, fn):
        return _jit(fn, capture_mode="bytecode", fullgraph=self.fullgraph)
