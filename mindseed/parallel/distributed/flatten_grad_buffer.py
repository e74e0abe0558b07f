"""The gradient buckets of `DistributedDataParallel` (MindSpore's `flatten_grad_buffer`): the parameters of one
dtype are split into buckets of about `bucket_size` elements, in order; once every parameter of a bucket has its
gradient for the step, the bucket's gradients are all-reduced as one flat tensor over the data-parallel group, and
when every bucket has been, the reduced values are written back into the parameters' gradient accumulators
(``param.grad``), the Tensors the backward pass returned.

MindSpore holds the accumulators as views of one flat buffer; here each is its own Tensor updated in place
(`Tensor.assign_value`), and a bucket concatenates them for its collective.
"""
from mindseed import ops
from mindseed.common.tensor import Tensor
from mindseed.communication import comm_func
from mindseed.communication.management import get_group_size

__all__ = ["Bucket", "FlattenGradBuffer"]

MIN_BUCKET_SIZE = int(1 * 1024 * 1024)
DEFAULT_BUCKET_SIZE = int(25 * 1024 * 1024)


def _numel(param):
    n = 1
    for d in param.shape:
        n *= int(d)
    return n


class Bucket:
    """The parameters whose gradients are all-reduced together.

    Args:
        average_in_collective (bool): divide by the group size after the all-reduce (else the gradients were
            scaled by `gradient_scaling_factor` before it).
        params (list[Parameter]): the bucket's parameters, in order.
        offset (int): the index of its first element in the buffer.
        numel_unpadded (int): its number of elements.
        data_parallel_group (str): the data-parallel communication group.
        data_parallel_world_size (int): the group's size.
        gradient_scaling_factor (float): 1.0 with `average_in_collective`, else 1 / the group size.
    """

    def __init__(self, average_in_collective, params, offset, numel_unpadded, data_parallel_group,
                 data_parallel_world_size, gradient_scaling_factor):
        self.average_in_collective = average_in_collective
        self.params_list = list(params)
        self.params = set(params)
        self.offset = offset
        self.numel_unpadded = numel_unpadded
        self.data_parallel_group = data_parallel_group
        self.data_parallel_world_size = data_parallel_world_size
        self.gradient_scaling_factor = gradient_scaling_factor
        self.reset()

    def reset(self):
        """Ready for the next step: no gradient registered, nothing issued."""
        self.params_grad_ready = set()
        self.is_reduce_issued = False
        self.communication_handle = None
        self.communication_result = None

    def issue_grad_reduce(self):
        """Scale the bucket's gradients (unless averaging after) and start their all-reduce.

        Raises:
            RuntimeError: the reduction was already issued this step.
        """
        if self.is_reduce_issued:
            raise RuntimeError("The bucket reduce is already issued")
        if self.gradient_scaling_factor != 1.0:
            for p in self.params_list:
                p.grad.assign_value(p.grad * self.gradient_scaling_factor)
        if self.data_parallel_world_size > 1:
            flat = ops.cat([ops.reshape(p.grad, (-1,)) for p in self.params_list])
            self.communication_result, self.communication_handle = comm_func.all_reduce(
                flat, "sum", self.data_parallel_group, async_op=True)
        self.is_reduce_issued = True

    def final_grad_reduce(self):
        """Wait for the all-reduce and write the reduced gradients into the parameters' accumulators (divided by the
        group size with `average_in_collective`).

        Raises:
            RuntimeError: the reduction was not issued (a parameter's gradient is missing).
        """
        if not self.is_reduce_issued:
            raise RuntimeError(f"The bucket reduce has not been issued with only {len(self.params_grad_ready)}/"
                               f"{len(self.params)} params ready")
        if self.data_parallel_world_size <= 1:
            return
        self.communication_handle.wait()
        flat, self.communication_result = self.communication_result, None
        if self.average_in_collective:
            flat = flat / self.data_parallel_world_size
        start = 0
        for p in self.params_list:
            n = _numel(p)
            p.grad.assign_value(ops.reshape(flat[start:start + n], p.grad.shape).astype(p.grad.dtype))
            start += n

    def register_grad_ready(self, param):
        """Note `param`'s gradient as computed; the last one of the bucket issues its reduction (returns True).

        Raises:
            ValueError: `param` is not in the bucket, or was already registered this step.
        """
        if param not in self.params:
            raise ValueError("The param to be registered is not in the bucket")
        if param in self.params_grad_ready:
            raise ValueError(f"The param {param} is already registered")
        self.params_grad_ready.add(param)
        if len(self.params_grad_ready) == len(self.params):
            self.issue_grad_reduce()
            return True
        return False

    def __repr__(self):
        return f"Bucket (offset={self.offset}, param_lens={len(self.params)})"


class FlattenGradBuffer:
    """The gradient accumulators of the parameters of one dtype, split into buckets.

    Args:
        average_in_collective (bool): see `Bucket`.
        param_dtype (mindspore.dtype): the parameters' dtype.
        grad_dtype (mindspore.dtype): the gradients' dtype.
        params (list[Parameter]): the parameters, in order.
        data_parallel_group (str): the data-parallel communication group.
        bucket_size (int): a bucket is closed once it holds at least this many elements (the first one at
            `MIN_BUCKET_SIZE` when it is the default 25 MB).
        gradient_scaling_factor (float): see `Bucket`.
        ddp_handle (DistributedDataParallel): the wrapper, told when every bucket of its buffers has been issued.
    """

    def __init__(self, average_in_collective, param_dtype, grad_dtype, params, data_parallel_group, bucket_size,
                 gradient_scaling_factor, ddp_handle):
        self.param_dtype = param_dtype
        self.grad_dtype = grad_dtype
        self.data_parallel_group = data_parallel_group
        self.data_parallel_world_size = get_group_size(group=data_parallel_group)
        self.gradient_scaling_factor = gradient_scaling_factor
        self.average_in_collective = average_in_collective
        self.buckets = []
        self.param_index_map = {}
        self.param_to_bucket = {}
        self.sync_enabled = True
        self.issued = 0
        self.ddp_handle = ddp_handle
        self.instantiate_buckets(self.calc_partition_metadata(bucket_size, params), params)

    def calc_partition_metadata(self, bucket_size, params):
        """[(start, end, params)] of the buckets: parameters in order, a bucket closed before the parameter that
        finds it holding at least the threshold."""
        buckets, start, end, bucket_id, members = [], 0, 0, 0, []
        for param in params:
            threshold = MIN_BUCKET_SIZE if bucket_id == 0 and bucket_size == DEFAULT_BUCKET_SIZE else bucket_size
            if bucket_size is not None and end - start != 0 and end - start >= threshold:
                buckets.append((start, end, members))
                start, bucket_id, members = end, bucket_id + 1, []
            self.param_index_map[param] = (end, end + _numel(param), bucket_id)
            members.append(param)
            end += _numel(param)
        if end - start > 0:
            buckets.append((start, end, members))
        self.numel = end
        return buckets

    def instantiate_buckets(self, buckets_metadata, params):
        """The buckets, and each parameter's gradient accumulator (zeros)."""
        self.numel_unpadded = 0
        for start, end, members in buckets_metadata:
            self.numel_unpadded += end - start
            bucket = Bucket(self.average_in_collective, members, start, end - start, self.data_parallel_group,
                            self.data_parallel_world_size, self.gradient_scaling_factor)
            self.buckets.append(bucket)
            for param in members:
                self.param_to_bucket[param] = bucket
        for param in params:
            param.grad = Tensor(ops.zeros(param.shape, self.grad_dtype))

    def reset(self):
        """Zero the accumulators and the buckets for the next step."""
        for param in self.param_index_map:
            param.grad.assign_value(ops.zeros(param.shape, self.grad_dtype))
        for bucket in self.buckets:
            bucket.reset()
        self.issued = 0
        self.sync_enabled = True

    def final_grad_reduce(self):
        """Write every bucket's reduced gradients back."""
        for bucket in self.buckets:
            bucket.final_grad_reduce()

    def register_grad_ready(self, param):
        """Note `param`'s gradient as computed (nothing while synchronization is off)."""
        if not self.sync_enabled:
            return
        if self.param_to_bucket[param].register_grad_ready(param):
            self.issued += 1
        if self.issued == len(self.buckets):
            self.ddp_handle.buffer_issued += 1
            if self.ddp_handle.buffer_issued == len(self.ddp_handle.buffers):
                self.ddp_handle.final_grad_reduce()

    def __repr__(self):
        index = {param.name: i for param, i in self.param_index_map.items()}
        return f"Buffer has buckets: \n {self.buckets} \n and param_index_map: \n {index}"
