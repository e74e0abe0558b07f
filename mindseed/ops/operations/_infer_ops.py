"""mindspore.ops.operations._infer_ops: the inference primitives of MindSpore's layout (the same classes as
`mindspore.ops.auto_generate`)."""
from mindseed.ops.operations._mint_prims import (DynamicQuantExt, GroupedMatmul, MoeFinalizeRouting,  # noqa: F401
                                                 QuantBatchMatmul, QuantV2)
from mindseed.ops.operations._runtime_prims import KVCacheScatterUpdate  # noqa: F401

__all__ = ["DynamicQuantExt", "GroupedMatmul", "KVCacheScatterUpdate", "MoeFinalizeRouting", "QuantBatchMatmul",
           "QuantV2"]
