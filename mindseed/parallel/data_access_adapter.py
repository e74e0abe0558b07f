"""MindSpore's `mindspore.parallel.data_access_adapter`: the bytes of a safetensors file read the same way whether it
is a file on disk (memory-mapped, read lazily) or an in-memory `io.BytesIO` (read whole)."""
import io
import mmap
from abc import ABC, abstractmethod

__all__ = ["DataAccessAdapter", "FileDataAccessAdapter", "IODataAccessAdapter", "create_data_access_adapter"]


class DataAccessAdapter(ABC):
    """The bytes of a source (`buffer`: the opened file or the IO object) as `data_source`."""

    def __init__(self, file_source):
        self.buffer = file_source

    def close(self):  # noqa: B027  (MindSpore's default: an adapter holding nothing to release)
        """Release what the adapter holds (nothing by default)."""

    @property
    @abstractmethod
    def data_source(self):
        """The bytes (or a buffer of them) to read tensors from."""


class FileDataAccessAdapter(DataAccessAdapter):
    """A file on disk, memory-mapped (copy on write: the file is never changed)."""

    def __init__(self, filename):
        handle = open(filename, "rb")  # noqa: SIM115  (kept open for the map; `close` closes it)
        super().__init__(handle)
        self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY)

    def close(self):
        self._map.close()
        self.buffer.close()

    @property
    def data_source(self):
        return self._map


class IODataAccessAdapter(DataAccessAdapter):
    """An IO object, read whole (its position left where it was)."""

    def __init__(self, io_object):
        super().__init__(io_object)
        position = io_object.tell()
        self._data = io_object.read()
        io_object.seek(position)

    @property
    def data_source(self):
        return self._data


def create_data_access_adapter(source):
    """The adapter of `source`: a path (str) gives a `FileDataAccessAdapter`, an `io.BytesIO` an
    `IODataAccessAdapter`.

    Raises:
        TypeError: any other source.
    """
    if isinstance(source, str):
        return FileDataAccessAdapter(source)
    if isinstance(source, io.BytesIO):
        return IODataAccessAdapter(source)
    raise TypeError(f"Unsupported source type: {type(source)}. Expected str or io.BytesIO.")
