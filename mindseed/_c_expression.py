"""The few names of MindSpore's C++ extension module (`mindspore._c_expression`) that Python code outside the
framework imports: the bytecode-capture (PIJit) records and default configuration.

mindseed compiles `jit` functions from their source (every `capture_mode` takes the AST path), so no bytecode
capture runs and `get_code_extra` finds no record: it returns None, as MindSpore 2.10 does wherever PIJit does not
run (CPython 3.11 and newer). `update_pijit_default_config` keeps the options it is given.
"""
__all__ = ["get_code_extra", "update_pijit_default_config", "pijit_default_config"]

_pijit_config = {}


def get_code_extra(code):
    """The bytecode-capture record of a function or code object: always None here (see the module docstring)."""
    if not callable(code) and type(code).__name__ != "code":
        raise TypeError(f"For 'get_code_extra', the argument must be a function or a code object, but got "
                        f"{type(code).__name__}.")
    return None


def update_pijit_default_config(**kwargs):
    """Record default options of bytecode capture (e.g. ``compile_with_try=False``)."""
    _pijit_config.update(kwargs)


def pijit_default_config():
    """The options recorded by `update_pijit_default_config`, as a dict."""
    return dict(_pijit_config)
