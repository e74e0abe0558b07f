"""mindspore.scipy: SciPy-like linear algebra on Tensors (`linalg`), its primitives (`ops`) and wrappers
(`ops_wrapper`)."""
from mindseed.scipy import fft, linalg, ops, ops_wrapper, optimize, utils  # noqa: F401

__all__ = ["fft", "linalg", "ops", "ops_wrapper", "optimize"]
