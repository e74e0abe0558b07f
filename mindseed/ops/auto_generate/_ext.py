"""MindSpore's `<name>_ext` functions (`ops.auto_generate.gen_ops_def.add_ext`, `ops.function.array_func.split_ext`,
...): the forms with `mint`'s signatures, which are `mint.<name>` (or `mint.nn.functional.<name>`) here. Looked up
when first asked for, as `mint` sits above `ops`."""

NAMES = frozenset((
    "acos acosh adaptive_avg_pool3d add arange argmax argmin argsort asin asinh atan atan2 avg_pool1d bincount bmm "
    "chunk cummin cumsum diag elu flatten fold frac full full_like gather histc index_select isneginf l1_loss "
    "leaky_relu log10 log2 log_softmax logaddexp logsumexp matmul max max_unpool2d mean meshgrid min mish mm mse_loss "
    "one_hot ones_like outer prod repeat_interleave scatter_add selu softplus sort split stack sub sum t topk trace "
    "tril unbind unfold unique zeros_like").split())


def lookup(module, name):
    """`<base>_ext` for a module's `__getattr__`: mint's `base`; AttributeError for any other name."""
    base = name[:-4] if name.endswith("_ext") else None
    if base in NAMES:
        from mindseed import mint  # noqa: PLC0415 -- mint is built on ops
        from mindseed.mint.nn import functional  # noqa: PLC0415
        return getattr(mint, base, None) or getattr(functional, base)
    raise AttributeError(f"module '{module}' has no attribute '{name}'")
