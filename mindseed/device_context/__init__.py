"""mindspore.device_context: per-backend device queries and operator settings (`cpu`, `gpu`, `ascend`).

Each setting may be given once per process (the same value again is accepted), as in MindSpore. A setting of a
backend that is not the current `device_target` is ignored with an error log on its first call, as MindSpore
does; later calls are validated and recorded (`_conf.SETTINGS`). Where mindseed's kernels have the switch it
takes effect: `cpu.op_tuning.threads_num` sets the kernel threads, `gpu.op_precision.*_allow_tf32` torch's TF32
switches. Ascend is never available to mindseed: its settings are validated and recorded only.
"""
from mindseed.device_context import ascend, cpu, gpu

__all__ = ["ascend", "cpu", "gpu"]
