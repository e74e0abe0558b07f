"""Known layers in an ONNX graph, written as MindSpore layers: `__init__` creates the layer, its weights go to the
checkpoint under MindSpore's parameter names, and `construct` calls it.

Each pattern `fn(p, k)` looks at run-time node `k` of the `Program` `p` (and, for a layer made of several nodes,
the nodes that only it reads) and returns True when it wrote the layer; else the node is written as `ops.*`.
"""
import numpy as np

from mindseed.converter._program import dtype_text, float_text, tuple_text
from mindseed.export._onnx_load import attr_str, lstm_unsupported

PATTERNS = {}


def _pattern(*ops):
    def register(fn):
        for op in ops:
            PATTERNS.setdefault(op, []).append(fn)
        return fn
    return register


def _consts(p, node, first, last=None):
    """The constant inputs `first..last` of `node` (None for an absent one), or None if one is computed at run
    time."""
    names = node.inputs[first:last]
    if any(n and not p.is_const(n) for n in names):
        return None
    return [p.consts[n] if n else None for n in names]


def _float_weight(value, ndim):
    return value is not None and value.dtype.kind == "f" and value.ndim == ndim


def _pads(at, rank=2):
    """ONNX pads (begins then ends) as MindSpore's padding: an int when all equal, else (top, bottom, left, right)."""
    pads = list(at.get("pads", [0] * (2 * rank)))
    if len(set(pads)) == 1:
        return pads[0]
    return tuple(v for pair in zip(pads[:rank], pads[rank:]) for v in pair)


def _kernel_args(at, defaults, names):
    """', stride=2, dilation=2' for the attributes of a node that differ from their defaults (tuples collapsed)."""
    text = ""
    for key, default, name in zip(defaults, (1, 1), names):
        value = list(at.get(key, [default]))
        if set(value) != {default}:
            text += f", {name}={value[0] if len(set(value)) == 1 else tuple_text(value)}"
    return text


@_pattern("Conv")
def _conv(p, k):
    node = p.node(k)
    consts = _consts(p, node, 1)
    if consts is None or not _float_weight(consts[0], 4) or attr_str(node.attrs, "auto_pad", "NOTSET") != "NOTSET":
        return False
    w, b = consts[0], consts[1] if len(consts) > 1 else None
    group = node.attrs.get("group", 1)
    pad = _pads(node.attrs)
    ctor = (f"nn.Conv2d({w.shape[1] * group}, {w.shape[0]}, kernel_size={_square(w.shape[2:])}"
            f"{_kernel_args(node.attrs, ('strides', 'dilations'), ('stride', 'dilation'))}, "
            f"pad_mode={'pad' if pad else 'valid'!r}{f', padding={pad}' if pad else ''}"
            f"{f', group={group}' if group != 1 else ''}, has_bias={b is not None})")
    params = {"weight": w} if b is None else {"weight": w, "bias": b}
    layer = p.add_layer(p.layer_name(node, "conv2d", node.inputs[1]), ctor, params)
    p.assign(node.outputs, f"{layer}({p.arg(node.inputs[0])})")
    return True


def _square(values):
    values = [int(v) for v in values]
    return values[0] if len(set(values)) == 1 else tuple_text(values)


@_pattern("BatchNormalization")
def _batch_norm(p, k):
    node = p.node(k)
    consts = _consts(p, node, 1, 5)
    rank = len(p.shape(node.inputs[0]))
    if consts is None or rank not in (2, 3, 4) or any(n for n in node.outputs[1:]):
        return False
    scale, bias, mean, var = consts
    eps = node.attrs.get("epsilon", 1e-5)
    momentum = node.attrs.get("momentum", 0.9)
    ctor = (f"nn.BatchNorm{2 if rank == 4 else 1}d({scale.shape[0]}, eps={float_text(eps)}, "
            f"momentum={float_text(momentum)})")
    layer = p.add_layer(p.layer_name(node, "batchnorm", node.inputs[1]), ctor,
                        {"gamma": scale, "beta": bias, "moving_mean": mean, "moving_variance": var})
    p.assign(node.outputs, f"{layer}({p.arg(node.inputs[0])})")
    return True


def _dense(p, node, x, weight, bias, outputs, weight_name):
    """nn.Dense: `weight` is (out, in) as MindSpore keeps it."""
    ctor = f"nn.Dense({weight.shape[1]}, {weight.shape[0]}, has_bias={bias is not None})"
    params = {"weight": weight} if bias is None else {"weight": weight, "bias": bias}
    layer = p.add_layer(p.layer_name(node, "dense", weight_name), ctor, params)
    p.assign(outputs, f"{layer}({p.arg(x)})")
    return True


def _as_bias(value, size):
    """A constant added after a matrix product as a Dense bias of `size`, or None."""
    if value is None or value.dtype.kind != "f" or value.size not in (1, size) or \
            (value.ndim and value.shape[-1] != value.size):
        return None
    return np.broadcast_to(value.reshape(-1), (size,)).copy()


@_pattern("Gemm")
def _gemm(p, k):
    node = p.node(k)
    consts = _consts(p, node, 1)
    at = node.attrs
    if consts is None or at.get("transA", 0) or not _float_weight(consts[0], 2) or p.is_const(node.inputs[0]):
        return False
    w = consts[0] if at.get("transB", 0) else consts[0].T
    w = w * np.asarray(at.get("alpha", 1.0), w.dtype) if at.get("alpha", 1.0) != 1.0 else w
    bias = None
    if len(consts) > 1 and consts[1] is not None:
        bias = _as_bias(consts[1], w.shape[0])
        if bias is None:
            return False
        bias = bias * np.asarray(at.get("beta", 1.0), bias.dtype) if at.get("beta", 1.0) != 1.0 else bias
    return _dense(p, node, node.inputs[0], np.ascontiguousarray(w), bias, node.outputs, node.inputs[1])


@_pattern("MatMul")
def _matmul(p, k):
    """MatMul by a constant 2-d weight, and the Add of a constant bias that only reads it: nn.Dense."""
    node = p.node(k)
    x, w_name = node.inputs
    if p.is_const(x) or not p.is_const(w_name) or not _float_weight(p.consts[w_name], 2) or len(p.shape(x)) < 2:
        return False
    w = np.ascontiguousarray(p.consts[w_name].T)
    bias, outputs = None, node.outputs
    add = p.only_consumer(node.outputs[0])
    if add is not None and p.node(add).op == "Add":
        other = [i for i in p.node(add).inputs if i != node.outputs[0]]
        if len(other) == 1 and p.is_const(other[0]):
            bias = _as_bias(p.consts[other[0]], w.shape[0])
            if bias is not None and p.shape(p.node(add).outputs[0]) == p.shape(node.outputs[0]):
                p.done.add(add)
                outputs = p.node(add).outputs
            else:
                bias = None
    return _dense(p, node, x, w, bias, outputs, w_name)


@_pattern("Gather")
def _embedding(p, k):
    node = p.node(k)
    table, idx = node.inputs
    if node.attrs.get("axis", 0) != 0 or not p.is_const(table) or not _float_weight(p.consts[table], 2) or \
            p.is_const(idx) or np.dtype(p.dtype(idx)).kind not in "iu":
        return False
    value = p.consts[table]
    layer = p.add_layer(p.layer_name(node, "embedding", table), f"nn.Embedding({value.shape[0]}, {value.shape[1]})",
                        {"embedding_table": value})
    p.assign(node.outputs, f"{layer}({p.arg(idx)})")
    return True


@_pattern("LayerNormalization")
def _layer_norm(p, k):
    node = p.node(k)
    consts = _consts(p, node, 1)
    if consts is None or any(n for n in node.outputs[1:]):
        return False
    rank = len(p.shape(node.inputs[0]))
    axis = node.attrs.get("axis", -1) % rank
    scale = consts[0]
    bias = consts[1] if len(consts) > 1 and consts[1] is not None else np.zeros_like(scale)
    return layer_norm_layer(p, node, node.inputs[0], node.outputs, axis, scale, bias,
                             node.attrs.get("epsilon", 1e-5), node.inputs[1])


def layer_norm_layer(p, node, x, outputs, axis, scale, bias, eps, weight_name):
    shape = tuple(p.shape(x)[axis:])
    rank = len(p.shape(x))
    begin = axis - rank
    ctor = (f"nn.LayerNorm({tuple_text(shape)}, begin_norm_axis={begin}, begin_params_axis={begin}, "
            f"epsilon={float_text(eps)})")
    layer = p.add_layer(p.layer_name(node, "layernorm", weight_name), ctor,
                        {"gamma": np.broadcast_to(scale, shape).copy(), "beta": np.broadcast_to(bias, shape).copy()})
    p.assign(outputs, f"{layer}({p.arg(x)})")
    return True


_LSTM_GATES = (0, 2, 3, 1)     # ONNX's gate blocks (input, output, forget, cell) in MindSpore's order (i, f, g, o)


def _gates(w, hidden):
    return np.concatenate([w[..., g * hidden:(g + 1) * hidden, :] if w.ndim > 1 else w[g * hidden:(g + 1) * hidden]
                           for g in _LSTM_GATES], axis=-2 if w.ndim > 1 else 0)


@_pattern("LSTM")
def _lstm(p, k):
    node = p.node(k)
    consts = _consts(p, node, 1, 4)
    args = [p.consts.get(n, n) if n else None for n in node.inputs]
    if consts is None or lstm_unsupported(args, node.attrs):
        return False
    w, r, b = consts
    hidden, dirs = node.attrs["hidden_size"], w.shape[0]
    seq, batch = p.shape(node.inputs[0])[:2]
    params = {}
    for d in range(dirs):
        tail = "_l0" + ("_reverse" if d else "")
        params["weight_ih" + tail] = _gates(w[d], hidden)
        params["weight_hh" + tail] = _gates(r[d], hidden)
        if b is not None:
            params["bias_ih" + tail] = _gates(b[d][:4 * hidden], hidden)
            params["bias_hh" + tail] = _gates(b[d][4 * hidden:], hidden)
    ctor = (f"nn.LSTM({w.shape[2]}, {hidden}, has_bias={b is not None}, batch_first=False, "
            f"bidirectional={dirs == 2})")
    layer = p.add_layer(p.layer_name(node, "lstm", node.inputs[1]), ctor, params)
    states = [node.inputs[i] if len(node.inputs) > i and node.inputs[i] else None for i in (5, 6)]
    zero = [s is None or (p.is_const(s) and not p.consts[s].any()) for s in states]
    hx = "" if all(zero) else ", (" + ", ".join(
        f"ops.zeros({tuple_text((dirs, batch, hidden))}, {dtype_text(p.dtype(node.inputs[0]))})" if z else p.arg(s)
        for s, z in zip(states, zero)) + ")"
    y = node.outputs[0]
    call = f"{layer}({p.arg(node.inputs[0])}{hx})"
    h, c = (p.target(o) for o in (list(node.outputs[1:]) + ["", ""])[:2])
    squeeze = p.only_consumer(y) if y else None
    if dirs == 1 and squeeze is not None and p.node(squeeze).op == "Squeeze" and \
            p.shape(p.node(squeeze).outputs[0]) == (seq, batch, hidden):
        p.done.add(squeeze)           # ONNX's Y (seq, 1, batch, hidden) squeezed back: the layer's own output
        p.lines.append(f"{p.target(p.node(squeeze).outputs[0])}, ({h}, {c}) = {call}")
    elif y:                           # the layer's output (seq, batch, dirs * hidden) as ONNX's Y
        out = p.name_var(y + "_seq")
        p.lines.append(f"{out}, ({h}, {c}) = {call}")
        p.assign([y], f"ops.transpose(ops.reshape({out}, {tuple_text((seq, batch, dirs, hidden))}), (0, 2, 1, 3))")
    else:
        p.lines.append(f"_, ({h}, {c}) = {call}")
    return True


def _pool(kind):
    def write(p, k):
        node = p.node(k)
        at = node.attrs
        if len(at["kernel_shape"]) != 2 or attr_str(at, "auto_pad", "NOTSET") != "NOTSET":
            return False
        pads = list(at.get("pads", [0, 0, 0, 0]))
        if pads[:2] != pads[2:]:
            return False
        pad = _pads(at)
        extra = ", ceil_mode=True" if at.get("ceil_mode", 0) else ""
        if kind == "Avg" and pad:
            extra += f", count_include_pad={bool(at.get('count_include_pad', 0))}"
        if kind == "Max":
            extra += _kernel_args(at, ("dilations",), ("dilation",))
        args = f"kernel_size={_square(at['kernel_shape'])}, stride={_square(at.get('strides', [1, 1]))}"
        if pad or extra:      # MindSpore takes padding, ceil_mode, dilation only with pad_mode='pad'
            args += f", pad_mode='pad', padding={pad}{extra}"
        layer = p.add_layer(p.layer_name(node, kind.lower() + "pool2d"), f"nn.{kind}Pool2d({args})", {})
        p.assign(node.outputs[:1], f"{layer}({p.arg(node.inputs[0])})")
        return True
    return write


_pattern("MaxPool")(_pool("Max"))
_pattern("AveragePool")(_pool("Avg"))


def _activation(name, ctor):
    def write(p, k):
        node = p.node(k)
        if node.op in ("Softmax", "LogSoftmax"):
            rank = len(p.shape(node.inputs[0]))
            axis = node.attrs.get("axis", -1 if p.graph.opset >= 13 else 1) % rank
            if p.graph.opset < 13 and axis != rank - 1:
                return False
            text = ctor.format(axis=-1 if axis == rank - 1 else axis)
        elif node.op == "Flatten":
            if node.attrs.get("axis", 1) != 1:
                return False
            text = ctor
        else:
            text = ctor.format(**node.attrs)
        layer = p.add_layer(p.layer_name(node, name), text, {})
        p.assign(node.outputs[:1], f"{layer}({p.arg(node.inputs[0])})")
        return True
    return write


for _op, _name, _ctor in (("Relu", "relu", "nn.ReLU()"), ("Sigmoid", "sigmoid", "nn.Sigmoid()"),
                          ("Tanh", "tanh", "nn.Tanh()"), ("Softmax", "softmax", "nn.Softmax(axis={axis})"),
                          ("LogSoftmax", "log_softmax", "nn.LogSoftmax(axis={axis})"),
                          ("Flatten", "flatten", "nn.Flatten()")):
    _pattern(_op)(_activation(_name, _ctor))


@_pattern("LeakyRelu")
def _leaky_relu(p, k):
    node = p.node(k)
    layer = p.add_layer(p.layer_name(node, "leaky_relu"), f"nn.LeakyReLU({float_text(node.attrs.get('alpha', 0.01))})",
                        {})
    p.assign(node.outputs, f"{layer}({p.arg(node.inputs[0])})")
    return True


def gelu_layer(p, node, x, outputs, approximate):
    layer = p.add_layer(p.layer_name(node, "gelu"), f"nn.GELU(approximate={approximate})", {})
    p.assign(outputs, f"{layer}({p.arg(x)})")
    return True


@_pattern("Gelu")
def _gelu(p, k):
    node = p.node(k)
    return gelu_layer(p, node, node.inputs[0], node.outputs, attr_str(node.attrs, "approximate", "none") == "tanh")
