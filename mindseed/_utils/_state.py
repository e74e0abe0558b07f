"""Process-wide execution state, read in one place by the layers above.

`tapes` is the stack of active gradient recorders: the primitive dispatcher records onto each of
them when it is non-empty, and does nothing more than this one truth test when it is empty.

`tracing` holds the graph tracer while a function is traced: the layers below the compiler see it only through
the `Recorder` protocol.
"""
import abc

tapes = []

# `_pynative_executor.set_enable_grad(False)`: gradient tapes record nothing and grad transforms refuse to start
grad_enabled = True

# PYNATIVE_MODE = 1, GRAPH_MODE = 0 (MindSpore's values)
mode = 1


class Recorder(abc.ABC):
    """What Tensor, Parameter and Cell tell the graph tracer while a function is traced for graph mode.

    The tracer (`compiler.trace.GraphBuilder`) implements it and sits in `tracing` while it traces; the layers
    below the compiler call only these methods on it, never its fields, and only after reading `tracing` once:

        rec = _state.tracing
        if rec is not None:
            rec.on_concrete_read(self, "item()")

    so PyNative code pays one global read. Tensors passed in are mindseed Tensors (Parameters included).
    """

    @abc.abstractmethod
    def on_copy(self, src, copy):
        """`copy`, a new Tensor object, holds src's value (`Tensor(t)`, `t.copy()`, `t.detach()`,
        `Parameter.value()`): the graph gets a copy of src's value at this point (gradients stop at the new
        object, as in PyNative, and a later update of a Parameter src does not change it)."""

    @abc.abstractmethod
    def rebind(self, obj, replacement):
        """From now on `replacement` (an existing Tensor object) stands for obj's value in the graph (a Tensor made
        from the result of a cast, an in-place update that swapped a tensor's data). Grad tapes have the same
        method with the same meaning."""

    def on_item(self, t):
        """`t.item()` while tracing: the scalar of the graph standing for t's value (MindSpore's graph keeps a value
        computed inside it as a graph scalar under STRICT syntax), or None: Python reads the value
        (`on_concrete_read`)."""
        return None

    @abc.abstractmethod
    def on_concrete_read(self, t, what, constant=True):
        """Python is about to read t's values (`what`: "item()", "bool()", "an index", ...). Raises the tracer's
        graph break when they are only known when the graph runs (t computed in the graph, or a Parameter);
        returns None when t is a constant of the graph. `constant=False`: the values are data (a mask), never
        made a constant of the graph by keying it on the arguments that fix them."""

    @abc.abstractmethod
    def on_parameter_write(self, param, value):
        """`param.set_data(value)` / `param.assign_value(value)` with a Tensor: the graph updates param at each
        call (later reads of param in the graph see value). Called before the Parameter's data is replaced."""

    @abc.abstractmethod
    def on_cell_call(self, cell):
        """`cell` is called inside the traced function: compiled code depends on its training flag."""

    def is_argument_container(self, obj):
        """Whether obj is a tuple/list/dict the traced function was called with (not `mutable`): MindSpore keeps
        such an argument's structure fixed and differentiates only the Tensors passed on their own."""
        return False

    def on_argument_write(self, t, value):
        """An in-place update (`x.add_(y)`, `x[i] = v`, a kernel writing its cache input) gives t the new `value`:
        when t is a Tensor the traced function was called with, the graph writes the caller's tensor at each call,
        as MindSpore's graph mode does, and returns True; False for any other tensor."""
        return False


# the Recorder (graph builder) while a function is being traced for graph mode, None otherwise; Tensor methods
# that read values (bool, item, asnumpy) consult it, because a traced value is not known at run time
tracing = None

# set by the compiler: function -> the function rewritten for graph tracing; grad transforms apply it to the
# functions they differentiate while a graph is being traced
convert = None

# set by the compiler: opaque_call(fn, args) runs fn(*args) now and, while a graph is traced, adds one node that
# runs it again at every call (updates made with kernels directly: the class-API optimizer primitives)
opaque_call = None

# set by the compiler while it traces or re-runs code whose Parameter updates must not last (a branch not taken,
# a loop body traced before the loop runs, forward code re-run for a gradient): a stack of dicts that
# Parameter.set_data fills with id -> (parameter, previous value) before it replaces the value
param_undo = []

# bumped by every change of a Cell's training flag (set_train, `cell.training = ...`): compiled functions key
# their caches by the flags of the cells they call, recomputed only when this moved
train_epoch = 0

# set by recomputation (Cell.recompute) around a forward run and its re-runs for the gradient: the random draws
# (dropout masks, noise) of the first run, which the re-runs reuse instead of drawing new ones
random_draws = None

# the active profilers (`mindseed.profiler`), innermost last; empty when none records, and then the primitive
# dispatcher, Cell.__call__ and compiled graphs pay one truth test of this list. A profiler here has
#   run_op(prim, args, attrs) -> outputs        runs one primitive call and records its time
#   run_cell(cell, call) -> call()               runs one Cell call and records its time and scope
#   kernel(op_type, name, t0, t1)                a compiled graph's kernel took t0..t1 (perf_counter_ns)
#   run_graph(name, call) -> call()              runs one compiled graph and records its time
profiling = []

# the Cell scopes being run or traced, innermost last: (cell, MindSpore scope name such as "Default/fc-Dense")
scopes = []

# gradient hooks of tensors (`Tensor.register_hook`): id(tensor) -> {handle id: hook}; the backward engine consults
# it only when it is non-empty. Entries go when their tensor does.
tensor_grad_hooks = {}

# `saved_tensors_hooks` in force, innermost last: (pack_hook, unpack_hook) applied to the tensors a tape saves
saved_tensors_hooks = []

# set by the PyNative backward engine while a primitive's bprop runs: the forward output it differentiates (the
# pipeline partitioner puts the bprop's calls on the stage of that forward call)
bprop_of = None
# set by the PyNative backward engine while it adds two gradient parts of a tensor (its Add call): that tensor (the
# partitioner adds the parts in that tensor's layout)
summing = None
