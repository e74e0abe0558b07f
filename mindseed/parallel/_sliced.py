"""Processes of a real run holding only their slices: a training step whose Parameters were made under
`nn.utils.no_init_parameters` (MindSpore's lazy initialization) is recorded abstractly and each Parameter is
initialized as this rank's slice only, so no process ever holds a whole Parameter or the gathered global batch.

One step on a process (`_train.SimulatedTraining` on a `ProcessWorld`, when every parameter of the optimizer waits
for its initialization, is already held in slices, or is another pipeline stage's):

1. the step is recorded abstractly (`_spmd.record(..., abstract=True)`): the batch by data-less stand-ins of its
   global shapes (the rank's slice times the ``dataset_strategy``), the sliced Parameters by data-less values of
   their global shapes (`standing_whole`), so no kernel runs and nothing whole is made;
2. the first step runs that recording on a `ShapeWorld` to learn every Parameter's layout, then initializes each
   waiting Parameter (and the optimizer state shaped like it) as this rank's slice (`init_slice`): a constant
   initializer (zeros, ones, a number) fills only the slice; any other draws the whole tensor once, as one process
   would (the values are the single process's), and keeps the slice;
3. the program runs on the processes with the leaves' shards given directly (`execute(..., shards=)`): the
   Parameters' slices and the rank's slice of the batch;
4. the optimizer updates the slices from the gradients' slices in the Parameters' layouts (the optimizers
   `_zero.HELD` lists: elementwise updates, and Lamb and LARS with their norms all-reduced over the pieces by
   `_zero.slice_reductions`; any other is refused when a Parameter or its optimizer state is cut).

With ``enable_parallel_optimizer`` each Parameter and its optimizer state are initialized as this rank's optimizer
slice (`_zero.optimizer_layout`: dim 0 cut over the ranks repeating it), as MindSpore's static graph cuts the weights
at every level: the weight is all-gathered where the forward pass reads it (at level3 again for the backward, the
forward's copy freed), its gradient reduce-scattered to the slice, and the update runs on the slices
(`update_held`).

With ``pipeline_stages`` the step is a pipeline's (`_pipeline.record_pipeline(..., abstract=True)`, run with
`execute_pipeline(..., shards=)`): a process initializes only the Parameters its stage reads (as its slices in the
stage, with the parallel optimizer's slices as above); the other stages' Parameters and optimizer state hold no data
(`drop_data`), stand as empty arrays while the optimizer runs (`update_held`), and are neither initialized nor
saved by ``save_checkpoint`` (`_parallel.parameter_elsewhere`). At level3 a stage gathers a weight once per step
(the copy serves every micro-batch's forward and backward passes, as the simulated pipeline does).

The Parameters keep their slices between steps (``Parameter.sliced`` True, their shape the slice's), as MindSpore's
after a parallel compilation; ``save_checkpoint(..., integrated_save=False)`` saves them as they are and
``integrated_save=True`` gathers them (`_parallel.parameter_slices` / `parameter_wholes`).
"""
import contextlib

import numpy as np

from mindseed import _backend as B
from mindseed.common.dtype import dtype_to_nptype
from mindseed.common.initializer import Constant, One, Zero, run_recipe
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.parallel._layout import shard_array
from mindseed.parallel._spmd import local_shards

__all__ = ["waiting_or_sliced", "init_slice", "standing_whole", "optimizer_states", "stand_in", "held_bytes",
           "drop_data", "update_held"]

_CONSTANT = (Zero, One, Constant)


def waiting_or_sliced(params, sliced, absent=()):
    """Whether every Parameter of `params` waits for its initialization, is held in slices (`sliced`: {id:
    (Parameter, global shape, layout)}) or by another process (`absent`: ids), and at least one does not hold whole
    data."""
    params = list(params)
    return bool(params) and all(p.has_init or id(p) in sliced or id(p) in absent for p in params)


def init_slice(p, layout, rank):
    """Make Parameter `p` hold only `rank`'s slice under `layout`. Waiting for its initialization: a constant
    initializer fills the slice only; any other draws the whole tensor (the single process's values) and keeps
    the slice. Holding whole data (an optimizer state made outside no_init_parameters): its slice is kept.
    Returns the slice's numpy array."""
    recipe = p.__dict__.get("_init_recipe")
    if recipe is None:
        whole, dtype = p.asnumpy(), p.dtype
    elif isinstance(recipe[0], _CONSTANT) and not layout.pad:
        whole, dtype = None, recipe[2]
        data = run_recipe((recipe[0], layout.local_shape, dtype))
    else:
        whole, dtype = run_recipe(recipe).asnumpy(), recipe[2]
    if whole is not None:
        data = Tensor(np.ascontiguousarray(shard_array(whole, layout)[rank]), dtype)
    p._data = data._data
    p._init_done()
    p.sliced = True
    return data.asnumpy()


@contextlib.contextmanager
def standing_whole(sliced):
    """While the block runs, every sliced Parameter (`sliced`: {id: (Parameter, global shape, layout)}) holds a
    data-less value of its global shape (what an abstract recording and the partitioner read: shapes)."""
    saved = []
    try:
        for p, shape, _ in sliced.values():
            saved.append((p, p._data))
            p._data = B.meta(shape, p.dtype.name)
        yield
    finally:
        for p, data in saved:
            p._data = data


def stand_in(shape, dtype):
    """A data-less Tensor of `shape` and `dtype` (an abstract recording's input)."""
    return Tensor._from_raw(B.meta(tuple(shape), dtype.name))


def optimizer_states(optimizer):
    """({id(parameter): [its state Parameters]}, [the other Parameters of the optimizer]): a state is named
    ``<prefix>.<parameter name>`` and shaped like its parameter (momenta, Adam's moments), as `_zero` finds them."""
    params = list(optimizer.parameters)
    own = {id(p) for p in params}
    by_name = {p.name: p for p in params}
    states, others = {}, []
    for _, q in optimizer.parameters_and_names():
        if id(q) in own or not isinstance(q, Parameter):
            continue
        owner = by_name.get(q.name.partition(".")[2])
        if owner is not None and q.shape == owner.shape:
            states.setdefault(id(owner), []).append(q)
        else:
            others.append(q)
    return states, others


def holds_data(p):
    """Whether Parameter (or Tensor) `p` holds data on this process (not a data-less stand-in: a Parameter waiting
    for its initialization, or one another process holds)."""
    return not (B.is_placeholder(p._data) or getattr(p._data, "is_meta", False))


def held_bytes(params):
    """Bytes of the data the Parameters `params` hold on this process (a data-less one holds none)."""
    return sum(int(np.prod(p.shape)) * p.itemsize for p in params if holds_data(p))


def drop_data(x):
    """Make `x` (a Parameter another process holds: another pipeline stage's, or its optimizer state) hold no data,
    only its shape and dtype."""
    if holds_data(x):
        x._data = B.meta(tuple(x.shape), x.dtype.name)


def update_held(optimizer, grads, absent=()):
    """Run `optimizer` on what this process holds. `grads` holds one numpy array per parameter of the optimizer:
    the slice of its gradient in the layout the Parameter is held in, or None for a Parameter this process does not
    hold (another pipeline stage's: those and their optimizer state, `absent`, stand as empty arrays while the
    optimizer runs, so its elementwise update touches only what this process holds, and hold no data again after)."""
    params = list(optimizer.parameters)
    saved = [(x, x._data) for x in absent]
    # the state this process does not hold stays without data: not initialized by the cell's first call
    optimizer.__dict__["_lazy_params"] = False
    try:
        for x in absent:
            x._data = B.empty((0,), x.dtype.name)
        optimizer(tuple(Tensor(np.zeros((0,), dtype_to_nptype(p.dtype))) if g is None else
                        Tensor(np.ascontiguousarray(g), p.dtype) for p, g in zip(params, grads)))
    finally:
        for x, data in saved:
            x._data = data


def mine(world, array):
    """`array` as this process's shard (one entry per rank, the others None)."""
    shards = [None] * world.size
    for r in world.ranks:
        shards[r] = array
    return local_shards(world, shards)
