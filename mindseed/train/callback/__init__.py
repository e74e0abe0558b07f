"""mindspore.train.callback: Callback, RunContext and the built-in callbacks."""
from mindseed.train.callback._callback import Callback, RunContext
# MindSpore's private names here, which code driving callbacks by hand imports
from mindseed.train.callback._callback import InternalCallbackParam as _InternalCallbackParam  # noqa: F401
from mindseed.train.callback._callback import _CallbackManager  # noqa: F401
from mindseed.train.callback._monitors import History, LambdaCallback, LearningRateScheduler, LossMonitor, TimeMonitor
from mindseed.train.callback._checkpoint import CheckpointConfig, ModelCheckpoint
from mindseed.train.callback._plateau import EarlyStopping, ReduceLROnPlateau
from mindseed.train.callback._exit_restore import BackupAndRestore, OnRequestExit
from mindseed.train.callback._summary_collector import SummaryCollector
from mindseed.train.callback._landscape import SummaryLandscape
from mindseed.train.callback._progress import ProgressBar
from mindseed.train.callback._fault_flops import FlopsUtilizationCollector, TrainFaultTolerance

__all__ = ["Callback", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "SummaryCollector", "CheckpointConfig",
           "RunContext", "LearningRateScheduler", "History", "LambdaCallback", "ReduceLROnPlateau", "EarlyStopping",
           "OnRequestExit", "BackupAndRestore", "ProgressBar", "FlopsUtilizationCollector", "TrainFaultTolerance",
           "SummaryLandscape"]
