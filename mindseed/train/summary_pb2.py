"""mindspore.train.summary_pb2: the messages of MindSpore's `summary.proto` (package `mindspore.irpb`, proto2), with
which a summary file written by `SummaryRecord` (or by MindSpore) is read back: each record is an `Event` holding a
`Summary` of tagged values (scalars, images, histograms, tensors, loss landscapes).

Declared as a table (field numbers of MindSpore 2.10's summary.proto and anf_ir.proto's TensorProto) and built with
protobuf's message factory, as `lineage_pb2`. `Event.graph_def` (an anf_ir GraphProto: SummaryRecord writes no graph)
and `Event.explain` (MindInsight's explainer records) are not declared: protobuf keeps such fields of a file as
unknown fields. `TensorProto.data_type` is the int value of anf_ir's DataType (DT_FLOAT32 = 11, ...).
"""
from mindseed.export._schema import build_classes

_MESSAGES = {
    "Event": [("req", "double", "wall_time", 1), ("opt", "int64", "step", 2),
              ("oneof:what", "string", "version", 3), ("oneof:what", "Summary", "summary", 5)],
    "Summary": [("rep", "Summary.Value", "value", 1)],
    "Summary.Image": [("req", "int32", "height", 1), ("req", "int32", "width", 2), ("req", "int32", "colorspace", 3),
                      ("req", "bytes", "encoded_image", 4)],
    "Summary.Histogram": [("rep", "Summary.Histogram.bucket", "buckets", 1), ("opt", "int64", "nan_count", 2),
                          ("opt", "int64", "pos_inf_count", 3), ("opt", "int64", "neg_inf_count", 4),
                          ("opt", "double", "max", 5), ("opt", "double", "min", 6), ("opt", "double", "sum", 7),
                          ("opt", "int64", "count", 8)],
    "Summary.Histogram.bucket": [("req", "double", "left", 1), ("req", "double", "width", 2),
                                 ("req", "int64", "count", 3)],
    "Summary.Value": [("req", "string", "tag", 1), ("oneof:value", "float", "scalar_value", 3),
                      ("oneof:value", "Summary.Image", "image", 4), ("oneof:value", "TensorProto", "tensor", 8),
                      ("oneof:value", "Summary.Histogram", "histogram", 9),
                      ("oneof:value", "LossLandscape", "loss_landscape", 10)],
    "LossLandscape": [("opt", "LossLandscape.Point", "landscape", 1), ("opt", "LossLandscape.LossPath", "loss_path", 2),
                      ("opt", "LossLandscape.Metadata", "metadata", 3),
                      ("opt", "LossLandscape.Point", "convergence_point", 4)],
    "LossLandscape.Point": [("opt", "TensorProto", "x", 1), ("opt", "TensorProto", "y", 2),
                            ("opt", "TensorProto", "z", 3)],
    "LossLandscape.LossPath": [("rep", "int32", "intervals", 1), ("opt", "LossLandscape.Point", "points", 2)],
    "LossLandscape.Metadata": [("opt", "string", "decomposition", 1), ("opt", "string", "unit", 2),
                               ("opt", "int32", "step_per_epoch", 3)],
    "TensorProto": [("rep", "int64", "dims", 1), ("opt", "int32", "data_type", 2), ("rep", "float", "float_data", 3),
                    ("rep", "int32", "int32_data", 4), ("rep", "int64", "int64_data", 5),
                    ("rep", "double", "double_data", 6), ("rep", "uint64", "uint64_data", 7),
                    ("opt", "bytes", "raw_data", 8)],
}
_CLASSES = build_classes("mindseed_summary.proto", "mindspore.irpb", _MESSAGES)

Event = _CLASSES["Event"]
Summary = _CLASSES["Summary"]
LossLandscape = _CLASSES["LossLandscape"]
TensorProto = _CLASSES["TensorProto"]
DESCRIPTOR = Event.DESCRIPTOR.file

__all__ = ["Event", "Summary", "LossLandscape", "TensorProto"]
