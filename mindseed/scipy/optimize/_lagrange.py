"""The augmented-Lagrangian method for inequality constraints c_i(x) < 0: Adam steps on the Lagrangian, with the
multipliers and the penalty weight updated after each round (MindSpore's `minimize(method='LAGRANGE')`)."""
import logging
import sys
from typing import NamedTuple

import numpy as np

from mindseed.autograd.grad import value_and_grad
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.scipy.optimize._common import to_scalar

_ALPHA, _BETA, _RHO = np.float32(0.1), np.float32(0.9), np.float32(1.1)


class _LagrangeResults(NamedTuple):
    """succeeded: a point met every constraint within save_tol and lowered the objective; best_value: that point;
    object_value: the objective there; loss_value: the constraints' values there."""
    succeeded: bool
    best_value: float
    object_value: float
    loss_value: Tensor


def _bounds(lower, upper):
    """The map from the free parameter to x that keeps x within the bounds given."""
    lb = None if lower is None else Tensor(lower)
    ub = None if upper is None else Tensor(upper)
    if lb is None and ub is None:
        return lambda p: p
    if lb is None:
        return lambda p: -p * p + ub
    if ub is None:
        return lambda p: p * p + lb
    return lambda p: (ub - lb) * F.sigmoid(p) + lb


class _Multipliers:
    """The multipliers mu_i, the penalty weight sigma and the tolerance epsilon, in float32 as MindSpore keeps them."""

    def __init__(self, count):
        self.mu = np.ones(count, np.float32)
        self.sigma = np.float32(1.0)
        self.epsilon = np.float32(1.0) / self.sigma ** _ALPHA

    def update(self, losses):
        """After a round: tighten the multipliers when the constraints' violation is within epsilon, else raise
        sigma."""
        violation = np.sqrt(sum(np.maximum(loss, -mu / self.sigma) ** np.float32(2)
                                for loss, mu in zip(losses, self.mu)))
        if violation <= self.epsilon:
            self.mu = np.maximum(self.mu + self.sigma * losses, np.float32(0)).astype(np.float32)
            self.epsilon = np.float32(min(self.epsilon / self.sigma ** _BETA, sys.float_info.max))
        else:
            self.sigma = np.float32(_RHO * self.sigma)
            self.epsilon = np.float32(1.0) / self.sigma ** _ALPHA


def minimize_lagrange(func, x0, constraints, save_tol=None, obj_weight=1.0, lower=None, upper=None,
                      learning_rate=0.1, coincide_fun=None, rounds=10, steps=1000, log_sw=False):
    """`rounds` rounds of `steps` Adam steps (learning rate `learning_rate`) on obj_weight * func(x) +
    sigma / 2 * sum_i(relu(mu_i / sigma + c_i(x)) ** 2 - (mu_i / sigma) ** 2), x the bounded map of the parameter
    started at `x0`; `coincide_fun(x)`, when given, is computed once per step and passed to func and each c_i."""
    from mindseed.nn.optim.adam import Adam     # nn imports the scipy ops it uses; this import runs at call time

    count = len(constraints)
    normalize = _bounds(lower, upper)
    param = Parameter(Tensor(x0.asnumpy()), name="param")
    optimizer = Adam([param], learning_rate=learning_rate, use_locking=True, use_nesterov=False)
    weight = Tensor(np.float32(obj_weight))
    multipliers = _Multipliers(count)

    def lagrangian():
        x = normalize(param)
        extra = () if coincide_fun is None else (coincide_fun(x),)
        losses = [F.cast(c(x, *extra), mstype.float32).reshape(()) for c in constraints]
        penalty = 0
        for mu, loss in zip(multipliers.mu, losses):
            shifted = Tensor(np.float32(mu / multipliers.sigma))
            penalty = penalty + F.relu(shifted + loss) ** 2 - shifted ** 2
        objective = func(x, *extra)
        return weight * objective + Tensor(multipliers.sigma) / 2 * penalty, F.stack(losses), objective, x

    step = value_and_grad(lagrangian, None, optimizer.parameters, has_aux=True)
    tol = np.ones(count, np.float32) if save_tol is None else np.asarray(
        save_tol.asnumpy() if isinstance(save_tol, Tensor) else save_tol, np.float32)
    f0, best, succeeded, best_losses = 0, x0.asnumpy().copy(), False, Tensor(np.ones(count, np.float32))
    for j in range(rounds):
        for i in range(steps):
            (value, losses, objective, x), grads = step()
            losses, x = losses.asnumpy(), x.asnumpy().copy()      # the step moves the parameter in place
            objective = F.cast(objective, mstype.float32).asnumpy()
            optimizer(grads)
            if log_sw:
                logging.info("round:%d, step:%d", j, i)
                logging.info("object_value:%f, loss_value:%s, lagrange_value:%f", objective, losses, value.asnumpy())
            if i == 0 and j == 0:
                f0 = objective
            if (losses - tol).max() < 0 and objective < f0:
                succeeded, best_losses, best, f0 = True, losses, x, objective
        multipliers.update(losses)
    return _LagrangeResults(succeeded=to_scalar(succeeded), best_value=best, object_value=f0, loss_value=best_losses)
