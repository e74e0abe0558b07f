"""TensorBoard's event format, written with the `tensorboard` package's protos and record writer.

Used when a SummaryRecord is asked for ``format="tensorboard"`` (or MINDSEED_SUMMARY_FORMAT=tensorboard);
the values are the same as in MindSpore's format (shared histogram buckets and image canvas).
"""
import numpy as np

from mindseed.train.summary import _event_file as E

VERSION = "brain.Event:2"


def _modules():
    try:
        from tensorboard.compat.proto import event_pb2, summary_pb2  # noqa: PLC0415 -- optional dependency
        from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: PLC0415
        from tensorboard.util import tensor_util  # noqa: PLC0415
    except ImportError as err:
        raise ImportError("For 'SummaryRecord', format='tensorboard' needs the 'tensorboard' package "
                          "(pip install tensorboard).") from err
    return event_pb2, summary_pb2, RecordWriter, tensor_util


class Writer:
    """Encode values as TensorBoard's Summary.Value and frame events with tensorboard's RecordWriter."""

    VERSION = VERSION

    def __init__(self):
        self._event_pb2, self._summary_pb2, self._record_writer, self._tensor_util = _modules()

    def record(self, file, event_bytes):
        self._record_writer(file).write(event_bytes)

    def event(self, wall_time, step=0, version=None, summary_values=None):
        ev = self._event_pb2.Event(wall_time=wall_time, step=step)
        if version is not None:
            ev.file_version = version
        if summary_values is not None:
            ev.summary.value.extend(summary_values)
        return ev.SerializeToString()

    def scalar_value(self, tag, value):
        return self._summary_pb2.Summary.Value(tag=tag, simple_value=float(value))

    def histogram_value(self, tag, array):
        stats, edges, counts = E.histogram_of(array)
        histo = self._summary_pb2.HistogramProto(
            min=stats["min"], max=stats["max"], num=float(stats["count"] - stats["nan"] - stats["pos_inf"]
                                                          - stats["neg_inf"]),
            sum=stats["sum"], sum_squares=stats["sum_squares"], bucket_limit=edges[1:].tolist(),
            bucket=counts.astype(float).tolist())
        return self._summary_pb2.Summary.Value(tag=tag, histo=histo)

    def image_value(self, tag, nchw):
        h, w, c, png = E.image_png(nchw)
        image = self._summary_pb2.Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=png)
        return self._summary_pb2.Summary.Value(tag=tag, image=image)

    def tensor_value(self, tag, array):
        return self._summary_pb2.Summary.Value(tag=tag, tensor=self._tensor_util.make_tensor_proto(np.asarray(array)))

    def text_value(self, tag, text):
        meta = self._summary_pb2.SummaryMetadata(
            plugin_data=self._summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
        proto = self._tensor_util.make_tensor_proto(np.array(text.encode("utf-8"), dtype=object))
        return self._summary_pb2.Summary.Value(tag=tag, metadata=meta, tensor=proto)
