"""mindspore.mint.nn.functional: torch-style neural-network functions on mindseed's ops.

Names whose signature is the op's own are the op; the others are one table line each (see `mint._compile`),
or a composition in `_nn_impl` where the signature needs real code.
"""
from mindseed import ops as _ops
from mindseed.mint import _impl as _h
from mindseed.mint._compile import compile_table as _compile_table, reexport as _reexport
from mindseed.mint.nn import _nn_impl as _n

_SAME = _reexport(_ops, """
adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool2d conv_transpose2d
cosine_embedding_loss cross_entropy embedding fold grid_sample group_norm interpolate layer_norm mse_loss prelu
sigmoid soft_margin_loss tanh unfold broadcast_to clamp hardshrink hardsigmoid hardswish l1_loss softplus softshrink
mish
""")

_TABLE = """
adaptive_avg_pool1d(input, output_size) -> _n.adaptive_avg_pool1d(input, output_size)  # 1-D adaptive average
    pooling of (N, C, L) or (C, L).
adaptive_max_pool1d(input, output_size, return_indices=False) -> _n.adaptive_max_pool1d(input, output_size,
    return_indices)  # 1-D adaptive max pooling.
avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True) ->
    _ops.avg_pool1d(input, kernel_size, kernel_size if stride is None else stride, padding, ceil_mode,
    count_include_pad)  # 1-D average pooling (stride defaults to kernel_size).
avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None) -> _ops.avg_pool2d(input, kernel_size, kernel_size if stride is None else stride,
    padding, ceil_mode, count_include_pad, divisor_override or 0)  # 2-D average pooling.
avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None) -> _ops.avg_pool3d(input, kernel_size, kernel_size if stride is None else stride,
    padding, ceil_mode, count_include_pad, divisor_override or 0)  # 3-D average pooling.
batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05) ->
    _n.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)  # Batch normalisation
    over the channel dimension 1.
binary_cross_entropy(input, target, weight=None, reduction='mean') -> _ops.binary_cross_entropy(input, target,
    weight, reduction)  # Binary cross entropy of probabilities.
binary_cross_entropy_with_logits(input, target, weight=None, reduction='mean', pos_weight=None) ->
    _ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)  # Binary cross entropy of
    logits.
conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> _h.conv(_ops.conv1d, 1, input,
    weight, bias, stride, padding, dilation, groups)  # 1-D convolution, torch-style padding.
conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> _h.conv(_ops.conv2d, 2, input,
    weight, bias, stride, padding, dilation, groups)  # 2-D convolution, torch-style padding.
conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> _h.conv(_ops.conv3d, 3, input,
    weight, bias, stride, padding, dilation, groups)  # 3-D convolution, torch-style padding.
dropout(input, p=0.5, training=True, inplace=False) -> _n.activation(input, inplace, lambda x: _ops.dropout(x, p,
    training))  # Elements zeroed with probability p, the rest scaled by 1 / (1 - p).
dropout2d(input, p=0.5, training=True, inplace=False) -> _n.activation(input, inplace, lambda x: _ops.dropout2d(x,
    p, training))  # Whole channels zeroed with probability p.
elu(input, alpha=1.0, inplace=False) -> _n.activation(input, inplace, lambda x: _ops.elu(x, alpha))  # ELU.
elu_(input, alpha=1.0) -> _n.activation(input, True, lambda x: _ops.elu(x, alpha))  # ELU in place.
flatten(input, start_dim=0, end_dim=-1) -> _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)  # Dimensions
    start_dim..end_dim merged.
gelu(input, *, approximate='none') -> _ops.gelu(input, approximate=approximate)  # GELU ('none' or 'tanh').
glu(input, dim=-1) -> _ops.glu(input, dim)  # Gated linear unit: first half * sigmoid(second half) along `dim`.
hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False) -> _n.activation(input, inplace, lambda x:
    _n.hardtanh(x, min_val, max_val))  # Clamp to [min_val, max_val].
hardtanh_(input, min_val=-1, max_val=1) -> _n.activation(input, True, lambda x: _n.hardtanh(x, min_val,
    max_val))  # hardtanh in place.
kl_div(input, target, reduction='mean', log_target=False) -> _n.kl_div(input, target, reduction, log_target)  # KL
    divergence of target from exp(input).
leaky_relu(input, negative_slope=0.01) -> _n.leaky_relu(input, negative_slope)  # x if x > 0 else negative_slope *
    x.
linear(input, weight, bias=None) -> _ops.dense(input, weight, bias)  # input @ weight.T + bias.
log_softmax(input, dim=None, *, dtype=None) -> _n.softmax(_ops.log_softmax, input, dim, dtype)  #
    log(softmax(input)) along `dim`.
softmax(input, dim=None, dtype=None) -> _n.softmax(_ops.softmax, input, dim, dtype)  # Softmax along `dim`.
logsigmoid(input) -> _ops.logsigmoid(input)  # log(sigmoid(input)).
max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False) ->
    _ops.max_pool2d(input, kernel_size, stride, padding, dilation, return_indices, ceil_mode)  # 2-D max pooling.
max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> _ops.max_unpool2d(input,
    indices, kernel_size, stride, padding, output_size)  # Inverse of max_pool2d.
nll_loss(input, target, weight=None, ignore_index=-100, reduction='mean') -> _ops.nll_loss(input, target, weight,
    ignore_index, reduction)  # Negative log likelihood.
normalize(input, p=2.0, dim=1, eps=1e-12) -> _n.normalize(input, p, dim, eps)  # input / max(||input||_p over dim,
    eps).
one_hot(tensor, num_classes=-1) -> _n.one_hot(tensor, num_classes)  # One-hot encoding (Int64), num_classes = max +
    1 when -1.
pad(input, pad, mode='constant', value=None) -> _ops.pad(input, pad, mode, value)  # Padding of the last dimensions.
pixel_shuffle(input, upscale_factor) -> _ops.pixel_shuffle(input, upscale_factor)  # (C r^2, H, W) -> (C, H r, W r).
relu(input, inplace=False) -> _n.activation(input, inplace, _ops.relu)  # max(input, 0).
relu_(input) -> _n.activation(input, True, _ops.relu)  # relu in place.
relu6(input, inplace=False) -> _n.activation(input, inplace, _ops.relu6)  # min(max(input, 0), 6).
selu(input) -> _ops.selu(input)  # SELU.
sigmoid_(input) -> _n.activation(input, True, _ops.sigmoid)  # sigmoid in place.
silu(input, inplace=False) -> _n.activation(input, inplace, _ops.silu)  # input * sigmoid(input).
smooth_l1_loss(input, target, reduction='mean', beta=1.0) -> _ops.smooth_l1_loss(input, target, beta, reduction)  #
    Huber-like loss.
threshold(input, threshold, value, inplace=False) -> _n.activation(input, inplace, lambda x: _ops.threshold(x,
    threshold, value))  # input where input > threshold, else value.
threshold_(input, threshold, value) -> _n.activation(input, True, lambda x: _ops.threshold(x, threshold, value))  #
    threshold in place.
upsample(input, size=None, scale_factor=None, mode='nearest', align_corners=None) -> _ops.upsample(input, size,
    scale_factor, mode, align_corners)  # Resampling to `size` or by `scale_factor`.
"""

_FUNCTIONS = dict(_SAME)
_FUNCTIONS.update(_compile_table(_TABLE, {"_ops": _ops, "_h": _h, "_n": _n}, __name__))
globals().update(_FUNCTIONS)
__all__ = sorted(_FUNCTIONS)
