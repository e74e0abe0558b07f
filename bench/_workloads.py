"""The W1-W5 workloads of ../shared/bench/peers, run for mindseed and the torch peer in one process.

The model definitions are the peers' own files: `ms_w*.py` (MindSpore code) is executed with
`import mindspore` resolving to mindseed, and `torch_w*.py` as it is; their `train_main` /
`infer_main` helpers are replaced here by versions that build the step function and hand it to
the peers' shared timing harness (`common.run_benchmark`), whose results are collected instead of
only printed.
"""
import os
import sys
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PEERS = os.path.normpath(os.path.join(ROOT, "..", "shared", "bench", "peers"))
if not os.path.isfile(os.path.join(PEERS, "common.py")):
    raise ImportError(f"The peers' benchmark folder {PEERS} (../shared/bench/peers next to the repository) is missing.")
sys.path.insert(0, ROOT)
sys.path.insert(0, PEERS)

import common  # noqa: E402  (the peers' harness: weights, data, timing)

WORKLOADS = {"W1": "w1_mlp", "W2": "w2_lenet5", "W3": "w3_resnet20", "W4": "w4_gpt", "W5": "w5_resnet20_infer"}
_results = []


def _collect(fw, mode, wl, fields):
    _results.append(dict(fw=fw, mode=mode, wl=wl, **fields))
    print(f"  {fw:9s} {mode:9s} {wl:18s} {fields.get('steps_per_s', float('nan')):8.2f} steps/s  "
          f"loss0={fields.get('check0', float('nan')):.6f}  compile_s={fields.get('compile_s')}", flush=True)


common.emit = _collect


def last_result():
    return _results[-1]


def pop_option(args, flag, default, conv=str):
    """The value after `flag` in the argument list `args` (both removed from it), converted; else `default`."""
    if flag not in args:
        return default
    i = args.index(flag)
    value = conv(args[i + 1])
    del args[i:i + 2]
    return value


# ---------------------------------------------------------------- mindseed side
def _ms_util_module(mode, jit_level="O0"):
    import mindseed as ms  # noqa: PLC0415
    from mindseed import nn, ops  # noqa: PLC0415
    from mindseed.compat import install  # noqa: PLC0415
    install()
    rename = ((".gamma", ".weight"), (".beta", ".bias"), (".moving_mean", ".running_mean"),
              (".moving_variance", ".running_var"), (".embedding_table", ".weight"))

    def common_name(name):
        for a, b in rename:
            if name.endswith(a):
                return name[: -len(a)] + b
        return name

    def load_params(net, p):
        used = set()
        for name, prm in net.parameters_and_names():
            k = common_name(name)
            assert tuple(prm.shape) == p[k].shape, (name, prm.shape, p[k].shape)
            prm.set_data(ms.Tensor(p[k]))
            used.add(k)
        assert set(p) == used, sorted(set(p) - used)

    def train_main(wl, make_net, params, xs, ys):
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph_cell" else ms.PYNATIVE_MODE,
                       jit_config={"jit_level": jit_level})
        net = make_net()
        load_params(net, params)
        net.set_train(True)
        X = [ms.Tensor(x) for x in xs]
        Y = [ms.Tensor(y.astype(np.int32)) for y in ys]
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(net.trainable_params(), learning_rate=common.LR, momentum=common.MOMENTUM)
        if mode == "graph_cell":
            train_net = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
            train_net.set_train()

            def step(i):
                return train_net(X[i % common.N_BATCHES], Y[i % common.N_BATCHES])
        else:
            def forward_fn(x, y):
                return loss_fn(net(x), y)
            grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)

            def train_step(x, y):
                loss, grads = grad_fn(x, y)
                opt(grads)
                return loss
            if mode == "graph_jit":
                train_step = ms.jit(train_step)

            def step(i):
                return train_step(X[i % common.N_BATCHES], Y[i % common.N_BATCHES])
        common.run_benchmark("mindseed", mode, wl, step, sync=lambda out: out.asnumpy(),
                             to_float=lambda out: float(out.asnumpy()), compiled=(mode != "pynative"))
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_config={"jit_level": "O0"})

    def infer_main(wl, make_net, params, xs):
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph_cell" else ms.PYNATIVE_MODE,
                       jit_config={"jit_level": jit_level})
        net = make_net()
        load_params(net, params)
        net.set_train(False)
        X = [ms.Tensor(x) for x in xs]
        fwd = ms.jit(lambda x: net(x)) if mode == "graph_jit" else net

        def step(i):
            return fwd(X[i % common.N_BATCHES])
        common.run_benchmark("mindseed", mode, wl, step, sync=lambda out: out.asnumpy(),
                             to_float=lambda out: float(out.asnumpy().astype(np.float64).sum()),
                             compiled=(mode != "pynative"))
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_config={"jit_level": "O0"})

    m = types.ModuleType("_ms_util")
    m.nn, m.ops, m.Tensor, m.Parameter = nn, ops, ms.Tensor, ms.Parameter
    m.train_main, m.infer_main, m.load_params = train_main, infer_main, load_params
    return m


def _exec_as_main(path):
    """Run a peer script's main block, in a module registered under its own name: torch.compile's guards look
    a frame's globals up through sys.modules[__name__], and several peers run in this one process."""
    name = "_peer_" + os.path.splitext(os.path.basename(path))[0]
    source = open(path).read().replace('if __name__ == "__main__":', "if True:")
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    try:
        exec(compile(source, path, "exec"), module.__dict__)  # noqa: S102 -- the peers' benchmark script
    finally:
        del sys.modules[name]


def run_mindseed(wl_key, mode="pynative", jit_level="O0"):
    """Run one workload on mindseed in `mode` (pynative | graph_jit | graph_cell) at `jit_level` (O0 | O1);
    returns the result fields."""
    sys.modules["_ms_util"] = _ms_util_module(mode, jit_level)
    path = os.path.join(PEERS, f"ms_{WORKLOADS[wl_key]}.py")
    _exec_as_main(path)
    return last_result()


def run_torch(wl_key, mode="eager"):
    """Run one workload's torch peer in `mode` (eager | compile); returns the result fields."""
    import torch  # noqa: PLC0415 -- the peer; mindseed's backend turns torch's autograd off (inference mode)
    saved = sys.argv
    sys.argv = [saved[0], mode]
    # A fresh _torch_util per run: torch.compile caches the `__main__` module it saw in that module's globals.
    sys.modules.pop("_torch_util", None)
    if mode == "compile":
        torch._dynamo.reset()
    try:
        with torch.inference_mode(False), torch.enable_grad():
            path = os.path.join(PEERS, f"torch_{WORKLOADS[wl_key]}.py")
            _exec_as_main(path)
    finally:
        sys.argv = saved
    return last_result()
