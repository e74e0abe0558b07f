"""mindspore.graph.symbol: `Symbol`, a dynamic dimension's constraints."""
from mindseed.common.symbol import Symbol

__all__ = ["Symbol"]
