"""mindspore.log: MindSpore's Python logger, configured by the GLOG_* environment variables.

`GLOG_v` sets the level: 0 DEBUG, 1 INFO, 2 WARNING (default), 3 ERROR, 4 CRITICAL. Messages go to stderr in
MindSpore's layout, `[LEVEL] ME(pid:thread,process):time [file:line] message`, with the caller's file and line.
This is the logger mindseed's own modules write to ("mindseed"), so one setting governs both.

    >>> from mindseed import log as logger
    >>> logger.info("The arg(%s) is: %r", "lr", 0.1)
"""
import logging
import os
import sys

__all__ = ["debug", "info", "warning", "error", "critical", "exception", "get_level", "get_log_config"]

_LEVELS = {"0": logging.DEBUG, "1": logging.INFO, "2": logging.WARNING, "3": logging.ERROR, "4": logging.CRITICAL}
_DEFAULT_LEVEL = "2"
_CONFIG_KEYS = ("GLOG_logtostderr", "GLOG_log_dir", "logger_maxBytes", "logger_backupCount", "GLOG_stderrthreshold")
_FORMAT = "[%(levelname)s] ME(%(process)d:%(thread)d,%(processName)s):%(asctime)s [%(filename)s:%(lineno)d] %(message)s"


def _level_setting():
    value = os.environ.get("GLOG_v", _DEFAULT_LEVEL)
    if value not in _LEVELS:
        raise ValueError(f"Incorrect log level, please check the configuration of 'GLOG_v', desired log level: 4-"
                         f"CRITICAL, 3-ERROR, 2-WARNING, 1-INFO, 0-DEBUG, but got {value!r}.")
    return value


def _get_logger():
    logger = logging.getLogger("mindseed")
    if not getattr(logger, "_mindspore_configured", False):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(_FORMAT))
        logger.addHandler(handler)
        logger.propagate = False
        logger._mindspore_configured = True
    logger.setLevel(_LEVELS[_level_setting()])
    return logger


def _log(level, msg, args, kwargs):
    kwargs.setdefault("stacklevel", 3)      # the caller of debug()/info()/..., not this module
    _get_logger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    """Log `msg % args` with severity DEBUG."""
    _log(logging.DEBUG, msg, args, kwargs)


def info(msg, *args, **kwargs):
    """Log `msg % args` with severity INFO."""
    _log(logging.INFO, msg, args, kwargs)


def warning(msg, *args, **kwargs):
    """Log `msg % args` with severity WARNING."""
    _log(logging.WARNING, msg, args, kwargs)


def error(msg, *args, **kwargs):
    """Log `msg % args` with severity ERROR."""
    _log(logging.ERROR, msg, args, kwargs)


def critical(msg, *args, **kwargs):
    """Log `msg % args` with severity CRITICAL."""
    _log(logging.CRITICAL, msg, args, kwargs)


def exception(msg, *args, **kwargs):
    """Log `msg % args` with severity ERROR and the traceback being handled."""
    kwargs.setdefault("exc_info", True)
    _log(logging.ERROR, msg, args, kwargs)


def get_level():
    """The level as MindSpore spells it: '0' (DEBUG) to '4' (CRITICAL), from GLOG_v."""
    return _level_setting()


def get_log_config():
    """The logging configuration: GLOG_v and GLOG_logtostderr, and the other GLOG_*/logger_* settings made."""
    config = {"GLOG_v": _level_setting(), "GLOG_logtostderr": os.environ.get("GLOG_logtostderr", "1")}
    config.update({k: os.environ[k] for k in _CONFIG_KEYS[1:] if k in os.environ})
    return config


def parse_vlog_level(s):
    """The (low, high) verbose levels a `VLOG_v` value selects: '50' -> (50, 50), '(1,100)' -> (1, 100); None
    when unset or malformed."""
    if s is None:
        return None
    s = s.strip()
    try:
        if s.startswith("(") and s.endswith(")"):
            low, high = (int(v) for v in s[1:-1].split(","))
        else:
            low = high = int(s)
    except ValueError:
        return None
    return (low, high) if 0 < low <= high else None


def vlog_print(level, module, file, line, message):
    """Print a verbose message of `level` (an int or its str) when `VLOG_v` selects it."""
    selected = parse_vlog_level(os.environ.get("VLOG_v"))
    if selected is None or not selected[0] <= int(level) <= selected[1]:
        return
    sys.stderr.write(f"[V{int(level)}] {module}({os.getpid()}):{file}:{line}] {message}\n")
