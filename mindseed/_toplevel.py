"""Top-level functions of MindSpore that combine lower layers: tensors from buffers, recomputation, compile hints,
installation check."""
import numpy as np

from mindseed import _backend as B
from mindseed.common import dtype as mstype
from mindseed.common.sparse_tensor import SparseTensor  # noqa: F401 -- exported here as MindSpore does
from mindseed.common.tensor import Tensor
from mindseed.compiler.trace import recompute_call

__all__ = ["from_numpy", "frombuffer", "is_tensor", "swap_tensors", "recompute", "lazy_inline", "no_inline",
           "run_check", "SparseTensor"]


def from_numpy(array):
    """A Tensor sharing memory with the numpy array `array`.

    >>> import numpy as np, mindseed as ms
    >>> ms.from_numpy(np.array([1, 2])).shape
    (2,)
    """
    return Tensor.from_numpy(array)


def frombuffer(buffer, dtype, count=-1, offset=0):
    """A 1-D Tensor of `count` elements of `dtype` read from `buffer` (an object with the buffer protocol), skipping
    `offset` bytes; -1 reads to the end.

    Raises:
        TypeError: `buffer` without the buffer protocol, or `dtype` not a MindSpore number type.
        ValueError: `count` or `offset` out of the buffer.

    >>> import mindseed as ms
    >>> ms.frombuffer(bytearray([1, 0, 2, 0]), ms.int16).tolist()
    [1, 2]
    """
    if not isinstance(dtype, mstype.Type) or dtype not in mstype.all_types or dtype == mstype.bfloat16:
        raise TypeError(f"For 'frombuffer', the argument 'dtype' must be a MindSpore number type, but got {dtype!r}.")
    try:
        view = memoryview(buffer)
    except TypeError:
        raise TypeError(f"For 'frombuffer', the argument 'buffer' must support the buffer protocol, but got "
                        f"{type(buffer).__name__}.") from None
    if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= view.nbytes:
        raise ValueError(f"For 'frombuffer', the argument 'offset' must be in [0, {view.nbytes}], but got {offset}.")
    np_dtype = np.dtype(mstype.dtype_to_nptype(dtype))
    available = (view.nbytes - offset) // np_dtype.itemsize
    if count == -1:
        count = available
    if isinstance(count, bool) or not isinstance(count, int) or not 0 < count <= available:
        raise ValueError(f"For 'frombuffer', the argument 'count' must be -1 or in [1, {available}] for a buffer of "
                         f"{view.nbytes} bytes at offset {offset}, but got {count}.")
    array = np.frombuffer(buffer, dtype=np_dtype, count=count, offset=offset)
    return Tensor.from_numpy(array if array.flags.writeable else array.copy())


def is_tensor(obj):
    """Whether `obj` is a mindspore Tensor (a Parameter is one)."""
    return isinstance(obj, Tensor)


def swap_tensors(t1, t2):
    """Swap the contents of two Tensors in place: each keeps its identity and takes the other's data.

    Raises:
        TypeError: an argument that is not a Tensor.

    >>> import mindseed as ms
    >>> a, b = ms.Tensor([1]), ms.Tensor([2.0, 3.0])
    >>> ms.swap_tensors(a, b); a.tolist(), b.tolist()
    ([2.0, 3.0], [1])
    """
    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'swap_tensors', the argument '{name}' must be a Tensor, but got {type(t).__name__}.")
    t1._data, t2._data = t2._data, t1._data


def recompute(block, *args, use_reentrant=True, output_recompute=False, early_stop=True, context_fn=None,
              **kwargs):
    """block(*args, **kwargs) whose inner activations are not kept for the backward pass: the gradient runs
    `block` again from its inputs (same dropout masks and noise). Values and gradients are those of the plain call.

    Args:
        block (Union[Cell, Callable]): what to run; a Cell's trainable parameters get their gradients too.

    >>> import mindseed as ms
    >>> f = lambda x: ms.ops.sin(x) * x
    >>> ms.grad(lambda x: ms.recompute(f, x).sum())(ms.Tensor([1.0])).shape
    (1,)
    """
    if not callable(block):
        raise TypeError(f"For 'recompute', the argument 'block' must be a Cell or a function, but got "
                        f"{type(block).__name__}.")
    weights = block.trainable_params() if hasattr(block, "trainable_params") else ()
    return recompute_call(lambda *a: block(*a, **kwargs), args, weights, getattr(block, "__name__",
                                                                                 type(block).__name__))


class _RecomputeBlock:
    """`ops.recompute_block(block, output_recompute=False)`: `block` as a function whose calls are recomputed in
    the backward pass (`recompute`); `output_recompute` also drops the block's output (recomputed with the rest).

    >>> import mindseed as ms
    >>> run = ms.ops.recompute_block(lambda x: ms.ops.exp(x) * x)
    >>> ms.grad(lambda x: run(x).sum())(ms.Tensor([0.0])).asnumpy()
    array([1.], dtype=float32)
    """

    name = "recompute_block"

    def __call__(self, block, output_recompute=False):
        if not callable(block):
            raise TypeError(f"For 'recompute_block', the argument 'block' must be a Cell or a function, but got "
                            f"{type(block).__name__}.")
        if not isinstance(output_recompute, bool):
            raise TypeError(f"For 'recompute_block', the argument 'output_recompute' must be a bool, but got "
                            f"{type(output_recompute).__name__}.")

        def run(*args, **kwargs):
            return recompute(block, *args, output_recompute=output_recompute, **kwargs)
        return run

    def __repr__(self):
        return "recompute_block"


recompute_block = _RecomputeBlock()


def _compile_hint(flag, fn, attrs=None):
    def mark(f):
        if not callable(f):
            raise TypeError(f"For '{flag}', the decorated object must be callable, but got {type(f).__name__}.")
        f.__dict__.setdefault("_ms_compile_hints", {})[flag] = attrs if attrs is not None else True
        return f
    return mark if fn is None else mark(fn)


def lazy_inline(fn=None, attrs=None, policy=None):
    """Mark a Cell's `__init__` (or a function) so its graph is compiled once and reused rather than inlined at
    every call: a compile-time hint; results are those of the undecorated code.

    Raises:
        ValueError: `policy` not None or 'front'.
    """
    if policy not in (None, "front"):
        raise ValueError(f"For 'lazy_inline', the argument 'policy' must be None or 'front', but got {policy!r}.")
    return _compile_hint("lazy_inline", fn, attrs)


def no_inline(fn=None):
    """Mark a function so its graph is compiled once and called, not inlined: a compile-time hint."""
    return _compile_hint("no_inline", fn)


def run_check():
    """Check the installation: multiply two tensors and print whether the result is right.

    >>> import mindseed as ms
    >>> ms.run_check()  # doctest: +ELLIPSIS
    MindSpore version: ...
    """
    import mindseed  # noqa: PLC0415 -- the package imports this module
    print("MindSpore version: ", mindseed.__version__)      # two spaces, as MindSpore prints it
    x = Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    got = (x * x).asnumpy()
    platform = B.device_target()
    if np.array_equal(got, np.array([1.0, 4.0, 9.0, 16.0], np.float32)):
        print(f"The result of multiplication calculation is correct, MindSpore has been installed on platform "
              f"[{platform}] successfully!")
    else:
        print(f"The result of multiplication calculation is not correct on platform [{platform}]: got {got}.")
