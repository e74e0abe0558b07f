"""mindspore.ops.function.grad: the functional autodiff transforms (`grad`, `value_and_grad`, `jvp`, `vjp`,
`jacfwd`, `jacrev`, `get_grad`, `linearize`, `stop_gradient`, `vmap`, ...).

They live in `mindseed.autograd` (a higher layer than ops); `mindseed._registration` places the same objects
here and in `grad_func` when mindseed is imported, as it does in `mindspore.ops`.
"""
from mindseed.ops.function.grad import grad_func  # noqa: F401
from mindseed.ops.functional._core import stop_gradient  # noqa: F401
