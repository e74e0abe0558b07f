"""Shared tables of mindspore.rewrite."""
from . import namespace  # noqa: F401
