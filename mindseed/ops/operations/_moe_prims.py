"""MindSpore's MoE routing primitives of `ops.auto_generate` (Ascend kernels in MindSpore) that model code
(mindformers' MoE token dispatchers) makes: `MoeInitRoutingV2()` and `MoeTokenUnpermute()` compute here with
mindseed's ops (`ops.moe_init_routing_v2`'s four outputs, `ops.moe_token_unpermute`).

`MoeDistributeDispatch` and `MoeDistributeCombine` are fused HCCL expert-parallel exchanges whose outputs
(`expand_idx`, `ep_send_counts`, ...) are the Ascend 910B/910_93 kernels' own bookkeeping; MindSpore checks the SoC
when a call is inferred and raises RuntimeError on any other device, CPU included, and so do they here (the SoC
version is empty, as `MSContext.get_ascend_soc_version()` reports)."""
from mindseed.ops.functional import _runtime
from mindseed.ops.operations._base import simple_primitive
from mindseed.ops.primitive import Primitive

__all__ = ["MoeInitRoutingV2", "MoeTokenUnpermute", "MoeDistributeDispatch", "MoeDistributeCombine"]

MoeInitRoutingV2 = simple_primitive("MoeInitRoutingV2", _runtime.moe_init_routing_v2_op,
                                    _runtime.moe_init_routing_v2_op.__doc__)
MoeTokenUnpermute = simple_primitive("MoeTokenUnpermute", _runtime.moe_token_unpermute,
                                     _runtime.moe_token_unpermute.__doc__)


class _AscendOnly(Primitive):
    """A fused expert-parallel exchange of the Ascend 910B/910_93 SoCs (see the module docstring)."""

    def __init__(self):
        super().__init__(type(self).__name__)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"'{self.name}' only support [ascend910b, ascend910_93], but got ")


class MoeDistributeDispatch(_AscendOnly):
    """Expert-parallel dispatch of tokens to the ranks of their experts (Ascend 910B/910_93 only)."""


class MoeDistributeCombine(_AscendOnly):
    """Expert-parallel combine of the experts' outputs back to their tokens (Ascend 910B/910_93 only)."""
