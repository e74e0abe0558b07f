"""Built-in transforms: MindSpore's argument checks, eager input rules and error reports (eager and inside map),
and the values of the text / sequence ops (expected values are MindSpore 2.10's)."""
import numpy as np
import pytest

import mindseed.dataset as ds
import mindseed.dataset.text as text
from mindseed.common import dtype as mstype


def _map_error(op, rows):
    d = ds.NumpySlicesDataset(rows, column_names=["c"], shuffle=False).map(operations=op, input_columns=["c"])
    with pytest.raises(RuntimeError) as info:
        for _ in d.create_tuple_iterator(output_numpy=True):
            pass
    return str(info.value)


def test_builtin_op_error_in_map_is_a_pipeline_error():
    msg = _map_error(text.ToNumber(mstype.int8), [["137"]])
    assert msg.startswith("Exception thrown from dataset pipeline. Refer to 'Dataset Pipeline Error Message'.")
    assert ("[ERROR] map operation: [ToNumber] failed. ToNumber: string input 137 will be out of bounds if cast to "
            "int8. The valid range is: [-128, 127].") in msg
    assert "Python Call Stack" not in msg


def test_user_function_error_in_map_keeps_its_traceback():
    def boom(x):
        raise ValueError("boom")
    msg = _map_error(boom, [[1]])
    assert msg.startswith("Exception thrown from user defined Python function in dataset.")
    assert "map operation: [PyFunc] failed. Error description:" in msg and "ValueError: boom" in msg


def test_eager_builtin_op_input_rules():
    op = text.ToNumber(mstype.int8)
    with pytest.raises(RuntimeError, match="The op is OneToOne, can only accept one tensor as input."):
        op(["1"], ["2"])
    with pytest.raises(TypeError, match=r"Invalid user input. Got <class 'list'>: \[\['1', None\]\], cannot be "
                                        r"converted into tensor."):
        op([["1", None]])
    with pytest.raises(RuntimeError) as info:
        op(np.array(["300"]))
    assert str(info.value).startswith("Exception thrown from dataset pipeline.")
    assert "ToNumber: string input 300 will be out of bounds if cast to int8" in str(info.value)


@pytest.mark.parametrize("dtype, s, want", [
    (mstype.int8, "-1", -1), (mstype.int8, "1e40", 1), (mstype.int8, " 12abc", 12), (mstype.int8, "0x10", 0),
    (mstype.uint8, "1.5", 1), (mstype.int64, "-1e40", -1), (mstype.float16, "0x10", 16.0),
    (mstype.float32, "12abc", 12.0), (mstype.float64, "1e-50", 1e-50), (mstype.float32, "99999999999999999999", 1e20),
])
def test_to_number_reads_the_leading_number(dtype, s, want):
    out = text.ToNumber(dtype)(np.array([s]))
    assert out.dtype == np.dtype(mstype.dtype_to_nptype(dtype))
    np.testing.assert_allclose(out.astype(np.float64), [want], rtol=1e-6)


@pytest.mark.parametrize("dtype, s, msg", [
    (mstype.int32, "a8f", 'ToNumber: it is invalid to convert "a8f" to a number.'),
    (mstype.uint8, "nan", 'ToNumber: It is invalid to convert "nan" to an unsigned integer.'),
    (mstype.uint64, "-1", "string input -1 will be out of bounds if cast to uint64. The valid range is: "
                          "[0, 18446744073709551615]."),
    (mstype.int16, "40000", "string input 40000 will be out of bounds if cast to int16. The valid range is: "
                            "[-32768, 32767]."),
    (mstype.float32, "1e40", "string input 1e40 will be out of bounds if cast to float32. The valid range is: "
                             "[-340282346638528859811704183484516925440.000000, "
                             "340282346638528859811704183484516925440.000000]."),
    (mstype.float32, "1e-50", "string input 1e-50 will be out of bounds if cast to float32."),
    (mstype.float64, "inf", "string input inf will be out of bounds if cast to float64."),
    (mstype.float16, "1e5", "ToFloat16: value 100000.000000in input data is outside of valid float16 range "
                            "[65504.000000, -65504.000000]."),
])
def test_to_number_errors(dtype, s, msg):
    with pytest.raises(RuntimeError) as info:
        text.ToNumber(dtype)(np.array([s]))
    assert msg in str(info.value)


def test_to_number_data_type_check():
    with pytest.raises(TypeError, match="data_type: Bool is not numeric data type."):
        text.ToNumber(mstype.bool_)
    with pytest.raises(TypeError, match="Argument data_type with value"):
        text.ToNumber(np.int32)
