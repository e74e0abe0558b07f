"""mindspore.parallel: distributed-training helpers.

The auto-parallel context is `mindseed.set_auto_parallel_context`. Data parallelism runs today
(`nn.TrainOneStepCell` all-reduces gradients under ``parallel_mode='data_parallel'``); the sharding planner
of semi-auto/auto parallel is not part of mindseed yet.
"""
