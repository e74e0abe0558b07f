"""MindSpore Lite's Python API (`import mindspore_lite as mslite` under `mindseed.compat`): inference on MindIR files.

A `Model` built from a MindIR file loads it once (`mindseed.export`'s checked loader), compiles it with the
compiler's passes and code generation (one compiled graph per input signature, weights bound once, no
autodiff state), and runs it on the `Tensor`s of `get_inputs()`:

    context = mslite.Context(); context.target = ["cpu"]; context.cpu.thread_num = 2
    model = mslite.Model(); model.build_from_file("net.mindir", mslite.ModelType.MINDIR, context)
    inputs = model.get_inputs(); inputs[0].set_data_from_numpy(x)
    y = model.predict(inputs)[0].get_data_to_numpy()

ONNX models are converted first, as with MindSpore Lite (`Converter().convert(FmkType.ONNX, "net.onnx", "net")`).
"""
from mindseed.lite._converter import Converter, FmkType
from mindseed.lite._model import (Context, CPUDeviceInfo, DataType, Format, GPUDeviceInfo, Model, ModelParallelRunner,
                                  ModelType, RunnerConfig, Tensor)

__all__ = ["Converter", "FmkType", "Context", "CPUDeviceInfo", "GPUDeviceInfo", "DataType", "Format", "Model",
           "ModelParallelRunner", "ModelType", "RunnerConfig", "Tensor"]
