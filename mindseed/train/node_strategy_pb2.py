"""mindspore.train.node_strategy_pb2: the message classes of MindSpore's strategy-checkpoint schema
(`node_strategy.proto`, package `mindspore.straspb`): `ParallelStrategyMap` and the rest, which tools build strategy
files with (mindseed's own reader and writer are `mindseed.parallel._strategy_file`; the wire format is the same)."""
from mindseed.export._schema import build_classes


def _dims(kind):
    return [("rep", kind, "dim", 1)]


_MESSAGES = {
    "ParallelStrategy": _dims("uint32"),
    "ParallelStrategys": [("req", "uint32", "stage", 1), ("rep", "ParallelStrategy", "parallel_strategy", 2)],
    "ParallelStrategyItem": [("req", "string", "node_name", 1), ("req", "ParallelStrategys", "parallel_strategys", 2)],
    "DevMatrix": _dims("uint32"), "TensorMap": _dims("int32"), "ParamSplitShape": _dims("int64"),
    "IndicesOffset": _dims("int64"), "ParallelGroupRanks": _dims("uint32"),
    "ParallelLayouts": [("rep", "DevMatrix", "dev_matrix", 1), ("rep", "TensorMap", "tensor_map", 2),
                        ("rep", "ParamSplitShape", "param_split_shape", 3),
                        ("rep", "IndicesOffset", "indices_offset", 4),
                        ("req", "int32", "field", 5), ("req", "int32", "opt_weight_shard_step", 6),
                        ("req", "int32", "opt_weight_shard_size", 7)],
    "ParallelLayoutItem": [("req", "string", "param_name", 1), ("req", "ParallelLayouts", "parallel_layouts", 2)],
    "ParallelGroupItem": [("req", "string", "group_name", 1),
                          ("req", "ParallelGroupRanks", "parallel_group_ranks", 2)],
    "ParallelGroupMap": [("rep", "ParallelGroupItem", "parallel_group_item", 1),
                         ("req", "ParallelGroupRanks", "ckpt_restore_rank_list", 2)],
    "ParallelStrategyMap": [("req", "uint32", "current_stage", 1),
                            ("rep", "ParallelStrategyItem", "parallel_strategy_item", 2),
                            ("rep", "ParallelLayoutItem", "parallel_layout_item", 3)],
}
_CLASSES = build_classes("mindseed_node_strategy.proto", "mindspore.straspb", _MESSAGES)
globals().update(_CLASSES)
__all__ = sorted(_CLASSES)
