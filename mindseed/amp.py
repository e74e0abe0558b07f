"""mindspore.amp: automatic mixed precision, loss scalers and loss-scale managers.

Levels of `auto_mixed_precision` (float16 or bfloat16):

* O1: cells and primitives of the white list (Dense, Conv*, RNN cells, MatMul, ...) compute in low
  precision and hand float32 results back. As MindSpore's rewrite, it returns a new network (`<Class>Opt`
  cells sharing the Parameters); the network given is left unchanged;
* O2: the whole network in low precision except the black list (BatchNorm*, LayerNorm), kept float32;
* O3: the whole network in low precision;
* auto: per primitive, MindSpore's auto white list in low precision and auto black list in float32.

Parameters stay float32 (the optimizer updates float32 master weights): a cell set to low precision by
`Cell.to_float` reads its trainable Parameters as casts while it runs, and the gradients flow back
through the casts as float32.

Level 'auto' is a cast policy, not a change to any class: a table {Prim object: rule} pushed on
`ops._registry.cast_policies` while the network's construct (or the function) runs, in PyNative and while
graph mode traces it, and popped after. `Prim.__call__` looks the primitive up in the innermost policy (one
check when none is active); a rule casts the floating inputs with Cast primitives, which the tape and the
graph record like any other, then runs the primitive. Networks without amp never see a policy.
"""
import functools
import inspect
import types

from mindseed import nn, ops
from mindseed._backend.kernels import optim as K
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.optim import _validator as V
from mindseed.ops import _registry
from mindseed.ops import operations as P

__all__ = ["DynamicLossScaleManager", "LossScaleManager", "FixedLossScaleManager", "build_train_network",
           "DynamicLossScaler", "StaticLossScaler", "LossScaler", "auto_mixed_precision", "all_finite",
           "custom_mixed_precision", "get_white_list", "get_black_list"]

AMP_WHITE_LIST = [getattr(nn, n) for n in ("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose",
                                           "Conv3dTranspose", "Dense", "LSTMCell", "RNNCell", "GRUCell")] + \
                 [getattr(P, n) for n in ("Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose",
                                          "Conv2DBackpropInput", "MatMul", "BatchMatMul", "PReLU", "ReLU", "Ger")
                  if hasattr(P, n)]
AMP_BLACK_LIST = [nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm]

# level 'auto', a cast policy per primitive: MindSpore's AMP_AUTO_WHITE_LIST (computed in the low-precision dtype)
# and AMP_AUTO_BLACK_LIST (computed in float32), by the names of mindseed's primitives (names without one skipped)
_AUTO_WHITE = ("Convolution", "MatMul", "BatchMatMul", "Dense", "Einsum", "PReLU")
_AUTO_BLACK = ("Pow", "ACos", "Asin", "Cosh", "Erfinv", "Exp", "Expm1", "Log", "Log10", "Log1p", "Log2", "Reciprocal",
               "Rsqrt", "Sinh", "Tan", "Softplus", "LayerNorm", "BatchNorm", "GroupNorm", "LpNorm", "KLDivLoss",
               "SmoothL1Loss", "MultilabelMarginLoss", "SoftMarginLoss", "TripletMarginLoss", "MultiMarginLoss",
               "BCEWithLogitsLoss", "Cdist", "Renorm", "ReduceProd", "Softmax", "LogSoftmax", "CumProd", "CumSum",
               "ReduceSum", "L1Loss", "MSELoss", "NLLLoss")
_LOW = (mstype.float16, mstype.bfloat16)


def get_white_list():
    """A copy of the white list of level O1 (cells and primitive classes computed in low precision).

    >>> import mindseed as ms
    >>> ms.nn.Dense in ms.amp.get_white_list()
    True
    """
    return AMP_WHITE_LIST.copy()


def get_black_list():
    """A copy of the black list of level O2 (cells kept in float32).

    >>> import mindseed as ms
    >>> ms.nn.BatchNorm2d in ms.amp.get_black_list()
    True
    """
    return AMP_BLACK_LIST.copy()


# ---------------------------------------------------------------- casts
def amp_cast(value, dtype):
    """`value` cast to `dtype` when it is a floating-point Tensor."""
    if isinstance(value, Tensor) and mstype.is_float(value.dtype) and value.dtype != dtype:
        return ops.cast(value, dtype)
    return value


def _cast_tree(value, dtype):
    if isinstance(value, (tuple, list)):
        return type(value)(_cast_tree(v, dtype) for v in value)
    return amp_cast(value, dtype)


class _OutputTo16(nn.Cell):
    """Runs the backbone (kept in float32) and casts its output to the low-precision dtype."""

    def __init__(self, backbone, dtype=mstype.float16):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self.dtype = dtype
        _carry_amp_level(self, backbone)

    def construct(self, *args, **kwargs):
        return _cast_tree(self._backbone(*args, **kwargs), self.dtype)


class _OutputTo32(nn.Cell):
    """Runs the backbone and casts its floating-point outputs to float32."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        _carry_amp_level(self, backbone)

    def construct(self, *args, **kwargs):
        return _cast_tree(self._backbone(*args, **kwargs), mstype.float32)


def _carry_amp_level(cell, network):
    if "_amp_level" in network.__dict__:
        cell.__dict__["_amp_level"] = network.__dict__["_amp_level"]


def _outputs_to_float32(cell, args, output):
    """Forward hook of O1 white-list cells: their floating-point outputs go on in float32."""
    return _cast_tree(output, mstype.float32)


class _CastPrimitive:
    """A white-list primitive instance of an O1 network: run on low-precision inputs, float32 outputs.

    It stands in the rewritten network's copy of the cell that holds the primitive (the user's cell keeps the
    primitive itself), as MindSpore's rewrite inserts casts around the calls of that instance."""

    def __init__(self, prim, dtype):
        self.prim = prim
        self.dtype = dtype

    def __call__(self, *args, **kwargs):
        args = tuple(amp_cast(a, self.dtype) for a in args)
        return _cast_tree(self.prim(*args, **kwargs), mstype.float32)

    def __getattr__(self, name):
        if name == "prim":
            raise AttributeError(name)
        return getattr(self.prim, name)


def _set_construct(cell, wrapper_cls, *extra):
    """Wrap this instance's construct (the class is left alone, so other instances are unaffected)."""
    d = cell.__dict__
    d["construct"] = wrapper_cls(d.get("construct", cell.construct), *extra)


def _replace_child(parent, name, new):
    parent.__dict__["_cells"][name] = new
    if name in parent.__dict__:
        parent.__dict__[name] = new
    if hasattr(type(parent), "_refresh"):
        parent._refresh()


def _precision_set_by_user(cell):
    return any(getattr(cell, flag, False) is True for flag in ("fp32", "fp16", "bf16"))


def _auto_black_list(network, black_list, dtype):
    """Low precision everywhere except the black-listed cells, which run in float32 and return `dtype`."""
    network.to_float(dtype)
    _keep_fp32(network, black_list, dtype)
    return network


def _keep_fp32(network, black_list, dtype):
    for name, subcell in list(network.name_cells().items()):
        if subcell is network:
            continue
        if isinstance(subcell, tuple(black_list)):
            _replace_child(network, name, _OutputTo16(subcell.to_float(mstype.float32), dtype))
        else:
            _keep_fp32(subcell, black_list, dtype)


def _do_keep_batchnorm_fp32(network, dtype=mstype.float16):
    """MindSpore's private walk (MindArmour calls it): the normalization cells of a network cast to low precision
    compute in float32 again and return `dtype`."""
    _keep_fp32(network, AMP_BLACK_LIST, dtype)


def _auto_white_list(network, white_list, dtype):
    """A rewritten copy of `network` (MindSpore's rewrite builds a new network): its cells of the white list
    compute in `dtype` and return float32, and so do its white-list primitive instances. The copy shares the
    Parameters; `network`, its cells and their classes are left as they were."""
    cell_types = tuple(t for t in white_list if isinstance(t, type) and issubclass(t, nn.Cell))
    prim_types = tuple(t for t in white_list if isinstance(t, type) and issubclass(t, P.Primitive))
    copy = _rewritten_copy(network, {}, {})

    def visit(cell):
        if _precision_set_by_user(cell):
            return
        if cell_types and isinstance(cell, cell_types):
            cell.to_float(dtype)
            cell.register_forward_hook(_outputs_to_float32)
            return
        if prim_types:
            for attr, value in list(cell.__dict__.items()):
                if isinstance(value, prim_types) and not isinstance(value, P.Cast):
                    cell.__dict__[attr] = _CastPrimitive(value, dtype)
        for child in cell.name_cells().values():
            visit(child)

    visit(copy)
    return copy


# per-call state a copy must not share with the cell it copies (compiled graphs, caches of the mode flags)
_UNSHARED = ("_ms_compiled", "_modes_cache", "_hook_grad_output", "_bound")
# the per-cell tables a copy gets its own (shallow) copies of
_OWN_TABLES = ("_params", "_cells", "_params_list", "_forward_pre_hooks", "_forward_hooks", "_backward_hooks",
               "_backward_pre_hooks", "_flags")


def _rewritten_copy(cell, counts, memo):
    """A copy of `cell` and its descendants as MindSpore's rewrite names them: each an instance of a new subclass
    `<Class>Opt`, then `<Class>Opt_1`, ... (pre-order), sharing the Parameters and other attribute values."""
    done = memo.get(id(cell))
    if done is not None:
        return done
    cls = type(cell)
    base = cls.__name__ + "Opt"
    n = counts.get(base, 0)
    counts[base] = n + 1
    opt_cls = type(base if n == 0 else f"{base}_{n}", (cls,), {"__module__": cls.__module__})
    new = object.__new__(opt_cls)
    memo[id(cell)] = new
    d = {k: v for k, v in cell.__dict__.items() if k not in _UNSHARED}
    for key in _OWN_TABLES:
        if key in d:
            d[key] = type(d[key])(d[key])
    for name, child in d["_cells"].items():
        if child is not None:
            d["_cells"][name] = _rewritten_copy(child, counts, memo)
    for key, value in d.items():
        if isinstance(value, nn.Cell) and id(value) in memo:           # a child also held as a plain attribute
            d[key] = memo[id(value)]
        elif isinstance(value, (tuple, list)) and any(isinstance(v, nn.Cell) and id(v) in memo for v in value):
            d[key] = type(value)(memo.get(id(v), v) if isinstance(v, nn.Cell) else v for v in value)
        elif isinstance(value, types.MethodType) and value.__self__ is cell:   # an instance-level construct
            d[key] = types.MethodType(value.__func__, new)
    new.__dict__.update(d)
    return new


# ---------------------------------------------------------------- level 'auto': a cast policy per primitive
_NO_CASTS = {}      # pushed while a rule runs its primitive: the primitive itself is not looked up again
_policies = {}      # dtype -> the policy of level 'auto' in that dtype, built on first use


def _run_as_is(prim, args, attrs):
    _registry.cast_policies.append(_NO_CASTS)
    try:
        return prim(*args, **attrs)
    finally:
        _registry.cast_policies.pop()


def _inputs_to(dtype):
    """A policy rule: the floating-point inputs cast to `dtype` (Cast primitives, on the tape), then the primitive."""
    def rule(prim, args, attrs):
        return _run_as_is(prim, [amp_cast(a, dtype) for a in args], attrs)
    return rule


def _dense_inputs_to(dtype):
    """Dense's rule: MindSpore's Dense is MatMul (white list) then BiasAdd, which promotes to the float32 bias."""
    def rule(prim, args, attrs):
        if len(args) == 3 and isinstance(args[2], Tensor):
            x, w, b = args
            return ops.add(_run_as_is(prim, [amp_cast(x, dtype), amp_cast(w, dtype), None], attrs), b)
        return _run_as_is(prim, [amp_cast(a, dtype) for a in args], attrs)
    return rule


def _auto_policy(dtype):
    """Level 'auto' in `dtype`: {Prim object: rule}, read by `Prim.__call__` while an 'auto' network runs."""
    policy = _policies.get(dtype)
    if policy is None:
        low, full = _inputs_to(dtype), _inputs_to(mstype.float32)
        policy = {}
        for names, rule in ((_AUTO_WHITE, low), (_AUTO_BLACK, full)):
            for name in names:
                prim = _registry.registry.get(name)
                if prim is not None:
                    policy[prim] = rule
        dense = _registry.registry.get("Dense")
        if dense is not None:
            policy[dense] = _dense_inputs_to(dtype)
        _policies[dtype] = policy
    return policy


class _PolicyScope:
    """While active, `policy` decides the dtypes primitives run in (innermost scope wins); restored on exit."""

    __slots__ = ("policy",)

    def __init__(self, policy):
        self.policy = policy

    def __enter__(self):
        _registry.cast_policies.append(self.policy)

    def __exit__(self, *exc):
        _registry.cast_policies.pop()
        return False


class _AutoConstruct:
    """An 'auto' cell's construct (an instance attribute: the class is untouched), run in its policy's scope."""

    __slots__ = ("inner", "policy")

    def __init__(self, inner, policy):
        self.inner, self.policy = inner, policy

    def __call__(self, *args, **kwargs):
        with _PolicyScope(self.policy):
            return self.inner(*args, **kwargs)

    def around(self, fn):
        """fn (the cell's construct as graph mode converts it) run in this wrapper's scope, as construct is."""
        inner = getattr(self.inner, "around", None)
        fn = fn if inner is None else inner(fn)
        policy = self.policy

        def run(*args, **kwargs):
            with _PolicyScope(policy):
                return fn(*args, **kwargs)
        return run


def _set_amp_decorator(obj, dtype):
    policy = _auto_policy(dtype)
    if inspect.isfunction(obj) or inspect.ismethod(obj):
        @functools.wraps(obj)
        def wrapper(*args, **kwargs):
            with _PolicyScope(policy):
                return obj(*args, **kwargs)
        # graph mode converts the wrapper itself (the scope is active while obj is traced), not obj's source
        del wrapper.__wrapped__
        return wrapper
    _set_construct(obj, _AutoConstruct, policy)
    return obj


def auto_mixed_precision(network, amp_level="O0", dtype=mstype.float16):
    """The network set up for mixed precision at `amp_level` ('O0', 'O1', 'O2', 'O3' or 'auto').

    Args:
        network (Union[Cell, function]): the network (a function only with 'auto').
        amp_level (str): the level (see the module documentation). Default: ``'O0'`` (unchanged).
        dtype (mindspore.dtype): ``mindspore.float16`` or ``mindspore.bfloat16``. Default: float16.

    Returns:
        The network (O2/O3: wrapped so its outputs are float32).

    Raises:
        TypeError: `network` is not a Cell (or function for 'auto').
        ValueError: an unknown level or dtype.

    >>> import mindseed as ms
    >>> net = ms.amp.auto_mixed_precision(ms.nn.Dense(3, 2), "O3", ms.bfloat16)
    >>> net(ms.ops.ones((1, 3), ms.float32)).dtype
    Float32
    """
    if not isinstance(network, nn.Cell):
        if amp_level == "auto":
            if not inspect.isfunction(network) and not inspect.ismethod(network):
                raise TypeError("For amp_level 'auto', the network type should be Cell or function.")
        else:
            raise TypeError(f"For amp_level '{amp_level}', the network type should be Cell.")
    if dtype not in _LOW:
        raise ValueError(f"The dtype should be one of (mstype.float16, mstype.bfloat16), but got {dtype}.")
    if amp_level == "O0":
        return network
    if amp_level == "O1":
        network = _auto_white_list(network, AMP_WHITE_LIST, dtype)
    elif amp_level == "O2":
        network = _auto_black_list(network, AMP_BLACK_LIST, dtype)
        network = _OutputTo32(network)
    elif amp_level == "O3":
        network.to_float(dtype)
        network = _OutputTo32(network)
    elif amp_level == "auto":
        network = _set_amp_decorator(network, dtype)
    else:
        raise ValueError(f"The amp level {amp_level} is not supported")
    if isinstance(network, nn.Cell):
        network.__dict__["_amp_level"] = amp_level
    return network


def _list_check(custom_list, list_name):
    if not isinstance(custom_list, list):
        raise TypeError(f"The type of {list_name} should be list, but got {type(custom_list)}")
    for elem in custom_list:
        if not isinstance(elem, type):
            raise TypeError(f"The element in {list_name} should be a class, but got {elem}")
        if list_name == "white_list" and not issubclass(elem, (nn.Cell, P.Primitive)):
            raise TypeError(f"The subclass of element in {list_name} should be one of 'Cell' and 'Primitive', but got "
                            f"{elem}")
        if list_name == "black_list" and not issubclass(elem, nn.Cell):
            raise TypeError(f"The subclass of element in {list_name} should be one of 'Cell', but got {elem}")


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=mstype.float16):
    """Mixed precision with a custom white list (like O1) or black list (like O2).

    Args:
        network (Cell): the network.
        white_list (list[type]): Cell and Primitive classes computed in low precision. Default: ``None``.
        black_list (list[type]): Cell classes kept in float32. Default: ``None``.
        dtype (mindspore.dtype): float16 or bfloat16. Default: float16.

    Raises:
        TypeError: `network` is not a Cell or a list is malformed.
        ValueError: neither or both lists given, or a bad dtype.

    >>> import mindseed as ms
    >>> net = ms.amp.custom_mixed_precision(ms.nn.Dense(3, 2), black_list=ms.amp.get_black_list())
    >>> net(ms.ops.ones((1, 3), ms.float32)).dtype
    Float32
    """
    if not isinstance(network, nn.Cell):
        raise TypeError("The network type should be Cell.")
    if white_list is None and black_list is None:
        raise ValueError("For custom_mixed_precision, one of white_list and black_list must be provided.")
    if white_list is not None and black_list is not None:
        raise ValueError("For custom_mixed_precision, the white_list or black_list cannot be provided at the same "
                         "time, please provide one or the other.")
    if dtype not in _LOW:
        raise ValueError(f"The dtype should be one of (mstype.float16, mstype.bfloat16), but got {dtype}.")
    if white_list is not None:
        _list_check(white_list, "white_list")
        return _auto_white_list(network, white_list, dtype)
    _list_check(black_list, "black_list")
    network = _auto_black_list(network, black_list, dtype)
    return _OutputTo32(network)


# ---------------------------------------------------------------- loss scaling
def all_finite(inputs):
    """A scalar bool Tensor: True when no Tensor of `inputs` (a Tensor or a tuple/list of them) holds inf or nan.

    >>> import mindseed as ms
    >>> bool(ms.amp.all_finite((ms.Tensor([1.0]), ms.Tensor([float("inf")]))))
    False
    """
    items = [x for x in (inputs if isinstance(inputs, (tuple, list)) else (inputs,)) if isinstance(x, Tensor)]
    if _state.tracing is not None:
        # in a graph: computed at every call
        if not items:
            return Tensor(True, mstype.bool_)
        return ops.stack([ops.isfinite(x).all() for x in items]).all()
    return Tensor(K.all_finite([x._data for x in items]), mstype.bool_)


def _map(inputs, fn):
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(_map(x, fn) for x in inputs)
    if isinstance(inputs, dict):
        return {k: _map(v, fn) for k, v in inputs.items()}
    return fn(inputs) if isinstance(inputs, Tensor) else inputs


def _grad_scale_map(scale_value, inputs):
    """inputs (a Tensor or a nested tuple of them) multiplied by the Tensor `scale_value` (MindSpore's helper for
    LossScaler subclasses, `from mindspore.amp import _grad_scale_map`)."""
    return _map(inputs, lambda x: x * ops.cast(scale_value, x.dtype))


def _grad_unscale_map(scale_value, inputs):
    """inputs multiplied by 1 / `scale_value`."""
    factor = ops.reciprocal(scale_value)
    return _map(inputs, lambda x: x * ops.cast(factor, x.dtype))


class LossScaler:
    """Base class of the loss scalers: `scale`, `unscale` and `adjust`."""

    def scale(self, inputs):
        """inputs multiplied by the loss scale."""
        raise AttributeError(f"For '{type(self).__name__}', the method 'scale' is not defined.")

    def unscale(self, inputs):
        """inputs divided by the loss scale."""
        raise AttributeError(f"For '{type(self).__name__}', the method 'unscale' is not defined.")

    def adjust(self, grads_finite):
        """Update the scale after a step."""
        raise AttributeError(f"For '{type(self).__name__}', the method 'adjust' is not defined.")

    def _scaled(self, inputs, inverse):
        if _state.tracing is not None:
            # in a graph: the scale of each call (the Parameter), 1/scale rounded to float32 once as below
            return (_grad_unscale_map if inverse else _grad_scale_map)(self.scale_value, inputs)
        value = K.item(self.scale_value._data)
        factor = 1.0 / value if inverse else value
        return _map(inputs, lambda x: x * ops.cast(Tensor(factor, mstype.float32), x.dtype))


class StaticLossScaler(LossScaler):
    """A constant loss scale.

    Args:
        scale_value (Union[float, int]): the scale, >= 1.

    >>> import mindseed as ms
    >>> s = ms.amp.StaticLossScaler(1024)
    >>> float(s.scale(ms.Tensor(2.0)))
    2048.0
    """

    def __init__(self, scale_value):
        scale_value = V.value_type("scale_value", scale_value, [float, int])
        if scale_value < 1.0:
            raise ValueError(f"The argument 'scale_value' must be > 1, but got {scale_value}")
        self.scale_value = Parameter(Tensor(scale_value, mstype.float32), name="scale_value")

    def scale(self, inputs):
        """inputs (a Tensor or a nested tuple of them) multiplied by the scale."""
        return self._scaled(inputs, False)

    def unscale(self, inputs):
        """inputs divided by the scale."""
        return self._scaled(inputs, True)

    def adjust(self, grads_finite):
        """A static scale never changes: returns False."""
        return False


class DynamicLossScaler(LossScaler):
    """A loss scale divided by `scale_factor` on overflow and multiplied by it after `scale_window` finite steps.

    Args:
        scale_value (Union[float, int]): the initial scale, >= 1.
        scale_factor (int): the factor.
        scale_window (int): finite steps before growing.

    >>> import mindseed as ms
    >>> s = ms.amp.DynamicLossScaler(1024, 2, 1000)
    >>> _ = s.adjust(ms.Tensor(False))
    >>> float(s.scale_value)
    512.0
    """

    def __init__(self, scale_value, scale_factor, scale_window):
        scale_value = V.value_type("scale_value", scale_value, [float, int])
        if scale_value < 1.0:
            raise ValueError(f"The argument 'scale_value' must be > 1, but got {scale_value}")
        self.scale_value = Parameter(Tensor(scale_value, mstype.float32), name="scale_value")
        self.scale_window = V.positive_int(scale_window, "scale_window")
        self.scale_factor = V.positive_int(scale_factor, "scale_factor")
        self.counter = Parameter(Tensor(0, mstype.int32), name="counter")

    def scale(self, inputs):
        """inputs (a Tensor or a nested tuple of them) multiplied by the scale."""
        return self._scaled(inputs, False)

    def unscale(self, inputs):
        """inputs divided by the scale."""
        return self._scaled(inputs, True)

    def adjust(self, grads_finite):
        """Grow the scale after `scale_window` finite steps, shrink it (not below 1) when not finite."""
        # in a graph: a node run at every call
        return _state.opaque_call(self._adjust, (grads_finite,), writes=(self.scale_value, self.counter))

    def _adjust(self, grads_finite):
        finite = bool(grads_finite)
        value = K.item(self.scale_value._data)
        counter = int(K.item(self.counter._data))
        if finite:
            grown = value * self.scale_factor
            grown_f32 = K.item(Tensor(grown, mstype.float32)._data)
            if counter == self.scale_window - 1 and grown_f32 != float("inf"):
                value = grown
        else:
            value = max(1.0, value / self.scale_factor)
        K.assign_(self.scale_value._data, value)
        K.assign_(self.counter._data, ((counter + 1) % self.scale_window) * int(finite))
        return True


class LossScaleManager:
    """Base class of the loss-scale managers used by `Model` and `build_train_network`."""

    def get_loss_scale(self):
        """The current loss scale."""
        return None

    def update_loss_scale(self, overflow):
        """Update the scale from the overflow flag of a step."""
        return None

    def get_update_cell(self):
        """The Cell updating the scale inside `TrainOneStepWithLossScaleCell` (or None)."""
        return None


class FixedLossScaleManager(LossScaleManager):
    """A fixed loss scale; with `drop_overflow_update` a step with inf/nan gradients is skipped.

    Args:
        loss_scale (float): >= 1. Default: ``128.0``.
        drop_overflow_update (bool): skip overflowing steps (then the optimizer must not rescale). Default: ``True``.

    >>> import mindseed as ms
    >>> ms.amp.FixedLossScaleManager(1024.0, False).get_update_cell() is None
    True
    """

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        if loss_scale < 1:
            raise ValueError(f"The argument 'loss_scale' must be >= 1, but got {loss_scale}")
        self._loss_scale = loss_scale
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self):
        """The loss scale."""
        return self._loss_scale

    def get_drop_overflow_update(self):
        """Whether overflowing steps are skipped."""
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """A fixed scale does not change."""
        return None

    def get_update_cell(self):
        """A `FixedLossScaleUpdateCell`, or None when overflowing steps are not dropped."""
        if not self._drop_overflow_update:
            return None
        return nn.FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """A loss scale adjusted during training: divided by `scale_factor` on overflow, multiplied after
    `scale_window` steps without.

    Args:
        init_loss_scale (float): Default: ``2 ** 24``.
        scale_factor (int): Default: ``2``.
        scale_window (int): Default: ``2000``.

    >>> import mindseed as ms
    >>> m = ms.amp.DynamicLossScaleManager(1024, 2, 100)
    >>> m.update_loss_scale(True); m.get_loss_scale()
    512.0
    """

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        if init_loss_scale < 1.0:
            raise ValueError(f"The argument 'init_loss_scale' must be > 1, but got {init_loss_scale}")
        self.loss_scale = init_loss_scale
        V.positive_int(scale_window, "scale_window", type(self).__name__)
        self.scale_window = scale_window
        if scale_factor <= 0:
            raise ValueError(f"The argument 'scale_factor' must be > 0, but got {scale_factor}")
        self.scale_factor = scale_factor
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self):
        """The current loss scale."""
        return self.loss_scale

    def update_loss_scale(self, overflow):
        """Shrink the scale on overflow, grow it after `scale_window` good steps."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"Dynamic loss scale Continuous overflow {self.bad_step} times, has exceeded maximum "
                               f"threshold.")
        self.cur_iter += 1

    def get_drop_overflow_update(self):
        """Overflowing steps are always skipped."""
        return True

    def get_update_cell(self):
        """A `DynamicLossScaleUpdateCell` with this manager's settings."""
        return nn.DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)


# ---------------------------------------------------------------- build_train_network
_CONFIG_LEVEL = {
    "O0": {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float32, "loss_scale_manager": None},
    "O1": {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float32, "loss_scale_manager": None},
    "O2": {"keep_batchnorm_fp32": True, "cast_model_type": mstype.float16, "loss_scale_manager": "dynamic"},
    "O3": {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float16, "loss_scale_manager": None},
    "auto": {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float32, "loss_scale_manager": None},
}


def _check_kwargs(key_words):
    for arg in key_words:
        if arg not in ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager"):
            raise ValueError(f"Unsupported arg '{arg}'")
    if "cast_model_type" in key_words and key_words["cast_model_type"] not in (mstype.float16, mstype.float32,
                                                                              mstype.bfloat16):
        raise TypeError(f"The 'cast_model_type' should be one of [Float16, Float32, BFloat16], but got "
                        f"'{key_words['cast_model_type']}'.")
    if "keep_batchnorm_fp32" in key_words:
        V.value_type("keep_batchnorm_fp32", key_words["keep_batchnorm_fp32"], bool)
    manager = key_words.get("loss_scale_manager")
    if manager:
        from mindseed.boost import GroupLossScaleManager  # noqa: PLC0415 -- a sibling package of layer 6
        V.value_type("loss_scale_manager", manager, [LossScaleManager, GroupLossScaleManager])


class _WithLossCell32(nn.WithLossCell):
    """WithLossCell computing the loss on float32 outputs and labels (low-precision networks)."""

    def construct(self, data, label):
        out = self._backbone(data)
        return self._loss_fn(_cast_tree(out, mstype.float32), _cast_tree(label, mstype.float32))


def _add_loss_network(network, loss_fn, cast_model_type):
    """The network with its loss: on float32 outputs and labels when the network computes in low precision."""
    V.value_type("loss_fn", loss_fn, [nn.Cell])
    if cast_model_type in _LOW or network.__dict__.get("_amp_level") in ("O2", "O3", "auto"):
        return _WithLossCell32(network, loss_fn)
    return nn.WithLossCell(network, loss_fn)


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0", **kwargs):
    """A training cell (TrainOneStepCell, or TrainOneStepWithLossScaleCell with loss scaling) at amp `level`.

    Args:
        network (Cell): the network.
        optimizer (Optimizer): the optimizer.
        loss_fn (Cell): a loss appended to the network. Default: ``None``.
        level (str): 'O0', 'O1', 'O2', 'O3' or 'auto'. O2 casts to float16 keeping BatchNorm in float32, with
            dynamic loss scaling; O3 casts everything. Default: ``'O0'``.
        boost_level (str): 'O0', 'O1' or 'O2'; O1/O2 train with `boost.BoostTrainOneStepCell`. Default: ``'O0'``.
        kwargs: ``cast_model_type`` (float16/bfloat16/float32), ``keep_batchnorm_fp32`` (bool),
            ``loss_scale_manager`` (LossScaleManager or None) override the level's settings.

    Raises:
        TypeError: `optimizer` is not an Optimizer, `level` not a str, or a keyword has a wrong type.
        ValueError: an unknown level or keyword.

    >>> import mindseed as ms
    >>> net = ms.nn.Dense(2, 1)
    >>> step = ms.amp.build_train_network(net, ms.nn.SGD(net.trainable_params()), ms.nn.MSELoss(), level="O2")
    >>> type(step).__name__
    'TrainOneStepWithLossScaleCell'
    """
    from mindseed import boost  # noqa: PLC0415 -- a sibling package of layer 6, needed only here
    V.value_type("optimizer", optimizer, [nn.Optimizer, boost.FreezeOpt])
    if not isinstance(level, str):
        raise TypeError(f"The argument `level` must be a string in ['O0', 'O1', 'O2', 'O3', 'auto'],but got type "
                        f"{type(level)}.")
    if level not in _CONFIG_LEVEL:
        raise ValueError(f"The 'level' must be in ['O0', 'O1', 'O2', 'O3', 'auto'], but got {level!r}.")
    if boost_level not in ("O0", "O1", "O2"):
        raise ValueError(f"The 'boost_level' must be in ['O0', 'O1', 'O2'], but got {boost_level!r}.")
    _check_kwargs(kwargs)
    config = dict(_CONFIG_LEVEL[level], **kwargs)
    if config["loss_scale_manager"] == "dynamic":
        config["loss_scale_manager"] = DynamicLossScaleManager()
    cast_type = config["cast_model_type"]
    if cast_type in _LOW:
        if config["keep_batchnorm_fp32"]:  # low precision but for the normalization layers
            _auto_black_list(network, AMP_BLACK_LIST, cast_type)
        else:
            network.to_float(cast_type)
    elif not config["keep_batchnorm_fp32"] and level == "O2":
        network.to_float(mstype.float16)
    elif not (cast_type == mstype.float32 and level in ("O2", "O3")):
        network = auto_mixed_precision(network, level)
    if loss_fn:
        network = _add_loss_network(network, loss_fn, cast_type)
    loss_scale = None
    manager = config["loss_scale_manager"]
    if manager is not None:
        loss_scale = manager.get_loss_scale()
        update_cell = manager.get_update_cell()
        if update_cell is not None:
            if boost_level in ("O1", "O2"):
                return boost.BoostTrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell).set_train()
            return nn.TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell).set_train()
    if boost_level in ("O1", "O2"):
        return boost.BoostTrainOneStepCell(network, optimizer, loss_scale).set_train()
    return nn.TrainOneStepCell(network, optimizer, loss_scale).set_train()
