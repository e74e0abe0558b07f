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


def _raises(op, x, msg):
    with pytest.raises(RuntimeError) as info:
        op(x)
    assert msg in str(info.value), str(info.value)


def test_text_ops_refuse_bytes_with_their_messages():
    b = np.array(b"/x56/x34")
    _raises(text.WhitespaceTokenizer(), b, "WhitespaceTokenizerOp: the input shape should be scalar and the input "
                                           "datatype should be string.")
    _raises(text.UnicodeCharTokenizer(), np.array(["a"]), "UnicodeCharTokenizerOp: the input shape should be scalar")
    _raises(text.BasicTokenizer(), b, "BasicTokenizer: the input should be of type string.")
    _raises(text.BasicTokenizer(), np.array([1, 2]), "BasicTokenizer: the input should be a scalar, but got a tensor "
                                                     "with rank: 1")
    _raises(text.CaseFold(), b, "CaseFold: input is not string datatype.")
    _raises(text.NormalizeUTF8(), b, "NormalizeUTF8: input is not string datatype.")
    _raises(text.RegexReplace("a", "b"), b, "RegexReplace: input is not string datatype.")
    _raises(text.FilterWikipediaXML(), b, "RegexReplace: input is not of type string.")
    _raises(text.ToNumber(mstype.int8), b, "ToNumber: input should be string datatype.")
    _raises(text.Ngram(2), np.array([b"a", b"b"]), "Ngram: input is not a 1D data with string datatype.")
    _raises(text.AddToken("x"), np.array([b"a"]), "AddToken: input tensor type should be string.")
    _raises(text.AddToken("x"), np.array("a"), "AddToken: input tensor rank should be 1 or 2.")


def test_ngram_values_and_checks():
    words = np.array(["a", "b", "c"])
    assert text.Ngram([4], ("_", 2), ("_", 2))(words).tolist() == ["_ _ a b", "_ a b c", "a b c _", "b c _ _"]
    assert text.Ngram([1, 2], ("_", 2), ("_", 2))(words).tolist() == ["a", "b", "c", "_ a", "a b", "b c", "c _"]
    assert text.Ngram([2, 3, 4])(np.array(["x", "y"])).tolist() == ["x y", "", ""]
    assert text.Ngram(2, separator="")(words).tolist() == ["ab", "bc"]
    with pytest.raises(TypeError, match=r"Argument gram\[1\] with value \[1\] is not of type \[<class 'int'>\]"):
        text.Ngram([1, [1]])
    with pytest.raises(ValueError, match="n needs to be a non-empty list of positive integers."):
        text.Ngram([])
    with pytest.raises(ValueError, match="Input gram_1 must be greater than 0."):
        text.Ngram([1, 0])
    with pytest.raises(ValueError, match="padding width need to be positive numbers."):
        text.Ngram(1, ("s", -1))
    with pytest.raises(ValueError, match=r"right_pad needs to be a tuple of \(str, int\)"):
        text.Ngram(1, right_pad=("s", "x"))


def test_sliding_window_truncate_add_token():
    sw = text.SlidingWindow(2, -1)
    np.testing.assert_array_equal(sw(np.array([1, 2, 3])), [[1, 2], [2, 3]])
    out = text.SlidingWindow(5)(np.array(["a", "b"]))
    assert out.shape == (0,) and out.dtype.kind == "U"
    _raises(text.SlidingWindow(2), np.array([[1, 2, 3]]), "SlidingWindow: SlidingWindow supports 1D input only for "
                                                          "now, but got 2D.")
    _raises(text.SlidingWindow(2, 1), np.array([1, 2]), "The parameter axis supports 0 or -1 only for now, but got 1.")
    with pytest.raises(TypeError, match="Argument axis with value 0 is not of type"):
        text.SlidingWindow(1, "0")
    np.testing.assert_array_equal(text.Truncate(2)(np.array([[1, 2, 3], [4, 5, 6]])), [[1, 2], [4, 5]])
    np.testing.assert_array_equal(text.Truncate(2)(np.array([True, False, True])), [True, False])
    _raises(text.Truncate(2), np.array([[[1, 2]]]), "Truncate: the input tensor should be of dimension 1 or 2.")
    _raises(text.Truncate(2), np.array([b"a", b"b"]), "the input tensor should be in type of [bool, int, float, "
                                                      "double, string].")
    with pytest.raises(TypeError, match=r"Argument max_seq_len with value a is not of type \[<class 'int'>\], but "
                                        r"got <class 'str'>."):
        text.Truncate("a")
    assert text.AddToken("x", begin=False)(np.array([["a", "b"], ["c", "d"]])).tolist() == [["a", "b", "x"],
                                                                                             ["c", "d", "x"]]
    assert text.AddToken("x")(np.array(["a"])).tolist() == ["x", "a"]
    with pytest.raises(TypeError, match=r"Argument token with value 1.0 is not of type \[<class 'str'>\], but got "
                                        r"<class 'float'>."):
        text.AddToken(1.0)
    with pytest.raises(TypeError, match="Argument begin with value 1 is not of type"):
        text.AddToken("x", 1)


def test_concatenate_checks_and_types():
    import mindseed.dataset.transforms as T
    with pytest.raises(ValueError, match="only 1D concatenation supported."):
        T.Concatenate(2)
    with pytest.raises(ValueError, match="can only prepend 1D arrays."):
        T.Concatenate(0, np.array([["a"]]))
    with pytest.raises(TypeError, match=r"Argument prepend with value \[1, 2\] is not of type \[<class "
                                        r"'numpy.ndarray'>\]"):
        T.Concatenate(0, [1, 2])
    np.testing.assert_array_equal(T.Concatenate(-1, np.array([1.5]), np.array([9.0]))(np.array([2.0, 3.0])),
                                  [1.5, 2.0, 3.0, 9.0])
    assert T.Concatenate(0, np.array([b"ab"]))(np.array([b"b"])).tolist() == [b"ab", b"b"]
    _raises(T.Concatenate(0, np.array([1, 2])), np.array([1.5]), "Concatenate: input datatype does not match the "
            "prepend datatype, got input datatype: float64, prepend datatype:int64")
    _raises(T.Concatenate(0, None, np.array(["a"])), np.array([b"b"]), "does not match the append datatype, got "
            "input datatype: bytes, append datatype:string")
    _raises(T.Concatenate(0), np.array([[1.0]]), "Concatenate: only 1D input supported, got rank of input: 2")
    with pytest.raises(RuntimeError, match="Concatenate: inconsistent datatype of input."):
        T.Concatenate(0)(np.array([1.0]), np.array([2]))


def test_fill_mask_pad_end_cast_the_value_to_the_input_type():
    import mindseed.dataset.transforms as T
    np.testing.assert_array_equal(T.Fill(300)(np.array([1, 2], np.uint8)), np.array([44, 44], np.uint8))
    np.testing.assert_array_equal(T.Fill(2.7)(np.array([1, 2])), [2, 2])
    assert T.Fill(b"abc")(np.array([b"a", b"b"])).tolist() == [b"abc", b"abc"]
    _raises(T.Fill("abc"), np.array([b"a"]), "Fill: fill_value and the input tensor must be of the same data type "
            "when involving strings or bytes, but got fill_value data type string and input tensor data type bytes")
    np.testing.assert_array_equal(T.Mask(T.Relational.EQ, 3.5)(np.array([1, 2, 3, 4])), [False, False, True, False])
    np.testing.assert_array_equal(T.Mask(T.Relational.EQ, -1)(np.array([255, 1], np.uint8)), [True, False])
    np.testing.assert_array_equal(T.Mask(T.Relational.EQ, "a")(np.array([b"a", b"b"])), [True, False])
    np.testing.assert_array_equal(T.Mask(T.Relational.GE, 2, mstype.int32)(np.array([1, 2])), [0, 1])
    _raises(T.Mask(T.Relational.EQ, 3), np.array(["a"]), "Mask: input datatype does not match the value datatype, "
            "both should be numeric or non-numerical in the same time.")
    _raises(T.Mask(T.Relational.EQ, "a", mstype.string), np.array(["a"]), "Mask: Only supports bool or numeric "
            "datatype for generated mask type, but got:string")
    np.testing.assert_array_equal(T.PadEnd([3], 2.5)(np.array([1, 2])), [1, 2, 2])
    np.testing.assert_array_equal(T.PadEnd([None, 3])(np.array([[1, 2], [3, 4]])), [[1, 2, 0], [3, 4, 0]])
    assert T.PadEnd([3])(np.array([b"a"])).tolist() == [b"a", b"", b""]
    _raises(T.PadEnd([3], "-1"), np.array([1, 2]), "PadEnd: can not pad numeric and string tensors together, but "
            "got: string and int64.")
    _raises(T.PadEnd([3], b"x"), np.array(["a"]), "PadEnd: can not pad string and byte tensors together, but got: "
            "bytes and string.")
    _raises(T.PadEnd([2, 3]), np.array([1, 2]), "PadEnd: invalid pad shape, as rank of input is: 1, and rank of "
            "pad value: 2")
    with pytest.raises(TypeError, match="a value in the list is not an integer."):
        T.PadEnd([1.5])
    with pytest.raises(ValueError, match=r"Input is not within the required interval of \[1, 9223372036854775807\]"):
        T.PadEnd([0])


def test_slice_options():
    import mindseed.dataset.transforms as T
    a = np.array([1, 2, 3, 4, 5])
    for whole in (None, Ellipsis, True):
        np.testing.assert_array_equal(T.Slice(whole)(a), a)
    np.testing.assert_array_equal(T.Slice(-5)(a), [1])
    np.testing.assert_array_equal(T.Slice([-1, 1, 1])(a), [5, 2, 2])
    np.testing.assert_array_equal(T.Slice(1, 1)(np.array([[1, 2], [3, 4]])), [[4]])
    np.testing.assert_array_equal(T.Slice(True, [0, 0, 1])(np.array([[1, 2], [3, 4]])), [[1, 1, 2], [3, 3, 4]])
    _raises(T.Slice(5), a, "Index 5 is out of bounds.")
    _raises(T.Slice(-6), a, "Index -1 is out of bounds.")
    _raises(T.Slice([]), a, "Both indices and slices can not be empty.")
    _raises(T.Slice(False), a, "Both indices and slices can not be empty.")
    _raises(T.Slice(1, 1, 1), np.array([[1, 2]]), "Invalid shape, should be greater than slices index.")
    with pytest.raises(TypeError, match=r"Argument slice\[0\] with value True is not of type \(<class 'int'>,\)"):
        T.Slice([True, False])
    with pytest.raises(TypeError, match=r"Argument slice_option\[0\] with value \[0, 1\] is not of type "
                                        r"\[<class 'int'>\]"):
        T.Slice([[0, 1]])


def test_pipeline_errors_name_the_source_line_that_found_them():
    def gen():
        yield (np.ones(2),)
        yield (np.ones((2, 3)),)
    d = ds.GeneratorDataset(gen, ["x"], shuffle=False).batch(2)
    with pytest.raises(RuntimeError) as info:
        list(d.create_tuple_iterator(num_epochs=1))
    msg = str(info.value)
    assert msg.startswith("Exception thrown from dataset pipeline.") and "Python Call Stack" not in msg
    assert "- C++ Call Stack: (For framework developers) \n" in msg
    assert msg.rstrip().endswith(").") and "mindseed/dataset/" in msg.split("For framework developers")[1]
    with pytest.raises(RuntimeError) as info:
        text.ToNumber(mstype.int8)(np.array(["300"]))
    assert "mindseed/dataset/text/_transforms.py(" in str(info.value)


def test_crop_larger_than_image_is_a_shape_error():
    # oracle (MindSpore 2.10): RandomCrop's status is a shape mismatch, Crop's an unexpected error
    import mindseed.dataset.vision as vision
    with pytest.raises(RuntimeError) as info:
        vision.RandomCrop((8, 8))(np.ones((5, 5, 3)))
    assert str(info.value).startswith("Shape is incorrect. \n")
    with pytest.raises(RuntimeError) as info:
        vision.Crop((0, 0), (8, 8))(np.ones((5, 5, 3)))
    assert str(info.value).startswith("Exception thrown from dataset pipeline.")
    for workers in (1, 2):
        data = ds.GeneratorDataset(lambda: iter([(np.ones((10, 10, 3)),), (np.ones((5, 5, 3)),)]), ["image"],
                                   shuffle=False)
        data = data.map(vision.RandomCrop((8, 8)), input_columns=["image"], num_parallel_workers=workers)
        with pytest.raises(RuntimeError) as info:
            list(data.create_tuple_iterator(output_numpy=True))
        text = str(info.value)
        assert text.startswith("Shape is incorrect. \n") and "map operation: [RandomCrop] failed." in text
        assert "Python Call Stack" not in text
