"""mindspore.ops.function.grad.grad_func: the functional autodiff transforms; filled with the objects of
`mindseed.autograd` by `mindseed._registration` (autodiff is a higher layer than ops)."""
from mindseed.ops.functional._core import stop_gradient  # noqa: F401
