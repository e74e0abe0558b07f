"""mindspore.common.file_system: the file operations checkpoints use, local unless MindIO registers."""
import importlib.util

from mindseed.common.file_system import FileSystem, _register_basic_file_system, _register_mindio_file_system


def test_register_basic_file_system_writes_and_reads_local_files(tmp_path):
    fs = FileSystem()
    fs.create, fs.create_args = None, ()
    assert _register_basic_file_system(fs) is True
    assert fs.create is open and fs.create_args == ("ab",) and fs.open is open and fs.open_args == ("rb",)
    path = tmp_path / "blob.bin"
    for chunk in (b"ab", b"cd"):
        with fs.create(path, *fs.create_args) as f:
            f.write(chunk)
    with fs.open(path, *fs.open_args) as f:
        assert f.read() == b"abcd"


def test_mindio_registers_only_when_installed():
    fs = FileSystem()
    installed = any(importlib.util.find_spec(m) is not None for m in ("mindio_acp", "mindio"))
    if not installed:
        assert _register_mindio_file_system(fs) is False
        assert fs.backend == "basic" and fs.open is open
