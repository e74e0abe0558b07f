"""Graph mode: Python source -> IR (parse + trace) -> passes -> generated code; see docs/compiler.md."""
from mindseed.compiler.jit import JitConfig, jit, jit_class, mutable  # noqa: F401
from mindseed._utils import _state as _st
from mindseed.compiler.opaque import opaque_call as _opaque_call
from mindseed.compiler.parse import convert as _convert

_st.convert = _convert
_st.opaque_call = _opaque_call
