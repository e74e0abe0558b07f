"""PyNative autodiff: the tape, the backward engine and MindSpore's functional transforms."""
from mindseed.autograd.grad import (GradOperation, get_grad, grad, jacfwd, jacrev, jvp, value_and_grad,  # noqa: F401
                                    vjp)
from mindseed.autograd.vmap import vmap  # noqa: F401
from mindseed.autograd.taylor import derivative, jet, linearize  # noqa: F401
from mindseed.autograd.custom import Morph, custom_vjp  # noqa: F401
from mindseed.autograd.hooks import register_saved_tensors_hooks, saved_tensors_hooks  # noqa: F401
