"""Implementation of rewrite nodes."""
from .node import Node  # noqa: F401
