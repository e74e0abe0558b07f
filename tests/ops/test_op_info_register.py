"""Operator registration builders (CustomRegOp, CpuRegOp, TBERegOp, AKG, AiCPU) and DataType constants."""
import pytest

from mindseed import ops


def test_custom_reg_op_describes_inputs_outputs_attrs_and_formats():
    info = (ops.CustomRegOp("scale").input(0, "x", "required").output(0, "y").attr("k", "required", "float", value=2.0)
            .dtype_format(ops.DataType.F32_Default, ops.DataType.F32_Default)
            .dtype_format(ops.DataType.F16_None, ops.DataType.F16_None).target("CPU").get_op_info())
    assert info["op_name"] == "scale" and info["imply_type"] == "Custom" and info["target"] == "CPU"
    assert info["inputs"] == [{"index": 0, "name": "x", "param_type": "required"}]
    assert info["attr"] == [{"name": "k", "param_type": "required", "type": "float", "value": 2.0}]
    assert info["dtype_format"] == [(("float32", "DefaultFormat"),) * 2, (("float16", ""),) * 2]

    @ops.custom_info_register(info)
    def kernel(x):
        return x

    assert kernel.reg_info == [info]


def test_backend_builders_and_errors():
    tbe = ops.TBERegOp("Relu").fusion_type("ELEMWISE").kernel_name("relu").partial_flag(True).get_op_info()
    assert tbe["imply_type"] == "TBE" and tbe["fusion_type"] == "ELEMWISE" and tbe["kernel_name"] == "relu"
    assert ops.AkgGpuRegOp("x").get_op_info()["processor"] == "CUDA"
    assert ops.AkgAscendRegOp("x").get_op_info()["imply_type"] == "AKG"
    assert ops.CpuRegOp("x").get_op_info()["imply_type"] == "CPU"
    assert ops.AiCPURegOp("x").fusion_type("OPAQUE").get_op_info()["fusion_type"] == "OPAQUE"
    assert ops.DataType.I64_NHWC == ("int64", "NHWC") and ops.DataType.None_None == ("", "")
    with pytest.raises(ValueError, match="For 'CpuRegOp.input', the 'param_type' must be one of"):
        ops.CpuRegOp("x").input(0, "a", "sometimes")
    with pytest.raises(TypeError, match="For 'CustomRegOp.dtype_format', each argument must be a"):
        ops.CustomRegOp().dtype_format("float32")
    with pytest.raises(ValueError, match="'target' must be 'CPU', 'GPU' or 'Ascend'"):
        ops.CustomRegOp().target("TPU")


def test_tbe_reg_op_takes_mindspores_tbe_arguments():
    # MindSpore's TBERegOp.input(index, name, need_compile, param_type, shape, value_depend) and its dynamic flags
    info = (ops.TBERegOp("OpName").dynamic_compile_static(True).is_dynamic_format(True).reshape_type("NC")
            .input(0, "x1", None, "required", None).input(1, "axis", False, "required", "all", "optional")
            .output(0, "y", True, "required", "all").unknown_shape_formats(["ND", "ND"])
            .dtype_format(ops.DataType.F16_None, ops.DataType.F16_None, ops.DataType.F16_None).get_op_info())
    assert info["inputs"] == [{"index": 0, "name": "x1", "param_type": "required"},
                              {"index": 1, "name": "axis", "param_type": "required", "need_compile": False,
                               "shape": "all", "value_depend": "optional"}]
    assert info["outputs"] == [{"index": 0, "name": "y", "param_type": "required", "need_compile": True,
                                "shape": "all"}]
    assert info["dynamic_compile_static"] is True and info["is_dynamic_format"] is True
    assert info["reshape_type"] == "NC" and info["unknown_shape_formats"] == [["ND", "ND"]]
    with pytest.raises(ValueError, match="value_depend's value \\(always\\) is not in"):
        ops.TBERegOp("x").input(0, "a", None, "required", None, "always")
