"""MindSpore's `mindspore.parallel._auto_parallel_context`: `auto_parallel_context()`, the object behind
`set_auto_parallel_context` / `get_auto_parallel_context`, whose `get_<name>()` / `set_<name>(value)` methods read
and write one setting (model code such as mindformers calls them directly)."""
from mindseed.common._parallel import (_FUSION_SWITCHES, get_auto_parallel_context, get_fusion_switch,
                                       set_auto_parallel_context, set_fusion_switch)

__all__ = ["auto_parallel_context"]

# MindSpore's method names that differ from the context keys
_KEYS = {"strategy_search_mode": "search_mode", "auto_parallel_search_mode": "search_mode"}


class _AutoParallelContext:
    """`get_<name>()` is `get_auto_parallel_context(name)`, `set_<name>(v)` is `set_auto_parallel_context(name=v)`."""

    def __getattr__(self, attr):
        verb, _, name = attr.partition("_")
        key = _KEYS.get(name, name)
        if key in _FUSION_SWITCHES.values():  # switches of the context object only, not context keys
            if verb == "get":
                return lambda: get_fusion_switch(key)
            if verb == "set":
                return lambda *args, **kwargs: set_fusion_switch(key, _one_value(attr, args, kwargs))
        if verb == "get" and name:
            return lambda: get_auto_parallel_context(key)
        if verb == "set" and name:
            return lambda *args, **kwargs: set_auto_parallel_context(**{key: _one_value(attr, args, kwargs)})
        raise AttributeError(f"'auto_parallel_context' has no attribute '{attr}'")


def _one_value(attr, args, kwargs):
    """The single argument of a `set_<name>` call, given by position or by its keyword."""
    values = list(args) + list(kwargs.values())
    if len(values) != 1:
        raise TypeError(f"auto_parallel_context().{attr}() takes exactly one argument ({len(values)} given)")
    return values[0]


_CONTEXT = _AutoParallelContext()


def auto_parallel_context():
    """The auto-parallel context of this process."""
    return _CONTEXT
