"""Exchange with other array libraries (DLPack) and a device self-check."""
import torch
from torch.utils import dlpack as _dlpack


def to_dlpack(x):
    """A DLPack capsule sharing `x`'s memory."""
    return _dlpack.to_dlpack(x.contiguous())


def from_dlpack(obj):
    """A backend tensor sharing the memory of a DLPack capsule or of an object with `__dlpack__`."""
    return _dlpack.from_dlpack(obj)


def stress_check(device, size=256, rounds=4):
    """Run the same matmul and reduction `rounds` times and check every result is bit-identical: 0 when they are,
    1 when the device computed differently (a hardware fault)."""
    g = torch.Generator(device="cpu").manual_seed(1234)
    a = torch.randn(size, size, generator=g).to(device)
    b = torch.randn(size, size, generator=g).to(device)
    first = None
    for _ in range(rounds):
        out = torch.stack([(a @ b).sum(), (a * b).sum(), torch.tanh(a).mean()])
        if first is None:
            first = out
        elif not torch.equal(out, first):
            return 1
    return 0


def is_pinned(x):
    return bool(x.is_pinned()) if x.device.type == "cpu" else False


def pinned(x):
    """x in page-locked host memory (what makes host-to-GPU copies asynchronous); without a GPU, x itself."""
    if x.device.type == "cpu" and torch.cuda.is_available():
        return x.pin_memory()
    return x


def is_shared(x):
    return bool(x.is_shared())


def storage_info(x):
    """(address, bytes) of the memory block holding x."""
    s = x.untyped_storage()
    return s.data_ptr(), s.nbytes()
