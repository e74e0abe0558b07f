"""ops.Custom (user-defined operators; "pyfunc" runs a Python function on numpy arrays) and ops.DType."""
from mindseed.common import dtype as mstype
from mindseed.common.tensor import COOTensor, CSRTensor, Tensor
from mindseed.ops._prims.custom import custom_multi_p, custom_p
from mindseed.ops.operations._base import PrimitiveWithInfer, Primitive

__all__ = ["Custom", "DType"]

# func_types MindSpore knows; only "pyfunc" has a kernel here (the others compile for Ascend/GPU toolchains)
_FUNC_TYPES = ["hybrid", "akg", "tbe", "aicpu", "aot", "pyfunc"]


class Custom(PrimitiveWithInfer):
    """A user-defined operator. With ``func_type="pyfunc"``, `func` is a Python function on numpy arrays.

    Args:
        func (function): computes the outputs (numpy arrays) from the inputs (numpy arrays; scalars as they are).
        out_shape (Union[function, list, tuple]): the output shape, or a function of the input shapes giving it;
            for several outputs a tuple of shapes.
        out_dtype (Union[function, mindspore.dtype, tuple[mindspore.dtype]]): the output dtype, or a function of
            the input dtypes giving it; a tuple of dtypes means several outputs.
        func_type (str): ``"pyfunc"``; the other MindSpore kinds (``"aot"``, ``"hybrid"``, ``"akg"``, ``"tbe"``,
            ``"aicpu"``) build device kernels with vendor toolchains and are refused here. Default: ``"pyfunc"``.
        bprop (function): ``bprop(*inputs, out, dout)`` returning one gradient per input, written with mindseed
            ops on Tensors. Without it the operator cannot be differentiated. Default: ``None``.
        reg_info: registration information of device kernels; accepted and unused by "pyfunc". Default: ``None``.

    Inputs:
        - **inputs** (Tensor) - the inputs of `func`.

    Outputs:
        Tensor or tuple[Tensor].

    Raises:
        TypeError: `func` is not callable, or `out_shape`/`out_dtype` give something else than a shape/dtype.
        ValueError: `func_type` is not "pyfunc", or `func` returns arrays that do not fit `out_shape`.

    >>> import numpy as np
    >>> import mindseed as ms
    >>> add = ms.ops.Custom(lambda a, b: a + b, lambda a, _: a, lambda a, _: a, "pyfunc")
    >>> add(ms.Tensor(np.ones(2, np.float32)), ms.Tensor(np.ones(2, np.float32))).shape
    (2,)
    """

    def __init__(self, func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None, reg_info=None):
        super().__init__("Custom")
        self.log_prefix = f"For 'Custom', 'func_type': {func_type}, 'func': {func}"
        if func_type != "pyfunc":
            why = " (it builds a device kernel with a vendor toolchain)" if func_type in _FUNC_TYPES else ""
            raise ValueError(f"{self.log_prefix}, only 'func_type' 'pyfunc' is supported on this backend, but got "
                             f"{func_type!r}{why}.")
        if not callable(func):
            raise TypeError(f"{self.log_prefix}, 'func' must be of type function, but got {type(func)}")
        self.func, self.func_type = func, func_type
        self.out_shape, self.out_dtype = out_shape, out_dtype
        self.bprop, self.reg_info = bprop, reg_info
        self.func_name = getattr(func, "__name__", type(func).__name__)
        self.add_prim_attr("func_name", self.func_name)
        self.add_prim_attr("func_type", func_type)

    def get_bprop(self):
        """The back-propagation function given at construction."""
        return self.bprop

    def _infer(self, inputs):
        shape, dtype = self.out_shape, self.out_dtype
        if callable(shape):
            shape = shape(*[x.shape if isinstance(x, Tensor) else () for x in inputs])
        if callable(dtype):
            dtype = dtype(*[x.dtype if isinstance(x, Tensor) else mstype.graph_scalar_dtype(x) for x in inputs])
        if not isinstance(shape, (tuple, list)):
            raise TypeError(f"{self.log_prefix}, 'out_shape' must be one of [tuple, list, function], but got "
                            f"{type(shape)}")
        if isinstance(dtype, (tuple, list)):
            if len(shape) != len(dtype) or not all(isinstance(s, (tuple, list)) for s in shape):
                raise TypeError(f"{self.log_prefix}, with {len(dtype)} output dtypes 'out_shape' must be a tuple of "
                                f"{len(dtype)} shapes, but got {shape}")
            shapes, dtypes, multi = tuple(tuple(s) for s in shape), tuple(dtype), True
        else:
            shapes, dtypes, multi = (tuple(shape),), (dtype,), False
        for d in dtypes:
            if not isinstance(d, mstype.Type) or isinstance(d, mstype.TensorType):
                raise TypeError(f"{self.log_prefix}, 'out_dtype' must be one of [mindspore.dtype, tuple, list, "
                                f"function], but got {type(d)}")
        return shapes, tuple(d.name for d in dtypes), multi

    def __call__(self, *inputs):
        shapes, dtypes, multi = self._infer(inputs)
        prim = custom_multi_p if multi else custom_p
        return prim(*inputs, func=self.func, out_shapes=shapes, out_dtypes=dtypes, multi=multi, bprop=self.bprop)


class DType(Primitive):
    """The dtype of a tensor.

    Inputs:
        - **input_x** (Union[Tensor, COOTensor, CSRTensor]) - the tensor.

    Outputs:
        mindspore.dtype.

    Raises:
        TypeError: `input_x` is not a tensor.

    >>> import mindseed as ms
    >>> ms.ops.DType()(ms.Tensor([1.0]))
    Float32
    """

    def __init__(self):
        super().__init__("DType")

    def __call__(self, input_x):
        if not isinstance(input_x, (Tensor, COOTensor, CSRTensor)):
            raise TypeError(f"For Primitive[Dtype], the input argument[input_x] must be a Tensor, CSRTensor or "
                            f"COOTensor, but got {type(input_x)}.")
        return input_x.dtype
