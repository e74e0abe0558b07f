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

__all__ = ["OnnxNet", "OnnxGraph", "read_onnx"]


def _int_list(v):
    return [int(i) for i in np.asarray(v).reshape(-1)]


def _attrs(node):
    from onnx import helper  # noqa: PLC0415 -- optional dependency
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _np_or(fn_np, fn_ms):
    """An elementwise operator: on numpy constants (shape arithmetic) computed now, else by mindseed."""
    def run(ins, at):
        if fn_np is not None and all(isinstance(x, np.ndarray) for x in ins):
            return np.asarray(fn_np(*ins))
        return fn_ms(*[Tensor(x) if isinstance(x, np.ndarray) else x for x in ins])
    return run


def _tensor(x):
    return Tensor(x) if isinstance(x, np.ndarray) else x


def _scalar(x):
    """A one-element tensor (an ONNX condition or trip count) as a 0-d one."""
    return x if len(x.shape) == 0 else ops.reshape(x, ())


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
        return np.asarray(np.take(x, idx, axis=axis))
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

def _expand(ins, at):
    x, shape = ins[0], tuple(_int_list(ins[1]))
    out = tuple(int(d) for d in np.broadcast_shapes(tuple(x.shape), shape))
    return np.broadcast_to(x, out).copy() if isinstance(x, np.ndarray) else ops.broadcast_to(x, out)


def _constant_of_shape(ins, at):
    from onnx import numpy_helper  # noqa: PLC0415
    value = numpy_helper.to_array(at["value"]) if "value" in at else np.zeros(1, np.float32)
    return np.full(_int_list(ins[0]), value.reshape(-1)[0], value.dtype)


def _range(ins, at):
    if not all(isinstance(x, np.ndarray) for x in ins):
        raise _Unsupported("a start, limit or delta computed at run time")
    return np.arange(ins[0].item(), ins[1].item(), ins[2].item(), dtype=ins[0].dtype)


def _layer_norm(ins, at):
    x = _tensor(ins[0])
    axis = at.get("axis", -1) % len(x.shape)
    bias = _tensor(ins[2]) if len(ins) > 2 and ins[2] is not None else None
    return ops.layer_norm(x, tuple(x.shape[axis:]), _tensor(ins[1]), bias, at.get("epsilon", 1e-5))


def _split(ins, at, n_outputs):
    x, axis = ins[0], at.get("axis", 0)
    sizes = at.get("split")
    if sizes is None and len(ins) > 1 and ins[1] is not None:
        sizes = _int_list(ins[1])
    if sizes is None:
        dim = x.shape[axis]
        step = -(-dim // n_outputs)
        sizes = [min(step, dim - k * step) for k in range(n_outputs)]
    if isinstance(x, np.ndarray):
        return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis))
    return tuple(ops.split(x, list(sizes), axis))


_split.takes_outputs = True

LSTM_DEFAULTS = {"activations": [b"Sigmoid", b"Tanh", b"Tanh"], "input_forget": 0, "layout": 0}


def lstm_unsupported(ins, at):
    """Why an ONNX LSTM node is outside what nn.LSTM computes (None when it is not)."""
    for key, default in LSTM_DEFAULTS.items():
        value = at.get(key, default)
        if (list(value) if key == "activations" else value) != default:
            return f"{key}={value}"
    if "clip" in at:
        return "clip"
    lens = ins[4] if len(ins) > 4 else None
    if lens is not None and not (isinstance(lens, np.ndarray) and np.all(lens == ins[0].shape[0])):
        return "sequence_lens shorter than the sequence"
    return None


def _lstm(ins, at):
    why = lstm_unsupported(ins, at)
    if why:
        raise _Unsupported(why)
    x, w, r = (_tensor(v) for v in ins[:3])
    hidden, dirs = at["hidden_size"], w.shape[0]
    seq, batch = x.shape[0], x.shape[1]
    b, h0, c0 = (_tensor(ins[k]) if len(ins) > k and ins[k] is not None else None for k in (3, 5, 6))
    ys, hs, cs = [], [], []
    for d in range(dirs):
        wt, rt = ops.transpose(w[d], (1, 0)), ops.transpose(r[d], (1, 0))
        bias = None if b is None else b[d][:4 * hidden] + b[d][4 * hidden:]
        h = h0[d] if h0 is not None else ops.zeros((batch, hidden), x.dtype)
        c = c0[d] if c0 is not None else ops.zeros((batch, hidden), x.dtype)
        out = [None] * seq
        for t in (range(seq) if d == 0 else range(seq - 1, -1, -1)):
            gates = ops.matmul(x[t], wt) + ops.matmul(h, rt)
            if bias is not None:
                gates = gates + bias
            i, o, f, g = ops.split(gates, hidden, -1)   # ONNX's gate order: input, output, forget, cell
            c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
            h = ops.sigmoid(o) * ops.tanh(c)
            out[t] = h
        ys.append(ops.stack(out, 0))
        hs.append(h)
        cs.append(c)
    return ops.stack(ys, 1), ops.stack(hs, 0), ops.stack(cs, 0)


def attr_str(at, key, default):
    """A string attribute of a node (onnx gives bytes)."""
    value = at.get(key, default)
    return value.decode() if isinstance(value, bytes) else value


def _gelu(ins, at):
    return ops.gelu(_tensor(ins[0]), approximate=attr_str(at, "approximate", "none"))


def _mod(ins, at):
    return (_np_or(np.fmod, ops.fmod) if at.get("fmod", 0) else _np_or(np.mod, ops.remainder))(ins, at)



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
    "Expand": _expand, "ConstantOfShape": _constant_of_shape, "Range": _range, "Mod": _mod,
    "Where": _np_or(np.where, ops.where), "LayerNormalization": _layer_norm, "LSTM": _lstm, "Split": _split,
    "Gelu": _gelu, "LeakyRelu": lambda ins, at: ops.leaky_relu(_tensor(ins[0]), at.get("alpha", 0.01)),
    "Dropout": lambda ins, at: ins[0],
}




class _Unsupported(Exception):
    pass


class OnnxNode:
    """One node of a checked ONNX graph: its name (or '#k'), operator, input and output names, attributes."""
    __slots__ = ("name", "op", "inputs", "outputs", "attrs")

    def __init__(self, name, op, inputs, outputs, attrs):
        self.name, self.op, self.inputs, self.outputs, self.attrs = name, op, inputs, outputs, attrs


class OnnxGraph:
    """A checked ONNX file: `initializers` {name: numpy array} (the weights, in file order), `consts` (Constant
    nodes), `input_specs` [(name, shape with None for a dynamic dim, numpy dtype)], `nodes` [OnnxNode],
    `outputs` [name], `opset`, `producer`."""

    def __init__(self, file_name):
        self.file_name = file_name
        self.initializers, self.consts, self.input_specs, self.nodes, self.outputs = {}, {}, [], [], []
        self.opset, self.producer = 13, ""

    def error(self, node, message):
        return ValueError(f"The ONNX file '{self.file_name}', node '{node.name}': {message}")

    def run_node(self, node, env):
        """Run `node` on the values in `env` (numpy constants or mindseed tensors) and store its outputs there."""
        run = _OPS.get(node.op)
        args = [env[i] if i else None for i in node.inputs]
        try:
            if run is None:
                result = (self._run_if if node.op == "If" else self._run_loop)(node, args, env)
            elif getattr(run, "takes_opset", False):
                result = run(args, node.attrs, self.opset)
            elif getattr(run, "takes_outputs", False):
                result = run(args, node.attrs, len(node.outputs))
            else:
                result = run(args, node.attrs)
        except _Unsupported as e:
            raise self.error(node, f"{node.op} with {e} is not supported.") from None
        results = result if isinstance(result, tuple) else (result,)
        for name, value in zip(node.outputs, results):
            if name:
                env[name] = value

    def _run_subgraph(self, sub, env, args):
        local = dict(env)
        local.update(sub.consts)
        local.update(zip(sub.inputs, args))
        for node in sub.nodes:
            self.run_node(node, local)
        return tuple(local[o] for o in sub.outputs)

    def _run_if(self, node, args, env):
        """A constant condition picks its branch now; else compiler.control.if_ (an If node when traced)."""
        from mindseed.compiler import control  # noqa: PLC0415
        then, other = node.attrs["then_branch"], node.attrs["else_branch"]
        cond = args[0]
        if isinstance(cond, np.ndarray):
            return self._run_subgraph(then if cond.reshape(-1)[0] else other, env, ())

        def branch(sub):
            return lambda: tuple(_tensor(v) for v in self._run_subgraph(sub, env, ()))
        return control.if_(_scalar(cond), branch(then), branch(other), ())

    def _run_loop(self, node, args, env):
        """ONNX Loop (trip count and/or condition, carried values; no scan outputs) as compiler.loops.while_
        (a While node when traced, a Python loop in PyNative)."""
        from mindseed.compiler import loops  # noqa: PLC0415
        body = node.attrs["body"]
        limit, cond, carried = (args + [None, None])[0], (args + [None, None])[1], args[2:]
        if len(body.outputs) != 1 + len(carried):
            raise _Unsupported("scan outputs")
        if limit is None and cond is None:
            raise _Unsupported("neither a trip count nor a condition")
        limit = None if limit is None else _scalar(_tensor(limit))
        start = (Tensor(np.array(0, np.int64)), _scalar(_tensor(np.array(True) if cond is None else cond)))

        def cond_fn(i, c, *vals):
            return c if limit is None else ops.logical_and(i < limit, c)

        def body_fn(i, c, *vals):
            outs = self._run_subgraph(body, env, (i, c) + vals)
            return (i + 1, _scalar(_tensor(outs[0]))) + tuple(_tensor(v) for v in outs[1:])
        return tuple(loops.while_(cond_fn, body_fn, start + tuple(_tensor(v) for v in carried))[2:])


class OnnxSubgraph:
    """A branch of an If or the body of a Loop: its inputs, constants (initializers and Constant nodes), nodes and
    outputs. It may read values of the graphs around it by name."""
    __slots__ = ("inputs", "consts", "nodes", "outputs")

    def __init__(self, inputs, consts, nodes, outputs):
        self.inputs, self.consts, self.nodes, self.outputs = inputs, consts, nodes, outputs


_SUBGRAPHS = {"If": ("then_branch", "else_branch"), "Loop": ("body",)}


def _read_nodes(g, protos, defined, consts, prefix):
    """Check the nodes `protos` (every input defined before, every operator known) into OnnxNodes; Constant
    nodes go to `consts`; If/Loop sub-graphs are read the same way, seeing the values defined around them."""
    from onnx import numpy_helper  # noqa: PLC0415
    nodes = []
    for k, proto in enumerate(protos):
        node = OnnxNode(prefix + (proto.name or f"#{k}"), proto.op_type, list(proto.input), list(proto.output),
                        _attrs(proto))
        missing = [i for i in node.inputs if i and i not in defined]
        if missing:
            raise g.error(node, f"its input '{missing[0]}' is not defined before it.")
        if proto.domain not in ("", "ai.onnx") or (node.op not in _OPS and node.op not in _SUBGRAPHS and
                                                    node.op != "Constant"):
            raise g.error(node, f"the operator {(proto.domain + '.') if proto.domain else ''}{node.op} is not "
                                f"supported.")
        for key in _SUBGRAPHS.get(node.op, ()):
            sub = next(a.g for a in proto.attribute if a.name == key)
            sub_consts = {init.name: numpy_helper.to_array(init) for init in sub.initializer}
            inputs = [v.name for v in sub.input]
            sub_defined = defined | set(sub_consts) | set(inputs)
            sub_nodes = _read_nodes(g, sub.node, sub_defined, sub_consts, node.name + "/")
            outputs = [v.name for v in sub.output]
            missing = [o for o in outputs if o not in sub_defined]
            if missing:
                raise g.error(node, f"the output '{missing[0]}' of its {key} is not defined.")
            node.attrs[key] = OnnxSubgraph(inputs, sub_consts, sub_nodes, outputs)
        defined.update(node.outputs)
        if node.op == "Constant":
            value = node.attrs.get("value")
            if value is None:
                raise g.error(node, "a Constant without a tensor value.")
            consts[node.outputs[0]] = numpy_helper.to_array(value)
            continue
        nodes.append(node)
    return nodes


def read_onnx(file_name):
    """Parse and check an ONNX file into an `OnnxGraph` (see the module's doc for what is checked)."""
    try:
        import onnx  # noqa: PLC0415 -- optional dependency
        from onnx import numpy_helper  # noqa: PLC0415
    except ImportError:
        raise ImportError("Reading ONNX files needs the 'onnx' package (pip install onnx).") from None
    try:
        model = onnx.load(file_name)
        onnx.checker.check_model(model)
    except FileNotFoundError:
        raise ValueError(f"The ONNX file '{file_name}' does not exist.") from None
    except Exception as e:  # noqa: BLE001 -- protobuf's DecodeError, onnx's ValidationError
        raise ValueError(f"'{file_name}' is not a valid ONNX model (truncated, corrupt or foreign file): "
                         f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
    g, graph = OnnxGraph(file_name), model.graph
    g.opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=13)
    g.producer = f"{model.producer_name} {model.producer_version}".strip()
    for init in graph.initializer:
        g.initializers[init.name] = numpy_helper.to_array(init)
    defined = set(g.initializers)
    for v in graph.input:
        if v.name in defined:
            continue
        t = v.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
        g.input_specs.append((v.name, tuple(dims), onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)))
    defined |= {spec[0] for spec in g.input_specs}
    g.nodes = _read_nodes(g, graph.node, defined, g.consts, "")
    g.outputs = [o.name for o in graph.output]
    return g


class OnnxNet(Cell):
    """A network read from an ONNX file (see the module's doc); `input_specs` [(name, shape, numpy dtype)]."""

    def __init__(self, file_name):
        super().__init__()
        self.file_name = file_name
        self._graph = read_onnx(file_name)
        self.input_specs = self._graph.input_specs
        self._consts, weights = dict(self._graph.consts), {}
        for name, array in self._graph.initializers.items():
            if array.dtype.kind == "f":
                weights[name] = Parameter(Tensor(np.asarray(array, order="C")), name=name)
            else:
                self._consts[name] = array
        for i, p in enumerate(weights.values()):
            self.insert_param_to_cell(f"w{i}", p)
        self._weights = weights

    def construct(self, *inputs):
        if len(inputs) != len(self.input_specs):
            raise ValueError(f"The ONNX model '{self.file_name}' takes {len(self.input_specs)} inputs, but got "
                             f"{len(inputs)}.")
        env = dict(self._consts)
        env.update(self._weights)
        env.update({spec[0]: x for spec, x in zip(self.input_specs, inputs)})
        for node in self._graph.nodes:
            self._graph.run_node(node, env)
        results = tuple(_tensor(env[o]) for o in self._graph.outputs)
        return results if len(results) > 1 else results[0]
