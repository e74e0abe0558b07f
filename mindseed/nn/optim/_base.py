"""The base both optimizer APIs share: `nn.Optimizer` (MindSpore's) and `experimental.optim.Optimizer`.

It holds what they have in common: the check of the parameter list, learning rates held in float32
Parameters, the weight-decay value check, the gradient processing (weight decay, loss-scale division,
centralization, negation for `maximize`) and the step bookkeeping. Every change to a parameter or a
state tensor goes through a primitive of `mindseed.ops._prims.optim` (the update rules are the
primitives MindSpore's class API calls too). A step runs outside autodiff; inside a compiled graph the
whole step is one opaque node that runs again at each call.
"""
from collections.abc import Iterable

from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.optim import _validator as V
from mindseed.ops._prims import optim as P

__all__ = ["OptimizerBase"]


class OptimizerBase(Cell):
    """Parameters, learning rates, weight decay and gradient processing of an optimizer; subclasses define the
    group layout (`nn.Optimizer`: MindSpore's groups and dynamic rates; `experimental.optim.Optimizer`:
    torch-style `param_groups`) and `construct(gradients)`, which calls the update primitives."""

    # its step changes state through primitives run eagerly: inside a traced graph it is one opaque node
    _graph_opaque = True

    def __init__(self):
        super().__init__(auto_prefix=False)

    @property
    def cls_name(self):
        return type(self).__name__

    def construct(self, *hyper_params):
        raise AttributeError(f"For '{self.cls_name}', the method 'construct' is not defined.")

    @staticmethod
    def _parameters_base_check(parameters, param_info):
        if parameters is None:
            raise ValueError(f"For 'Optimizer', the argument {param_info} can not be None.")
        if not isinstance(parameters, Iterable):
            raise TypeError(f"For 'Optimizer', the argument {param_info} must be Iterable type, but got "
                            f"{type(parameters)}.")
        parameters = list(parameters)
        if not parameters:
            raise ValueError(f"For 'Optimizer', the argument {param_info} must not be empty.")
        return parameters

    def _checked_rate(self, value, what):
        """A non-negative number as a float (`what` names it in the error)."""
        value = float(value)
        V.non_negative_float(value, what, self.cls_name)
        return value

    @staticmethod
    def _lr_parameter(value, name):
        """A fixed learning rate (a float or a 0-d Tensor) as the float32 Parameter `name` the step reads."""
        if isinstance(value, Tensor):
            value = value.asnumpy()
        return Parameter(Tensor(value, mstype.float32), name)

    # ------------------------------------------------------------ gradient processing: Tensors in, new Tensors out
    @staticmethod
    def _decayed(gradients, params, weight_decay):
        """gradient + weight_decay * param for each pair (one fused kernel over the list)."""
        return P.apply_decay_p(gradients, params, weight_decay)

    @staticmethod
    def _scaled(gradients, factor):
        return P.grad_scale_p(gradients, factor)

    @staticmethod
    def _negated(gradients):
        return P.grad_neg_p(gradients)

    @staticmethod
    def _centralized(gradients, flags):
        """Each flagged gradient of a weight (2-D or more, its second axis a multiple of 16) minus its mean over all
        axes but the first."""
        out = list(gradients)
        for i, flag in enumerate(flags):
            g = out[i]
            if flag and g.ndim > 1 and g.shape[1] % 16 == 0:
                out[i] = P.grad_centralization_p(g)
        return tuple(out)

    # ------------------------------------------------------------ step bookkeeping
    @staticmethod
    def _increment(counter):
        """counter += 1, in place."""
        P.step_increment_p(counter)

    @staticmethod
    def _value(x):
        """A number or a one-element Tensor as a Python number."""
        return x.item() if isinstance(x, Tensor) else float(x)
