"""Failure behaviour: user errors reach the caller with their traceback; early exits and errors leave no worker
thread, process or shared memory behind, and nothing hangs (risky cases run in a subprocess with a timeout)."""
import gc
import multiprocessing
import os
import subprocess
import sys
import textwrap
import threading
import time
import uuid

import numpy as np
import pytest

import mindseed.dataset as ds

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def numbers(n=64):
    return ds.NumpySlicesDataset({"x": np.arange(n)}, shuffle=False)


def drain(d):
    return [r for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def _boom(x):
    if int(x) == 5:
        raise ZeroDivisionError("boom at five")
    return x


def _settle(baseline_threads):
    for _ in range(50):
        gc.collect()
        if threading.active_count() <= baseline_threads and not multiprocessing.active_children():
            return True
        time.sleep(0.05)
    return False


def test_generator_exception_keeps_original_traceback():
    def bad_source():
        yield (np.array(1),)
        raise ValueError("boom in gen")

    with pytest.raises(RuntimeError) as info:
        drain(ds.GeneratorDataset(bad_source, ["x"]))
    msg = str(info.value)
    assert "Exception thrown from user defined Python function in dataset" in msg
    assert "ValueError: boom in gen" in msg and "in bad_source" in msg and 'raise ValueError("boom in gen")' in msg


def test_getitem_exception_names_the_index():
    class Bad:
        def __getitem__(self, i):
            if i == 2:
                raise KeyError("no row two")
            return (np.array(i),)

        def __len__(self):
            return 4

    with pytest.raises(RuntimeError, match=r"(?s)index 2.*KeyError: 'no row two'"):
        drain(ds.GeneratorDataset(Bad(), ["x"], shuffle=False))


@pytest.mark.parametrize("workers,mp", [(1, False), (2, False), (2, True)])
def test_map_exception_with_traceback_and_no_leak(workers, mp):
    base = threading.active_count()
    d = numbers().map(_boom, input_columns="x", num_parallel_workers=workers, python_multiprocessing=mp)
    with pytest.raises(RuntimeError) as info:
        drain(d)
    msg = str(info.value)
    assert "map operation: [PyFunc] failed" in msg and "ZeroDivisionError: boom at five" in msg
    assert "in _boom" in msg and 'raise ZeroDivisionError("boom at five")' in msg
    assert _settle(base), (threading.enumerate(), multiprocessing.active_children())


def test_builtin_transform_failure_is_named():
    d = ds.NumpySlicesDataset({"b": np.array([b"not an image"])}, shuffle=False)
    with pytest.raises(RuntimeError, match=r"(?s)map operation: \[Decode\] failed.*failed to decode"):
        drain(d.map(ds.vision.Decode(), input_columns="b"))


def test_per_batch_map_and_filter_and_batch_size_errors():
    def pbm(x, info):
        raise IndexError("bad batch")

    with pytest.raises(RuntimeError, match="(?s)per_batch_map.*IndexError: bad batch"):
        drain(numbers().batch(4, per_batch_map=pbm))
    with pytest.raises(RuntimeError, match="(?s)predicate.*KeyError"):
        drain(numbers().filter(lambda x: {}[int(x)]))
    with pytest.raises(RuntimeError, match="returned 1 column"):
        drain(numbers().map(lambda x: x, input_columns="x", output_columns=["a", "b"]))


@pytest.mark.parametrize("mp", [False, True])
def test_break_early_leaves_no_workers(mp):
    base = threading.active_count()
    shm = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
    d = numbers(1000).map(lambda x: x * 2, input_columns="x", num_parallel_workers=2, python_multiprocessing=mp)
    d = d.batch(4)
    for i, _ in enumerate(d.create_tuple_iterator(num_epochs=1)):
        if i == 3:
            break
    assert _settle(base), (threading.enumerate(), multiprocessing.active_children())
    it = d.create_dict_iterator(num_epochs=1)
    next(it)
    it.stop()
    assert _settle(base)
    if shm:
        assert set(os.listdir("/dev/shm")) <= shm


def test_generator_process_workers_break_and_reuse():
    class Table:
        def __getitem__(self, i):
            return (np.full(3, i),)

        def __len__(self):
            return 500

    base = threading.active_count()
    d = ds.GeneratorDataset(Table(), ["x"], shuffle=False, num_parallel_workers=2, python_multiprocessing=True)
    got = []
    for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True):
        got.append(int(r[0][0]))
        if len(got) == 10:
            break
    assert got == list(range(10)) and _settle(base)
    assert len(drain(d)) == 500 and _settle(base)


def _run_script(body, timeout=60):
    token = f"mindseed-test-{uuid.uuid4().hex}"
    script = "import sys, os\nsys.path.insert(0, %r)\n" % ROOT + textwrap.dedent(body)
    proc = subprocess.run([sys.executable, "-c", script, token], capture_output=True, text=True, timeout=timeout)
    # no process started by the script may outlive it
    time.sleep(0.2)
    stray = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if token.encode() in f.read():
                        stray.append(pid)
            except OSError:
                pass
    return proc, stray


def test_killed_worker_open_iterators_and_exit_in_loop_never_hang():
    # one interpreter (starting one costs seconds): a worker killed mid-epoch is reported; iterators left open
    # and an exit from inside a loop with busy process workers still end the program, leaving no process behind
    proc, stray = _run_script("""
        import signal
        import numpy as np
        import mindseed.dataset as ds
        def slow(x):
            if int(x) == 40:
                os.kill(os.getpid(), signal.SIGKILL)
            return x
        d = ds.NumpySlicesDataset({"x": np.arange(10000)}, shuffle=False)
        k = d.map(slow, input_columns="x", num_parallel_workers=2, python_multiprocessing=True)
        try:
            for _ in k.create_tuple_iterator(num_epochs=1):
                pass
        except RuntimeError as e:
            print("RAISED", str(e).splitlines()[0])
        d = ds.NumpySlicesDataset({"x": np.arange(10000)}, shuffle=False)
        a = d.map(lambda x: x + 1, input_columns="x", num_parallel_workers=2, python_multiprocessing=True)
        d = ds.NumpySlicesDataset({"x": np.arange(10000)}, shuffle=False)
        b = d.map(lambda x: x + 2, input_columns="x", num_parallel_workers=2)
        ia, ib = iter(a.create_tuple_iterator()), iter(b.create_tuple_iterator())
        print("GOT", int(next(ia)[0].asnumpy()), int(next(ib)[0].asnumpy()))
        d = ds.NumpySlicesDataset({"x": np.arange(10000)}, shuffle=False)
        c = d.map(lambda x: x, input_columns="x", num_parallel_workers=2, python_multiprocessing=True).batch(8)
        for i, row in enumerate(c.create_tuple_iterator()):
            if i == 5:
                raise SystemExit(3)
    """)
    assert "RAISED Dataset worker process" in proc.stdout and "exited unexpectedly" in proc.stdout, proc.stderr
    assert "GOT 1 2" in proc.stdout, proc.stderr
    assert proc.returncode == 3, proc.stderr
    assert not stray


def test_process_workers_with_rows_larger_than_a_pipe_never_hang():
    # tasks and results far larger than a pipe buffer in both directions (a parent writing a task to a worker
    # that is itself writing a result must not deadlock); run in a subprocess so a hang fails instead of blocking
    proc, stray = _run_script("""
        import numpy as np
        import mindseed.dataset as ds
        d = ds.NumpySlicesDataset({"x": np.arange(48 * 40000, dtype=np.float64).reshape(48, 40000)}, shuffle=False)
        d = d.map(lambda x: np.repeat(x, 3) * 2, input_columns="x", num_parallel_workers=2,
                  python_multiprocessing=True).batch(8)
        total = sum(float(b[0].asnumpy().sum()) for b in d.create_tuple_iterator(num_epochs=1))
        print("SUM", total == 6.0 * sum(range(48 * 40000)))
    """, timeout=120)
    assert "SUM True" in proc.stdout, proc.stderr
    assert not stray


def _jpeg_bytes(seed=0, size=24):
    import io
    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(np.random.RandomState(seed).randint(0, 256, (size, size, 3)).astype(np.uint8)).save(buf, "JPEG")
    return buf.getvalue()


def test_missing_truncated_and_corrupt_files_are_named(tmp_path):
    folder = tmp_path / "imgs" / "a"
    folder.mkdir(parents=True)
    good = _jpeg_bytes()
    (folder / "good.jpg").write_bytes(good)
    (folder / "trunc.jpg").write_bytes(good[:len(good) // 2])
    with pytest.raises(RuntimeError, match=r"trunc\.jpg.*truncated"):
        drain(ds.ImageFolderDataset(str(tmp_path / "imgs"), decode=True, shuffle=False))
    # a file removed after the dataset was built
    d = ds.ImageFolderDataset(str(tmp_path / "imgs"), shuffle=False)
    assert d.get_dataset_size() == 2
    os.remove(str(folder / "good.jpg"))
    with pytest.raises(RuntimeError, match=r"failed to open image file: .*good\.jpg: No such file"):
        drain(d)
    for name, make in (("t.csv", lambda p: ds.CSVDataset(p, column_names=["a", "b"], shuffle=False)),
                       ("t.txt", lambda p: ds.TextFileDataset(p, shuffle=False))):
        path = tmp_path / name
        path.write_text("1,2\n3,4\n")
        d = make(str(path))
        os.remove(str(path))
        with pytest.raises(RuntimeError, match=rf"failed to open .*{name}: No such file"):
            drain(d)
    # MNIST with its label file missing; CIFAR-10 with a partial record
    import struct
    mn = tmp_path / "mnist"
    mn.mkdir()
    (mn / "train-images-idx3-ubyte").write_bytes(struct.pack(">IIII", 2051, 1, 28, 28) + bytes(784))
    with pytest.raises(RuntimeError, match="train-labels-idx1-ubyte"):
        drain(ds.MnistDataset(str(mn), usage="train"))
    c10 = tmp_path / "c10"
    c10.mkdir()
    (c10 / "data_batch_1.bin").write_bytes(bytes(3073 * 2 - 5))
    with pytest.raises(RuntimeError, match=r"data_batch_1\.bin is truncated or corrupt"):
        drain(ds.Cifar10Dataset(str(c10), usage="train"))


def test_worker_built_batches_report_errors_and_leave_nothing_behind():
    # map with a batchable tail + batch: whole batches are built in the map's worker threads
    base = threading.active_count()
    good = np.frombuffer(_jpeg_bytes(1), np.uint8)
    images = [good] * 40
    images[21] = np.frombuffer(b"not a jpeg at all", np.uint8)
    d = ds.GeneratorDataset([(x,) for x in images], ["image"], shuffle=False)
    mean, std = [120.0, 110.0, 100.0], [50.0, 60.0, 70.0]
    ops = [ds.vision.Decode(), ds.vision.RandomResizedCrop(8), ds.vision.Normalize(mean, std), ds.vision.HWC2CHW()]
    with pytest.raises(RuntimeError, match=r"(?s)map operation: \[Decode\] failed. Decode: failed to decode"):
        drain(d.map(ops, input_columns="image", num_parallel_workers=2).batch(4))
    assert _settle(base), threading.enumerate()
    ok = ds.GeneratorDataset([(good,)] * 200, ["image"], shuffle=False)
    it = ok.map(ops, input_columns="image", num_parallel_workers=2).batch(8).create_tuple_iterator(num_epochs=1)
    first = next(it)
    assert first[0].shape == (8, 3, 8, 8)
    del it
    assert _settle(base), threading.enumerate()
    # rows of different shapes: the pipeline's own error, raised unchanged
    odd = ds.GeneratorDataset([(np.frombuffer(_jpeg_bytes(2, 16 + 8 * (i % 2)), np.uint8),) for i in range(6)],
                              ["image"], shuffle=False)
    with pytest.raises(RuntimeError, match="Cannot batch tensors with different shapes"):
        drain(odd.map([ds.vision.Decode(), ds.vision.Normalize(mean, std)], input_columns="image",
                      num_parallel_workers=2).batch(3))
    assert _settle(base), threading.enumerate()


def _our_segments():
    prefix = f"mindseed_{os.getpid()}_"
    return sorted(f for f in os.listdir("/dev/shm") if f.startswith(prefix)) if os.path.isdir("/dev/shm") else []


def _big(x):
    return np.full((300, 300), int(x), np.float32)  # 360 KB per row: results travel through shared memory


def _big_boom(x):
    if int(x) == 37:
        raise ValueError("bad row 37")
    return _big(x)


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="POSIX shared memory is not visible as /dev/shm")
@pytest.mark.parametrize("batch", [None, 4])
def test_process_workers_pass_results_through_shared_memory_and_unlink_it(batch):
    base = threading.active_count()

    def pipeline(fn=_big, n=80):
        d = numbers(n).map(fn, input_columns="x", num_parallel_workers=2, python_multiprocessing=True)
        return d.batch(batch) if batch else d

    ds.config.set_enable_shared_mem(False)
    try:
        by_pipe = drain(pipeline())
    finally:
        ds.config.set_enable_shared_mem(True)
    seen = []
    out = []
    for row in pipeline().create_tuple_iterator(num_epochs=1, output_numpy=True):
        seen += _our_segments()
        out.append(row)
    assert seen, "large results did not use shared memory"
    assert len(out) == len(by_pipe) and all(np.array_equal(a[0], b[0]) for a, b in zip(out, by_pipe))
    assert out[-1][0].reshape(-1, 300, 300)[-1, 0, 0] == 79
    # normal end, early break, an exception in a worker: no process, thread or segment is left
    assert _settle(base) and _our_segments() == []
    it = pipeline().create_tuple_iterator(num_epochs=1)
    next(it)
    next(it)
    assert _our_segments()
    del it
    assert _settle(base) and _our_segments() == []
    with pytest.raises(RuntimeError, match=r"(?s)Traceback.*bad row 37"):
        drain(pipeline(_big_boom))
    assert _settle(base), (threading.enumerate(), multiprocessing.active_children())
    assert _our_segments() == []


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="POSIX shared memory is not visible as /dev/shm")
def test_process_built_image_batches_leave_no_process_or_segment():
    # Decode + RandomResizedCrop + Normalize + HWC2CHW with workers and batch: the fused op writes whole batches
    # into shared memory in worker processes; the arrays handed out are views of those segments
    base = threading.active_count()
    good = np.frombuffer(_jpeg_bytes(3, 40), np.uint8)
    ops = [ds.vision.Decode(), ds.vision.RandomResizedCrop(16), ds.vision.RandomHorizontalFlip(),
           ds.vision.Normalize([120.0, 110.0, 100.0], [50.0, 60.0, 70.0]), ds.vision.HWC2CHW()]

    def pipeline(images):
        src = ds.GeneratorDataset([(x, np.int32(i)) for i, x in enumerate(images)], ["image", "label"], shuffle=False)
        return src.map(ops, input_columns="image", num_parallel_workers=2).batch(4)

    kept, seen = [], []
    for image, label in pipeline([good] * 30).create_tuple_iterator(num_epochs=1):
        seen += _our_segments()
        kept.append((image, label))
    assert seen and len(kept) == 8 and kept[-1][0].shape == (2, 3, 16, 16)
    assert kept[3][1].asnumpy().tolist() == [12, 13, 14, 15]
    assert _settle(base) and _our_segments() == []
    # batches outlive the pipeline (their memory stays mapped until they go) and are not overwritten
    first = kept[0][0].asnumpy().copy()
    for _ in drain(pipeline([good] * 30)):
        pass
    assert np.array_equal(kept[0][0].asnumpy(), first) and np.isfinite(first).all()
    del kept
    gc.collect()
    # early break, and a corrupt image in a worker
    it = pipeline([good] * 30).create_tuple_iterator(num_epochs=1)
    next(it)
    del it
    assert _settle(base) and _our_segments() == []
    images = [good] * 30
    images[9] = np.frombuffer(b"\xff\xd8\xff\xe0 not really a jpeg", np.uint8)
    with pytest.raises(RuntimeError, match=r"(?s)map operation: \[Decode\] failed.*failed to decode"):
        drain(pipeline(images))
    assert _settle(base), (threading.enumerate(), multiprocessing.active_children())
    assert _our_segments() == []


def test_image_batches_fall_back_to_threads_without_shared_memory_room(monkeypatch):
    import mindseed.dataset._ops as ops_mod
    good = np.frombuffer(_jpeg_bytes(5, 30), np.uint8)
    ops = [ds.vision.Decode(), ds.vision.RandomResizedCrop(12), ds.vision.Normalize([120.0], [50.0]),
           ds.vision.HWC2CHW()]

    def rows():
        ds.config.set_seed(9)
        src = ds.GeneratorDataset([(good,)] * 12, ["image"], shuffle=False)
        return drain(src.map(ops, input_columns="image", num_parallel_workers=2).batch(4))

    ref = rows()
    monkeypatch.setattr(ops_mod, "shm_room", lambda nbytes: False)
    seen = []
    monkeypatch.setattr(ops_mod, "BatchProcesses", lambda *a, **k: seen.append(a) or pytest.fail("used processes"))
    got = rows()
    assert not seen and len(got) == len(ref) == 3
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(got, ref))


def test_autotune_and_offload_refused_in_independent_mode(monkeypatch):
    # oracle (MindSpore 2.10): enabling them raises; disabling them is allowed
    monkeypatch.setenv("MS_INDEPENDENT_DATASET", "True")
    old_tune, old_offload = ds.config.get_enable_autotune(), ds.config.get_auto_offload()
    with pytest.raises(RuntimeError, match="Dataset AutoTune is not supported in Dataset Independent mode."):
        ds.config.set_enable_autotune(True)
    with pytest.raises(RuntimeError, match="Dataset Offload is not supported in Dataset Independent mode."):
        ds.config.set_auto_offload(True)
    with pytest.raises(TypeError, match="offload must be a bool dtype"):
        ds.config.set_auto_offload(1)
    ds.config.set_enable_autotune(False)
    ds.config.set_auto_offload(False)
    assert ds.config.get_enable_autotune() is False and ds.config.get_auto_offload() is False
    monkeypatch.setenv("MS_INDEPENDENT_DATASET", "False")
    ds.config.set_enable_autotune(old_tune)
    ds.config.set_auto_offload(old_offload)
