"""`mindspore.ops.operations.rl_ops`: the replay-buffer primitives of MindSpore 2.0-2.6 (`ops.BufferAppend`,
`ops.BufferGetItem`, `ops.BufferSample`), which mindspore-rl's `UniformReplayBuffer` is built on.

The buffer is a tuple of Parameters, each (capacity, *shape), with two int32 Parameters: `count` (the number of
filled rows) and `head` (the oldest row once the buffer has wrapped). As MindSpore's CPU kernels: appending fills
rows from `count` until the buffer is full, then overwrites from `head` on (first in, first out); an index of
`BufferGetItem` counts from the oldest row (negative from the newest); `BufferSample` draws `batch_size` rows
uniformly from the filled ones (with `unique`, without repetition). Everything is mindseed ops — row writes are
`scatter_update`s of the Parameters, count and head `assign`s, the draws a seeded random primitive — so the ops run
and repeat inside a compiled graph too.
"""
from functools import reduce

from mindseed import _checkparam as validator
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.operations._base import Primitive
from mindseed.ops.operations._random import UniformInt, UniformReal

__all__ = ["BufferAppend", "BufferGetItem", "BufferSample"]


def _elements(shapes):
    return [reduce(lambda x, y: x * y, shape, 1) for shape in shapes]


class _Buffer(Primitive):
    """The attributes the three primitives share: capacity, the shapes and dtypes of a transition's items."""

    def __init__(self, capacity, buffer_shape, buffer_dtype):
        super().__init__(type(self).__name__)
        validator.check_value_type("shape of init data", buffer_shape, [tuple, list], self.name)
        self.capacity = validator.check_int(capacity, 1, validator.GE, "capacity", self.name)
        self.buffer_shape, self.buffer_dtype = [tuple(s) for s in buffer_shape], list(buffer_dtype)
        self.attrs.update(capacity=capacity, buffer_elements=_elements(self.buffer_shape),
                          buffer_dtype=self.buffer_dtype, side_effect_mem=True)

    def _check_buffer(self, data, count, head):
        if not isinstance(data, (tuple, list)) or len(data) != len(self.buffer_shape):
            raise ValueError(f"For '{self.name}', 'data' must be a tuple of {len(self.buffer_shape)} Parameters "
                             f"(one per item of a transition), but got {type(data).__name__}"
                             f"{'' if not isinstance(data, (tuple, list)) else ' of length ' + str(len(data))}.")
        for arg, value in (("count", count), ("head", head)):
            if not isinstance(value, Tensor) or value.dtype != mstype.int32:
                got = f"Tensor[{value.dtype}]" if isinstance(value, Tensor) else type(value).__name__
                raise TypeError(f"For '{self.name}', the '{arg}' must be an int32 Tensor, but got {got}.")
        return list(data)

    def _rows(self, data, indices):
        return tuple(F.gather(item, indices, 0) for item in data)


class BufferAppend(_Buffer):
    r"""Pushes one transition (or a batch of them, each item with a leading batch dim) into the buffer, first in
    first out.

    Args:
        capacity (int): rows of the buffer, positive.
        buffer_shape (tuple(tuple(int))): the shape of each item of a transition.
        buffer_dtype (tuple(mindspore.dtype)): the dtype of each item.

    Inputs:
        data (tuple(Parameter)): the buffer, item `i` of shape (capacity, *buffer_shape[i]).
        exp (tuple(Tensor)): the transition, item `i` of shape buffer_shape[i] or (batch, *buffer_shape[i]).
        count (Parameter): int32, the number of filled rows. head (Parameter): int32, the oldest row when full.

    Outputs:
        Tensor, the new `count`.

    >>> import numpy as np, mindseed as ms
    >>> data = [ms.Parameter(ms.Tensor(np.zeros((3, 2), np.float32)), name="s")]
    >>> count, head = ms.Parameter(ms.Tensor(0, ms.int32), name="c"), ms.Parameter(ms.Tensor(0, ms.int32), name="h")
    >>> append = ms.ops.BufferAppend(3, [(2,)], [ms.float32])
    >>> for v in range(4):
    ...     _ = append(data, [ms.Tensor([v, v], ms.float32)], count, head)
    >>> data[0].asnumpy()[:, 0].tolist(), int(count), int(head)
    ([3.0, 1.0, 2.0], 3, 1)
    """

    def __call__(self, data, exp, count, head):
        data = self._check_buffer(data, count, head)
        if not isinstance(exp, (tuple, list)) or len(exp) != len(data):
            size = f" of length {len(exp)}" if isinstance(exp, (tuple, list)) else ""
            raise ValueError(f"For '{self.name}', 'exp' must be a tuple of {len(data)} Tensors, but got "
                             f"{type(exp).__name__}{size}.")
        batched = exp[0].ndim == data[0].ndim
        batch = exp[0].shape[0] if batched else 1
        rows = []
        for i, (item, value) in enumerate(zip(data, exp)):
            want = tuple(item.shape[1:])
            got = tuple(value.shape[1:]) if batched else tuple(value.shape)
            if got != want or (batched and value.shape[0] != batch):
                after = f" (after a batch dim of {batch})" if batched else ""
                raise ValueError(f"For '{self.name}', the {i}th 'exp' must have the shape {want} of the {i}th "
                                 f"'data' without its first dim{after}, but got {value.shape}.")
            if value.dtype != item.dtype:
                raise TypeError(f"For '{self.name}', the {i}th 'exp' must have the dtype {item.dtype} of the {i}th "
                                f"'data', but got {value.dtype}.")
            rows.append(value if batched else F.expand_dims(value, 0))
        if batch > self.capacity:
            raise ValueError(f"For '{self.name}', the batch of 'exp' ({batch}) must not exceed the capacity "
                             f"{self.capacity}.")
        cap = Tensor(self.capacity, mstype.int32)
        filling = F.logical_and(count <= self.capacity - 1, head == 0)
        index = F.where(filling, count, head)
        grown = count + batch
        over = grown > cap
        # the kernel's head once a batch overflows the filling buffer: (batch + capacity - capacity) % capacity
        new_count = F.where(filling, F.where(over, cap, grown), count)
        new_head = F.where(filling, F.where(over, F.zeros_like(head) + batch % self.capacity, head),
                           (head + batch) % cap)
        positions = (F.arange(batch, dtype=mstype.int32) + index) % cap
        for item, value in zip(data, rows):
            F.scatter_update(item, positions, value)
        F.assign(count, new_count)
        F.assign(head, new_head)
        return count


class BufferGetItem(_Buffer):
    r"""The transition at `index` of the buffer: counted from the oldest row, a negative index from the newest.

    Args:
        capacity (int), buffer_shape (tuple(tuple(int))), buffer_dtype (tuple(mindspore.dtype)): as `BufferAppend`.

    Inputs:
        data (tuple(Parameter)), count (Parameter), head (Parameter): as `BufferAppend`;
        index (Union[int, Tensor]): the position, in [-count, count).

    Outputs:
        tuple(Tensor), item `i` of shape buffer_shape[i].
    """

    def __call__(self, data, count, head, index):
        data = self._check_buffer(data, count, head)
        if isinstance(index, bool) or not isinstance(index, (int, Tensor)) or (
                isinstance(index, Tensor) and index.dtype not in (mstype.int32, mstype.int64)):
            raise TypeError(f"For '{self.name}', the 'index' must be an int or an int32/int64 Tensor, but got "
                            f"{index.dtype if isinstance(index, Tensor) else type(index).__name__}.")
        index = F.cast(Tensor(index) if not isinstance(index, Tensor) else index, mstype.int32).reshape(())
        index = F.where(index < 0, index + count, index)
        newer = count - head
        index = F.where(index < newer, index + head, index - newer)
        return tuple(F.squeeze(r, 0) for r in self._rows(data, index.reshape((1,))))


class BufferSample(_Buffer):
    r"""`batch_size` transitions drawn uniformly from the filled rows of the buffer.

    Args:
        capacity (int), batch_size (int): at most `capacity`; buffer_shape, buffer_dtype: as `BufferAppend`.
        seed (int): the seed of the draws; ``0`` draws from the global seed (random without one). Default: ``0``.
        unique (bool): draw without repetition. Default: ``False``.

    Inputs:
        data (tuple(Parameter)), count (Parameter), head (Parameter): as `BufferAppend`.

    Outputs:
        tuple(Tensor), item `i` of shape (batch_size, *buffer_shape[i]).
    """

    def __init__(self, capacity, batch_size, buffer_shape, buffer_dtype, seed=0, unique=False):
        super().__init__(capacity, buffer_shape, buffer_dtype)
        self.batch_size = validator.check_int(batch_size, capacity, validator.LE, "batchsize", self.name)
        validator.check_positive_int(batch_size, "batch_size", self.name)
        self.seed = validator.check_non_negative_int(seed, "seed", self.name)
        self.unique = validator.check_value_type("unique", unique, (bool,), self.name)
        self.attrs.update(batch_size=batch_size, seed=seed, unique=unique)
        self._draw = UniformReal(seed=seed) if unique else UniformInt(seed=seed)

    def __call__(self, data, count, head):
        data = self._check_buffer(data, count, head)
        if self.unique:
            # a random order of the filled rows (the empty ones last), its first batch_size rows
            keys = self._draw((self.capacity,))
            keys = F.where(F.arange(self.capacity, dtype=mstype.int32) < count, keys, F.ones_like(keys) * 2)
            indices = F.argsort(keys)[:self.batch_size]
        else:
            indices = self._draw((self.batch_size,), Tensor(0, mstype.int32), F.maximum(count, 1).reshape(()))
        return self._rows(data, F.cast(indices, mstype.int32))
