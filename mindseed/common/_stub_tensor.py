"""`mindspore.common._stub_tensor.StubTensor`.

MindSpore before 2.5 returned a `StubTensor` (a Tensor whose value a PyNative op was still computing) from its
ops; code written then checks `isinstance(x, StubTensor)` or patches methods onto the class. MindSpore 2.10 keeps
the name as an empty class that no op returns, and so does mindseed: ops return `Tensor`, never a `StubTensor`.
"""
__all__ = ["StubTensor"]


class StubTensor:
    """Kept for code written for MindSpore < 2.5; no op returns one (as in MindSpore 2.10)."""
