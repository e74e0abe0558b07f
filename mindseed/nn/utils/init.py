"""`no_init_parameters`: build a network without computing its parameters' initial values."""
import contextlib

from mindseed.common import initializer as _initializer

__all__ = ["no_init_parameters"]


@contextlib.contextmanager
def no_init_parameters():
    """Within it, parameters made from `initializer(...)` are not initialized: they hold no data (their
    `init_param` is False and `has_init` True) until a checkpoint is loaded into them or `Parameter.init_data()`
    (`Cell.init_parameters_data()`) computes them. Parameters made from a Tensor or numpy array are initialized as
    usual.

    >>> import mindseed as ms
    >>> from mindseed.common.initializer import initializer
    >>> with ms.nn.utils.no_init_parameters():
    ...     w = ms.Parameter(initializer("ones", [2], ms.float32), name="w")
    >>> w.has_init, w.init_data().asnumpy().tolist()
    (True, [1.0, 1.0])
    """
    _initializer._deferring[0] += 1
    try:
        yield
    finally:
        _initializer._deferring[0] -= 1
