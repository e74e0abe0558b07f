"""MindSpore's `mindspore.common.file_system`: where checkpoints are written and read. The basic backend is the
local file system (`open`); MindIO, Huawei's in-memory checkpoint store, is used when its Python package
(`mindio_acp` or `mindio`) is installed and initialises. Model code (mindformers) preloads checkpoints through
`mindio_preload` and sizes MindIO's pool with `set_mindio_server_info`."""
import importlib
import logging

from mindseed._checkparam import check_positive_int

__all__ = ["FileSystem", "set_mindio_server_info", "mindio_preload"]

logger = logging.getLogger("mindseed")
mindio_server_info = {"memfs.data_block_pool_capacity_in_gb": "100"}


class FileSystem:
    """The file operations checkpoints use: the local file system's unless MindIO was registered."""

    def __init__(self):
        self.create, self.create_args = open, ("ab",)
        self.open, self.open_args = open, ("rb",)
        self.backend = "basic"


def _init_mindio():
    """The initialised MindIO module, or None when neither `mindio_acp` nor `mindio` is installed or starts."""
    for name, kwargs in (("mindio_acp", {"server_info": mindio_server_info}), ("mindio", {})):
        try:
            mindio = importlib.import_module(name)
        except ImportError:
            continue
        ret = mindio.initialize(**kwargs)
        if ret == 0:
            return mindio
        logger.warning("Failed to initialize %s: ret = %s", name, ret)
    return None


def set_mindio_server_info(data_block_pool_capacity_in_gb=100):
    """Set the capacity (GB, a positive int) of MindIO's data-block memory pool."""
    check_positive_int(data_block_pool_capacity_in_gb, "data_block_pool_capacity_in_gb")
    mindio_server_info["memfs.data_block_pool_capacity_in_gb"] = str(data_block_pool_capacity_in_gb)


def mindio_preload(ckpt_file_name):
    """Preload a checkpoint into MindIO's memory; False when MindIO is absent or cannot preload.

    Raises:
        TypeError: `ckpt_file_name` is not a str.
    """
    if not isinstance(ckpt_file_name, str):
        raise TypeError(f"For 'mindio_preload', the type of 'ckpt_file_name' should be 'str', but got "
                        f"'{type(ckpt_file_name).__name__}'.")
    mindio = _init_mindio()
    if mindio is None or not hasattr(mindio, "preload"):
        return False
    mindio.preload(ckpt_file_name)
    return True
