"""Writing a file all at once: a reader (or a crash mid-write) never sees half of it."""
import os
import tempfile


def atomic_write(path, data):
    """Write `data` (bytes, str, or an iterable of bytes chunks) to a temporary file beside `path`, flush it to disk,
    and rename it over `path`; on any error the temporary file is removed and `path` is left as it was."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            chunks = (data,) if isinstance(data, (bytes, bytearray, memoryview, str)) else data
            for chunk in chunks:
                f.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
