"""MindSpore's `mindspore.parallel._cost_model_context`: the settings of the auto-parallel strategy search's cost
model (memory capacity, the alpha/beta/gamma cost weights, communication thresholds, the all-reduce fusion
parameters), whether a graph holds several subgraphs, the recursive-programming search's matmul memory coefficient
and whether the dynamic-programming search runs a single loop.

Model code (mindformers' parallel configuration) sets these before building a network; they are held here with
MindSpore's defaults and checks and read back through the getters."""
import threading

__all__ = ["set_cost_model_context", "get_cost_model_context", "reset_cost_model_context", "cost_model_context"]

# name: (default, type the value is converted to); MindSpore holds the floats in single precision
_DEFAULTS = {
    "device_memory_capacity": (17179869184.0, float), "costmodel_alpha": (1.0, float),
    "costmodel_beta": (400.0, float), "costmodel_gamma": (0.001, float),
    "costmodel_communi_threshold": (2048.0, float), "costmodel_communi_const": (3072.0, float),
    "costmodel_communi_bias": (1024.0, float), "run_phase": (0, int),
    "costmodel_allreduce_fusion_algorithm": (0, int), "costmodel_allreduce_fusion_times": (0, int),
    "costmodel_allreduce_fusion_tail_percent": (0.1, float), "costmodel_allreduce_fusion_tail_time": (0.1, float),
    "costmodel_allreduce_fusion_allreduce_inherent_time": (0.1, float),
    "costmodel_allreduce_fusion_allreduce_bandwidth": (0.1, float),
    "costmodel_allreduce_fusion_computation_time_parameter": (0.1, float),
    "multi_subgraphs": (False, bool), "rp_matmul_mem_coef": (0.1, float), "dp_algo_single_loop": (False, bool),
}


class _CostModelContext:
    """The process's cost-model settings (one instance, as MindSpore's singleton)."""
    _instance = None
    _lock = threading.Lock()

    def __new__(cls):
        with cls._lock:
            if cls._instance is None:
                cls._instance = super().__new__(cls)
                cls._instance.values = {k: d for k, (d, _) in _DEFAULTS.items()}
        return cls._instance

    def set(self, key, value):
        if key not in _DEFAULTS:
            raise ValueError(f"Set context keyword {key} is not recognized!")
        kind = _DEFAULTS[key][1]
        if kind is bool and not isinstance(value, bool) or isinstance(value, bool) and kind is not bool \
                or not isinstance(value, (int, float)):
            raise TypeError(f"For 'set_{key}', the argument '{key}' must be {kind.__name__}, "
                            f"but got {type(value).__name__}.")
        if key == "run_phase" and value not in (0, 1):
            raise ValueError(f"For 'set_run_phase', the argument 'phase' must be '0' or '1', but got {value}")
        self.values[key] = kind(value)

    def get(self, key):
        if key not in _DEFAULTS:
            raise ValueError(f"Get context keyword {key} is not recognized!")
        return self.values[key]

    def reset(self):
        self.values = {k: d for k, (d, _) in _DEFAULTS.items()}


def cost_model_context():
    """The cost-model context of this process."""
    return _CostModelContext()


def set_cost_model_context(**kwargs):
    """Set cost-model settings by name (`ValueError` for a name MindSpore does not have)."""
    for key, value in kwargs.items():
        if key in ("multi_subgraphs", "rp_matmul_mem_coef", "dp_algo_single_loop"):
            raise ValueError(f"Set context keyword {key} is not recognized!")
        cost_model_context().set(key, value)


def get_cost_model_context(attr_key):
    if attr_key in ("multi_subgraphs", "rp_matmul_mem_coef", "dp_algo_single_loop"):
        raise ValueError(f"Get context keyword {attr_key} is not recognized!")
    return cost_model_context().get(attr_key)


def reset_cost_model_context():
    """Every setting back to its default."""
    cost_model_context().reset()


def _set_multi_subgraphs(multi_subgraph=True):
    cost_model_context().set("multi_subgraphs", bool(multi_subgraph))


def _get_multi_subgraphs():
    return cost_model_context().get("multi_subgraphs")


def _set_rp_matmul_mem_coef(coef):
    cost_model_context().set("rp_matmul_mem_coef", coef)


def _get_rp_matmul_mem_coef():
    return cost_model_context().get("rp_matmul_mem_coef")


def _set_algo_single_loop(single_loop=True):
    cost_model_context().set("dp_algo_single_loop", single_loop)


def _get_algo_single_loop():
    return cost_model_context().get("dp_algo_single_loop")
