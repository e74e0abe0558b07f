"""MindSpore's `mindspore.parallel.strategy`: the sharding of a compiled network's parameters, per rank
(`get_strategy_metadata`, `get_current_strategy_metadata`), recorded while a network compiles once
`enable_save_strategy_online()` has been called, and `clear_strategy_metadata()`.

MindSpore returns None for a network it recorded no layout for — one that ran stand-alone or was compiled before
recording was enabled. mindseed does not record layouts online (its sharded networks describe their parameters in
strategy files, `mindseed.parallel._strategy_file`), so both queries return None, as MindSpore does for a network
it has no record of; the checkpoint code that calls them (mindformers) then saves the parameters whole.
"""
__all__ = ["get_strategy_metadata", "get_current_strategy_metadata", "enable_save_strategy_online",
           "clear_strategy_metadata"]

_state = {"online": False}


def _check_network(api, network):
    from mindseed.nn.cell import Cell  # noqa: PLC0415 (nn sits above parallel)
    if not isinstance(network, Cell):
        raise TypeError(f"For '{api}', the argument 'network' must be a Cell, but got {type(network).__name__}.")


def get_strategy_metadata(network, rank_id=None):
    """{rank: {parameter name: [Layout, dtype, shape]}} of `network` (the one rank `rank_id`), or None when no
    layout was recorded for it (see the module docstring)."""
    _check_network("get_strategy_metadata", network)
    if rank_id is not None and (isinstance(rank_id, bool) or not isinstance(rank_id, int)):
        raise TypeError(f"For 'get_strategy_metadata', 'rank_id' must be an int or None, but got "
                        f"{type(rank_id).__name__}.")
    return None


def get_current_strategy_metadata(network):
    """{0: {parameter name: [Layout, dtype, shape]}} of this rank, or None when no layout was recorded."""
    _check_network("get_current_strategy_metadata", network)
    return None


def enable_save_strategy_online():
    """Record the parameters' layouts of the networks compiled from now on."""
    _state["online"] = True


def clear_strategy_metadata():
    """Forget the recorded layouts."""
    _state["online"] = False
