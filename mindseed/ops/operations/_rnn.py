"""The LSTM primitive class (`ops.LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout,
proj_size)(x, h, c, w)`), written in differentiable ops so its gradient comes from autodiff.

The flat weight `w` is laid out as MindSpore's CPU kernel reads it: every layer's and direction's input weights
(4 hidden, layer input), then every recurrent weight (4 hidden, real hidden), then every projection (proj_size,
hidden), then every bias (4 hidden, the sum of b_ih and b_hh); gates in the order input, forget, cell, output.
"""
from mindseed import _checkparam as validator
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.operations._base import Primitive

__all__ = ["LSTM"]


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
        name = self.name
        self.input_size = validator.check_positive_int(input_size, "input_size", name)
        self.hidden_size = validator.check_positive_int(hidden_size, "hidden_size", name)
        self.proj_size = validator.check_int_range(proj_size, 0, hidden_size, validator.INC_LEFT, "proj_size", name)
        self.num_layers = validator.check_positive_int(num_layers, "num_layers", name)
        self.has_bias = validator.check_value_type("has_bias", has_bias, (bool,), name)
        self.bidirectional = validator.check_value_type("bidirectional", bidirectional, (bool,), name)
        validator.check_value_type("dropout", dropout, [float], name)
        self.dropout = validator.check_float_range(dropout, 0, 1, validator.INC_BOTH, "dropout", name)
        self.num_directions = 2 if bidirectional else 1
        for k in ("input_size", "hidden_size", "num_layers", "has_bias", "bidirectional", "dropout", "proj_size",
                  "num_directions"):
            self.attrs[k] = getattr(self, k)
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
        if w.size != self._weight_size():
            raise ValueError(f"For '{name}', the weight 'w' must hold {self._weight_size()} elements, but got "
                             f"{w.size}.")

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
