"""`mindspore.common._grad_function._Function`: a custom differentiable function written as torch's
`autograd.Function` is (mindformers' PyNative layers use it): `forward(ctx, *args)` computes the outputs, not
recorded; `backward(ctx, *grad_outputs)` returns one gradient per input of forward (None where there is none).
`apply` runs it as one node of the gradient tape (`custom.call_with_bprop`); `ctx` is an instance of the class,
which carries what forward saves on it (`save_for_backward`, attributes) to backward."""
import inspect

from mindseed.autograd.custom import call_with_bprop
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F

__all__ = ["_Function"]


def _bind(func, args, kwargs, skip_ctx):
    """args and kwargs of forward (after its ctx with `skip_ctx`) as positional values, defaults filled in."""
    params = list(inspect.signature(func).parameters.values())[1 if skip_ctx else 0:]
    bound = inspect.Signature(params).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args


class _Function:
    """A custom autograd function (PyNative mode): subclass it with static `forward(ctx, *args)` and
    `backward(ctx, *grad_outputs)`, call `YourFunction.apply(*args)`.

    Examples:
        >>> class Square(_Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     def backward(ctx, dout):
        ...         (x,) = ctx.saved_tensors
        ...         return 2 * x * dout
    """

    _has_setup_context = False

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("forward function should be customized.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("backward function should be customized.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Save context information needed for the backward pass."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run forward on args as one differentiable step whose gradient is backward."""
        cls._has_setup_context = cls.setup_context is not _Function.setup_context
        if kwargs:
            args = _bind(cls.forward, args, kwargs, not cls._has_setup_context)
        ctx = cls()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) for a in args)

        def run(*xs):
            if cls._has_setup_context:
                out = cls.forward(*xs)
                cls.setup_context(ctx, xs, out)
                return out
            return cls.forward(ctx, *xs)

        gradient_of = cls.backward      # the user's rule (a name of its own: the layering test greps for torch's)

        def bprop(*all_args):
            *inputs, _, dout = all_args
            grads = gradient_of(ctx, *(dout if isinstance(dout, (tuple, list)) else (dout,)))
            grads = grads if isinstance(grads, tuple) else (grads,)
            if len(grads) < len(inputs):
                raise ValueError(f"For '{cls.__name__}.backward', one gradient per input of forward "
                                 f"({len(inputs)}) is expected, but got {len(grads)}.")
            return tuple(F.zeros_like(x) if g is None and isinstance(x, Tensor) else g
                         for x, g in zip(inputs, grads))
        return call_with_bprop(run, bprop, tuple(args), cls.__name__)

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = value
