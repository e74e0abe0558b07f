"""Runtime executor settings added in MindSpore 2.6+: kernel-launch graph capture and grouped kernel launch.

Like the settings in `mindseed.runtime` they are validated as MindSpore validates them, may be set once, and are
recorded (`get_runtime_config()`); kernels here are launched inline, one call at a time.
"""
import mindseed.runtime as _rt

__all__ = ["set_kernel_launch_capture", "set_kernel_launch_group"]


def set_kernel_launch_capture(enable_capture_graph, op_capture_skip=None):
    """Capture launched kernels as a graph for incremental inference (recorded).

    Raises:
        TypeError: `enable_capture_graph` not a bool, or `op_capture_skip` not a list of str.
        RuntimeError: the kernel launch group was set.
    """
    if not isinstance(enable_capture_graph, bool):
        raise TypeError(f"For 'set_kernel_launch_capture', the argument 'enable_capture_graph' must be bool, but got "
                        f"{type(enable_capture_graph)}.")
    if "set_kernel_launch_group" in _rt._config:
        raise RuntimeError("The kernel launch group and kernel launch capture can not be set together")
    skip = [] if op_capture_skip is None else op_capture_skip
    if not isinstance(skip, (list, tuple)) or not all(isinstance(s, str) for s in skip):
        raise TypeError(f"For 'set_kernel_launch_capture', the argument 'op_capture_skip' must be a list of str, but "
                        f"got {op_capture_skip!r}.")
    _rt._config["set_kernel_launch_capture"] = {"enable_capture_graph": enable_capture_graph,
                                                "op_capture_skip": [s.lower() for s in skip]}


def set_kernel_launch_group(thread_num=2, kernel_group_num=8):
    """Launch kernels in `kernel_group_num` groups over `thread_num` threads (recorded, once).

    Raises:
        TypeError: an argument that is not an int.
        ValueError: `thread_num` < 1, or `kernel_group_num` not a multiple of `thread_num`.
        RuntimeError: called a second time, or kernel launch capture is on.
    """
    for name, value in (("thread_num", thread_num), ("kernel_group_num", kernel_group_num)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"For 'set_kernel_launch_group', the argument '{name}' must be int, but got "
                            f"{type(value)}.")
    if "set_kernel_launch_group" in _rt._config:
        raise RuntimeError("The 'kernel_launch_group' can not be set repeatedly.")
    if _rt._config.get("set_kernel_launch_capture", {}).get("enable_capture_graph"):
        raise RuntimeError("The kernel launch group and kernel launch capture can not be set together")
    if thread_num < 1:
        raise ValueError(f"For 'set_kernel_launch_group', the argument 'thread_num' must be >= 1, but got "
                         f"{thread_num}.")
    if kernel_group_num < 1 or kernel_group_num % thread_num:
        raise ValueError(f"For 'set_kernel_launch_group', the argument 'kernel_group_num' must be a positive "
                         f"multiple of 'thread_num' ({thread_num}), but got {kernel_group_num}.")
    _rt._config["set_kernel_launch_group"] = {"thread_num": thread_num, "kernel_group_num": kernel_group_num}
