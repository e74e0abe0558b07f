"""Functional autodiff with MindSpore's API: grad, value_and_grad, vjp, jvp, jacrev, jacfwd, GradOperation."""
from mindseed._utils import _state
from mindseed.common._mutable import _Mutable
from mindseed.common._parallel import partitioned_gradients
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.autograd._tape import Tape, active, backward
from mindseed.autograd.hooks import run_grad_hooks
from mindseed.ops._prims import core as P

__all__ = ["grad", "value_and_grad", "get_grad", "vjp", "jvp", "jacrev", "jacfwd", "GradOperation"]


class GradPositionError(RuntimeError, IndexError):
    """A grad_position past the inputs: MindSpore raises RuntimeError in PyNative mode and IndexError in graph mode;
    this is both."""


def _is_trainable_weight(w):
    """A weight `grad` differentiates: a Parameter with requires_grad, or a Tensor that is a parameter in MindSpore's
    sense (it carries a `param_info`, as Tensor subclasses of packages such as mindnlp make their parameters) whose
    `param_info.requires_grad` holds. Any other Tensor asked for gets zeros, as in MindSpore."""
    if isinstance(w, Parameter):
        return bool(w.requires_grad)
    info = getattr(w, "param_info", None)
    return isinstance(w, Tensor) and info is not None and bool(getattr(info, "requires_grad", True))


def _check_grad_args(grad_position, weights, has_aux, return_ids):
    """The argument types MindSpore's grad / value_and_grad take (a bool position counts as an int)."""
    if grad_position is not None:
        if not isinstance(grad_position, (int, tuple)):
            raise TypeError("For 'F.grad', the 'grad_position' must be int or tuple.")
        if isinstance(grad_position, tuple) and not all(isinstance(p, int) for p in grad_position):
            raise TypeError("For 'F.grad', the element in 'grad_position' must be int.")
    if weights is not None and not isinstance(weights, (Tensor, list, tuple)):
        raise TypeError(f"The weights you provided is expected to be a tensor, or a list or tuple. but got "
                        f"{weights!r:.80}")
    for name, v in (("has_aux", has_aux), ("return_ids", return_ids)):
        if not isinstance(v, bool):
            raise TypeError(f"For '_Grad', the '{name}' should be bool, but got {type(v).__name__}")


def _check_positions(grad_position, nargs):
    if grad_position is None:
        return ()
    positions = (int(grad_position),) if isinstance(grad_position, int) else tuple(int(p) for p in grad_position)
    if not positions:
        raise RuntimeError("grad_position should not be empty when grad by position!")
    if len(set(positions)) != len(positions):
        raise ValueError("There are duplicate positions in `grad_position`, please check it")
    for p in positions:
        if p < 0:
            raise ValueError(f"For 'grad', grad_position must be >= 0, but got {p}.")
        if p >= nargs:
            raise GradPositionError(f"For 'grad', position index {p} is exceed input size ({nargs} inputs).")
    return positions


def _weights_list(weights):
    if weights is None:
        return []
    if isinstance(weights, Tensor):
        return [weights]
    ws = list(weights)
    for w in ws:
        if not isinstance(w, Tensor):
            raise TypeError(f"For 'grad', the 'weights' must be a Parameter or a list of Parameters, but got "
                            f"{type(w).__name__}.")
    return ws


def _zeros_like(x):
    return P.zeros_like_p(x)


def _ones_like(x):
    return P.ones_like_p(x)


def _flatten_outputs(out):
    """Tensors of a (nested) output tuple, for multi-output differentiation."""
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(_flatten_outputs(o))
        return res
    if isinstance(out, dict):
        res = []
        for o in out.values():
            res.extend(_flatten_outputs(o))
        return res
    return []


def _stop(out):
    if isinstance(out, Tensor):
        return P.stop_gradient_p(out)
    if isinstance(out, tuple):
        return tuple(_stop(o) for o in out)
    if isinstance(out, list):
        return [_stop(o) for o in out]
    return out


def _traceable(fn, op="grad"):
    """Inside a graph trace, the function with its control flow rewritten for the graph."""
    if not callable(fn):
        raise TypeError(f"For '{op}', the 'fn' must be a function or a Cell, but got {type(fn).__name__}.")
    if _state.tracing is not None and _state.convert is not None:
        return _state.convert(fn)
    return fn


def _tensors_arg(op, name, x):
    """A Tensor or a tuple/list of Tensors, as a tuple."""
    xs = (x,) if isinstance(x, Tensor) else tuple(x) if isinstance(x, (tuple, list)) else None
    if xs is None or not all(isinstance(t, Tensor) for t in xs):
        raise TypeError(f"For '{op}', the '{name}' must be a Tensor or a tuple of Tensors, but got {x!r:.80}.")
    return xs


def _tensor_leaves(a):
    """The Tensors of a (nested) tuple/list/dict argument, or None when it holds none."""
    if isinstance(a, Tensor):
        return [a]
    if isinstance(a, (tuple, list, dict)):
        leaves = [t for x in (a.values() if isinstance(a, dict) else a) for t in (_tensor_leaves(x) or [])]
        return leaves or None
    return None


def _differentiable_positions(args, positions):
    """The positions MindSpore differentiates: a Tensor argument; in a graph also a tuple/list/dict holding Tensors
    built there, and in GRAPH_MODE a `mutable` one passed from outside (its gradient has the same structure). Other
    arguments (numbers, strings, constant tuples, a plain tuple the graph was called with) are skipped, in PyNative
    also containers of Tensors."""
    rec = _state.tracing

    def differentiable(a):
        if isinstance(a, Tensor):
            return True
        if rec is not None and rec.is_argument_container(a):
            return False
        if rec is not None or (_state.mode == 0 and isinstance(a, _Mutable)):
            return _tensor_leaves(a) is not None
        return False
    return tuple(p for p in positions if differentiable(args[p]))


class _UsedWeightsTape(Tape):
    """A tape that also differentiates every Parameter (with requires_grad) the function reads, noting them in the
    order of their first use: MindSpore's PyNative weights when `GradOperation(get_by_list=True)` gets none."""

    __slots__ = ("used",)

    def __init__(self):
        super().__init__()
        self.used = []

    def record(self, prim, args, attrs, out):
        if prim.bprop is not None and _state.grad_enabled:
            for a in args:
                if isinstance(a, Parameter) and a.requires_grad and id(a) not in self.tracked:
                    self.tracked[id(a)] = a
                    self.used.append(a)
        Tape.record(self, prim, args, attrs, out)


def _number_leaves(sens):
    """The sensitivity with its Python numbers as Tensors."""
    if isinstance(sens, (int, float)) and not isinstance(sens, bool):
        return Tensor(sens)
    if isinstance(sens, (tuple, list)):
        return type(sens)(_number_leaves(x) for x in sens)
    return sens


def _checked_sens(roots, sens_list):
    """The sensitivities as MindSpore takes them: a scalar output's is any one-element Tensor or number (cast to
    its dtype); another output's must have its dtype (TypeError) and shape (ValueError)."""
    res = []
    for r, s in zip(roots, sens_list):
        if not isinstance(s, Tensor):
            s = Tensor(s)
        if r.shape == ():
            if s.size != 1:
                raise ValueError(f"The shape should be [], but got {list(s.shape)}, for the sens gradient of a "
                                 f"scalar output.")
            s = P.reshape_p(s, shape=()) if s.shape else s
            res.append(s if s.dtype == r.dtype else P.cast_p(s, dtype=r.dtype.name))
            continue
        if s.shape == ():
            raise RuntimeError(f"For grad interface or custom function, grad tensor should be broadcast to expected "
                               f"shape, but got [] vs {list(r.shape)}")
        if s.dtype != r.dtype:
            raise TypeError(f"The dtype should be {r.dtype}, but got {s.dtype}, for the sens gradient of an output "
                            f"of shape {r.shape}.")
        if s.shape != r.shape:
            raise ValueError(f"The shape should be {list(r.shape)}, but got {list(s.shape)}, for the sens gradient "
                             f"of an output of dtype {r.dtype}.")
        res.append(s)
    return res


def _run_and_backward(fn, args, kwargs, positions, weights, has_aux, sens=None):
    """Run fn under a fresh tape; return (value, gradients of inputs at positions, gradients of weights).

    Every position must hold a Tensor, or (see `_differentiable_positions`) a tuple/list holding Tensors.
    `weights=None`: the Parameters the function reads, in the order of their first use."""
    if not _state.grad_enabled:
        raise RuntimeError("In no_grad context, you can not calculate gradient")
    fn = _traceable(fn)
    tape = Tape() if weights is not None else _UsedWeightsTape()
    args = list(args)
    aliases = {}
    origins = {}     # id(alias) -> the input it stands for (whose Tensor hooks run on its gradient)

    # PyNative differentiates a tensor wherever it is passed (f(x, x) sees one variable twice); a compiled graph
    # has one parameter per position, as MindSpore's graph mode
    per_position = _state.tracing is not None

    def alias_of(a):
        # a fresh alias per transform keeps nested transforms of the same tensor apart
        if per_position:
            alias = P.identity_p(a)
            tape.watch(alias)
            return alias
        alias = aliases.get(id(a))
        if alias is None:
            alias = aliases[id(a)] = P.identity_p(a)
            origins[id(alias)] = a
            tape.watch(alias)     # integer Tensors too: MindSpore differentiates every Tensor input
        return alias

    def alias_all(a):
        if isinstance(a, Tensor):
            return alias_of(a)
        if isinstance(a, dict):
            return type(a)((k, alias_all(x)) for k, x in a.items())
        if isinstance(a, (tuple, list)):
            return type(a)(alias_all(x) for x in a)
        return a

    for p in positions:
        a = args[p]
        if isinstance(a, Tensor) or _tensor_leaves(a) is not None:
            args[p] = alias_all(a)
        else:
            raise TypeError(f"For 'grad', the input at grad_position {p} must be a Tensor, but got {type(a).__name__}.")
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            # as MindSpore, a tensor is differentiated wherever it is passed: f(x, x) sees one variable twice
            if not per_position:
                args[i] = a = aliases.get(id(a), a)
            if not isinstance(a, Parameter):
                tape.inputs[id(a)] = a
    for w in weights or ():
        # a frozen weight asked for gets zeros, and so does a Tensor that is not a parameter (MindSpore)
        if _is_trainable_weight(w):
            tape.watch(w)
    with active(tape):
        out = fn(*args, **kwargs)
    if weights is None:
        # a Parameter returned as it is is read too (no operation saw it)
        for r in _flatten_outputs(out[0] if has_aux and isinstance(out, tuple) else out):
            if isinstance(r, Parameter) and r.requires_grad and id(r) not in tape.tracked:
                tape.watch(r)
                tape.used.append(r)
        weights = tape.used
    if has_aux:
        if not isinstance(out, tuple) or len(out) < 2:
            # MindSpore's graph compiler raises RuntimeError, PyNative ValueError
            raise (ValueError if _state.tracing is None else RuntimeError)(
                "When has_aux is True, origin fn requires more than one outputs.")
        roots = _flatten_outputs(out[0])
    else:
        roots = _flatten_outputs(out)
    if sens is None:
        sens_list = [_ones_like(r) for r in roots]
    else:
        sens_list = _flatten_outputs(_number_leaves(sens))
        if len(sens_list) != len(roots):
            raise RuntimeError(f"The given sens gradient's size should be same as out of network! The sens has "
                               f"{len(sens_list)} tensors, the output {len(roots)}.")
        sens_list = _checked_sens(roots, sens_list)
    ct = backward(tape, roots, sens_list, keep={id(w) for w in weights if id(w) in tape.moved})

    def grad_of(a):
        if isinstance(a, Tensor):
            # an input updated in place is differentiated at its original value, which the tape moved elsewhere
            g = _grad_or_zeros(ct, tape.moved.get(id(a), a))
            origin = origins.get(id(a))
            # hooks registered on the input itself run on its complete gradient (MindSpore)
            return run_grad_hooks(origin, g) if origin is not None and id(origin) in _state.tensor_grad_hooks else g
        if isinstance(a, dict):
            return {k: grad_of(x) for k, x in a.items()}
        if isinstance(a, list):
            return [grad_of(x) for x in a]
        if isinstance(a, tuple):
            return tuple(grad_of(x) for x in a)
        return 0

    input_grads = tuple(grad_of(args[p]) for p in positions)
    weight_grads = tuple(_grad_or_zeros(ct, w) for w in weights)
    return out, input_grads, weight_grads


def _grad_or_zeros(ct, x):
    g = ct.get(id(x))
    return g if g is not None else _zeros_like(x)


def _single_weight(weights_arg, weight_grads):
    """A single Parameter or Tensor (not in a list) gets its gradient itself, as in MindSpore."""
    return weight_grads[0] if isinstance(weights_arg, Tensor) and weight_grads else weight_grads


def _pack(positions_arg, input_grads, weight_grads, weights_arg, positions, weights, return_ids):
    """MindSpore's result shape: one differentiated input gives its gradient itself (an int or a 1-tuple
    grad_position alike), several a tuple, none an empty tuple; with return_ids each gradient is a (position,
    gradient) pair, one input's pair given itself as its gradient would be."""
    if return_ids:
        input_grads = tuple((p, g) for p, g in zip(positions, input_grads))
        weight_grads = tuple((w.name, g) for w, g in zip(weights, weight_grads))
    weight_grads = _single_weight(weights_arg, weight_grads)
    if positions_arg is None:
        return weight_grads
    ig = input_grads[0] if len(input_grads) == 1 else input_grads
    if weights_arg is not None:
        return ig, weight_grads
    return ig


def _aux_of(out):
    return _stop(out[1:]) if isinstance(out, tuple) else ()


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False, sens_param=False):
    """A function computing the gradient of `fn` with respect to inputs and/or weights.

    Args:
        fn (callable): the function to differentiate; with several outputs, their gradients are summed.
        grad_position (Union[int, tuple[int], None]): which inputs. Default: ``0``.
        weights (Union[Parameter, list[Parameter], ParameterTuple, None]): which weights. Default: ``None``.
        has_aux (bool): only the first output is differentiated; the others are returned. Default: ``False``.
        return_ids (bool): each gradient is paired with its position or parameter name. Default: ``False``.
        sens_param (bool): the last argument is the sensitivity (the gradient of the output) instead of ones.
            Default: ``False``.

    Returns:
        A function returning the gradients (and, with `has_aux`, the auxiliary outputs).

    Raises:
        ValueError: both `grad_position` and `weights` are None.

    >>> import mindseed as ms
    >>> ms.grad(lambda x: (x * x).sum())(ms.Tensor([1.0, 2.0]))
    Tensor(shape=[2], dtype=Float32, value= [2. 4.])
    """
    if grad_position is None and weights is None:
        raise ValueError("`grad_position` and `weight` can not be None at the same time.")
    _check_grad_args(grad_position, weights, has_aux, return_ids)

    def grad_fn(*args, **kwargs):
        runner = partitioned_gradients()
        if runner is not None:  # inside AutoParallel on a world of ranks: recorded, run sharded, read whole
            return runner.gradients(lambda *a: grad_fn(*a, **kwargs), args, weights, grad_fn, kwargs)
        args, sens = _split_sens(args, sens_param)
        out, res = _value_and_gradients(fn, args, kwargs, grad_position, weights, has_aux, return_ids, sens)
        return (res, _aux_of(out)) if has_aux else res

    return grad_fn


def _kwargs_as_inputs(fn, args, kwargs):
    """MindSpore differentiates the Tensors passed by keyword as inputs after the positional ones (in keyword
    order): fn as a function of all of them, the arguments, and the keywords left (values that are not Tensors)."""
    keys = [k for k, v in kwargs.items() if isinstance(v, Tensor)]
    if not keys:
        return fn, args, kwargs
    n = len(args)
    rest = {k: v for k, v in kwargs.items() if k not in keys}

    def with_keywords(*xs, **kw):
        return fn(*xs[:n], **dict(zip(keys, xs[n:])), **kw)
    return with_keywords, tuple(args) + tuple(kwargs[k] for k in keys), rest


def _split_sens(args, sens_param):
    """With `sens_param`, the last argument is the output's sensitivity, not an input of fn."""
    if not sens_param:
        return args, None
    if not args:
        raise ValueError("For 'grad', 'sens_param' is True, so the last argument must be the sensitivity, but no "
                         "argument was given.")
    return args[:-1], args[-1]


def _value_and_gradients(fn, args, kwargs, grad_position, weights, has_aux, return_ids, sens=None):
    """fn's output and the gradients `grad` returns for these arguments (`sens`: the output's sensitivity)."""
    fn, args, kwargs = _kwargs_as_inputs(fn, args, kwargs)
    positions = _differentiable_positions(args, _check_positions(grad_position, len(args)))
    ws = _weights_list(weights)
    out, ig, wg = _run_and_backward(fn, args, kwargs, positions, ws, has_aux, sens)
    return out, _pack(grad_position, ig, wg, weights, positions, ws, return_ids)


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False, sens_param=False):
    """Like `grad`, but the function returns `(value, gradients)`; value is fn's whole output.

    >>> import mindseed as ms
    >>> v, g = ms.value_and_grad(lambda x: (x * x).sum())(ms.Tensor([1.0, 2.0]))
    >>> float(v)
    5.0
    """
    if grad_position is None and weights is None:
        raise ValueError("`grad_position` and `weight` can not be None at the same time.")
    _check_grad_args(grad_position, weights, has_aux, return_ids)

    def value_and_grad_fn(*args, **kwargs):
        runner = partitioned_gradients()
        if runner is not None:  # inside AutoParallel on a world of ranks: recorded, run sharded, read whole
            return runner.gradients(lambda *a: value_and_grad_fn(*a, **kwargs), args, weights, value_and_grad_fn,
                                    kwargs)
        args, sens = _split_sens(args, sens_param)
        out, res = _value_and_gradients(fn, args, kwargs, grad_position, weights, has_aux, return_ids, sens)
        return ((out[0],) + _aux_of(out) if has_aux else out), res

    return value_and_grad_fn


def get_grad(gradients, identifier):
    """The gradient paired with `identifier` (a position or a Parameter) in `return_ids=True` output."""
    key = identifier.name if isinstance(identifier, Parameter) else identifier
    found = _find_grad(gradients, key, isinstance(identifier, Parameter))
    if found is None:
        raise RuntimeError(f"For 'get_grad', can not find the gradient for position or Parameter {identifier!r}.")
    return found


def _find_grad(node, key, by_name):
    if isinstance(node, tuple):
        if len(node) == 2 and isinstance(node[1], Tensor) and isinstance(node[0], (int, str)) \
                and not isinstance(node[0], bool):
            if (isinstance(node[0], str) == by_name) and node[0] == key:
                return node[1]
            return None
        for x in node:
            r = _find_grad(x, key, by_name)
            if r is not None:
                return r
    return None


_EMPTY = object()


class GradOperation:
    """The older MindSpore gradient API: `GradOperation(get_all, get_by_list, sens_param)(fn, weights)(*x)`.

    >>> import mindseed as ms
    >>> ms.ops.GradOperation()(lambda x: x * x)(ms.Tensor(3.0))
    Tensor(shape=[], dtype=Float32, value=6.0)
    """

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        for name, v in (("get_all", get_all), ("get_by_list", get_by_list), ("sens_param", sens_param)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'GradOperation', the '{name}' should be bool, but got {type(v).__name__}")
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param

    def __call__(self, fn=_EMPTY, weights=None):
        if fn is _EMPTY:
            raise TypeError("'GradOperation' requires a forward network or function as an input, while the input is "
                            "empty.")
        if not callable(fn):
            raise TypeError(f"For 'GradOperation', the first argument must be a 'Function' or 'Cell', but got "
                            f"{type(fn).__name__}.")
        if self.get_by_list and weights is None and (_state.tracing is not None or _state.mode == 0):
            # in a graph MindSpore differentiates a Cell's trainable parameters when no weights are given; in
            # PyNative the Parameters the call reads (`_run_and_backward`)
            params = getattr(fn, "trainable_params", None)
            weights = tuple(params()) if callable(params) else ()

        def grad_fn(*args, **kwargs):
            sens = None
            if self.sens_param:
                if "sens" in kwargs:
                    sens = kwargs.pop("sens")
                else:
                    args, sens = args[:-1], args[-1]
            ws = (None if weights is None else _weights_list(weights)) if self.get_by_list else []
            target, args, kwargs = _kwargs_as_inputs(fn, args, kwargs)
            positions = _differentiable_positions(args, range(len(args)) if self.get_all else range(min(1, len(args))))
            _, ig, wg = _run_and_backward(target, args, kwargs, positions, ws, False, sens)
            wg = _single_weight(weights, wg)
            if self.get_by_list and self.get_all:
                return ig, wg
            if self.get_by_list:
                return wg
            if self.get_all:
                return ig
            return ig[0] if ig else ()

        return grad_fn


def vjp(fn, *inputs, weights=None, has_aux=False):
    """`(outputs, vjp_fn)`: vjp_fn(v) gives the input gradients for cotangent v (and aux with has_aux).

    >>> import mindseed as ms
    >>> out, f = ms.vjp(lambda x: x * 2, ms.Tensor([1.0]))
    >>> f(ms.Tensor([1.0]))
    (Tensor(shape=[1], dtype=Float32, value= [2.]),)
    """
    fn = _traceable(fn, "vjp")
    for x in inputs:
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'vjp', the inputs must be Tensors, but got {type(x).__name__}.")
    tape = Tape()
    aliases = [P.identity_p(x) for x in inputs]
    for a in aliases:
        tape.watch(a)
    ws = _weights_list(weights)
    for w in ws:
        tape.watch(w)
    with active(tape):
        out = fn(*aliases)
    if has_aux:
        if not isinstance(out, tuple) or len(out) < 2:
            raise ValueError("When has_aux is True, origin fn requires more than one outputs.")
        primal, aux = out[0], _stop(out[1:]) if len(out) > 2 else _stop(out[1])
    else:
        primal, aux = out, None
    roots = _flatten_outputs(primal)

    def vjp_fn(*v):
        sens = _flatten_outputs(v)
        if len(sens) != len(roots):
            raise ValueError(f"For 'vjp', the cotangent has {len(sens)} tensors, the output {len(roots)}.")
        sens = _checked_sens(roots, sens)
        ct = backward(tape, roots, sens, keep={id(w) for w in ws if id(w) in tape.moved})
        # an input updated in place is differentiated at its original value, which the tape moved to another handle
        ig = tuple(_grad_or_zeros(ct, tape.moved.get(id(a), a)) for a in aliases)
        if ws:
            return ig, tuple(_grad_or_zeros(ct, w) for w in ws)
        return ig

    if has_aux:
        return primal, vjp_fn, aux
    return primal, vjp_fn


def jvp(fn, inputs, v, has_aux=False):
    """`(outputs, jvp)`: forward-mode derivative of fn at `inputs` along tangent `v`.

    Computed as the transpose of the (linear) vjp: differentiate u -> vjp(u) at u = 0 along v.
    """
    _traceable(fn, "jvp")
    inputs_t = _tensors_arg("jvp", "inputs", inputs)
    v_t = _tensors_arg("jvp", "v", v)
    if len(inputs_t) != len(v_t):
        raise ValueError(f"For 'jvp', 'inputs' and 'v' must have the same length, but got {len(inputs_t)} and "
                         f"{len(v_t)}.")
    res = vjp(fn, *inputs_t, has_aux=has_aux)
    primal, pullback = res[0], res[1]
    outs = _flatten_outputs(primal)
    us = [_zeros_like(o) for o in outs]

    def linear(*u):
        return pullback(*u)

    _, pull2 = vjp(linear, *us)
    # a tangent broadcasts to its input (MindSpore)
    tangents = pull2(*[t if t.shape == x.shape else P.broadcast_to_p(t, shape=x.shape)
                       for t, x in zip(v_t, inputs_t)])
    tangent = tangents[0] if isinstance(primal, Tensor) else tuple(tangents)
    if has_aux:
        return primal, tangent, res[2]
    return primal, tangent


def _jac_result(jac, primal, grad_position):
    """MindSpore's layout of a Jacobian: per output (a tuple when fn returns a tuple), per input (a tuple when
    grad_position is a tuple)."""
    per_out = [j[0] if isinstance(grad_position, int) else tuple(j) for j in jac]
    return tuple(per_out) if isinstance(primal, tuple) else per_out[0]


def _with_aux(res, out, has_aux):
    if not has_aux:
        return res
    aux = _aux_of(out)
    return res, (aux[0] if len(aux) == 1 else aux)


def _on_positions(fn, args, positions, has_aux):
    """fn as a function of the inputs at `positions` only (the other arguments fixed); the primal output only."""
    def restricted(*xs):
        a = list(args)
        for p, x in zip(positions, xs):
            a[p] = x
        o = fn(*a)
        return o[0] if has_aux else o
    return restricted


def jacrev(fn, grad_position=0, has_aux=False):
    """Jacobian by reverse mode: one vjp per output element.

    The Jacobian of output `o` with respect to input `x` has shape `o.shape + x.shape`; see `_jac_result`."""
    _check_grad_args(grad_position, None, has_aux, False)

    def jac_fn(*args):
        positions = _check_positions(grad_position, len(args))
        out = fn(*args)
        primal = out[0] if has_aux else out
        outs = list(primal) if isinstance(primal, tuple) else [primal]
        _, pullback = vjp(_on_positions(fn, args, positions, has_aux), *[args[p] for p in positions])
        zeros = [P.zeros_like_p(o) for o in outs]
        jac = []
        for j, o in enumerate(outs):
            rows = []
            for i in range(o.size):
                e = P.reshape_p(P.setitem_p(P.reshape_p(zeros[j], shape=(-1,)), 1.0, index=i), shape=o.shape)
                sens = zeros[:j] + [e] + zeros[j + 1:]
                rows.append(pullback(*sens) if isinstance(primal, tuple) else pullback(e))
            jac.append([P.reshape_p(P.stack_p(*[r[k] for r in rows], axis=0), shape=o.shape + args[p].shape)
                        for k, p in enumerate(positions)])
        return _with_aux(_jac_result(jac, primal, grad_position), out, has_aux)
    return jac_fn


def jacfwd(fn, grad_position=0, has_aux=False):
    """Jacobian by forward mode: one jvp per input element (same layout as `jacrev`)."""
    _check_grad_args(grad_position, None, has_aux, False)

    def jac_fn(*args):
        positions = _check_positions(grad_position, len(args))
        out = fn(*args)
        primal = out[0] if has_aux else out
        outs = list(primal) if isinstance(primal, tuple) else [primal]
        jac = [[] for _ in outs]
        for p in positions:
            x = args[p]
            cols = [[] for _ in outs]
            for i in range(x.size):
                e = P.reshape_p(P.setitem_p(P.reshape_p(P.zeros_like_p(x), shape=(-1,)), 1.0, index=i), shape=x.shape)
                _, t = jvp(_on_positions(fn, args, (p,), has_aux), (x,), (e,))
                for j, tj in enumerate(t if isinstance(primal, tuple) else (t,)):
                    cols[j].append(tj)
            for j, o in enumerate(outs):
                jac[j].append(P.reshape_p(P.stack_p(*cols[j], axis=-1), shape=o.shape + x.shape))
        return _with_aux(_jac_result(jac, primal, grad_position), out, has_aux)
    return jac_fn
