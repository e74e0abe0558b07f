"""mindspore.log: MindSpore's Python logger, configured by the GLOG_* environment variables.

`GLOG_v` sets the level: 0 DEBUG, 1 INFO, 2 WARNING (default), 3 ERROR, 4 CRITICAL. Messages go to stderr in
MindSpore's layout, `[LEVEL] ME(pid:thread,process):time [file:line] message`, with the caller's file and line; with
`GLOG_logtostderr=0` to the rotating file `<GLOG_log_dir>/rank_<RANK_ID>/logs/mindspore.log.<pid>` (`logger_maxBytes`,
`logger_backupCount`), those at `GLOG_stderrthreshold` and above also to stderr. The environment is read at the first
message (`GLOBAL_LOGGER` None reads it again). This is the logger mindseed's own modules write to ("mindseed"), so
one setting governs both.

    >>> from mindseed import log as logger
    >>> logger.info("The arg(%s) is: %r", "lr", 0.1)
"""
import logging
import os
import sys
import threading
from logging.handlers import RotatingFileHandler

__all__ = ["debug", "info", "warning", "error", "critical", "exception", "get_level", "get_log_config"]

_LEVELS = {"0": logging.DEBUG, "1": logging.INFO, "2": logging.WARNING, "3": logging.ERROR, "4": logging.CRITICAL}
_GLOG_OF_LEVEL = {v: k for k, v in _LEVELS.items()}
_DEFAULT_LEVEL = "2"
_MAX_BYTES, _BACKUP_COUNT = 52428800, 30          # a log file rotates at 50 MB, 30 files kept
# the configuration's keys and the environment variables that set them
_ENV = {"level": "GLOG_v", "console": "GLOG_logtostderr", "filepath": "GLOG_log_dir", "maxBytes": "logger_maxBytes",
        "backupCount": "logger_backupCount", "stderr_level": "GLOG_stderrthreshold"}
_FORMAT = "[%(levelname)s] ME(%(process)d:%(thread)d,%(processName)s):%(asctime)s [%(filename)s:%(lineno)d] %(message)s"

# the configured logger ("mindseed", which mindseed's own modules write to), set up at the first message from the
# environment as it is then; code that changes the environment sets this back to None (as MindSpore's tests do)
GLOBAL_LOGGER = None
_setup_lock = threading.Lock()


def _get_env_config():
    """The configuration the GLOG_* / logger_* environment variables give (the set, non-empty ones)."""
    return {key: os.environ[var].strip() for key, var in _ENV.items() if os.environ.get(var)}


def _verify_level(level):
    if level not in _LEVELS:
        raise ValueError(f"Incorrect log level, please check the configuration of GLOG_v or GLOG_stderrthreshold, "
                         f"desired log level: 4-CRITICAL, 3-ERROR, 2-WARNING, 1-INFO, 0-DEBUG. But got {level}.")


def _verify_config(config):
    """Raise ValueError for a configuration MindSpore refuses; create the log directory of a file configuration."""
    for key in ("level", "stderr_level"):
        if key in config:
            _verify_level(config[key])
    console = config.get("console")
    if console is None:
        return
    if console not in ("0", "1"):
        raise ValueError(f"Incorrect value, the value of GLOG_logtostderr must be 0 or 1, but got {console}.")
    if console == "0":
        if not config.get("filepath"):
            raise ValueError("When GLOG_logtostderr is set to 0, the directory of saving log GLOG_log_dir must be "
                             "set, but got it empty.")
        for key in ("maxBytes", "backupCount"):
            if key in config and not config[key].isdigit():
                raise ValueError(f"Incorrect value, the value of {_ENV[key]} must be positive integer. But got "
                                 f"{_ENV[key]}:{config[key]}.")
        os.makedirs(os.path.realpath(config["filepath"]), exist_ok=True)


def _rank_id():
    return os.environ.get("RANK_ID") or os.environ.get("OMPI_COMM_WORLD_RANK") or os.environ.get("MS_NODE_ID") or "0"


def _get_logger():
    """The configured logger: messages to stderr, or (GLOG_logtostderr=0) to the rotating file
    `<GLOG_log_dir>/rank_<id>/logs/mindspore.log.<pid>` with those of GLOG_stderrthreshold and above on stderr too."""
    global GLOBAL_LOGGER
    if GLOBAL_LOGGER is not None:
        return GLOBAL_LOGGER
    config = _get_env_config()
    _verify_config(config)
    with _setup_lock:
        if GLOBAL_LOGGER is not None:
            return GLOBAL_LOGGER
        logger = logging.getLogger("mindseed")
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.setLevel(_LEVELS[config.get("level", _DEFAULT_LEVEL)])
        logger.propagate = False
        formatter = logging.Formatter(_FORMAT)
        stderr = logging.StreamHandler(sys.stderr)
        stderr.name = "StreamHandler"
        stderr.setFormatter(formatter)
        if config.get("console", "1") == "0":
            log_dir = os.path.join(os.path.realpath(config["filepath"]), f"rank_{_rank_id()}", "logs")
            os.makedirs(log_dir, mode=0o700, exist_ok=True)
            file_handler = RotatingFileHandler(os.path.join(log_dir, f"mindspore.log.{os.getpid()}"),
                                               maxBytes=int(config.get("maxBytes", _MAX_BYTES)),
                                               backupCount=int(config.get("backupCount", _BACKUP_COUNT)),
                                               encoding="utf8")
            file_handler.name = "FileHandler"
            file_handler.setFormatter(formatter)
            logger.addHandler(file_handler)
            stderr.setLevel(_LEVELS[config.get("stderr_level", _DEFAULT_LEVEL)])
        logger.addHandler(stderr)
        GLOBAL_LOGGER = logger
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
    """The level as MindSpore spells it: '0' (DEBUG) to '4' (CRITICAL)."""
    return _GLOG_OF_LEVEL[_get_logger().getEffectiveLevel()]


def get_log_config():
    """The logging configuration in effect: GLOG_v and GLOG_logtostderr, and for a log file its directory, rotation
    size and count and the stderr threshold."""
    logger = _get_logger()
    config = {"GLOG_v": get_level(), "GLOG_logtostderr": "1"}
    handler = logger.handlers[0]
    if handler.name == "FileHandler":
        config.update({"GLOG_logtostderr": "0", "GLOG_log_dir": os.path.dirname(handler.baseFilename),
                       "logger_maxBytes": handler.maxBytes, "logger_backupCount": handler.backupCount,
                       "GLOG_stderrthreshold": _GLOG_OF_LEVEL[logger.handlers[1].level]})
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
