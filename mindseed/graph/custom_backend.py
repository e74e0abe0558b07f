"""Custom compilation backends: MindSpore loads them from C++ plugin libraries."""
import os

from mindseed import log as logger

__all__ = ["register_custom_backend"]


def register_custom_backend(backend_name: str, backend_path: str) -> bool:
    """Register the backend `backend_name` of the plugin library `backend_path` (an absolute path to a .so).

    A MindSpore backend plugin is C++ compiled against MindSpore's runtime, which mindseed (kernels from torch, graphs
    generated as Python) does not have: no plugin loads here, and the registration reports failure (False) after
    checking the path as MindSpore does.

    Returns:
        bool, whether the backend was registered.

    Raises:
        ValueError: a name or path is missing, the path is not absolute, not a readable file, or not a .so.
    """
    if backend_name is None or backend_path is None:
        raise ValueError("Both backend_name and backend_path must be provided.")
    if not os.path.isabs(backend_path):
        raise ValueError(f"The backend_path must be an absolute path, got: {backend_path}")
    backend_path = os.path.realpath(backend_path)
    if not os.path.isfile(backend_path) or not os.access(backend_path, os.R_OK):
        raise ValueError(f"The file {backend_path} does not exist or permission denied!")
    if not backend_path.endswith(".so"):
        raise ValueError(f"The file {backend_path} is not a shared library!")
    logger.error(f"Failed to register custom backend '{backend_name}' from {backend_path}: mindseed takes no "
                 f"MindSpore C++ backend plugins.")
    return False
