"""Custom optimization passes: MindSpore loads them from C++ plugin libraries built against its own graph IR."""
import enum

from mindseed import log as logger

__all__ = ["CustomPassType", "register_custom_pass"]


class CustomPassType(enum.Enum):
    """Kinds of custom pass: ``PATTERN`` rewrites matched node patterns (backend optimization), ``FULL_GRAPH``
    rewrites from the information of the whole graph (frontend optimization)."""
    PATTERN = 0
    FULL_GRAPH = 1

    def __str__(self):
        return f"CustomPassType.{self.name}"


def register_custom_pass(pass_name: str, plugin_so_path: str, device: str = "all",
                         pass_type: CustomPassType = CustomPassType.PATTERN) -> bool:
    """Register the pass `pass_name` of the plugin library `plugin_so_path` for `device`.

    A MindSpore pass plugin is C++ compiled against MindSpore's graph IR, which mindseed's compiler (Python IR
    transformed by Python passes) does not have: no plugin loads here, and the registration reports failure (False)
    after checking its arguments as MindSpore does.

    Returns:
        bool, whether the pass was registered.

    Raises:
        TypeError: `pass_type` is not a CustomPassType.

    >>> from mindseed import graph
    >>> graph.register_custom_pass("my_fusion_pass", "/path/to/my_plugin.so")
    False
    """
    if not isinstance(pass_type, CustomPassType):
        raise TypeError(f"pass_type must be of type CustomPassType, got {type(pass_type).__name__}")
    logger.error(f"Failed to load custom pass plugin from: {plugin_so_path} for device: {device} (mindseed's "
                 f"compiler takes no MindSpore C++ pass plugins: pass '{pass_name}' is not registered).")
    return False
