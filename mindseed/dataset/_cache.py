"""DatasetCache: rows of a pipeline node kept by a local cache server (see `cache_admin` and `_cache_server`), so a
later epoch, or another process running the same pipeline, reads them from the cache instead of recomputing them.

A node given ``cache=`` serves its rows through the cache. A random-access source (a MappableSource reading by row
id) caches each row under its id: every epoch still follows the sampler (shuffled afresh), rows already cached come
from the server and the others are read and stored. Any other node (a map, a streaming source) caches its rows in
the order of its first full epoch; once an epoch has run to its end, later epochs read that stream back from the
cache. The cache key is a digest of the node's subtree (types and plain settings), so two processes building the same
pipeline share it.
"""
import hashlib
import os
import socket
import threading

from mindseed.dataset import _cache_server as srv
from mindseed.dataset._workers import pack_rows, unpack_rows

__all__ = ["DatasetCache", "CacheStat"]

_CHUNK = 64
_SAMPLING = ("sampler", "shuffle_flag", "num_samples", "num_shards", "shard_id", "num_parallel_workers")


def _check_int(value, name, low, high):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'int'>], but got "
                        f"{type(value)}.")
    if not low <= value <= high:
        raise ValueError(f"Input {name} is not within the required interval of [{low}, {high}].")


class CacheStat:
    """Statistics of one cache: average row size in bytes, rows kept in memory, rows spilled to disk."""

    def __init__(self, avg_cache_sz=0, num_mem_cached=0, num_disk_cached=0):
        self.avg_cache_sz = avg_cache_sz
        self.num_mem_cached = num_mem_cached
        self.num_disk_cached = num_disk_cached

    def __repr__(self):
        return (f"CacheStat(avg_cache_sz={self.avg_cache_sz}, num_mem_cached={self.num_mem_cached}, "
                f"num_disk_cached={self.num_disk_cached})")


class DatasetCache:
    """A client of the dataset cache server (start it with ``python -m mindseed.dataset.cache_admin --start`` and
    create a session with ``-g``).

    Args:
        session_id (int): the session (from ``cache_admin -g``), in [0, 2**32 - 1].
        size (int, optional): MB of memory for this session's rows; ``0``: no limit. Default: ``0``.
        spilling (bool, optional): keep rows beyond `size` in a file on disk. Default: ``False``.
        hostname (str, optional): the server's host. Default: ``None`` (127.0.0.1).
        port (int, optional): the server's port, in [1025, 65535]. Default: ``None`` (50052).
        num_connections (int, optional): accepted for compatibility (one connection per process). Default: ``None``.
        prefetch_size (int, optional): rows asked for per request. Default: ``None`` (64).

    Raises:
        TypeError / ValueError: an argument has the wrong type or is out of range.
        RuntimeError: (when the pipeline runs) the server is unreachable or the session does not exist.
    """

    def __init__(self, session_id, size=0, spilling=False, hostname=None, port=None, num_connections=None,
                 prefetch_size=None):
        _check_int(session_id, "session_id", 0, 2 ** 32 - 1)
        _check_int(size, "size", 0, 2 ** 64 - 1)
        if not isinstance(spilling, bool):
            raise TypeError(f"Argument spilling with value {spilling!r} is not of type [<class 'bool'>], but got "
                            f"{type(spilling)}.")
        if hostname is not None and not isinstance(hostname, str):
            raise TypeError(f"Argument hostname with value {hostname!r} is not of type [<class 'str'>], but got "
                            f"{type(hostname)}.")
        if port is not None:
            _check_int(port, "port", 1025, 65535)
        if num_connections is not None:
            _check_int(num_connections, "num_connections", 1, 2 ** 31 - 1)
        if prefetch_size is not None:
            _check_int(prefetch_size, "prefetch_size", 1, 2 ** 31 - 1)
        self.session_id, self.size, self.spilling = session_id, size, spilling
        self.hostname, self.port = hostname, port
        self.num_connections, self.prefetch_size = num_connections, prefetch_size
        self._conn = None
        self._lock = threading.Lock()
        self._last_key = None

    def __deepcopy__(self, memo):
        return self  # every copy of a pipeline talks to the same cache

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_conn"] = None
        state["_lock"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    # ------------------------------------------------------------ wire
    def _address(self):
        return self.hostname or srv.DEFAULT_HOST, self.port or srv.DEFAULT_PORT

    def _call(self, header, payload=b""):
        header = dict(header, session_id=self.session_id, size=self.size, spilling=self.spilling)
        with self._lock:
            for attempt in (0, 1):
                if self._conn is None or self._conn[0] != os.getpid():
                    try:
                        sock = socket.create_connection(self._address(), timeout=60)
                    except OSError as e:
                        host, port = self._address()
                        raise RuntimeError(f"DatasetCache: the cache server at {host}:{port} is unreachable ({e}). "
                                           f"Make sure it is running: python -m mindseed.dataset.cache_admin "
                                           f"--start.") from None
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    self._conn = (os.getpid(), sock)
                try:
                    srv.send_msg(self._conn[1], header, payload)
                    reply, data = srv.recv_msg(self._conn[1])
                    break
                except (ConnectionError, OSError):
                    self._conn = None
                    if attempt:
                        raise RuntimeError("DatasetCache: the connection to the cache server was lost.") from None
        if not reply.get("ok"):
            raise RuntimeError(f"DatasetCache: {reply.get('error')}")
        return reply, data

    def _get(self, key, ids):
        """Rows of `ids` (None where not cached)."""
        reply, data = self._call({"cmd": "get", "key": key, "ids": [int(i) for i in ids]})
        out, off = [], 0
        for n in reply["sizes"]:
            if n < 0:
                out.append(None)
                continue
            out.append(unpack_rows(data[off:off + n])[0])
            off += n
        return out

    def _put(self, key, ids, rows):
        parts = [pack_rows([r]) for r in rows]
        self._call({"cmd": "put", "key": key, "ids": [int(i) for i in ids], "sizes": [len(p) for p in parts]},
                   b"".join(parts))

    def get_stat(self):
        """CacheStat of the last cache this client used (zeros before the pipeline ran)."""
        if self._last_key is None:
            return CacheStat()
        reply, _ = self._call({"cmd": "list_sessions"})
        for s in reply["sessions"]:
            if s["session_id"] == self.session_id:
                for c in s["caches"]:
                    if c["key"] == self._last_key:
                        return CacheStat(c["avg_cache_sz"], c["mem_cached"], c["disk_cached"])
        return CacheStat()


# ---------------------------------------------------------------------------- pipeline side
def _plain(value, depth=0):
    """A stable text of a setting: numbers, str, bytes, lists/tuples/dicts of them, and objects by their type and
    plain attributes (functions by name)."""
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_plain(v, depth + 1) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k!r}:{_plain(v, depth + 1)}" for k, v in sorted(value.items(), key=str)) + "}"
    if hasattr(value, "shape") and hasattr(value, "dtype") and hasattr(value, "tobytes"):
        return f"array{value.shape}{value.dtype}:" + hashlib.sha1(value.tobytes()).hexdigest()
    if callable(value) and hasattr(value, "__qualname__"):
        return f"{getattr(value, '__module__', '')}.{value.__qualname__}"
    if depth > 3:
        return type(value).__qualname__
    attrs = getattr(value, "__dict__", {})
    return type(value).__qualname__ + "(" + ",".join(
        f"{k}={_plain(v, depth + 1)}" for k, v in sorted(attrs.items()) if not k.startswith("_")
        and k not in ("cache", "children")) + ")"


def _subtree_key(node, skip=()):
    parts = []
    stack = [(node, skip)]
    while stack:
        n, sk = stack.pop()
        parts.append(type(n).__qualname__ + ":" + ",".join(
            f"{k}={_plain(v)}" for k, v in sorted(vars(n).items())
            if not k.startswith("_") and k not in ("cache", "children") and k not in sk))
        stack.extend((c, ()) for c in reversed(n.children))
    return hashlib.sha1("|".join(parts).encode()).hexdigest()


def _cached_rows(node, ctx):
    """`_rows` of a node with a cache (the method of the classes `attach_cache` makes)."""
    from mindseed.dataset._sources import MappableSource
    base = type(node)._uncached
    if isinstance(node, MappableSource) and base._rows is MappableSource._rows:
        return _by_id(node, base, ctx)
    return _stream(node, base, ctx)


def _by_id(node, base, ctx):
    cache = node.cache
    key = _subtree_key(node, _SAMPLING)
    cache._last_key = key
    ids = node._ids(ctx)
    step = cache.prefetch_size or _CHUNK
    for s in range(0, len(ids), step):
        chunk = ids[s:s + step]
        rows = cache._get(key, chunk)
        missing = [k for k, r in enumerate(rows) if r is None]
        if missing:
            fetched = list(base._fetch(node, [chunk[k] for k in missing]))
            for k, r in zip(missing, fetched):
                rows[k] = r
            cache._put(key, [chunk[k] for k in missing], fetched)
        yield from rows


def _stream(node, base, ctx):
    cache = node.cache
    key = _subtree_key(node)
    cache._last_key = key
    info, _ = cache._call({"cmd": "info", "key": key})
    step = cache.prefetch_size or _CHUNK
    n = info.get("complete")
    # (a complete epoch some of whose rows the server could not keep (size limit, no spilling) is recomputed)
    if n is not None and info["mem_cached"] + info["disk_cached"] >= n:
        for s in range(0, n, step):
            yield from cache._get(key, range(s, min(n, s + step)))
        return
    it = base._rows(node, ctx)
    count, pend_ids, pend = 0, [], []
    try:
        for row in it:
            pend_ids.append(count)
            pend.append(row)
            count += 1
            if len(pend) == step:
                cache._put(key, pend_ids, pend)
                pend_ids, pend = [], []
            yield row
    finally:
        it.close()
    if pend:
        cache._put(key, pend_ids, pend)
    cache._call({"cmd": "complete", "key": key, "count": count})


def _no_blocks(node):
    return False


_CLASSES = {}


def _cached_class(cls):
    """`cls` with its rows served through the node's cache (same names, so messages and checks are unchanged)."""
    if cls not in _CLASSES:
        _CLASSES[cls] = type(cls.__name__, (cls,), {"_rows": _cached_rows, "_block_ok": _no_blocks,
                                                     "_uncached": cls, "__module__": cls.__module__,
                                                     "__qualname__": cls.__qualname__, "__doc__": cls.__doc__})
    return _CLASSES[cls]


def check_cache(cache):
    if cache is not None and not isinstance(cache, DatasetCache):
        raise TypeError(f"Argument cache with value {cache!r} is not of type [<class 'DatasetCache'>], but got "
                        f"{type(cache)}.")
    return cache


def attach_cache(node, cache):
    """Serve `node`'s rows through `cache` (see the module docstring); nothing when `cache` is None."""
    node.cache = check_cache(cache)
    if cache is not None and "_uncached" not in type(node).__dict__:
        node.__class__ = _cached_class(type(node))
