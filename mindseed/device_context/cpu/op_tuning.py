"""CPU operator tuning: the number of kernel threads."""
from mindseed import _backend as B
from mindseed._checkparam import args_type_check
from mindseed.device_context import _conf


@args_type_check(num=int)
def threads_num(num):
    """Set the number of threads the CPU kernels use (once per process).

    Raises:
        TypeError: `num` is not an int.
        ValueError: `num` is not positive.
        RuntimeError: set a second time.
    """
    if ("CPU", "threads_num") in _conf.SETTINGS:
        raise RuntimeError("The 'threads_num' can not be set repeatedly.")
    if num <= 0:
        raise ValueError(f"The 'num' must be int and must > 0, but got '{num}' with type 'int'.")
    _conf.set_once("CPU", "threads_num", num)
    B.set_num_threads(num)
