"""The shared core of the reparameterised Bayesian layers: posterior/prior cells and the KL loss."""
from mindseed import ops
from mindseed.nn.cell import Cell
from mindseed.nn.layer import get_activation
from mindseed.nn.probability.bnn_layers.layer_distribution import NormalPosterior


def _default_posterior(name, shape):
    return NormalPosterior(name=name, shape=shape)


def _make(api, arg, fn, **kw):
    cell = fn(**kw) if not isinstance(fn, Cell) else fn
    if not isinstance(cell, Cell):
        raise TypeError(f"For '{api}', '{arg}' must be a Cell or a function returning a Cell, but got "
                        f"{type(cell).__name__}.")
    return cell


class _BaseVariational(Cell):
    """Weight (and bias) drawn from a posterior by reparameterisation on every call; KL to the prior."""

    def __init__(self, api, weight_shape, bias_shape, activation, has_bias, weight_prior_fn, weight_posterior_fn,
                 bias_prior_fn, bias_posterior_fn):
        super().__init__()
        self.has_bias = bool(has_bias)
        self.weight_prior = _make(api, "weight_prior_fn", weight_prior_fn)
        self.weight_posterior = _make(api, "weight_posterior_fn", weight_posterior_fn, shape=weight_shape,
                                      name="bnn_weight")
        if self.has_bias:
            self.bias_prior = _make(api, "bias_prior_fn", bias_prior_fn)
            self.bias_posterior = _make(api, "bias_posterior_fn", bias_posterior_fn, shape=bias_shape,
                                        name="bnn_bias")
        self.activation = get_activation(activation) if isinstance(activation, str) else activation
        if self.activation is not None and not callable(self.activation):
            raise TypeError(f"For '{api}', 'activation' must be a str, Cell or None, but got "
                            f"{type(activation).__name__}.")

    def construct(self, x):
        out = self._apply_weight(x, self.weight_posterior("sample"))
        if self.has_bias:
            out = self._apply_bias(out, self.bias_posterior("sample"))
        return out if self.activation is None else self.activation(out)

    def _kl(self, prior, posterior):
        std = posterior.std_trans(posterior.untransformed_std)
        return prior("kl_loss", "Normal", posterior.mean, std).sum()

    def compute_kl_loss(self):
        """KL divergence between the prior and the posterior of the weight (and bias), summed."""
        kl = self._kl(self.weight_prior, self.weight_posterior)
        if self.has_bias:
            kl = kl + self._kl(self.bias_prior, self.bias_posterior)
        return kl

    def _apply_bias(self, out, b):
        return out + ops.reshape(b, (1, -1) + (1,) * (out.ndim - 2))
