"""mindspore._c_expression's PIJit names and common._pijit_context.PIJitCaptureContext."""
import pytest

import mindseed as ms
from mindseed import _c_expression as C
from mindseed.common._pijit_context import PIJitCaptureContext


def test_pijit_capture_context_compiles_the_function():
    def f(x):
        return x * 2 + 1
    g = PIJitCaptureContext(fullgraph=True)(f)
    assert g(ms.Tensor([1.0, 2.0])).asnumpy().tolist() == [3.0, 5.0]
    assert C.get_code_extra(f) is None and C.get_code_extra(f.__code__) is None
    with pytest.raises(TypeError, match="'fullgraph' must be a bool"):
        PIJitCaptureContext(fullgraph=1)
    with pytest.raises(TypeError, match="get_code_extra"):
        C.get_code_extra(3)


def test_update_pijit_default_config_records_options():
    C.update_pijit_default_config(compile_with_try=False)
    assert C.pijit_default_config()["compile_with_try"] is False
