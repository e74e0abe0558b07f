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
    rec = C.get_code_extra(f)
    assert rec == C.get_code_extra(f.__code__) and rec["stat"] == "GRAPH_CALLABLE" and rec["break_count_"] == 0
    with pytest.raises(TypeError, match="'fullgraph' must be a bool"):
        PIJitCaptureContext(fullgraph=1)
    with pytest.raises(TypeError, match="get_code_extra"):
        C.get_code_extra(3)


def test_get_code_extra_records_compiles_calls_and_graph_breaks():
    def f(x):
        return x - 1

    g = ms.jit(f, capture_mode="bytecode")
    assert C.get_code_extra(f) is None              # not called yet
    g(ms.Tensor([1, 2]))
    g(ms.Tensor([3, 4]))
    rec = C.get_code_extra(g.__wrapped__)
    assert (rec["compile_count_"], rec["break_count_"], rec["code"]["call_count_"]) == (1, 0, 2)
    assert rec["code"]["phase_"].endswith("f.pi_jit")
    g(ms.Tensor([1, 2, 3]))                         # a new signature: compiled again, its code called once
    rec = C.get_code_extra(f)
    assert (rec["compile_count_"], rec["code"]["call_count_"]) == (2, 1)
    g(ms.Tensor([5, 6]))                            # the first graph again
    assert C.get_code_extra(f)["code"]["call_count_"] == 3

    def h(x):
        return ms.Tensor(x.asnumpy() + 1)          # values read in Python: runs in the interpreter

    with pytest.warns(UserWarning, match="JIT fallback"):
        assert ms.jit(h, capture_mode="bytecode")(ms.Tensor([1])).asnumpy().tolist() == [2]
    rec = C.get_code_extra(h)
    assert rec["break_count_"] == 1 and "phase_" not in rec["code"] and rec["code"]["compiled_code_"] is h.__code__

    def k(x):
        return x + 1

    ms.jit(k)(ms.Tensor([1]))                       # the AST capture keeps no record
    assert C.get_code_extra(k) is None


def test_update_pijit_default_config_records_options():
    C.update_pijit_default_config(compile_with_try=False)
    assert C.pijit_default_config()["compile_with_try"] is False


def test_creation_type_values():
    assert [(m.name, int(m)) for m in C.CreationType] == [("DEFAULT", 0), ("NO_GRAD_MODE", 1), ("MULTI_OUTPUT", 2),
                                                          ("CUSTOM_BPROP", 3)]
    assert C.CreationType(2) is C.CreationType.MULTI_OUTPUT
