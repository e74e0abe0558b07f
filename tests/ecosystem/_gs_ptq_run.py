"""Golden Stick's PTQ (`mindspore_gs.ptq.PTQ`) on a tiny mindformers Llama through its `MFLlama2Helper`, run as

    python _gs_ptq_run.py APPROACH WORKDIR        (APPROACH: a key of `config`'s table)

a plain script in a process of its own (mindseed.compat installed here): Golden Stick's logger walks the whole call
stack (`inspect.stack()`) at every message, and frames of `python -m` (runpy's frozen ones) cost a scan of every
loaded module each, so a run under `-m` or under pytest takes several times as long.

The Llama is float16 (the dtype Golden Stick's quantized matmuls take), with the unfused RMSNorm and the sliced
rotary embedding (the forms MindSpore also runs on CPU); its weights are N(0, 0.2). Four prompts of 8 tokens
calibrate. WORKDIR/result.npz gets the float weights (`float:<name>`), the quantized network's parameters
(`quant:<name>`), and the logits of the first prompt before (`logits_float`) and after (`logits_quant`).
"""
import os
import sys

import numpy as np

VOCAB, SEQ, HIDDEN = 64, 16, 32
TINY_LLAMA = dict(batch_size=1, seq_length=SEQ, hidden_size=HIDDEN, num_layers=2, num_heads=4, vocab_size=VOCAB,
                  intermediate_size=2 * HIDDEN, compute_dtype="float16", param_init_type="float16",
                  layernorm_compute_type="float32", softmax_compute_type="float32", rotary_dtype="float32",
                  do_sample=False, max_decode_length=SEQ, top_k=1, top_p=1.0, use_past=False,
                  fused_rms_norm=False, use_rope_slice=True)


def prompts():
    return np.random.default_rng(0).integers(1, VOCAB, (4, 8)).astype(np.int32)


def config(approach):
    from mindspore import dtype
    from mindspore_gs.common import BackendTarget
    from mindspore_gs.ptq import AWQConfig, GPTQQuantConfig, PTQConfig, PTQMode, PrecisionRecovery
    from mindspore_gs.ptq.ptq_config import OutliersSuppressionType as OS, QuantGranularity as QG
    a8 = {"act_quant_dtype": dtype.int8}
    kinds = {"A16W8": {},
             "GPTQ": {"precision_recovery": PrecisionRecovery.GPTQ},
             "A8W8": a8,                                                # per-tensor activations
             "SMOOTH": dict(a8, outliers_suppression=OS.SMOOTH),        # SmoothQuant
             "OSP": dict(a8, outliers_suppression=OS.OUTLIER_SUPPRESSION_PLUS),
             "A8DYN": dict(a8, act_quant_granularity=QG.PER_TOKEN),     # activations quantized per token at run time
             # A8W4: int4 weights by GPTQ (act-order, static groups), int8 activations per token at run time
             "A8W4": dict(a8, weight_quant_dtype=dtype.qint4x2, act_quant_granularity=QG.PER_TOKEN,
                          precision_recovery=PrecisionRecovery.GPTQ,
                          algo_args=GPTQQuantConfig(desc_act=True, static_groups=True)),
             # A16W4: a short search (4 smoothing exponents, 3 clip ratios) keeps the run short
             "AWQ": {"weight_quant_dtype": dtype.qint4x2, "outliers_suppression": OS.AWQ,
                     "algo_args": AWQConfig(smooth_alpha=[0.0, 0.25, 0.5, 0.75], weight_clip_ratio=[1.0, 0.9, 0.8])}}
    kind = dict({"weight_quant_dtype": dtype.int8}, **kinds[approach])
    return PTQConfig(mode=PTQMode.QUANTIZE, backend=BackendTarget.ASCEND, **kind)


def logits(net, ids):
    import mindspore as ms
    out = net(ms.Tensor(np.pad(ids, ((0, 0), (0, SEQ - ids.shape[1])))))
    return (out[0] if isinstance(out, tuple) else out).asnumpy().astype(np.float32)


def run(approach, workdir):
    import mindspore as ms
    from datasets import Dataset
    from mindformers import MindFormerConfig
    from mindformers.models.llama import LlamaConfig, LlamaForCausalLM
    from mindspore_gs.ptq import PTQ
    from mindspore_gs.ptq.network_helpers.mf_net_helpers import MFLlama2Helper
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    helper = MFLlama2Helper(MindFormerConfig(
        model={"model_config": dict(TINY_LLAMA, type="LlamaConfig"), "arch": {"type": "LlamaForCausalLM"}},
        parallel_config={}, moe_config={}, use_parallel=False))
    ms.set_seed(0)
    net = LlamaForCausalLM(LlamaConfig(**TINY_LLAMA))
    rng = np.random.default_rng(0)
    for p in net.trainable_params():
        p.set_data(ms.Tensor(rng.normal(0, 0.2, p.shape).astype(np.float16 if p.dtype == ms.float16 else np.float32)))
    net.set_train(False)
    ids = prompts()
    result = {"logits_float": logits(net, ids[:1])}
    result.update({f"float:{p.name}": p.asnumpy().copy() for p in net.trainable_params()})
    calibration = Dataset.from_dict({"input_ids": [row[None] for row in ids]})
    calibration.set_transform(lambda rows: {"input_ids": np.array(rows["input_ids"])})
    ptq = PTQ(config(approach))
    quantized = ptq.convert(ptq.apply(net, helper, datasets=calibration))
    result.update({f"quant:{name}": p.asnumpy() for name, p in quantized.parameters_and_names()})
    np.savez(os.path.join(workdir, "result.npz"), **result)
    result["logits_quant"] = logits(quantized, ids[:1])      # MindSpore's CPU has no kernel of the int8 matmuls
    np.savez(os.path.join(workdir, "result.npz"), **result)


if __name__ == "__main__":
    from mindseed import compat
    compat.install()
    run(*sys.argv[1:3])
