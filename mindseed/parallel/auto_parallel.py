"""MindSpore 2.10's `mindspore.parallel.auto_parallel.AutoParallel`: the cell wrapping a network (or a training-step
function) that configures its parallel run, in place of `set_auto_parallel_context`.

Its methods record settings; while the wrapped network runs they are the auto-parallel context (`_context_values`,
overlaid on the process's context by `common._parallel.overlaid`), so the machinery that reads the context runs as
they say, with nothing of its own:

* `nn.TrainOneStepCell` (and `Model.train`, which builds one) over a network holding an `AutoParallel` runs its steps
  as `set_auto_parallel_context` with the same settings would: sharded on a simulated world
  (`parallel._train.simulate`) or on the processes of a real run, pipelines and the parallel optimizer included;
* called itself on a world of ranks (a simulated one, or the processes after `init()`), a wrapped Cell's forward pass
  runs partitioned and returns its outputs whole; a wrapped function (MindSpore's functional training step:
  ``grad_fn`` then ``optimizer(grads)``) runs with its outermost `grad` / `value_and_grad` call partitioned (recorded,
  run sharded, the value and gradients read whole), then the rest as written (the optimizer updates the parameters
  from those gradients), as `TrainOneStepCell`'s sharded step does. In GRAPH_MODE the forward pass or the gradient
  call is partitioned from its graph (`_ir.graph_program`), else recorded as PyNative calls (an `ms.jit` step's
  code runs as PyNative calls around it).

On one device (no simulated world, no initialized communication of several processes) the network runs as it is.
"""
import json
import os

from mindseed._utils import _state
from mindseed.common import _parallel
from mindseed.common._parallel import (GlobalComm, _FUSION_DEFAULT, _check_fusion, get_auto_parallel_context, overlaid,
                                       partitioner_recording)
from mindseed.common._shard_layout import Layout
from mindseed.common.context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context
from mindseed.communication.management import _group_size, get_group_size, get_rank
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.parallel._operator_strategy import check_json_path
from mindseed.parallel._ir import graph_program
from mindseed.parallel._pipeline import execute_pipeline, record_pipeline, staged_program
from mindseed.parallel.strategy import record_execution

__all__ = ["AutoParallel"]

_MODES = ("semi_auto", "sharding_propagation", "recursive_programming")
_SCHEDULERS = ("1f1b", "gpipe", "seqpipe", "seqvpp", "seqsmartvpp", "zero_bubble_v")


def _need_str(file_path):
    if not isinstance(file_path, str):
        raise TypeError(f"the argument 'file_path' must be str, but got the type : {type(file_path)} .")


def _need_json_path(file_path):
    _need_str(file_path)
    if not os.path.isabs(file_path):
        raise KeyError("the argument 'file_path' must be an absolute path.")
    if os.path.splitext(file_path)[1] != ".json":
        raise KeyError("File type must be .json")
    check_json_path(file_path)


def _need(api, arg, value, kind, what):
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"For 'AutoParallel.{api}', the argument '{arg}' must be {what} type, but got the type : "
                        f"{type(value)}.")


class AutoParallel(Cell):
    """Wraps the top-level network (a Cell) or training-step function, configuring its parallel run.

    Args:
        network (Union[Cell, Function]): the network, or the function of one training step.
        parallel_mode (str): ``"semi_auto"`` (the strategies the operators are given), ``"sharding_propagation"``
            (the others propagated from them) or ``"recursive_programming"`` (all searched). Default: ``"semi_auto"``.

    Raises:
        ValueError: another `parallel_mode`.

    >>> import mindseed as ms
    >>> net = AutoParallel(ms.nn.Dense(2, 1))
    >>> net.pipeline(stages=2)
    >>> net.get_pipeline_stages()
    2
    """

    def __init__(self, network, parallel_mode="semi_auto"):
        super().__init__(auto_prefix=False)
        self.network = network
        if parallel_mode not in _MODES:
            raise ValueError(f"the argument 'parallel_mode' must be one of ['semi_auto', 'sharding_propagation', "
                             f"'recursive_programming'], but got the value : {parallel_mode} .")
        self._parallel_mode = parallel_mode
        self._global_rank = get_rank()
        self._device_num = get_group_size()
        self._init_param_in_compile = True
        self._load_strategy_file_path = ""
        self._save_strategy_file_path = ""
        self._only_trainable_params = True
        self._load_operator_strategy_file = ""
        self._save_operator_strategy_file = ""
        self._dataset_strategy_config = "data_parallel"
        self._full_batch = False
        self._enable_parallel_optimizer = False
        self._optimizer_weight_shard_size = -1
        self._parallel_optimizer_threshold = 64
        self._optimizer_level = "level1"
        self._gradient_accumulation_shard = False
        self._pipeline_stages = 1
        self._pipeline_result_broadcast = False
        self._pipeline_interleave = False
        self._pipeline_scheduler = "1f1b"
        self._comm_fusion_config = {}
        self._force_fp32_communication = False
        self._enable_alltoall = True
        self._parameter_broadcast = False
        self._group_ckpt_save_file = ""
        self._dump_local_norm = False
        self._dump_local_norm_path = ""
        self._dump_device_local_norm = False
        self._gradients_mean = False
        self._gradient_fp32_sync = True
        self._loss_repeated_mean = True
        self._memory_offload_config = {}
        self._transformer_opt_config = None

    # ------------------------------------------------------------------ settings (MindSpore's checks and messages)
    def no_init_parameters_in_compile(self):
        """The parameters are not initialized while the network compiles."""
        self._init_param_in_compile = False

    def load_param_strategy_file(self, file_path):
        """The strategy file of the parameters to load (trainable ones only, unless
        `disable_strategy_file_only_for_trainable_params`).

        Raises:
            TypeError: `file_path` is not a str.
        """
        _need_str(file_path)
        self._load_strategy_file_path = file_path

    def save_param_strategy_file(self, file_path):
        """Where the run writes its strategy file (each parameter's layout; a name ending in ``.json`` gives JSON).

        Raises:
            TypeError: `file_path` is not a str.
        """
        _need_str(file_path)
        self._save_strategy_file_path = file_path

    def disable_strategy_file_only_for_trainable_params(self):
        """The strategy files hold the non-trainable parameters too."""
        self._only_trainable_params = False

    def save_operator_strategy_file(self, file_path):
        """Where `sharding_propagation` saves the operators' strategies (an absolute ``.json`` path): each sharded run
        writes its forward calls' strategies (`parallel._operator_strategy`).

        Raises:
            TypeError: `file_path` is not a str.
            KeyError: a relative path, or one not ending in ``.json``.
            PermissionError: a path in a system directory.
        """
        _need_json_path(file_path)
        self._save_operator_strategy_file = file_path

    def load_operator_strategy_file(self, file_path):
        """Where `sharding_propagation` loads the operators' strategies from (an absolute ``.json`` path): the forward
        calls take them instead of searching.

        Raises:
            TypeError: `file_path` is not a str.
            KeyError: a relative path, or one not ending in ``.json``.
            PermissionError: a path in a system directory.
        """
        _need_json_path(file_path)
        self._load_operator_strategy_file = file_path

    def dataset_strategy(self, config):
        """How the inputs are cut: ``"data_parallel"`` (dim 0 over every rank, the default), ``"full_batch"`` (whole
        on every rank), or one strategy tuple (or `Layout`) per input.

        Raises:
            ValueError: None, or another str.
            TypeError: neither str nor tuple; an element neither tuple nor Layout; a strategy of non-ints.
        """
        if config is None:
            raise ValueError("dataset_strategy is none in config!")
        if isinstance(config, str):
            if config not in ("full_batch", "data_parallel"):
                raise ValueError(f"For 'AutoParallel.dataset_strategy', the argument 'config' must be 'full_batch' or "
                                 f"'data_parallel', but got the value : {config}.")
            self._full_batch = config == "full_batch"
            self._dataset_strategy_config = config
            return
        if not isinstance(config, tuple):
            raise TypeError(f"For 'AutoParallel.dataset_strategy', the argument 'config' must be str or tuple type, "
                            f"but got the type : {type(config)}.")
        for ele in config:
            if isinstance(ele, tuple):
                for dim in ele:
                    if not isinstance(dim, int):
                        raise TypeError(f"For 'AutoParallel.dataset_strategy', the element of argument 'config' must "
                                        f"be int type, but got the type : {type(dim)} .")
            elif not isinstance(ele, Layout):
                raise TypeError(f"For 'AutoParallel.dataset_strategy', the element of argument 'config' must be tuple "
                                f"or Layout, but got the type : {type(ele)} .")
        self._dataset_strategy_config = config

    def hsdp(self, shard_size=-1, threshold=64, optimizer_level="level1"):
        """The parallel optimizer: the optimizer state (level1), the gradients too (level2) and the weights too
        (level3) cut over the ranks repeating each parameter (at most `shard_size` of them; -1: all); a parameter
        smaller than `threshold` KB stays whole.

        Raises:
            ValueError: `shard_size` neither positive nor -1, `threshold` negative, another `optimizer_level`.
        """
        self._enable_parallel_optimizer = True
        if not isinstance(shard_size, int) or (shard_size <= 0 and shard_size != -1):
            raise ValueError(f"shard_size must be a positive integer or -1, but got {shard_size}.")
        self._optimizer_weight_shard_size = shard_size
        if not isinstance(threshold, int) or threshold < 0:
            raise ValueError(f"threshold must be a positive integer or 0, but got {threshold}.")
        self._parallel_optimizer_threshold = threshold
        if optimizer_level not in ("level1", "level2", "level3"):
            raise ValueError(f"Optimizer level should in ['level1', 'level2', 'level3'], but got {optimizer_level}")
        self._optimizer_level = optimizer_level

    def pipeline(self, stages=1, output_broadcast=False, interleave=False, scheduler="1f1b"):
        """Pipeline parallel over `stages` stages (the cells' ``pipeline_stage``), with `interleave`d chunks and the
        `scheduler` ``"1f1b"``, ``"gpipe"``, ``"seqpipe"``, ``"seqvpp"``, ``"seqsmartvpp"`` or ``"zero_bubble_v"``.

        Raises:
            TypeError: an argument of another type.
            ValueError: `stages` below 1, another `scheduler`.
        """
        _need("pipeline", "stages", stages, int, "int")
        if stages <= 0:
            raise ValueError(f"For 'AutoParallel.pipeline', the argument 'stages' must be larger than zero, but got "
                             f"value: {stages}.")
        _need("pipeline", "output_broadcast", output_broadcast, bool, "bool")
        _need("pipeline", "interleave", interleave, bool, "bool")
        _need("pipeline", "scheduler", scheduler, str, "str")
        if scheduler not in _SCHEDULERS:
            raise ValueError(f"For 'AutoParallel.pipeline', the argument 'scheduler' must be "
                             f"'1f1b'/'gpipe'/'seqpipe'/'seqvpp'/'seqsmartvpp'/'zero_bubble_v' , but got the value : "
                             f"{scheduler}.")
        self._pipeline_stages = stages
        self._pipeline_result_broadcast = output_broadcast
        self._pipeline_interleave = interleave
        self._pipeline_scheduler = scheduler

    def comm_fusion(self, config):
        """The fusion of the communication operators: ``{"openstate": bool, "allreduce" / "allgather" /
        "reducescatter": {"mode": ..., "config": ...}}``, as `set_auto_parallel_context(comm_fusion=...)`.

        Raises:
            TypeError: `config` is not a dict (or None).
        """
        if config is not None and not isinstance(config, dict):
            raise TypeError(f"The parameter '{config}' must be {dict}, but got {type(config)}.")
        self._comm_fusion_config = config

    def enable_fp32_communication(self):
        """AllReduce and ReduceScatter communicate in float32."""
        self._force_fp32_communication = True

    def set_group_ckpt_save_file(self, file_path):
        """Where the run writes its group information file (`restore_group_info_list` reads it).

        Raises:
            TypeError: `file_path` is not a str.
        """
        _need_str(file_path)
        self._group_ckpt_save_file = file_path

    def print_local_norm(self):
        """Print the local norms."""
        self._dump_local_norm = True

    def dump_local_norm(self, file_path):
        """Save the local norms under `file_path` (not printed).

        Raises:
            TypeError: `file_path` is not a str.
        """
        _need_str(file_path)
        self._dump_local_norm = True
        self._dump_local_norm_path = file_path

    def enable_device_local_norm(self):
        """Print the device local norms."""
        self._dump_device_local_norm = True

    def enable_gradients_mean(self):
        """The gradients are averaged after their AllReduce."""
        self._gradients_mean = True

    def disable_gradient_fp32_sync(self):
        """float16 gradients are all-reduced without a cast to float32."""
        self._gradient_fp32_sync = False

    def disable_loss_repeated_mean(self):
        """No mean in the backward pass over the ranks repeating the loss."""
        self._loss_repeated_mean = False

    def get_pipeline_stages(self):
        """The number of pipeline stages."""
        return self._pipeline_stages

    def transformer_opt(self, file_path):
        """The parallel speed-up configuration (MindSpore's ``parallel_speed_up.json``; None or '': none), recorded
        in the context's ``ascend_config["parallel_speed_up_json_path"]`` (its options schedule Ascend tasks).

        Raises:
            ValueError: a path that does not exist, or a file that is not JSON.
        """
        if file_path:
            real = os.path.realpath(file_path)
            if not os.path.exists(real):
                raise ValueError(f"For 'ascend_config', the path to parallel_speed_up_json: {real} does not exist, "
                                 f"please check whether the 'parallel_speed_up_json_path' is correct.")
            try:
                with open(real, encoding="utf-8") as f:
                    json.load(f)
            except (ValueError, OSError) as err:
                raise ValueError(f"For 'ascend_config', the file {real} of 'parallel_speed_up_json_path' is not "
                                 f"JSON: {err}") from err
            set_context(ascend_config={**get_context("ascend_config"), "parallel_speed_up_json_path": file_path})
        self._transformer_opt_config = file_path

    # ------------------------------------------------------------------ the run
    def _context_values(self):
        """{context store key: value}: the auto-parallel context these settings make (`common._parallel._values`)."""
        auto = self._parallel_mode != "semi_auto"
        config = self._dataset_strategy_config
        fusion = dict(_FUSION_DEFAULT)
        for key, item in (self._comm_fusion_config or {}).items():
            if key == "openstate":
                if not isinstance(item, bool):
                    raise TypeError(f"For 'comm_fusion', the 'openstate' must be bool, but got the type : "
                                    f"{type(item)}.")
            elif key in ("allreduce", "allgather", "reducescatter"):
                _check_fusion(key, item)
            else:
                raise KeyError(f"comm fusion type must be openstate,allreduce, allgather or reducescatter, but got "
                               f"{key}")
            fusion[key] = item
        optimizer = {}
        if self._enable_parallel_optimizer:
            optimizer = {"parallel_optimizer_threshold": self._parallel_optimizer_threshold,
                         "optimizer_level": self._optimizer_level}
        values = {
            "parallel_mode": "auto_parallel" if auto else "semi_auto_parallel",
            "auto_parallel_new_interface": True, "init_param_in_compile": self._init_param_in_compile,
            "strategy_ckpt_load_file": self._load_strategy_file_path,
            "strategy_ckpt_save_file": self._save_strategy_file_path,
            "only_trainable_params": self._only_trainable_params,
            "full_batch": self._full_batch, "dataset_strategy": None if isinstance(config, str) else config,
            "enable_parallel_optimizer": self._enable_parallel_optimizer,
            "optimizer_weight_shard_size": self._optimizer_weight_shard_size,
            "parallel_optimizer_config": optimizer,
            "pipeline_stages": self._pipeline_stages, "pipeline_result_broadcast": self._pipeline_result_broadcast,
            "pipeline_interleave": self._pipeline_interleave, "pipeline_scheduler": self._pipeline_scheduler,
            "comm_fusion": fusion, "force_fp32_communication": self._force_fp32_communication,
            "enable_alltoall": self._enable_alltoall, "parameter_broadcast": self._parameter_broadcast,
            "group_ckpt_save_file": self._group_ckpt_save_file, "dump_local_norm": self._dump_local_norm,
            "dump_local_norm_path": self._dump_local_norm_path,
            "dump_device_local_norm": self._dump_device_local_norm, "gradients_mean": self._gradients_mean,
            "gradient_fp32_sync": self._gradient_fp32_sync, "loss_repeated_mean": self._loss_repeated_mean,
            "ops_strategy_save_file": self._save_operator_strategy_file,
            "ops_strategy_load_file": self._load_operator_strategy_file,
        }
        if auto:
            values["search_mode"] = self._parallel_mode
        return values

    def __call__(self, *args, **kwargs):
        if partitioner_recording() or _state.tracing is not None:  # inside a sharded step being recorded
            return super().__call__(*args, **kwargs)
        with overlaid(self._context_values()):
            runner = _runner()
            if runner is None:  # one device: the network as it is
                return super().__call__(*args, **kwargs)
            previous, _state.mode = _state.mode, PYNATIVE_MODE
            try:
                return self._run_on(runner, args, kwargs, previous == GRAPH_MODE)
            finally:
                _state.mode = previous

    def _run_on(self, runner, args, kwargs, graph_mode=False):
        from mindseed.nn.wrap.cell_wrapper import TrainOneStepCell  # noqa: PLC0415  (the step runs itself)
        network = self.network
        if isinstance(network, TrainOneStepCell):
            return network(*args, **kwargs)
        if isinstance(network, Cell):  # a forward pass: partitioned (in its stages), its outputs read whole
            if self._pipeline_stages > 1 and any(c.__dict__.get("pipeline_stage") is not None
                                                 for _, c in network.cells_and_names()):
                return _pipelined(runner, lambda *a: network(*a, **kwargs), network, args, self._pipeline_stages,
                                  network if graph_mode else None, kwargs)
            return runner.forward(lambda *a: network(*a, **kwargs), args, graph=network if graph_mode else None,
                                  kwargs=kwargs)
        previous, _parallel.gradient_runner = _parallel.gradient_runner, _GradientRunner(runner, graph_mode)
        try:  # a training-step function: its gradient call partitioned, the rest as written
            return network(*args, **kwargs)
        finally:
            _parallel.gradient_runner = previous

    def construct(self, *args, **kwargs):
        return self.network(*args, **kwargs)


class _GradientRunner:
    """What a gradient call inside an `AutoParallel` function runs through (`common._parallel.gradient_runner`):
    with ``pipeline_stages`` above 1 and an `nn.PipelineCell` holding the call's weights (the latest made), the call
    runs in stages as `TrainOneStepCell`'s pipelines do (`_pipeline`); else partitioned on the whole world
    (`runner.forward`: in GRAPH_MODE from the graph of the gradient function `graph` called with `kwargs`)."""

    def __init__(self, runner, graph_mode=False):
        self.runner, self.graph_mode = runner, graph_mode

    def gradients(self, fn, args, weights, graph=None, kwargs=None):
        stages = get_auto_parallel_context("pipeline_stages")
        cell = _pipeline_of(weights) if stages > 1 else None
        if cell is None:
            return self.runner.forward(fn, args, graph=graph if self.graph_mode else None, kwargs=kwargs)
        return _pipelined(self.runner, fn, cell, args, stages, graph if self.graph_mode else None, kwargs)


def _pipelined(runner, fn, network, args, stages, graph=None, kwargs=None):
    """`fn(*args)` recorded with `network`'s cells in their pipeline stages (`record_pipeline`; in GRAPH_MODE, `graph`
    given: the graph of `graph(*args, **kwargs)` staged by its calls' cell scopes, `staged_program`), run in `stages`
    stages of the world (`execute_pipeline`, the context's scheduler), its outputs read whole."""
    from mindseed.parallel import _train  # noqa: PLC0415  (imports the whole partitioner)
    runner = getattr(runner, "runner", runner)
    world = runner.world
    n = world.size
    processes = world.ranks != range(n)
    if processes:  # each process gave its slice of the batch among its stage's ranks
        args = _train.global_inputs(args, world.stage(stages))
    previous, _state.mode = _state.mode, PYNATIVE_MODE
    try:
        program = None
        if graph is not None:
            program, why = graph_program(graph, args, kwargs)
            if program is None:
                runner.fallbacks.append(why)
        program = record_pipeline(fn, network, *args) if program is None else staged_program(program, network)
        ex = execute_pipeline(program, stages, n, _train.dataset_layouts(args, n // stages),
                              get_auto_parallel_context("pipeline_scheduler"),
                              get_auto_parallel_context("pipeline_interleave"), world if processes else None)
    finally:
        _state.mode = previous
    runner.executions.append(ex)
    record_execution(ex, world)
    made = set().union(*(s._executor.env for s in ex.stages))

    def read(t):
        if isinstance(t, (tuple, list)):
            return type(t)(read(r) for r in t)
        if not isinstance(t, Tensor) or id(t) not in made:
            return t
        return Tensor(ex.whole(t), t.dtype)
    return read(program.result)


def _pipeline_of(weights):
    """The latest `nn.PipelineCell` whose parameters hold every one of `weights`, or None."""
    if weights is None:
        return None
    wanted = {id(w) for w in (weights if isinstance(weights, (list, tuple)) else [weights])}
    for ref in reversed(_parallel.pipeline_cells):
        cell = ref()
        if cell is not None and wanted <= {id(p) for p in cell.get_parameters()}:
            return cell
    return None


class _ProcessForward:
    """`forward` of the runner of a real run's processes: each process gives its rank's slices of the batch (under
    the ``dataset_strategy``), gathered into the global batch the run records (`_train.global_inputs`)."""

    def __init__(self, runner):
        self.runner = runner

    def forward(self, fn, args, graph=None, kwargs=None):
        from mindseed.parallel._train import global_inputs  # noqa: PLC0415  (imports the whole partitioner)
        return self.runner.forward(fn, global_inputs(args, self.runner.world), graph, kwargs)


def _runner():
    """The runner of a sharded call under the context now: the simulated world's (`parallel._train.simulate`), the
    processes' after `init()` on several processes, or None (one device)."""
    if _parallel.simulated_training is not None:
        return _parallel.simulated_training
    if GlobalComm.INITED and _group_size(GlobalComm.WORLD_COMM_GROUP) > 1 and _parallel.process_training is not None:
        return _ProcessForward(_parallel.process_training())
    return None
