"""The TensorsQueue primitives of `mindspore.ops.operations._rl_inner_ops` (MindSpore up to 2.2; mindspore-rl's
`utils.TensorsQueue` is built on them): a queue whose elements are tuples of Tensors of fixed shapes and one
dtype, kept on the host behind an int64 handle, as MindSpore's CPU kernel keeps it.

The queue is MindSpore's ring of `size` slots: it holds at most `size - 1` elements; a put into a full queue and a
get from an empty one do nothing but warn (a get then returns zeros). `TensorsQueueCreate(dtype, shapes, size,
name)()` makes the queue (the same handle at every call of one instance); `TensorsQueuePut(dtype, shapes)(handle,
element)` appends; `TensorsQueueGet(dtype, shapes, pop_after_get)(handle)` reads the front (and removes it);
`TensorsQueueSize`, `TensorsQueueClear` (empties it, it stays usable), `TensorsQueueClose` (frees it). In a
compiled graph each is one node that runs at every call.
"""
import numpy as np

from mindseed import _checkparam as validator
from mindseed import log as logger
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops.operations._base import Primitive

__all__ = ["TensorsQueueCreate", "TensorsQueuePut", "TensorsQueueGet", "TensorsQueueSize", "TensorsQueueClear",
           "TensorsQueueClose"]

_queues = {}
_next = [0]


class _Ring:
    def __init__(self, name, dtype, shapes, size):
        self.name, self.dtype, self.shapes, self.size = name, dtype, shapes, size
        self.slots = [None] * max(size, 1)
        self.front = self.rear = 0

    def __len__(self):
        return (self.rear - self.front) % self.size if self.size > 0 else 0

    def full(self):
        return self.size <= 0 or (self.rear + 1) % self.size == self.front

    def put(self, values):
        if self.full():
            logger.warning(f"The {self.name} is full, total size is {self.size}")
            return
        self.slots[self.rear] = [np.array(v.asnumpy(), copy=True) for v in values]
        self.rear = (self.rear + 1) % self.size

    def get(self, pop):
        if self.front == self.rear:
            logger.warning(f"The TensorsQueue {self.name} is empty")
            nptype = mstype.dtype_to_nptype(self.dtype)
            return tuple(Tensor(np.zeros(s, nptype), self.dtype) for s in self.shapes)
        element = tuple(Tensor(v, self.dtype) for v in self.slots[self.front])
        if pop:
            self.front = (self.front + 1) % self.size
        return element


def _check_dtype(name, dtype):
    if dtype not in mstype.number_type + (mstype.bool_,):
        raise TypeError(f"For '{name}', the 'dtype' must be a number type or bool, but got {dtype}.")
    return dtype


def _check_shapes(name, shapes):
    validator.check_value_type("shapes", shapes, [tuple, list], name)
    validator.check_positive_int(len(shapes), "elements_num", name)
    for s in shapes:
        validator.check_value_type("shape", s, [tuple, list], name)
    return tuple(tuple(int(d) for d in s) for s in shapes)


def _key(handle):
    return int(np.asarray(handle.asnumpy() if isinstance(handle, Tensor) else handle).reshape(-1)[0])


def _queue(name, handle):
    key = _key(handle)
    if key not in _queues:
        raise RuntimeError(f"For '{name}', no TensorsQueue has the handle {key} (not created, or closed).")
    return _queues[key]


def _run(fn, args, outputs):
    return _state.opaque_call(fn, tuple(args), outputs=outputs)


class TensorsQueueCreate(Primitive):
    r"""Creates a TensorsQueue of `size` slots (holding up to `size - 1` elements, each a tuple of Tensors of
    `shapes` and `dtype`); the call returns its handle, an int64 scalar. Args: dtype, shapes (tuple[tuple[int]]),
    size (int, default 0), name (str, default "Q")."""

    def __init__(self, dtype, shapes, size=0, name="Q"):
        super().__init__("TensorsQueueCreate")
        self.dtype = _check_dtype(self.name, dtype)
        self.shapes = _check_shapes(self.name, shapes)
        self.size = validator.check_int(size, 0, validator.GE, "size", self.name)
        self.queue_name = validator.check_value_type("name", name, [str], self.name)
        self.attrs.update(dtype=dtype, shapes=shapes, elements_num=len(shapes), size=size, name=name)
        self._made = None

    def __call__(self):
        if self._made is None:
            self._made = _next[0]
            _next[0] += 1
            _queues[self._made] = _Ring(self.queue_name, self.dtype, self.shapes, self.size)
        return Tensor(self._made, mstype.int64)


class _QueueOp(Primitive):
    def __init__(self):
        super().__init__(type(self).__name__)


class TensorsQueuePut(Primitive):
    r"""Appends `element` (a tuple or list of Tensors of the queue's shapes) to the TensorsQueue `handle`:
    `(handle, element)`. Args: dtype, shapes."""

    def __init__(self, dtype, shapes):
        super().__init__("TensorsQueuePut")
        self.dtype = _check_dtype(self.name, dtype)
        self.shapes = _check_shapes(self.name, shapes)
        self.attrs.update(dtype=dtype, elements_num=len(self.shapes))

    def __call__(self, handle, element):
        validator.check_value_type("element", element, [tuple, list], self.name)
        if len(element) != len(self.shapes):
            raise ValueError(f"For '{self.name}', the element must have {len(self.shapes)} tensors, but got "
                             f"{len(element)}.")
        for i, (value, shape) in enumerate(zip(element, self.shapes)):
            if not isinstance(value, Tensor):
                raise TypeError(f"For '{self.name}', the element's tensors must be Tensors, but got "
                                f"{type(value).__name__} in position {i}.")
            if tuple(value.shape) != shape:
                raise ValueError(f"For '{self.name}', init shape and input shape must be the same, but got {shape} "
                                 f"and input {tuple(value.shape)} in position {i}.")
        _run(lambda h, *values: _queue(self.name, h).put(values), (handle,) + tuple(element), False)
        return Tensor(0, mstype.int64)


class TensorsQueueGet(Primitive):
    r"""The front element of the TensorsQueue `handle` (a tuple of Tensors), removed when `pop_after_get`:
    `(handle)`. Args: dtype, shapes, pop_after_get (bool, default False)."""

    def __init__(self, dtype, shapes, pop_after_get=False):
        super().__init__("TensorsQueueGet")
        self.dtype = _check_dtype(self.name, dtype)
        self.shapes = _check_shapes(self.name, shapes)
        self.pop_after_get = validator.check_bool(pop_after_get, "pop_after_get", self.name)
        self.attrs.update(dtype=dtype, shapes=shapes, elements_num=len(self.shapes), pop_after_get=pop_after_get)

    def __call__(self, handle):
        return _run(lambda h: _queue(self.name, h).get(self.pop_after_get), (handle,), True)


class TensorsQueueSize(_QueueOp):
    r"""The number of elements in the TensorsQueue `handle` (int64 scalar)."""

    def __call__(self, handle):
        return _run(lambda h: Tensor(len(_queue(self.name, h)), mstype.int64), (handle,), True)


class TensorsQueueClear(_QueueOp):
    r"""Empties the TensorsQueue `handle` (it stays usable)."""

    def __call__(self, handle):

        def clear(h):
            q = _queue(self.name, h)
            q.front = q.rear = 0
        _run(clear, (handle,), False)
        return Tensor(0, mstype.int64)


class TensorsQueueClose(_QueueOp):
    r"""Frees the TensorsQueue `handle`; it cannot be used afterwards."""

    def __call__(self, handle):
        def close(h):
            _queue(self.name, h)
            del _queues[_key(h)]
        _run(close, (handle,), False)
        return Tensor(0, mstype.int64)
