"""`mindspore.dataset.vision.transforms`: every vision transform class (also reachable as `vision.<Name>`)."""
from mindseed.dataset.vision._augment import *  # noqa: F401,F403
from mindseed.dataset.vision._augment import __all__ as _augment_all
from mindseed.dataset.vision._bbox import *  # noqa: F401,F403
from mindseed.dataset.vision._bbox import __all__ as _bbox_all
from mindseed.dataset.vision._color import *  # noqa: F401,F403
from mindseed.dataset.vision._color import __all__ as _color_all
from mindseed.dataset.vision._geometry import *  # noqa: F401,F403
from mindseed.dataset.vision._geometry import __all__ as _geometry_all

__all__ = ([n for n in _geometry_all if n != "ImageTensorOperation"] + list(_color_all) + list(_augment_all)
           + list(_bbox_all))
