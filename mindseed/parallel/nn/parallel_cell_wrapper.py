"""`mindspore.parallel.nn`'s cell wrappers: MindSpore 2.10 defines them apart from `mindspore.nn`'s (distinct
classes), with the same behaviour; here they are `mindseed.nn`'s cells under these names."""
from mindseed.nn.wrap import cell_wrapper as _nn

__all__ = ["PipelineCell", "Pipeline", "MicroBatchInterleaved", "GradAccumulation"]


class PipelineCell(_nn.PipelineCell):
    """Cuts the batch into `micro_size` micro-batches for pipeline parallel and sums the network's outputs over them;
    `stage_config` / `segment_config` ({cell name: number}) set the cells' ``pipeline_stage`` / ``pipeline_segment``.

    Raises:
        TypeError: `network` is not a Cell, `micro_size` not an int.
        ValueError: `micro_size` below 1.
        KeyError: a cell name of `stage_config` / `segment_config` that is not in `network`.

    >>> import mindseed as ms
    >>> net = PipelineCell(ms.nn.Dense(2, 1), 2)
    >>> net(ms.ops.ones((4, 2), ms.float32)).shape
    (2, 1)
    """


class Pipeline(PipelineCell):
    """`PipelineCell` under MindSpore 2.10's name (``mindspore.parallel.nn.Pipeline``).

    >>> import mindseed as ms
    >>> net = Pipeline(ms.nn.Dense(2, 1), 4)
    >>> net.micro_size
    4
    """


class MicroBatchInterleaved(_nn.MicroBatchInterleaved):
    """Cuts the batch into `interleave_num` parts, runs the network on each and sums the outputs.

    Raises:
        TypeError: `interleave_num` is not an int.
        ValueError: `interleave_num` below 1.

    >>> import mindseed as ms
    >>> MicroBatchInterleaved(ms.nn.Dense(2, 1), 2)(ms.ops.ones((4, 2), ms.float32)).shape
    (2, 1)
    """


class GradAccumulation(_nn._MicroSum):
    """Gradient accumulation: cuts the batch into `micro_size` micro-batches and sums the network's outputs over them
    (the gradients of the sum accumulate the micro-batches'), as `nn.GradAccumulationCell`.

    Raises:
        TypeError: `network` is not a Cell, `micro_size` not an int.
        ValueError: `micro_size` below 1.

    >>> import mindseed as ms
    >>> GradAccumulation(ms.nn.Dense(2, 1), 2)(ms.ops.ones((4, 2), ms.float32)).shape
    (2, 1)
    """

    def __init__(self, network, micro_size):
        super().__init__(auto_prefix=False)
        self._init_micro("GradAccumulation", network, micro_size)
