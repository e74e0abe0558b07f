"""mindspore.log: levels from GLOG_v, MindSpore's record layout, the caller's file and line."""
import os
import subprocess
import sys

import pytest

from mindseed import log


def _run(code, level):
    env = {"GLOG_v": level, "PYTHONPATH": ":".join(sys.path)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def _reset(monkeypatch):
    """Let the logger read the environment again (MindSpore's tests clear GLOBAL_LOGGER the same way)."""
    monkeypatch.setattr(log, "GLOBAL_LOGGER", None)


def test_level_and_config_follow_glog_v(monkeypatch):
    _reset(monkeypatch)
    monkeypatch.setenv("GLOG_v", "1")
    assert log.get_level() == "1"
    assert log.get_log_config() == {"GLOG_v": "1", "GLOG_logtostderr": "1"}
    monkeypatch.setenv("GLOG_v", "3")
    assert log.get_level() == "1"            # configured once, at the first use
    _reset(monkeypatch)
    monkeypatch.setenv("GLOG_v", "7")
    with pytest.raises(ValueError, match="desired log level: 4-CRITICAL, 3-ERROR, 2-WARNING, 1-INFO, 0-DEBUG"):
        log.get_level()
    _reset(monkeypatch)


@pytest.mark.parametrize("env", [{"GLOG_logtostderr": "6"}, {"GLOG_logtostderr": "0"},
                                 {"GLOG_logtostderr": "0", "GLOG_log_dir": "/tmp", "logger_maxBytes": "-1"},
                                 {"GLOG_logtostderr": "0", "GLOG_log_dir": "/tmp", "logger_backupCount": "x"},
                                 {"GLOG_stderrthreshold": "9"}])
def test_bad_configurations_are_refused(monkeypatch, env):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(ValueError, match="Incorrect|must be set"):
        log._verify_config(log._get_env_config())


def test_log_file_rotates_under_rank_dir(monkeypatch, tmp_path):
    """GLOG_logtostderr=0: records go to <GLOG_log_dir>/rank_<id>/logs/mindspore.log.<pid>, rotated at
    logger_maxBytes with logger_backupCount backups; get_log_config reports the file configuration."""
    _reset(monkeypatch)
    for k, v in {"GLOG_v": "1", "GLOG_logtostderr": "0", "GLOG_log_dir": str(tmp_path), "logger_maxBytes": "1000",
                 "logger_backupCount": "3", "RANK_ID": "2"}.items():
        monkeypatch.setenv(k, v)
    for i in range(60):
        log.info("test log message info %d", i)
    log_dir = tmp_path / "rank_2" / "logs"
    files = sorted(p.name for p in log_dir.iterdir())
    assert len(files) == 4 and all(f.startswith("mindspore.log.") for f in files)
    first = (log_dir / f"mindspore.log.{os.getpid()}").read_text().splitlines()[0]
    assert first.startswith("[INFO] ME(") and "test log message info" in first
    assert log.get_log_config() == {"GLOG_v": "1", "GLOG_logtostderr": "0", "GLOG_log_dir": str(log_dir),
                                    "logger_maxBytes": 1000, "logger_backupCount": 3, "GLOG_stderrthreshold": "2"}
    for handler in list(log.GLOBAL_LOGGER.handlers):
        handler.close()
        log.GLOBAL_LOGGER.removeHandler(handler)
    _reset(monkeypatch)


def test_records_show_level_and_the_callers_line():
    code = "from mindseed import log\nlog.info('lr %s', 0.1)\nlog.warning('careful %d', 3)\n"
    err = _run(code, "2").stderr
    assert "lr 0.1" not in err
    line = next(x for x in err.splitlines() if "careful 3" in x)
    assert line.startswith("[WARNING] ME(") and "[<string>:3] careful 3" in line
    assert "[INFO]" in _run(code, "1").stderr
