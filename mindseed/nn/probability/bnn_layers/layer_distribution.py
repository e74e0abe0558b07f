"""mindspore.nn.probability.bnn_layers.NormalPrior / NormalPosterior: weight distributions of Bayesian layers."""
from mindseed import ops
from mindseed.common import dtype as mstype
from mindseed.common.initializer import Normal as NormalInit
from mindseed.common.initializer import initializer
from mindseed.common.parameter import Parameter
from mindseed.nn.cell import Cell
from mindseed.nn.probability.distribution import Normal

__all__ = ["NormalPrior", "NormalPosterior"]


class NormalPrior(Cell):
    """A fixed Normal(mean, std) prior; calling it dispatches to the distribution's methods by name."""

    def __init__(self, dtype=mstype.float32, mean=0, std=0.1):
        super().__init__()
        self.normal = Normal(mean, std, dtype=dtype)

    def construct(self, *inputs):
        return self.normal(*inputs)


class NormalPosterior(Cell):
    """A trainable Normal posterior: `<name>_mean` and `<name>_untransformed_std` (std = softplus of it)."""

    def __init__(self, name, shape, dtype=mstype.float32, loc_mean=0, loc_std=0.1, untransformed_scale_mean=-5,
                 untransformed_scale_std=0.1):
        super().__init__()
        if not isinstance(name, str):
            raise TypeError(f"For 'NormalPosterior', 'name' must be a str, but got {type(name).__name__}.")
        for arg, v in (("loc_std", loc_std), ("untransformed_scale_std", untransformed_scale_std)):
            if not isinstance(v, (int, float)) or v < 0:
                raise ValueError(f"For 'NormalPosterior', '{arg}' must be a non-negative number, but got {v!r}.")
        shape = tuple(shape)
        self.mean = Parameter(initializer(NormalInit(loc_std, loc_mean), shape, dtype), name=name + "_mean")
        self.untransformed_std = Parameter(
            initializer(NormalInit(untransformed_scale_std, untransformed_scale_mean), shape, dtype),
            name=name + "_untransformed_std")
        self.normal = Normal()

    def std_trans(self, std_pre):
        return ops.log1p(ops.exp(std_pre))

    def construct(self, *inputs):
        std = self.std_trans(self.untransformed_std)
        if inputs and inputs[0] == "sample":
            return self.normal.sample((), self.mean, std)
        return self.normal(*inputs)
