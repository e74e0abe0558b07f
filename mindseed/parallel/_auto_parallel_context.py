"""MindSpore's `mindspore.parallel._auto_parallel_context`: `auto_parallel_context()`, the object behind
`set_auto_parallel_context` / `get_auto_parallel_context`, whose `get_<name>()` / `set_<name>(value)` methods read
and write one setting (model code such as mindformers calls them directly)."""
from mindseed.common._parallel import get_auto_parallel_context, set_auto_parallel_context

__all__ = ["auto_parallel_context"]

# MindSpore's method names that differ from the context keys
_KEYS = {"strategy_search_mode": "search_mode", "auto_parallel_search_mode": "search_mode"}


class _AutoParallelContext:
    """`get_<name>()` is `get_auto_parallel_context(name)`, `set_<name>(v)` is `set_auto_parallel_context(name=v)`."""

    def __getattr__(self, attr):
        verb, _, name = attr.partition("_")
        key = _KEYS.get(name, name)
        if verb == "get" and name:
            return lambda: get_auto_parallel_context(key)
        if verb == "set" and name:
            return lambda value: set_auto_parallel_context(**{key: value})
        raise AttributeError(f"'auto_parallel_context' has no attribute '{attr}'")


_CONTEXT = _AutoParallelContext()


def auto_parallel_context():
    """The auto-parallel context of this process."""
    return _CONTEXT
