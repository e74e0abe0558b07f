"""Communication management: joining the world of processes, ranks, and user groups (MindSpore's API).

`init()` reads the launcher's environment as MindSpore does:

* msrun: MS_WORKER_NUM (world size), MS_NODE_ID (rank; assigned in arrival order when unset),
  MS_SCHED_HOST / MS_SCHED_PORT (rendezvous), MS_ROLE (MS_SCHED: this process only hosts the rendezvous
  and exits when the workers have released), MS_TOPO_TIMEOUT (seconds);
* every launcher: HCCL_EXEC_TIMEOUT (seconds; default MS_TOPO_TIMEOUT, else 600), how long a collective or a
  point-to-point transfer waits for its peers before it fails with a RuntimeError naming the operator (a dead or
  stuck peer never hangs the others);
* mpirun: OMPI_COMM_WORLD_SIZE / OMPI_COMM_WORLD_RANK;
* by hand: RANK_SIZE / RANK_ID, with MASTER_ADDR / MASTER_PORT as the rendezvous (default 127.0.0.1:8118).

Without a scheduler process the rank-0 worker hosts the rendezvous. With no launcher environment at all,
`init()` makes a world of one process (rank 0, size 1) — unlike MindSpore, which needs msrun for `init()`
on CPU — so single-process code that calls `init()` runs unchanged.
"""
import atexit
import os
import sys
import warnings

from mindseed._backend.kernels import comm as K
from mindseed.common._parallel import (HCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP,
                                       GlobalComm, _get_group)
from mindseed.common.context import get_context, set_device
from mindseed.ops.operations.comm_ops import _group_size, _rank

__all__ = ["init", "release", "get_rank", "get_local_rank", "get_group_size", "get_local_rank_size",
           "get_world_rank_from_group_rank", "get_comm_name", "get_group_rank_from_world_rank", "create_group",
           "destroy_group", "get_process_group_ranks", "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP",
           "MCCL_WORLD_COMM_GROUP", "GlobalComm"]

DEFAULT_WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
_DEVICE_TO_BACKEND = {"Ascend": "hccl", "GPU": "nccl", "CPU": "mccl"}
_WORLD_OF = {"mccl": MCCL_WORLD_COMM_GROUP, "nccl": NCCL_WORLD_COMM_GROUP}
_DEFAULT_PORT = 8118      # msrun's default scheduler port
_DEFAULT_TIMEOUT = 600    # seconds to wait for the other processes
_NOT_INITED = ("Distributed Communication has not been inited.You can't invoke this interface yet. Please call "
               "`init()` method first.")
_user_groups = {}         # name -> rank_ids as given to create_group


def _int_env(*names):
    for name in names:
        value = os.getenv(name)
        if value not in (None, ""):
            try:
                return int(value)
            except ValueError:
                raise RuntimeError(f"For 'init', the environment variable {name} must be an integer, but got "
                                   f"{value!r}.") from None
    return None


def _launch_env():
    """(rank, size, host, port, timeout, role) from the launcher's environment variables."""
    size = _int_env("MS_WORKER_NUM", "OMPI_COMM_WORLD_SIZE", "RANK_SIZE")
    role = os.getenv("MS_ROLE")
    rank = _int_env("MS_NODE_ID", "OMPI_COMM_WORLD_RANK", "RANK_ID")
    timeout = _int_env("MS_TOPO_TIMEOUT") or _DEFAULT_TIMEOUT
    if timeout <= 0:
        raise RuntimeError(f"For 'init', the environment variable MS_TOPO_TIMEOUT must be positive, but got {timeout}.")
    if size is None:
        if role is not None:
            raise RuntimeError("For 'init', MS_ROLE is set but MS_WORKER_NUM is not: export the number of workers.")
        return 0, 1, None, None, timeout, None
    if size < 1:
        raise RuntimeError(f"For 'init', the number of processes must be positive, but got {size}.")
    if rank is None and role != "MS_WORKER" and role != "MS_SCHED":
        raise RuntimeError("For 'init', the rank of this process is unknown: export MS_NODE_ID (msrun), RANK_ID or "
                           "OMPI_COMM_WORLD_RANK.")
    if rank is not None and not 0 <= rank < size and role != "MS_SCHED":
        raise RuntimeError(f"For 'init', the rank {rank} of this process must be in [0, {size}).")
    host = os.getenv("MS_SCHED_HOST") or os.getenv("MASTER_ADDR") or "127.0.0.1"
    port = _int_env("MS_SCHED_PORT", "MASTER_PORT") or _DEFAULT_PORT
    return rank, size, host, port, timeout, role


def init(backend_name=None):
    """Join the world of processes started by the launcher (a world of one without launcher environment).

    Args:
        backend_name (str, optional): ``"mccl"`` (CPU: torch.distributed's gloo) or ``"nccl"`` (GPU).
            Default: ``None``, chosen from the device target.

    Raises:
        TypeError: `backend_name` is not a str.
        RuntimeError: a backend the device target cannot use, bad launcher environment variables, or the other
            processes did not join in time.

    >>> from mindseed.communication import init, get_rank, get_group_size
    >>> init()
    >>> get_rank(), get_group_size()
    (0, 1)
    """
    device_target = get_context("device_target")
    if backend_name is None:
        backend_name = _DEVICE_TO_BACKEND[device_target]
    if not isinstance(backend_name, str):
        raise TypeError(f"For 'init', the argument 'backend_name' must be a string, but got the type : "
                        f"{type(backend_name)}")
    if backend_name in ("hccl", "nccl") and _DEVICE_TO_BACKEND[device_target] != backend_name:
        raise RuntimeError(f"For 'init', the argument 'backend_name' should be '{_DEVICE_TO_BACKEND[device_target]}' "
                           f"to init '{device_target}', but got '{backend_name}'.")
    if backend_name not in _WORLD_OF:
        raise RuntimeError(f"For 'init', the argument 'backend_name' must be one of 'hccl', 'nccl' and 'mccl', but "
                           f"got 'backend_name' : {backend_name}")
    rank, size, host, port, timeout, role = _launch_env()
    if role == "MS_SCHED":
        # msrun's scheduler: host the rendezvous, then end as MindSpore's scheduler does when the job is over
        if not K.serve_rendezvous(host, port, size, timeout):
            sys.exit(f"For 'init', fewer than {size} workers joined the scheduler within {timeout} s "
                     f"(MS_TOPO_TIMEOUT).")
        sys.exit(0)
    if K.is_initialized():
        return
    exec_timeout = _int_env("HCCL_EXEC_TIMEOUT")
    if exec_timeout is not None and exec_timeout <= 0:
        raise RuntimeError(f"For 'init', the environment variable HCCL_EXEC_TIMEOUT must be a positive number of "
                           f"seconds, but got {exec_timeout}.")
    try:
        K.init(backend_name, rank, size, host, port, timeout, host_store=role is None and rank == 0,
               served=role == "MS_WORKER", exec_timeout_s=exec_timeout)
    except Exception as exc:  # noqa: BLE001 -- torch's rendezvous errors, told in the user's terms
        raise RuntimeError(f"For 'init', joining the {size} process(es) at {host}:{port} as rank {rank} failed: "
                           f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    GlobalComm.BACKEND = backend_name
    GlobalComm.WORLD_COMM_GROUP = _WORLD_OF[backend_name]
    GlobalComm.INITED = True
    if backend_name == "nccl":
        set_device("GPU", K.local_rank())
    atexit.register(release)


def release():
    """Leave the world of processes and free its groups (a no-op when not initialized)."""
    K.release()
    _user_groups.clear()
    GlobalComm.INITED = False


def _need_str(caller, group, arg="group"):
    if not isinstance(group, str):
        raise TypeError(f"For '{caller}', the argument '{arg}' must be type of string, but got '{arg}' type : "
                        f"{type(group)}.")


def _need_inited():
    if not K.is_initialized():
        raise RuntimeError(_NOT_INITED)


def get_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank in `group` (before `init`: the RANK_ID environment variable, 0 when unset).

    Raises:
        TypeError: `group` is not a str.
        ValueError: `group` does not exist.
    """
    _need_str("get_rank", group)
    return _rank(group, "get_rank")


def get_group_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of processes in `group` (before `init`: the RANK_SIZE environment variable, 1 when unset).

    Raises:
        TypeError: `group` is not a str.
        ValueError: `group` does not exist.
    """
    _need_str("get_group_size", group)
    return _group_size(group, "get_group_size")


def get_local_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank among the members of `group` on its host (before `init`: LOCAL_RANK, 0 when unset).

    Raises:
        TypeError: `group` is not a str.
    """
    return _local_placement(group, "get_local_rank", "LOCAL_RANK", "0", 0)


def get_local_rank_size(group=GlobalComm.WORLD_COMM_GROUP):
    """How many members of `group` run on this host (before `init`: LOCAL_RANK_SIZE, 1 when unset).

    Raises:
        TypeError: `group` is not a str.
    """
    return _local_placement(group, "get_local_rank_size", "LOCAL_RANK_SIZE", "1", 1)


def _local_placement(group, caller, env, unset, index):
    """Item `index` of (rank on this host, members on this host) of `group`; before `init`, the variable `env`."""
    _need_str(caller, group)
    if not K.is_initialized():
        return int(os.getenv(env, unset))
    return K.local_placement(_existing(group, caller))[index]


def _existing(group, caller):
    group = _get_group(group)
    if not K.has_group(group):
        raise ValueError(f"For '{caller}', the communication group '{group}' does not exist: create it with "
                         f"create_group first.")
    return group


def _user_group(group, caller):
    group = _existing(group, caller)
    if group in K.WORLD_GROUPS:
        raise ValueError(f"For '{caller}', the argument 'group' should be a group made by create_group, not the world "
                         f"group '{group}'.")
    return group


def get_world_rank_from_group_rank(group, group_rank_id):
    """The world rank of the member whose rank in the user group `group` is `group_rank_id`.

    Raises:
        TypeError: `group` is not a str or `group_rank_id` not an int.
        ValueError: `group` is the world group or does not exist, or `group_rank_id` is out of range.
        RuntimeError: called before `init`.
    """
    _need_str("get_world_rank_from_group_rank", group)
    _need_inited()
    if not isinstance(group_rank_id, int):
        raise TypeError(f"For 'get_world_rank_from_group_rank', the argument 'group_rank_id' must be type of int, "
                        f"but got 'group_rank_id' type : {type(group_rank_id)}.")
    ranks = K.group_ranks(_user_group(group, "get_world_rank_from_group_rank"))
    if not 0 <= group_rank_id < len(ranks):
        raise ValueError(f"For 'get_world_rank_from_group_rank', the 'group_rank_id' must be in [0, {len(ranks)}), "
                         f"but got {group_rank_id}.")
    return ranks[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id, group):
    """The rank in the user group `group` of the process whose world rank is `world_rank_id`.

    Raises:
        TypeError: `world_rank_id` is not an int or `group` not a str.
        ValueError: `group` is the world group or does not exist, or `world_rank_id` is not one of its members.
        RuntimeError: called before `init`.
    """
    _need_str("get_group_rank_from_world_rank", group)
    _need_inited()
    if not isinstance(world_rank_id, int):
        raise TypeError(f"For 'get_group_rank_from_world_rank', the argument 'world_rank_id' must be type of int, "
                        f"but got 'world_rank_id' type : {type(world_rank_id)}.")
    ranks = K.group_ranks(_user_group(group, "get_group_rank_from_world_rank"))
    if world_rank_id not in ranks:
        raise ValueError(f"For 'get_group_rank_from_world_rank', the world rank {world_rank_id} is not a member of "
                         f"group '{group}' (members {ranks}).")
    return ranks.index(world_rank_id)


def create_group(group, rank_ids, options=None):
    """Create the user group `group` of the processes with world ranks `rank_ids`; called by its members only.

    Args:
        group (str): the group's name.
        rank_ids (list[int]): world ranks of the members (group ranks follow their sorted order).
        options: MindSpore's GroupOptions (HCCL settings); accepted and ignored.

    Raises:
        TypeError: `group` is not a str or `rank_ids` not a list.
        ValueError: `rank_ids` is empty, has duplicates or ranks outside the world, does not contain this
            process's rank, or `group` exists with other ranks.
        RuntimeError: called before `init`.
    """
    _need_str("create_group", group)
    _need_inited()
    if group in _user_groups:
        if rank_ids != _user_groups[group]:
            raise ValueError(f"The group {group} has been created, the rank_list is {_user_groups[group]}, but current "
                             f"rank_list for the group is {rank_ids}")
        warnings.warn(f"{group!r} group has existed.", stacklevel=2)
        return
    if not isinstance(rank_ids, list):
        raise TypeError(f"For 'create_group', the argument 'rank_ids' must be type of list, but got 'rank_ids' type : "
                        f"{type(rank_ids)}.")
    if len(rank_ids) < 1:
        raise ValueError(f"For 'create_group', the argument 'rank_ids' size should be greater than 1, but got "
                         f"'rank_ids' size : {len(rank_ids)}.")
    if len(set(rank_ids)) != len(rank_ids):
        raise ValueError(f"List rank_ids in Group {group} has duplicate data!")
    size = K.world_size()
    if any(isinstance(r, bool) or not isinstance(r, int) or not 0 <= r < size for r in rank_ids):
        raise ValueError(f"For 'create_group', the elements of 'rank_ids' must be world ranks in [0, {size}), but got "
                         f"{rank_ids}.")
    if K.world_rank() not in rank_ids:
        raise ValueError(f"For 'create_group', this process (rank {K.world_rank()}) is not in 'rank_ids' {rank_ids}: "
                         f"only the members of a group create it.")
    if group in K.WORLD_GROUPS:
        raise ValueError(f"For 'create_group', the name '{group}' is the world group's.")
    K.new_group(group, rank_ids)
    _user_groups[group] = list(rank_ids)


def destroy_group(group):
    """Destroy the user group `group`.

    Raises:
        TypeError: `group` is not a str.
        ValueError: `group` is the world group or does not exist.
        RuntimeError: called before `init`.
    """
    _need_str("destroy_group", group)
    _need_inited()
    if _get_group(group) in K.WORLD_GROUPS:
        raise ValueError("The world_group does not support destruction.")
    K.destroy_group(_existing(group, "destroy_group"))
    _user_groups.pop(group, None)


def get_comm_name(group=GlobalComm.WORLD_COMM_GROUP):
    """The name of the communicator behind `group` (torch.distributed's process-group name).

    Raises:
        TypeError: `group` is not a str.
        RuntimeError: called before `init`.
    """
    _need_str("get_comm_name", group)
    _need_inited()
    return K.comm_name(_existing(group, "get_comm_name"))


def get_process_group_ranks(group=GlobalComm.WORLD_COMM_GROUP):
    """The world ranks of the members of `group`, in group-rank order.

    Raises:
        TypeError: `group` is not a str.
        RuntimeError: called before `init`.
    """
    _need_str("get_process_group_ranks", group, "group")
    _need_inited()
    return K.group_ranks(_existing(group, "get_process_group_ranks"))
