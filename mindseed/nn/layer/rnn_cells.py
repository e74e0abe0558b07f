"""`mindspore.nn.layer.rnn_cells`: MindSpore's module of the recurrent cells, and the one-step functions its cells
and packages built on it call (mindspore-rl's dynamic RNNs run `_gru_cell` & co. step by step).

Each function is one step on a batch: `(inputs (B, I), hidden, w_ih (G*H, I), w_hh (G*H, H), b_ih, b_hh)`, the
biases both None or both (G*H,); `hidden` is (B, H), for the LSTM the pair (h, c). Gate order as the cells':
LSTM (input, forget, cell, output), GRU (reset, update, new).
"""
from mindseed.nn.layer.rnns import _STEPS, GRUCell, LSTMCell, RNNCell, _linear

__all__ = ["RNNCell", "LSTMCell", "GRUCell"]


def _cell(mode):
    step = _STEPS[mode]

    def cell(inputs, hidden, w_ih, w_hh, b_ih, b_hh):
        if b_ih is None:
            b_hh = None
        return step(_linear(inputs, w_ih, b_ih), hidden, w_hh, b_hh)
    cell.__name__ = cell.__qualname__ = f"_{mode.lower()}_cell"
    cell.__doc__ = f"One {mode} step (MindSpore's `{cell.__name__}`)."
    return cell


_rnn_tanh_cell = _cell("RNN_TANH")
_rnn_relu_cell = _cell("RNN_RELU")
_lstm_cell = _cell("LSTM")
_gru_cell = _cell("GRU")
