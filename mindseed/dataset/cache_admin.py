"""The cache server's command line, as MindSpore's ``cache_admin`` / ``dataset-cache``:

    python -m mindseed.dataset.cache_admin --start [-h HOST] [-p PORT] [-s SPILL_DIR]
    python -m mindseed.dataset.cache_admin -g [-p PORT]            # new session, prints its id
    python -m mindseed.dataset.cache_admin -d SESSION_ID [-p PORT]
    python -m mindseed.dataset.cache_admin --list_sessions [-p PORT]
    python -m mindseed.dataset.cache_admin --stop [-p PORT]

The server is a detached process (its own session) listening on HOST:PORT (default 127.0.0.1:50052).
"""
import argparse
import os
import socket
import subprocess
import sys
import time

from mindseed.dataset import _cache_server as srv

__all__ = ["main", "start_server", "stop_server", "call"]


def call(host, port, header):
    """One request to the server at host:port; its JSON reply (RuntimeError when unreachable or refused)."""
    try:
        sock = socket.create_connection((host, port), timeout=30)
    except OSError:
        raise RuntimeError(f"Server on port {port} is not reachable or has been shutdown already.") from None
    with sock:
        try:
            srv.send_msg(sock, header)
            reply, _ = srv.recv_msg(sock)
        except OSError:  # (ConnectionError included) a server that is shutting down
            raise RuntimeError(f"Server on port {port} is not reachable or has been shutdown already.") from None
    if not reply.get("ok"):
        raise RuntimeError(reply.get("error", "the cache server refused the request"))
    return reply


def start_server(host=srv.DEFAULT_HOST, port=srv.DEFAULT_PORT, spill_dir=None):
    """Start the server as a detached process; its pid. RuntimeError when one already answers on the port or the
    new one cannot listen."""
    try:
        call(host, port, {"cmd": "ping"})
    except RuntimeError:
        pass
    else:
        raise RuntimeError(f"Cache server is already running on port {port}.")
    if spill_dir is not None and not os.path.isdir(spill_dir):
        raise RuntimeError(f"Spill directory {spill_dir} does not exist.")
    r, w = os.pipe()
    run = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"
    proc = subprocess.Popen([sys.executable, "-c", run, srv.__file__, host, str(port), spill_dir or "", str(w)],
                            pass_fds=(w,), start_new_session=True, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        ready = f.read(2)
    if ready != b"ok":
        err = proc.stderr.read().decode(errors="replace").strip().splitlines()
        proc.wait()
        raise RuntimeError(f"Cache server startup failed: {err[-1] if err else 'the server exited'}.")
    proc.stderr.close()
    return proc.pid


def stop_server(host=srv.DEFAULT_HOST, port=srv.DEFAULT_PORT):
    """Stop the server and wait (up to 10 s) until it no longer listens."""
    call(host, port, {"cmd": "stop"})
    for _ in range(200):
        try:
            socket.create_connection((host, port), timeout=1).close()
        except OSError:
            return
        time.sleep(0.05)


def _list(host, port):
    sessions = call(host, port, {"cmd": "list_sessions"})["sessions"]
    lines = [f"Listing sessions for server on port {port}", ""]
    if not sessions:
        return lines + ["No active sessions."]
    lines.append(f"{'Session':>12}{'Cache Id':>12}{'Mem cached':>12}{'Disk cached':>12}{'Avg cache size':>16}"
                 f"{'Numa hit':>10}")
    for s in sessions:
        if not s["caches"]:
            lines.append(f"{s['session_id']:>12}{'n/a':>12}{'n/a':>12}{'n/a':>12}{'n/a':>16}{'n/a':>10}")
        for c in s["caches"]:
            lines.append(f"{s['session_id']:>12}{c['key'][:8]:>12}{c['mem_cached']:>12}{c['disk_cached']:>12}"
                         f"{c['avg_cache_sz']:>16}{'n/a':>10}")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(prog="cache_admin", add_help=False,
                                 description="Start, stop and manage sessions of the dataset cache server.")
    ap.add_argument("--start", action="store_true")
    ap.add_argument("--stop", action="store_true")
    ap.add_argument("-h", "--hostname", default=srv.DEFAULT_HOST)
    ap.add_argument("-p", "--port", type=int, default=srv.DEFAULT_PORT)
    ap.add_argument("-g", "--generate_session", action="store_true")
    ap.add_argument("-d", "--destroy_session", type=int)
    ap.add_argument("-w", "--workers", type=int, help="accepted for compatibility")
    ap.add_argument("-s", "--spilldir")
    ap.add_argument("-l", "--loglevel", type=int, help="accepted for compatibility")
    ap.add_argument("-m", "--memory_cap_ratio", type=float, help="accepted for compatibility")
    ap.add_argument("--list_sessions", action="store_true")
    ap.add_argument("--help", action="help")
    args = ap.parse_args(argv)
    if not 1025 <= args.port <= 65535:
        ap.error(f"Port must be in range (1025..65535), got {args.port}.")
    host, port = args.hostname, args.port
    try:
        if args.start:
            pid = start_server(host, port, args.spilldir)
            print("Cache server startup completed successfully!")
            print(f"The cache server daemon has been created as process id {pid} and listening on port {port}.")
        elif args.stop:
            stop_server(host, port)
            print(f"Cache server on port {port} has been stopped successfully.")
        elif args.generate_session:
            sid = call(host, port, {"cmd": "new_session"})["session_id"]
            print(f"Session created for server on port {port}: {sid}")
        elif args.destroy_session is not None:
            call(host, port, {"cmd": "destroy_session", "session_id": args.destroy_session})
            print(f"Drop session successfully for server on port {port}")
        elif args.list_sessions:
            print("\n".join(_list(host, port)))
        else:
            ap.print_usage()
            return 2
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
