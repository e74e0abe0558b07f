"""Device queries for `mindspore.hal` / `mindspore.runtime`: count, name, capability, properties of CPU and GPU."""

import torch

from mindseed._backend import _core as B


def _target(target):
    return "GPU" if target in ("GPU", "CUDA") else target


def count(target):
    """Number of devices of `target` ('CPU', 'GPU' or 'Ascend') this process can use."""
    target = _target(target)
    if target == "GPU":
        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    if target == "CPU":
        return 1
    return 0


def available(target):
    return count(target) > 0


def set_tf32(kind, enabled):
    """torch's TF32 switch of float32 'matmul' (cuBLAS) or 'conv' (cuDNN) kernels on CUDA."""
    if kind == "matmul":
        torch.backends.cuda.matmul.allow_tf32 = bool(enabled)
    else:
        torch.backends.cudnn.allow_tf32 = bool(enabled)


def initialized(target):
    """A device is initialized once tensors have been placed on it: the CPU always; CUDA once torch set it up."""
    target = _target(target)
    if target == "GPU":
        return bool(torch.cuda.is_available() and torch.cuda.is_initialized())
    return target == "CPU"


def name(device_id, target):
    """A GPU's name as torch reports it."""
    return torch.cuda.get_device_name(device_id)


def capability(device_id, target):
    """(major, minor) compute capability of a GPU; None for a CPU, as MindSpore returns."""
    if _target(target) == "GPU":
        return tuple(torch.cuda.get_device_capability(device_id))
    return None


def arch_list(target):
    """The sm_XX list torch's CUDA kernels were built for ([] without CUDA)."""
    return list(torch.cuda.get_arch_list()) if torch.cuda.is_available() else []


def properties(device_id, target):
    """{name, total_memory, ...} of one GPU as torch reports them."""
    p = torch.cuda.get_device_properties(device_id)
    return {"name": p.name, "major": p.major, "minor": p.minor, "total_memory": p.total_memory,
            "multi_processor_count": p.multi_processor_count, "is_integrated": bool(p.is_integrated)}


def current_target():
    return B.device_target()
