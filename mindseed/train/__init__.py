"""mindspore.train: Model, callbacks, metrics, checkpoints and summaries."""
from mindseed.train import callback, metrics, summary  # noqa: F401
from mindseed.train.callback import *  # noqa: F401,F403
from mindseed.train.data_sink import data_sink  # noqa: F401
from mindseed.train.dataset_helper import DatasetHelper, connect_network_with_dataset  # noqa: F401
from mindseed.train.metrics import *  # noqa: F401,F403
from mindseed.train.model import Model  # noqa: F401
from mindseed.train.serialization import (async_ckpt_thread_status, ckpt_to_safetensors, load_checkpoint,  # noqa: F401
                                          load_checkpoint_async, load_param_into_net, safetensors_to_ckpt,
                                          save_checkpoint)
from mindseed.train.summary import SummaryRecord  # noqa: F401
from mindseed.train import train_thor  # noqa: F401
from mindseed.train.train_thor import ConvertModelUtils, ConvertNetUtils  # noqa: F401

# MindSpore re-exports mixed precision here (module `train.amp`); it lives in mindseed.amp (a sibling package),
# looked up on first use
_AMP_NAMES = ("amp", "build_train_network", "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager")

# (the amp names stay out of __all__ so that `from mindseed.train import *` never imports mindseed.amp)
__all__ = ["Model", "DatasetHelper", "connect_network_with_dataset", "save_checkpoint", "load_checkpoint",
           "load_param_into_net", "async_ckpt_thread_status", "data_sink", "load_checkpoint_async",
           "ckpt_to_safetensors", "safetensors_to_ckpt", "SummaryRecord", "ConvertModelUtils", "ConvertNetUtils"]
__all__.extend(callback.__all__)
__all__.extend(metrics.__all__)


def __getattr__(name):
    if name in _AMP_NAMES:
        import importlib  # noqa: PLC0415
        try:
            amp = importlib.import_module("mindseed.amp")
        except ImportError as e:
            raise AttributeError(f"module 'mindseed.train' has no attribute '{name}' (mindseed.amp is not "
                                 f"available: {e})") from e
        value = importlib.import_module("mindseed.train.amp") if name == "amp" else getattr(amp, name)
        globals()[name] = value
        return value
    from mindseed._utils import _lazy  # noqa: PLC0415  (the top-level objects train re-exports, registered there)
    return _lazy.missing(__name__, name)


def __dir__():
    from mindseed._utils import _lazy  # noqa: PLC0415
    return _lazy.listing(__name__)
