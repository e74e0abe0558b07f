"""AdaFactor: adaptive rates with factored second moments (sublinear memory), MindSpore's update rule."""
import math

from mindseed.common import dtype as mstype
from mindseed.common.initializer import initializer
from mindseed.common.parameter import Parameter, ParameterTuple
from mindseed.common.tensor import Tensor
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim.optimizer import Optimizer, opt_init_args_register
from mindseed.ops._prims.optim import adafactor_p

__all__ = ["AdaFactor"]


class AdaFactor(Optimizer):
    r"""AdaFactor (Shazeer & Stern, 2018).

    For a matrix gradient the second moment is kept as row and column means (``exp_avg_sq_row_*`` /
    ``exp_avg_sq_col_*``), for a vector in full (``exp_avg_sq_*``); :math:`\beta_{2,t} = 1 - t^{-decay\_rate}`.
    The update is clipped to RMS ``clip_threshold``, scaled by the rate (times max(eps[1], RMS(p)) with
    `scale_parameter`), smoothed by beta1 (``exp_avg.*``), and weight decay is decoupled.

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule, None]): with `relative_step`
            it must be None: the rate is min(1e-2, 1/sqrt(t)) (warmup: min(1e-6 t, 1/sqrt(t))). Default: ``None``.
        eps (tuple[float, float]): regularizers of the squared gradient and of the parameter scale.
            Default: ``(1e-30, 1e-3)``.
        clip_threshold (float): Default: ``1.0``.
        decay_rate (float): in (0, 1). Default: ``0.8``.
        beta1 (float): 0 disables the first moment. Default: ``0.9``.
        weight_decay (float): in [0, 1). Default: ``0.0``.
        scale_parameter (bool): Default: ``True``.
        relative_step (bool): Default: ``True``.
        warmup_init (bool): Default: ``False``.
        compression (bool): keep vector second moments in float16. Default: ``False``.
        loss_scale (float): Default: ``1.0``.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]), name="w")
    >>> _ = ms.nn.AdaFactor([w])((ms.Tensor([[1.0, 1.0], [1.0, 1.0]]),))
    >>> w.shape
    (2, 2)
    """

    _support_parallel_optimizer = True

    @opt_init_args_register
    def __init__(self, params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0, decay_rate=0.8, beta1=0.9,
                 weight_decay=0.0, scale_parameter=True, relative_step=True, warmup_init=False, compression=False,
                 loss_scale=1.0):
        if learning_rate is not None and relative_step:
            raise ValueError("Cannot combine manual lr and relative_step options", learning_rate)
        if warmup_init and not relative_step:
            raise ValueError("warmup_init requires relative_step=True")
        if learning_rate is None and not relative_step:
            raise ValueError("Cannot learning_rate is None and relative_step=False")
        if learning_rate is None:
            learning_rate = 0.0
        if beta1 is None:
            beta1 = 0.0
        scale_lr = isinstance(learning_rate, (float, int))
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.scale_lr = scale_lr
        V.value_type("eps", eps, [list, tuple], self.cls_name)
        if len(eps) != 2:
            raise ValueError("eps must have 2 value: (eps1, eps2).")
        for i, ele in enumerate(eps):
            V.value_type(f"eps{i}", ele, [float], self.cls_name)
            V.non_negative_float(ele, f"eps{i}", self.cls_name)
        V.value_type("clip_threshold", clip_threshold, [float], self.cls_name)
        V.non_negative_float(clip_threshold, "clip_threshold", self.cls_name)
        V.value_type("decay_rate", decay_rate, [float], self.cls_name)
        V.float_range(decay_rate, 0, 1, "()", "decay_rate", self.cls_name)
        V.float_range(weight_decay, 0, 1, "[)", "weight_decay", self.cls_name)
        V.value_type("scale_parameter", scale_parameter, [bool], self.cls_name)
        V.value_type("relative_step", relative_step, [bool], self.cls_name)
        V.value_type("compression", compression, [bool], self.cls_name)
        V.value_type("beta1", beta1, [int, float], self.cls_name)
        V.non_negative_float(float(beta1), "beta1", self.cls_name)
        self.eps = tuple(Tensor(e, mstype.float32) for e in eps)
        self.clip_threshold = Tensor(clip_threshold, mstype.float32)
        self.decay_rate = Tensor(-decay_rate, mstype.float32)
        self.beta1 = Tensor(beta1, mstype.float32)
        self.weight_decay = Tensor(weight_decay, mstype.float32)
        self.weight_decay_flag = bool(weight_decay)
        self.scale_parameter = scale_parameter and scale_lr
        self.relative_step = relative_step
        self.warmup_init = warmup_init
        self.compression = compression
        self._init_state(beta1)
        self.step = Parameter(initializer(0, [1], mstype.float32), name="afactor_step")
        self.__dict__["_hyper"] = (float(eps[0]), float(eps[1]), float(clip_threshold), float(decay_rate),
                                   self.beta1.item(), float(weight_decay))

    def _init_state(self, beta1):
        self.use_first_moment = beta1 > 0
        if self.use_first_moment:
            self.exp_avg = self._parameters.clone(prefix="exp_avg", init="zeros")
        else:
            self.exp_avg = ParameterTuple([Parameter(Tensor(0.0), name=f"exp_avg_{i}")
                                           for i in range(len(self._parameters))])
        rows, cols, full = [], [], []
        for p in self._parameters:
            shape, dtype, name = p.shape, p.dtype, p.name
            if len(shape) > 1:
                rows.append(Parameter(initializer(0, shape[:-1], dtype), name=f"exp_avg_sq_row_{name}"))
                cols.append(Parameter(initializer(0, shape[:-2] + shape[-1:], dtype), name=f"exp_avg_sq_col_{name}"))
                full.append(Parameter(initializer(0, (1,), dtype), name=f"exp_avg_sq_{name}"))
            else:
                rows.append(Parameter(initializer(0, (1,), dtype), name=f"exp_avg_sq_row_{name}"))
                cols.append(Parameter(initializer(0, (1,), dtype), name=f"exp_avg_sq_col_{name}"))
                full.append(Parameter(initializer(0, shape, mstype.float16 if self.compression else dtype),
                                      name=f"exp_avg_sq_{name}"))
        self.exp_avg_sq_row = ParameterTuple(rows)
        self.exp_avg_sq_col = ParameterTuple(cols)
        self.exp_avg_sq = ParameterTuple(full)

    @property
    def supports_memory_efficient_fp16(self):
        return True

    @property
    def supports_flat_params(self):
        return False

    def construct(self, gradients):
        segments = self._segments_with_lr()
        self._advance()
        self._increment(self.step)
        step = self.step.item()
        eps1, eps2, clip, decay_rate, beta1, wd = self._hyper
        beta2t = 1.0 - step ** -decay_rate
        for lo, hi, lr in segments:
            if self.scale_lr and self.relative_step:
                lr = min(1e-6 * step if self.warmup_init else 1e-2, 1.0 / math.sqrt(step))
            for i in range(lo, hi):
                adafactor_p(self._parameters[i], gradients[i], self.exp_avg[i], self.exp_avg_sq_row[i],
                            self.exp_avg_sq_col[i], self.exp_avg_sq[i], lr, eps1, eps2, clip, beta1, beta2t,
                            wd if self.weight_decay_flag else 0.0, scale_parameter=self.scale_parameter,
                            use_first_moment=self.use_first_moment)
        return self._success
