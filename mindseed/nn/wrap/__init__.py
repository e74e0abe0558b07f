"""mindspore.nn wrapper cells: loss, gradients, training steps, loss scaling."""
from mindseed.nn.wrap.cell_wrapper import (ForwardValueAndGrad, GetNextSingleOp, GradAccumulationCell,
                                           MicroBatchInterleaved,
                                           ParameterUpdate, PipelineCell, TrainOneStepCell, VirtualDatasetCellTriple,
                                           WithEvalCell, WithGradCell, WithLossCell)
from mindseed.nn.wrap.adasum import AdaSumByDeltaWeightWrapCell, AdaSumByGradWrapCell
from mindseed.nn.layer.timedistributed import TimeDistributed
from mindseed.nn.wrap.grad_reducer import DistributedGradReducer, PipelineGradReducer
from mindseed.nn.wrap.loss_scale import (DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell,
                                         TrainOneStepWithLossScaleCell)

__all__ = ["ForwardValueAndGrad", "TrainOneStepCell", "WithLossCell", "WithGradCell", "WithEvalCell",
           "TrainOneStepWithLossScaleCell", "ParameterUpdate", "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell",
           "VirtualDatasetCellTriple", "GradAccumulationCell", "MicroBatchInterleaved", "PipelineCell",
           "DistributedGradReducer", "PipelineGradReducer", "GetNextSingleOp", "AdaSumByGradWrapCell",
           "AdaSumByDeltaWeightWrapCell", "TimeDistributed"]
