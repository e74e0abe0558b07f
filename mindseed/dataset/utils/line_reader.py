"""LineReader: the byte offsets of a text file's lines, read once, then any line on request."""
import os
import warnings

from mindseed.dataset import _validate as V

_FORBIDDEN = set('\\/:*?"<>|`&\';')


def _check_filename(path):
    if not isinstance(path, str):
        raise TypeError(f"path: {path} is not string")
    name = os.path.basename(os.path.realpath(path))
    if set(name) & _FORBIDDEN:
        raise ValueError("filename should not contain \\/:*?\\\"<>|`&;\\'")
    if name.startswith(" ") or name.endswith(" "):
        raise ValueError("filename should not start/end with space.")


class LineReader:
    """Line-based reader of a file: the offsets of its lines are read once, so any line is then read directly.

    Args:
        filename (str): the file to read.

    Raises:
        TypeError: `filename` is not a str.
        RuntimeError: `filename` does not exist or is not a regular file.

    >>> reader = LineReader("data.csv")   # doctest: +SKIP
    >>> reader.readline(1), len(reader)   # doctest: +SKIP
    """

    def __init__(self, filename):
        self.fo_handle = None
        _check_filename(filename)
        self.filename = os.path.realpath(filename)
        if not os.path.exists(self.filename):
            raise RuntimeError(f"The input file [{filename}] does not exist.")
        if not os.path.isfile(self.filename):
            raise RuntimeError(f"The input file [{filename}] is not a regular file.")
        self.offsets = [0]
        with open(self.filename, mode="rb") as f:
            while f.readline():
                self.offsets.append(f.tell())
        self.offsets.pop()                       # the offset of the end of the file starts no line
        if not self.offsets:
            warnings.warn(f"The input file [{filename}] is empty.", stacklevel=2)

    def __getitem__(self, line):
        return self.readline(line)

    def __len__(self):
        return self.len()

    def __del__(self):
        self.close()

    def len(self):
        """The number of lines of the file."""
        return len(self.offsets)

    def readline(self, line):
        """The content of line `line` (counted from 1), without its line break.

        Raises:
            TypeError: `line` is not an int.
            ValueError: `line` is not in [1, number of lines].
        """
        if isinstance(line, bool):
            raise TypeError(f"Argument line with value {line} is not of type (<class 'int'>,), but got "
                            f"<class 'bool'>.")
        V.type_check(line, (int,), "line")
        V.check_value(line, (1, len(self.offsets)), "line")
        if self.fo_handle is None:
            self.fo_handle = open(self.filename, mode="rt")   # noqa: SIM115 -- kept open for further reads
        self.fo_handle.seek(self.offsets[line - 1])
        content = self.fo_handle.readline()
        for end in ("\r\n", "\n", "\r"):
            if content.endswith(end):
                return content[:-len(end)]
        return content

    def close(self):
        """Close the file (a later readline opens it again)."""
        if getattr(self, "fo_handle", None) is not None:
            self.fo_handle.close()
            self.fo_handle = None
