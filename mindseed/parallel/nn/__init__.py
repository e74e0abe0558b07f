"""MindSpore's `mindspore.parallel.nn`: the cells of pipeline parallel, gradient accumulation and micro-batch
interleaving (`Pipeline`, `PipelineCell`, `GradAccumulation`, `MicroBatchInterleaved`) and the pipeline's gradient
reducer (`PipelineGradReducer`), the same as `mindseed.nn`'s (the partitioner runs them in stages and micro-batches,
docs/parallel.md)."""
from mindseed.parallel.nn import parallel_cell_wrapper, parallel_grad_reducer  # noqa: F401  (MindSpore binds them)
from mindseed.parallel.nn.parallel_cell_wrapper import GradAccumulation, MicroBatchInterleaved, Pipeline, PipelineCell
from mindseed.parallel.nn.parallel_grad_reducer import PipelineGradReducer

__all__ = ["PipelineGradReducer", "PipelineCell", "Pipeline", "MicroBatchInterleaved", "GradAccumulation"]
