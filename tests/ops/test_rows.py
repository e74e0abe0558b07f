"""Every registered primitive is exercised by some op-table row (tests/_harness.py), or is exempt with a reason.

The rows of all tables (every test module that calls `make_tests`) are run — forward in float64, and the gradient
where the row checks one — while a recorder notes each primitive called; a primitive no row reaches fails here,
so a new primitive comes with its row.
"""
import glob
import importlib.util
import os

import numpy as np
import pytest

import mindseed as ms
from mindseed._utils import _state
from mindseed.autograd._tape import Tape
from mindseed.ops._registry import registry

from _harness import OpSpec, _call

_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# primitive -> why no op-table row exercises it (and where it is tested instead)
EXEMPT = {
    # convolution kernels the Lite compiler picks by timing (mindseed/lite/_compile.py): each checked against
    # Convolution on the same inputs in tests/export/test_lite.py
    **{name: "Lite kernel; tests/export/test_lite.py" for name in ("ConvolutionGemm", "ConvolutionPacked")},
    # the in-place row updates of a Parameter (the TensorScatterMax/Min kernels with MindSpore's unmasked gradient)
    **{name: "in-place update; tests/ops/test_array.py" for name in ("ScatterMax", "ScatterMin")},
    # gradient kernels of CropAndResize, against its finite differences: tests/ops/test_crop_and_resize_grads.py
    **{name: "gradient kernel; tests/ops/test_crop_and_resize_grads.py" for name in (
        "CropAndResizeGradImage", "CropAndResizeGradBoxes")},
    # random draws: their values are not a function of the inputs (tests/ops/test_random.py checks statistics)
    **{name: "random; statistics in tests/ops/test_random.py" for name in (
        "Bernoulli", "Cauchy", "Exponential", "LogNormal", "Multinomial", "Poisson",
        "RandomCategorical", "RandomChoiceWithMask", "Randperm", "StandardGamma", "StandardLaplace", "StandardNormal",
        "UniformInt", "UniformReal", "RandExt", "Randn", "RandInt", "MultinomialExt", "BernoulliExt",
        "RandomShuffle", "RandpermV2", "CandidateSampler", "FractionalPoolSamples",
        "UniformCandidateSampler")},
    # collectives: tests/communication (a one-process group and two processes)
    **{name: "collective; tests/communication" for name in (
        "AllGather", "AllReduce", "Barrier", "Broadcast", "ReduceScatter", "AlltoAll", "AlltoAllV", "AlltoAllVC",
        "AllGatherV", "ReduceScatterV", "Reduce", "CollectiveGather", "CollectiveScatter", "Send", "Receive",
        "NeighborExchange", "NeighborExchangeV2", "NeighborExchangeV2Grad", "BatchISendIRecv", "Reshard")},
    # optimizer updates (ops/_prims/optim.py): never recorded for autodiff; each checked against its optimizer
    **{name: "optimizer update; tests/nn/test_optim_on_primitives.py and test_optim_primitives.py" for name in (
        "ApplyMomentum", "SGD", "Adam", "ApplyAdamWithAmsgradV2", "AdamWeightDecay", "ApplyAdagrad", "ApplyAdagradV2",
        "ApplyAdadelta", "ApplyAdaMax", "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyProximalAdagrad", "ApplyFtrl",
        "ApplyGradientDescent", "LARSUpdate", "Lamb", "ASGD", "Rprop", "AdaFactor", "AdamW", "Adamax", "RMSprop",
        "NAdam", "RAdam", "ApplyDecay", "GradScale", "GradNeg", "GradCentralization", "StepIncrement",
        "ScalarMulInPlace", "AssignValue")},
    **{name: "optimizer update; tests/ops/test_optim_sparse.py" for name in (
        "ApplyAddSign", "ApplyPowerSign", "ApplyProximalGradientDescent", "ApplyKerasMomentum", "ApplyAdagradDA",
        "AdamNoUpdateParam", "FusedWeightScaleApplyMomentum", "SparseApplyAdagrad", "SparseApplyAdadelta",
        "SparseApplyRMSProp", "SparseApplyCenteredRMSProp", "SparseApplyProximalAdagrad", "SparseApplyFtrl",
        "SparseApplyMomentum", "SparseApplyProximalGradientDescent", "SparseApplyAdagradDA", "FusedSparseLazyAdam",
        "FusedSparseAdam")},
    **{name: "state update; tests/ops/test_cache_fused.py" for name in (
        "UpdateCache", "FusedAdaFactor", "FusedCastAdamWeightDecay", "SparseApplyFtrlV2", "MapCacheIdx")},
    # integer or index results (no values for a float table row): tests/ops/test_prims_more.py
    **{name: "integer or index results; tests/ops/test_prims_more.py" for name in (
        "PadAndShift", "SubAndFilter", "RaggedRange", "EditDistance", "NMSWithMask", "CombinedNonMaxSuppression",
        "ComputeAccidentalHits", "NoRepeatNGram")},
    # state and graph plumbing: tests/compiler and tests/common
    "Assign": "updates a Parameter; tests/compiler/test_state_updates.py",
    "AddInplace": "in-place update; tests/compiler/test_passes_inplace.py",
    "ReLUInplace": "in-place pass output; tests/compiler/test_passes_inplace.py",
    "ReluGradInplace": "in-place pass output; tests/compiler/test_passes_inplace.py",
    "AddReLU": "fusion pass output; tests/compiler/test_passes_relu.py",
    "PyCall": "JIT fallback of Python code; tests/compiler/test_syntax_gaps.py",
    "Custom": "ops.Custom; tests/ops/test_composite_custom.py",
    "CustomMultiOutput": "ops.Custom; tests/ops/test_composite_custom.py",
    "Empty": "uninitialised memory: no value to compare; tests/ops/test_array.py",
    **{name: "loop stack of differentiated While graphs; tests/compiler/test_control_grad*.py" for name in (
        "StackNew", "StackPush", "StackGet", "StackLen")},
    **{name: "tensor indexing of dynamic size; tests/ops/test_array.py and tests/compiler" for name in (
        "GetitemDyn", "SetitemDyn", "SetitemZeroDyn")},
    "IndexAddGradDyn": "gradient of GetitemDyn, which exists only in compiled graphs (a compiled graph is one node on "
                       "a tape); tests/compiler/test_syntax_gaps.py",
    "FlashAttention": "fused attention pass output; tests/compiler/test_passes_attention.py",
    "FlashAttentionGrad": "fused attention pass output; tests/compiler/test_passes_attention.py",
    "MaxPool2x2GradGrad": "pool+relu pass output; tests/compiler/test_passes_pool_relu.py",
    "IndexAddGradN": "merged index gradients pass output; tests/compiler/test_passes_index_grads.py",
    "BatchNormUpdate": "moving statistics update; tests/compiler/test_passes_schedule.py and tests/nn",
    "SwitchLayerIndex": "index of a switch over cells in a compiled graph; tests/compiler/test_switch_layer_index.py",
    "Raise": "a graph's raise on a branch chosen at run time; tests/compiler/test_switch_layer_index.py",
}


def _table_specs():
    specs = []
    paths = glob.glob(os.path.join(_TESTS, "ops", "test_*.py")) + glob.glob(os.path.join(_TESTS, "nn", "test_*.py"))
    for path in sorted(paths):   # (the collective table of tests/communication needs a process group)
        with open(path, encoding="utf-8") as f:
            if "make_tests(" not in f.read():
                continue
        name = "_rows_" + os.path.relpath(path, _TESTS).replace(os.sep, "_")[:-3]
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for value in vars(module).values():
            if isinstance(value, (list, tuple)) and value and all(isinstance(v, OpSpec) for v in value):
                specs += [v for v in value if v not in specs]
    return specs


class _Recorder(Tape):
    """A tape that tracks nothing and only notes which primitives ran."""

    def __init__(self):
        super().__init__()
        self.seen = set()

    def record(self, prim, args, attrs, out):
        self.seen.add(prim.name)


def _exercise(spec):
    arrays = spec.arrays("float64")
    _call(spec, arrays)
    if spec.grad:
        positions = tuple(i for i, a in enumerate(arrays) if a.dtype.kind == "f") \
            if spec.grad_inputs is None else spec.grad_inputs

        def objective(*xs):
            args = [ms.Tensor(a) for a in arrays]
            for p, x in zip(positions, xs):
                args[p] = x
            out = spec.fn(*args, *spec.extra, **spec.kwargs)
            outs = out if isinstance(out, (tuple, list)) else (out,)
            return sum(o.astype(ms.float64).sum() for o in outs if o.dtype in (ms.float32, ms.float64))

        ms.grad(objective, grad_position=tuple(range(len(positions))))(*[ms.Tensor(arrays[p]) for p in positions])


@pytest.mark.filterwarnings("ignore")   # the tables' own numpy references and JIT fallbacks warn on purpose
def test_every_primitive_has_a_row():
    recorder = _Recorder()
    _state.tapes.append(recorder)
    try:
        for spec in _table_specs():
            _exercise(spec)
    finally:
        _state.tapes.remove(recorder)
    stale = sorted(name for name in EXEMPT if name not in registry or name in recorder.seen)
    assert not stale, f"exempt primitives that no longer exist or now have a row (drop them from EXEMPT): {stale}"
    missing = sorted(set(registry) - recorder.seen - set(EXEMPT))
    assert not missing, f"primitives that no op-table row exercises (add an OpSpec row): {missing}"


def test_recorder_sees_primitives():
    recorder = _Recorder()
    _state.tapes.append(recorder)
    try:
        ms.ops.sin(ms.Tensor(np.ones(3, np.float32)))
    finally:
        _state.tapes.remove(recorder)
    assert recorder.seen == {"Sin"}
