"""MindSpore's `mindspore.common.file_system`: where checkpoints are written and read. The basic backend is the
local file system (`open`); MindIO, Huawei's in-memory checkpoint store, is used when its Python package
(`mindio_acp` or `mindio`) is installed and initialises. `mindio_preload` and `set_mindio_server_info` are also
MindSpore's top-level names; model code (mindformers) imports them from here."""

__all__ = ["FileSystem", "set_mindio_server_info", "mindio_preload"]


class FileSystem:
    """The file operations checkpoints use: the local file system's unless MindIO was registered."""

    def __init__(self):
        self.create, self.create_args = open, ("ab",)
        self.open, self.open_args = open, ("rb",)
        self.backend = "basic"


mindio_server_info = {"memfs.data_block_pool_capacity_in_gb": "100"}


def set_mindio_server_info(data_block_pool_capacity_in_gb=100):
    """The memory pool (GB) MindIO's server is started with by `mindio_preload`.

    Raises:
        TypeError / ValueError: not a positive int.
    """
    v = data_block_pool_capacity_in_gb
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"For 'set_mindio_server_info', the 'data_block_pool_capacity_in_gb' must be int, but got "
                        f"{type(v).__name__}.")
    if v <= 0:
        raise ValueError(f"For 'set_mindio_server_info', the 'data_block_pool_capacity_in_gb' must be positive int, "
                         f"but got {v}.")
    mindio_server_info["memfs.data_block_pool_capacity_in_gb"] = str(v)


def _init_mindio():
    try:
        import mindio_acp as mindio  # noqa: PLC0415 -- optional: MindIO's checkpoint accelerator
        return mindio if mindio.initialize(server_info=mindio_server_info) == 0 else None
    except ImportError:
        pass
    try:
        import mindio  # noqa: PLC0415
        return mindio if mindio.initialize() == 0 else None
    except ImportError:
        return None


def _register_basic_file_system(fs):
    """Make `fs` use the local file system (`open`, appending when creating); True."""
    fs.create, fs.create_args = open, ("ab",)
    fs.open, fs.open_args = open, ("rb",)
    return True


def _register_mindio_file_system(fs):
    """Make `fs` use MindIO's files when MindIO is installed and starts (True); False otherwise, `fs` unchanged."""
    mindio = _init_mindio()
    if mindio is None:
        return False
    fs.create, fs.create_args = mindio.create_file, ()
    fs.open, fs.open_args = mindio.open_file, ()
    fs.backend = "mindio"
    return True


def mindio_preload(ckpt_file_name):
    """Preload a checkpoint into MindIO's memory cache; False when MindIO (mindio_acp / mindio) is not installed or
    did not start, as in MindSpore.

    Raises:
        TypeError: `ckpt_file_name` not a str.
    """
    if not isinstance(ckpt_file_name, str):
        raise TypeError(f"For 'mindio_preload', the 'ckpt_file_name' must be str, but got "
                        f"{type(ckpt_file_name).__name__}.")
    mindio = _init_mindio()
    if mindio is None or not hasattr(mindio, "preload"):
        return False
    mindio.preload(ckpt_file_name)
    return True
