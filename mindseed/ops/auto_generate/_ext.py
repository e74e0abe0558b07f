"""MindSpore's `<name>_ext` functions (`ops.auto_generate.gen_ops_def.add_ext`, `ops.function.array_func.split_ext`,
...): the forms with `mint`'s signatures, which are `mint.<name>` (or `mint.nn.functional.<name>`) here. `mint`
sits above `ops`: `mindseed._registration` puts those two modules in `SOURCES`, and a name is looked up there when
first asked for.

The generated functions take every argument by position, where mint makes some keyword-only (`add_ext(x, y, alpha)`,
`sum_ext(x, dim, keepdim, dtype)`, `sort_ext(x, dim, descending, stable)`): the function handed out is mint's,
wrapped to accept those by position too."""
import functools
import importlib
import inspect
import sys

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
    # the ALIASES are installed with the top level's deferred part
    if not (name.startswith("__") and name.endswith("__")) and _lazy.complete():
        namespace = sys.modules[module].__dict__
        if name in namespace:
            return namespace[name]
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


# MindSpore's internal names of mint's functions, by module (`ops.function.math_func.amax_ext is mint.amax`, the
# docstring examples of mint call them so): (module under ops, source under mindseed) -> "name=attr ..." (bare
# `name` when the attribute has the same name)
ALIASES = {
    ("function", "mint"): "arange_ext=arange",
    ("function", "mint.nn.functional"): "relu_",
    ("function.math_func", "mint"):
        "acos_ext=acos acosh_ext=acosh addbmm_ext=addbmm addmm_ext=addmm addmv_ext=addmv amax_ext=amax amin_ext=amin "
        "arccos_ext=arccos arccosh_ext=arccosh arcsin_ext=arcsin arcsinh_ext=arcsinh arctan2_ext=arctan2 "
        "arctan_ext=arctan argmax_ext=argmax asin_ext=asin asinh_ext=asinh atan2_ext=atan2 atan_ext=atan "
        "bernoulli_ext=bernoulli bincount_ext=bincount bitwise_and_ext=bitwise_and bitwise_or_ext=bitwise_or "
        "bitwise_xor_ext=bitwise_xor bmm_ext=bmm frac_ext=frac histc_ext=histc inverse_ext=inverse "
        "median_ext=median pow_ext=pow std_ext=std std_mean_ext=std_mean var_ext=var var_mean_ext=var_mean",
    ("function.math_func", "mint.linalg"): "linalg_norm=norm",
    ("function.array_func", "mint"): "chunk_view=chunk split_view=split unsqueeze_view=unsqueeze",
    ("function.nn_func", "mint.nn.functional"):
        "avg_pool2d_ext=avg_pool2d avg_pool3d_ext=avg_pool3d batch_norm_ext=batch_norm "
        "cross_entropy_ext=cross_entropy dropout2d_ext=dropout2d flatten_ext=flatten glu_ext=glu kl_div_ext=kl_div "
        "log_softmax_ext=log_softmax logsigmoid_ext=logsigmoid max_pool2d_ext=max_pool2d nll_loss_ext=nll_loss "
        "pad_ext=pad relu_ softmax_ext=softmax",
    ("function.nn_func", "mint"): "conv2d_ext=conv2d gather_ext=gather masked_select",
    ("function.random_func", "mint"):
        "multinomial_ext=multinomial normal_ext=normal rand_ext=rand rand_like_ext=rand_like randint_ext=randint "
        "randint_like_ext=randint_like randn_ext=randn randn_like_ext=randn_like randperm_ext=randperm",
    ("auto_generate.gen_ops_def", "mint"):
        "batch_norm_elemt batch_norm_gather_stats_with_counts batch_norm_stats broadcast_to_view=broadcast_to clone "
        "conv_tbc inplace_addr=addr_ narrow_view=narrow npu_gelu select_ext_view=select "
        "transpose_ext_view=transpose triangular_solve vdot",
    ("auto_generate.gen_ops_def", "mint.nn.functional"):
        "adaptive_avg_pool1d inplace_hardtanh=hardtanh_ inplace_threshold=threshold_",
    ("auto_generate.gen_ops_def", "mint.linalg"): "linalg_qr=qr",
    ("functional", "mint"): "argmax_ext=argmax",
    ("functional_overload", "mint"):
        "add addcdiv any bitwise_not clamp clip div empty empty_like eq floor_divide fmod ge greater_equal imag "
        "index_add kthvalue lerp less lt max min mul nansum real remainder repeat_interleave sub where xlogy",
    ("functional_overload", "mint.nn.functional"): "conv1d conv3d gelu pixel_shuffle",
}


def install_aliases(ops, sources):
    """Put the ALIASES into `ops`'s modules (the package re-exporting gen_ops_def gets its names too); `sources`
    maps "mint", "mint.nn.functional", "mint.linalg" to those modules."""
    for (module_name, source_name), names in ALIASES.items():
        modules = [importlib.import_module(f"{ops.__name__}.{module_name}")]
        if module_name == "auto_generate.gen_ops_def":
            modules.append(importlib.import_module(f"{ops.__name__}.auto_generate"))
        for item in names.split():
            name, _, attr = item.partition("=")
            fn = getattr(sources[source_name], attr or name)
            for module in modules:
                setattr(module, name, fn)
