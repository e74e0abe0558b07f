"""mindspore.nn.utils: helpers around building networks.

`no_init_parameters` is MindSpore's context for building a network whose weights a checkpoint will replace: there
it defers the initialization of the Parameters created inside. mindseed materializes a Parameter when it is
created and its `init_data()` / `Cell.init_parameters_data()` return it as it is, so building under the context
gives the same network — and loading a checkpoint into it the same weights — as in MindSpore.
"""
import contextlib

__all__ = ["no_init_parameters"]


@contextlib.contextmanager
def no_init_parameters():
    """Build networks whose Parameters a checkpoint will overwrite (see the module docstring).

    >>> import mindseed as ms
    >>> from mindseed.nn.utils import no_init_parameters
    >>> with no_init_parameters():
    ...     net = ms.nn.Dense(2, 3)
    >>> net.weight.shape
    (3, 2)
    """
    yield
