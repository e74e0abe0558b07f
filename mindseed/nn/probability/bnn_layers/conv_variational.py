"""mindspore.nn.probability.bnn_layers.ConvReparam."""
from mindseed import ops
from mindseed.nn.probability.bnn_layers._variational import _BaseVariational, _default_posterior
from mindseed.nn.probability.bnn_layers.dense_variational import _check_channels
from mindseed.nn.probability.bnn_layers.layer_distribution import NormalPrior

__all__ = ["ConvReparam"]


def _pair(api, arg, v):
    v = (v, v) if isinstance(v, int) else tuple(v)
    if len(v) != 2 or not all(isinstance(i, int) and i > 0 for i in v):
        raise ValueError(f"For '{api}', '{arg}' must be a positive int or a pair of them, but got {v!r}.")
    return v


class ConvReparam(_BaseVariational):
    """A 2-D convolution whose kernel is sampled from its posterior by reparameterisation on every call."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_prior_fn=NormalPrior, weight_posterior_fn=_default_posterior,
                 bias_prior_fn=NormalPrior, bias_posterior_fn=_default_posterior):
        api = "ConvReparam"
        _check_channels(api, in_channels=in_channels, out_channels=out_channels, group=group)
        if in_channels % group or out_channels % group:
            raise ValueError(f"For '{api}', 'in_channels' {in_channels} and 'out_channels' {out_channels} must be "
                             f"divisible by 'group' {group}.")
        if pad_mode not in ("same", "valid", "pad"):
            raise ValueError(f"For '{api}', 'pad_mode' must be 'same', 'valid' or 'pad', but got {pad_mode!r}.")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _pair(api, "kernel_size", kernel_size)
        self.stride, self.dilation = _pair(api, "stride", stride), _pair(api, "dilation", dilation)
        self.pad_mode, self.padding, self.group = pad_mode, padding, group
        super().__init__(api, (out_channels, in_channels // group) + self.kernel_size, (out_channels,), None,
                         has_bias, weight_prior_fn, weight_posterior_fn, bias_prior_fn, bias_posterior_fn)

    def _apply_weight(self, x, w):
        return ops.conv2d(x, w, None, self.stride, self.pad_mode, self.padding, self.dilation, self.group)
