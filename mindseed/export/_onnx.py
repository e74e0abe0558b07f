"""Writing a captured graph (`_capture.Captured`) as an ONNX model, built with the `onnx` package's helpers.

Opset 11, as MindSpore's ONNX exporter (IR version 6, the one opset 11 belongs to). `EMIT` maps each primitive
of the compiler's IR to ONNX nodes; weights are initializers named as in the checkpoint. An If becomes an
ONNX `If` whose branches read the outer values by name; a While becomes a `Loop` with no trip count whose
body recomputes the condition. With `dynamic_batch` the first dim of every input and output is the
symbolic dim "batch" (reshapes keep it with ONNX's copy-this-dim 0). Inputs given as placeholders with dynamic dims
(Tensor(shape=[None, 3], ...)) have symbolic dims ("batch" for dim 0 of the first input, "x1_d0", ... for the
others), and sizes the network computes from them (`x.shape[0] * 3`) are computed at run time (Shape, Gather, Mul,
Add; Concat for a shape).
"""
import numpy as np

from mindseed.compiler.ir import IF, WHILE, Const, Sym, Var
from mindseed.export._capture import as_numpy, np_dtype
from mindseed.export._table import EmitTable

OPSET = 11
IR_VERSION = 6

EMIT = EmitTable("ONNX")
_emits = EMIT.emits


def _onnx():
    try:
        import onnx  # noqa: PLC0415 -- optional dependency
    except ImportError as e:
        raise ImportError("For 'export', file_format='ONNX' needs the 'onnx' package (pip install onnx).") from e
    return onnx


class _Writer:
    """Nodes and initializers of one ONNX graph (sub-graphs of If/Loop get their own writer, sharing names)."""

    def __init__(self, onnx, env, counter, batch=None, dims=None):
        self.onnx, self.helper = onnx, onnx.helper
        self.env, self.counter, self.batch = env, counter, batch
        self.dims = dims        # the dynamic dims, [(input name, dim)] per Sym (the main graph's inputs' names)
        self.nodes, self.inits = [], []

    def fresh(self, hint="t"):
        self.counter[0] += 1
        return f"{hint}_{self.counter[0]}"

    def name(self, x, like=None):
        """The ONNX name of an operand; a constant becomes an initializer (numbers in `like`'s dtype)."""
        if isinstance(x, Var):
            return self.env[x.id]
        value = x.value if isinstance(x, Const) else x
        if isinstance(value, Sym):
            size = self.size_of(value)
            if like is None:
                return size
            to = self.helper.np_dtype_to_tensor_dtype(np.dtype(np_dtype(like.dtype)))
            return self.node("Cast", [size], to=to)
        if isinstance(value, (tuple, list)) and any(isinstance(v, Sym) for v in value):
            parts = [self.node("Unsqueeze", [self.size_of(v)], axes=[0]) if isinstance(v, Sym)
                     else self.const(np.asarray([v], np.int64)) for v in value]
            return self.node("Concat", parts, axis=0)
        if isinstance(value, (tuple, list)):
            return self.const(np.asarray(value, np.int64))
        if isinstance(value, (bool, int, float)):
            dt = np_dtype(like.dtype) if like is not None else (np.bool_ if isinstance(value, bool) else
                                                                  np.int64 if isinstance(value, int) else np.float32)
            return self.const(np.asarray(value, dtype=dt))
        return self.const(as_numpy(value))

    def size_of(self, sym):
        """A size computed from a dynamic input dim (`a * d + b`, or `a / d`), as a 0-d int64 (float) tensor."""
        x, j = self.dims[sym.k]
        d = self.node("Gather", [self.node("Shape", [x]), self.const(np.asarray(j, np.int64))], axis=0)
        dt = np.int64
        if sym.kind == "inv" or isinstance(sym.a, float) or isinstance(sym.b, float):
            d, dt = self.node("Cast", [d], to=self.onnx.TensorProto.FLOAT), np.float32
        if sym.kind == "inv":
            return self.node("Div", [self.const(np.asarray(sym.a, dt)), d])
        if sym.a != 1:
            d = self.node("Mul", [d, self.const(np.asarray(sym.a, dt))])
        return self.node("Add", [d, self.const(np.asarray(sym.b, dt))]) if sym.b else d

    def const(self, array, hint="c"):
        name = self.fresh(hint)
        self.inits.append(self.onnx.numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, out=None, **attrs):
        """Add an ONNX node; binds `out` (a Var) to its output and returns the output's name."""
        # fresh names: a condition graph is written twice (before a Loop and in its body), names stay SSA
        name = self.fresh(op.lower() if out is None else f"v{out.id}")
        self.nodes.append(self.helper.make_node(op, list(inputs), [name], name=self.fresh("n_" + op), **attrs))
        if out is not None:
            self.env[out.id] = name
        return name

    def write(self, graph):
        EMIT.write(self, graph)

    def value_info(self, name, var, batch=False, dim_names=None):
        dims = [d for d in var.shape]
        if batch and self.batch is not None and dims and dims[0] == self.batch:
            dims[0] = "batch"
        if dim_names is not None:
            dims = [dim_names(j) if d is None else d for j, d in enumerate(dims)]
        return self.helper.make_tensor_value_info(name, self.onnx.helper.np_dtype_to_tensor_dtype(
            np.dtype(np_dtype(var.dtype))), dims)


# ---------------------------------------------------------------- the compiler's primitives as ONNX operators
_SAME = {"ReLU": "Relu", "Sigmoid": "Sigmoid", "Tanh": "Tanh", "Exp": "Exp", "Log": "Log", "Sqrt": "Sqrt",
         "Abs": "Abs", "Neg": "Neg", "Erf": "Erf", "Reciprocal": "Reciprocal", "Sin": "Sin", "Cos": "Cos",
         "Floor": "Floor", "LogicalNot": "Not", "Identity": "Identity", "StopGradient": "Identity",
         "Contiguous": "Identity"}
_BINARY = {"Add": "Add", "Sub": "Sub", "Mul": "Mul", "Div": "Div", "Pow": "Pow", "Maximum": "Max", "Minimum": "Min",
           "Greater": "Greater", "Less": "Less", "Equal": "Equal", "LogicalAnd": "And", "LogicalOr": "Or"}
# opset 11 has no GreaterEqual/LessEqual/NotEqual: the negation of the complementary comparison
_NEGATED = {"GreaterEqual": "Less", "LessEqual": "Greater", "NotEqual": "Equal"}


@_emits(*_SAME)
def _unary(w, node):
    w.node(_SAME[node.prim.name], [w.name(node.inputs[0])], node.outputs[0])


def _pair(w, node):
    x, y = node.inputs
    like = x if isinstance(x, Var) else y
    return [w.name(x, like), w.name(y, like)]


@_emits(*_BINARY)
def _binary(w, node):
    w.node(_BINARY[node.prim.name], _pair(w, node), node.outputs[0])


@_emits(*_NEGATED)
def _negated(w, node):
    w.node("Not", [w.node(_NEGATED[node.prim.name], _pair(w, node))], node.outputs[0])


@_emits("Square")
def _square(w, node):
    x = w.name(node.inputs[0])
    w.node("Mul", [x, x], node.outputs[0])


@_emits("Rsqrt")
def _rsqrt(w, node):
    w.node("Reciprocal", [w.node("Sqrt", [w.name(node.inputs[0])])], node.outputs[0])


@_emits("SiLU")
def _silu(w, node):
    x = w.name(node.inputs[0])
    w.node("Mul", [x, w.node("Sigmoid", [x])], node.outputs[0])


@_emits("ReLU6")
def _relu6(w, node):
    x = node.inputs[0]
    w.node("Clip", [w.name(x), w.name(0.0, x), w.name(6.0, x)], node.outputs[0])


@_emits("GeLU")
def _gelu(w, node):
    x = node.inputs[0]
    xn = w.name(x)
    if node.attrs.get("approximate", "tanh") == "tanh":
        cube = w.node("Mul", [w.node("Mul", [xn, xn]), xn])
        inner = w.node("Add", [xn, w.node("Mul", [cube, w.name(0.044715, x)])])
        t = w.node("Tanh", [w.node("Mul", [inner, w.name(float(np.sqrt(2.0 / np.pi)), x)])])
    else:
        t = w.node("Erf", [w.node("Mul", [xn, w.name(float(1.0 / np.sqrt(2.0)), x)])])
    half = w.node("Mul", [xn, w.name(0.5, x)])
    w.node("Mul", [half, w.node("Add", [t, w.name(1.0, x)])], node.outputs[0])


def _onnx_pads(pads):
    """(lo0, hi0, lo1, hi1, ...) -> ONNX's (lo0, lo1, ..., hi0, hi1, ...)."""
    return list(pads[0::2]) + list(pads[1::2])


@_emits("Convolution")
def _convolution(w, node):
    x, wt, b = node.inputs
    a = node.attrs
    inputs = [w.name(x), w.name(wt)] + ([] if b is None or isinstance(b, Const) and b.value is None else [w.name(b)])
    w.node("Conv", inputs, node.outputs[0], kernel_shape=list(wt.shape[2:]), strides=list(a["stride"]),
           pads=_onnx_pads(a["pads"]), dilations=list(a["dilation"]), group=int(a["groups"]))


@_emits("MaxPool2x2")
def _max_pool_2x2(w, node):
    w.node("MaxPool", [w.name(node.inputs[0])], node.outputs[0], kernel_shape=[2, 2], strides=[2, 2])


@_emits("AvgPool3D")
def _avg_pool(w, node):
    a = node.attrs
    if a.get("divisor_override"):
        raise ValueError("For 'export', average pooling with divisor_override has no ONNX form.")
    w.node("AveragePool", [w.name(node.inputs[0])], node.outputs[0], kernel_shape=list(a["kernel"]),
           strides=list(a["stride"]), pads=_onnx_pads(a["pads"]), ceil_mode=int(bool(a["ceil_mode"])),
           count_include_pad=int(bool(a["count_include_pad"])))


@_emits("Dense")
def _dense(w, node):
    x, wt, b = node.inputs
    has_b = not (b is None or isinstance(b, Const) and b.value is None)
    if len(x.shape) == 2:
        w.node("Gemm", [w.name(x), w.name(wt)] + ([w.name(b)] if has_b else []), node.outputs[0], transB=1)
        return
    y = w.node("MatMul", [w.name(x), w.node("Transpose", [w.name(wt)], perm=[1, 0])],
               None if has_b else node.outputs[0])
    if has_b:
        w.node("Add", [y, w.name(b)], node.outputs[0])


@_emits("Gather")
def _gather(w, node):
    if node.attrs.get("batch_dims", 0):
        raise ValueError("For 'export', Gather with batch_dims has no ONNX form in mindseed's exporter.")
    x, idx = node.inputs
    w.node("Gather", [w.name(x), w.name(idx)], node.outputs[0], axis=int(node.attrs.get("axis", 0)))


@_emits("LayerNorm")
def _layer_norm(w, node):
    # opset 11 has no LayerNormalization: (x - mean) / sqrt(var + eps) * gamma + beta over the trailing dims
    x, gamma, beta = node.inputs
    out, mean_out, rstd_out = node.outputs
    axes = list(range(len(x.shape) - len(node.attrs["normalized_shape"]), len(x.shape)))
    mean = w.node("ReduceMean", [w.name(x)], mean_out, axes=axes, keepdims=1)
    d = w.node("Sub", [w.name(x), mean])
    var = w.node("ReduceMean", [w.node("Mul", [d, d])], axes=axes, keepdims=1)
    rstd = w.node("Reciprocal", [w.node("Sqrt", [w.node("Add", [var, w.name(float(node.attrs["eps"]), x)])])],
                  rstd_out)
    w.node("Add", [w.node("Mul", [w.node("Mul", [d, rstd]), w.name(gamma)]), w.name(beta)], out)


@_emits("MatMul")
def _matmul(w, node):
    x, y = node.inputs
    names = []
    for v, t in ((x, node.attrs.get("transpose_a")), (y, node.attrs.get("transpose_b"))):
        n = w.name(v)
        if t:
            perm = list(range(len(v.shape)))
            perm[-1], perm[-2] = perm[-2], perm[-1]
            n = w.node("Transpose", [n], perm=perm)
        names.append(n)
    w.node("MatMul", names, node.outputs[0])


@_emits("BatchNormInference")
def _batch_norm(w, node):
    x, gamma, beta, mean, var = node.inputs
    w.node("BatchNormalization", [w.name(v) for v in (x, gamma, beta, mean, var)], node.outputs[0],
           epsilon=float(node.attrs["eps"]))


@_emits("Softmax", "LogSoftmax")
def _softmax(w, node):
    x = node.inputs[0]
    axis = node.attrs["axis"]
    axis = axis[0] if isinstance(axis, (tuple, list)) else axis
    rank = len(x.shape)
    axis = axis % rank
    op = node.prim.name
    if axis == rank - 1:
        w.node(op, [w.name(x)], node.outputs[0], axis=axis)
        return
    # opset 11's Softmax normalizes over all dims from `axis` on: move the axis last and back
    perm = [d for d in range(rank) if d != axis] + [axis]
    back = [perm.index(d) for d in range(rank)]
    t = w.node(op, [w.node("Transpose", [w.name(x)], perm=perm)], axis=rank - 1)
    w.node("Transpose", [t], node.outputs[0], perm=back)


@_emits("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd")
def _reduce(w, node):
    axis = node.attrs.get("axis")
    axes = {} if axis in (None, ()) else {"axes": list(axis) if isinstance(axis, (tuple, list)) else [axis]}
    w.node(node.prim.name, [w.name(node.inputs[0])], node.outputs[0],
           keepdims=int(bool(node.attrs.get("keep_dims", False))), **axes)


@_emits("Argmax", "Argmin")
def _arg_reduce(w, node):
    """ONNX's ArgMax/ArgMin (int64 indices, first occurrence) cast to the primitive's index dtype; no axis: over the
    flattened input."""
    x, out = node.inputs[0], node.outputs[0]
    axis, keep = node.attrs.get("axis"), bool(node.attrs.get("keep_dims", False))
    src = w.name(x)
    if np.dtype(np_dtype(x.dtype)) == np.bool_:
        src = w.node("Cast", [src], to=w.onnx.TensorProto.UINT8)
    if axis is None:
        src = w.node("Reshape", [src, w.const(np.asarray([-1], np.int64))])
    idx = w.node("ArgMax" if node.prim.name == "Argmax" else "ArgMin", [src], axis=0 if axis is None else int(axis),
                 keepdims=int(keep and axis is not None))
    if axis is None and keep:
        idx = w.node("Reshape", [idx, w.const(np.ones(len(x.shape), np.int64))])
    to = w.onnx.helper.np_dtype_to_tensor_dtype(np.dtype(np_dtype(out.dtype)))
    w.node("Cast", [idx], out, to=to)


@_emits("Reshape")
def _reshape(w, node):
    x, out = node.inputs[0], node.outputs[0]
    if None in out.shape:       # dynamic dims: the reshape's own target, sizes computed from the input dims
        w.node("Reshape", [w.name(x), w.name(tuple(node.attrs["shape"]))], out)
        return
    shape = [int(d) for d in out.shape]
    if w.batch is not None and shape and x.shape and shape[0] == x.shape[0] == w.batch:
        shape[0] = 0      # ONNX: copy the (symbolic) batch dim from the input
    w.node("Reshape", [w.name(x), w.const(np.asarray(shape, np.int64))], out)


@_emits("Transpose")
def _transpose(w, node):
    w.node("Transpose", [w.name(node.inputs[0])], node.outputs[0], perm=list(node.attrs["perm"]))


@_emits("Concat")
def _concat(w, node):
    w.node("Concat", [w.name(x) for x in node.inputs], node.outputs[0], axis=int(node.attrs["axis"]))


@_emits("Cast")
def _cast(w, node):
    to = w.onnx.helper.np_dtype_to_tensor_dtype(np.dtype(np_dtype(node.outputs[0].dtype)))
    w.node("Cast", [w.name(node.inputs[0])], node.outputs[0], to=to)


_END = 2 ** 63 - 1     # "to the end" of a dim whose size is known at run time only


@_emits("Getitem", "MicroBatchSlice")
def _getitem(w, node):
    x, out = node.inputs[0], node.outputs[0]
    index = node.attrs["index"]
    index = index if isinstance(index, tuple) else (index,)
    starts, ends, axes, steps, squeeze = [], [], [], [], []
    for i, part in enumerate(index):
        n = _END if x.shape[i] is None else x.shape[i]      # a dynamic dim: Slice clamps the end
        if isinstance(part, int) and not isinstance(part, bool):
            starts.append(part), ends.append(part + 1 if part != -1 else n), axes.append(i), steps.append(1)
            squeeze.append(i)
        elif isinstance(part, slice) and all(v is None or isinstance(v, int)
                                             for v in (part.start, part.stop, part.step)):
            if x.shape[i] is None:
                step = part.step or 1
                start = part.start if part.start is not None else 0 if step > 0 else -1
                stop = part.stop if part.stop is not None else _END if step > 0 else -_END
            else:
                start, stop, step = part.indices(x.shape[i])
            if (start, stop, step) not in ((0, n, 1), (0, _END, 1)):
                starts.append(start), ends.append(stop), axes.append(i), steps.append(step)
        else:
            raise ValueError(f"For 'export', the index {part!r} has no ONNX form in mindseed's exporter.")
    y = w.name(x)
    if axes:
        y = w.node("Slice", [y] + [w.const(np.asarray(v, np.int64)) for v in (starts, ends, axes, steps)],
                   None if squeeze else out)
    if squeeze:
        w.node("Squeeze", [y], out, axes=squeeze)
    elif not axes:
        w.node("Identity", [y], out)


# ---------------------------------------------------------------- control flow
def _subgraph(w, graph, name, inputs=(), outputs=None, extra=None):
    """An ONNX graph from an IR sub-graph: its params bound to `inputs` (names already visible, or the ONNX
    graph's own inputs when `inputs` are ValueInfos), outer values read by name."""
    env = dict(w.env)
    sub = _Writer(w.onnx, env, w.counter, w.batch, w.dims)
    for p, n in zip(graph.params, inputs):
        env[p.id] = n
    sub.write(graph)
    outs = list(graph.outputs if outputs is None else outputs)
    if extra is not None:
        outs = extra(sub) + outs
    out_infos, renamed = [], []
    for o in outs:
        n = sub.name(o) if not isinstance(o, str) else o
        fresh = sub.node("Identity", [n])      # each branch output gets its own name
        renamed.append(fresh)
        out_infos.append(w.helper.make_empty_tensor_value_info(fresh))
    return sub, renamed, out_infos


@_emits(IF.name)
def _if(w, node):
    cond, *operands = node.inputs
    branches = {}
    for key, g in (("then_branch", node.attrs["then"]), ("else_branch", node.attrs["else_"])):
        sub, _, infos = _subgraph(w, g, w.fresh(key), [w.name(x) for x in operands])
        branches[key] = w.helper.make_graph(sub.nodes, w.fresh(key), [], infos, initializer=sub.inits)
    outs = [w.fresh(f"v{o.id}") for o in node.outputs]
    w.nodes.append(w.helper.make_node("If", [w.name(cond)], outs, name=w.fresh("n_If"), **branches))
    for o, n in zip(node.outputs, outs):
        w.env[o.id] = n


@_emits(WHILE.name)
def _while(w, node):
    cond_g, body_g = node.attrs["cond"], node.attrs["body"]
    carried = [w.name(x) for x in node.inputs]
    # the first test, in the enclosing graph
    head = _Writer(w.onnx, dict(w.env), w.counter, w.batch, w.dims)
    for p, n in zip(cond_g.params, carried):
        head.env[p.id] = n
    head.write(cond_g)
    w.nodes.extend(head.nodes)
    w.inits.extend(head.inits)
    first = head.name(cond_g.outputs[0])
    # body(iteration, cond, *carried) -> (cond of the new values, *new values)
    it, cin = w.fresh("iter"), w.fresh("cond_in")
    ins = [w.fresh("carried") for _ in carried]

    def test_again(sub):
        again = _Writer(w.onnx, dict(sub.env), w.counter, w.batch, w.dims)
        for p, o in zip(cond_g.params, body_g.outputs):
            again.env[p.id] = sub.name(o)
        again.write(cond_g)
        sub.nodes.extend(again.nodes)
        sub.inits.extend(again.inits)
        return [again.name(cond_g.outputs[0])]

    sub, _, out_infos = _subgraph(w, body_g, "body", ins, extra=test_again)
    in_infos = [w.helper.make_tensor_value_info(it, w.onnx.TensorProto.INT64, []),
                w.helper.make_tensor_value_info(cin, w.onnx.TensorProto.BOOL, [])]
    in_infos += [w.helper.make_empty_tensor_value_info(n) for n in ins]
    body = w.helper.make_graph(sub.nodes, w.fresh("loop_body"), in_infos, out_infos, initializer=sub.inits)
    outs = [w.fresh(f"v{o.id}") for o in node.outputs]
    w.nodes.append(w.helper.make_node("Loop", ["", first] + carried, outs, name=w.fresh("n_Loop"), body=body))
    for o, n in zip(node.outputs, outs):
        w.env[o.id] = n


# ---------------------------------------------------------------- the model
def onnx_bytes(cap, dynamic_batch=False, input_names=None, output_names=None, dim_names=None, export_params=True,
               keep_initializers_as_inputs=False):
    """The serialized ONNX ModelProto of a Captured graph (checked with onnx.checker, full check).

    `input_names` / `output_names` name the graph's inputs and outputs in order (the rest keep the default names
    x, x1, ... and output, output_0, ...); `dim_names` {input index: {dim: name}} names dynamic input dims;
    `export_params=False` makes the weights graph inputs instead of initializers, and `keep_initializers_as_inputs`
    lists the initializers among the inputs too."""
    onnx = _onnx()
    input_names, output_names, dim_names = list(input_names or ()), list(output_names or ()), dim_names or {}
    in_names = [input_names[i] if i < len(input_names) else ("x" if i == 0 else f"x{i}")
                for i in range(len(cap.inputs))]
    batch = cap.inputs[0].shape[0] if dynamic_batch and cap.inputs and cap.inputs[0].shape else None
    env, counter = {}, [0]
    w = _Writer(onnx, env, counter, batch, dims=[(in_names[i], j) for i, j in cap.dims])
    inputs = []
    for i, v in enumerate(cap.inputs):
        env[v.id] = in_names[i]
        inputs.append(w.value_info(env[v.id], v, batch=True, dim_names=lambda j, i=i: dim_names.get(i, {}).get(
            j, "batch" if i == j == 0 else f"x{i}_d{j}")))
    weights = []
    for name, var, array in cap.weights:
        env[var.id] = name
        weights.append(onnx.numpy_helper.from_array(array, name))
        if not export_params or keep_initializers_as_inputs:
            inputs.append(w.value_info(name, var))
    if export_params:
        w.inits.extend(weights)
    for var, array in cap.constants:
        env[var.id] = w.const(array)
    w.write(cap.graph)
    outputs = []
    for i, o in enumerate(cap.outputs):
        name = output_names[i] if i < len(output_names) else f"output_{i}" if len(cap.outputs) > 1 else "output"
        w.nodes.append(onnx.helper.make_node("Identity", [w.name(o)], [name], name=w.fresh("n_output")))
        outputs.append(w.value_info(name, o, batch=True))
    graph = onnx.helper.make_graph(w.nodes, cap.name, inputs, outputs, initializer=w.inits)
    model = onnx.helper.make_model(graph, producer_name="mindseed", opset_imports=[onnx.helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model.SerializeToString()
