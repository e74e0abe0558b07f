"""mindspore.log: levels from GLOG_v, MindSpore's record layout, the caller's file and line."""
import subprocess
import sys

import pytest

from mindseed import log


def _run(code, level):
    env = {"GLOG_v": level, "PYTHONPATH": ":".join(sys.path)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def test_level_and_config_follow_glog_v(monkeypatch):
    monkeypatch.setenv("GLOG_v", "1")
    monkeypatch.setenv("GLOG_log_dir", "/tmp/x")
    assert log.get_level() == "1"
    assert log.get_log_config() == {"GLOG_v": "1", "GLOG_logtostderr": "1", "GLOG_log_dir": "/tmp/x"}
    monkeypatch.setenv("GLOG_v", "7")
    with pytest.raises(ValueError, match="desired log level: 4-CRITICAL, 3-ERROR, 2-WARNING, 1-INFO, 0-DEBUG"):
        log.get_level()


def test_records_show_level_and_the_callers_line():
    code = "from mindseed import log\nlog.info('lr %s', 0.1)\nlog.warning('careful %d', 3)\n"
    err = _run(code, "2").stderr
    assert "lr 0.1" not in err
    line = next(x for x in err.splitlines() if "careful 3" in x)
    assert line.startswith("[WARNING] ME(") and "[<string>:3] careful 3" in line
    assert "[INFO]" in _run(code, "1").stderr
