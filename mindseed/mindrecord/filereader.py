"""mindspore.mindrecord.filereader: `FileReader`, the reader of MindRecord files."""
from mindseed.mindrecord.filewriter import FileReader

__all__ = ["FileReader"]
