"""Recurrent layers: RNNCell/LSTMCell/GRUCell and multi-layer, optionally bidirectional RNN/LSTM/GRU.

Gate order and weight names follow MindSpore (and PyTorch): LSTM (input, forget, cell, output), GRU (reset,
update, new); parameters `weight_ih_l{k}[_reverse]`, `weight_hh_l{k}`, `bias_ih_l{k}`, `bias_hh_l{k}`.
The input projection of a whole sequence is one matmul; only the hidden projection runs per time step.
"""
import math

import numpy as np

from mindseed._utils.errors import host_alloc
from mindseed.common import dtype as mstype
from mindseed.common.initializer import Uniform, initializer
from mindseed.common.parameter import Parameter, ParameterTuple
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.layer.basic import Dropout
from mindseed.ops import functional as F
from mindseed.ops._prims import core as P
from mindseed.ops._prims.nn import dense_p

__all__ = ["RNNCell", "LSTMCell", "GRUCell", "RNN", "LSTM", "GRU"]


def _linear(x, w, b):
    return dense_p(x, w, b)


# ---------------------------------------------------------------- one time step, given the input projection
def _tanh_step(gi, h, w_hh, b_hh):
    return F.tanh(P.add_p(gi, _linear(h, w_hh, b_hh)))


def _relu_step(gi, h, w_hh, b_hh):
    return P.relu_p(P.add_p(gi, _linear(h, w_hh, b_hh)))


def _lstm_step(gi, state, w_hh, b_hh):
    hx, cx = state
    gates = P.add_p(gi, _linear(hx, w_hh, b_hh))
    hidden = hx.shape[-1]
    i, f, g, o = P.split_sizes_p(gates, sizes=[hidden] * 4, axis=gates.ndim - 1)
    cy = P.add_p(P.mul_p(F.sigmoid(f), cx), P.mul_p(F.sigmoid(i), F.tanh(g)))
    hy = P.mul_p(F.sigmoid(o), F.tanh(cy))
    return hy, cy


def _gru_step(gi, h, w_hh, b_hh):
    gh = _linear(h, w_hh, b_hh)
    hidden = h.shape[-1]
    axis = gi.ndim - 1
    i_r, i_i, i_n = P.split_sizes_p(gi, sizes=[hidden] * 3, axis=axis)
    h_r, h_i, h_n = P.split_sizes_p(gh, sizes=[hidden] * 3, axis=axis)
    resetgate = F.sigmoid(P.add_p(i_r, h_r))
    inputgate = F.sigmoid(P.add_p(i_i, h_i))
    newgate = F.tanh(P.add_p(i_n, P.mul_p(resetgate, h_n)))
    return P.add_p(newgate, P.mul_p(inputgate, P.sub_p(h, newgate)))


_STEPS = {"RNN_TANH": _tanh_step, "RNN_RELU": _relu_step, "LSTM": _lstm_step, "GRU": _gru_step}
_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _check_tensor(cls, name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{cls}', the '{name}' must be 'Tensor', but got '{type(x).__name__}'")


def _check_float(cls, name, x):
    if x.dtype not in (mstype.float16, mstype.float32, mstype.float64):
        raise TypeError(f"For '{cls}', the '{name}' type must be float16 or float32, but got {x.dtype}.")


# ---------------------------------------------------------------- cells
class _RNNCellBase(Cell):
    """Weights (gates*hidden, input) / (gates*hidden, hidden), all U(+-1/sqrt(hidden))."""

    _MODE = "RNN_TANH"

    def __init__(self, input_size, hidden_size, has_bias, num_chunks, dtype=mstype.float32):
        super().__init__()
        cls = type(self).__name__
        if not isinstance(has_bias, bool):
            raise TypeError(f"For '{cls}', the 'has_bias' must be bool, but got {type(has_bias).__name__}.")
        for name, v in (("hidden_size", hidden_size), ("input_size", input_size)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"For '{cls}', the '{name}' must be a positive int, but got {v}.")
        self.input_size, self.hidden_size, self.has_bias = input_size, hidden_size, has_bias
        # as MindSpore's: standard-normal draws of numpy's global generator, then every parameter re-initialized
        # from U(-1/sqrt(hidden), 1/sqrt(hidden)) (so a seeded script gets MindSpore's values and numpy state)
        shapes = [(num_chunks * hidden_size, input_size), (num_chunks * hidden_size, hidden_size)]
        shapes += [(num_chunks * hidden_size,)] * 2 if has_bias else []
        values = [Tensor(host_alloc(cls, np.random.randn, *shape, nbytes=8 * math.prod(shape)), dtype=dtype)
                  for shape in shapes]
        self.weight_ih, self.weight_hh = Parameter(values[0]), Parameter(values[1])
        self.bias_ih = Parameter(values[2]) if has_bias else None
        self.bias_hh = Parameter(values[3]) if has_bias else None
        stdv = Uniform(1 / math.sqrt(hidden_size))
        for weight in self.get_parameters():
            weight.set_data(initializer(stdv, weight.shape, dtype))

    def _tensor_hx_step(self, cls, x, hx):
        """One step of a cell whose state `hx` is one float Tensor, like `x`."""
        _check_tensor(cls, "x", x)
        _check_tensor(cls, "hx", hx)
        _check_float(cls, "x", x)
        _check_float(cls, "hx", hx)
        return self._step(x, hx)

    def _step(self, x, h):
        return _STEPS[self._MODE](_linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)


class RNNCell(_RNNCellBase):
    """One Elman RNN step: h' = nonlinearity(x W_ih^T + b_ih + h W_hh^T + b_hh).

    Args:
        input_size (int), hidden_size (int), has_bias (bool): Default ``True``.
        nonlinearity (str): ``'tanh'`` or ``'relu'``. Default ``'tanh'``.
    """

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh", dtype=mstype.float32):
        super().__init__(input_size, hidden_size, has_bias, 1, dtype)
        if not isinstance(nonlinearity, str) or nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNNCell', the 'nonlinearity' must be in ['tanh', 'relu'], but got "
                             f"{nonlinearity}.")
        self.nonlinearity = nonlinearity
        self._MODE = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"

    def construct(self, x, hx):
        return self._tensor_hx_step("RNNCell", x, hx)


class LSTMCell(_RNNCellBase):
    """One LSTM step: (h', c') from x and hx = (h, c); gates (input, forget, cell, output)."""

    _MODE = "LSTM"

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=mstype.float32):
        super().__init__(input_size, hidden_size, has_bias, 4, dtype)

    def construct(self, x, hx):
        _check_tensor("LSTMCell", "x", x)
        if not isinstance(hx, tuple):
            raise TypeError(f"For 'LSTMCell', the 'hx' must be 'Tuple', but got '{type(hx).__name__}'")
        if len(hx) != 2:
            raise TypeError(f"For 'LSTMCell', the length of 'hx' must be '2', but got '{len(hx)}'")
        _check_tensor("LSTMCell", "hx[0]", hx[0])
        _check_tensor("LSTMCell", "hx[1]", hx[1])
        _check_float("LSTMCell", "x", x)
        return self._step(x, hx)


class GRUCell(_RNNCellBase):
    """One GRU step: h' = n + z * (h - n); gates (reset r, update z, new n)."""

    _MODE = "GRU"

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=mstype.float32):
        super().__init__(input_size, hidden_size, has_bias, 3, dtype)

    def construct(self, x, hx):
        return self._tensor_hx_step("GRUCell", x, hx)


# ---------------------------------------------------------------- the recurrence over a sequence
class _DynamicRNN(Cell):
    """Runs one direction of one layer over a (T, B, I) sequence; optional per-sample lengths."""

    mode = None  # set by each subclass in _RNN_CELLS

    def __init__(self):
        super().__init__()
        self.is_lstm = self.mode == "LSTM"

    def construct(self, x, h_0, seq_length, w_ih, w_hh, b_ih, b_hh):
        dt = x.dtype
        if w_ih.dtype != dt:
            w_ih, w_hh = F.cast(w_ih, dt), F.cast(w_hh, dt)
            if b_ih is not None:
                b_ih, b_hh = F.cast(b_ih, dt), F.cast(b_hh, dt)
        steps, batch = x.shape[0], x.shape[1]
        gi_all = _linear(P.reshape_p(x, shape=(steps * batch, x.shape[2])), w_ih, b_ih)
        gi_all = P.reshape_p(gi_all, shape=(steps, batch, gi_all.shape[-1]))
        gis = P.split_sizes_p(gi_all, sizes=[1] * steps, axis=0) if steps > 1 else (gi_all,)
        step = _STEPS[self.mode]
        state = h_0
        outputs = []
        if seq_length is None:
            for t in range(steps):
                state = step(P.reshape_p(gis[t], shape=gis[t].shape[1:]), state, w_hh, b_hh)
                outputs.append(state[0] if self.is_lstm else state)
        else:
            # samples past their length keep their state and output zeros
            lengths = seq_length.asnumpy().reshape(-1)
            for t in range(steps):
                new = step(P.reshape_p(gis[t], shape=gis[t].shape[1:]), state, w_hh, b_hh)
                alive = Tensor((lengths > t).reshape(-1, 1))
                if self.is_lstm:
                    state = (F.where(alive, new[0], state[0]), F.where(alive, new[1], state[1]))
                    outputs.append(F.where(alive, new[0], P.zeros_like_p(new[0])))
                else:
                    state = F.where(alive, new, state)
                    outputs.append(F.where(alive, new, P.zeros_like_p(new)))
        return P.stack_p(*outputs, axis=0), state


# one subclass per mode, named as MindSpore names them (they show in the Cell's repr)
_RNN_CELLS = {mode: type(cls_name, (_DynamicRNN,), {"mode": mode, "__module__": __name__})
              for mode, cls_name in (("RNN_TANH", "_DynamicRNNTanh"), ("RNN_RELU", "_DynamicRNNRelu"),
                                     ("LSTM", "_DynamicLSTMCPUGPU"), ("GRU", "_DynamicGRUCPUGPU"))}


def _reverse(x, seq_length):
    """x (T, B, ...) reversed in time; with lengths, each sample reversed within its own length."""
    steps = x.shape[0]
    if seq_length is None:
        return F.flip(x, (0,))
    lengths = seq_length.asnumpy().reshape(-1)
    t = np.arange(steps)[:, None]
    src = np.where(t < lengths[None, :], lengths[None, :] - 1 - t, t)
    b = np.broadcast_to(np.arange(x.shape[1])[None, :], src.shape)
    return x[Tensor(src.astype(np.int64)), Tensor(np.ascontiguousarray(b).astype(np.int64))]


class _RNNBase(Cell):
    """Stacked (optionally bidirectional) recurrent layers with MindSpore's arguments and parameter names."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.,
                 bidirectional=False, dtype=mstype.float32):
        super().__init__()
        cls = type(self).__name__
        for name, v in (("hidden_size", hidden_size), ("input_size", input_size), ("num_layers", num_layers)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"For '{cls}', the '{name}' must be a positive int, but got {v}.")
        if isinstance(dropout, bool) or not isinstance(dropout, (float, int)):
            raise TypeError(f"For '{cls}', the 'dropout' must be float, but got {type(dropout).__name__}.")
        for name, v in (("has_bias", has_bias), ("batch_first", batch_first), ("bidirectional", bidirectional)):
            if not isinstance(v, bool):
                raise TypeError(f"For '{cls}', the '{name}' must be bool, but got {type(v).__name__}.")
        if not 0 <= dropout < 1:
            raise ValueError(f"For '{cls}', the 'dropout' must be a number in range [0, 1) representing the "
                             f"probability of an element being zeroed, but got {dropout}.")
        self.rnn = _RNN_CELLS[mode]()
        self.hidden_size = hidden_size
        self.batch_first = batch_first
        self.num_layers = num_layers
        self.dropout = dropout
        self.dropout_op = Dropout(p=float(dropout))
        self.bidirectional = bidirectional
        self.has_bias = has_bias
        self.is_lstm = mode == "LSTM"
        gate_size = _GATES[mode] * hidden_size
        num_directions = 2 if bidirectional else 1
        stdv = 1 / math.sqrt(hidden_size)

        def uniform(name, shape):   # MindSpore's RNNs draw their weights from numpy's global generator
            values = host_alloc(type(self).__name__, np.random.uniform, -stdv, stdv, shape, nbytes=8 * math.prod(shape))
            return Parameter(Tensor(values.astype(np.float32), dtype=dtype), name=name)

        w_ih, w_hh, b_ih, b_hh = [], [], [], []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else hidden_size * num_directions
                suffix = "_reverse" if direction == 1 else ""
                w_ih.append(uniform(f"weight_ih_l{layer}{suffix}", (gate_size, layer_input)))
                w_hh.append(uniform(f"weight_hh_l{layer}{suffix}", (gate_size, hidden_size)))
                if has_bias:
                    b_ih.append(uniform(f"bias_ih_l{layer}{suffix}", (gate_size,)))
                    b_hh.append(uniform(f"bias_hh_l{layer}{suffix}", (gate_size,)))
        self.w_ih_list = ParameterTuple(w_ih)
        self.w_hh_list = ParameterTuple(w_hh)
        self.b_ih_list = ParameterTuple(b_ih)
        self.b_hh_list = ParameterTuple(b_hh)

    def _weights(self, k):
        if self.has_bias:
            return self.w_ih_list[k], self.w_hh_list[k], self.b_ih_list[k], self.b_hh_list[k]
        return self.w_ih_list[k], self.w_hh_list[k], None, None

    def _state(self, h, k):
        return (h[0][k], h[1][k]) if self.is_lstm else h[k]

    def construct(self, x, hx=None, seq_length=None):
        cls = type(self).__name__
        _check_tensor(cls, "x", x)
        if x.ndim != 3:
            raise ValueError(f"For '{cls}', the 'x' must be a 3-D Tensor, but got {x.ndim}-D.")
        _check_float(cls, "x", x)
        batch = x.shape[0] if self.batch_first else x.shape[1]
        dirs = 2 if self.bidirectional else 1
        if hx is None:
            zeros = F.zeros((self.num_layers * dirs, batch, self.hidden_size), x.dtype)
            hx = (zeros, zeros) if self.is_lstm else zeros
        elif self.is_lstm:
            if not isinstance(hx, tuple):
                raise TypeError(f"For '{cls}', the 'hx' must be 'Tuple', but got '{type(hx).__name__}'")
            if len(hx) != 2:
                raise TypeError(f"For '{cls}', the length of 'hx' must be '2', but got '{len(hx)}'")
        else:
            _check_tensor(cls, "h", hx)
        want = (self.num_layers * dirs, batch, self.hidden_size)
        for name, h in ((("hx[0]", hx[0]), ("hx[1]", hx[1])) if self.is_lstm else (("hx", hx),)):
            _check_tensor(cls, name, h)
            if h.shape != want:
                raise ValueError(f"For '{cls}', the shape of '{name}' must be (num_layers * num_directions, batch, "
                                 f"hidden_size) = {want}, but got {h.shape}.")
        if seq_length is not None:
            if seq_length.dtype not in (mstype.int32, mstype.int64):
                raise TypeError(f"For '{cls}', the 'seq_length' must be int32 or int64, but got {seq_length.dtype}.")
            if seq_length.shape[0] != batch:
                raise ValueError(f"For '{cls}' batch size of x and seq_length must be equal, but got {batch} of x "
                                 f"and {seq_length.shape[0]} of seq_length.")
        x_dtype = x.dtype
        if self.batch_first:
            x = P.transpose_p(x, perm=(1, 0, 2))
        layer_in = x
        h_n, c_n = [], []
        output = layer_in
        for i in range(self.num_layers):
            out_f, h_f = self.rnn(layer_in, self._state(hx, i * dirs), seq_length, *self._weights(i * dirs))
            finals = [h_f]
            if self.bidirectional:
                x_b = _reverse(layer_in, seq_length)
                out_b, h_b = self.rnn(x_b, self._state(hx, i * dirs + 1), seq_length, *self._weights(i * dirs + 1))
                output = F.concat((out_f, _reverse(out_b, seq_length)), 2)
                finals.append(h_b)
            else:
                output = out_f
            layer_in = self.dropout_op(output) if (self.dropout != 0 and i < self.num_layers - 1) else output
            for h in finals:
                if self.is_lstm:
                    h_n.append(h[0])
                    c_n.append(h[1])
                else:
                    h_n.append(h)
        if self.batch_first:
            output = P.transpose_p(output, perm=(1, 0, 2))
        h_out = P.stack_p(*h_n, axis=0)
        if output.dtype != x_dtype:
            output = F.cast(output, x_dtype)
        if self.is_lstm:
            return output, (h_out, P.stack_p(*c_n, axis=0))
        return output, h_out


class RNN(_RNNBase):
    """Multi-layer Elman RNN over (T, B, I) (or (B, T, I) with batch_first).

    Args:
        input_size (int), hidden_size (int), num_layers (int): Default ``1``. has_bias (bool): Default ``True``.
        batch_first (bool): Default ``False``. dropout (float): between layers, Default ``0.0``.
        bidirectional (bool): Default ``False``. nonlinearity (str): ``'tanh'`` or ``'relu'``.

    Inputs: x, hx (num_layers * directions, B, H) or None, seq_length (B,) or None.
    Outputs: (output (T, B, directions * H), h_n).

    >>> import mindseed as ms
    >>> out, h = ms.nn.RNN(3, 4)(ms.ops.ones((5, 2, 3)))
    >>> out.shape, h.shape
    ((5, 2, 4), (1, 2, 4))
    """

    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNN', the 'nonlinearity' must be in ['tanh', 'relu'], but got {nonlinearity}.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)


class GRU(_RNNBase):
    """Multi-layer GRU (arguments, inputs and outputs as RNN)."""

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


class LSTM(_RNNBase):
    """Multi-layer LSTM (arguments as RNN); hx and h_n are (h, c) tuples."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)
