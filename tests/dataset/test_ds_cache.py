"""DatasetCache and cache_admin: a local cache server started and stopped by the tests; later epochs and other
processes read rows from it."""
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

import mindseed.dataset as ds
from mindseed.dataset import cache_admin as ca

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "tests", "fixtures", "mindrecord")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _admin(*args):
    proc = subprocess.run([sys.executable, "-m", "mindseed.dataset.cache_admin", *args], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, PYTHONPATH=ROOT), cwd=ROOT)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    ca.start_server(port=port)
    yield port
    try:
        ca.stop_server(port=port)
    except RuntimeError:
        pass


def _session(port):
    return ca.call("127.0.0.1", port, {"cmd": "new_session"})["session_id"]


def test_cache_admin_command_line():
    port = str(_free_port())
    rc, out = _admin("--start", "-p", port)
    assert rc == 0 and "Cache server startup completed successfully!" in out and f"listening on port {port}" in out
    try:
        rc, out = _admin("--start", "-p", port)
        assert rc == 1 and f"already running on port {port}" in out
        rc, out = _admin("-g", "-p", port)
        assert rc == 0 and f"Session created for server on port {port}: " in out
        sid = int(out.strip().rsplit(" ", 1)[1])
        rc, out = _admin("--list_sessions", "-p", port)
        assert rc == 0 and str(sid) in out and "Mem cached" in out
        rc, out = _admin("-d", str(sid), "-p", port)
        assert rc == 0 and "Drop session successfully" in out
        rc, out = _admin("-d", str(sid), "-p", port)
        assert rc == 1 and f"Session {sid} not found" in out
        rc, out = _admin("--list_sessions", "-p", port)
        assert "No active sessions." in out
    finally:
        rc, out = _admin("--stop", "-p", port)
    assert rc == 0 and f"Cache server on port {port} has been stopped successfully." in out
    rc, out = _admin("--stop", "-p", port)
    assert rc == 1 and "not reachable or has been shutdown already" in out


def test_source_cache_serves_later_epochs_and_keeps_shuffling(server):
    cache = ds.DatasetCache(_session(server), port=server)
    d = ds.MindDataset(os.path.join(FIX, "alltypes.mindrecord"), shuffle=True, cache=cache)
    plain = {int(r["i32"]): r for r in ds.MindDataset(os.path.join(FIX, "alltypes.mindrecord"), shuffle=False)
             .create_dict_iterator(output_numpy=True)}
    orders = []
    it = d.create_dict_iterator(output_numpy=True, num_epochs=3)
    for _ in range(3):
        rows = list(it)
        orders.append([int(r["i32"]) for r in rows])
        for r in rows:
            for k, v in r.items():
                np.testing.assert_array_equal(v, plain[int(r["i32"])][k])
                assert v.dtype == plain[int(r["i32"])][k].dtype
    assert all(sorted(o) == sorted(plain) for o in orders)
    assert len({tuple(o) for o in orders}) > 1  # the sampler still shuffles every epoch
    stat = cache.get_stat()
    assert stat.num_mem_cached == 6 and stat.num_disk_cached == 0 and stat.avg_cache_sz > 0


def test_map_cache_runs_the_function_once(server):
    cache = ds.DatasetCache(_session(server), port=server)
    calls = []

    def double(x):
        calls.append(int(x))
        return x * 2
    d = ds.NumpySlicesDataset({"x": np.arange(20)}, shuffle=False).map(double, cache=cache)
    for _ in range(3):
        assert [int(r["x"]) for r in d.create_dict_iterator(output_numpy=True, num_epochs=1)] == list(range(0, 40, 2))
    assert sorted(calls) == list(range(20))  # epochs 2 and 3 came from the cache
    # an epoch stopped early is not taken for the whole stream
    cache2 = ds.DatasetCache(_session(server), port=server)
    d2 = ds.NumpySlicesDataset({"x": np.arange(5)}, shuffle=False).map(lambda x: x + 1, cache=cache2)
    it = d2.create_tuple_iterator(output_numpy=True, num_epochs=1)
    next(it)
    del it
    assert [int(r[0]) for r in d2.create_tuple_iterator(output_numpy=True, num_epochs=1)] == [1, 2, 3, 4, 5]


def test_second_process_reads_the_cache(server, tmp_path):
    sid = _session(server)
    marks = tmp_path / "calls"
    script = f"""
import sys
import numpy as np
import mindseed.dataset as ds
def f(x):
    with open({str(marks)!r}, "a") as m:
        m.write("x")
    return x + 100
cache = ds.DatasetCache({sid}, port={server})
d = ds.NumpySlicesDataset({{"x": np.arange(7)}}, shuffle=False).map(f, cache=cache)
print(",".join(str(int(r[0])) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)))
"""
    outs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, PYTHONPATH=ROOT))
        assert proc.returncode == 0, proc.stderr[-2000:]
        outs.append(proc.stdout.strip().splitlines()[-1])
    assert outs == ["100,101,102,103,104,105,106"] * 2
    assert marks.read_text() == "x" * 7  # the second process computed nothing


def test_size_limit_spills_or_recomputes(server):
    big = {"x": np.arange(40 * 64 * 1024, dtype=np.float32).reshape(40, 64, 1024)}  # 40 rows of 256 KB
    for spilling, on_disk in ((True, True), (False, False)):
        cache = ds.DatasetCache(_session(server), size=2, spilling=spilling, port=server)  # 2 MB
        calls = []

        def ident(x, calls=calls):
            calls.append(1)
            return x
        d = ds.NumpySlicesDataset(big, shuffle=False).map(ident, cache=cache)
        for _ in range(2):
            got = np.stack([r[0] for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)])
            np.testing.assert_array_equal(got, big["x"])
        stat = cache.get_stat()
        assert stat.num_mem_cached < 40
        assert (stat.num_disk_cached == 40 - stat.num_mem_cached) if on_disk else stat.num_disk_cached == 0
        assert len(calls) == (40 if spilling else 80)


def test_errors():
    with pytest.raises(TypeError, match="session_id"):
        ds.DatasetCache("1")
    with pytest.raises(ValueError, match="port is not within the required interval of \\[1025, 65535\\]"):
        ds.DatasetCache(1, port=80)
    with pytest.raises(TypeError, match="spilling"):
        ds.DatasetCache(1, spilling=1)
    with pytest.raises(TypeError, match="Argument cache with value 3 is not of type .*DatasetCache"):
        ds.MindDataset(os.path.join(FIX, "alltypes.mindrecord"), cache=3)
    port = _free_port()
    d = ds.MindDataset(os.path.join(FIX, "alltypes.mindrecord"), cache=ds.DatasetCache(1, port=port))
    with pytest.raises(RuntimeError, match=f"cache server at 127.0.0.1:{port} is unreachable"):
        list(d)


def test_unknown_session_is_an_error(server):
    d = ds.MindDataset(os.path.join(FIX, "alltypes.mindrecord"), cache=ds.DatasetCache(12345, port=server))
    with pytest.raises(RuntimeError, match="Session 12345 not found"):
        list(d)
