"""mindspore.dataset.callback: the dataset pipeline's callbacks (`DSCallback`, `WaitedDSCallback`), the same classes
as `mindspore.dataset.DSCallback` / `WaitedDSCallback`."""
from mindseed.dataset._schema import DSCallback, WaitedDSCallback

__all__ = ["DSCallback", "WaitedDSCallback"]
