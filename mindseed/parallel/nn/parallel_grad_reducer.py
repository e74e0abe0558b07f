"""`mindspore.parallel.nn.PipelineGradReducer`: MindSpore 2.10 defines it apart from `mindspore.nn`'s, with the same
behaviour; here it is `mindseed.nn`'s under this module."""
from mindseed.nn.wrap import grad_reducer as _nn

__all__ = ["PipelineGradReducer"]


class PipelineGradReducer(_nn.PipelineGradReducer):
    """The gradients of a pipeline-parallel step: the micro-batches' gradients (plus what the accumulators
    ``accu_grads`` hold) divided by `scale_sense`, the accumulators then zeroed; with `opt_shard` (default: the
    context's ``enable_parallel_optimizer``) the accumulators are not read.

    Raises:
        TypeError: `parameters` is not a list or tuple of Parameters.

    >>> import mindseed as ms
    >>> net = ms.nn.Dense(2, 1)
    >>> reducer = PipelineGradReducer(net.trainable_params(), scale_sense=2.0)
    >>> [g.asnumpy().tolist() for g in reducer((ms.ops.ones((1, 2)) * 4, ms.ops.ones((1,)) * 8))]
    [[[2.0, 2.0]], [4.0]]
    """
