"""mindspore.dataset.core: `config` lives here in MindSpore; it is the same module as `mindspore.dataset.config`."""
import sys

from mindseed.dataset import config

sys.modules.setdefault(__name__ + ".config", config)

__all__ = ["config"]
