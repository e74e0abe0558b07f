"""mindspore.dataset.debug: hooks that the pipeline's debug mode (`ds.config.set_debug_mode(True)`) runs before and
after every transform of a `map`, or that a user places in a map's operation list by hand."""
from mindseed.dataset.debug.debug_hook import DebugHook
from mindseed.dataset.debug.pre_defined_hook import PrintDataHook, PrintMetaDataHook

__all__ = ["DebugHook", "PrintMetaDataHook", "PrintDataHook"]
