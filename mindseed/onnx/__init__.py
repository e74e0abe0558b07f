"""mindspore.onnx: `export`, a network to an ONNX model with named inputs and outputs and dynamic axes."""
import os

from mindseed._utils._files import atomic_write
from mindseed.common.tensor import Tensor
from mindseed.export._capture import capture
from mindseed.nn import Cell

__all__ = ["export"]


def _check_list(name, value):
    if not isinstance(value, list):
        raise ValueError(f"The parameter '{name}' must be isinstance of <class 'list'>, but got {value}.")


def export(net, *inputs, file_name, input_names=None, output_names=None, export_params=True,
           keep_initializers_as_inputs=False, dynamic_axes=None):
    """Export `net`, traced in inference mode on `inputs`, to the ONNX model `file_name` (``.onnx`` added when
    missing).

    Args:
        net (Cell): the network.
        inputs (Tensor): example inputs.
        file_name (str): the file to write.
        input_names (list[str], optional): the graph inputs' names, in order. Default: ``None`` (x, x1, ...).
        output_names (list[str], optional): the graph outputs' names, in order. Default: ``None``.
        export_params (bool, optional): write the weights as initializers; False makes them graph inputs.
            Default: ``True``.
        keep_initializers_as_inputs (bool, optional): list the initializers among the graph inputs too (so a
            runtime may replace them). Default: ``False``.
        dynamic_axes (dict[str, dict[int, str]], optional): {input name: {axis: symbolic name}}: those input axes
            are dynamic in the model (the sizes computed from them are computed when it runs). Default: ``None``.

    Raises:
        ValueError: `net` is not a Cell, `input_names` / `output_names` is not a list, `dynamic_axes` not a dict,
            or names an input that does not exist.
    """
    from mindseed.export._onnx import onnx_bytes  # noqa: PLC0415 -- the onnx package is optional
    if not isinstance(file_name, str):
        raise TypeError(f"For 'export', the argument 'file_name' must be str, but got {type(file_name).__name__}.")
    if not isinstance(net, Cell):
        raise ValueError(f"The parameter 'net' must be isinstance of {Cell}, but got {net}.")
    input_names = input_names or []
    _check_list("input_names", input_names)
    output_names = output_names or []
    _check_list("output_names", output_names)
    dynamic_axes = dynamic_axes or {}
    if not isinstance(dynamic_axes, dict):
        raise ValueError(f"The parameter 'dynamic_axes' must be isinstance of <class 'dict'>, but got {dynamic_axes}.")
    names = [input_names[i] if i < len(input_names) else ("x" if i == 0 else f"x{i}") for i in range(len(inputs))]
    dim_names = {}
    for key, axes in dynamic_axes.items():
        if key not in names:
            raise ValueError(f"For 'export', 'dynamic_axes' names the input '{key}', but the inputs are {names}.")
        axes = dict(axes) if isinstance(axes, dict) else {a: f"{key}_dynamic_axes_{a}" for a in axes}
        i = names.index(key)
        ndim = len(inputs[i].shape)
        dim_names[i] = {a % ndim if isinstance(a, int) and -ndim <= a < ndim else a: n for a, n in axes.items()}
        for a in dim_names[i]:
            if not isinstance(a, int) or not 0 <= a < ndim:
                raise ValueError(f"For 'export', 'dynamic_axes' of '{key}' must be axes of its {ndim}-d input, "
                                 f"but got {a}.")
    traced = [Tensor(shape=[None if j in dim_names.get(i, {}) else d for j, d in enumerate(x.shape)], dtype=x.dtype)
              if i in dim_names else x for i, x in enumerate(inputs)]
    cap = capture(net, traced)
    data = onnx_bytes(cap, input_names=names, output_names=output_names, dim_names=dim_names,
                      export_params=export_params, keep_initializers_as_inputs=keep_initializers_as_inputs)
    path = os.path.abspath(file_name if file_name.endswith(".onnx") else file_name + ".onnx")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic_write(path, data)
