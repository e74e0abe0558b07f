"""MindSpore Lite's model converter (`converter_lite`, `mindspore_lite.Converter`): a model of another framework
(ONNX) or a MindIR file becomes a MindIR file the Lite runtime builds from.

    converter = mslite.Converter()
    converter.save_type = mslite.ModelType.MINDIR
    converter.convert(fmk_type=mslite.FmkType.ONNX, model_file="net.onnx", output_file="net")   # -> net.mindir

An ONNX file is read by `mindseed.export`'s checked ONNX reader (every operator looked up in a fixed table; an
unknown one is an error naming the file and the node) and exported as MindSpore 2.10 writes MindIR; a MindIR
file is checked by loading it and copied.
"""
import enum
import os
import shutil

import numpy as np

from mindseed.common.tensor import Tensor


class FmkType(enum.Enum):
    """The framework of the model to convert."""
    TF = 0
    CAFFE = 1
    ONNX = 2
    MINDIR = 3
    TFLITE = 4
    PYTORCH = 5


class Converter:
    """Converts ONNX and MindIR models to MindIR (`save_type` ModelType.MINDIR; `.ms` files are not written)."""

    def __init__(self):
        from mindseed.lite._model import ModelType  # noqa: PLC0415 -- _model imports nothing from here
        self.save_type = ModelType.MINDIR
        self.optimize = "general"
        self.input_shape = {}
        self.weight_fp16 = False
        self.device = ""

    def convert(self, fmk_type, model_file, output_file, weight_file="", config_file=""):
        """Convert `model_file` (framework `fmk_type`) into `output_file` + ".mindir"."""
        from mindseed.lite._model import ModelType  # noqa: PLC0415
        if not isinstance(fmk_type, FmkType):
            raise TypeError(f"For 'Converter.convert', the 'fmk_type' must be FmkType, but got "
                            f"{type(fmk_type).__name__}.")
        if fmk_type not in (FmkType.ONNX, FmkType.MINDIR):
            raise ValueError(f"For 'Converter.convert', the 'fmk_type' {fmk_type.name} is not supported: convert ONNX "
                             f"or MINDIR models.")
        if self.save_type is not ModelType.MINDIR:
            raise ValueError(f"For 'Converter.convert', 'save_type' {self.save_type} is not supported: only "
                             f"ModelType.MINDIR files are written.")
        if not isinstance(model_file, str) or not os.path.isfile(model_file):
            raise RuntimeError(f"For 'Converter.convert', the model file '{model_file}' does not exist.")
        if not isinstance(output_file, str) or not output_file:
            raise ValueError(f"For 'Converter.convert', the 'output_file' must be a non-empty str, but got "
                             f"{output_file!r}.")
        target = output_file if output_file.endswith(".mindir") else output_file + ".mindir"
        if fmk_type is FmkType.MINDIR:
            from mindseed.export import load  # noqa: PLC0415
            load(model_file)                  # checked completely before it is copied
            if os.path.abspath(model_file) != os.path.abspath(target):
                shutil.copyfile(model_file, target)
            return
        from mindseed.export import export  # noqa: PLC0415
        from mindseed.export._onnx_load import OnnxNet  # noqa: PLC0415
        net = OnnxNet(model_file)
        inputs = []
        for name, shape, dtype in net.input_specs:
            shape = self.input_shape.get(name, shape)
            if any(d is None for d in shape):
                raise ValueError(f"For 'Converter.convert', input '{name}' of '{model_file}' has a dynamic shape "
                                 f"{[-1 if d is None else d for d in shape]}: give its size in 'input_shape'.")
            inputs.append(Tensor(np.zeros(shape, dtype)))
        export(net, *inputs, file_name=target, file_format="MINDIR")
