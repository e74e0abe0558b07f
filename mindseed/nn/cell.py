"""Cell: the building block of networks, with MindSpore's parameter naming, hooks and custom bprop."""
import inspect
import re
import warnings
from collections import OrderedDict

from mindseed import log as logger
from mindseed._utils import _scope, _state
from mindseed.autograd.custom import call_with_bprop
from mindseed.compiler.jit import compile_cell_call as _compile_cell_call, trace_graph as _trace_graph
from mindseed.compiler.control import opaque_call as _opaque_call
from mindseed.compiler.parse import convert as _convert
from mindseed.compiler.trace import recompute_call as _recompute_call
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter, ParameterTuple, _Buffer, _is_parameter_generated
from mindseed.common.tensor import Tensor
from mindseed.common._parallel import abstract_recording, simulated_runner
from mindseed.common.context import get_context
from mindseed.nn._cell_buffers import CellBuffers
from mindseed.nn._cell_state_dict import CellStateDict, HookHandle
from mindseed.nn._shard import check_shard, sharding
from mindseed.ops._prims import core as P
from mindseed._utils._props import readonly
from mindseed._utils._jit_forbidden import jit_forbidden_register
from mindseed._utils.errors import GraphCallArgumentError

__all__ = ["Cell", "GraphCell"]

_profiling = _state.profiling


class _AttrTable(OrderedDict):
    """A cell's `_params` / `_cells`: each entry is also an instance attribute (plain attribute reads stay fast), so
    code that assigns an entry directly, as MindSpore's own tools do (`cell._cells[name] = new`), is seen through
    `cell.name` as in MindSpore, whose attribute reads go through these tables."""

    _attrs = None       # the owner's __dict__; an unbound table (a plain copy of one) is an ordinary OrderedDict

    @classmethod
    def of(cls, attrs):
        table = cls()
        table._attrs = attrs
        return table

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        if self._attrs is not None:
            self._attrs[key] = value

    def __delitem__(self, key):
        super().__delitem__(key)
        if self._attrs is not None:
            self._attrs.pop(key, None)


def _check_graph_kwargs(cell, args, kwargs):
    try:
        inspect.signature(cell.construct).bind(*args, **kwargs)
    except TypeError as e:
        if "keyword argument" in str(e):
            raise GraphCallArgumentError(f"For '{type(cell).__name__}.construct', Got an unexpected keyword argument: "
                                         f"{e}.") from None
    except ValueError:      # no signature to check (a builtin): the call itself reports
        pass



# MindSpore's Cell properties of pipeline parallel: (their checks' wording) -- kept as plain attributes here
_PIPELINE_ATTRS = {"pipeline_stage": "For 'Cell', the property 'pipeline_stage'",
                   "pipeline_segment": "For 'context.set_auto_parallel_context', the argument 'pipeline_stages'"}


def _check_pipeline_attr(name, value):
    what = _PIPELINE_ATTRS[name]
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be int type, but got type : {type(value)}")
    if value < 0:
        raise ValueError(f"{what} can not be less than 0, but got {value}")

class Cell(CellBuffers, CellStateDict):
    """Base class of all networks: holds child cells and Parameters and defines `construct`.

    Args:
        auto_prefix (bool): prefix the names of child parameters with their attribute path. Default: ``True``.
        flags (dict): flags of the cell (kept for MindSpore compatibility). Default: ``None``.

    >>> import mindseed as ms
    >>> class Net(ms.nn.Cell):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = ms.Parameter(ms.Tensor([2.0]), name="w")
    ...     def construct(self, x):
    ...         return x * self.w
    >>> Net()(ms.Tensor([3.0]))
    Tensor(shape=[1], dtype=Float32, value= [ 6.00000000e+00])
    """

    def __init__(self, auto_prefix=True, flags=None):
        d = self.__dict__
        d["_params"] = _AttrTable.of(d)
        d["_cells"] = _AttrTable.of(d)
        d["_buffers"] = _AttrTable.of(d)
        d["_non_persistent_buffers_set"] = set()
        d["_params_list"] = OrderedDict()
        d["_auto_prefix"] = auto_prefix
        d["_param_prefix"] = ""
        d["training"] = False
        d["requires_grad"] = False
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_cast_dtype"] = None
        if flags is not None and not isinstance(flags, dict):
            raise TypeError(f"For 'Cell', the 'flags' must be a dict, but got {type(flags).__name__}.")
        d["_flags"] = dict(flags or {})
        d["_recompute"] = False
        d["_scope"] = None           # MindSpore's name-scope attribute (a CellDict key may not shadow it)
        d["_inputs"] = None
        d["_in_strategy"] = d["_out_strategy"] = None   # Cell.shard's
        d["_slow_call"] = type(self).bprop is not Cell.bprop

    # ------------------------------------------------------------ attributes
    def __getattr__(self, name):
        # only reached when normal lookup fails, e.g. before Cell.__init__ ran
        d = self.__dict__
        for store in ("_params", "_cells", "_buffers", "_params_list"):
            table = d.get(store)
            if table is not None and name in table:
                return table[name]
        raise AttributeError(f"The '{type(self).__name__}' object has no attribute '{name}'.")

    def __setattr__(self, name, value):
        if name in _PIPELINE_ATTRS:
            _check_pipeline_attr(name, value)
        d = self.__dict__
        if "_params" not in d:
            if isinstance(value, (Parameter, Cell)):
                raise AttributeError(f"For '{type(self).__name__}', call super().__init__() before assigning "
                                     f"Parameters or Cells (attribute '{name}').")
            object.__setattr__(self, name, value)
            return
        if isinstance(value, Parameter):
            self.insert_param_to_cell(name, value)
        elif isinstance(value, ParameterTuple):
            # as MindSpore: each item is a parameter of this cell under its own name (names may contain dots)
            names, seen = set(), set()
            for p in value:
                if id(p) in seen:
                    continue
                seen.add(id(p))
                if _is_parameter_generated(p.name):  # unnamed: MindSpore's per-cell "Parameter$<n>", n from 1
                    n = d.get("_param_tuple_count", 0) + 1
                    d["_param_tuple_count"] = n
                    p.name = f"Parameter${n}"
                if p.name in names:
                    raise ValueError(f"The value {value} , its name '{p.name}' already exists. Please set a unique "
                                     f"name for the parameter.")
                names.add(p.name)
                self.insert_param_to_cell(p.name, p, check_name_contain_dot=False)
            d["_params_list"][name] = value
            object.__setattr__(self, name, value)
        elif isinstance(value, Cell):
            self._insert_child(name, value)
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, Parameter) for v in value):
            # as MindSpore: the Parameters of the cell's lists and tuples of Parameters have unique names
            names, objs = d.setdefault("_exist_names", set()), d.setdefault("_exist_objs", {})
            for p in value:
                if id(p) in objs:
                    continue
                objs[id(p)] = p
                if p.name in names:
                    raise ValueError(f"The value {value} , its name '{p.name}' already exists. Please set a unique "
                                     f"name for the parameter.")
                names.add(p.name)
            object.__setattr__(self, name, value)
        elif isinstance(value, _Buffer):
            d.pop(name, None)
            self.register_buffer(name, value)
        else:
            if name in d["_params"]:
                if value is None:
                    d["_params"][name] = None
                elif isinstance(value, Tensor):
                    d["_params"][name].set_data(value)
                    return
                else:
                    raise TypeError(f"Parameter '{name}' already exists in network, can not assign this type: "
                                    f"'{type(value)}' as a parameter.")
            elif name in d["_cells"]:
                if value is not None:
                    raise TypeError(f"Sub cell '{name}' already exists in network, can not assign this type: "
                                    f"'{type(value)}' as a cell.")
                d["_cells"][name] = None
            elif name in d.get("_buffers", ()):
                if value is not None:
                    raise TypeError(f"Buffer '{name}' already exists in network, can not assign this type: "
                                    f"'{type(value)}' as a buffer.")
                d["_buffers"][name] = None
                return
            elif name == "training":
                _state.train_epoch += 1
            object.__setattr__(self, name, value)

    def __delattr__(self, name):
        d = self.__dict__
        regs = [d["_params"], d["_cells"], d["_params_list"]] + ([d["_buffers"]] if "_buffers" in d else [])
        found = False
        for reg in regs:
            if name in reg:
                del reg[name]
                found = True
        if name in d or not found:
            object.__delattr__(self, name)  # NOTE: a name the cell does not hold is an AttributeError, as MindSpore

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        """Add a Parameter under `param_name` (its name becomes `param_name` if it has none)."""
        if not isinstance(param_name, str) or not param_name:
            raise KeyError(f"For 'insert_param_to_cell', the argument 'param_name' must be a non-empty str, but got "
                           f"{param_name!r}.")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"For 'insert_param_to_cell', the argument 'param_name' should not contain '.', but got "
                           f"{param_name}.")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"For 'insert_param_to_cell', the argument 'param' must be Parameter, but got "
                            f"{type(param).__name__}.")
        if param_name in self.__dict__["_cells"]:
            raise KeyError(f"For 'insert_param_to_cell', the {param_name} parameter already exists in the network."
                           f"Cannot insert another parameter with the same name.")
        if param is not None and _is_parameter_generated(param.name):
            param.name = self._param_prefix + param_name
        if param is not None and param.has_init:   # made under no_init_parameters: initialized at the first call
            self.__dict__["_lazy_params"] = self.__dict__["_slow_call"] = True
        self.__dict__["_params"][param_name] = param
        object.__setattr__(self, param_name, param)

    def insert_child_to_cell(self, child_name, child_cell):
        """Add a child Cell under `child_name`. As MindSpore's, its parameters keep their names (assigning the child
        as an attribute, or adding it to a container, is what renames them `child_name.<name>`)."""
        if not isinstance(child_name, str):
            raise TypeError(f"For 'insert_child_to_cell', the type of parameter 'child_name' must be str, but got "
                            f"{type(child_name)}.")
        if not child_name or "." in child_name:
            raise KeyError("For 'insert_child_to_cell', the parameter 'child_name' can not be None and can not "
                           "contain '.' ")
        if child_cell is not None and not isinstance(child_cell, Cell):
            raise TypeError(f"For 'insert_child_to_cell', the argument 'child_cell' must be 'Cell' if not None, "
                            f"but got type {type(child_cell)}.")
        if child_name in self.__dict__["_params"]:
            raise KeyError(f"For 'insert_child_to_cell', the {child_name} child cell already exists in the network."
                           f"Cannot insert another child cell with the same name.")
        self.__dict__["_cells"][child_name] = child_cell
        object.__setattr__(self, child_name, child_cell)

    def _insert_child(self, child_name, child_cell):
        """insert_child_to_cell, and with auto_prefix the child's parameters renamed `child_name.<name>` (what an
        attribute assignment and the containers do)."""
        self.insert_child_to_cell(child_name, child_cell)
        if child_cell is not None and self._auto_prefix:
            child_cell.update_parameters_name(child_name + ".")

    def check_names(self):
        """Raise ValueError when two parameters of this cell share a name (MindSpore checks this when compiling)."""
        names = set()
        for value, param in self.parameters_and_names():
            if param.name in names:
                raise ValueError(f"The value of {value} is {param}, its name '{param.name}' already exists. "
                                 f"Please set a unique name for the parameter.")
            names.add(param.name)

    def update_parameters_name(self, prefix="", recurse=True):
        """Rename every parameter to `prefix` + its path inside this cell."""
        if not isinstance(prefix, str):
            raise TypeError(f"For 'update_parameters_name', the type of 'prefix' must be str, but got "
                            f"{type(prefix).__name__}.")
        self.__dict__["_param_prefix"] = prefix
        for name, param in self.parameters_and_names(expand=recurse):
            if prefix:
                param.name = prefix + name

    @property
    def _user_parameters(self):
        """Names of the parameters the user handed this cell (an optimizer's): `_update_local_parameters_name`
        leaves them alone."""
        return self.__dict__.setdefault("_user_parameter_names", [])

    @_user_parameters.setter
    def _user_parameters(self, value):
        if not isinstance(value, list):
            raise TypeError(f"For 'Cell', the property '_user_parameters' must be list type, but got type "
                            f"{type(value)}.")
        self.__dict__["_user_parameter_names"] = value

    def _update_local_parameters_name(self, prefix="", recurse=True):
        """Rename the cell's own parameters (not those in `_user_parameters`) to `prefix` + their path."""
        reg = r"^\w+[0-9a-zA-Z\_\.]*$"
        if re.match(reg, prefix, re.ASCII) is None:
            raise ValueError(f"The '{prefix}' is illegal, it must be match regular'{reg}' by flags'{re.ASCII}.'")
        for name, param in self.parameters_and_names(expand=recurse):
            if name not in self._user_parameters:
                param.name = prefix + name

    def update_cell_prefix(self):
        """Give every cell of the network its path as parameter prefix (`param_prefix`)."""
        for path, cell in self.cells_and_names():
            cell.__dict__["_param_prefix"] = path

    # ------------------------------------------------------------ traversal
    def cells_and_names(self, cells=None, name_prefix=""):
        """(name, cell) for this cell and every descendant, each once."""
        seen = cells if cells is not None else set()
        if id(self) not in seen:
            seen.add(id(self))
            yield name_prefix, self
        for name, cell in self._cells.items():
            if cell is None or id(cell) in seen:
                continue
            path = f"{name_prefix}.{name}" if name_prefix else name
            yield from cell.cells_and_names(seen, path)

    def parameters_and_names(self, name_prefix="", expand=True):
        """(structural name, Parameter) for every parameter, each once."""
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        seen = set()
        for cell_name, cell in cells:
            for par_name, par in cell._params.items():
                if par is not None and id(par) not in seen:
                    seen.add(id(par))
                    yield (f"{cell_name}.{par_name}" if cell_name else par_name), par

    @jit_forbidden_register
    def get_parameters(self, expand=True):
        """A generator of the parameters."""
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    @jit_forbidden_register
    def trainable_params(self, recurse=True):
        """The parameters with requires_grad=True, as a list."""
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    @jit_forbidden_register
    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        """OrderedDict of parameter name -> Parameter (names as the parameters carry them)."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def name_cells(self):
        """OrderedDict of the direct child cells."""
        return OrderedDict((n, c) for n, c in self._cells.items() if c is not None)

    def cells(self):
        return self.name_cells().values()

    def apply(self, fn):
        for cell in self.cells():
            cell.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------ modes and flags
    def set_train(self, mode=True):
        """Training mode on (dropout active, batch-norm batch statistics) or off, for this cell and its children."""
        for _, cell in self.cells_and_names():
            cell.__dict__["training"] = bool(mode)
        self.__dict__["_phase"] = "train" if mode else "predict"    # this cell's only, as in MindSpore
        _state.train_epoch += 1
        return self

    def _modes(self):
        """The training flags (and `add_flags` flags) of this cell and its sub-cells: part of the compile-cache key
        of the compiled functions that call it (the graph differs: dropout, batch statistics, THOR's recording).
        Recomputed after a set_train or add_flags."""
        d = self.__dict__
        cached = d.get("_modes_cache")
        if cached is not None and cached[0] == _state.train_epoch:
            return cached[1]
        modes = tuple((cell.training, _plain_flags(cell._flags)) for _, cell in self.cells_and_names())
        d["_modes_cache"] = (_state.train_epoch, modes)
        return modes

    @property
    def phase(self):
        """The compile phase of the cell: 'train' until `set_train` sets 'train' or 'predict' (on this cell, not its
        children), or any string assigned (mindformers' generation switches 'prefill' / 'increment')."""
        return self.__dict__.get("_phase", "train")

    @phase.setter
    def phase(self, value):
        if not isinstance(value, str):
            raise TypeError(f"For 'Cell', the property 'phase' must be string type, but got type {type(value)}.")
        self.__dict__["_phase"] = value

    def set_grad(self, requires_grad=True):
        self.__dict__["requires_grad"] = requires_grad
        return self

    def to_float(self, dst_type):
        """Run this cell (and its children) in `dst_type`: floating inputs are cast on entry and the trainable
        float Parameters are read as casts while the cell runs (they keep their dtype)."""
        if dst_type not in (mstype.float16, mstype.float32, mstype.bfloat16):
            raise ValueError(f"For 'to_float', the argument 'dst_type' should be float32, float16 or bfloat16, but got "
                             f"{dst_type}.")
        for _, cell in self.cells_and_names():
            cell.__dict__["_cast_dtype"] = dst_type
            cell.__dict__["_slow_call"] = True
        return self

    def recompute(self, **kwargs):
        """Mark the cell for recomputation in the backward pass (takes effect in graph mode); its scope, and its
        sub-cells', take the prefix 'recompute_'."""
        known = ("mp_comm_recompute", "parallel_optimizer_comm_recompute", "recompute_slice_activation")
        for key in kwargs:
            if key not in known:
                raise ValueError(f"For 'recompute', keyword '{key}' is not recognized! the key kwargs must be "
                                 f"{', '.join(repr(k) for k in known)}")
        self.__dict__["_recompute"] = True
        for _, cell in self.cells_and_names():
            scope = cell.__dict__.get("_scope")
            if scope is None:
                cell.__dict__["_scope"] = "recompute_"
            elif not scope.startswith("recompute_"):
                cell.__dict__["_scope"] = "recompute_" + scope
        return self

    def get_scope(self):
        """The cell's scope in its network ('Default/features/conv1-Conv2d', set by `generate_scope`), or None."""
        return self.__dict__.get("_scope")

    def generate_scope(self):
        """Give every sub-cell its scope: 'Default' followed by the attribute names down to it (each with '-' and its
        class name while the context's reserve_class_name_in_scope is on)."""
        with_class = get_context("reserve_class_name_in_scope")

        def walk(cell, prefix):
            for name, child in cell.name_cells().items():
                scope = f"{prefix}/{name}" + (f"-{type(child).__name__}" if with_class else "")
                current = child.__dict__.get("_scope")
                if current is None:
                    child.__dict__["_scope"] = scope
                elif current == "recompute_":
                    child.__dict__["_scope"] = current + scope
                walk(child, scope)
        walk(self, "Default")

    def add_flags(self, **flags):
        # as MindSpore: each flag is also an attribute of the cell (`net.add_flags(thor=False); net.thor`)
        self._flags.update(flags)
        self.__dict__.update(flags)
        _state.train_epoch += 1     # the flags are part of the compile-cache key (`_modes`): a trace reads them
        return self

    def add_flags_recursive(self, **flags):
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self):
        return self._flags

    def _enter_phase(self):
        """Before a compiled call of this cell (its GRAPH_MODE call, or a jit of its construct): the flags of its
        phase's first compile put back (see _phase_flags); the (cell, flags) pairs to restore after the call."""
        return _phase_flags(self)

    def compile(self, *args, **kwargs):
        """Compile this cell's construct as a graph for `args` (MindSpore's Cell.compile): code that cannot compile
        raises here. Tracing runs the construct once; the parameters it updates are put back, so compiling has no
        effect on the cell's state."""
        saved = [(p, p.value().copy()) for p in self.get_parameters()]
        try:
            _trace_graph(self, args)
        finally:
            for p, value in saved:
                p.set_data(value)

    def set_inputs(self, *inputs, **kwargs):
        """Declare the inputs (Tensor(shape=[None, 3], ...) marks a dynamic dim) for graph compilation."""
        self.__dict__["_inputs"] = inputs
        self.__dict__.pop("_ms_compiled", None)   # compile again with the new signature
        return self

    def get_inputs(self):
        return self._inputs

    @property
    def _dynamic_shape_inputs(self):
        """MindSpore's name of what `set_inputs` declared (None when nothing was)."""
        return self.__dict__.get("_inputs")

    @_dynamic_shape_inputs.setter
    def _dynamic_shape_inputs(self, inputs):
        self.__dict__["_inputs"] = None if inputs is None else tuple(inputs)
        self.__dict__.pop("_ms_compiled", None)

    def set_jit_config(self, jit_config):
        """Compile this cell in GRAPH_MODE with `jit_config` (a `JitConfig`: its jit_level); set once, as in
        MindSpore (a second setting is ignored with a warning)."""
        if not hasattr(jit_config, "jit_config_dict"):     # an AttributeError, as in MindSpore
            raise AttributeError(f"For 'Cell.set_jit_config', 'jit_config' must be a JitConfig, but got "
                                 f"{type(jit_config).__name__}: it has no attribute 'jit_config_dict'.")
        if self.__dict__.get("_jit_config_dict"):
            warnings.warn("For Cell, jit config can only be set once, ignore this setting.", stacklevel=2)
            return
        self.__dict__["_jit_config_dict"] = dict(jit_config.jit_config_dict)
        self.__dict__.pop("_ms_compiled", None)   # compile again at the new level

    def set_boost(self, boost_type):
        """Turn on the boost algorithm `boost_type` (only ``'less_bn'``) for this cell and its sub-cells (a flag)."""
        if boost_type not in ("less_bn",):
            raise ValueError(f"For 'set_boost', the argument 'boost_type' must be 'less_bn', but got {boost_type}.")
        self.add_flags_recursive(less_bn=boost_type == "less_bn")
        return self

    def init_parameters_data(self, auto_parallel_mode=False):
        """Initialize the parameters whose initialization was skipped (nn.utils.no_init_parameters); returns them by
        name."""
        return {p.name: p.init_data() for p in self.get_parameters()}

    def shard(self, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend", level=0):
        """Give this cell's inputs the layouts of `in_strategy` and its outputs those of `out_strategy` (per
        input/output: a tuple with the number of pieces of each dim, a called `mindspore.parallel.Layout`, or None),
        and the parameters `parameter_plan` names ({"name": tuple or Layout}) their starting layouts, for the
        partitioner of a semi-auto / auto parallel run: the strategies of the other operators are propagated from
        them. What `mindspore.shard(cell, ...)` does, on the cell's own calls (one implementation:
        `mindseed.nn._shard`); on one device outside a parallel run the cell computes as before. `device` and
        `level` (MindSpore 2.3's) are checked and otherwise unused.

        Raises:
            TypeError: strategies that are not tuples of tuple(int) / Layout, or mix the two; a `parameter_plan`
                that is not a dict of str to tuple/Layout.
            ValueError: a parameter strategy whose length or cuts do not fit the parameter's shape.
        """
        check_shard(self, in_strategy, out_strategy, parameter_plan, device, level)
        d = self.__dict__
        if d.get("_in_strategy") is not None:
            logger.warning(f"For '{type(self).__name__}', 'Shard' has been configured more than once. The existing "
                           f"in_strategy is {d['_in_strategy']} and the existing out_strategy is "
                           f"{d['_out_strategy']}. The new in_strategy {in_strategy} and out_strategy {out_strategy} "
                           f"may not take effect. It is recommended to configure 'Shard' only once.")
        d["_in_strategy"], d["_out_strategy"] = in_strategy, out_strategy
        d["_slow_call"] = True

    def set_comm_fusion(self, fusion_type, recurse=True):
        return self

    def place(self, role, rank_id):
        return self

    def flatten_weights(self, fusion_size=0):
        return self

    @property
    def cls_name(self):
        return type(self).__name__

    param_prefix = readonly("_param_prefix")
    auto_prefix = readonly("_auto_prefix")

    @property
    def bprop_debug(self):
        """Whether a custom `bprop` runs in the Python interpreter rather than parsed into the graph (MindSpore's
        switch). mindseed runs a cell's `bprop` as Python in both cases (traced when compiled), so the results are
        the same either way."""
        return self.__dict__.get("_bprop_debug", False)

    @bprop_debug.setter
    def bprop_debug(self, value):
        if not isinstance(value, bool):
            raise TypeError(f"For 'Cell', the property 'bprop_debug' must be bool type, but got type {type(value)}.")
        self.__dict__["_bprop_debug"] = value

    # ------------------------------------------------------------ hooks
    @jit_forbidden_register
    def register_forward_pre_hook(self, hook_fn, *, prepend=False, with_kwargs=False):
        """hook_fn(cell, args) -> None or new args, called before construct."""
        return self._add_hook("_forward_pre_hooks", (hook_fn, with_kwargs), prepend)

    @jit_forbidden_register
    def register_forward_hook(self, hook_fn, *, prepend=False, with_kwargs=False, always_call=False):
        """hook_fn(cell, args, output) -> None or new output, called after construct."""
        return self._add_hook("_forward_hooks", (hook_fn, with_kwargs), prepend)

    @jit_forbidden_register
    def register_backward_hook(self, hook_fn):
        """hook_fn(cell, grad_input, grad_output) -> None or new grad_input, called in the backward pass."""
        return self._add_hook("_backward_hooks", hook_fn, False)

    @jit_forbidden_register
    def register_backward_pre_hook(self, hook_fn):
        """hook_fn(cell, grad_output) -> None or new grad_output, called when the output gradient arrives."""
        return self._add_hook("_backward_pre_hooks", hook_fn, False)

    def _add_hook(self, store, entry, prepend):
        fn = entry[0] if isinstance(entry, tuple) else entry
        if not callable(fn):
            raise TypeError(f"For '{store.strip('_')}', the 'hook_fn' must be a function, but got {type(fn).__name__}.")
        hooks = self.__dict__[store]
        handle = HookHandle(hooks)
        hooks[handle.handle_id] = entry
        if prepend:
            hooks.move_to_end(handle.handle_id, last=False)
        self.__dict__["_slow_call"] = True
        return handle

    # ------------------------------------------------------------ calling
    def construct(self, *args, **kwargs):
        method = self.__dict__.get("__parse_method__")
        if method not in (None, "construct") and _state.tracing is not None:
            # called inside a graph after one of its jitted methods was compiled: MindSpore parses that method
            return getattr(self, method)(*args, **kwargs)
        raise AttributeError(f"For '{type(self).__name__}', the method 'construct' is not defined.")

    def bprop(self, *args):
        """Override as bprop(self, *inputs, out, dout) -> gradients of the inputs to replace autodiff."""
        raise AttributeError("bprop")

    def __call__(self, *args, **kwargs):
        try:
            slow = self.__dict__["_slow_call"]
        except KeyError:
            raise AttributeError(f"The '{type(self).__name__}' object is not initialized: call super().__init__() "
                                 f"in its __init__ first.") from None
        if slow or _state.tracing is not None or _state.mode == 0 or _profiling:
            return self._call_slow(args, kwargs)
        return self.construct(*args, **kwargs)

    def _call_slow(self, args, kwargs):
        if _profiling and _state.tracing is None:
            # the profiler times the call under the cell's scope name (ops inside are recorded in it)
            return _profiling[-1].run_cell(self, lambda: self._call_unprofiled(args, kwargs))
        return self._call_unprofiled(args, kwargs)

    def _call_unprofiled(self, args, kwargs):
        if self.__dict__.get("_lazy_params") and not abstract_recording():
            self._init_lazy_params()
        rec = _state.tracing
        if kwargs and (rec is not None or _state.mode == 0):
            _check_graph_kwargs(self, args, kwargs)
        if rec is not None:
            rec.on_cell_call(self)
            _scope.push(self)       # graph nodes carry the scope they were traced in
            try:
                return self._run(args, kwargs)
            finally:
                _scope.pop()
        if _state.mode == 0:
            runner = simulated_runner(self)
            if runner is not None:  # a cell holding a Cell.shard on a simulated world: partitioned from its graph
                return runner.forward(lambda *a: self._run(a, kwargs), args, graph=self, kwargs=kwargs)
            # GRAPH_MODE: the whole call (casts, hooks, construct) is compiled once per input signature
            changed = self._enter_phase()
            try:
                return _compile_cell_call(self, args, kwargs)
            finally:
                for cell, flags in changed:
                    cell.add_flags(**flags)
        return self._run(args, kwargs)

    def _init_lazy_params(self):
        """MindSpore's first call of a cell initializes its own Parameters still waiting for their initialization
        (made under `nn.utils.no_init_parameters`); an abstract recording of the partitioner leaves them waiting
        (the run on processes initializes them in slices)."""
        self.__dict__["_lazy_params"] = False
        for p in self.__dict__["_params"].values():
            if p is not None and p.has_init:
                p.init_data()

    def _construct_fn(self):
        if _state.tracing is None:
            return self.construct
        construct = type(self).construct
        own = self.__dict__.get("construct")
        if getattr(own, "__self__", None) is self and hasattr(getattr(own, "__func__", None), "__code__"):
            construct = own.__func__    # another method of the cell set as its construct: that one is parsed
        if getattr(construct, "__func__", None) is not None or not hasattr(construct, "__code__"):
            return self.construct
        converted = _convert(construct)
        fn = lambda *a, **k: converted(self, *a, **k)  # noqa: E731
        # an instance-level wrapper of construct (amp 'auto' casts) wraps the converted construct the same way
        around = getattr(self.__dict__.get("construct"), "around", None)
        return fn if around is None else around(fn)

    # a cell whose construct updates state with its own kernels (optimizers) runs as one opaque graph node
    _graph_opaque = False

    def _run(self, args, kwargs):
        if self._graph_opaque and _state.tracing is not None:
            # it may update its own Parameters and those it is given (a loss-scale cell's scale)
            writes = tuple(self.get_parameters()) + tuple(a for a in args if isinstance(a, Parameter))
            return _opaque_call(lambda *a: self.construct(*a, **kwargs), args, writes=writes)
        d = self.__dict__
        if d["_cast_dtype"] is not None:
            args = tuple(_cast_float(a, d["_cast_dtype"]) for a in args)
            shadowed = _shadow_params(self, d["_cast_dtype"])
            if shadowed:
                try:
                    return self._run_construct(args, kwargs)
                finally:
                    for name, p in shadowed:
                        d[name] = p
        return self._run_construct(args, kwargs)

    def _run_construct(self, args, kwargs):
        d = self.__dict__
        for hook, with_kwargs in list(d["_forward_pre_hooks"].values()):
            res = hook(self, args, kwargs) if with_kwargs else hook(self, args)
            if res is not None:
                if with_kwargs:
                    args, kwargs = res
                else:
                    args = res if isinstance(res, tuple) else (res,)
        if d["_backward_hooks"] and _tensor_args(args):
            args = self._wrap_input_hook(args)
        construct = self._construct_fn()
        if d.get("_in_strategy") is not None:   # Cell.shard: the inputs and outputs placed for the partitioner
            construct = sharding(construct, d["_in_strategy"], d["_out_strategy"])
        if type(self).bprop is not Cell.bprop:
            out = call_with_bprop(lambda *a: construct(*a, **kwargs), self.bprop, args, type(self).__name__)
        elif d["_recompute"] and _state.tracing is not None:
            # graph mode: the backward pass recomputes this cell's activations instead of keeping them
            out = _recompute_call(lambda *a: construct(*a, **kwargs), args, self.trainable_params(),
                                  type(self).__name__)
        else:
            out = construct(*args, **kwargs)
        for hook, with_kwargs in list(d["_forward_hooks"].values()):
            res = hook(self, args, kwargs, out) if with_kwargs else hook(self, args, out)
            if res is not None:
                out = res
        if d["_backward_hooks"] or d["_backward_pre_hooks"]:
            out = self._wrap_output_hook(out)
        return out

    def _wrap_output_hook(self, out):
        outs = out if isinstance(out, tuple) else (out,)
        if not all(isinstance(o, Tensor) for o in outs):
            return out
        state = self.__dict__.setdefault("_hook_grad_output", [None])

        def on_output_grad(dout):
            for hook in list(self._backward_pre_hooks.values()):
                res = hook(self, dout)
                if res is not None:
                    dout = res if isinstance(res, tuple) else (res,)
            state[0] = dout
            return dout

        wrapped = P.hook_backward_p(*outs, hook=on_output_grad)
        return wrapped if isinstance(out, tuple) else wrapped[0]

    def _wrap_input_hook(self, args):
        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        state = self.__dict__.setdefault("_hook_grad_output", [None])

        def on_input_grad(dinput):
            for hook in list(self._backward_hooks.values()):
                res = hook(self, dinput, state[0])
                if res is not None:
                    dinput = res if isinstance(res, tuple) else (res,)
            return dinput

        wrapped = P.hook_backward_p(*[args[i] for i in idx], hook=on_input_grad)
        args = list(args)
        for k, i in enumerate(idx):
            args[i] = wrapped[k]
        return tuple(args)

    # ------------------------------------------------------------ printing
    def extend_repr(self):
        """Extra text shown inside the parentheses of repr (override in layers)."""
        return ""

    def __repr__(self):
        extra = self.extend_repr()
        lines = extra.split("\n") if extra else []
        for name, cell in self._cells.items():
            if cell is None:
                continue
            child = repr(cell).replace("\n", "\n  ")
            lines.append(f"({name}): {child}")
        main = type(self).__name__ + "("
        if lines:
            if len(lines) == 1 and not self._cells:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __str__(self):
        return self.__repr__()

    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        d = self.__dict__
        d.update(state)
        for store in ("_params", "_cells", "_buffers"):      # a copy's tables mirror into the copy's own attributes
            if isinstance(d.get(store), _AttrTable):
                table, d[store] = d[store], _AttrTable.of(d)
                d[store].update(table)

    def __dir__(self):
        return list(super().__dir__())


def _phase_flags(cell):
    """MindSpore compiles a cell's call once per phase (`cell.phase`: 'train', 'predict', or one the code names, as
    mindformers' generation switches between 'prefill' and 'increment') and runs that graph on later calls: the
    add_flags flags the cells had when a named phase was first compiled stay that phase's, whatever add_flags set
    since. Puts them back for this call; returns the (cell, current flags) pairs to restore after it.
    NOTE: 'train' and 'predict' recompile for new flags (set_train and THOR's add_flags switch graphs that way),
    where MindSpore keeps those phases' first graphs too."""
    phase = cell.phase
    if phase in ("train", "predict"):
        return ()
    current = {id(c): (c, _plain_flags(c._flags)) for _, c in cell.cells_and_names()}
    kept = cell.__dict__.setdefault("_phase_flags", {}).setdefault(
        phase, {k: flags for k, (_, flags) in current.items()})
    changed = []
    for k, (c, flags) in current.items():
        if k in kept and kept[k] != flags:
            changed.append((c, dict(flags)))
            c.add_flags(**dict(kept[k]))
    return changed


def _plain_flags(flags):
    """The flags whose values can be part of a cache key."""
    return tuple(sorted((k, v) for k, v in flags.items() if isinstance(v, (bool, int, float, str, type(None)))))


def _tensor_args(args):
    return any(isinstance(a, Tensor) for a in args)


def _shadow_params(cell, dtype):
    """to_float: while the cell runs, its float Parameters read as casts to `dtype` (the casts are on the tape, so
    gradients reach the Parameters, which keep their dtype), as MindSpore casts every float input of an op but those
    the op writes: the ones the cell's class lists in `_written_params` (a BatchNorm's moving statistics) stay."""
    d, shadowed = cell.__dict__, []
    written = getattr(type(cell), "_written_params", ())
    for name, p in d["_params"].items():
        if p is not None and name not in written and d.get(name) is p and p.dtype != dtype and \
                mstype.is_float(p.dtype):
            d[name] = P.cast_p(p, dtype=dtype.name)
            shadowed.append((name, p))
    return shadowed


def _cast_float(a, dtype):
    if isinstance(a, Tensor) and a.dtype != dtype and mstype.is_float(a.dtype):
        return P.cast_p(a, dtype=dtype.name)
    return a


class GraphCell(Cell):
    """A Cell wrapping a loaded graph (export/load arrive with the export issue); calls the graph."""

    def __init__(self, graph, params_init=None, obf_random_seed=None):
        super().__init__()
        if not callable(graph):
            raise TypeError(f"For 'GraphCell', the 'graph' must be callable, but got {type(graph).__name__}.")
        self.graph = graph

    def construct(self, *inputs):
        return self.graph(*inputs)
