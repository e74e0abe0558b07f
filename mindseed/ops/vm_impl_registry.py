"""MindSpore's `ops.vm_impl_registry` module: Python implementations of primitives registered for debugging
(`@vm_impl_registry.register(P.Add)` on a function of the primitive that returns the implementation), looked up
with `get_vm_impl_fn(prim)`. The registry lives in `ops.functional._runtime`."""
from mindseed.ops.functional._runtime import get_vm_impl_fn, vm_impl_registry

__all__ = ["vm_impl_registry", "get_vm_impl_fn"]
