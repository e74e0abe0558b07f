"""Properties and conversions of MindSpore dtype objects (values printed by MindSpore 2.10)."""
import pytest

import mindseed as ms

ROWS = [
    # dtype, is_floating_point, is_complex, is_signed, itemsize, to_complex (None: TypeError), to_real
    (ms.float32, True, False, True, 4, ms.complex64, ms.float32),
    (ms.float64, True, False, True, 8, ms.complex128, ms.float64),
    (ms.float16, True, False, True, 2, None, ms.float16),
    (ms.bfloat16, True, False, True, 2, ms.complex64, ms.bfloat16),
    (ms.int32, False, False, True, 4, None, ms.int32),
    (ms.uint8, False, False, False, 1, None, ms.uint8),
    (ms.bool_, False, False, False, 1, None, ms.bool_),
    (ms.complex64, False, True, True, 8, ms.complex64, ms.float32),
    (ms.complex128, False, True, True, 16, ms.complex128, ms.float64),
]


@pytest.mark.parametrize("dtype,floating,cplx,signed,size,to_c,to_r", ROWS, ids=[str(r[0]) for r in ROWS])
def test_dtype_properties(dtype, floating, cplx, signed, size, to_c, to_r):
    assert dtype.is_floating_point is floating
    assert dtype.is_complex is cplx
    assert dtype.is_signed is signed
    assert dtype.itemsize == size
    assert dtype.to_real() == to_r
    if to_c is None:
        with pytest.raises(TypeError, match="Cannot convert type .* to complex type"):
            dtype.to_complex()
    else:
        assert dtype.to_complex() == to_c
