"""MindSpore's `<name>_ext` functions (`ops.auto_generate.gen_ops_def.add_ext`, `ops.function.array_func.split_ext`,
...): the forms with `mint`'s signatures, which are `mint.<name>` (or `mint.nn.functional.<name>`) here. `mint`
sits above `ops`: `mindseed._registration` puts those two modules in `SOURCES`, and a name is looked up there when
first asked for.

The generated functions take every argument by position, where mint makes some keyword-only (`add_ext(x, y, alpha)`,
`sum_ext(x, dim, keepdim, dtype)`, `sort_ext(x, dim, descending, stable)`): the function handed out is mint's,
wrapped to accept those by position too."""
import functools
import inspect

from mindseed._utils import _lazy

NAMES = frozenset((
    "acos acosh adaptive_avg_pool3d add arange argmax argmin argsort asin asinh atan atan2 avg_pool1d bincount bmm "
    "chunk cummin cumsum diag elu flatten fold frac full full_like gather histc index_select isneginf l1_loss "
    "leaky_relu log10 log2 log_softmax logaddexp logsumexp matmul max max_unpool2d mean meshgrid min mish mm mse_loss "
    "one_hot ones_like outer prod repeat_interleave scatter_add selu softplus sort split stack sub sum t topk trace "
    "tril unbind unfold unique zeros_like").split())

SOURCES = []    # mint, mint.nn.functional (registered by mindseed._registration)


def sources():
    """`SOURCES`, registered with the top level's deferred part (loaded here if it is not yet)."""
    if not SOURCES:
        _lazy.complete()
    return SOURCES


def lookup(module, name):
    """`<base>_ext` for a module's `__getattr__`: mint's `base`; AttributeError for any other name."""
    base = name[:-4] if name.endswith("_ext") else None
    for source in sources() if base in NAMES else ():
        fn = getattr(source, base, None)
        if fn is not None:
            return positional(fn, name)
    raise AttributeError(f"module '{module}' has no attribute '{name}'")


def positional(fn, name):
    """`fn` taking its keyword-only parameters by position too, after the positional ones (`fn` itself when it has
    none, or takes `*args`)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn
    params = list(sig.parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return fn
    n_pos = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    keyword_only = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
    if not keyword_only:
        return fn

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if len(args) > n_pos + len(keyword_only):
            raise TypeError(f"{name}() takes at most {n_pos + len(keyword_only)} positional arguments but "
                            f"{len(args)} were given")
        for key, value in zip(keyword_only, args[n_pos:]):
            if key in kwargs:
                raise TypeError(f"{name}() got multiple values for argument '{key}'")
            kwargs[key] = value
        return fn(*args[:n_pos], **kwargs)

    try:
        call.__signature__ = sig.replace(parameters=[
            p.replace(kind=p.POSITIONAL_OR_KEYWORD) if p.kind is p.KEYWORD_ONLY else p for p in params])
    except ValueError:      # a keyword-only parameter without a default after defaulted ones: mint's shown
        pass
    call.__name__ = call.__qualname__ = name
    return call
