"""ONNX operators outside a known layer, written as one line of `construct` each: Python arithmetic, tensor
indexing or a `mindspore.ops` function. `EMIT[op](p, node)` returns the right-hand side of the line (None: the
node's output is its input, no line)."""
import numpy as np

from mindseed.export._onnx_load import attr_str
from mindseed.converter._program import dtype_text, float_text, scalar_text, tuple_text

EMIT = {}


def _emits(*ops):
    def register(fn):
        for op in ops:
            EMIT[op] = fn
        return fn
    return register


def _call(fn):
    return lambda p, node: f"{fn}({', '.join(p.arg(i) for i in node.inputs if i)})"


for _op, _fn in (("Relu", "ops.relu"), ("Sigmoid", "ops.sigmoid"), ("Tanh", "ops.tanh"), ("Exp", "ops.exp"),
                 ("Log", "ops.log"), ("Sqrt", "ops.sqrt"), ("Abs", "ops.abs"), ("Erf", "ops.erf"),
                 ("Floor", "ops.floor"), ("Sin", "ops.sin"), ("Cos", "ops.cos"), ("Reciprocal", "ops.reciprocal"),
                 ("Not", "ops.logical_not"), ("Equal", "ops.equal"), ("Less", "ops.less"), ("Greater", "ops.greater"),
                 ("And", "ops.logical_and"), ("Or", "ops.logical_or"), ("MatMul", "ops.matmul"),
                 ("Where", "ops.where")):
    EMIT[_op] = _call(_fn)

_INFIX = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/"}


@_emits("Add", "Sub", "Mul", "Div", "Pow")
def _binary(p, node):
    a, b = node.inputs
    x, y = p.operand(a, b), p.operand(b, a)
    if node.op == "Pow":
        return f"ops.pow({x}, {y})"
    if node.op == "Div" and np.dtype(p.dtype(a)).kind in "iu":
        return f"ops.div({x}, {y}, rounding_mode='trunc')"
    return f"{x} {_INFIX[node.op]} {y}"


@_emits("Max", "Min")
def _variadic(p, node):
    fn = "ops.maximum" if node.op == "Max" else "ops.minimum"
    text = p.arg(node.inputs[0])
    for name in node.inputs[1:]:
        text = f"{fn}({text}, {p.arg(name)})"
    return text


@_emits("Mod")
def _mod(p, node):
    return f"{'ops.fmod' if node.attrs.get('fmod', 0) else 'ops.remainder'}({p.arg(node.inputs[0])}, " \
           f"{p.operand(node.inputs[1], node.inputs[0])})"


@_emits("Neg")
def _neg(p, node):
    return f"-{p.arg(node.inputs[0])}"


@_emits("Identity", "Dropout")
def _identity(p, node):
    p.alias(node.outputs[0], node.inputs[0])


@_emits("Reshape", "Flatten", "Expand", "Unsqueeze")
def _to_shape(p, node):
    """Operators whose result is their input in the (static) shape the graph computed."""
    x, shape = p.arg(node.inputs[0]), p.shape(node.outputs[0])
    if node.op == "Expand":
        return f"ops.broadcast_to({x}, {tuple_text(shape)})"
    if node.op == "Unsqueeze" and len(shape) == len(p.shape(node.inputs[0])) + 1:
        axis = next(i for i, (a, b) in enumerate(zip(shape, tuple(p.shape(node.inputs[0])) + (None,))) if a != b
                    or b is None)
        return f"ops.expand_dims({x}, {axis})"
    return f"ops.reshape({x}, {tuple_text(shape) if shape else '()'})"


@_emits("Transpose")
def _transpose(p, node):
    rank = len(p.shape(node.inputs[0]))
    return f"ops.transpose({p.arg(node.inputs[0])}, {tuple_text(node.attrs.get('perm', range(rank - 1, -1, -1)))})"


def _axes(p, node, rank):
    axes = node.attrs.get("axes")
    if axes is None and len(node.inputs) > 1 and node.inputs[1]:
        axes = p.consts[node.inputs[1]].reshape(-1).tolist()
    return None if axes is None else [int(a) % rank for a in axes]


@_emits("Squeeze")
def _squeeze(p, node):
    rank = len(p.shape(node.inputs[0]))
    axes = _axes(p, node, rank)
    if axes is None:
        return f"ops.squeeze({p.arg(node.inputs[0])})"
    return f"ops.squeeze({p.arg(node.inputs[0])}, {axes[0] if len(axes) == 1 else tuple_text(axes)})"


_REDUCE = {"ReduceMean": "ops.mean", "ReduceSum": "ops.sum", "ReduceMax": "ops.amax", "ReduceMin": "ops.amin"}


@_emits(*_REDUCE)
def _reduce(p, node):
    rank = len(p.shape(node.inputs[0]))
    axes = _axes(p, node, rank)
    axes = tuple_text(axes) if axes else "None"
    return f"{_REDUCE[node.op]}({p.arg(node.inputs[0])}, {axes}, {bool(node.attrs.get('keepdims', 1))})"


@_emits("GlobalAveragePool")
def _global_average_pool(p, node):
    rank = len(p.shape(node.inputs[0]))
    return f"ops.mean({p.arg(node.inputs[0])}, {tuple_text(range(2, rank))}, True)"


@_emits("Concat")
def _concat(p, node):
    return f"ops.cat(({', '.join(p.arg(i) for i in node.inputs)},), {node.attrs['axis']})"


@_emits("Split")
def _split(p, node):
    axis = node.attrs.get("axis", 0) % len(p.shape(node.inputs[0]))
    sizes = [p.shape(o)[axis] for o in node.outputs]
    return f"ops.split({p.arg(node.inputs[0])}, {list(sizes)}, {axis})"


def _index_text(index):
    parts = []
    for item in index:
        if isinstance(item, slice):
            text = "" if item.start is None else str(item.start)
            text += ":" + ("" if item.stop is None else str(item.stop))
            text += "" if item.step in (None, 1) else f":{item.step}"
            parts.append(text)
        else:
            parts.append(str(item))
    while len(parts) > 1 and parts[-1] == ":":
        parts.pop()
    return ", ".join(parts)


@_emits("Slice")
def _slice(p, node):
    shape = p.shape(node.inputs[0])
    if not all(p.is_const(i) for i in node.inputs[1:] if i):
        _unsupported(p, node, "starts or ends computed at run time")
    values = [p.consts[i].reshape(-1).tolist() if i else None for i in node.inputs[1:5]]
    starts, ends = values[0], values[1]
    axes = values[2] if len(values) > 2 and values[2] is not None else list(range(len(starts)))
    steps = values[3] if len(values) > 3 and values[3] is not None else [1] * len(starts)
    index = [slice(None)] * len(shape)
    for a, s, e, st in zip(axes, starts, ends, steps):
        s, e, _ = slice(s, e, st).indices(shape[a])
        e = None if e < 0 else e
        index[a] = slice(None if (st > 0 and s == 0) else s, None if (st > 0 and e == shape[a]) else e, st)
    return f"{p.arg(node.inputs[0])}[{_index_text(index)}]"


@_emits("Gather")
def _gather(p, node):
    x, idx = node.inputs
    rank = len(p.shape(x))
    axis = node.attrs.get("axis", 0) % rank
    if p.is_const(idx):
        value = p.consts[idx] % p.shape(x)[axis]
        if value.ndim == 0:
            return f"{p.arg(x)}[{_index_text([slice(None)] * axis + [int(value)])}]"
        return f"ops.gather({p.arg(x)}, ms.Tensor({value.tolist()}, {dtype_text(value.dtype)}), {axis})"
    return f"ops.gather({p.arg(x)}, {p.arg(idx)}, {axis})"


@_emits("Cast")
def _cast(p, node):
    return f"ops.cast({p.arg(node.inputs[0])}, {dtype_text(p.dtype(node.outputs[0]))})"


@_emits("Clip")
def _clip(p, node):
    bounds = []
    for i, key in ((1, "min"), (2, "max")):
        name = node.inputs[i] if len(node.inputs) > i else ""
        value = p.consts[name] if name else node.attrs.get(key)
        bounds.append("None" if value is None else scalar_text(np.asarray(value).reshape(())))
    return f"ops.clamp({p.arg(node.inputs[0])}, {bounds[0]}, {bounds[1]})"


@_emits("Softmax", "LogSoftmax")
def _softmax(p, node):
    """opset < 13 normalizes over all the dims from `axis` on, as one."""
    shape = p.shape(node.inputs[0])
    axis = node.attrs.get("axis", 1) % len(shape)
    fn = "ops.softmax" if node.op == "Softmax" else "ops.log_softmax"
    flat = tuple_text((int(np.prod(shape[:axis], dtype=np.int64)), -1))
    return f"ops.reshape({fn}(ops.reshape({p.arg(node.inputs[0])}, {flat}), -1), {tuple_text(shape)})"


@_emits("LeakyRelu")
def _leaky_relu(p, node):
    return f"ops.leaky_relu({p.arg(node.inputs[0])}, {float_text(node.attrs.get('alpha', 0.01))})"


@_emits("Conv")
def _conv(p, node):
    at = node.attrs
    pads = list(at.get("pads", [0, 0, 0, 0]))
    bias = p.arg(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else "None"
    return (f"ops.conv2d({p.arg(node.inputs[0])}, {p.arg(node.inputs[1])}, {bias}, "
            f"{tuple_text(at.get('strides', [1, 1]))}, 'pad', {tuple_text([pads[0], pads[2], pads[1], pads[3]])}, "
            f"{tuple_text(at.get('dilations', [1, 1]))}, {at.get('group', 1)})")


@_emits("BatchNormalization")
def _batch_norm(p, node):
    x, scale, bias, mean, var = (p.arg(i) for i in node.inputs[:5])
    eps = float_text(node.attrs.get("epsilon", 1e-5))
    return f"ops.batch_norm({x}, {mean}, {var}, {scale}, {bias}, False, eps={eps})"


@_emits("LayerNormalization")
def _layer_norm(p, node):
    shape = p.shape(node.inputs[0])
    axis = node.attrs.get("axis", -1) % len(shape)
    bias = p.arg(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else "None"
    return (f"ops.layer_norm({p.arg(node.inputs[0])}, {tuple_text(shape[axis:])}, {p.arg(node.inputs[1])}, {bias}, "
            f"{float_text(node.attrs.get('epsilon', 1e-5))})")


@_emits("Gemm")
def _gemm(p, node):
    at = node.attrs
    a, b = p.arg(node.inputs[0]), p.arg(node.inputs[1])
    a = f"ops.transpose({a}, (1, 0))" if at.get("transA", 0) else a
    b = f"ops.transpose({b}, (1, 0))" if at.get("transB", 0) else b
    text = f"ops.matmul({a}, {b})"
    if at.get("alpha", 1.0) != 1.0:
        text += f" * {float_text(at['alpha'])}"
    if len(node.inputs) > 2 and node.inputs[2]:
        text += f" + {p.arg(node.inputs[2])}" + (f" * {float_text(at['beta'])}" if at.get("beta", 1.0) != 1.0 else "")
    return text


@_emits("Gelu")
def _gelu(p, node):
    return f"ops.gelu({p.arg(node.inputs[0])}, approximate={attr_str(node.attrs, 'approximate', 'none')!r})"


def _unsupported(p, node, why):
    raise p.graph.error(node, f"the converter cannot write {node.op} with {why} as MindSpore code.")


def emit(p, node):
    """One line of `construct` for `node` (an error naming the node when its operator has no MindSpore form)."""
    fn = EMIT.get(node.op)
    if fn is None:
        _unsupported(p, node, "a value computed at run time")
    expr = fn(p, node)
    if expr is not None:
        p.assign(node.outputs if len(node.outputs) > 1 else node.outputs[:1], expr)
