r"""THOR: the second-order optimizer of MindSpore (Trace-based Hardware-driven layer-ORiented Natural gradient).

Each Dense/Conv2d/Embedding layer of the network is converted to its THOR cell, which records the Kronecker
factors of its Fisher block: A (input covariance) in the forward pass and G (output-gradient covariance) in the
backward pass. On a refresh step (the optimizer's and the layers' ``thor`` flag True) the damped factors are
inverted and kept; the other steps reuse the kept inverses. The layer's gradient g (out x in, a convolution's
kernel flattened to out x in*kh*kw) becomes

    g' = s * (G * B^2 / loss_scale^2 + sqrt(s_g * lambda) I)^-1  g  (A + sqrt(s_a * lambda) I)^-1

with lambda the damping of the step, B = batch_size (the recorded G is that of the mean loss, B times too small
per sample), and for a convolution s_a = B / a_normalizer, s_g = B / g_normalizer (one over the output positions
per image), s = s_a (MindSpore's feature-map scaling); s = s_a = s_g = 1 for Dense. An embedding's A is diagonal
(id counts / B + sqrt(lambda)); a LayerNorm's parameters get the diagonal g / (g^2 / B + sqrt(lambda)). Then weight
decay (`decay_filter`), optional gradient clipping and Momentum, as MindSpore's CPU/GPU `ThorGpu` does.
"""
import math

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common._parallel import _get_gradients_mean, _get_parallel_mode
from mindseed.common.context import ParallelMode
from mindseed.common.parameter import Parameter, ParameterTuple
from mindseed.common.tensor import Tensor
from mindseed.nn._thor_convert import ConvertNetUtils
from mindseed.nn.layer.normalization import LayerNorm
from mindseed.nn.layer.thor_layer import Conv2dThor, DenseThor, EmbeddingLookupThor, EmbeddingThor
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim.optimizer import Optimizer
from mindseed.ops import functional as F
from mindseed.ops._prims.optim import apply_momentum_p

__all__ = ["thor", "ThorGpu"]

_OTHER, _CONV, _FC, _EMBEDDING, _LAYER_NORM = -1, 1, 2, 3, 4
_CLIP_NORM = 1.0        # MindSpore's GRADIENT_CLIP_VALUE (clip by norm, per gradient)


def _check_damping(damping):
    """damping (Tensor, list/tuple of numbers, or a number) -> a 1-D float64 numpy array (one value per step)."""
    if isinstance(damping, Tensor):
        values = damping.asnumpy()
    elif isinstance(damping, (list, tuple)) and damping and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in damping):
        values = np.asarray(damping)
    elif isinstance(damping, (int, float)) and not isinstance(damping, bool):
        values = np.asarray([damping])
    else:
        raise TypeError(f"For 'thor', the 'damping' must be a Tensor, a non-empty list of numbers or a number, but "
                        f"got {type(damping).__name__}.")
    values = np.asarray(values, np.float64).reshape(-1) if np.ndim(values) == 0 else np.asarray(values, np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"For 'thor', the 'damping' must hold one value per step (1-D), but got shape "
                         f"{values.shape}.")
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError(f"For 'thor', every 'damping' value must be finite and >= 0, but got {values.tolist()}.")
    return values


def _check_args(momentum, frequency, learning_rate, batch_size, split_indices, decay_filter, cls):
    V.value_type("momentum", momentum, [float], cls)
    if momentum < 0.0:
        raise ValueError(f"For 'thor', the argument 'momentum' must be at least 0.0, but got 'momentum' {momentum}.")
    V.value_type("frequency", frequency, [int], cls)
    if frequency < 2:
        raise ValueError(f"For 'thor', the argument 'frequency' must be at least 2, but got 'frequency' {frequency}.")
    V.value_type("learning rate", learning_rate, [Tensor], cls)
    V.positive_int(batch_size, "batch_size", cls)
    if not callable(decay_filter):
        raise TypeError(f"For '{cls}', the 'decay_filter' must be callable, but got {type(decay_filter).__name__}.")
    if split_indices is not None:
        if not isinstance(split_indices, (list, tuple)) or not all(
                isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in split_indices):
            raise TypeError(f"For '{cls}', the 'split_indices' must be None or a list of non-negative ints, but got "
                            f"{split_indices!r}.")


def _layer_kinds(net):
    """{id(parameter): (kind, layer cell)} for the parameters THOR preconditions."""
    kinds = {}
    for _, cell in net.cells_and_names():
        if isinstance(cell, Conv2dThor):
            kinds[id(cell.weight)] = (_CONV, cell)
        elif isinstance(cell, DenseThor):
            kinds[id(cell.weight)] = (_FC, cell)
        elif isinstance(cell, (EmbeddingThor, EmbeddingLookupThor)):
            kinds[id(cell.embedding_table)] = (_EMBEDDING, cell)
        elif isinstance(cell, LayerNorm):
            for p in cell.get_parameters(expand=False):
                kinds[id(p)] = (_LAYER_NORM, cell)
    return kinds


def _factors(kind, cell):
    """The (A, G) Parameters a THOR layer records."""
    if kind == _CONV:
        return cell.matrix_a_cov, cell.matrix_g_cov
    return cell.matrix_a, cell.matrix_g


def _eye(n):
    return Tensor(np.eye(n, dtype=np.float32))


class ThorGpu(Optimizer):
    """THOR's CPU/GPU optimizer (built by `nn.thor`): explicit inverses of the damped Kronecker factors."""

    def __init__(self, net, learning_rate, damping, momentum, weight_decay=0.0, loss_scale=1.0, batch_size=32,
                 use_nesterov=False, decay_filter=lambda x: x.name not in [], split_indices=None,
                 enable_clip_grad=False, frequency=100):
        params = [p for p in net.get_parameters() if p.requires_grad]
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        cls = type(self).__name__
        V.value_type("weight_decay", weight_decay, [int, float], cls)       # THOR's decay is a number
        _check_args(momentum, frequency, learning_rate, batch_size, split_indices, decay_filter, cls)
        self.momentum = Parameter(Tensor(momentum, mstype.float32), name="momentum")
        self.params = self._parameters
        self.use_nesterov = V.boolean(use_nesterov, "use_nesterov", cls)
        self.enable_clip_grad = V.boolean(enable_clip_grad, "enable_clip_grad", cls)
        self.moments = self.params.clone(prefix="moments", init="zeros")
        self.net = net
        self._damping_values = _check_damping(damping)
        self.damping = Tensor(self._damping_values, mstype.float32)
        self.batch_size = batch_size
        self.frequency = frequency
        self.thor_weight_decay = float(weight_decay)
        self.decay_flags = tuple(bool(decay_filter(p)) for p in self._parameters)
        self.cov_step = Parameter(Tensor(np.zeros([1], np.int32)), name="cov_step", requires_grad=False)
        self.thor = True
        kinds = _layer_kinds(net)
        self._kinds = tuple(kinds.get(id(p), (_OTHER, None)) for p in self._parameters)
        self._layer_index = []
        inv_a, inv_g = [], []
        for kind, cell in self._kinds:
            if kind in (_CONV, _FC, _EMBEDDING):
                a, g = _factors(kind, cell)
                k = len(inv_a)
                inv_a.append(Parameter(Tensor(np.zeros(a.shape, np.float32)), name=f"matrix_a_inv_{k}",
                                       requires_grad=False))
                inv_g.append(Parameter(Tensor(np.zeros(g.shape, np.float32)), name=f"matrix_g_inv_{k}",
                                       requires_grad=False))
                self._layer_index.append(k)
            else:
                self._layer_index.append(-1)
        self.matrix_a = ParameterTuple(inv_a)
        self.matrix_g = ParameterTuple(inv_g)
        self.thor_layer_count = len(inv_a)
        self.split_indices = list(split_indices) if split_indices else [max(self.thor_layer_count - 1, 0)]
        self._define_reducer()

    def get_frequency(self):
        """The number of steps between two refreshes of A, G and their inverses."""
        return self.frequency

    def _define_reducer(self):
        self.parallel_mode = _get_parallel_mode()
        self.is_distributed = self.parallel_mode not in (ParallelMode.STAND_ALONE, "stand_alone")
        if self.is_distributed:
            # each rank saw its own batch: the inverses are averaged over the ranks before they are used
            from mindseed.nn.wrap.grad_reducer import DistributedGradReducer, _get_device_num  # noqa: PLC0415
            mean, degree = _get_gradients_mean(), _get_device_num()
            self.grad_reducer_a = DistributedGradReducer(self.matrix_a, mean, degree, fusion_type=6)
            self.grad_reducer_g = DistributedGradReducer(self.matrix_g, mean, degree, fusion_type=8)

    def _damping_at(self, step):
        values = self._damping_values
        if step >= values.size:
            raise ValueError(f"For 'thor', the 'damping' has {values.size} values (one per step) and step {step} asks "
                             f"for one more.")
        return float(values[step])

    def _inverses(self, kind, cell, damping):
        """The kept (A^-1, G^-1) of one layer from the factors it recorded this step."""
        a, g = _factors(kind, cell)
        g_scale = float(self.batch_size) ** 2 / self.loss_scale ** 2
        if kind == _EMBEDDING:
            root = math.sqrt(damping)
            a_inv = 1.0 / (a / float(self.batch_size) + root)
            g_inv = F.inverse(g * g_scale + root * _eye(g.shape[0]))
            return a_inv, g_inv
        s_a = s_g = 1.0
        if kind == _CONV:
            s_a = float(self.batch_size) / cell.a_normalizer.item()
            s_g = float(self.batch_size) / cell.g_normalizer.item()
        a_inv = F.inverse(a + math.sqrt(damping * s_a) * _eye(a.shape[0]))
        g_inv = F.inverse(g * g_scale + math.sqrt(damping * s_g) * _eye(g.shape[0]))
        feature_map = math.sqrt(s_a)
        return a_inv * feature_map, g_inv * feature_map

    def _refresh(self, damping):
        a_invs, g_invs = [], []
        for (kind, cell), k in zip(self._kinds, self._layer_index):
            if k >= 0:
                a_inv, g_inv = self._inverses(kind, cell, damping)
                a_invs.append(a_inv)
                g_invs.append(g_inv)
        if self.is_distributed:
            a_invs, g_invs = self.grad_reducer_a(tuple(a_invs)), self.grad_reducer_g(tuple(g_invs))
        for param, value in zip(tuple(self.matrix_a) + tuple(self.matrix_g), tuple(a_invs) + tuple(g_invs)):
            F.assign(param, value)

    def _precondition(self, grad, kind, k, damping):
        if kind in (_CONV, _FC):
            shape = grad.shape
            grad = F.matmul(F.matmul(self.matrix_g[k], F.reshape(grad, (shape[0], -1))), self.matrix_a[k])
            return F.reshape(grad, shape)
        if kind == _EMBEDDING:
            return F.matmul(F.expand_dims(self.matrix_a[k], 1) * grad, self.matrix_g[k])
        if kind == _LAYER_NORM:
            return grad / (grad * grad / float(self.batch_size) + math.sqrt(damping))
        return grad

    def construct(self, gradients):
        gradients = self.flatten_gradients(gradients)
        if len(gradients) != self.param_length:
            raise ValueError(f"For '{type(self).__name__}', the number of gradients {len(gradients)} must equal the "
                             f"number of parameters {self.param_length}.")
        grads = self.scale_grad(gradients)
        step = int(self.cov_step.item())
        damping = self._damping_at(step)
        if self.thor:
            self._refresh(damping)
        grads = [self._precondition(g, kind, k, damping)
                 for g, (kind, _), k in zip(grads, self._kinds, self._layer_index)]
        F.assign(self.cov_step, Tensor([step + 1], mstype.int32))
        wd = self.thor_weight_decay
        if isinstance(wd, float) and wd > 0:
            grads = [g + p * wd if flag else g for g, p, flag in zip(grads, self._parameters, self.decay_flags)]
        if self.enable_clip_grad:
            grads = [g * (_CLIP_NORM / max(float(F.norm(g).item()), _CLIP_NORM)) for g in grads]
        segments = self._segments_with_lr()
        self._advance()
        params, moments = self._parameters, self.moments
        for lo, hi, lr in segments:
            apply_momentum_p(params[lo:hi], moments[lo:hi], lr, grads[lo:hi], self.momentum.item(),
                             use_nesterov=self.use_nesterov)
        return self._success


def thor(net, learning_rate, damping, momentum, weight_decay=0.0, loss_scale=1.0, batch_size=32,
         use_nesterov=False, decay_filter=lambda x: x.name not in [], split_indices=None, enable_clip_grad=False,
         frequency=100):
    r"""Updates gradients by the second-order algorithm THOR (https://www.aaai.org/AAAI21Papers/AAAI-6611.ChenM.pdf).

    .. math::
        w_{i}^{(k+1)} \leftarrow w_{i}^{(k)}-\gamma\left(\left(A_{i-1}^{(k)}+\lambda I\right)^{-1}
        \otimes\left(G_{i}^{(k)}+\lambda I\right)^{-1}\right) \nabla_{w_{i}} J^{(k)}

    with :math:`A_{i-1}` the covariance of layer i's input, :math:`G_i` that of the gradient of its output,
    :math:`\lambda` the damping (applied as :math:`\sqrt{\lambda}` to each factor, as MindSpore does) and
    :math:`\gamma` the learning rate; then Momentum. The network's Dense/Conv2d/Embedding layers are converted to
    their THOR cells (`ConvertNetUtils`) in place, keeping their Parameters.

    Args:
        net (Cell): the training network (converted in place).
        learning_rate (Tensor): the learning rate: a 0-d Tensor, or a 1-D Tensor with one value per step.
        damping (Tensor): the damping, one value per step (a 1-D Tensor or a list; a number means every step).
        momentum (float): the momentum, >= 0.
        weight_decay (Union[int, float]): L2 penalty added after preconditioning. Default: ``0.0``.
        loss_scale (float): the loss scale the gradients carry (> 0). Default: ``1.0``.
        batch_size (int): the batch size (scales G). Default: ``32``.
        use_nesterov (bool): Nesterov momentum. Default: ``False``.
        decay_filter (function): which parameters weight decay applies to. Default: ``lambda x: x.name not in []``.
        split_indices (list): the A/G layer indices that split the all-reduce of the inverses into groups in
            distributed training (recorded; one process reduces nothing). Default: ``None``.
        enable_clip_grad (bool): clip each gradient to L2 norm 1.0 before the update. Default: ``False``.
        frequency (int): A, G and their inverses are refreshed every `frequency` steps by `ConvertModelUtils`'
            Model (>= 2). Default: ``100``.

    Returns:
        ThorGpu, the optimizer; called with the gradients of its parameters it applies one step.

    Raises:
        TypeError: `learning_rate` is not a Tensor, `momentum` not a float, `frequency` not an int, `use_nesterov`
            not a bool, `damping` not a Tensor/list/number, `split_indices` not a list of ints.
        ValueError: `loss_scale` <= 0, `weight_decay` or `momentum` < 0, `frequency` < 2, a negative damping.

    >>> import mindseed as ms
    >>> net = ms.nn.SequentialCell([ms.nn.Dense(4, 3)])
    >>> opt = ms.nn.thor(net, ms.Tensor(0.1), ms.Tensor([0.03] * 10), 0.9, batch_size=2, frequency=2)
    >>> type(net[0]).__name__, opt.get_frequency()
    ('DenseThor', 2)
    """
    ConvertNetUtils().convert_to_thor_net(net)
    return ThorGpu(net, learning_rate, damping, momentum, weight_decay, loss_scale, batch_size, use_nesterov,
                   decay_filter, split_indices=split_indices, enable_clip_grad=enable_clip_grad, frequency=frequency)
