"""MindSpore's `mindspore.parallel.distributed.DistributedDataParallel`: data parallelism in PyNative mode by
gradient buckets all-reduced over the communication layer while the backward pass runs.

Each trainable parameter gets a gradient accumulator (``param.grad``) and a backward hook: the hook adds the step's
gradient to the accumulator, returns the accumulator as the parameter's gradient and marks it ready in its bucket
(`flatten_grad_buffer`); a complete bucket is all-reduced, and when every bucket has been, the reduced (averaged)
gradients are written into the accumulators, so the gradients the user's `grad` / `value_and_grad` call returned
are the data-parallel ones. `zero_grad()` zeroes the accumulators for the next step (without it the steps'
gradients add up); inside `no_sync()` nothing is reduced and the gradients accumulate locally until a synchronized
step reduces their sum. At construction the parameters are broadcast from the group's first rank (`init_sync`).

MindSpore's C++ reducer (``reducer_mode="CppReducer"``, the default) and its Python one behave the same here: both
are this Python implementation.
"""
import itertools
from contextlib import contextmanager

from mindseed import ops
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.communication import comm_func
from mindseed.communication.management import GlobalComm, get_group_size, get_world_rank_from_group_rank
from mindseed.nn.cell import Cell
from mindseed.parallel.distributed.flatten_grad_buffer import FlattenGradBuffer

__all__ = ["DistributedDataParallel"]


def get_data_parallel_group():
    """The default data-parallel group: the world's."""
    return GlobalComm.WORLD_COMM_GROUP


def _find_tensors(obj):
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return itertools.chain.from_iterable(map(_find_tensors, obj))
    if isinstance(obj, dict):
        return itertools.chain.from_iterable(map(_find_tensors, obj.values()))
    return []


class DistributedDataParallel(Cell):
    """Wraps `module` for data-parallel training in PyNative mode: its parameters' gradients are all-reduced in
    buckets over `process_group` while the backward pass runs.

    Args:
        module (nn.Cell): the network.
        init_sync (bool): broadcast the parameters from the group's first rank now. Default: ``True``.
        process_group (str): the data-parallel group. Default: ``None`` (the world).
        bucket_cap_mb (int): a bucket's size threshold in MB. Default: ``None`` (25).
        find_unused_parameters (bool): the parameters a forward pass does not read count as ready (their
            accumulators reduced as they are). Default: ``False``.
        average_in_collective (bool): all-reduce the sums and divide by the group size after; else scale each
            rank's gradients by 1 / the group size before. Default: ``False``.
        static_graph (bool): the network reads the same parameters every step: the unused ones are found on the
            first step only. Default: ``False``.
        reducer_mode (str): ``"CppReducer"`` or ``"PythonReducer"`` (the same implementation here).
            Default: ``"CppReducer"``.

    >>> import mindseed as ms
    >>> net = DistributedDataParallel(ms.nn.Dense(2, 1))
    >>> g = ms.grad(lambda x: net(x).sum(), None, net.trainable_params())(ms.ops.ones((3, 2), ms.float32))
    >>> g[0].asnumpy().tolist()
    [[3.0, 3.0]]
    >>> net.zero_grad()
    """

    def __init__(self, module, init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 average_in_collective=False, static_graph=False, reducer_mode="CppReducer"):
        super().__init__(auto_prefix=False)
        if not isinstance(module, Cell):
            raise TypeError(f"For 'DistributedDataParallel', the argument 'module' must be a Cell, but got "
                            f"{type(module).__name__}.")
        self.init_sync = init_sync
        self.bucket_cap_mb = bucket_cap_mb
        self.average_in_collective = average_in_collective
        self.grad_reduce_in_fp32 = False
        self.process_group = process_group if process_group else get_data_parallel_group()
        self.static_graph = static_graph
        self.find_unused_parameters = find_unused_parameters
        self.module = module
        self.param_to_buffer = {}
        self.has_buckets_grad_sync = False
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self.sync_enabled = True
        self.reducer_mode = reducer_mode
        self.buffers = []
        self.has_mark_unused_param = False
        self.unused_param, self.unused_param_name = [], []
        self.triggered_once = False
        self.buffer_issued = 0
        size = get_group_size(self.process_group)
        self.gradient_scaling_factor = 1.0 if average_in_collective else 1.0 / size
        self.bucketed_params, self.skipped_params = [], []
        for _, param in module.parameters_and_names():
            if not param.requires_grad:
                self.skipped_params.append(param)
                continue
            param.grad = None
            param.main_grad = None
            self.bucketed_params.append(param)
        self.buffers = self.allocate_buffers_for_parameters(self.bucketed_params, self.process_group,
                                                            self.gradient_scaling_factor)
        if self.init_sync:
            self.broadcast_coalesced()
        self._register_hook_for_params()

    def _group_params_by_dtype(self, input_params):
        groups = {}
        for param in input_params:
            grad_dtype = mstype.float32 if self.grad_reduce_in_fp32 else param.dtype
            groups.setdefault((param.dtype, grad_dtype), []).append(param)
        return groups

    def allocate_buffers_for_parameters(self, input_params, group, gradient_scaling_factor):
        """One `FlattenGradBuffer` per (parameter dtype, gradient dtype) of `input_params`."""
        buffers = []
        for (param_dtype, grad_dtype), params in self._group_params_by_dtype(input_params).items():
            buffers.append(FlattenGradBuffer(self.average_in_collective, param_dtype, grad_dtype, params, group,
                                             self.bucket_bytes_cap, gradient_scaling_factor, self))
            for param in params:
                self.param_to_buffer[param] = buffers[-1]
        return buffers

    def final_grad_reduce(self):
        """Write every buffer's reduced gradients back (when the last bucket of the step was issued)."""
        for buffer in self.buffers:
            buffer.final_grad_reduce()
            buffer.issued = 0
        self.buffer_issued = 0

    def _register_hook_for_params(self):
        for param in self.bucketed_params:
            param.register_hook(self._make_param_hook(param))

    def _make_param_hook(self, param):
        def param_hook(grad):
            if not self.has_mark_unused_param:
                for unused in self.unused_param:
                    self.param_to_buffer[unused].register_grad_ready(unused)
                self.has_mark_unused_param = True
            elif param.name in self.unused_param_name:
                return param.grad
            param.grad.assign_value(param.grad + grad.astype(param.grad.dtype))
            self.param_to_buffer[param].register_grad_ready(param)
            return param.grad
        return param_hook

    def _post_forward(self, output):
        """The parameters the forward pass did not read (with `find_unused_parameters`, or on the first step of a
        `static_graph`): those no call recorded by the gradient tape took."""
        check = self.find_unused_parameters
        if self.static_graph and not self.triggered_once:
            self.triggered_once, check = True, True
            self.find_unused_parameters = False
        if check and _state.tapes:
            read = {id(a) for _, args, _, _ in _state.tapes[-1].nodes for a in args if isinstance(a, Parameter)}
            self.unused_param = [p for p in self.bucketed_params if id(p) not in read]
        elif not self.static_graph:
            self.unused_param = []
        self.unused_param_name = [p.name for p in self.unused_param]
        self.has_mark_unused_param = False

    def construct(self, *inputs, **inputs_dict):
        output = self.module(*inputs, **inputs_dict)
        self._post_forward(list(_find_tensors(output)))
        return output

    def zero_grad(self):
        """Zero the gradient accumulators and the buckets: the next step's gradients start from zero."""
        for buffer in self.buffers:
            buffer.reset()
        self.buffer_issued = 0

    def _enable_sync(self, enable):
        for buffer in self.buffers:
            buffer.sync_enabled = enable
        self.sync_enabled = enable

    @contextmanager
    def no_sync(self):
        """No all-reduce inside the block: the gradients accumulate on each rank until a synchronized step."""
        self._enable_sync(False)
        try:
            yield
        finally:
            self._enable_sync(True)

    def broadcast_coalesced(self):
        """Every parameter set to the group's first rank's, one broadcast per bucket (and per dtype of the
        parameters without gradient)."""
        if get_group_size(self.process_group) <= 1:
            return
        buckets = [bucket.params_list for buffer in self.buffers for bucket in buffer.buckets]
        buckets += list(self._group_params_by_dtype(self.skipped_params).values())
        src = get_world_rank_from_group_rank(self.process_group, 0) \
            if self.process_group != GlobalComm.WORLD_COMM_GROUP else 0
        for params in buckets:
            flat = comm_func.broadcast(ops.cat([ops.reshape(p, (-1,)) for p in params]), src, self.process_group)
            start = 0
            for p in params:
                n = 1
                for d in p.shape:
                    n *= int(d)
                p.set_data(ops.reshape(flat[start:start + n], p.shape))
                start += n
