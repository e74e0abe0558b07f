"""mindspore.dataset.utils: `LineReader`, random access to the lines of a text file."""
from mindseed.dataset.utils.line_reader import LineReader

__all__ = ["LineReader"]
