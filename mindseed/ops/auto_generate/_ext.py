"""MindSpore's `<name>_ext` functions (`ops.auto_generate.gen_ops_def.add_ext`, `ops.function.array_func.split_ext`,
...): the forms with `mint`'s signatures, which are `mint.<name>` (or `mint.nn.functional.<name>`) here. `mint`
sits above `ops`: `mindseed._registration` puts those two modules in `SOURCES`, and a name is looked up there when
first asked for."""

NAMES = frozenset((
    "acos acosh adaptive_avg_pool3d add arange argmax argmin argsort asin asinh atan atan2 avg_pool1d bincount bmm "
    "chunk cummin cumsum diag elu flatten fold frac full full_like gather histc index_select isneginf l1_loss "
    "leaky_relu log10 log2 log_softmax logaddexp logsumexp matmul max max_unpool2d mean meshgrid min mish mm mse_loss "
    "one_hot ones_like outer prod repeat_interleave scatter_add selu softplus sort split stack sub sum t topk trace "
    "tril unbind unfold unique zeros_like").split())

SOURCES = []    # mint, mint.nn.functional (registered by mindseed._registration)


def lookup(module, name):
    """`<base>_ext` for a module's `__getattr__`: mint's `base`; AttributeError for any other name."""
    base = name[:-4] if name.endswith("_ext") else None
    for source in SOURCES if base in NAMES else ():
        fn = getattr(source, base, None)
        if fn is not None:
            return fn
    raise AttributeError(f"module '{module}' has no attribute '{name}'")
