"""ONNX files as mindseed networks: `OnnxNet(path)` is a Cell whose `construct` runs the file's nodes with mindseed
operators, its initializers as Parameters (named as in the file). Compiled (jit, export, the Lite runtime) it is
one graph: the loop over the nodes runs at trace time.

The file is checked before anything runs: it must parse, pass `onnx.checker`, have static input shapes, and use
only the operators of `_OPS` (else a ValueError naming the file, the node and its operator). Shape arithmetic
(Shape -> Gather -> Concat -> Reshape, as torch.onnx.export writes a flatten) is computed at load time on numpy
constants. Nothing in the file is executed: operators are looked up by name in a fixed table.
"""
import numpy as np

from mindseed import ops
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell

__all__ = ["OnnxNet"]


def _int_list(v):
    return [int(i) for i in np.asarray(v).reshape(-1)]


def _attrs(node):
    from onnx import helper  # noqa: PLC0415 -- optional dependency
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _np_or(fn_np, fn_ms):
    """An elementwise operator: on numpy constants (shape arithmetic) computed now, else by mindseed."""
    def run(ins, at):
        if fn_np is not None and all(isinstance(x, np.ndarray) for x in ins):
            return fn_np(*ins)
        return fn_ms(*[Tensor(x) if isinstance(x, np.ndarray) else x for x in ins])
    return run


def _tensor(x):
    return Tensor(x) if isinstance(x, np.ndarray) else x


def _conv(ins, at):
    x, w = ins[0], _tensor(ins[1])
    b = _tensor(ins[2]) if len(ins) > 2 else None
    pads = at.get("pads", [0, 0, 0, 0])
    if at.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise _Unsupported("auto_pad")
    return ops.conv2d(x, w, b, stride=tuple(at.get("strides", [1, 1])), pad_mode="pad",
                      padding=(pads[0], pads[2], pads[1], pads[3]), dilation=tuple(at.get("dilations", [1, 1])),
                      groups=at.get("group", 1))


def _pool(kind):
    def run(ins, at):
        pads = at.get("pads", [0, 0, 0, 0])
        if pads[:2] != pads[2:] or at.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
            raise _Unsupported("asymmetric pads")
        k, s = tuple(at["kernel_shape"]), tuple(at.get("strides", [1, 1]))
        ceil = bool(at.get("ceil_mode", 0))
        if kind == "max":
            return ops.max_pool2d(ins[0], k, s, tuple(pads[:2]), ceil_mode=ceil)
        return ops.avg_pool2d(ins[0], k, s, tuple(pads[:2]), ceil_mode=ceil,
                              count_include_pad=bool(at.get("count_include_pad", 0)))
    return run


def _gemm(ins, at):
    a, b = _tensor(ins[0]), _tensor(ins[1])
    if at.get("transA", 0):
        a = ops.transpose(a, (1, 0))
    if at.get("transB", 0):
        b = ops.transpose(b, (1, 0))
    y = ops.matmul(a, b)
    if at.get("alpha", 1.0) != 1.0:
        y = y * at["alpha"]
    if len(ins) > 2:
        c = _tensor(ins[2])
        y = y + (c * at["beta"] if at.get("beta", 1.0) != 1.0 else c)
    return y


def _reshape(ins, at):
    x, shape = ins[0], _int_list(ins[1])
    shape = [x.shape[i] if d == 0 else d for i, d in enumerate(shape)]
    return x.reshape(shape) if isinstance(x, np.ndarray) else ops.reshape(x, tuple(shape))


def _flatten(ins, at):
    x, axis = ins[0], at.get("axis", 1)
    axis = axis + len(x.shape) if axis < 0 else axis
    shape = (int(np.prod(x.shape[:axis], dtype=np.int64)), -1)
    return x.reshape(shape) if isinstance(x, np.ndarray) else ops.reshape(x, shape)


def _softmax(log):
    def run(ins, at, opset=13):
        x = ins[0]
        rank = len(x.shape)
        axis = at.get("axis", -1 if opset >= 13 else 1)
        axis = axis + rank if axis < 0 else axis
        fn = ops.log_softmax if log else ops.softmax
        if opset >= 13 or axis == rank - 1:
            return fn(x, axis)
        # opset < 13: over all the dims from `axis` on, as one
        y = fn(ops.reshape(x, (int(np.prod(x.shape[:axis], dtype=np.int64)), -1)), -1)
        return ops.reshape(y, tuple(x.shape))
    run.takes_opset = True
    return run


def _reduce(np_fn, ms_fn):
    def run(ins, at):
        axes = at.get("axes")
        if axes is None and len(ins) > 1:
            axes = _int_list(ins[1])
        keep = bool(at.get("keepdims", 1))
        axes = tuple(axes) if axes else None
        if isinstance(ins[0], np.ndarray):
            return np_fn(ins[0], axis=axes, keepdims=keep)
        return ms_fn(ins[0], axes if axes is not None else (), keep)
    return run


def _squeeze_like(unsqueeze):
    def run(ins, at):
        axes = at.get("axes")
        if axes is None and len(ins) > 1:
            axes = _int_list(ins[1])
        x = ins[0]
        if isinstance(x, np.ndarray):
            return np.expand_dims(x, tuple(axes)) if unsqueeze else np.squeeze(x, tuple(axes) if axes else None)
        if unsqueeze:
            rank = len(x.shape) + len(axes)
            for a in sorted(a + rank if a < 0 else a for a in axes):
                x = ops.expand_dims(x, a)
            return x
        return ops.squeeze(x, tuple(axes) if axes else None)
    return run


def _gather(ins, at):
    x, idx, axis = ins[0], ins[1], at.get("axis", 0)
    if isinstance(x, np.ndarray) and isinstance(idx, np.ndarray):
        return np.take(x, idx, axis=axis)
    return ops.gather(_tensor(x), _tensor(np.asarray(idx, np.int32) if isinstance(idx, np.ndarray) else idx), axis)


def _concat(ins, at):
    if all(isinstance(x, np.ndarray) for x in ins):
        return np.concatenate(ins, axis=at["axis"])
    return ops.concat([_tensor(x) for x in ins], at["axis"])


def _slice(ins, at):
    x = ins[0]
    starts, ends = _int_list(ins[1]), _int_list(ins[2])
    axes = _int_list(ins[3]) if len(ins) > 3 and ins[3] is not None else list(range(len(starts)))
    steps = _int_list(ins[4]) if len(ins) > 4 and ins[4] is not None else [1] * len(starts)
    index = [slice(None)] * len(x.shape)
    for a, s, e, st in zip(axes, starts, ends, steps):
        index[a] = slice(s, e, st)
    return x[tuple(index)]


def _cast(ins, at):
    from onnx import helper  # noqa: PLC0415
    dt = np.dtype(helper.tensor_dtype_to_np_dtype(at["to"]))
    x = ins[0]
    return x.astype(dt) if isinstance(x, np.ndarray) else ops.cast(x, Tensor(np.zeros((), dt)).dtype)


def _batch_norm(ins, at):
    x, scale, b, mean, var = ins[0], *[_tensor(v) for v in ins[1:5]]
    return ops.batch_norm(x, mean, var, scale, b, training=False, eps=at.get("epsilon", 1e-5))


def _clip(ins, at):
    lo = ins[1] if len(ins) > 1 and ins[1] is not None else at.get("min")
    hi = ins[2] if len(ins) > 2 and ins[2] is not None else at.get("max")
    return ops.clamp(ins[0], None if lo is None else float(np.asarray(lo)),
                     None if hi is None else float(np.asarray(hi)))


_OPS = {
    "Add": _np_or(np.add, ops.add), "Sub": _np_or(np.subtract, ops.sub), "Mul": _np_or(np.multiply, ops.mul),
    "Div": _np_or(lambda a, b: a // b if a.dtype.kind in "iu" else a / b, ops.div), "Pow": _np_or(np.power, ops.pow),
    "Relu": _np_or(lambda a: np.maximum(a, 0), ops.relu), "Sigmoid": _np_or(None, ops.sigmoid),
    "Tanh": _np_or(np.tanh, ops.tanh), "Exp": _np_or(np.exp, ops.exp), "Log": _np_or(np.log, ops.log),
    "Sqrt": _np_or(np.sqrt, ops.sqrt), "Neg": _np_or(np.negative, ops.neg), "Abs": _np_or(np.abs, ops.abs),
    "Erf": _np_or(None, ops.erf), "Floor": _np_or(np.floor, ops.floor), "Sin": _np_or(np.sin, ops.sin),
    "Cos": _np_or(np.cos, ops.cos), "Reciprocal": _np_or(np.reciprocal, ops.reciprocal),
    "Equal": _np_or(np.equal, ops.equal), "Less": _np_or(np.less, ops.less), "Greater": _np_or(np.greater, ops.greater),
    "Not": _np_or(np.logical_not, ops.logical_not), "And": _np_or(np.logical_and, ops.logical_and),
    "Or": _np_or(np.logical_or, ops.logical_or), "Max": _np_or(np.maximum, ops.maximum),
    "Min": _np_or(np.minimum, ops.minimum), "MatMul": _np_or(np.matmul, ops.matmul),
    "Identity": lambda ins, at: ins[0], "Conv": _conv, "Gemm": _gemm,
    "MaxPool": _pool("max"), "AveragePool": _pool("avg"),
    "GlobalAveragePool": lambda ins, at: ops.mean(ins[0], tuple(range(2, len(ins[0].shape))), True),
    "BatchNormalization": _batch_norm, "Reshape": _reshape, "Flatten": _flatten,
    "Transpose": lambda ins, at: (np.transpose if isinstance(ins[0], np.ndarray) else ops.transpose)(
        ins[0], tuple(at.get("perm", range(len(ins[0].shape) - 1, -1, -1)))),
    "Softmax": _softmax(False), "LogSoftmax": _softmax(True),
    "ReduceMean": _reduce(np.mean, ops.mean), "ReduceSum": _reduce(np.sum, ops.sum),
    "ReduceMax": _reduce(np.max, ops.amax), "ReduceMin": _reduce(np.min, ops.amin),
    "Squeeze": _squeeze_like(False), "Unsqueeze": _squeeze_like(True), "Gather": _gather, "Concat": _concat,
    "Slice": _slice, "Cast": _cast, "Clip": _clip,
    "Shape": lambda ins, at: np.asarray(ins[0].shape, np.int64),
}


class _Unsupported(Exception):
    pass


class OnnxNet(Cell):
    """A network read from an ONNX file (see the module's doc); `input_specs` [(name, shape, numpy dtype)]."""

    def __init__(self, file_name):
        super().__init__()
        try:
            import onnx  # noqa: PLC0415 -- optional dependency
            from onnx import numpy_helper  # noqa: PLC0415
        except ImportError:
            raise ImportError("Reading ONNX files needs the 'onnx' package (pip install onnx).") from None
        self.file_name = file_name
        try:
            model = onnx.load(file_name)
            onnx.checker.check_model(model)
        except FileNotFoundError:
            raise ValueError(f"The ONNX file '{file_name}' does not exist.") from None
        except Exception as e:  # noqa: BLE001 -- protobuf's DecodeError, onnx's ValidationError
            raise ValueError(f"'{file_name}' is not a valid ONNX model (truncated, corrupt or foreign file): "
                             f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
        graph = model.graph
        self._opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=13)
        self._consts, weights = {}, {}
        for init in graph.initializer:
            array = numpy_helper.to_array(init)
            if array.dtype.kind == "f":
                weights[init.name] = Parameter(Tensor(np.ascontiguousarray(array)), name=init.name)
            else:
                self._consts[init.name] = array
        for i, p in enumerate(weights.values()):
            self.insert_param_to_cell(f"w{i}", p)
        self._weights = weights
        known = set(self._consts) | set(weights)
        self.input_specs = []
        for v in graph.input:
            if v.name in known:
                continue
            t = v.type.tensor_type
            dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
            self.input_specs.append((v.name, tuple(dims), onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)))
        self._nodes = []
        defined = known | {spec[0] for spec in self.input_specs}
        for k, node in enumerate(graph.node):
            name = node.name or f"#{k}"
            missing = [i for i in node.input if i and i not in defined]
            if missing:
                raise ValueError(f"The ONNX file '{file_name}', node '{name}': its input '{missing[0]}' is not defined "
                                 f"before it.")
            defined.update(node.output)
            if node.domain not in ("", "ai.onnx") or (node.op_type not in _OPS and node.op_type != "Constant"):
                raise ValueError(f"The ONNX file '{file_name}', node '{name}': the operator "
                                 f"{(node.domain + '.') if node.domain else ''}{node.op_type} is not supported.")
            attrs = _attrs(node)
            if node.op_type == "Constant":
                value = attrs.get("value")
                if value is None:
                    raise ValueError(f"The ONNX file '{file_name}', node '{name}': a Constant without a tensor value.")
                self._consts[node.output[0]] = numpy_helper.to_array(value)
                continue
            self._nodes.append((name, node.op_type, list(node.input), list(node.output), attrs))
        self._outputs = [o.name for o in graph.output]

    def _run_node(self, env, name, op, ins, outs, attrs):
        run = _OPS[op]
        args = [env[i] if i else None for i in ins]
        try:
            return run(args, attrs, self._opset) if getattr(run, "takes_opset", False) else run(args, attrs)
        except _Unsupported as e:
            raise ValueError(f"The ONNX file '{self.file_name}', node '{name}': {op} with {e} is not "
                             f"supported.") from None

    def construct(self, *inputs):
        if len(inputs) != len(self.input_specs):
            raise ValueError(f"The ONNX model '{self.file_name}' takes {len(self.input_specs)} inputs, but got "
                             f"{len(inputs)}.")
        env = dict(self._consts)
        env.update(self._weights)
        env.update({spec[0]: x for spec, x in zip(self.input_specs, inputs)})
        for node in self._nodes:
            env[node[3][0]] = self._run_node(env, *node)
        results = tuple(_tensor(env[o]) for o in self._outputs)
        return results if len(results) > 1 else results[0]
