"""Base classes of the data transforms (MindSpore's unified 2.x interface).

A transform is a callable object: in a pipeline `map` calls it on the column values, and it can be called
eagerly on numpy arrays (or PIL images, for image transforms). Transforms that are elementwise and
deterministic also define `_batch_apply(batch)`, which gives the same values on a stacked batch: the engine
uses it to run them once per batch instead of once per row.
"""
import inspect

import numpy as np

from mindseed.common.tensor import Tensor
from mindseed.dataset._engine import as_cpp_array

__all__ = ["TensorOperation", "PyTensorOperation", "flatten_compose", "to_numpy_input", "op_error"]


def to_numpy_input(x):
    """An eager input as the transforms take it: Tensors and Python data become numpy, PIL images stay."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, Tensor):
        return x.asnumpy()
    if hasattr(x, "getbands"):  # PIL image
        return x
    if isinstance(x, (list, tuple, int, float, bool, str, bytes, np.generic)):
        return np.asarray(x)
    return x


class TensorOperation:
    """Base of every transform; `__call__` runs it eagerly (or inside map)."""

    #: name used in pipeline error messages ("map operation: [Name] failed")
    @property
    def _op_name(self):
        return type(self).__name__

    #: whether an eager call converts its inputs to tensors first, as MindSpore's C++ transforms do (a Python
    #: object that is no array, number, string or image is then a TypeError); Python transforms take anything
    _tensor_inputs = True

    def __call__(self, *input_tensor_list):
        if not self._tensor_inputs:     # Python transforms and PyFunc take anything
            return self._apply(*[to_numpy_input(x) for x in input_tensor_list])
        # a built-in (MindSpore C++) op: the inputs must be tensors, a one-input op takes one, and its own errors
        # come as the pipeline's RuntimeError (the op's message kept as `_op_message` for map to report)
        args = []
        for x in input_tensor_list:
            try:
                a = to_numpy_input(x)
            except (TypeError, ValueError):
                a = None
            if a is None or isinstance(a, np.ndarray) and a.dtype.hasobject or \
                    (a is x and not isinstance(x, np.ndarray) and not hasattr(x, "getbands")):
                raise TypeError(f"Invalid user input. Got {type(x)}: {x}, cannot be converted into tensor.")
            args.append(a)
        if len(args) != 1 and _one_input(type(self)):
            raise op_error("The op is OneToOne, can only accept one tensor as input.")
        try:
            out = self._apply(*args)
        except RuntimeError as e:
            if hasattr(e, "_op_message"):
                raise
            raise op_error(str(e), getattr(e, "_status", None)) from None
        # what a C++ op gives back: its 64-bit integer arrays typed as MindSpore's (repr shows dtype=int64)
        if isinstance(out, tuple):
            return tuple(as_cpp_array(o) for o in out)
        return as_cpp_array(out)

    def _apply(self, *args):
        raise TypeError(f"{type(self).__name__} is an abstract transform and cannot be applied.")

    def __repr__(self):
        attrs = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({attrs})"


def op_error(msg, status=None):
    """The RuntimeError of a built-in op failing with message `msg` (of MindSpore's status code `status`, see
    `pipeline_error`): MindSpore's pipeline error text, `msg` kept as `_op_message`."""
    import sys
    from mindseed.dataset._engine import _source_path, pipeline_error
    tb = sys.exc_info()[2]
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    frame = sys._getframe(1) if tb is None else tb.tb_frame
    line = frame.f_lineno if tb is None else tb.tb_lineno
    err = pipeline_error(msg, f"{_source_path(frame.f_code.co_filename)}({line})", status)
    err._op_message, err._status = msg, status
    return err


_ONE_INPUT = {}


def _one_input(cls):
    """Whether transform class `cls` takes exactly one input (its `_apply` has one positional parameter)."""
    if cls not in _ONE_INPUT:
        params = list(inspect.signature(cls._apply).parameters.values())[1:]
        _ONE_INPUT[cls] = len(params) == 1 and params[0].kind in (params[0].POSITIONAL_ONLY,
                                                                   params[0].POSITIONAL_OR_KEYWORD)
    return _ONE_INPUT[cls]


class PyTensorOperation(TensorOperation):
    """Base of the transforms MindSpore implements in Python (they also work on PIL images)."""

    _tensor_inputs = False


def flatten_compose(ops):
    """A map's operation list with Compose objects expanded (so batchable tails stay visible)."""
    from mindseed.dataset.transforms._transforms import Compose
    out = []
    for op in ops:
        if isinstance(op, Compose):
            out += flatten_compose(op.transforms)
        else:
            out.append(op)
    return out
