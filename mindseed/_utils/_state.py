"""Process-wide execution state, read in one place by the layers above.

`tapes` is the stack of active gradient recorders: the primitive dispatcher records onto each of
them when it is non-empty, and does nothing more than this one truth test when it is empty.
"""

tapes = []

# PYNATIVE_MODE = 1, GRAPH_MODE = 0 (MindSpore's values)
mode = 1

# the graph builder while a function is being traced for graph mode (None otherwise); Tensor methods that
# read values (bool, item, asnumpy) consult it, because a traced value is not known at run time
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
