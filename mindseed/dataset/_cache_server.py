"""The dataset cache server: a local process that keeps pipeline rows for DatasetCache (standard library only, so
it starts fast and without mindseed's import; run as a script by `cache_admin --start`).

Wire format, both ways: a 4-byte little-endian header length, the JSON header, then `header["payload"]` bytes.
Requests name a command (`cmd`): ping, new_session, destroy_session, list_sessions, get, put, info, complete,
stop. Rows are opaque byte strings (the client's array codec) kept per (session, cache key, row id) in memory up to
the session's size in MB (0: no limit), and beyond it in a spill file when the client asked for spilling (else
they are not kept, and the client computes them again next time).
"""
import json
import os
import random
import socketserver
import struct
import sys
import tempfile
import threading

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 50052


def send_msg(sock, header, payload=b""):
    header = dict(header, payload=len(payload))
    text = json.dumps(header).encode()
    sock.sendall(struct.pack("<I", len(text)) + text + payload)


def _recv_exact(sock, n):
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:], n - got)
        if k == 0:
            raise ConnectionError("the cache connection closed")
        got += k
    return bytes(buf)


def recv_msg(sock):
    (n,) = struct.unpack("<I", _recv_exact(sock, 4))
    header = json.loads(_recv_exact(sock, n))
    return header, _recv_exact(sock, header.get("payload", 0))


class _Cache:
    """The rows of one cache key in one session."""

    def __init__(self):
        self.mem = {}        # row id -> bytes
        self.disk = {}       # row id -> (offset, length) in the session's spill file
        self.complete = None  # row count once a whole epoch is in


class _Session:
    def __init__(self, spill_dir):
        self.caches = {}
        self.size_limit = 0  # bytes, 0 = no limit (set by the first client)
        self.spilling = False
        self.mem_bytes = 0
        self.spill_dir = spill_dir
        self.spill = None

    def put(self, cache, rid, data):
        if rid in cache.mem or rid in cache.disk:
            return
        if not self.size_limit or self.mem_bytes + len(data) <= self.size_limit:
            cache.mem[rid] = data
            self.mem_bytes += len(data)
        elif self.spilling:
            if self.spill is None:
                self.spill = tempfile.TemporaryFile(dir=self.spill_dir)
            self.spill.seek(0, os.SEEK_END)
            cache.disk[rid] = (self.spill.tell(), len(data))
            self.spill.write(data)

    def get(self, cache, rid):
        if rid in cache.mem:
            return cache.mem[rid]
        if rid in cache.disk:
            off, n = cache.disk[rid]
            self.spill.seek(off)
            return self.spill.read(n)
        return None

    def close(self):
        if self.spill is not None:
            self.spill.close()


class _State:
    def __init__(self, spill_dir):
        self.lock = threading.Lock()
        self.sessions = {}
        self.spill_dir = spill_dir

    def session(self, header):
        sid = header.get("session_id")
        if sid not in self.sessions:
            raise KeyError(f"Session {sid} not found on the cache server: create one with `cache_admin -g` first.")
        s = self.sessions[sid]
        if header.get("size") is not None and not s.caches:
            s.size_limit = int(header["size"]) << 20
            s.spilling = bool(header.get("spilling"))
        return s

    def handle(self, h, payload):
        cmd = h.get("cmd")
        with self.lock:
            if cmd == "ping":
                return {"ok": True, "pid": os.getpid()}, b""
            if cmd == "new_session":
                sid = random.randint(1, 2 ** 31 - 1)
                while sid in self.sessions:
                    sid = random.randint(1, 2 ** 31 - 1)
                self.sessions[sid] = _Session(self.spill_dir)
                return {"ok": True, "session_id": sid}, b""
            if cmd == "destroy_session":
                s = self.session(h)
                s.close()
                del self.sessions[h["session_id"]]
                return {"ok": True}, b""
            if cmd == "list_sessions":
                out = []
                for sid, s in sorted(self.sessions.items()):
                    out.append({"session_id": sid, "caches": [
                        {"key": k, "mem_cached": len(c.mem), "disk_cached": len(c.disk),
                         "avg_cache_sz": (sum(map(len, c.mem.values())) + sum(n for _, n in c.disk.values()))
                         // max(1, len(c.mem) + len(c.disk)), "complete": c.complete}
                        for k, c in s.caches.items()]})
                return {"ok": True, "sessions": out}, b""
            s = self.session(h)
            cache = s.caches.setdefault(h["key"], _Cache())
            if cmd == "get":
                parts = [s.get(cache, rid) for rid in h["ids"]]
                return {"ok": True, "sizes": [-1 if p is None else len(p) for p in parts]}, \
                    b"".join(p for p in parts if p is not None)
            if cmd == "put":
                off = 0
                for rid, n in zip(h["ids"], h["sizes"]):
                    s.put(cache, rid, payload[off:off + n])
                    off += n
                return {"ok": True}, b""
            if cmd == "complete":
                cache.complete = int(h["count"])
                return {"ok": True}, b""
            if cmd == "info":
                return {"ok": True, "complete": cache.complete, "mem_cached": len(cache.mem),
                        "disk_cached": len(cache.disk)}, b""
        return {"ok": False, "error": f"unknown cache server command {cmd!r}"}, b""


class _Handler(socketserver.BaseRequestHandler):
    def handle(self):
        while True:
            try:
                h, payload = recv_msg(self.request)
            except (ConnectionError, OSError, ValueError):
                return
            if h.get("cmd") == "stop":
                send_msg(self.request, {"ok": True})
                threading.Thread(target=self.server.shutdown, daemon=True).start()
                return
            try:
                reply, data = self.server.state.handle(h, payload)
            except KeyError as e:
                reply, data = {"ok": False, "error": e.args[0]}, b""
            send_msg(self.request, reply, data)


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve(host, port, spill_dir, ready_fd=None):
    server = _Server((host, port), _Handler)
    server.state = _State(spill_dir)
    if ready_fd is not None:
        os.write(ready_fd, b"ok")
        os.close(ready_fd)
    try:
        server.serve_forever()
    finally:
        server.server_close()
        for s in server.state.sessions.values():
            s.close()


if __name__ == "__main__":
    # ... HOST PORT SPILL_DIR READY_FD (run through runpy, so this folder, whose _random.py would shadow the
    # standard library's, is not put on sys.path)
    host, port, spill, fd = sys.argv[-4:]
    serve(host, int(port), spill or None, int(fd))
