"""MindSpore's `J` primitive (`ops.J`): the J transform of automatic differentiation, on the tape's vjp."""
import functools

from mindseed.autograd.grad import vjp

__all__ = ["J"]


def J(fn):  # noqa: N802 -- MindSpore's name
    """`J(fn)(*args)` returns `(fn(*args), bprop)`, where `bprop(dout)` gives the gradients of the Tensor arguments
    for the output cotangent `dout`.

    Raises:
        TypeError: `fn` not callable.

    >>> import mindseed as ms
    >>> out, bprop = ms.ops.J(lambda a, b: a * b)(ms.Tensor(2.0), ms.Tensor(3.0))
    >>> float(out), [float(g) for g in bprop(ms.Tensor(1.0))]
    (6.0, [3.0, 2.0])
    """
    if not callable(fn):
        raise TypeError(f"For 'J', the 'fn' must be callable, but got {type(fn).__name__}.")

    @functools.wraps(fn)
    def transformed(*args):
        return vjp(fn, *args)
    return transformed
