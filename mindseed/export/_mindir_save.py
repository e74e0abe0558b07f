"""Writing a captured graph (`_capture.Captured`) as a MindIR file in MindSpore 2.10's layout.

The model is what MindSpore's own exporter writes (mind_ir_version 3): operator nodes name a primitive of
the model's `primitives` list (`REF::Conv2D:3`); settings of `PRIMITIVE_FUNCTION` operators are `Constant`
nodes passed as inputs, in the operator's argument order (`_ms_ops`); weights are the main graph's
`parameter`s with their checkpoint names as `ref_key`; each node carries its output's shape and type.
`EMIT` maps each primitive of the compiler's IR to the MindSpore operators that compute it.

Control flow is written as MindSpore writes it: an If is `Switch(cond, Partial(then, ...), Partial(else, ...))`
followed by a call of the chosen closure; a While is a header graph that tests the condition and either calls
the body graph, which calls the header again (tail recursion), or returns the carried values. Sub-graphs get
the outer values they read as extra inputs.
"""
import numpy as np

from mindseed.compiler.ir import IF, WHILE, Const, Sym, Var
from mindseed.export import _schema as S
from mindseed.export._capture import as_numpy, np_dtype
from mindseed.export._mindir_format import MONAD, encode, shape_proto, tensor_proto
from mindseed.export._ms_ops import FUNCTION, PAD_MODE_ID, PRIMITIVE, TYPE_ID_OF
from mindseed.export._table import EmitTable

EMIT = EmitTable("MindIR")
_emits = EMIT.emits


class _Model:
    """The ModelProto being written and what its graphs share: primitives, constants, names."""

    def __init__(self, name):
        self.proto = S.ModelProto(ir_version="1.1", producer_name="MindSpore", model_version="2.10.0",
                                  little_endian=True, mind_ir_version=3)
        self.proto.doc_string = "written by mindseed"
        self.name = name
        self.prims = {}
        self.consts = {}
        self.count = 0

    def fresh(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def prim(self, op, kind, attrs):
        key = (op, kind, repr(sorted((attrs or {}).items())))
        name = self.prims.get(key)
        if name is None:
            name = self.prims[key] = f"{op}:{len(self.prims) + 1}"
            p = self.proto.primitives.add(name=name, op_type=op, instance_name="",
                                          prim_type=S.PRIM_TYPES[kind])
            for k, v in (attrs or {}).items():
                encode(p.attribute.add(name=k), v)
        return name

    def const(self, graph, value):
        """A Constant node (in the main graph, visible to all graphs) holding a Python value or numpy array."""
        key = (type(value).__name__, value.dtype.str, value.shape, value.tobytes()) if isinstance(value, np.ndarray) \
            else (type(value).__name__, repr(value))
        name = self.consts.get(key)
        if name is None:
            name = self.consts[key] = self.fresh("ValueNode")
            node = self.root.node.add(output=[name], name=name, op_type="Constant")
            encode(node.attribute.add(name="value"), value)
        return name


def _has_sym(value):
    return isinstance(value, Sym) or isinstance(value, (tuple, list)) and any(_has_sym(v) for v in value)


class _Writer:
    """Writes one IR graph into one GraphProto."""

    def __init__(self, model, proto, env, dims=None):
        self.model, self.proto, self.env = model, proto, env
        self.dims = dims        # the main graph's dynamic dims: [(input name, dim)] per Sym; None in sub-graphs
        self.sizes = {}         # the nodes computing them, made at first use

    def name(self, x):
        """The MindIR name of an operand: a Var of this graph (or an enclosing one), or a constant."""
        if isinstance(x, Var):
            return self.env[x.id]
        value = x.value if isinstance(x, Const) else x
        if _has_sym(value):
            return self.dynamic(value)
        if value is not None and not isinstance(value, (bool, int, float, str, tuple, list, np.ndarray)):
            value = as_numpy(value)
        return self.model.const(self.proto, value)

    def dynamic(self, value):
        """A number (or a tuple of numbers) computed at run time from the dynamic input dims, as MindSpore writes
        `x.shape[0] * 3`: Shape, TupleGetItem, Scalar* operators (MakeTuple for a tuple)."""
        if isinstance(value, (tuple, list)):
            return self.op("MakeTuple", [self.name(v) for v in value], kind=PRIMITIVE)
        if not isinstance(value, Sym):
            return self.model.const(self.proto, value)
        if self.dims is None:
            raise ValueError("For 'export', a size computed from a dynamic input dim inside control flow (if/while) "
                             "has no MindIR form in mindseed's exporter; export with static shapes.")
        d = self.size(*self.dims[value.k])
        if value.kind == "inv":
            return self.op("ScalarDiv", [self.model.const(self.proto, value.a), d])
        if value.a != 1 or isinstance(value.a, float):
            d = self.op("ScalarMul", [self.model.const(self.proto, value.a), d])
        return self.op("ScalarAdd", [d, self.model.const(self.proto, value.b)]) if value.b or \
            isinstance(value.b, float) else d

    def size(self, x, j):
        """Dim j of the graph value named x, at run time."""
        key = (x, j)
        if key not in self.sizes:
            shape = self.sizes.get(x) or self.op("Shape", [x])
            self.sizes[x] = shape
            self.sizes[key] = self.op("TupleGetItem", [shape, self.model.const(self.proto, j)], kind=PRIMITIVE)
        return self.sizes[key]

    def tensor_const(self, value, like):
        """A number as a 0-d tensor of `like`'s dtype (MindSpore's form of `x + 1`)."""
        return self.model.const(self.proto, np.asarray(value, dtype=np_dtype(like.dtype)))

    def operand(self, x, like):
        """A binary operator's operand: Vars as they are, numbers as 0-d tensors of the other operand's type."""
        if isinstance(x, Var):
            return self.env[x.id]
        value = x.value if isinstance(x, Const) else x
        if isinstance(value, Sym):
            return self.op("ScalarToTensor", [self.dynamic(value), self.name(int(TYPE_ID_OF[str(like.dtype)]))])
        if isinstance(value, (bool, int, float)):
            return self.tensor_const(value, like)
        return self.name(x)

    def op(self, op, inputs, out=None, attrs=None, kind=FUNCTION, shape=None):
        """Add `op(*inputs)`; binds `out` (a Var) to its result and returns the result's name."""
        name = f"{self.proto.name}:{self.model.fresh(op)}"
        node = self.proto.node.add(input=inputs, output=[name], name=name,
                                   op_type=f"REF::{self.model.prim(op, kind, attrs)}")
        if shape is None and out is not None and out.shape is not None:
            shape = out
        if isinstance(shape, Var):
            a = node.attribute.add(name="shape", type=S.ATTR_TYPES["TENSORS"])
            shape_proto(a.tensors.add(), shape.shape, np_dtype(shape.dtype))
        elif isinstance(shape, list):
            a = node.attribute.add(name="shape", type=S.ATTR_TYPES["TUPLE"])
            for dims, dt in shape:
                v = a.values.add(type=S.ATTR_TYPES["TENSORS"])
                shape_proto(v.tensors.add(), dims, dt)
        if out is not None:
            self.env[out.id] = name
        return name

    def write(self, graph):
        EMIT.write(self, graph)


# ---------------------------------------------------------------- the compiler's primitives as MindSpore operators
_SAME = ("ReLU", "ReLU6", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Rsqrt", "Abs", "Neg", "Erf", "Square", "SiLU",
         "Reciprocal", "Sin", "Cos", "Floor", "LogicalNot", "OnesLike", "ZerosLike")
_BINARY = ("Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "Greater", "GreaterEqual", "Less", "LessEqual", "Equal",
           "NotEqual", "Pow", "LogicalAnd", "LogicalOr", "FloorDiv")


@_emits(*_SAME)
def _unary(w, node):
    w.op(node.prim.name, [w.name(node.inputs[0])], node.outputs[0])


@_emits(*_BINARY)
def _binary(w, node):
    x, y = node.inputs
    like = x if isinstance(x, Var) else y
    w.op(node.prim.name, [w.operand(x, like), w.operand(y, like)], node.outputs[0])


@_emits("Identity", "StopGradient", "Contiguous")
def _identity(w, node):
    w.env[node.outputs[0].id] = w.name(node.inputs[0])


def _none(x):
    return x is None or isinstance(x, Const) and x.value is None


@_emits("Convolution")
def _convolution(w, node):
    x, wt, b = node.inputs
    a = node.attrs
    if len(a["stride"]) != 2:
        raise ValueError(f"For 'export', only 2-D convolutions have a MindIR form, but got {len(a['stride'])}-D.")
    t, bo, le, r = a["pads"]
    out = node.outputs[0]
    attrs = {"kernel_size": tuple(wt.shape[2:]), "mode": 1, "out_channel": wt.shape[0], "pad": (t, bo, le, r),
             "pad_mode": "pad", "format": "NCHW", "pad_list": (t, bo, le, r), "groups": a["groups"],
             "stride": (1, 1) + tuple(a["stride"]), "group": a["groups"], "dilation": (1, 1) + tuple(a["dilation"]),
             "input_names": ["x", "w"], "output_names": ["output"]}
    if _none(b):
        w.op("Conv2D", [w.name(x), w.name(wt)], out, attrs, PRIMITIVE)
    else:
        y = w.op("Conv2D", [w.name(x), w.name(wt)], None, attrs, PRIMITIVE, shape=out)
        w.op("BiasAdd", [y, w.name(b), w.name(0)], out)


@_emits("MaxPool2x2")
def _max_pool_2x2(w, node):
    attrs = {"kernel_size": (1, 1, 2, 2), "strides": (1, 1, 2, 2), "pad_mode": "VALID", "format": "NCHW",
             "input_names": ["x"], "output_names": ["output"]}
    w.op("MaxPool", [w.name(node.inputs[0])], node.outputs[0], attrs, PRIMITIVE)


@_emits("AvgPool3D")
def _avg_pool(w, node):
    a = node.attrs
    if len(a["kernel"]) != 2 or any(a["pads"]) or a["ceil_mode"] or a.get("divisor_override"):
        raise ValueError("For 'export', average pooling has a MindIR form only in 2-D without padding, ceil_mode or "
                         "divisor_override.")
    w.op("AvgPool", [w.name(node.inputs[0]), w.name(tuple(a["kernel"])), w.name(tuple(a["stride"])),
                     w.name(PAD_MODE_ID["VALID"]), w.name(0)], node.outputs[0])


@_emits("Dense")
def _dense(w, node):
    x, wt, b = node.inputs
    out = node.outputs[0]
    flat = len(x.shape) != 2     # as MindSpore's nn.Dense: (..., in) -> (-1, in) -> (..., out)
    x2 = w.op("Reshape", [w.name(x), w.name((-1, x.shape[-1]))]) if flat else w.name(x)
    last = None if flat else out
    y = w.op("MatMul", [x2, w.name(wt), w.name(False), w.name(True)], None if _none(b) else last)
    if not _none(b):
        y = w.op("BiasAdd", [y, w.name(b), w.name(0)], last)
    if flat and None in out.shape:      # the leading dims of x, read at run time where dynamic
        dims = [w.size(w.name(x), i) if d is None else w.name(int(d)) for i, d in enumerate(out.shape[:-1])]
        w.op("Reshape", [y, w.op("MakeTuple", dims + [w.name(int(out.shape[-1]))], kind=PRIMITIVE)], out)
    elif flat:
        w.op("Reshape", [y, _shape_operand(w, out)], out)


@_emits("Gather")
def _gather(w, node):
    x, idx = node.inputs
    w.op("Gather", [w.name(x), w.name(idx), w.name(int(node.attrs.get("axis", 0))),
                    w.name(int(node.attrs.get("batch_dims", 0)))], node.outputs[0])


@_emits("LayerNorm")
def _layer_norm(w, node):
    n = len(node.attrs["normalized_shape"])
    # MindSpore's LayerNorm takes begin axes in [-1, rank): two or more trailing axes are counted from the front
    axis = -1 if n == 1 else len(node.inputs[0].shape) - n
    dt = np_dtype(node.outputs[0].dtype)
    t = w.op("LayerNorm", [w.name(v) for v in node.inputs] + [w.name(axis), w.name(axis),
                                                               w.name(float(node.attrs["eps"]))],
             shape=[(tuple(o.shape), dt) for o in node.outputs])
    for i, o in enumerate(node.outputs):
        w.op("TupleGetItem", [t, w.name(i)], o, kind=PRIMITIVE)


@_emits("MatMul")
def _matmul(w, node):
    x, y = node.inputs
    ta, tb = node.attrs.get("transpose_a", False), node.attrs.get("transpose_b", False)
    op = "MatMul" if len(x.shape) == 2 and len(y.shape) == 2 else "BatchMatMul"
    w.op(op, [w.name(x), w.name(y), w.name(bool(ta)), w.name(bool(tb))], node.outputs[0])


@_emits("BatchNormInference")
def _batch_norm(w, node):
    x, *rest = node.inputs
    out = node.outputs[0]
    dt = np_dtype(out.dtype)
    stats = [(tuple(v.shape), dt) for v in rest]
    t = w.op("BatchNorm", [w.name(v) for v in node.inputs] + [w.name(False), w.name(float(node.attrs["eps"])),
                                                                w.name(0.1), w.name(0)],
             shape=[(tuple(out.shape), dt)] + stats)
    w.op("TupleGetItem", [t, w.name(0)], out, kind=PRIMITIVE)


@_emits("GeLU")
def _gelu(w, node):
    x, out = node.inputs[0], node.outputs[0]
    if node.attrs.get("approximate", "tanh") == "tanh":
        w.op("GeLU", [w.name(x)], out)
        return
    # the exact GeLU, 0.5 * x * (1 + erf(x / sqrt(2))), in MindSpore's operators
    s = w.op("Mul", [w.name(x), w.tensor_const(0.7071067811865476, x)], shape=out)
    e = w.op("Erf", [s], shape=out)
    p = w.op("Add", [e, w.tensor_const(1.0, x)], shape=out)
    h = w.op("Mul", [w.name(x), w.tensor_const(0.5, x)], shape=out)
    w.op("Mul", [h, p], out)


@_emits("Softmax")
def _softmax(w, node):
    axis = node.attrs["axis"]
    w.op("Softmax", [w.name(node.inputs[0]), w.name(tuple(axis) if isinstance(axis, (tuple, list)) else (axis,))],
         node.outputs[0])


@_emits("LogSoftmax")
def _log_softmax(w, node):
    w.op("LogSoftmax", [w.name(node.inputs[0]), w.name(int(node.attrs["axis"]))], node.outputs[0])


@_emits("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd")
def _reduce(w, node):
    axis = node.attrs.get("axis")
    axis = () if axis is None else tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    args = [w.name(node.inputs[0]), w.name(axis), w.name(bool(node.attrs.get("keep_dims", False)))]
    if node.prim.name == "ReduceSum":
        args.append(w.name(False))     # skip_mode
    w.op(node.prim.name, args, node.outputs[0])


def _shape_operand(w, out, target=None):
    """The shape operand of a Reshape to `out`'s shape: its dims, or with dynamic dims the reshape's own target
    (`target`, which may compute sizes from the input dims)."""
    if None not in out.shape:
        return w.name(tuple(int(d) for d in out.shape))
    if target is None:
        raise ValueError("For 'export', a reshape to a shape with dynamic dims has no MindIR form here.")
    return w.name(tuple(target))


@_emits("Reshape")
def _reshape(w, node):
    w.op("Reshape", [w.name(node.inputs[0]), _shape_operand(w, node.outputs[0], node.attrs.get("shape"))],
         node.outputs[0])


@_emits("Transpose")
def _transpose(w, node):
    w.op("Transpose", [w.name(node.inputs[0]), w.name(tuple(node.attrs["perm"]))], node.outputs[0])


@_emits("Concat")
def _concat(w, node):
    dt = np_dtype(node.outputs[0].dtype)
    t = w.op("MakeTuple", [w.name(x) for x in node.inputs], kind=PRIMITIVE,
             shape=[(tuple(x.shape), dt) for x in node.inputs])
    w.op("Concat", [t, w.name(int(node.attrs["axis"]))], node.outputs[0])


@_emits("Argmax")
def _argmax(w, node):
    """MindSpore's Argmax(x, axis, output_type); over all elements (no axis) a flattened input, and the kept
    reduced dim (`keep_dims`) a Reshape of its result."""
    x, out = node.inputs[0], node.outputs[0]
    axis, src = node.attrs.get("axis"), w.name(x)
    if axis is None:
        n = int(np.prod(x.shape)) if None not in x.shape else -1
        src = w.op("Reshape", [src, w.name((n,))], shape=Var((n,), x.dtype))
        dims, axis = (), 0
    else:
        axis = int(axis) % len(x.shape)
        dims = tuple(d for i, d in enumerate(x.shape) if i != axis)
    args = [src, w.name(axis), w.name(TYPE_ID_OF[str(out.dtype)])]
    if tuple(out.shape) == dims:
        w.op("Argmax", args, out)
        return
    w.op("Reshape", [w.op("Argmax", args, shape=Var(dims, out.dtype)), _shape_operand(w, out)], out)


@_emits("Cast")
def _cast(w, node):
    w.op("Cast", [w.name(node.inputs[0]), w.name(TYPE_ID_OF[str(node.attrs["dtype"])])], node.outputs[0])


_END = 2 ** 31 - 1     # "to the end" of a dim whose size is known at run time only


@_emits("Getitem", "MicroBatchSlice")
def _getitem(w, node):
    x, out = node.inputs[0], node.outputs[0]
    index = node.attrs["index"]
    index = index if isinstance(index, tuple) else (index,)
    begin, end, strides, shrink = [], [], [], 0
    for i, part in enumerate(index):
        n = _END if x.shape[i] is None else x.shape[i]      # a dynamic dim: StridedSlice clamps the end
        if isinstance(part, int) and not isinstance(part, bool):
            begin.append(part), end.append(part + 1 if part != -1 else n), strides.append(1)
            shrink |= 1 << i
        elif isinstance(part, slice) and all(v is None or isinstance(v, int)
                                             for v in (part.start, part.stop, part.step)):
            if x.shape[i] is None and (part.step or 1) > 0:     # negative bounds stay relative to the end
                start, stop, step = part.start or 0, _END if part.stop is None else part.stop, part.step or 1
            elif x.shape[i] is None:
                raise ValueError("For 'export', indexing a dynamic dim with a negative step has no MindIR form in "
                                 "mindseed's exporter.")
            else:
                start, stop, step = part.indices(x.shape[i])
            if step < 0:
                raise ValueError("For 'export', indexing with a negative step has no MindIR form in mindseed's "
                                 "exporter.")
            begin.append(start), end.append(stop), strides.append(step)
        else:
            raise ValueError(f"For 'export', the index {part!r} has no MindIR form in mindseed's exporter.")
    w.op("StridedSlice", [w.name(x), w.name(tuple(begin)), w.name(tuple(end)), w.name(tuple(strides)),
                          w.name(0), w.name(0), w.name(0), w.name(0), w.name(shrink)], out)


# ---------------------------------------------------------------- control flow
def _free_vars(graph, bound=None):
    """Vars a sub-graph reads from enclosing graphs, in first-use order."""
    bound = set(bound or ()) | {p.id for p in graph.params}
    free, seen = [], set()

    def use(x):
        if isinstance(x, Var) and x.id not in bound and x.id not in seen:
            seen.add(x.id)
            free.append(x)
    for node in graph.nodes:
        for x in node.inputs:
            use(x)
        for g in node.subgraphs():
            for x in _free_vars(g, bound):
                use(x)
        bound.update(o.id for o in node.outputs)
    for x in graph.outputs:
        use(x)
    return free


def _sub_graph(w, graph, hint, extra_params=(), tail=None):
    """Write an IR sub-graph as a function graph of the model taking (its params, `extra_params`); its result
    is its outputs (a tuple if several), or what `tail(writer)` returns. Returns the function graph's name."""
    model = w.model
    name = model.fresh(hint)
    proto = model.proto.functions.add(name=name)
    env = dict(w.env)
    sub = _Writer(model, proto, env)
    for p in list(graph.params) + list(extra_params):
        env[p.id] = f"{name}:{model.fresh('x')}"
        v = proto.input.add(name=env[p.id])
        shape_proto(v.tensor.add(), p.shape, np_dtype(p.dtype))
    sub.write(graph)
    result = tail(sub) if tail is not None else _result(sub, graph.outputs)
    proto.output.add(name=result)
    return name


def _result(w, outputs):
    names = [w.name(o) for o in outputs]
    if len(names) == 1:
        return names[0]
    return w.op("MakeTuple", names, kind=PRIMITIVE,
                shape=[(tuple(o.shape), np_dtype(o.dtype)) for o in outputs])


def _bind_outputs(w, result, outputs):
    if len(outputs) == 1:
        w.env[outputs[0].id] = result
        return
    for i, o in enumerate(outputs):
        w.op("TupleGetItem", [result, w.name(i)], o, kind=PRIMITIVE)


@_emits(IF.name)
def _if(w, node):
    cond, *operands = node.inputs
    then_g, else_g = node.attrs["then"], node.attrs["else_"]
    free = [v for v in _free_vars(then_g) + _free_vars(else_g) if v.id in w.env]
    free = list({v.id: v for v in free}.values())
    branches = []
    for g, hint in ((then_g, "then"), (else_g, "else")):
        # the branch's own parameters are the If's operands; the outer values either branch reads follow them
        fname = _sub_graph(w, g, hint, extra_params=[_Alias(v) for v in free])
        branches.append(w.op("Partial", [fname] + [w.name(x) for x in operands] + [w.name(v) for v in free],
                             kind=PRIMITIVE))
    chosen = w.op("Switch", [w.name(cond)] + branches, kind=PRIMITIVE)
    result = _call(w, chosen, [], node.outputs)
    _bind_outputs(w, result, node.outputs)


@_emits(WHILE.name)
def _while(w, node):
    cond_g, body_g = node.attrs["cond"], node.attrs["body"]
    carried = node.inputs
    free = list({v.id: v for v in _free_vars(cond_g) + _free_vars(body_g) if v.id in w.env}.values())
    header = w.model.fresh("while_header")
    head_proto = w.model.proto.functions.add(name=header)
    body = _sub_graph(w, body_g, "while_body", extra_params=[_Alias(v) for v in free],
                      tail=lambda sub: _call(sub, header, [sub.name(o) for o in body_g.outputs]
                                             + [sub.env[v.id] for v in free], node.outputs, graph_call=True))
    exit_g = w.model.fresh("while_exit")
    exit_proto = w.model.proto.functions.add(name=exit_g)
    exit_w = _Writer(w.model, exit_proto, {})
    exit_outs = []
    for o in node.outputs:
        exit_w.env[o.id] = f"{exit_g}:{w.model.fresh('x')}"
        shape_proto(exit_proto.input.add(name=exit_w.env[o.id]).tensor.add(), o.shape, np_dtype(o.dtype))
        exit_outs.append(o)
    exit_proto.output.add(name=_result(exit_w, exit_outs))
    # header(carried..., free...): Switch(cond(carried), Partial(body, carried, free), Partial(exit, carried))()
    env = dict(w.env)
    head = _Writer(w.model, head_proto, env)
    params = list(cond_g.params)
    for p in params + [_Alias(v) for v in free]:
        env[p.id] = f"{header}:{w.model.fresh('x')}"
        shape_proto(head_proto.input.add(name=env[p.id]).tensor.add(), p.shape, np_dtype(p.dtype))
    head.write(cond_g)
    c = head.name(cond_g.outputs[0])
    cur = [env[p.id] for p in params]
    p_body = head.op("Partial", [body] + cur + [env[v.id] for v in free], kind=PRIMITIVE)
    p_exit = head.op("Partial", [exit_g] + cur, kind=PRIMITIVE)
    chosen = head.op("Switch", [c, p_body, p_exit], kind=PRIMITIVE)
    head_proto.output.add(name=_call(head, chosen, [], node.outputs))
    result = _call(w, header, [w.name(x) for x in carried] + [w.name(v) for v in free], node.outputs,
                   graph_call=True)
    _bind_outputs(w, result, node.outputs)


class _Alias:
    """An outer value seen as a parameter of a sub-graph (same id, so the sub-graph's reads of it resolve)."""

    def __init__(self, var):
        self.id, self.shape, self.dtype = var.id, var.shape, var.dtype


def _call(w, callee, inputs, outputs, graph_call=False):
    """A call node `REF::callee(*inputs)` (callee: a graph name, or the name of a node holding a closure)."""
    name = f"{w.proto.name}:{w.model.fresh('call')}"
    node = w.proto.node.add(input=inputs, output=[name], name=name, op_type=f"REF::{callee}")
    if len(outputs) == 1:
        a = node.attribute.add(name="shape", type=S.ATTR_TYPES["TENSORS"])
        shape_proto(a.tensors.add(), outputs[0].shape, np_dtype(outputs[0].dtype))
    else:
        a = node.attribute.add(name="shape", type=S.ATTR_TYPES["TUPLE"])
        for o in outputs:
            shape_proto(a.values.add(type=S.ATTR_TYPES["TENSORS"]).tensors.add(), o.shape, np_dtype(o.dtype))
    return name


# ---------------------------------------------------------------- the model
def mindir_model(cap):
    """The ModelProto of a Captured graph."""
    model = _Model(cap.name)
    gname = f"{cap.name}_construct"
    root = model.proto.graph
    root.name = gname
    model.root = root
    env = {}
    model.const(root, MONAD)
    for i, v in enumerate(cap.inputs):
        env[v.id] = f"{gname}:x{i}" if i else f"{gname}:x"
        shape_proto(root.input.add(name=env[v.id]).tensor.add(), v.shape, np_dtype(v.dtype))
    for name, var, array in cap.weights:
        env[var.id] = f"{gname}:{name}"
        p = tensor_proto(root.parameter.add(), array, name=env[var.id])
        p.ref_key = name
    w = _Writer(model, root, env, dims=[(env[cap.inputs[i].id], j) for i, j in cap.dims])
    for var, array in cap.constants:
        env[var.id] = model.const(root, array)
    w.write(cap.graph)
    out = _result(w, cap.outputs) if cap.tuple_output or len(cap.outputs) > 1 else w.name(cap.outputs[0])
    info = root.output.add(name=out)
    if cap.tuple_output or len(cap.outputs) > 1:
        info.denotation = "Tuple"
        info.attr_info.type = S.ATTR_TYPES["TUPLE"]
        for o in cap.outputs:
            shape_proto(info.attr_info.values.add(type=S.ATTR_TYPES["TENSORS"]).tensors.add(), o.shape,
                        np_dtype(o.dtype))
    else:
        shape_proto(info.tensor.add(), cap.outputs[0].shape, np_dtype(cap.outputs[0].dtype))
    return model.proto
