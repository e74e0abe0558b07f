"""The GPU-kernel primitives of `ops.operations._rl_inner_ops`: `CudnnGRU` (composed of mindseed's ops here) and
the built-in CUDA environments' `EnvCreate`/`EnvReset`/`EnvStep` (GPU build only, as in MindSpore)."""
from mindseed import _checkparam as validator
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.operations._base import Primitive
from mindseed.ops.operations._rnn import set_stacked_rnn_attrs

__all__ = ["CudnnGRU", "EnvCreate", "EnvReset", "EnvStep"]


class CudnnGRU(Primitive):
    r"""Stacked (bidirectional) GRU over a whole sequence with cuDNN's flat weight: `(x, h, w)` -> (output, h_n,
    reserve, state).

    `w` (size, 1, 1) holds, for each layer and direction in turn, `w_ih` (3 hidden, layer input), `w_hh`
    (3 hidden, hidden) and, with `has_bias`, `b_ih`, `b_hh` (3 hidden); gates in the order reset, update, new
    (``h' = n + z * (h - n)``). Between layers the output passes through dropout with probability `dropout`.

    Args:
        input_size (int), hidden_size (int), num_layers (int): positive.
        has_bias (bool), bidirectional (bool).
        dropout (float): in [0, 1].

    Inputs:
        x (Tensor): (seq_len, batch, input_size). h (Tensor): (num_directions * num_layers, batch, hidden_size).
        w (Tensor): the flat weight.

    Outputs:
        output (seq_len, batch, num_directions * hidden_size), h_n like `h`, reserve (1, 1) and state (1, 1): the
        cuDNN work space and dropout state, which a composition does not keep (zeros).
    """

    def __init__(self, input_size, hidden_size, num_layers, has_bias, bidirectional, dropout):
        super().__init__("CudnnGRU")
        set_stacked_rnn_attrs(self, input_size, hidden_size, num_layers, has_bias, bidirectional, dropout)
        self.init_prim_io_names(inputs=["x", "hx", "w"], outputs=["y", "hy", "reserve", "state"])

    def _pieces(self):
        """(layer, direction) -> the (offset, shape) of w_ih, w_hh, b_ih, b_hh in the flat weight."""
        gates, hid, offset, pieces = 3 * self.hidden_size, self.hidden_size, 0, []
        for layer in range(self.num_layers):
            width = self.input_size if layer == 0 else hid * self.num_directions
            for _ in range(self.num_directions):
                shapes = [(gates, width), (gates, hid)] + ([(gates,), (gates,)] if self.has_bias else [])
                entry = []
                for shape in shapes:
                    size = shape[0] * (shape[1] if len(shape) > 1 else 1)
                    entry.append((offset, shape))
                    offset += size
                pieces.append(entry)
        return pieces, offset

    def __call__(self, x, h, w):
        name = self.name
        for arg, value in (("x", x), ("h", h), ("w", w)):
            if not isinstance(value, Tensor):
                raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got {type(value).__name__}.")
        if x.ndim != 3 or x.shape[2] != self.input_size:
            raise ValueError(f"For '{name}', 'x' must be (seq_len, batch, {self.input_size}), but got {x.shape}.")
        want_h = (self.num_directions * self.num_layers, x.shape[1], self.hidden_size)
        if tuple(h.shape) != want_h:
            raise ValueError(f"For '{name}', 'h' must be of shape {want_h}, but got {h.shape}.")
        pieces, size = self._pieces()
        if w.size != size:
            raise ValueError(f"For '{name}', 'w' must hold {size} weights for this configuration, but got {w.size}.")
        flat = w.reshape((-1,))
        layer_in, h_n = x, []
        for layer in range(self.num_layers):
            outs = []
            for d in range(self.num_directions):
                k = layer * self.num_directions + d
                w_ih, w_hh, *bias = [flat[o:o + (s[0] * (s[1] if len(s) > 1 else 1))].reshape(s)
                                     for o, s in pieces[k]]
                b_ih, b_hh = bias if bias else (None, None)
                seq = layer_in if d == 0 else F.flip(layer_in, (0,))
                out, last = _gru_sequence(seq, h[k], w_ih, w_hh, b_ih, b_hh)
                outs.append(out if d == 0 else F.flip(out, (0,)))
                h_n.append(last)
            layer_in = outs[0] if len(outs) == 1 else F.concat(outs, 2)
            if self.dropout > 0 and layer < self.num_layers - 1:
                layer_in = F.dropout(layer_in, p=self.dropout)
        zeros = Tensor([[0.0]], x.dtype)
        return layer_in, F.stack(h_n, 0), zeros, zeros


def _gru_sequence(x, h, w_ih, w_hh, b_ih, b_hh):
    """One direction of one GRU layer over (T, B, I): the outputs (T, B, H) and the last state (r, z, n gates)."""
    outs = []
    for t in range(x.shape[0]):
        gi, gh = F.matmul(x[t], w_ih.T), F.matmul(h, w_hh.T)
        if b_ih is not None:
            gi, gh = gi + b_ih, gh + b_hh
        i_r, i_z, i_n = F.split(gi, h.shape[-1], -1)
        h_r, h_z, h_n = F.split(gh, h.shape[-1], -1)
        r, z = F.sigmoid(i_r + h_r), F.sigmoid(i_z + h_z)
        n = F.tanh(i_n + r * h_n)
        h = n + z * (h - n)
        outs.append(h)
    return F.stack(outs, 0), h


class _GpuEnvironment(Primitive):
    """A primitive of MindSpore's built-in CUDA environments: made and checked as in MindSpore, run on a GPU
    build only."""

    def __call__(self, *args):
        raise RuntimeError(f"For '{self.name}', the built-in environments run on MindSpore's GPU kernels only; "
                           f"there is no CPU kernel for '{self.name}'. Use a Python environment (GymEnvironment) "
                           f"instead.")


class EnvCreate(_GpuEnvironment):
    r"""Creates a built-in environment (`name`, e.g. ``'Tag'``, with its parameters as attributes); the call returns
    its handle (GPU only)."""

    def __init__(self, name, **kwargs):
        super().__init__("EnvCreate")
        self.add_prim_attr("name", name)
        for key, value in kwargs.items():
            self.add_prim_attr(key, value)
        self.name = "EnvCreate"


class EnvReset(_GpuEnvironment):
    r"""Resets the built-in environment of `handle`, returning its state (GPU only).

    Args: handle (int), state_shape (list[tuple[int]]), state_dtype (mindspore.dtype)."""

    def __init__(self, handle, state_shape, state_dtype):
        super().__init__("EnvReset")
        validator.check_value_type("handle", handle, [int], self.name)
        validator.check_value_type("state_shape", state_shape, [list, tuple], self.name)
        self.attrs.update(handle=handle, state_shape=state_shape, state_dtype=state_dtype)


class EnvStep(_GpuEnvironment):
    r"""Runs one step of the built-in environment of `handle` on an action: (state, reward, done) (GPU only).

    Args: handle (int), state_shape, state_dtype, reward_shape, reward_dtype."""

    def __init__(self, handle, state_shape, state_dtype, reward_shape, reward_dtype):
        super().__init__("EnvStep")
        validator.check_value_type("handle", handle, [int], self.name)
        validator.check_value_type("state_shape", state_shape, [list, tuple], self.name)
        validator.check_value_type("reward_shape", reward_shape, [list, tuple], self.name)
        self.attrs.update(handle=handle, state_shape=state_shape, state_dtype=state_dtype,
                          reward_shape=reward_shape, reward_dtype=reward_dtype)
