"""What the DataLoader's modules share: its argument checks, in MindSpore's words."""

WORKER_TIME_OUT = 5


def check_type(value, name, valid_type, invalid_type=(), allow_none=False):
    if allow_none and value is None:
        return
    if not isinstance(value, valid_type) or isinstance(value, invalid_type):
        raise TypeError(f"{name} must be {valid_type}, but got: {type(value).__name__}.")


def check_positive(value, name, allow_none=False):
    if allow_none and value is None:
        return
    if value <= 0:
        raise ValueError(f"{name} must be positive, but got: {value}.")


def check_non_negative(value, name):
    if value < 0:
        raise ValueError(f"{name} must be non-negative, but got: {value}.")


def check_exclusive_args(condition, arg_name, description):
    if condition:
        raise ValueError(f"{arg_name} cannot be specified {description}.")
