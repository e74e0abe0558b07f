"""mindspore.device_context.cpu: the CPU backend's device queries and kernel threads."""
from mindseed.device_context.cpu.device import device_count, is_available
from mindseed.device_context.cpu.op_tuning import threads_num

__all__ = ["device_count", "is_available", "threads_num"]
