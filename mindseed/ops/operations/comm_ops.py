"""Collective communication operators of the class API (`ops.AllReduce()`, `ops.AllGather()`, ...).

They run on the process group `mindseed.communication.init()` joined (torch.distributed: gloo on CPU, NCCL
on GPU). `group` names a group as MindSpore does: the default ``"hccl_world_group"`` means the world group
whatever the backend, other names are groups made by `communication.create_group`.
"""
import os

from mindseed._backend.kernels import comm as K
from mindseed.common._parallel import GlobalComm, _get_group
from mindseed.common.tensor import Tensor
from mindseed.ops._prims.comm import all_gather_p, all_reduce_p, barrier_p, broadcast_p, reduce_scatter_p
from mindseed.ops.operations._base import Primitive

__all__ = ["ReduceOp", "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Barrier"]


class ReduceOp:
    """Reduction of the collective operators: ``SUM``, ``MAX``, ``MIN``, ``PROD``, ``AVG`` (sum / group size).

    >>> from mindseed.ops import ReduceOp
    >>> ReduceOp.SUM
    'sum'
    """
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"
    AVG = "avg"


_REDUCE_OPS = (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PROD, ReduceOp.AVG)
_DTYPES = ("Bool", "Int8", "Int32", "Int64", "UInt8", "Float16", "Float32", "Float64", "BFloat16")


# ---------------------------------------------------------------- rank queries (MindSpore's management helpers)
def _rank(group, caller="get_rank"):
    """This process's rank in `group`; before `init`, RANK_ID from the environment (0 when unset)."""
    if not K.is_initialized():
        return int(os.getenv("RANK_ID", "0"))
    return K.group_rank(_existing(_get_group(group), caller))


def _group_size(group, caller="get_group_size"):
    """The number of processes in `group`; before `init`, RANK_SIZE from the environment (1 when unset)."""
    if not K.is_initialized():
        return int(os.getenv("RANK_SIZE", "1"))
    return K.group_size(_existing(_get_group(group), caller))


def _existing(group, caller):
    if not K.has_group(group):
        raise ValueError(f"For '{caller}', the communication group '{group}' does not exist: create it with "
                         f"mindspore.communication.create_group first.")
    return group


def _check_ready(name, group):
    if not K.is_initialized():
        raise RuntimeError(f"For '{name}', the communication service is not initialized: call "
                           f"mindspore.communication.init() first.")
    _existing(group, name)


def _check_input(name, x, arg="x"):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got {type(x).__name__}.")
    if x.dtype.name not in _DTYPES:
        allowed = ", ".join(f"Tensor[{d}]" for d in _DTYPES)
        raise TypeError(f"For '{name}', the element of '{arg}' must be one of {allowed}, but got "
                        f"Tensor[{x.dtype.name}].")


def _check_group_arg(name, group):
    if not isinstance(group, str):
        raise TypeError(f"For '{name}', the type of 'group' should be 'str', but got type '{type(group).__name__}'.")


# ---------------------------------------------------------------- operators
class AllReduce(Primitive):
    """Reduce `x` over every member of the group; each member gets the result (same shape and dtype as `x`).

    Args:
        op (str): ``ReduceOp.SUM`` (default), ``MAX``, ``MIN``, ``PROD`` or ``AVG``.
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.

    Raises:
        TypeError: `op` or `group` is not a str; `x` is not a Tensor of a supported dtype.
        ValueError: `op` is not one of ReduceOp's values.
        RuntimeError: called before `mindspore.communication.init()`.

    >>> import mindseed as ms
    >>> from mindseed.communication import init
    >>> init()                                    # no launcher environment: a world of one process
    >>> ms.ops.AllReduce()(ms.Tensor([1.0, 2.0]))
    Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])
    """

    def __init__(self, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__("AllReduce")
        self.group = _get_group(group)
        if not isinstance(op, str):
            raise TypeError(f"For '{self.name}', the 'op' must be str, but got {type(op).__name__}.")
        if not isinstance(self.group, str):
            raise TypeError(f"For '{self.name}', the 'group' must be str, but got {type(self.group).__name__}.")
        if op not in _REDUCE_OPS:
            raise ValueError(f"For '{self.name}', the 'op' must be one of {list(_REDUCE_OPS)}, but got '{op}'.")
        self.op = op
        self.attrs.update(op=op, group=self.group, fusion=0, index=0, no_eliminate=True)

    def __call__(self, x):
        _check_ready(self.name, self.group)
        _check_input(self.name, x)
        return all_reduce_p(x, op=self.op, group=self.group)


class AllGather(Primitive):
    """Concatenate the members' `x` along axis 0, in rank order; every member gets the result.

    Args:
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.

    Raises:
        TypeError: `group` is not a str; `x` is not a Tensor of a supported dtype.
        ValueError: `x` is a scalar.
        RuntimeError: called before `mindspore.communication.init()`.
    """

    def __init__(self, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__("AllGather")
        self.group = _get_group(group)
        _check_group_arg(self.name, self.group)
        self.rank = _rank(self.group)
        self.rank_size = _group_size(self.group)
        if self.rank >= self.rank_size:
            raise ValueError(f"For '{self.name}', the 'rank' must be less than 'rank_size', but got 'rank': "
                             f"{self.rank} and 'rank_size': {self.rank_size}.")
        self.attrs.update(group=self.group, rank_size=self.rank_size, fusion=0, mean_flag=False, no_eliminate=True)

    def __call__(self, x):
        _check_ready(self.name, self.group)
        _check_input(self.name, x)
        if x.ndim == 0:
            raise ValueError(f"For '{self.name}', the 'x shape' must be a positive int, but got 0.")
        return all_gather_p(x, group=self.group)


class ReduceScatter(Primitive):
    """Reduce `x` over the group, then give member i the i-th of `group size` equal chunks along axis 0.

    Args:
        op (str): ``ReduceOp.SUM`` (default), ``MAX``, ``MIN``, ``PROD`` or ``AVG``.
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.

    Raises:
        TypeError: `op` or `group` is not a str; `x` is not a Tensor of a supported dtype.
        ValueError: `x.shape[0]` is not a multiple of the group size.
        RuntimeError: called before `mindspore.communication.init()`.
    """

    def __init__(self, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__("ReduceScatter")
        if not isinstance(op, str):
            raise TypeError(f"For '{self.name}', the type of 'op' should be 'str', but got type "
                            f"'{type(op).__name__}'.")
        if op not in _REDUCE_OPS:
            raise ValueError(f"For '{self.name}', the 'op' must be one of {list(_REDUCE_OPS)}, but got '{op}'.")
        self.group = _get_group(group)
        _check_group_arg(self.name, self.group)
        self.op = op
        self.rank_size = _group_size(self.group)
        self.attrs.update(op=op, group=self.group, rank_size=self.rank_size, fusion=0, no_eliminate=True)

    def __call__(self, x):
        _check_ready(self.name, self.group)
        _check_input(self.name, x)
        n = K.group_size(self.group)
        if x.ndim == 0 or x.shape[0] % n:
            raise ValueError(f"For '{self.name}', the first dimension of 'x_shape' must be divided by 'group_size', "
                             f"but got 'x_shape[0]': {x.shape[0] if x.ndim else None}, 'rank_size': {n}.")
        return reduce_scatter_p(x, op=self.op, group=self.group)


class Broadcast(Primitive):
    """Every member gets the tensors of the member whose rank in the group is `root_rank`.

    Args:
        root_rank (int): the source's rank in `group`.
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.

    Inputs:
        input_x (tuple[Tensor]): the tensors (same shapes and dtypes on every member).

    Outputs:
        tuple[Tensor], the root's tensors.

    Raises:
        TypeError: `root_rank` is not an int, `group` not a str, `input_x` not a tuple of Tensors.
        ValueError: `root_rank` is not a rank of the group.
        RuntimeError: called before `mindspore.communication.init()`.
    """

    def __init__(self, root_rank, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__("Broadcast")
        if isinstance(root_rank, bool) or not isinstance(root_rank, int):
            raise TypeError(f"For '{self.name}', the type of 'root_rank' should be 'int', but got type "
                            f"'{type(root_rank).__name__}'.")
        self.group = _get_group(group)
        _check_group_arg(self.name, self.group)
        self.root_rank = root_rank
        self.attrs.update(root_rank=root_rank, group=self.group, no_eliminate=True)

    def __call__(self, input_x):
        _check_ready(self.name, self.group)
        if not isinstance(input_x, (tuple, list)):
            raise TypeError(f"For '{self.name}', the 'input_x' must be a tuple of Tensors, but got "
                            f"{type(input_x).__name__}.")
        for x in input_x:
            _check_input(self.name, x, "input_x")
        n = K.group_size(self.group)
        if not 0 <= self.root_rank < n:
            raise ValueError(f"For '{self.name}', the 'root_rank' must be in [0, {n}), but got {self.root_rank}.")
        return broadcast_p(*input_x, root_rank=self.root_rank, group=self.group)


class Barrier(Primitive):
    """Block until every member of the group has called the barrier.

    Args:
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.

    Raises:
        RuntimeError: called before `mindspore.communication.init()`.
    """

    def __init__(self, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__("Barrier")
        self.group = _get_group(group)
        _check_group_arg(self.name, self.group)
        self.attrs.update(group=self.group, side_effect_mem=True)

    def __call__(self):
        _check_ready(self.name, self.group)
        return barrier_p(group=self.group)
