"""mindspore.nn.probability.bnn_layers.DenseReparam / DenseLocalReparam."""
from mindseed import ops
from mindseed.nn.probability.bnn_layers._variational import _BaseVariational, _default_posterior
from mindseed.nn.probability.bnn_layers.layer_distribution import NormalPrior

__all__ = ["DenseReparam", "DenseLocalReparam"]


def _check_channels(api, **kw):
    for arg, v in kw.items():
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"For '{api}', '{arg}' must be a positive int, but got {v!r}.")


class DenseReparam(_BaseVariational):
    """A dense layer whose weight is sampled from its posterior by reparameterisation on every call."""

    def __init__(self, in_channels, out_channels, activation=None, has_bias=True, weight_prior_fn=NormalPrior,
                 weight_posterior_fn=_default_posterior, bias_prior_fn=NormalPrior,
                 bias_posterior_fn=_default_posterior):
        api = type(self).__name__
        _check_channels(api, in_channels=in_channels, out_channels=out_channels)
        self.in_channels, self.out_channels = in_channels, out_channels
        super().__init__(api, (out_channels, in_channels), (out_channels,), activation, has_bias, weight_prior_fn,
                         weight_posterior_fn, bias_prior_fn, bias_posterior_fn)

    def _apply_weight(self, x, w):
        return ops.matmul(x, ops.transpose(w, (1, 0)))


class DenseLocalReparam(DenseReparam):
    """Dense with the local reparameterisation trick: the pre-activation is sampled, not the weight."""

    def construct(self, x):
        post = self.weight_posterior
        std = post.std_trans(post.untransformed_std)
        mean = ops.matmul(x, ops.transpose(post.mean, (1, 0)))
        var = ops.matmul(ops.square(x), ops.transpose(ops.square(std), (1, 0)))
        out = post.normal.sample((), mean, ops.sqrt(var))
        if self.has_bias:
            out = self._apply_bias(out, self.bias_posterior("sample"))
        return out if self.activation is None else self.activation(out)
