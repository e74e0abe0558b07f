"""Base classes of the Primitive-class API."""
import functools
import re
import types

from mindseed._utils import _state
from mindseed._utils._public_type import PublicType
from mindseed._utils.errors import GraphCallArgumentError
from mindseed.common._shard_layout import Layout
from mindseed.common.tensor import Tensor

__all__ = ["Primitive", "PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register", "constexpr"]

# kernels the backend has by name, for code that declares its own Primitive of that name (_named_kernels.py)
NAMED_KERNELS = {}

# the class-API calls with a sharding strategy that are running now, innermost last: (primitive, its arguments).
# A recorder of primitive calls (the parallel partitioner's) gives the strategy to the primitive call they make
# on exactly these arguments.
shard_scopes = []


def scope_strategy(args):
    """(in_strategy, out_strategy) of the innermost sharded class-API call running now when a primitive call on
    `args` is the one it makes (its Tensor arguments are exactly the operator's: other arguments, such as CumSum's
    axis, may have become attributes), else None. What a recorder of primitive calls (the partitioner's recording,
    the compiler's trace) keeps as the call's strategy."""
    if not shard_scopes:
        return None
    owner, scope_args = shard_scopes[-1]
    mine = [a for a in args if isinstance(a, Tensor)]
    theirs = [a for a in scope_args if isinstance(a, Tensor)]
    if mine and len(mine) == len(theirs) and all(a is b for a, b in zip(mine, theirs)):
        return owner.in_strategy, owner.out_strategy
    return None


def check_input_dtypes(prim_name, allowed, **inputs):
    """MindSpore's check of a primitive's tensor inputs: each a Tensor of one of the `allowed` dtypes, all of one
    dtype (TypeError in its words otherwise)."""
    kinds = ", ".join(f"Tensor[{d}]" for d in allowed)
    for name, v in inputs.items():
        if not isinstance(v, Tensor) or v.dtype not in allowed:
            got = f"Tensor[{v.dtype}]" if isinstance(v, Tensor) else type(v).__name__
            raise TypeError(f"For primitive[{prim_name}], the input argument[{name}] must be a type of {{{kinds}}}, "
                            f"but got {got}.")
    (first, a), *rest = inputs.items()
    for name, v in rest:
        if v.dtype != a.dtype:
            raise TypeError(f"For primitive[{prim_name}], the input type must be same. name:[{first}]:Tensor[{a.dtype}]"
                            f". name:[{name}]:Tensor[{v.dtype}].")


# what `mindspore.graph.register_op_wrapper` / `register_op_infer` registered, by primitive name: the function whose
# result replaces a call of the primitive inside a compiled graph, and the custom inferences {name: fn} whose results
# become attributes of the call's output there
OP_WRAPPERS = {}
OP_INFERS = {}
_wrapping = set()     # primitive names whose wrapper is running (its own calls of the primitive are the primitive's)


def _graph_hooked(prim, call, args, kwargs):
    """A class-API call inside a compiled graph with a registered wrapper or inference for its primitive."""
    wrapper = OP_WRAPPERS.get(prim.name)
    if wrapper is not None and prim.name not in _wrapping:
        _wrapping.add(prim.name)
        try:
            out = wrapper(*args, **kwargs)(*args, **kwargs)
        finally:
            _wrapping.discard(prim.name)
    else:
        out = call(prim, *args, **kwargs)
    if isinstance(out, Tensor):
        for name, fn in OP_INFERS.get(prim.name, {}).items():
            setattr(out, name, fn(*args, **kwargs))
    return out


def _scoped(call):
    @functools.wraps(call)
    def __call__(self, *args, **kwargs):
        if (OP_WRAPPERS or OP_INFERS) and _state.tracing is not None and \
                (self.name in OP_WRAPPERS or self.name in OP_INFERS):
            return _graph_hooked(self, call, args, kwargs)
        if self.in_strategy is None:
            try:
                return call(self, *args, **kwargs)
            except TypeError as e:
                _check_graph_keywords(e, kwargs)
                raise
        shard_scopes.append((self, args))
        try:
            return call(self, *args, **kwargs)
        finally:
            shard_scopes.pop()
    __call__.shard_scoped = True
    return __call__


_UNEXPECTED_KEYWORD = re.compile(r"got an unexpected keyword argument ('[^']*')")


def _check_graph_keywords(exc, kwargs):
    """A primitive called in a graph with a keyword argument its call does not take (exc raised by the call's own
    binding): MindSpore's compiler's RuntimeError."""
    if not kwargs or _state.tracing is None or exc.__traceback__.tb_next is not None:
        return
    found = _UNEXPECTED_KEYWORD.search(str(exc))
    if found is not None:
        raise GraphCallArgumentError(f"Got an unexpected keyword argument {found.group(1)}.") from None


def _check_strategy(name, strategy, which):
    if not isinstance(strategy, tuple):
        raise TypeError(f"{which} must be tuple type, but got:{type(strategy)}")
    kinds = set()
    for ele in strategy:
        if isinstance(ele, Layout):
            kinds.add("layout")
            continue
        if not isinstance(ele, tuple):
            raise TypeError(f"The element of strategy must be tuple type, but got:{type(ele)}")
        kinds.add("tuple")
        for value in ele:
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"The {which}: {strategy} of {name} is not valid, the value of strategy must be int "
                                f"type, but got:{type(value)}")
    if len(kinds) > 1:
        raise TypeError(f"For '{name}', the strategy can only pass in consistent type for all dimensions.")


class Primitive(metaclass=PublicType):
    """MindSpore's operator class: attributes are set at construction, inputs given at call.

    Subclasses implement `__call__` by calling the functional op with their attributes.
    """

    in_strategy = out_strategy = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        call = cls.__dict__.get("__call__")
        if call is not None and not getattr(call, "shard_scoped", False):
            cls.__call__ = _scoped(call)

    def __init__(self, name=None):
        self.name = name or type(self).__name__
        self.attrs = {}

    def add_prim_attr(self, name, value):
        self.attrs[name] = value
        setattr(self, name, value) if not hasattr(type(self), name) else None
        return self

    def del_prim_attr(self, name):
        self.attrs.pop(name, None)
        return self

    def get_attr_dict(self):
        """The primitive's attributes (`in_strategy` once it is sharded), as a dict."""
        return dict(self.attrs)

    def init_prim_io_names(self, inputs, outputs):
        self.input_names, self.output_names = list(inputs), list(outputs)

    def set_prim_instance_name(self, instance_name):
        self.instance_name = instance_name
        return self

    def shard(self, in_strategy=None, out_strategy=None, **kwargs):
        """Record how the operator's inputs (and outputs) are cut across devices, for semi-auto parallel.

        Args:
            in_strategy (tuple): per input, a tuple with the number of pieces of each dim, or a
                `mindspore.parallel.Layout` called with a tensor map.
            out_strategy (tuple): the same for the outputs (needs `in_strategy`).

        Raises:
            TypeError: a strategy that is not a tuple of tuples of int (or of Layouts), or mixes the two.
            ValueError: `out_strategy` without `in_strategy`.

        >>> from mindseed import ops
        >>> ops.MatMul().shard(((2, 1), (1, 4)))
        Prim[MatMul]<transpose_a=False, transpose_b=False, in_strategy=((2, 1), (1, 4)), out_strategy=None>
        """
        if in_strategy is not None:
            _check_strategy(self.name, in_strategy, "in_strategy")
        if out_strategy is not None:
            _check_strategy(self.name, out_strategy, "out_strategy")
            if in_strategy is None:
                raise ValueError(f"The out_strategy of {self.name} is {out_strategy}, need to set in_strategy, but "
                                 f"got none")
        self.in_strategy, self.out_strategy = in_strategy, out_strategy
        self.attrs.update(in_strategy=in_strategy, out_strategy=out_strategy)
        return self

    def recompute(self, mode=True):
        return self

    def set_device(self, device_target):
        return self

    def __repr__(self):
        attrs = ", ".join(f"{k}={v}" for k, v in self.attrs.items())
        return f"Prim[{self.name}]" + (f"<{attrs}>" if attrs else "")

    def __call__(self, *args):
        kernel = NAMED_KERNELS.get(self.name)
        if kernel is not None:      # a declaration of a kernel the backend has by name (_named_kernels.py)
            return kernel(self, *args)
        raise TypeError(f"Primitive '{self.name}' has no implementation: subclass it and define __call__, or use "
                        f"ops.Custom.")


class PrimitiveWithInfer(Primitive):
    def infer_shape(self, *args):
        return None

    def infer_dtype(self, *args):
        return None


class PrimitiveWithCheck(Primitive):
    def check_shape(self, *args):
        return None

    def check_dtype(self, *args):
        return None


def prim_attr_register(fn):
    """Decorator for a Primitive subclass's __init__: records the arguments as attributes."""
    import functools  # noqa: PLC0415
    import inspect  # noqa: PLC0415

    @functools.wraps(fn)
    def deco(self, *args, **kwargs):
        Primitive.__init__(self, type(self).__name__)
        bound = inspect.signature(fn).bind(self, *args, **kwargs)
        bound.apply_defaults()
        for k, v in list(bound.arguments.items())[1:]:
            self.attrs[k] = v
        fn(self, *args, **kwargs)
    return deco


def constexpr(fn=None, get_instance=True, name=None, reuse_result=True, check=True):
    """Mark a function as computing constants at compile time (a plain call in PyNative).

    In a graph it gets the compile-time value of each argument, as MindSpore's: a function passed to it is no
    constant of the graph, so it gets None there."""
    if fn is None:
        return lambda f: constexpr(f, get_instance, name, reuse_result, check)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if _state.tracing is None:
            return fn(*args, **kwargs)
        return fn(*map(_constant_value, args), **{k: _constant_value(v) for k, v in kwargs.items()})
    return call


def _constant_value(arg):
    return None if isinstance(arg, (types.FunctionType, types.LambdaType)) else arg


def simple_primitive(name, fn, doc, numbers=False, operands=False):
    """A Primitive class `name` with no attributes whose call is `fn(*args, **kwargs)`.

    With `numbers`, a call whose inputs are all Python numbers computes on them as tensors (MindSpore's implicit
    conversion for the primitives whose signature groups their inputs in one dtype: `P.FloorDiv()(7, 2)`).
    Without it, a two-operand primitive (`operands`) given only Python numbers raises MindSpore's TypeError."""
    def __init__(self):
        Primitive.__init__(self, name)

    def call(args, kwargs):
        try:
            return fn(*args, **kwargs)
        except TypeError:
            _check_input_count(name, fn, args, kwargs)
            raise

    if numbers:
        def __call__(self, *args, **kwargs):
            if args and not kwargs and all(type(a) in (int, float) for a in args):
                args = tuple(Tensor(a) for a in args)
            return call(args, kwargs)
    elif operands:
        def __call__(self, *args, **kwargs):
            if len(args) == 2 and all(type(a) in (int, float, bool) for a in args):
                _raise_numbers_only(name, args[0])
            return call(args, kwargs)
    else:
        def __call__(self, *args, **kwargs):
            return call(args, kwargs)

    return type(name, (Primitive,), {"__init__": __init__, "__call__": __call__, "__doc__": doc,
                                     "__module__": "mindseed.ops.operations"})


def _check_input_count(name, fn, args, kwargs):
    """A primitive called with too few or too many inputs: MindSpore's error, in graph mode (a trace, or GRAPH_MODE)
    its graph's wording, in PyNative its signature check's."""
    import inspect  # noqa: PLC0415 -- error path only
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return
    if kwargs or any(p.kind in (p.VAR_POSITIONAL, p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in params):
        return
    most, least, n = len(params), sum(p.default is p.empty for p in params), len(args)
    graph = _state.tracing is not None or _state.mode == 0
    if n > most:
        if graph:
            raise TypeError(f"For Operator[{name}], the number of inputs should be less than or equal to {most}, "
                            f"but got {n}.")
        raise TypeError(f"{name}.__call__() takes {most + 1} positional arguments but {n + 1} were given")
    if n < least:
        if graph:
            raise RuntimeError(f"For 'S_Prim_{name}', the size of input should be {most}, but got {n}. Please check "
                               f"inputs of the operator.")
        raise ValueError(f"{name} inputs number {n} does not match the requires signature size {most}")


_TENSOR_TYPES = ", ".join(f"Tensor[{t}]" for t in ("Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32",
                                                    "UInt64", "Float16", "Float32", "Float64", "BFloat16",
                                                    "Complex64", "Complex128"))


def _raise_numbers_only(name, x):
    """A tensor primitive called on Python numbers only: MindSpore's TypeError, in graph mode (where the numbers
    are constants of the graph) the type check's wording, in PyNative the argument check's."""
    got = "Float32" if type(x) is float else "Int64"
    if _state.tracing is not None or _state.mode == 0:
        raise TypeError(f"For '{name}', the element of 'x' must be one of {_TENSOR_TYPES}, but got {got}.")
    raise TypeError(f"The primitive[{name}]'s input arguments[x, y] must be all tensor and those type must be same. "
                    f"But got input argument[x]:{got}")


REQUIRED = object()  # an AttrPrimitive parameter without a default


class AttrPrimitive(Primitive):
    """A class-API op: constructor arguments become attributes (MindSpore's `prim_attr_register`).

    `_params` lists (name, default) in the constructor's order; a default of `REQUIRED` makes the argument required.
    """

    _params = ()

    def __init__(self, *args, **kwargs):
        super().__init__(type(self).__name__)
        values = dict(self._params)
        names = [k for k, _ in self._params]
        if len(args) > len(names):
            raise TypeError(f"For '{self.name}', expected at most {len(names)} arguments, but got {len(args)}.")
        values.update(zip(names, args))
        for k in kwargs:
            if k not in values:
                raise TypeError(f"For '{self.name}', got an unexpected argument '{k}'.")
        values.update(kwargs)
        for k, v in values.items():
            if v is REQUIRED:
                raise TypeError(f"For '{self.name}', the argument '{k}' is required.")
            setattr(self, k, v)
            self.attrs[k] = v


def attr_primitive(name, fn, doc, params=()):
    """An AttrPrimitive class `name` whose call is `fn(x, *attributes)`, the attributes being its constructor
    arguments `params` ((name, default) pairs)."""
    def __call__(self, *args, **kwargs):
        inputs = args + tuple(kwargs.values())  # the input by position or under its MindSpore name (input_x, x, ...)
        if len(inputs) != 1:
            raise TypeError(f"For '{name}', one input is expected, but got {len(inputs)}.")
        return fn(inputs[0], *(getattr(self, k) for k, _ in params))
    return type(name, (AttrPrimitive,), {"__call__": __call__, "_params": params, "__doc__": doc,
                                         "__module__": "mindseed.ops.operations"})


def subclass(base, name, doc, **attrs):
    """A public class `name` (documented by `doc`) deriving from `base`, differing only in the class attributes
    `attrs`: one row of a table of ops that share their code."""
    return type(name, (base,), {**attrs, "__doc__": doc, "__module__": base.__module__})
