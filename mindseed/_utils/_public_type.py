"""The class of MindSpore's Tensor and Primitive, so `type(x)` prints MindSpore's path.

MindSpore's Tensor has a metaclass of its own (`_TensorMeta`) and its Primitive a pybind11 one; printing the class
(`str(type(x))`, `f"but got {type(x)}"`) gives `<class 'mindspore.common.tensor.Tensor'>`. (Cell's metaclass is
`type` in MindSpore: packages derive from abc.ABC and Cell together, so Cell has none here either.) When mindseed runs
MindSpore code through `mindseed.compat` (where `import mindspore` is mindseed), its classes print the same;
otherwise they print their own module, `<class 'mindseed.common.tensor.Tensor'>`.
"""
import sys


def _compat_active():
    ms = sys.modules.get("mindspore")
    return ms is not None and ms is sys.modules.get("mindseed")


class PublicType(type):
    """A metaclass whose repr names `mindspore.<module>` for mindseed's classes when the compat alias is active."""

    def __repr__(cls):
        module = cls.__module__
        if (module == "mindseed" or module.startswith("mindseed.")) and _compat_active():
            module = "mindspore" + module[len("mindseed"):]
        return f"<class '{module}.{cls.__qualname__}'>"
