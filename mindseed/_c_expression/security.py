"""MindSpore's `_c_expression.security`: whether the build is the security-hardened one (which drops the dump,
profiling and summary features). mindseed keeps them all."""


def enable_security():
    return False
