"""Collective communication operators of the class API (`ops.AllReduce()`, `ops.AllGather()`, ...).

They run on the process group `mindseed.communication.init()` joined (torch.distributed: gloo on CPU, NCCL
on GPU). `group` names a group as MindSpore does: the default ``"hccl_world_group"`` means the world group
whatever the backend, other names are groups made by `communication.create_group`.
"""
import os

from mindseed._backend.kernels import comm as K
from mindseed._utils.errors import check_int
from mindseed.common._parallel import GlobalComm, _get_group
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import comm as C
from mindseed.ops._prims.comm import all_gather_p, all_reduce_p, barrier_p, broadcast_p, reduce_scatter_p
from mindseed.ops.operations._base import Primitive

__all__ = ["ReduceOp", "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Barrier", "Reduce", "AlltoAll",
           "AlltoAllV", "AlltoAllVC", "AllGatherV", "ReduceScatterV", "CollectiveGather", "CollectiveScatter", "Send",
           "Receive", "NeighborExchange", "NeighborExchangeV2", "BatchISendIRecv", "Reshard"]


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


# ---------------------------------------------------------------- argument checks of the operators below
def _int_list(name, arg, value, length=None):
    if isinstance(value, Tensor):
        value = value.asnumpy().reshape(-1).tolist()
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"For '{name}', the '{arg}' must be a list or tuple of int, but got {type(value).__name__}.")
    for v in value:
        check_int(name, f"element of {arg}", v)
    if length is not None and len(value) != length:
        raise ValueError(f"For '{name}', the '{arg}' must have {length} entries, but got {len(value)}.")
    return tuple(int(v) for v in value)


def _dtype_arg(name, arg, dtype):
    dname = getattr(dtype, "name", None)
    if dname not in _DTYPES + ("Int16", "UInt16", "UInt32", "UInt64"):
        raise TypeError(f"For '{name}', the '{arg}' must be a mindspore dtype of a number, but got {dtype!r}.")
    return dname


class _Collective(Primitive):
    """A communication operator on `group` (MindSpore's default name mapped to the world group)."""

    def __init__(self, group):
        super().__init__()
        self.group = GlobalComm.WORLD_COMM_GROUP if group is None else _get_group(group)
        _check_group_arg(self.name, self.group)
        self.add_prim_attr("group", self.group)
        self.add_prim_attr("no_eliminate", True)

    def _ready(self, *xs):
        _check_ready(self.name, self.group)
        for x in xs:
            _check_input(self.name, x)

    def _member(self, arg, rank, world=False):
        """Check `rank` (a world rank when `world`, else a rank in the group) names a member of the group."""
        members = K.group_ranks(self.group) if world else range(K.group_size(self.group))
        if rank not in members:
            raise ValueError(f"For '{self.name}', the '{arg}' must be a {'world rank of a member' if world else 'rank'}"
                             f" of group '{self.group}' ({list(members)}), but got {rank}.")
        return rank


class Reduce(_Collective):
    """Reduce `x` over the group onto the member of group rank `dest_rank`; the others get a shape-[1] tensor
    with no meaning (MindSpore's).

    Args:
        dest_rank (int): the group rank receiving the result.
        op (str): ``ReduceOp.SUM`` (default), ``MAX``, ``MIN``, ``PROD`` or ``AVG``.
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.

    Raises:
        TypeError: `dest_rank` is not an int, `op` or `group` not a str, `x` not a Tensor.
        ValueError: `dest_rank` is not a rank of the group.
        RuntimeError: called before `init()`, or a peer died / timed out.
    """

    def __init__(self, dest_rank, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(group)
        if not isinstance(op, str):
            raise TypeError(f"For '{self.name}', the 'op' must be str, but got {type(op).__name__}.")
        if op not in _REDUCE_OPS:
            raise ValueError(f"For '{self.name}', the 'op' must be one of {list(_REDUCE_OPS)}, but got '{op}'.")
        self.dest_rank, self.op = check_int(self.name, "dest_rank", dest_rank), op
        self.attrs.update(dest_rank=dest_rank, op=op)

    def __call__(self, x):
        self._ready(x)
        return C.reduce_p(x, dest_rank=self._member("dest_rank", self.dest_rank), op=self.op, group=self.group)


class AlltoAll(_Collective):
    """Split `x` into `split_count` blocks along `split_dim`, send block j to member j, and concatenate the
    blocks received along `concat_dim` (shape: split_dim / split_count, concat_dim * split_count).

    Args:
        split_count (int): the number of blocks (the group size).
        split_dim (int), concat_dim (int): the dims split and concatenated.
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.

    Raises:
        TypeError: an argument of the wrong type.
        ValueError: `split_count` is not the group size, or does not divide `x.shape[split_dim]`.
        RuntimeError: called before `init()`, or a peer died / timed out.
    """

    def __init__(self, split_count, split_dim, concat_dim, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(group)
        self.split_count = check_int(self.name, "split_count", split_count)
        self.split_dim = check_int(self.name, "split_dim", split_dim)
        self.concat_dim = check_int(self.name, "concat_dim", concat_dim)
        self.rank_size = _group_size(self.group)
        self.attrs.update(split_count=split_count, split_dim=split_dim, concat_dim=concat_dim,
                          rank_size=self.rank_size)

    def __call__(self, x):
        self._ready(x)
        nd = x.ndim
        for arg, d in (("split_dim", self.split_dim), ("concat_dim", self.concat_dim)):
            if not -nd <= d < nd:
                raise ValueError(f"For '{self.name}', the '{arg}' must be in [{-nd}, {nd}), but got {d}.")
        if x.shape[self.split_dim] % self.split_count:
            raise ValueError(f"For '{self.name}', the 'split_count' {self.split_count} must divide the input's "
                             f"dimension {self.split_dim} ({x.shape[self.split_dim]}).")
        return C.all_to_all_p(x, split_count=self.split_count, split_dim=self.split_dim % nd,
                              concat_dim=self.concat_dim % nd, group=self.group)


class AlltoAllV(_Collective):
    """The uneven AlltoAll of a flat tensor: `send_numel_list[j] * block_size` elements go to member j, and the
    output holds `recv_numel_list[i] * block_size` elements from each member i (a shape-() zero when empty).

    Args:
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.
        block_size (int): the unit of the counts. Default: ``1``.

    Inputs:
        input_x (Tensor), send_numel_list (list[int] or Tensor), recv_numel_list (list[int] or Tensor).
    """

    def __init__(self, group=GlobalComm.WORLD_COMM_GROUP, block_size=1):
        super().__init__(group)
        self.block_size = check_int(self.name, "block_size", block_size)
        self.rank_size = _group_size(self.group)
        self.attrs.update(block_size=block_size)

    def __call__(self, input_x, send_numel_list, recv_numel_list):
        self._ready(input_x)
        n = K.group_size(self.group)
        send = _int_list(self.name, "send_numel_list", send_numel_list, n)
        recv = _int_list(self.name, "recv_numel_list", recv_numel_list, n)
        if sum(send) * self.block_size != input_x.size:
            raise ValueError(f"For '{self.name}', the 'send_numel_list' {list(send)} (x block_size {self.block_size}) "
                             f"must add up to the input's {input_x.size} elements.")
        return C.all_to_all_v_p(input_x, send_numel_list=send, recv_numel_list=recv, group=self.group,
                                block_size=self.block_size)


class AlltoAllVC(_Collective):
    """The uneven AlltoAll of a flat tensor given every member's counts: `send_count_matrix[i * n + j] *
    block_size` elements go from member i to member j (the matrix transposed with `transpose`).

    Args:
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.
        block_size (int): the unit of the counts. Default: ``1``.
        transpose (bool): read the matrix transposed (the backward's exchange). Default: ``False``.
    """

    def __init__(self, group=GlobalComm.WORLD_COMM_GROUP, block_size=1, transpose=False):
        super().__init__(group)
        self.block_size = check_int(self.name, "block_size", block_size)
        if not isinstance(transpose, bool):
            raise TypeError(f"For '{self.name}', the 'transpose' must be a bool, but got {type(transpose).__name__}.")
        self.transpose = transpose
        self.rank_size, self.rank_id = _group_size(self.group), _rank(self.group)
        self.attrs.update(block_size=block_size, transpose=transpose, rank_size=self.rank_size, rank_id=self.rank_id)

    def __call__(self, input_x, send_count_matrix):
        self._ready(input_x)
        n = K.group_size(self.group)
        counts = _int_list(self.name, "send_count_matrix", send_count_matrix, n * n)
        return C.all_to_all_v_c_p(input_x, send_count_matrix=counts, group=self.group, block_size=self.block_size,
                                  transpose=self.transpose)


class AllGatherV(_Collective):
    """Gather uneven flat tensors: the output is the members' inputs concatenated, member i's holding
    `output_split_sizes[i]` elements.

    Args:
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.
    """

    def __init__(self, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(group)
        self.rank, self.rank_size = _rank(self.group), _group_size(self.group)
        self.attrs.update(rank_size=self.rank_size, mean_flag=False, rank_id=self.rank)

    def __call__(self, input_x, output_split_sizes):
        self._ready(input_x)
        sizes = _int_list(self.name, "output_split_sizes", output_split_sizes, K.group_size(self.group))
        return C.all_gather_v_p(input_x, output_split_sizes=sizes, group=self.group)


class ReduceScatterV(_Collective):
    """Reduce a flat tensor over the group; member i keeps its `input_split_sizes[i]` elements.

    Args:
        op (str): ``ReduceOp.SUM`` (default), ``MAX`` or ``MIN``.
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.
    """

    def __init__(self, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(group)
        if not isinstance(op, str):
            raise TypeError(f"For '{self.name}', the 'op' must be str, but got {type(op).__name__}.")
        if op not in (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN):
            raise ValueError(f"For '{self.name}', the 'op' must be one of ['sum', 'max', 'min'], but got '{op}'.")
        self.op = op
        self.rank_size, self.rank_id = _group_size(self.group), _rank(self.group)
        self.attrs.update(op=op, rank_size=self.rank_size, rank_id=self.rank_id)

    def __call__(self, input_x, input_split_sizes):
        self._ready(input_x)
        sizes = _int_list(self.name, "input_split_sizes", input_split_sizes, K.group_size(self.group))
        return C.reduce_scatter_v_p(input_x, input_split_sizes=sizes, op=self.op, group=self.group)


class _RootedAtWorldRank(_Collective):
    """A collective whose root is the process of a world rank (the attribute `root_arg` names it)."""

    root_arg = None

    def __init__(self, root, group):
        super().__init__(group)
        setattr(self, self.root_arg, check_int(self.name, self.root_arg, root))
        self.rank_id, self.rank_size = _rank(self.group), _group_size(self.group)
        self.attrs.update({self.root_arg: root, "rank_id": self.rank_id, "rank_size": self.rank_size})

    def _root(self):
        return self._member(self.root_arg, getattr(self, self.root_arg), world=True)


class CollectiveGather(_RootedAtWorldRank):
    """The members' `x` concatenated along axis 0, on the process of world rank `dest_rank`; the others get a
    shape-[1] tensor with no meaning.

    Args:
        dest_rank (int): the world rank receiving the result.
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.
    """

    root_arg = "dest_rank"

    def __init__(self, dest_rank, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(dest_rank, group)

    def __call__(self, x):
        self._ready(x)
        if x.ndim == 0:
            raise ValueError(f"For '{self.name}', the input must have at least one dimension, but got a scalar.")
        return C.collective_gather_p(x, dest_rank=self._root(), group=self.group)


class CollectiveScatter(_RootedAtWorldRank):
    """Member i gets the i-th of `group size` equal blocks (along axis 0) of the `x` of world rank `src_rank`.

    Args:
        src_rank (int): the world rank whose tensor is scattered. Default: ``0``.
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.
    """

    root_arg = "src_rank"

    def __init__(self, src_rank=0, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(src_rank, group)

    def __call__(self, x):
        self._ready(x)
        return C.collective_scatter_p(x, src_rank=self._root(), group=self.group)


class Send(_Collective):
    """Send `x` to the member of group rank `dest_rank`, which receives it with a `Receive` of the same `sr_tag`.
    Returns `x`. Its gradient is received back from `dest_rank` (MindSpore's rule).

    Args:
        sr_tag (int): the message's tag.
        dest_rank (int): the receiver's rank in `group`.
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.
        group_back (str): the group of the backward's message. Default: ``GlobalComm.WORLD_COMM_GROUP``.
    """

    def __init__(self, sr_tag, dest_rank, group=GlobalComm.WORLD_COMM_GROUP, group_back=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(group)
        self.sr_tag, self.rank = check_int(self.name, "sr_tag", sr_tag), check_int(self.name, "dest_rank", dest_rank)
        self.group_back = _get_group(group_back)
        self.attrs.update(sr_tag=sr_tag, dest_rank=dest_rank, group_back=self.group_back)

    def __call__(self, x):
        self._ready(x)
        self.add_prim_attr("shape", tuple(x.shape)).add_prim_attr("dtype", x.dtype)
        return C.send_p(x, sr_tag=self.sr_tag, dest_rank=self._member("dest_rank", self.rank), group=self.group)


class Receive(_Collective):
    """Receive the tensor of `shape` and `dtype` that the member of group rank `src_rank` sent with `sr_tag`.
    The optional input is MindSpore's virtual input (its gradient is zero); the received tensor's gradient is
    sent back to `src_rank`.

    Args:
        sr_tag (int): the message's tag.
        src_rank (int): the sender's rank in `group`.
        shape (list[int]): the shape of the tensor received.
        dtype (mindspore.dtype): its dtype.
        group (str), group_back (str): the groups of the message and of the backward's. Default: the world group.
    """

    def __init__(self, sr_tag, src_rank, shape, dtype, group=GlobalComm.WORLD_COMM_GROUP,
                 group_back=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(group)
        self.tag, self.rank = check_int(self.name, "sr_tag", sr_tag), check_int(self.name, "src_rank", src_rank)
        self.shape = _int_list(self.name, "shape", shape)
        self.dtype = dtype
        self._dtype_name = _dtype_arg(self.name, "dtype", dtype)
        self.group_back = _get_group(group_back)
        self.attrs.update(sr_tag=sr_tag, src_rank=src_rank, shape=self.shape, dtype=dtype, group_back=self.group_back)

    def __call__(self, *x):
        self._ready(*x)
        return C.receive_p(*x, sr_tag=self.tag, src_rank=self._member("src_rank", self.rank), shape=self.shape,
                           dtype=self._dtype_name, group=self.group)


class NeighborExchange(_Collective):
    """input_x[k] goes to the member of group rank send_rank_ids[k]; output k is what member recv_rank_ids[k]
    sent (of shape recv_shapes[k] and dtype recv_type).

    Args:
        send_rank_ids (list[int]), recv_rank_ids (list[int]): the peers.
        recv_shapes (tuple[list[int]]), send_shapes (tuple[list[int]]): the shapes received and sent.
        recv_type (mindspore.dtype): the dtype received.
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.
    """

    def __init__(self, send_rank_ids, recv_rank_ids, recv_shapes, send_shapes, recv_type,
                 group=GlobalComm.WORLD_COMM_GROUP):
        # NOTE: MindSpore checks the attributes when the operator is first run or compiled, not here
        Primitive.__init__(self)
        self.group = GlobalComm.WORLD_COMM_GROUP if group is None else _get_group(group)
        self.send_rank_ids, self.recv_rank_ids = send_rank_ids, recv_rank_ids
        self.recv_shapes, self.send_shapes, self.recv_type = recv_shapes, send_shapes, recv_type
        self.attrs.update(send_rank_ids=send_rank_ids, recv_rank_ids=recv_rank_ids, recv_shapes=recv_shapes,
                          send_shapes=send_shapes, recv_type=recv_type, group=self.group, no_eliminate=True)

    def _checked_attrs(self):
        """(send ids, recv ids, recv shapes, send shapes, recv dtype name): MindSpore's checks of the attributes."""
        for arg in ("recv_shapes", "send_shapes"):
            shapes = getattr(self, arg)
            if not isinstance(shapes, tuple) or not all(isinstance(s, list) for s in shapes):
                raise TypeError(f"For '{self.name}', attr '{arg}' must be a tuple(list, list, ...).")
        for arg in ("send_rank_ids", "recv_rank_ids"):
            ids = getattr(self, arg)
            if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
                raise TypeError(f"For '{self.name}', attr '{arg}' must be a list[int, int, ...].")
        for shapes, ids in (("recv_shapes", "recv_rank_ids"), ("send_shapes", "send_rank_ids")):
            if len(getattr(self, shapes)) != len(getattr(self, ids)):
                raise ValueError(f"For '{self.name}', attr '{shapes}' size must be equal to attr '{ids}' size, but "
                                 f"got attr '{shapes}' size: {len(getattr(self, shapes))}, attr '{ids}' size: "
                                 f"{len(getattr(self, ids))}.")
        if not isinstance(self.recv_type, mstype.Type):
            raise TypeError(f"For '{self.name}', attr 'recv_type' must be a mindspore data type, but got: "
                            f"{self.recv_type!r}.")
        _check_group_arg(self.name, self.group)
        shapes = tuple(tuple(_int_list(self.name, "recv_shapes", s)) for s in self.recv_shapes)
        return (tuple(self.send_rank_ids), tuple(self.recv_rank_ids), shapes,
                tuple(tuple(_int_list(self.name, "send_shapes", s)) for s in self.send_shapes),
                _dtype_arg(self.name, "recv_type", self.recv_type))

    def __call__(self, input_x):
        send_ids, recv_ids, recv_shapes, send_shapes, recv_type = self._checked_attrs()
        if isinstance(input_x, Tensor):
            input_x = (input_x,)
        if not isinstance(input_x, (tuple, list)):
            raise TypeError(f"For '{self.name}', the 'input_x' must be a tuple of Tensors, but got "
                            f"{type(input_x).__name__}.")
        if len(input_x) != len(send_shapes):
            raise RuntimeError(f"For '{self.name}', input tuple size must be equal to attr 'send_shapes' size, but got "
                               f"input tuple size: {len(input_x)}, attr 'send_shapes' size: {len(send_shapes)}.")
        for x, want in zip(input_x, send_shapes):
            _check_input(self.name, x)
            if tuple(x.shape) != want:
                raise RuntimeError(f"For '{self.name}', the inputs' shapes must be 'send_shapes' {send_shapes}, "
                                   f"but got {tuple(tuple(t.shape) for t in input_x)}.")
        self._ready(*input_x)
        for r in send_ids + recv_ids:
            self._member("send_rank_ids/recv_rank_ids", r)
        return C.neighbor_exchange_p(*input_x, send_rank_ids=send_ids, recv_rank_ids=recv_ids,
                                     recv_shapes=recv_shapes, recv_type=recv_type, group=self.group)


class NeighborExchangeV2(_Collective):
    """Exchange the edges of an NCHW tensor with the 8 neighbours (top, top right, right, bottom right, bottom,
    bottom left, left, top left; -1: none): the output is the input padded by `recv_lens` (top, bottom, left,
    right) with the edges received.

    Args:
        send_rank_ids (list[int]), recv_rank_ids (list[int]): 8 group ranks each (-1: no neighbour).
        send_lens (list[int]), recv_lens (list[int]): 4 lengths each: top, bottom, left, right.
        data_format (str): ``"NCHW"``.
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.

    Raises:
        TypeError: a rank or length list that is not a list of int, `group` not a str.
        ValueError: a rank below -1 or outside the group, a repeated rank, a negative length, another format.
    """

    def __init__(self, send_rank_ids, send_lens, recv_rank_ids, recv_lens, data_format,
                 group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(group)
        self.send_rank_ids = _int_list(self.name, "send_rank_ids", send_rank_ids, 8)
        self.recv_rank_ids = _int_list(self.name, "recv_rank_ids", recv_rank_ids, 8)
        self.send_lens = _int_list(self.name, "send_lens", send_lens, 4)
        self.recv_lens = _int_list(self.name, "recv_lens", recv_lens, 4)
        self.rank_size = _group_size(self.group)
        for arg, ids in (("send_rank_ids", self.send_rank_ids), ("recv_rank_ids", self.recv_rank_ids)):
            for r in ids:
                if r != -1 and not 0 <= r < self.rank_size:
                    raise ValueError(f"For '{self.name}', the rank_id in {arg} must be in [0, {self.rank_size}) or -1, "
                                     f"but got {r}.")
        for arg, lens in (("send_lens", self.send_lens), ("recv_lens", self.recv_lens)):
            if min(lens) < 0:
                raise ValueError(f"For '{self.name}', the '{arg}' must be non-negative, but got {list(lens)}.")
        if data_format != "NCHW":
            raise ValueError(f"For '{self.name}', the 'data_format' must be 'NCHW', but got {data_format!r}.")
        self.format = self.data_format = data_format
        self.attrs.update(send_rank_ids=send_rank_ids, send_lens=send_lens, recv_rank_ids=recv_rank_ids,
                          recv_lens=recv_lens, format=data_format)

    def __call__(self, x):
        self._ready(x)
        if x.ndim != 4:
            raise ValueError(f"For '{self.name}', the input must be 4-D (NCHW), but got shape {x.shape}.")
        return C.neighbor_exchange_v2_p(x, send_rank_ids=self.send_rank_ids, send_lens=self.send_lens,
                                        recv_rank_ids=self.recv_rank_ids, recv_lens=self.recv_lens,
                                        data_format=self.data_format, group=self.group)


class BatchISendIRecv(_Collective):
    """Start a batch of sends and receives together and wait for them: input k is the tensor of the k-th "isend";
    the outputs follow `op_types` (a float32 zero at an "isend", the received tensor at an "irecv").

    Args:
        op_types (tuple[str]): "isend" / "irecv", in order.
        remote_ranks (tuple[int]): the peer (group rank) of each.
        receive_shapes (tuple[list[int]]), receive_dtypes (tuple[mindspore.dtype]): per "irecv".
        group (str): the communication group. Default: ``GlobalComm.WORLD_COMM_GROUP``.
    """

    def __init__(self, op_types, remote_ranks, receive_shapes=None, receive_dtypes=None,
                 group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(group)
        receive_shapes = () if receive_shapes is None else receive_shapes
        receive_dtypes = () if receive_dtypes is None else receive_dtypes
        for arg, v in (("receive_shapes", receive_shapes), ("receive_dtypes", receive_dtypes),
                       ("op_types", op_types), ("remote_ranks", remote_ranks)):
            if not isinstance(v, (tuple, list)):
                raise TypeError(f"For '{self.name}', the '{arg}' must be a tuple or list, but got "
                                f"{type(v).__name__}.")
        if len(receive_shapes) != len(receive_dtypes):
            raise ValueError(f"length of receive_shapes and receive_shapes must be the same, but got receive_shapes: "
                             f"{len(receive_shapes)}  and receive_shapes: {receive_dtypes}")
        if len(op_types) != len(remote_ranks):
            raise ValueError("length of op_types and remote_ranks must be the same.")
        if any(t not in ("isend", "irecv") for t in op_types):
            raise ValueError(f"For '{self.name}', the 'op_types' must hold 'isend' or 'irecv', but got {op_types}.")
        if sum(t == "irecv" for t in op_types) != len(receive_shapes):
            raise ValueError(f"For '{self.name}', there must be one receive shape per 'irecv' of 'op_types'.")
        self.op_types, self.remote_ranks = tuple(op_types), _int_list(self.name, "remote_ranks", remote_ranks)
        self.receive_shapes = tuple(_int_list(self.name, "receive_shapes", s) for s in receive_shapes)
        self.receive_dtypes = tuple(receive_dtypes)
        self._dtype_names = tuple(_dtype_arg(self.name, "receive_dtypes", d) for d in receive_dtypes)
        self.attrs.update(op_types=op_types, remote_ranks=remote_ranks, receive_shapes=receive_shapes,
                          receive_dtypes=receive_dtypes)

    def __call__(self, input_x=()):
        if isinstance(input_x, Tensor):
            input_x = (input_x,)
        xs = tuple(x for x in input_x if x is not None)
        self._ready(*xs)
        for r in self.remote_ranks:
            self._member("remote_ranks", r)
        return C.batch_isend_irecv_p(*xs, op_types=self.op_types, remote_ranks=self.remote_ranks,
                                     receive_shapes=self.receive_shapes, receive_dtypes=self._dtype_names,
                                     group=self.group)


class Reshard(Primitive):
    """Give a tensor the layout `in_layout` (mindspore.parallel.Layout objects) for the parallel partitioner; the
    value is the input's. Prefer `mindspore.reshard`.

    Args:
        in_layout (tuple[Layout]), out_layout (tuple[Layout]): the layout (the same value twice).
        in_strategy (tuple): the strategy derived from the layout.
    """

    def __init__(self, in_layout, out_layout, in_strategy):
        super().__init__("Reshard")
        self.shard(in_layout, out_layout)
        self.in_strategy_derived = in_strategy
        self.add_prim_attr("in_layout", in_layout).add_prim_attr("out_layout", out_layout)

    def __call__(self, tensor):
        _check_input(self.name, tensor, "tensor")
        return C.reshard_p(tensor)

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import PrimitiveWithCheck, PrimitiveWithInfer  # noqa: E402,F401
