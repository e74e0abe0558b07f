"""Names that MindSpore exposes in a lower namespace but that live in a higher layer here.

`mindspore.ops.GradOperation`, `ops.grad`, ... are autodiff (layer L3) but users reach them through
`ops` (L2); the top level puts them there once, by registration, so `ops` never imports upward.
"""
from mindseed import amp, autograd, common, compiler, nn, ops, train
from mindseed.common import api as _common_api
from mindseed.ops.function import grad as _function_grad

_AUTODIFF = ("grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "get_grad", "vmap", "linearize", "jet",
             "derivative")
for _name in ("GradOperation", "Morph") + _AUTODIFF:
    setattr(ops, _name, getattr(autograd, _name))
# ... and where MindSpore's module layout puts them: ops.functional / ops.function(.grad.grad_func), ops.composite
for _module in (ops.functional, ops.function, _function_grad, _function_grad.grad_func):
    for _name in _AUTODIFF:
        setattr(_module, _name, getattr(autograd, _name))
ops.composite.GradOperation = autograd.GradOperation
_function_grad.custom_vjp = _function_grad.grad_func.custom_vjp = autograd.custom_vjp

# graph compilation, reached from mindspore.common and mindspore.common.api
for _name in ("jit", "jit_class", "mutable", "JitConfig"):
    setattr(common, _name, getattr(compiler, _name))
for _name in ("jit", "jit_class"):
    setattr(_common_api, _name, getattr(compiler, _name))

# MindSpore's nn namespace also carries the metrics (and their module)
nn.metrics = train.metrics
for _name in list(train.metrics.__all__) + ["get_metrics"]:
    setattr(nn, _name, getattr(train.metrics, _name))

# loss-scale managers are importable from mindspore.train as well as mindspore.amp
for _name in ("FixedLossScaleManager", "DynamicLossScaleManager", "LossScaleManager"):
    setattr(train, _name, getattr(amp, _name))

# the summary ops (ops.ScalarSummary, ...) hand their values to SummaryRecord's cache
from mindseed.ops.operations import _more as _ops_more  # noqa: E402
from mindseed.train.summary import summary_record as _summary_record  # noqa: E402
_ops_more._SUMMARY_SINKS.append(_summary_record._record_summary_tensor)
