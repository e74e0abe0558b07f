"""mindspore.boost.boost: AutoBoost, the boost configuration (levels O0/O1/O2, or a config dict) and the network /
optimizer rewriting it implies."""
import copy
import os
import threading

from mindseed.boost.base import OptimizerProcess, ParameterProcess
from mindseed.boost.grad_freeze import GradientFreeze
from mindseed.boost.less_batch_normalization import LessBN

__all__ = ["AutoBoost"]

_boost_config_mode = ["auto", "manual", "enable_all", "disable_all"]
_ALGORITHMS = ("less_bn", "grad_freeze", "adasum", "grad_accumulation", "dim_reduce", "loss_scale_group")
_boost_config_level = {
    "O0": dict.fromkeys(_ALGORITHMS, False),
    "O1": {**dict.fromkeys(_ALGORITHMS, False), "less_bn": True, "grad_freeze": True},
    "O2": {**dict.fromkeys(_ALGORITHMS, False), "less_bn": True, "grad_freeze": True, "adasum": True},
}

# the settings a boost config dict may give (in the section of an enabled algorithm, or in "common"): the attribute
# of AutoBoost each one sets
_SETTINGS = {"fn_flag": "_fn_flag", "gc_flag": "_gc_flag", "param_groups": "_param_groups",
             "freeze_type": "_freeze_type", "freeze_p": "_freeze_p", "total_steps": "_total_steps",
             "device_number": "device_number", "gradient_split_groups": "gradient_groups",
             "grad_accumulation_step": "grad_accumulation_step", "rho": "rho", "gamma": "gamma", "alpha": "alpha",
             "sigma": "sigma", "n_components": "n_components", "pca_mat_path": "pca_mat_path",
             "weight_load_dir": "weight_load_dir", "timeout": "timeout"}


class AutoBoost:
    """The boost configuration of the process (a singleton: the first construction's level and dict hold).

    Args:
        level (str): ``'O0'`` (nothing), ``'O1'`` (LessBN, gradient freezing), ``'O2'`` (and AdaSum); any other
            value means ``'O0'``. Default: ``'O0'``.
        boost_config_dict (dict): per-algorithm settings; ``{"boost": {"mode": "auto" | "manual" | "enable_all" |
            "disable_all", <algorithm>: bool}}`` chooses the algorithms, a section per algorithm (or ``"common"``)
            sets its parameters. Default: ``''``.

    >>> import mindseed as ms
    >>> ms.boost.AutoBoost("O1").boost_config["less_bn"]
    True
    """

    _instance_lock = threading.Lock()
    _instance = None

    def __new__(cls, *args, **kwargs):
        if AutoBoost._instance is None:
            with AutoBoost._instance_lock:
                if AutoBoost._instance is None:
                    AutoBoost._instance = object.__new__(cls)
                    AutoBoost._instance.level = None
                    AutoBoost._instance.boost_config_dict = None
        return AutoBoost._instance

    def __init__(self, level="O0", boost_config_dict=""):
        if level not in _boost_config_level:
            level = "O0"
        if self._instance.level is not None:
            return
        self.level = level
        self.boost_config_dict = boost_config_dict
        self._fn_flag = True
        self._gc_flag = True
        self._param_groups = 10
        self._freeze_type = 1
        self._freeze_p = 0.7
        self._total_steps = 65536
        self.gradient_groups = None
        self.device_number = 8
        self.grad_accumulation_step = 1
        self.rho = 0.55
        self.gamma = 0.9
        self.alpha = 0.001
        self.sigma = 0.4
        self.n_components = 32
        self.pca_mat_path = None
        self.weight_load_dir = None
        self.local_pca_mat_path = None
        self.timeout = 1800
        self.boost_config = self._get_configuration(level, self.boost_config_dict)
        self._param_processer = ParameterProcess()

    def network_auto_process_train(self, network, optimizer):
        """The training network and optimizer with the configured algorithms: LessBN (with gradient
        centralization and communication-fusion groups), gradient freezing (a FreezeOpt), the AdaSum mark.

        Raises:
            ValueError: dim_reduce is on without a PCA matrix file or an existing `weight_load_dir`, as MindSpore.
            RuntimeError: dim_reduce is on: its distributed PCA update is not provided by mindseed."""
        if self.boost_config.get("dim_reduce"):
            pca = self.pca_mat_path
            if not (pca is not None and os.path.isfile(pca) and pca.endswith(".npy")):
                d = self.weight_load_dir
                if d is None or not os.path.isdir(d):
                    raise ValueError(f"The weight_load_dir: {d} is None / not exists / not directory.")
            raise RuntimeError("For 'AutoBoost', dim_reduce (DimReduce: the PCA-subspace update of a distributed job) "
                               "is not provided by mindseed; turn it off in boost_config_dict.")
        if self.boost_config.get("less_bn"):
            network = LessBN(network, fn_flag=self._fn_flag)
            optimizer_process = OptimizerProcess(optimizer)
            group_params = self._param_processer.assign_parameter_group(network.trainable_params(),
                                                                        self.gradient_groups)
            optimizer_process.origin_params = ParameterProcess.generate_group_params(
                group_params, optimizer_process.origin_params)
            if self._gc_flag:
                optimizer_process.add_grad_centralization(network)
            optimizer = optimizer_process.generate_new_optimizer()
        if self.boost_config.get("grad_freeze"):
            freeze_processer = GradientFreeze(self._param_groups, self._freeze_type, self._freeze_p,
                                              self._total_steps)
            network, optimizer = freeze_processer.freeze_generate(network, optimizer)
        if self.boost_config.get("adasum"):
            optimizer.adasum = True
        return network, optimizer

    def network_auto_process_eval(self, network):
        """The evaluation network (LessBN-marked when less_bn is on)."""
        if self.boost_config.get("dim_reduce"):
            return network
        if self.boost_config.get("less_bn"):
            network = LessBN(network)
        return network

    def _set_gradient_split_groups(self, gradient_groups):
        if not isinstance(gradient_groups, (list, int)):
            raise ValueError(f"gradient_groups `{gradient_groups}` is not in (list, int)")
        if isinstance(gradient_groups, int):
            gradient_groups = list(gradient_groups)    # MindSpore's behaviour: an int raises TypeError here
        self.gradient_groups = gradient_groups

    def _get_configuration(self, level, boost_config_dict):
        level_config = copy.copy(_boost_config_level.get(level))
        if not boost_config_dict:
            return level_config
        mode = "auto"
        if "boost" in boost_config_dict and "mode" in boost_config_dict["boost"]:
            mode = boost_config_dict["boost"]["mode"]
        if mode not in _boost_config_mode:
            raise ValueError(f"The boost mode must be in {_boost_config_mode}, but got {mode}")
        if mode == "manual":
            for key, value in boost_config_dict["boost"].items():
                if key in level_config:
                    level_config[key] = value
        elif mode == "enable_all":
            level_config = dict.fromkeys(level_config, True)
        elif mode == "disable_all":
            level_config = dict.fromkeys(level_config, False)
        self._do_new_config_func(boost_config_dict, level_config)
        return level_config

    def _do_new_config_func(self, boost_config_dict, level_config):
        """Apply the settings of the sections of enabled algorithms and of "common"."""
        for key, section in boost_config_dict.items():
            if not ((key in level_config and level_config[key]) or key == "common"):
                continue
            for name, value in section.items():
                if name == "gradient_split_groups":
                    self._set_gradient_split_groups(value)
                elif name in _SETTINGS:
                    setattr(self, _SETTINGS[name], value)
