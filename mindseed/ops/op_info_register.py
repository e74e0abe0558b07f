"""Operator registration info (`mindspore.ops.op_info_register`): the builders that describe a kernel's inputs,
outputs, attributes and supported (dtype, format) combinations — `CustomRegOp` for `ops.Custom`, and the
backend-specific `CpuRegOp`, `AiCPURegOp`, `TBERegOp`, `AkgGpuRegOp`, `AkgAscendRegOp` — and the `DataType`
constants naming (dtype, format) pairs. A builder's methods chain; `get_op_info()` returns the description as a
dict, which `op_info_register` / `custom_info_register` attach to the kernel function (`func.reg_info`).

>>> from mindseed.ops import CustomRegOp, DataType
>>> info = (CustomRegOp("add").input(0, "x").input(1, "y").output(0, "z")
...         .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default).target("CPU")
...         .get_op_info())
>>> info["inputs"][1]["name"], info["dtype_format"][0][2]
('y', ('float32', 'DefaultFormat'))
"""
from mindseed.ops.functional._inner import custom_info_register, op_info_register

__all__ = ["RegOp", "CpuRegOp", "AiCPURegOp", "TBERegOp", "AkgGpuRegOp", "AkgAscendRegOp", "CustomRegOp",
           "DataType", "op_info_register", "custom_info_register"]

_PARAM_TYPES = ("required", "optional", "dynamic")


class RegOp:
    """The common builder: name, inputs, outputs, attributes and (dtype, format) rows of one operator."""

    imply_type = ""

    def __init__(self, op_name=""):
        if not isinstance(op_name, str):
            raise TypeError(f"For '{type(self).__name__}', the 'op_name' must be a str, but got "
                            f"{type(op_name).__name__}.")
        self.op_name = op_name
        self.inputs, self.outputs, self.attr_, self.dtype_format_ = [], [], [], []
        self.fields = {}

    def _io(self, kind, index, name, param_type, kwargs):
        if index is not None and (isinstance(index, bool) or not isinstance(index, int) or index < 0):
            raise ValueError(f"For '{type(self).__name__}.{kind}', the 'index' must be a non-negative int, but got "
                             f"{index!r}.")
        if param_type is not None and param_type not in _PARAM_TYPES:
            raise ValueError(f"For '{type(self).__name__}.{kind}', the 'param_type' must be one of {_PARAM_TYPES}, "
                             f"but got {param_type!r}.")
        entry = {k: v for k, v in dict(index=index, name=name, param_type=param_type, **kwargs).items()
                 if v is not None}
        (self.inputs if kind == "input" else self.outputs).append(entry)
        return self

    def input(self, index=None, name=None, param_type=None, **kwargs):
        """Describe input `index`: its name and whether it is 'required', 'optional' or 'dynamic'."""
        return self._io("input", index, name, param_type, kwargs)

    def output(self, index=None, name=None, param_type=None, **kwargs):
        """Describe output `index`."""
        return self._io("output", index, name, param_type, kwargs)

    def attr(self, name=None, param_type=None, value_type=None, value=None, default_value=None, **kwargs):
        """Describe an attribute: its name, whether required, its value type and value or default."""
        self.attr_.append({k: v for k, v in dict(name=name, param_type=param_type, type=value_type, value=value,
                                                 default_value=default_value, **kwargs).items() if v is not None})
        return self

    def dtype_format(self, *args):
        """One supported combination: a (dtype, format) pair for each input then each output."""
        for pair in args:
            if not isinstance(pair, tuple) or len(pair) != 2 or not all(isinstance(s, str) for s in pair):
                raise TypeError(f"For '{type(self).__name__}.dtype_format', each argument must be a (dtype, format) "
                                f"tuple of str (a DataType constant), but got {pair!r}.")
        self.dtype_format_.append(tuple(args))
        return self

    def _set(self, key, value):
        self.fields[key] = value
        return self

    def get_op_info(self):
        """The description as a dict."""
        info = {"op_name": self.op_name, "imply_type": self.imply_type, "inputs": list(self.inputs),
                "outputs": list(self.outputs), "attr": list(self.attr_), "dtype_format": list(self.dtype_format_)}
        info.update(self.fields)
        return info


def _setter(key, doc):
    def method(self, value=True):
        return self._set(key, value)
    method.__name__ = key
    method.__doc__ = doc
    return method


class CpuRegOp(RegOp):
    """Registration info of a CPU kernel."""

    imply_type = "CPU"


class AiCPURegOp(RegOp):
    """Registration info of an AiCPU kernel."""

    imply_type = "AiCPU"
    fusion_type = _setter("fusion_type", "The fusion type ('OPAQUE', 'ELEMWISE', ...).")


class TBERegOp(RegOp):
    """Registration info of a TBE (Ascend) kernel."""

    imply_type = "TBE"
    fusion_type = _setter("fusion_type", "The fusion type ('OPAQUE', 'ELEMWISE', ...).")
    async_flag = _setter("async_flag", "Whether the kernel runs asynchronously.")
    binfile_name = _setter("binfile", "The kernel binary file name.")
    compute_cost = _setter("compute_cost", "The relative compute cost.")
    kernel_name = _setter("kernel_name", "The kernel function name.")
    partial_flag = _setter("partial_flag", "Whether the kernel supports partial computation.")
    dynamic_shape = _setter("dynamic_shape", "Whether the kernel supports dynamic shapes.")
    dynamic_rank_support = _setter("dynamic_rank_support", "Whether the kernel supports dynamic rank.")
    need_check_supported = _setter("need_check_supported", "Whether support is checked at compile time.")
    op_pattern = _setter("op_pattern", "The operator pattern ('broadcast', 'reduce', ...).")
    real_input_index = _setter("real_input_index", "The order of the real inputs.")
    input_to_attr_index = _setter("input_to_attr_index", "Inputs converted to attributes.")
    dynamic_compile_static = _setter("dynamic_compile_static", "Whether dynamic shapes are compiled statically.")
    is_dynamic_format = _setter("is_dynamic_format", "Whether the formats are selected by the kernel's function.")
    reshape_type = _setter("reshape_type", "The dimensions an input of lower rank keeps ('NC', 'CH', ...).")

    def unknown_shape_formats(self, unknown_shape_formats):
        """Add the formats of the inputs and outputs (a list) for dynamic shapes."""
        if not isinstance(unknown_shape_formats, list):
            raise TypeError(f"For 'TBERegOp.unknown_shape_formats', the argument must be a list, but got "
                            f"{type(unknown_shape_formats).__name__}.")
        self.fields.setdefault("unknown_shape_formats", []).append(unknown_shape_formats)
        return self

    def input(self, index=None, name=None, need_compile=None, param_type=None, shape=None, value_depend=None,
              **kwargs):
        """Describe input `index` (MindSpore's TBE arguments: need_compile, param_type, shape, value_depend)."""
        if value_depend is not None and value_depend.lower() not in ("ignored", "optional", "required"):
            raise ValueError(f"Operator {self.op_name} input{index}'s value_depend's value ({value_depend}) is not "
                             f"in ('ignored', 'optional', 'required').")
        extra = {k: v for k, v in dict(need_compile=need_compile, shape=shape, value_depend=value_depend).items()
                 if v is not None}
        return self._io("input", index, name, param_type, {**extra, **kwargs})

    def output(self, index=None, name=None, need_compile=None, param_type=None, shape=None, **kwargs):
        """Describe output `index` (MindSpore's TBE arguments: need_compile, param_type, shape)."""
        extra = {k: v for k, v in dict(need_compile=need_compile, shape=shape).items() if v is not None}
        return self._io("output", index, name, param_type, {**extra, **kwargs})


class _AkgRegOp(RegOp):
    processor = ""

    def get_op_info(self):
        info = super().get_op_info()
        info["processor"] = self.processor
        return info


class AkgGpuRegOp(_AkgRegOp):
    """Registration info of an AKG kernel for GPU."""

    imply_type, processor = "AKG", "CUDA"


class AkgAscendRegOp(_AkgRegOp):
    """Registration info of an AKG kernel for Ascend."""

    imply_type, processor = "AKG", "AiCore"


class CustomRegOp(RegOp):
    """Registration info of an `ops.Custom` kernel; `target` names its device ('CPU', 'GPU', 'Ascend')."""

    imply_type = "Custom"

    def __init__(self, op_name="Custom"):
        super().__init__(op_name)

    def target(self, target=None):
        """The device the kernel runs on."""
        if target is not None and target not in ("CPU", "GPU", "Ascend"):
            raise ValueError(f"For 'CustomRegOp.target', the 'target' must be 'CPU', 'GPU' or 'Ascend', but got "
                             f"{target!r}.")
        return self._set("target", target)


_DTYPES = {"None": "", "BOOL": "bool", "I8": "int8", "I16": "int16", "I32": "int32", "I64": "int64", "U8": "uint8",
           "U16": "uint16", "U32": "uint32", "U64": "uint64", "F16": "float16", "F32": "float32", "F64": "float64",
           "BF16": "bfloat16", "C64": "complex64", "C128": "complex128"}
_FORMATS = {"None": "", "Default": "DefaultFormat", "5HD": "NC1HWC0", "FracZ": "FracZ", "FracNZ": "FRACTAL_NZ",
            "C1HWNCoC0": "C1HWNCoC0", "NCHW": "NCHW", "NHWC": "NHWC", "HWCN": "HWCN", "NDHWC": "NDHWC",
            "NCDHW": "NCDHW", "ChannelLast": "ChannelLast", "NDC1HWC0": "NDC1HWC0", "FRACTAL_Z_3D": "FRACTAL_Z_3D"}


class DataType:
    """(dtype, format) pairs for `dtype_format`: `DataType.F32_Default` is ('float32', 'DefaultFormat'),
    `DataType.F16_5HD` ('float16', 'NC1HWC0'), `DataType.None_None` ('', '')."""


for _d, _dtype in _DTYPES.items():
    for _f, _format in _FORMATS.items():
        setattr(DataType, f"{_d}_{_f}", (_dtype, _format))
