"""MindSpore's `mindspore.communication._comm_helper` queries that model code (mindformers' parallel state and
checkpoint broadcast) imports: whether communication is initialized, the map of the groups made so far and the
removal of a group's record."""
from mindseed._backend.kernels import comm as K
from mindseed.common._parallel import GlobalComm
from mindseed.communication import management as _management

__all__ = ["_is_initialized", "_get_group_map", "_remove_group_info"]


def _is_initialized():
    """Whether `init()` has joined this process to a world of processes."""
    return K.is_initialized()


def _get_group_map():
    """{group name: world ranks of its members} of the world group and the groups `create_group` made ({} before
    `init`)."""
    if not K.is_initialized():
        return {}
    groups = {GlobalComm.WORLD_COMM_GROUP: list(range(K.world_size()))}
    groups.update({name: list(ranks) for name, ranks in _management._user_groups.items()})
    return groups


def _remove_group_info(group_name):
    """Forget the record of the user group `group_name` (after it was destroyed out of band)."""
    _management._user_groups.pop(group_name, None)
