"""mindspore.train.lineage_pb2: the messages of MindSpore's `lineage.proto` (package `mindspore.irpb`, proto2).

`SummaryRecord.add_value` takes them for the plugins ``train_lineage`` (`TrainLineage`), ``eval_lineage``
(`EvaluationLineage`), ``dataset_graph`` (`DatasetGraph`) and ``custom_lineage_data`` (`UserDefinedInfo`) and writes
each as a `LineageEvent` into the ``..._lineage`` file that MindInsight's lineage manager reads. Declared as a table
(field numbers of MindSpore 2.10's lineage.proto) and built with protobuf's message factory, as `mind_ir_pb2`.
"""
from mindseed.export._schema import build_classes


def _maps(owner, **value_types):
    """The map-entry messages `<owner>.Map<Kind>Entry` (key string, value of the given type)."""
    return {f"{owner}.Map{kind}Entry": [("opt", "string", "key", 1), ("opt", value_type, "value", 2)]
            for kind, value_type in value_types.items()}


_MESSAGES = {
    "LineageEvent": [("req", "double", "wall_time", 1), ("opt", "int64", "step", 2),
                     ("oneof:what", "string", "version", 3), ("oneof:what", "TrainLineage", "train_lineage", 6),
                     ("oneof:what", "EvaluationLineage", "evaluation_lineage", 7),
                     ("oneof:what", "DatasetGraph", "dataset_graph", 9),
                     ("oneof:what", "UserDefinedInfo", "user_defined_info", 10)],
    "UserDefinedInfo": [("rep", "UserDefinedInfo", "user_info", 1),
                        ("rep", "UserDefinedInfo.MapDictEntry", "map_dict", 2),
                        ("rep", "UserDefinedInfo.MapInt32Entry", "map_int32", 3),
                        ("rep", "UserDefinedInfo.MapStrEntry", "map_str", 4),
                        ("rep", "UserDefinedInfo.MapDoubleEntry", "map_double", 5)],
    **_maps("UserDefinedInfo", Dict="UserDefinedInfo", Int32="int32", Str="string", Double="double"),
    "TrainLineage": [("opt", "TrainLineage.HyperParameters", "hyper_parameters", 1),
                     ("opt", "TrainLineage.TrainDataset", "train_dataset", 2),
                     ("opt", "TrainLineage.Algorithm", "algorithm", 3), ("opt", "TrainLineage.Model", "model", 4)],
    "TrainLineage.HyperParameters": [("opt", "string", "optimizer", 1), ("opt", "float", "learning_rate", 2),
                                     ("opt", "string", "loss_function", 3), ("opt", "int32", "epoch", 4),
                                     ("opt", "string", "parallel_mode", 5), ("opt", "int32", "device_num", 6),
                                     ("opt", "int32", "batch_size", 8)],
    "TrainLineage.TrainDataset": [("opt", "string", "train_dataset_path", 1),
                                  ("opt", "int32", "train_dataset_size", 2)],
    "TrainLineage.Algorithm": [("opt", "string", "network", 1), ("opt", "float", "loss", 2)],
    "TrainLineage.Model": [("opt", "string", "path", 3), ("opt", "int64", "size", 4)],
    "EvaluationLineage": [("opt", "string", "metric", 2),
                          ("opt", "EvaluationLineage.ValidDataset", "valid_dataset", 3)],
    "EvaluationLineage.ValidDataset": [("opt", "string", "valid_dataset_path", 1),
                                       ("opt", "int32", "valid_dataset_size", 2)],
    "DatasetGraph": [("rep", "DatasetGraph", "children", 1), ("opt", "OperationParameter", "parameter", 2),
                     ("rep", "Operation", "operations", 3), ("opt", "Operation", "sampler", 4)],
    "Operation": [("opt", "OperationParameter", "operationParam", 1), ("rep", "int32", "size", 2),
                  ("rep", "float", "weights", 3)],
    "OperationParameter": [("rep", "OperationParameter.MapStrEntry", "mapStr", 1),
                           ("rep", "OperationParameter.MapStrListEntry", "mapStrList", 2),
                           ("rep", "OperationParameter.MapBoolEntry", "mapBool", 3),
                           ("rep", "OperationParameter.MapIntEntry", "mapInt", 4),
                           ("rep", "OperationParameter.MapDoubleEntry", "mapDouble", 5)],
    **_maps("OperationParameter", Str="string", StrList="StrList", Bool="bool", Int="int32", Double="double"),
    "StrList": [("rep", "string", "strValue", 1)],
}
_MAP_ENTRIES = {name for name in _MESSAGES if name.endswith("Entry")}
_CLASSES = build_classes("mindseed_lineage.proto", "mindspore.irpb", _MESSAGES, map_entries=_MAP_ENTRIES)

LineageEvent = _CLASSES["LineageEvent"]
UserDefinedInfo = _CLASSES["UserDefinedInfo"]
TrainLineage = _CLASSES["TrainLineage"]
EvaluationLineage = _CLASSES["EvaluationLineage"]
DatasetGraph = _CLASSES["DatasetGraph"]
Operation = _CLASSES["Operation"]
OperationParameter = _CLASSES["OperationParameter"]
StrList = _CLASSES["StrList"]
DESCRIPTOR = LineageEvent.DESCRIPTOR.file

__all__ = ["LineageEvent", "UserDefinedInfo", "TrainLineage", "EvaluationLineage", "DatasetGraph", "Operation",
           "OperationParameter", "StrList"]
