"""Layers for the second-order optimizer THOR: Dense, Conv2d and embedding layers that record their Kronecker
factors while they run.

A THOR layer with ``thor == True`` stores, each forward pass, the input covariance ``A`` in its ``matrix_a``
Parameter, and, when the backward pass reaches its output, the output-gradient covariance ``G`` in ``matrix_g``.
The gradient side uses the HookBackward primitive (identity forward; its bprop hands the incoming gradient to
``_save_gradient`` and passes it on unchanged), MindSpore's ``InsertGradientOf``. With ``thor == False`` (THOR's
steps between refreshes) nothing is recorded and the layer costs what its plain counterpart costs.

The factors are MindSpore's (Ascend layers, which are true covariances):

* Dense: ``A = x^T x / rows``, ``G = dout^T dout / rows`` (rows: the batch).
* Conv2d: ``A = P^T P / (N * H_out * W_out)`` with ``P`` the im2col patches of the layer's own padding/stride,
  ``G = D^T D / (N * H_out * W_out)`` with ``D`` the output gradient as (positions, C_out); the counts go to
  ``a_normalizer`` / ``g_normalizer``, which THOR uses to scale the damping.
* Embedding: ``A`` = how often each id occurs (the diagonal of the one-hot covariance, vocab_size values),
  ``G = dout^T dout / rows`` over the looked-up rows.
"""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.layer.basic import Dense
from mindseed.nn.layer.conv import Conv2d, same_pads
from mindseed.nn.layer.embedding import Embedding, EmbeddingLookup, _clip_rows
from mindseed.ops import functional as F
from mindseed.ops._prims import core as P
from mindseed.ops._prims.conv import conv_p, pad_constant_p

__all__ = ["DenseThor", "Conv2dThor", "EmbeddingThor", "EmbeddingLookupThor"]


def _factor(name, n, eye):
    """A square (or, for n given as a tuple, any) non-trainable factor Parameter, identity or zeros."""
    value = np.eye(n, dtype=np.float32) if eye else np.zeros(n if isinstance(n, tuple) else (n, n), np.float32)
    return Parameter(Tensor(value), name=name, requires_grad=False)


def _covariance(rows):
    """rows^T rows / number of rows, in float32 (rows: a 2-D Tensor)."""
    rows = F.cast(rows, mstype.float32)
    return P.mul_p(F.matmul(F.transpose(rows, (1, 0)), rows), 1.0 / rows.shape[0])


def _record_output_gradient(out, save):
    """`out` unchanged; the backward pass calls save(dout) with the gradient of `out` and passes dout on."""
    def hook(dout):
        save(dout[0] if isinstance(dout, tuple) else dout)
    return P.hook_backward_p(out, hook=hook)[0]


class DenseThor(Dense):
    r"""The dense layer that records the information THOR needs: ``activation(x @ weight^T + bias)``.

    While ``thor`` is True it stores ``matrix_a`` = :math:`x^T x / N` (in_channels x in_channels) each forward
    pass and ``matrix_g`` = :math:`d^T d / N` (out_channels x out_channels), d the gradient of the layer's
    matmul output, in the backward pass. Paper: https://www.aaai.org/AAAI21Papers/AAAI-6611.ChenM.pdf

    Args:
        in_channels (int): the number of input channels.
        out_channels (int): the number of output channels.
        weight_init (Union[Tensor, str, Initializer, numbers.Number]): Default: ``'normal'``.
        bias_init (Union[Tensor, str, Initializer, numbers.Number]): Default: ``'zeros'``.
        has_bias (bool): add a bias. Default: ``True``.
        activation (str): activation applied to the output, e.g. ``'relu'``. Default: ``None``.

    Inputs: x of shape (N, in_channels). Outputs: (N, out_channels).

    Raises:
        ValueError: the shape of a Tensor `weight_init` or `bias_init` does not fit.

    >>> import mindseed as ms
    >>> net = ms.nn.DenseThor(3, 4, weight_init="ones")
    >>> net(ms.Tensor([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]])).asnumpy().tolist()
    [[6.0, 6.0, 6.0, 6.0], [12.0, 12.0, 12.0, 12.0]]
    >>> net.matrix_a.asnumpy()[0].tolist()
    [5.0, 7.0, 9.0]
    """

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros", has_bias=True,
                 activation=None):
        super().__init__(in_channels, out_channels, weight_init, bias_init, has_bias, activation)
        self.thor = True
        self.matrix_a = _factor("matrix_a", self.in_channels, eye=True)
        self.matrix_g = _factor("matrix_g", self.out_channels, eye=True)

    def _save_gradient(self, dout):
        F.assign(self.matrix_g, _covariance(F.reshape(dout, (-1, self.out_channels))))

    def construct(self, x):
        if not self.thor:
            return super().construct(x)
        rows = F.reshape(x, (-1, self.in_channels))
        F.assign(self.matrix_a, _covariance(rows))
        out = F.matmul(x, F.transpose(self.weight, (1, 0)))
        out = _record_output_gradient(out, self._save_gradient)
        if self.has_bias:
            out = out + self.bias
        if self.activation_flag:
            out = self.activation(out)
        return out


class Conv2dThor(Conv2d):
    r"""The 2-D convolution that records the information THOR needs.

    While ``thor`` is True it stores ``matrix_a`` (C_in*kh*kw square) = :math:`P^T P / M` from the im2col
    patches P of the input (the layer's padding and stride; M = N * H_out * W_out patches) and ``matrix_g``
    (C_out square) = :math:`D^T D / M`, D the output gradient laid out as (M, C_out); ``a_normalizer`` and
    ``g_normalizer`` hold M.

    Args:
        in_channels (int), out_channels (int), kernel_size (Union[int, tuple[int]]): sizes.
        stride (Union[int, tuple[int]]): Default: ``1``.
        pad_mode (str): ``'same'``, ``'valid'`` or ``'pad'``. Default: ``'same'``.
        padding (Union[int, tuple[int]]): with ``'pad'``. Default: ``0``.
        dilation (Union[int, tuple[int]]): Default: ``1``.
        group (int): Default: ``1``.
        has_bias (bool): Default: ``False``.
        weight_init (Union[Tensor, str, Initializer, numbers.Number]): Default: ``'normal'``.
        bias_init (Union[Tensor, str, Initializer, numbers.Number]): Default: ``'zeros'``.

    Inputs: x of shape (N, C_in, H, W). Outputs: (N, C_out, H_out, W_out).

    >>> import mindseed as ms
    >>> net = ms.nn.Conv2dThor(3, 8, 3, has_bias=False, weight_init='normal')
    >>> net(ms.ops.ones((1, 3, 6, 6))).shape
    (1, 8, 6, 6)
    >>> net.matrix_a_cov.shape
    (27, 27)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init="normal", bias_init="zeros"):
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                         has_bias, weight_init, bias_init)
        if self.group != 1:
            raise ValueError(f"For 'Conv2dThor', THOR's factors need 'group' 1 (a dense kernel), but got 'group' "
                             f"{self.group}.")
        self.thor = True
        self.matrix_a_dim = self.in_channels * self._kernel[0] * self._kernel[1]
        self.matrix_g_dim = self.out_channels
        self.matrix_a_cov = _factor("matrix_a", self.matrix_a_dim, eye=False)
        self.matrix_g_cov = _factor("matrix_g", self.matrix_g_dim, eye=False)
        self.a_normalizer = Parameter(Tensor(np.ones([1], np.float32)), name="a_normalizer", requires_grad=False)
        self.g_normalizer = Parameter(Tensor(np.ones([1], np.float32)), name="g_normalizer", requires_grad=False)

    def _patches(self, x, pads):
        """im2col of x with this layer's pads: (N * H_out * W_out, C_in * kh * kw)."""
        if any(pads):
            x = pad_constant_p(x, pads=(pads[2], pads[3], pads[0], pads[1]), value=0)
        cols = F.unfold(x, self._kernel, self._dilation, 0, self._stride)      # (N, C*kh*kw, L)
        return F.reshape(F.transpose(cols, (0, 2, 1)), (-1, self.matrix_a_dim))

    def _save_gradient(self, dout):
        rows = F.reshape(F.transpose(dout, (0, 2, 3, 1)), (-1, self.out_channels))
        F.assign(self.g_normalizer, Tensor([float(rows.shape[0])], mstype.float32))
        F.assign(self.matrix_g_cov, _covariance(rows))

    def construct(self, x):
        if not self.thor:
            return super().construct(x)
        if x.ndim != 4:
            raise ValueError(f"For 'Conv2dThor', the input must be a 4D Tensor, but got input of {x.ndim}D.")
        pads = same_pads(x.shape[2:], self._kernel, self._stride, self._dilation) if self._same else self._pads
        patches = self._patches(x, pads)
        F.assign(self.a_normalizer, Tensor([float(patches.shape[0])], mstype.float32))
        F.assign(self.matrix_a_cov, _covariance(patches))
        out = conv_p(x, self.weight, None, stride=self._stride, pads=pads, dilation=self._dilation, groups=1)
        out = _record_output_gradient(out, self._save_gradient)
        if self.has_bias:
            out = out + F.reshape(self.bias, (1, -1, 1, 1))
        return out


def _record_embedding_factors(cell, flat_ids):
    """matrix_a <- the count of each id in flat_ids (vocab_size values)."""
    one_hot = F.one_hot(flat_ids, cell.vocab_size, Tensor(1.0, mstype.float32), Tensor(0.0, mstype.float32))
    F.assign(cell.matrix_a, F.sum(one_hot, 0))


def _save_embedding_gradient(cell, dout):
    F.assign(cell.matrix_g, _covariance(F.reshape(dout, (-1, cell.embedding_size))))


class EmbeddingThor(Embedding):
    r"""The embedding lookup table that records the information THOR needs.

    While ``thor`` is True (and ``use_one_hot`` False) it stores ``matrix_a`` (vocab_size values) = how often
    each id occurs in the batch and ``matrix_g`` (embedding_size square) = :math:`d^T d / n` over the n looked-up
    rows' gradients.

    Args:
        vocab_size (int), embedding_size (int): the table's shape.
        use_one_hot (bool): compute as one_hot(ids) @ table (then nothing is recorded). Default: ``False``.
        embedding_table (Union[Tensor, str, Initializer, numbers.Number]): Default: ``'normal'``.
        dtype (mindspore.dtype): the dtype of the one-hot values. Default: ``mindspore.float32``.
        padding_idx (int): a row initialised to zeros. Default: ``None``.

    Inputs: ids (batch_size, x_length) of int. Outputs: (batch_size, x_length, embedding_size).

    >>> import mindseed as ms
    >>> net = ms.nn.EmbeddingThor(20, 4)
    >>> net(ms.Tensor([[1, 2], [1, 3]], ms.int32)).shape
    (2, 2, 4)
    >>> net.matrix_a.asnumpy()[:4].tolist()
    [0.0, 2.0, 1.0, 1.0]
    """

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=mstype.float32, padding_idx=None):
        super().__init__(vocab_size, embedding_size, use_one_hot, embedding_table, dtype, padding_idx)
        self.thor = True
        self.matrix_a = _factor("matrix_a", (vocab_size,), eye=False)
        self.matrix_g = _factor("matrix_g", embedding_size, eye=False)

    def construct(self, ids):
        if self.use_one_hot or not self.thor:
            return super().construct(ids)
        flat = F.reshape(ids, (-1,))
        _record_embedding_factors(self, flat)
        out = F.gather(self.embedding_table, flat, 0)
        out = _record_output_gradient(out, lambda dout: _save_embedding_gradient(self, dout))
        return F.reshape(out, ids.shape + (self.embedding_size,))


class EmbeddingLookupThor(EmbeddingLookup):
    r"""EmbeddingLookup that records the information THOR needs (as EmbeddingThor) when ``target`` is
    ``'DEVICE'``; with ``target='CPU'`` (a host-side lookup in MindSpore) it records nothing, as MindSpore's.

    Args:
        vocab_size (int), embedding_size (int): the table's shape.
        param_init (Union[Tensor, str, Initializer, numbers.Number]): Default: ``'normal'``.
        target (str): ``'CPU'`` or ``'DEVICE'``. Default: ``'CPU'``.
        slice_mode (str): the parallel slicing mode (one process: ignored). Default: ``'batch_slice'``.
        manual_shapes (tuple): for ``'field_slice'``. Default: ``None``.
        max_norm (Union[float, None]): clip each looked-up row to this L2 norm. Default: ``None``.
        sparse (bool): sparse gradients; must be True with ``target='CPU'``. Default: ``True``.

    Inputs: indices of any shape. Outputs: indices.shape + (embedding_size,).

    Raises:
        ValueError: `target` is not 'CPU'/'DEVICE', or `sparse` is False with target 'CPU'.

    >>> import mindseed as ms
    >>> net = ms.nn.EmbeddingLookupThor(10, 3, target='DEVICE')
    >>> net(ms.Tensor([[1, 0], [3, 2]], ms.int32)).shape
    (2, 2, 3)
    """

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU", slice_mode="batch_slice",
                 manual_shapes=None, max_norm=None, sparse=True):
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode, manual_shapes, max_norm,
                         sparse)
        self.thor = True
        self.matrix_a = _factor("matrix_a", (vocab_size,), eye=False)
        self.matrix_g = _factor("matrix_g", embedding_size, eye=False)

    def construct(self, indices):
        if self.target == "CPU" or not self.thor:
            return super().construct(indices)
        _record_embedding_factors(self, F.reshape(indices, (-1,)))
        out = F.gather(self.embedding_table, indices, 0)
        out = _record_output_gradient(out, lambda dout: _save_embedding_gradient(self, dout))
        if self.max_norm is not None:
            out = _clip_rows(out, indices.ndim, self.max_norm)
        return out
