"""`mindspore.ops.operations._rl_inner_ops`: the reinforcement-learning primitives MindSpore carried up to 2.2
(mindspore-rl 0.7 imports them; MindSpore 2.10 kept only the GRU/LSTM forms).

* The replay buffers live on the host, as MindSpore's CPU kernels keep them, behind an int64 handle of shape (1,):
  `PriorityReplayBufferCreate` (proportional prioritized replay: a new transition gets the largest priority seen,
  raised to `alpha`; a sample takes one transition from each of `batch_size` equal slices of the priority mass and
  weights it by `(P(i) * size) ** -beta`, normalised by the largest weight) with its `Push`, `Sample`, `Update`,
  `Destroy`; `ReservoirReplayBufferCreate` (reservoir sampling: once full, the n-th transition replaces a random
  one with probability capacity / n) with `Push`, `Sample`, `Destroy`. Creating returns the same handle at every
  call of one primitive instance. In a compiled graph each step is one node that runs at every call.
* `BatchAssign` copies a tuple of Parameters into another; `DiscountedReturn` computes discounted returns over
  episodes; `CudnnGRU` is the stacked GRU over cuDNN's flat weight (MindSpore has a GPU kernel only; here it is
  composed of mindseed's ops, so it runs and differentiates on the CPU).
* `TensorsQueueCreate`, `Put`, `Get`, `Size`, `Clear`, `Close`: a queue of tuples of Tensors on the host
  (_rl_tensors_queue.py).
* `EnvCreate`, `EnvReset`, `EnvStep` drive MindSpore's built-in CUDA environments (the `Tag` game), which exist
  in MindSpore's GPU build only: they are made and checked as there, and a call raises the RuntimeError MindSpore's
  CPU build gives for an operator without a CPU kernel.
"""
import numpy as np

from mindseed import _checkparam as validator
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.operations._base import Primitive
from mindseed.ops.operations._rl_tensors_queue import (TensorsQueueClear, TensorsQueueClose, TensorsQueueCreate,
                                                       TensorsQueueGet, TensorsQueuePut, TensorsQueueSize)

__all__ = ["PriorityReplayBufferCreate", "PriorityReplayBufferPush", "PriorityReplayBufferSample",
           "PriorityReplayBufferUpdate", "PriorityReplayBufferDestroy", "ReservoirReplayBufferCreate",
           "ReservoirReplayBufferPush", "ReservoirReplayBufferSample", "ReservoirReplayBufferDestroy",
           "BatchAssign", "DiscountedReturn", "CudnnGRU", "EnvCreate", "EnvReset", "EnvStep",
           "TensorsQueueCreate", "TensorsQueuePut", "TensorsQueueGet", "TensorsQueueSize", "TensorsQueueClear",
           "TensorsQueueClose"]

_MIN_PRIORITY = 1e-7
_buffers = {}           # handle -> the host buffer
_next_handle = [0]


def _rng(seed0, seed1):
    """The generator of a buffer: seeded by seed1, else seed0, else from the system's entropy (the kernels')."""
    return np.random.default_rng(seed1 or seed0 or None)


def _schema(name, shapes, dtypes):
    validator.check_value_type("shape of init data", shapes, [tuple, list], name)
    validator.check_value_type("dtypes of init data", dtypes, [tuple, list], name)
    if len(shapes) != len(dtypes):
        raise ValueError(f"For '{name}', 'shapes' and 'dtypes' must have the same length, but got {len(shapes)} and "
                         f"{len(dtypes)}.")
    shapes = [tuple(int(d) for d in s) for s in shapes]
    return shapes, list(dtypes), [int(np.prod(s, dtype=np.int64)) * mstype.type_size_in_bytes(t)
                                  for s, t in zip(shapes, dtypes)]


def _handle(handle):
    return Tensor(np.array([handle], np.int64))


def _buffer(name, handle, kind):
    buf = _buffers.get(handle)
    if not isinstance(buf, kind):
        raise RuntimeError(f"For '{name}', no {kind.__name__} has the handle {handle} (not created, or destroyed).")
    return buf


class _HostBuffer:
    """Rows of numpy arrays, one per item of a transition."""

    def __init__(self, capacity, shapes, dtypes):
        self.capacity, self.shapes, self.dtypes = capacity, shapes, dtypes
        self.items = [np.zeros((capacity,) + s, mstype.dtype_to_nptype(t)) for s, t in zip(shapes, dtypes)]
        self.size = 0

    def check(self, name, transition):
        if len(transition) != len(self.items):
            raise ValueError(f"For '{name}', a transition has {len(self.items)} items, but got {len(transition)}.")
        values = []
        for i, (value, want, dtype) in enumerate(zip(transition, self.shapes, self.dtypes)):
            if not isinstance(value, Tensor):
                raise TypeError(f"For '{name}', item {i} of the transition must be a Tensor, but got "
                                f"{type(value).__name__}.")
            if tuple(value.shape) != want or value.dtype != dtype:
                raise ValueError(f"For '{name}', item {i} of the transition must be a Tensor[{dtype}] of shape "
                                 f"{want}, but got a Tensor[{value.dtype}] of shape {value.shape}.")
            values.append(value.asnumpy())
        return values

    def put(self, row, values):
        for item, value in zip(self.items, values):
            item[row] = value

    def rows(self, indices):
        return tuple(Tensor(item[indices], dtype) for item, dtype in zip(self.items, self.dtypes))


class _PriorityBuffer(_HostBuffer):
    def __init__(self, capacity, alpha, shapes, dtypes, rng):
        super().__init__(capacity, shapes, dtypes)
        self.alpha, self.rng = alpha, rng
        self.priorities = np.zeros(capacity, np.float64)
        self.max_priority = 1.0
        self.head = -1

    def push(self, values):
        self.head = (self.head + 1) % self.capacity      # the newest transition
        self.size = min(self.size + 1, self.capacity)
        self.put(self.head, values)
        self.priorities[self.head] = self.max_priority ** self.alpha

    def update(self, indices, priorities):
        for i, p in zip(indices, priorities):
            q = float(p) ** self.alpha
            self.priorities[int(i)] = q if q > 0 else _MIN_PRIORITY
            self.max_priority = max(self.max_priority, float(p))

    def weight(self, priority, total, beta):
        return (priority / (total if total > 0 else _MIN_PRIORITY) * self.size) ** -beta

    def sample(self, batch_size, beta):
        filled = self.priorities[:self.size]
        cumulative = np.cumsum(filled)
        total = cumulative[-1]
        max_weight = self.weight(filled.min(), total, beta)
        mass = (self.rng.random(batch_size) + np.arange(batch_size)) * (total / batch_size)
        indices = np.minimum(np.searchsorted(cumulative, mass, side="left"), self.size - 1)
        weights = self.weight(filled[indices], total, beta) / (max_weight if max_weight > 0 else _MIN_PRIORITY)
        return (Tensor(indices.astype(np.int64)), Tensor(weights.astype(np.float32))) + self.rows(indices)


class _ReservoirBuffer(_HostBuffer):
    def __init__(self, capacity, shapes, dtypes, rng):
        super().__init__(capacity, shapes, dtypes)
        self.rng, self.total = rng, 0

    def push(self, values):
        if self.total < self.capacity:
            self.put(self.total, values)
            self.total += 1
            self.size = self.total
        elif self.rng.random() < self.capacity / self.total:     # as the kernel: the count grows when kept
            self.total += 1
            self.put(int(self.rng.integers(0, self.capacity)), values)

    def sample(self, batch_size):
        return self.rows(self.rng.integers(0, self.size, batch_size))


def _create(buf):
    handle = _next_handle[0]
    _next_handle[0] += 1
    _buffers[handle] = buf
    return handle


def _on_host(fn, args, outputs):
    """fn(*args) now, and at every call of a graph being traced (one node)."""
    return _state.opaque_call(fn, tuple(args), outputs=outputs)


def _transition(args):
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else tuple(args)


class _BufferOp(Primitive):
    """A primitive bound to the buffer of `handle`."""

    _kind = None

    def __init__(self, handle):
        super().__init__(type(self).__name__)
        self.handle = validator.check_int(handle, 0, validator.GE, "handle", self.name)
        self.attrs["handle"] = handle

    def _buf(self):
        return _buffer(self.name, self.handle, self._kind)


class _Push(_BufferOp):
    def __call__(self, *transition):
        buf = self._buf()
        values = _transition(transition)
        buf.check(self.name, values)
        _on_host(lambda *t: buf.push(buf.check(self.name, t)), values, False)
        return _handle(self.handle)


class _Destroy(_BufferOp):
    def __call__(self):
        self._buf()
        _on_host(lambda: _buffers.pop(self.handle, None), (), False)
        return _handle(self.handle)


class _Sample(_BufferOp):
    def __init__(self, handle, batch_size, shapes, dtypes):
        super().__init__(handle)
        self.batch_size = validator.check_int(batch_size, 1, validator.GE, "batch_size", self.name)
        self.shapes, self.dtypes, schema = _schema(self.name, shapes, dtypes)
        self.attrs.update(batch_size=batch_size, shapes=shapes, dtypes=dtypes, schema=schema)

    def _draw(self, fn, *args):
        buf = self._buf()
        if buf.size == 0:
            raise RuntimeError(f"For '{self.name}', the buffer is empty: push transitions before sampling.")
        return _on_host(fn, args, True)


class PriorityReplayBufferCreate(Primitive):
    r"""Creates a prioritized replay buffer (Schaul et al., 2015); the call returns its handle, int64 (1,).

    Args:
        capacity (int): transitions kept (the oldest is replaced when full), positive.
        alpha (float): how much prioritization is used, in [0, 1].
        shapes (list[tuple[int]]), dtypes (list[mindspore.dtype]): the items of a transition.
        seed0, seed1 (int): seeds of the sampling, non-negative; both 0: random.
    """

    def __init__(self, capacity, alpha, shapes, dtypes, seed0, seed1):
        super().__init__("PriorityReplayBufferCreate")
        self.capacity = validator.check_int(capacity, 1, validator.GE, "capacity", self.name)
        self.alpha = validator.check_float_range(alpha, 0.0, 1.0, validator.INC_BOTH, "alpha", self.name)
        self.shapes, self.dtypes, schema = _schema(self.name, shapes, dtypes)
        self.seed0 = validator.check_non_negative_int(seed0, "seed0", self.name)
        self.seed1 = validator.check_non_negative_int(seed1, "seed1", self.name)
        self.attrs.update(capacity=capacity, alpha=alpha, shapes=shapes, dtypes=dtypes, seed0=seed0, seed1=seed1,
                          schema=schema)
        self._made = None

    def __call__(self):
        if self._made is None:
            self._made = _create(_PriorityBuffer(self.capacity, float(self.alpha), self.shapes, self.dtypes,
                                                 _rng(self.seed0, self.seed1)))
        return _handle(self._made)


class PriorityReplayBufferPush(_Push):
    r"""Pushes a transition (a tuple of Tensors of the buffer's shapes and dtypes) with the largest priority seen;
    returns the handle. Args: handle (int)."""
    _kind = _PriorityBuffer


class PriorityReplayBufferSample(_Sample):
    r"""Samples `batch_size` transitions in proportion to their priorities.

    Args:
        handle (int), batch_size (int), shapes (list[tuple[int]]), dtypes (list[mindspore.dtype]).

    Inputs:
        beta (Union[float, Tensor]): the importance-sampling correction, 0 none, 1 full.

    Outputs:
        (indices int64 (batch_size,), weights float32 (batch_size,), *items (batch_size, *shape)).
    """
    _kind = _PriorityBuffer

    def __call__(self, beta):
        buf = self._buf()
        return self._draw(lambda b: buf.sample(self.batch_size, float(np.asarray(
            b.asnumpy() if isinstance(b, Tensor) else b).reshape(-1)[0])), beta)


class PriorityReplayBufferUpdate(_BufferOp):
    r"""Sets the priorities of the transitions at `indices` (int64 (n,)) to `priorities` (float32 (n,)) raised to
    alpha; returns the handle. Args: handle (int)."""
    _kind = _PriorityBuffer

    def __call__(self, indices, priorities):
        buf = self._buf()
        for arg, value in (("indices", indices), ("priorities", priorities)):
            if not isinstance(value, Tensor) or value.ndim != 1:
                raise ValueError(f"For '{self.name}', the '{arg}' must be a 1-D Tensor, but got "
                                 f"{getattr(value, 'shape', type(value).__name__)}.")
        if indices.shape != priorities.shape:
            raise ValueError(f"For '{self.name}', 'indices' and 'priorities' must have the same shape, but got "
                             f"{indices.shape} and {priorities.shape}.")
        _on_host(lambda i, p: buf.update(i.asnumpy(), p.asnumpy()), (indices, priorities), False)
        return _handle(self.handle)


class PriorityReplayBufferDestroy(_Destroy):
    r"""Frees the buffer; returns the handle. Args: handle (int)."""
    _kind = _PriorityBuffer


class ReservoirReplayBufferCreate(Primitive):
    r"""Creates a reservoir replay buffer (Vitter's reservoir sampling, as in Deep CFR): an unbiased sample of all
    transitions pushed; the call returns its handle, int64 (1,).

    Args:
        capacity (int), shapes (list[tuple[int]]), dtypes (list[mindspore.dtype]), seed0, seed1 (int).
    """

    def __init__(self, capacity, shapes, dtypes, seed0, seed1):
        super().__init__("ReservoirReplayBufferCreate")
        self.capacity = validator.check_int(capacity, 1, validator.GE, "capacity", self.name)
        self.shapes, self.dtypes, schema = _schema(self.name, shapes, dtypes)
        self.seed0 = validator.check_non_negative_int(seed0, "seed0", self.name)
        self.seed1 = validator.check_non_negative_int(seed1, "seed1", self.name)
        self.attrs.update(capacity=capacity, shapes=shapes, dtypes=dtypes, seed0=seed0, seed1=seed1, schema=schema)
        self._made = None

    def __call__(self):
        if self._made is None:
            self._made = _create(_ReservoirBuffer(self.capacity, self.shapes, self.dtypes,
                                                  _rng(self.seed0, self.seed1)))
        return _handle(self._made)


class ReservoirReplayBufferPush(_Push):
    r"""Pushes a transition into the reservoir; returns the handle. Args: handle (int)."""
    _kind = _ReservoirBuffer


class ReservoirReplayBufferSample(_Sample):
    r"""Samples `batch_size` transitions uniformly (with repetition) from the reservoir: a tuple of Tensors
    (batch_size, *shape). Args: handle (int), batch_size (int), shapes, dtypes."""
    _kind = _ReservoirBuffer

    def __call__(self):
        buf = self._buf()
        return self._draw(lambda: buf.sample(self.batch_size))


class ReservoirReplayBufferDestroy(_Destroy):
    r"""Frees the reservoir; returns the handle. Args: handle (int)."""
    _kind = _ReservoirBuffer


class BatchAssign(Primitive):
    r"""Overwrites each Parameter of `dst_model` with the value of the same position of `source_model` (a
    target network's weights from the policy network's).

    Args:
        lock (bool): a writer's lock (True) or a shared reader's. Default: ``True``.

    Inputs:
        dst_model (tuple(Parameter)), source_model (tuple(Tensor)): of the same length, shapes and dtypes.

    Outputs:
        Tensor, int64 scalar 0.
    """

    def __init__(self, lock=True):
        super().__init__("BatchAssign")
        self.lock = validator.check_value_type("lock", lock, (bool,), self.name)
        self.attrs.update(lock=lock, side_effect_mem=True)

    def __call__(self, dst_model, source_model):
        dst, src = list(dst_model), list(source_model)
        validator.check_equal_int(len(dst), len(src), "inputs elements", self.name)
        for d, s in zip(dst, src):
            if tuple(d.shape) != tuple(s.shape):
                raise ValueError(f"For '{self.name}', each element of 'dst_model' and 'source_model' must have the "
                                 f"same shape, but got {d.shape} and {s.shape}.")
            if d.dtype != s.dtype:
                raise TypeError(f"For '{self.name}', each element of 'dst_model' and 'source_model' must have the "
                                f"same dtype, but got {d.dtype} and {s.dtype}.")
            F.assign(d, s)
        return Tensor(0, mstype.int64)


class DiscountedReturn(Primitive):
    r"""Discounted returns over a sequence of steps holding several episodes:
    ``G[t] = reward[t] + gamma * (1 - done[t]) * G[t + 1]``, with ``G[T] = last_state_value``.

    Args:
        gamma (float): the discount factor, in [0, 1].

    Inputs:
        reward (Tensor): float16/float32 (T, batch, ...). done (Tensor): bool (T, batch).
        last_state_value (Tensor): the value after the last step, reward.shape[1:].

    Outputs:
        Tensor, like `reward`.
    """

    def __init__(self, gamma):
        super().__init__("DiscountedReturn")
        self.gamma = validator.check_float_range(gamma, 0, 1, validator.INC_RIGHT, "gamma", self.name)
        self.attrs["gamma"] = gamma
        self.init_prim_io_names(inputs=["reward", "done", "last_state_value"], outputs=["output"])

    def __call__(self, reward, done, last_state_value):
        name = self.name
        if len(reward.shape) != len(done.shape):
            raise ValueError(f"For '{name}', len(reward) and len(done) must be the same, but got "
                             f"{len(reward.shape)} and {len(done.shape)}.")
        if reward.shape[0] != done.shape[0]:
            raise ValueError(f"For '{name}', the first element of the shape of 'reward' and 'done' must be the same, "
                             f"but got reward.shape[0]: {reward.shape[0]} and done.shape[0]: {done.shape[0]}.")
        if tuple(reward.shape[1:]) != tuple(last_state_value.shape):
            raise ValueError(f"For '{name}', reward.shape[1:] and last_state_value.shape must be the same, but got "
                             f"reward.shape[1:]: {tuple(reward.shape[1:])} and last_state_value.shape: "
                             f"{tuple(last_state_value.shape)}.")
        if reward.dtype not in (mstype.float16, mstype.float32) or last_state_value.dtype != reward.dtype:
            raise TypeError(f"For '{name}', 'reward' and 'last_state_value' must both be float16 or float32, but "
                            f"got {reward.dtype} and {last_state_value.dtype}.")
        if done.dtype != mstype.bool_:
            raise TypeError(f"For '{name}', the 'done' must be a bool Tensor, but got {done.dtype}.")
        keep = (1 - F.cast(done, reward.dtype)) * self.gamma
        value, out = last_state_value, []
        for t in range(reward.shape[0] - 1, -1, -1):
            value = reward[t] + keep[t] * value
            out.append(value)
        return F.stack(out[::-1], 0)


from mindseed.ops.operations._rl_gru_env import CudnnGRU, EnvCreate, EnvReset, EnvStep  # noqa: E402,F401

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import PrimitiveWithInfer  # noqa: E402,F401
