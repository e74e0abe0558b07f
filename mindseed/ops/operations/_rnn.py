"""The recurrent primitive classes, written in differentiable ops so their gradients come from autodiff: LSTM
(`ops.LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout, proj_size)(x, h, c, w)`, the CPU/GPU
form) and the Ascend forms BasicLSTMCell, DynamicRNN and DynamicGRUV2.

LSTM's flat weight `w` is laid out as MindSpore's CPU kernel reads it: every layer's and direction's input weights
(4 hidden, layer input), then every recurrent weight (4 hidden, real hidden), then every projection (proj_size,
hidden), then every bias (4 hidden, the sum of b_ih and b_hh); gates in the order input, forget, cell, output.
"""
from mindseed import _checkparam as validator
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.operations._base import Primitive

__all__ = ["LSTM", "BasicLSTMCell", "DynamicRNN", "DynamicGRUV2"]


def set_stacked_rnn_attrs(prim, input_size, hidden_size, num_layers, has_bias, bidirectional, dropout):
    """Check and set the attributes of a stacked-RNN primitive (LSTM, CudnnGRU), with MindSpore's errors."""
    name = prim.name
    prim.input_size = validator.check_positive_int(input_size, "input_size", name)
    prim.hidden_size = validator.check_positive_int(hidden_size, "hidden_size", name)
    prim.num_layers = validator.check_positive_int(num_layers, "num_layers", name)
    prim.has_bias = validator.check_value_type("has_bias", has_bias, (bool,), name)
    prim.bidirectional = validator.check_value_type("bidirectional", bidirectional, (bool,), name)
    validator.check_value_type("dropout", dropout, [float], name)
    prim.dropout = validator.check_float_range(dropout, 0, 1, validator.INC_BOTH, "dropout", name)
    prim.num_directions = 2 if bidirectional else 1
    for k in ("input_size", "hidden_size", "num_layers", "has_bias", "bidirectional", "dropout", "num_directions"):
        prim.attrs[k] = getattr(prim, k)


class LSTM(Primitive):
    """Multi-layer (bidirectional) LSTM over a whole sequence: `(x, h, c, w)` -> (output, h_n, c_n, reserve, state).

    x is (seq_len, batch, input_size); h is (num_directions * num_layers, batch, real_hidden) and c is
    (num_directions * num_layers, batch, hidden_size), real_hidden being proj_size when it is positive, else
    hidden_size. output is (seq_len, batch, num_directions * real_hidden). reserve (r, 1) holds the gate
    activations of every step and state (1, 1) the dropout generator's state (zero: no draw is kept).

    >>> import numpy as np, mindseed as ms
    >>> op = ms.ops.LSTM(2, 2, 1, False, False, 0.0)
    >>> out = op(ms.Tensor(np.ones((3, 1, 2), np.float32)), ms.Tensor(np.zeros((1, 1, 2), np.float32)),
    ...          ms.Tensor(np.zeros((1, 1, 2), np.float32)), ms.Tensor(np.zeros((32, 1, 1), np.float32)))
    >>> [tuple(t.shape) for t in out[:3]]
    [(3, 1, 2), (1, 1, 2), (1, 1, 2)]
    """

    def __init__(self, input_size, hidden_size, num_layers, has_bias, bidirectional, dropout, proj_size=0):
        super().__init__("LSTM")
        set_stacked_rnn_attrs(self, input_size, hidden_size, num_layers, has_bias, bidirectional, dropout)
        self.proj_size = validator.check_int_range(proj_size, 0, hidden_size, validator.INC_LEFT, "proj_size",
                                                   self.name)
        self.attrs["proj_size"] = proj_size
        self.init_prim_io_names(inputs=["x", "h", "c", "w"], outputs=["y", "h", "c", "reserve", "state"])

    def _weight_size(self):
        hid, real, d = self.hidden_size, self.proj_size or self.hidden_size, self.num_directions
        size = 0
        for layer in range(self.num_layers):
            inp = self.input_size if layer == 0 else real * d
            size += d * (4 * hid * (inp + real) + (self.proj_size * hid) + (4 * hid if self.has_bias else 0))
        return size

    def _split(self, w):
        """The flat weight as {(layer, direction): (w_ih, w_hh, w_proj or None, bias or None)}."""
        hid, real, d, layers = self.hidden_size, self.proj_size or self.hidden_size, self.num_directions, \
            self.num_layers
        flat, pos = w.reshape(-1), 0
        keys = [(layer, k) for layer in range(layers) for k in range(d)]

        def take(n, shape):
            nonlocal pos
            part = flat[pos:pos + n].reshape(shape)
            pos += n
            return part

        w_ih = {key: take(4 * hid * (self.input_size if key[0] == 0 else real * d),
                          (4 * hid, self.input_size if key[0] == 0 else real * d)) for key in keys}
        w_hh = {key: take(4 * hid * real, (4 * hid, real)) for key in keys}
        w_proj = {key: take(self.proj_size * hid, (self.proj_size, hid)) if self.proj_size else None for key in keys}
        bias = {key: take(4 * hid, (4 * hid,)) if self.has_bias else None for key in keys}
        return {key: (w_ih[key], w_hh[key], w_proj[key], bias[key]) for key in keys}

    def _check(self, x, h, c, w):
        name = self.name
        for arg, t, rank in (("x", x, 3), ("h", h, 3), ("c", c, 3), ("w", w, None)):
            if not isinstance(t, Tensor):
                raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got {type(t).__name__}.")
            if rank is not None and t.ndim != rank:
                raise ValueError(f"For '{name}', the rank of '{arg}' must be {rank}, but got {t.ndim}.")
        real, rows = self.proj_size or self.hidden_size, self.num_layers * self.num_directions
        if x.shape[2] != self.input_size:
            raise ValueError(f"For '{name}', x.shape[2] must be equal to input_size {self.input_size}, but got "
                             f"{x.shape[2]}.")
        for arg, t, last in (("h", h, real), ("c", c, self.hidden_size)):
            if tuple(t.shape) != (rows, x.shape[1], last):
                raise ValueError(f"For '{name}', the shape of '{arg}' must be {(rows, x.shape[1], last)}, but got "
                                 f"{tuple(t.shape)}.")
        # MindSpore's kernel reads the first elements it needs and ignores the rest (a w sized for two biases per
        # gate, as PyTorch lays them out, runs)
        if w.size < self._weight_size():
            raise ValueError(f"For '{name}', the weight 'w' must hold at least {self._weight_size()} elements, but "
                             f"got {w.size}.")

    def __call__(self, x, h, c, w):
        self._check(x, h, c, w)
        params, hid, d = self._split(w), self.hidden_size, self.num_directions
        h_n, c_n, gates, layer_in = [], [], [], x
        for layer in range(self.num_layers):
            outs = []
            for k in range(d):
                w_ih, w_hh, w_proj, bias = params[(layer, k)]
                ht, ct = h[layer * d + k], c[layer * d + k]
                steps = range(x.shape[0]) if k == 0 else range(x.shape[0] - 1, -1, -1)
                seq = [None] * x.shape[0]
                projected = F.matmul(layer_in, F.transpose(w_ih, (1, 0)))   # the input part of every step at once
                for t in steps:
                    g = projected[t] + F.matmul(ht, F.transpose(w_hh, (1, 0)))
                    if bias is not None:
                        g = g + bias
                    i, f, cand, o = F.split(g, hid, -1)
                    i, f, cand, o = F.sigmoid(i), F.sigmoid(f), F.tanh(cand), F.sigmoid(o)
                    ct = f * ct + i * cand
                    ht = o * F.tanh(ct)
                    if w_proj is not None:
                        ht = F.matmul(ht, F.transpose(w_proj, (1, 0)))
                    seq[t] = ht
                    gates.append(F.concat((i, f, cand, o), -1).reshape(-1))
                outs.append(F.stack(seq))
                h_n.append(ht)
                c_n.append(ct)
            layer_in = outs[0] if d == 1 else F.concat(outs, -1)
            if self.dropout > 0 and layer + 1 < self.num_layers:
                layer_in = F.dropout(layer_in, p=self.dropout)
        reserve = F.stop_gradient(F.concat(gates).reshape(-1, 1))
        return layer_in, F.stack(h_n), F.stack(c_n), reserve, F.zeros((1, 1), x.dtype)


def _check_tensors(name, **tensors):
    for arg, (t, rank) in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got {type(t).__name__}.")
        if t.ndim != rank:
            raise ValueError(f"For '{name}', the rank of '{arg}' must be {rank}, but got {t.ndim}.")


def _check_float_dtypes(name, **tensors):
    for arg, t in tensors.items():
        if t.dtype not in (mstype.float16, mstype.float32, mstype.float64):
            raise TypeError(f"For '{name}', the '{arg}' must be float16, float32 or float64, but got {t.dtype}.")


def _ijfo_step(x, h, c, w, b, forget_bias, cell_clip):
    """One LSTM step of MindSpore's Ascend cells: gates (i, j, f, o) = [x, h] @ w + b, forget_bias added to f, the
    cell clipped to cell_clip when positive. Returns (c, h, i, j, f, o, tanh(c))."""
    gates = F.matmul(F.concat((x, h), -1), w) + b
    i, j, f, o = F.split(gates, gates.shape[-1] // 4, -1)
    i, j, f, o = F.sigmoid(i), F.tanh(j), F.sigmoid(f + forget_bias), F.sigmoid(o)
    c = f * c + i * j
    if cell_clip > 0:
        c = F.clamp(c, -cell_clip, cell_clip)
    tanhct = F.tanh(c)
    return c, o * tanhct, i, j, f, o, tanhct


def _keep(mask_t, new, old):
    return new if mask_t is None else F.select(mask_t, new, old)


def _check_no_projection(name, num_proj):
    if num_proj:
        raise ValueError(f"For '{name}', 'num_proj' {num_proj} needs a projection weight, which the inputs do not "
                         f"carry: use num_proj=0.")


def _step_masks(seq_length, steps, batch, hidden):
    """Per step, where the sequence is still running (seq_length given), broadcast to (batch, hidden); else None."""
    if seq_length is None:
        return [None] * steps
    if not isinstance(seq_length, Tensor) or seq_length.shape != (batch,):
        raise ValueError(f"'seq_length' must be None or a Tensor of shape ({batch},), but got {seq_length}.")
    lengths = F.broadcast_to(seq_length.reshape((batch, 1)), (batch, hidden))
    return [lengths > t for t in range(steps)]


class BasicLSTMCell(Primitive):
    """One LSTM step, gates (i, j, f, o) from `[x, h] @ w + b`: `(x, h, c, w, b)` -> (ct, ht, it, jt, ft, ot,
    tanhct); `keep_prob` < 1 drops elements of the input (inverted dropout)."""

    def __init__(self, keep_prob=1.0, forget_bias=1.0, state_is_tuple=True, activation="tanh"):
        super().__init__("BasicLSTMCell")
        name = self.name
        validator.check_value_type("keep_prob", keep_prob, [float], name)
        self.keep_prob = validator.check_float_range(keep_prob, 0.0, 1.0, validator.INC_BOTH, "keep_prob", name)
        self.forget_bias = validator.check_value_type("forget_bias", forget_bias, [float], name)
        self.state_is_tuple = validator.check_value_type("state_is_tuple", state_is_tuple, [bool], name)
        self.activation = validator.check_string(activation, ["tanh"], "activation", name)
        self.attrs.update(keep_prob=keep_prob, forget_bias=forget_bias, state_is_tuple=state_is_tuple,
                          activation=activation)

    def __call__(self, x, h, c, w, b):
        name = self.name
        _check_tensors(name, x=(x, 2), h=(h, 2), c=(c, 2), w=(w, 2), b=(b, 1))
        _check_float_dtypes(name, x=x, h=h, c=c, w=w, b=b)
        hid = h.shape[1]
        if x.shape[0] != h.shape[0] or c.shape != h.shape or w.shape != (x.shape[1] + hid, 4 * hid) \
                or b.shape != (4 * hid,):
            raise ValueError(f"For '{name}', need x (N, I), h and c (N, H), w (I + H, 4H), b (4H,), but got "
                             f"{x.shape}, {h.shape}, {c.shape}, {w.shape}, {b.shape}.")
        if self.keep_prob < 1.0:
            x = F.dropout(x, p=1.0 - self.keep_prob)
        return _ijfo_step(x, h, c, w, b, self.forget_bias, -1.0)


class DynamicRNN(Primitive):
    """An LSTM over a whole time-major sequence with MindSpore's Ascend gate layout: `(x, w, b, seq_length, init_h,
    init_c)` -> (y, output_h, output_c, i, j, f, o, tanhct), each (num_step, batch, hidden). w is
    (input + hidden, 4 hidden), gates (i, j, f, o); steps past `seq_length` (when given) keep their state."""

    def __init__(self, cell_type="LSTM", direction="UNIDIRECTIONAL", cell_depth=1, use_peephole=False,
                 keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True, activation="tanh", forget_bias=0.0,
                 is_training=True):
        super().__init__("DynamicRNN")
        name = self.name
        self.forget_bias = validator.check_value_type("forget_bias", forget_bias, [float], name)
        self.cell_depth = validator.check_value_type("cell_depth", cell_depth, [int], name)
        self.keep_prob = validator.check_value_type("keep_prob", keep_prob, [float], name)
        validator.check_float_range(keep_prob, 0.0, 1.0, validator.INC_BOTH, "keep_prob", name)
        self.cell_clip = validator.check_value_type("cell_clip", cell_clip, [float], name)
        self.num_proj = validator.check_non_negative_int(num_proj, "num_proj", name)
        self.use_peephole = validator.check_value_type("use_peephole", use_peephole, [bool], name)
        self.time_major = validator.check_value_type("time_major", time_major, [bool], name)
        if not time_major:
            raise ValueError(f"For '{name}', 'time_major' must be True (the supported value), but got False.")
        self.is_training = validator.check_value_type("is_training", is_training, [bool], name)
        validator.check_value_type("cell_type", cell_type, [str], name)
        self.cell_type = validator.check_string(cell_type, ["LSTM"], "cell_type", name)
        validator.check_value_type("direction", direction, [str], name)
        self.direction = validator.check_string(direction, ["UNIDIRECTIONAL"], "direction", name)
        validator.check_value_type("activation", activation, [str], name)
        self.activation = validator.check_string(activation, ["tanh"], "activation", name)
        for k in ("cell_type", "direction", "cell_depth", "use_peephole", "keep_prob", "cell_clip", "num_proj",
                  "time_major", "activation", "forget_bias", "is_training"):
            self.attrs[k] = getattr(self, k)

    def __call__(self, x, w, b, seq_length, init_h, init_c):
        name = self.name
        _check_tensors(name, x=(x, 3), w=(w, 2), b=(b, 1), init_h=(init_h, 3), init_c=(init_c, 3))
        _check_float_dtypes(name, x=x, w=w, b=b, init_h=init_h, init_c=init_c)
        steps, batch, hid = x.shape[0], x.shape[1], init_h.shape[2]
        if w.shape != (x.shape[2] + hid, 4 * hid) or b.shape != (4 * hid,) or init_h.shape != (1, batch, hid) \
                or init_c.shape != init_h.shape:
            raise ValueError(f"For '{name}', need w (input + hidden, 4 hidden), b (4 hidden,), init_h and init_c "
                             f"(1, batch, hidden), but got {w.shape}, {b.shape}, {init_h.shape}, {init_c.shape}.")
        _check_no_projection(name, self.num_proj)
        masks = _step_masks(seq_length, steps, batch, hid)
        h, c, rows = init_h[0], init_c[0], []
        for t in range(steps):
            ct, ht, *gates = _ijfo_step(x[t], h, c, w, b, self.forget_bias, self.cell_clip)
            c, h = _keep(masks[t], ct, c), _keep(masks[t], ht, h)
            rows.append((h, h, c, *gates))
        return tuple(F.stack(list(col)) for col in zip(*rows))


class DynamicGRUV2(Primitive):
    """A GRU over a whole time-major sequence: `(x, weight_input, weight_hidden, bias_input, bias_hidden,
    seq_length, init_h)` -> (y, output_h, update, reset, new, hidden_new), each (num_step, batch, hidden). Gates
    in `gate_order` ('rzh' or 'zrh'); `n = tanh(x W_in + b_in + r (h W_hn + b_hn))` (reset_after) or
    `tanh(x W_in + b_in + (r h) W_hn + b_hn)`; `h' = (1 - z) n + z h`; hidden_new is h W_hn + b_hn."""

    def __init__(self, direction="UNIDIRECTIONAL", cell_depth=1, keep_prob=1.0, cell_clip=-1.0, num_proj=0,
                 time_major=True, activation="tanh", gate_order="rzh", reset_after=True, is_training=True):
        super().__init__("DynamicGRUV2")
        name = self.name
        self.cell_depth = validator.check_value_type("cell_depth", cell_depth, [int], name)
        self.keep_prob = validator.check_value_type("keep_prob", keep_prob, [float], name)
        self.cell_clip = validator.check_value_type("cell_clip", cell_clip, [float], name)
        self.num_proj = validator.check_non_negative_int(num_proj, "num_proj", name)
        self.time_major = validator.check_value_type("time_major", time_major, [bool], name)
        self.is_training = validator.check_value_type("is_training", is_training, [bool], name)
        self.direction = validator.check_string(direction, ["UNIDIRECTIONAL"], "direction", name)
        self.activation = validator.check_string(activation, ["tanh"], "activation", name)
        self.gate_order = validator.check_string(gate_order, ["zrh", "rzh"], "gate_order", name)
        self.reset_after = validator.check_value_type("reset_after", reset_after, [bool], name)
        for k in ("direction", "cell_depth", "keep_prob", "cell_clip", "num_proj", "time_major", "activation",
                  "gate_order", "reset_after", "is_training"):
            self.attrs[k] = getattr(self, k)
        self.init_prim_io_names(inputs=["x", "weight_input", "weight_hidden", "bias_input", "bias_hidden",
                                        "seq_length", "init_h"],
                                outputs=["y", "output_h", "update", "reset", "new", "hidden_new"])

    def _gates(self, t):
        first, second, cand = F.split(t, t.shape[-1] // 3, -1)
        return (first, second, cand) if self.gate_order == "rzh" else (second, first, cand)   # -> (r, z, n)

    def __call__(self, x, weight_input, weight_hidden, bias_input, bias_hidden, seq_length, init_h):
        name = self.name
        _check_tensors(name, x=(x, 3), weight_input=(weight_input, 2), weight_hidden=(weight_hidden, 2),
                       init_h=(init_h, 2))
        steps, batch, hid = x.shape[0], x.shape[1], init_h.shape[1]
        if weight_input.shape != (x.shape[2], 3 * hid) or weight_hidden.shape != (hid, 3 * hid) \
                or init_h.shape[0] != batch:
            raise ValueError(f"For '{name}', need weight_input (input, 3 hidden), weight_hidden (hidden, 3 hidden) "
                             f"and init_h (batch, hidden), but got {weight_input.shape}, {weight_hidden.shape}, "
                             f"{init_h.shape}.")
        for arg, bias in (("bias_input", bias_input), ("bias_hidden", bias_hidden)):
            if bias is not None and (not isinstance(bias, Tensor) or bias.shape != (3 * hid,)):
                raise ValueError(f"For '{name}', '{arg}' must be None or a Tensor of shape ({3 * hid},), but got "
                                 f"{getattr(bias, 'shape', bias)}.")
        _check_no_projection(name, self.num_proj)
        masks = _step_masks(seq_length, steps, batch, hid)
        h, rows = init_h, []
        w_r, w_z, w_n = self._gates(weight_hidden)
        b_r, b_z, b_n = self._gates(bias_hidden) if bias_hidden is not None else (0.0, 0.0, 0.0)
        for t in range(steps):
            xi = F.matmul(x[t], weight_input)
            if bias_input is not None:
                xi = xi + bias_input
            x_r, x_z, x_n = self._gates(xi)
            r = F.sigmoid(x_r + F.matmul(h, w_r) + b_r)
            z = F.sigmoid(x_z + F.matmul(h, w_z) + b_z)
            hidden_new = F.matmul(h, w_n) + b_n
            n = F.tanh(x_n + r * hidden_new) if self.reset_after else F.tanh(x_n + F.matmul(r * h, w_n) + b_n)
            h_next = (1 - z) * n + z * h
            if self.cell_clip > 0:
                h_next = F.clamp(h_next, -self.cell_clip, self.cell_clip)
            h = _keep(masks[t], h_next, h)
            rows.append((h, h, z, r, n, hidden_new))
        return tuple(F.stack(list(col)) for col in zip(*rows))
