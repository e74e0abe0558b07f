"""mindspore.ops.auto_generate.gen_ops_prim: the Primitive classes (the same classes as
`mindspore.ops.operations`) and the backward kernels of `ops.operations._grad_ops`."""
from mindseed.ops import operations as _operations
from mindseed.ops.operations import _grad_ops
from mindseed.common.tensor import Tensor as _Tensor
from mindseed.ops._api import _attr_value
from mindseed.ops.functional import _nn_norm as _norm
from mindseed.ops.operations._base import AttrPrimitive as _AttrPrimitive, Primitive as _Primitive
from mindseed.ops.operations._base import simple_primitive as _simple_primitive
from mindseed.ops import functional as _F

__all__ = sorted(_n for _n, _v in vars(_operations).items()
                 if not _n.startswith("_") and isinstance(_v, type) and issubclass(_v, _Primitive)
                 and _v.__module__ != _Primitive.__module__)
globals().update({_n: getattr(_operations, _n) for _n in __all__})
# the backward kernels real code calls (not in ops.operations, as in MindSpore)
globals().update({_n: getattr(_grad_ops, _n) for _n in _grad_ops.__all__})
# generated primitives MindSpore keeps out of `ops.operations` (the counter-based random ones mcore models call)
# and the view operators (`ops.auto_generate` only)
DropoutExt = _operations._nn.DropoutExt
globals().update({_n: getattr(_operations._mint_prims, _n) for _n in _operations._mint_prims.VIEWS})


class GroupNorm(_AttrPrimitive):
    """(output, mean, rstd) of group normalization: `num_groups` groups of the channels of an (N, C, *) input
    normalized, then scaled and shifted per channel; mean and rstd have shape (N, num_groups)."""

    def __call__(self, input, num_groups, weight=None, bias=None, eps=1e-5):
        # a `mutable` scalar arrives in a graph as a 0-d tensor: its value, as MindSpore's argument handlers take it
        num_groups, eps = (_attr_value(v) if isinstance(v, _Tensor) and v.ndim == 0 else v for v in (num_groups, eps))
        if isinstance(num_groups, bool) or not isinstance(num_groups, int):
            raise TypeError(f"For 'GroupNorm', the 'num_groups' must be an int, but got {type(num_groups).__name__}.")
        if isinstance(eps, bool) or not isinstance(eps, float):
            raise TypeError(f"For 'GroupNorm', the 'eps' must be a float, but got {type(eps).__name__}.")
        return tuple(_norm.group_norm_outputs(input, num_groups, weight, bias, eps))


# the FFT family, generated primitives of MindSpore 2.x outside `ops.operations`: each call is its functional op
# (`FFT()(input, n=None, dim=-1, norm=None)`, `FFTShift()(input, dim=None)`, `FFTFreq()(n, d=1.0, dtype=None)`)
_FFT = {"FFT": "fft", "IFFT": "ifft", "FFT2": "fft2", "IFFT2": "ifft2", "FFTN": "fftn", "IFFTN": "ifftn",
        "RFFT": "rfft", "IRFFT": "irfft", "RFFT2": "rfft2", "IRFFT2": "irfft2", "RFFTN": "rfftn", "IRFFTN": "irfftn",
        "HFFT": "hfft", "IHFFT": "ihfft", "HFFT2": "hfft2", "IHFFT2": "ihfft2", "HFFTN": "hfftn", "IHFFTN": "ihfftn",
        "FFTShift": "fftshift", "IFFTShift": "ifftshift", "FFTFreq": "fftfreq", "RFFTFreq": "rfftfreq"}
globals().update({_n: _simple_primitive(_n, getattr(_F, _f), f"The {_f} operator as a Primitive class.")
                  for _n, _f in _FFT.items()})



class MaxDim(_Primitive):
    """(values, indices) of the maxima of `input` along `dim` (kept as size 1 with `keepdim`)."""

    _reduce = staticmethod(_F.max)

    def __init__(self):
        super().__init__(type(self).__name__)

    def __call__(self, input, dim, keepdim=False):  # noqa: A002 -- MindSpore's argument name
        if isinstance(dim, bool) or not isinstance(dim, int) or not isinstance(keepdim, bool):
            raise TypeError(f'Failed calling {self.name} with "{self.name}()(input={type(input).__name__}, '
                            f'dim={type(dim).__name__}, keepdim={type(keepdim).__name__})".\nThe valid calling '
                            f'should be: \n"{self.name}()(input=<Tensor>, dim=<int>, keepdim=<bool>)".')
        return self._reduce(input, dim, keepdim)


class MinDim(MaxDim):
    """(values, indices) of the minima of `input` along `dim` (kept as size 1 with `keepdim`)."""

    _reduce = staticmethod(_F.min)


__all__ = sorted(set(__all__) | set(_grad_ops.__all__) | {"DropoutExt", "GroupNorm", "MaxDim", "MinDim"} |
                 set(_operations._mint_prims.VIEWS) | set(_FFT))


# MindSpore's generated module also holds an instance of each operator under its snake-case name, `<name>_op`
# (`tracev2_grad_op = TraceV2Grad()`): the class whose name, lower-cased, is `<name>` without underscores
_BY_FOLDED = {_n.lower(): _n for _n in __all__}
_INSTANCES = {}


def __getattr__(name):
    cls = _BY_FOLDED.get(name[:-3].replace("_", "")) if name.endswith("_op") else None
    if cls is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name not in _INSTANCES:
        _INSTANCES[name] = globals()[cls]()
    return _INSTANCES[name]
