"""mindformers 2.1.0, unmodified, on mindseed: its legacy Llama (`mindformers.models.llama`) built from a tiny
`LlamaConfig`, run forward, trained a few steps with MindSpore's `value_and_grad` and optimizer, then `generate`; the
same model through mindformers' high-level entry points (a YAML config read by `MindFormerConfig` and run by `Trainer`,
`TrainingArguments`, `pipeline("text_generation")`).

The training data is a counting sequence (token t is followed by t + 1): a model that learns it continues any prompt
by counting, which `generate` shows token for token.
"""
import contextlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from _eco import HERE, require, use
from _mindformers_run import BATCH, PROMPTS, SEQ, TINY_LLAMA, VOCAB, counting as _counting, greedy as _greedy
from _mindformers_run import tiny_llama as _tiny_llama, train_to_count as _train_to_count
from _mindformers_run import word_tokenizer as _word_tokenizer

ROOT = os.path.dirname(os.path.dirname(HERE))      # the repository: mindseed for the runs in a process of their own



@pytest.fixture(scope="module")
def mindformers(tmp_path_factory):
    # mindformers writes its logs under $LOCAL_DEFAULT_PATH (default ./output): keep them out of the work tree
    os.environ.setdefault("LOCAL_DEFAULT_PATH", str(tmp_path_factory.mktemp("mindformers_output")))
    return use("mindformers", "mindformers")


@contextlib.contextmanager
def _mindformers_context():
    """Undo what mindformers' context set-up (`build_context`, which `Trainer` runs) leaves behind: its context
    singletons, the execution mode, and the once-per-process runtime settings it makes (CPU affinity, memory), so
    that a later test's context set-up finds the process as a fresh one."""
    import mindspore as ms
    from mindformers.core.context.build_context import Context, MFContextOperator
    from mindseed import runtime
    once = dict(runtime._config)
    try:
        yield
    finally:
        Context.reset_instance()
        MFContextOperator.reset_instance()
        ms.set_context(mode=ms.PYNATIVE_MODE)
        runtime._config.clear()
        runtime._config.update(once)


def test_llama_forward_loss_is_the_uniform_guess_at_initialisation(mindformers):
    import mindspore as ms
    net = _tiny_llama()
    assert sum(int(np.prod(p.shape)) for p in net.trainable_params()) == (
        VOCAB * 32                                          # embedding
        + 2 * (4 * 32 * 32 + 3 * 32 * 64 + 2 * 32)          # per layer: wq wk wv wo, w1 w2 w3, two RMSNorm weights
        + 32 + 32 * VOCAB)                                  # final norm, lm_head
    net.set_train(True)
    loss = float(net(ms.Tensor(_counting([3, 30]))).asnumpy().reshape(-1)[0])
    # weights start at N(0, 0.01): the logits are near 0 and the loss near log(VOCAB)
    assert abs(loss - np.log(VOCAB)) < 0.05, loss


def test_llama_trains_and_generates_what_it_learned(mindformers):
    import mindspore as ms
    net = _tiny_llama()
    losses = _train_to_count(net, steps=80)
    assert losses[0] > 4.0 and np.mean(losses[-5:]) < 0.1, losses
    net.set_train(False)
    prompts = _counting([5, 40])[:, :4]
    out = net.generate(prompts.tolist(), max_length=12, do_sample=False)
    np.testing.assert_array_equal(np.array([list(o) for o in out]), _counting([5, 40])[:, :12])
    # the same weights in the incremental-inference form (a paged key/value cache, prefill then one token per step)
    cached = _tiny_llama(seed=1, use_past=True)
    cached.set_train(False)
    not_loaded, _ = ms.load_param_into_net(cached, {p.name: p for p in net.get_parameters()})
    assert sorted(n.rsplit(".", 1)[1] for n in not_loaded) == ["key_cache"] * 2 + ["value_cache"] * 2, not_loaded
    out = cached.generate(prompts.tolist(), max_length=12, do_sample=False)
    np.testing.assert_array_equal(np.array([list(o) for o in out]), _counting([5, 40])[:, :12])


def test_llama_training_steps_equal_mindspores(mindformers):
    """The tiny Llama in the form MindSpore 2.10's CPU kernels run (`use_rope_slice`, the unfused RMSNorm: its
    PyNative has no RmsNorm kernel, its graph no broadcasting BatchMatMul for the rotary swap), weights set from a
    seeded numpy stream, six AdamWeightDecay steps on counting rows: the losses and gradient norms MindSpore 2.10
    printed for the same script, and the logits after them. (A legacy model: it runs before the `mcore` fixture
    switches mindformers to its mcore models for the rest of the module.)"""
    import mindspore as ms
    from mindspore import nn
    from mindformers.models.llama import LlamaConfig, LlamaForCausalLM
    net = LlamaForCausalLM(LlamaConfig(**TINY_LLAMA, use_rope_slice=True, fused_rms_norm=False))
    rng = np.random.RandomState(0)
    for p in sorted(net.trainable_params(), key=lambda p: p.name):
        v = 1.0 + 0.1 * rng.randn(*p.shape) if len(p.shape) == 1 else 0.05 * rng.randn(*p.shape)
        p.set_data(ms.Tensor(v.astype(np.float32)))
    net.set_train(True)
    opt = nn.AdamWeightDecay(net.trainable_params(), learning_rate=1e-2, weight_decay=0.01)
    step = ms.value_and_grad(net, None, opt.parameters)
    data = np.random.RandomState(1)
    got = []
    for _ in range(6):
        loss, grads = step(ms.Tensor(_counting(data.randint(1, VOCAB, BATCH))))
        opt(grads)
        got.append((float(loss.asnumpy().reshape(-1)[0]),
                    float(np.sqrt(sum((g.asnumpy().astype(np.float64) ** 2).sum() for g in grads)))))
    oracle = [(4.20838, 2.635918), (4.242311, 4.351506), (3.847073, 1.671504), (3.41971, 1.130495),
              (3.900881, 11.353648), (3.061634, 1.73723)]
    np.testing.assert_allclose(np.array(got), np.array(oracle), rtol=1e-4)
    net.set_train(False)
    out = net(ms.Tensor(_counting([5, 40])[:, :SEQ]))
    logits = (out[0] if isinstance(out, tuple) else out).asnumpy()
    np.testing.assert_allclose(logits.reshape(-1)[:6], [1.97656, 2.12568, 2.70651, 3.5935, 3.50476, 3.32999],
                               rtol=1e-4)
    np.testing.assert_allclose(np.abs(logits).sum(), 3131.795, rtol=1e-4)


def test_mindformers_training_cell_in_graph_mode(mindformers):
    """mindformers' own training step (MFTrainOneStepCell with its AdamW and gradient clipping, its documented
    example) compiled in GRAPH_MODE: the global norm it reports is that of the gradients PyNative computes, and the
    loss falls."""
    import mindspore as ms
    from mindformers.core.optim import AdamW
    from mindformers.wrapper import MFTrainOneStepCell
    batches = [_counting(b) for b in np.random.default_rng(1).integers(1, VOCAB, (60, BATCH))]
    reference = _tiny_llama()
    reference.set_train(True)
    _, grads = ms.value_and_grad(reference, None, reference.trainable_params())(ms.Tensor(batches[0]))
    norm = np.sqrt(sum(float((g.asnumpy().astype(np.float64) ** 2).sum()) for g in grads))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _tiny_llama()
        net.set_train(True)
        step = MFTrainOneStepCell(net, AdamW(net.trainable_params(), learning_rate=5e-3), use_clip_grad=True,
                                  max_grad_norm=1.0)
        losses = []
        for i, batch in enumerate(batches):
            loss, overflow, scale, _, global_norm = step(ms.Tensor(batch))
            if i == 0:
                assert not bool(overflow.asnumpy()) and float(scale.asnumpy()) == 1.0
                np.testing.assert_allclose(float(global_norm.asnumpy().reshape(-1)[0]), norm, rtol=1e-4)
            losses.append(float(loss.asnumpy().reshape(-1)[0]))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert losses[0] > 4.0 and np.mean(losses[-5:]) < 1.0, losses


def test_chatglm2_trains_and_generates_what_it_learned(mindformers):
    """ChatGLM2 (`mindformers.models.glm2`: multi-query attention, its own rotary embedding and dropout layers),
    tiny, trained on the counting sequence with separate labels, as its `construct(input_ids, labels)` takes them."""
    import mindspore as ms
    from mindformers.models.glm2 import ChatGLM2Config, ChatGLM2ForConditionalGeneration
    ms.set_seed(0)
    config = ChatGLM2Config(batch_size=BATCH, num_layers=2, padded_vocab_size=VOCAB, hidden_size=32, ffn_hidden_size=64,
                            kv_channels=8, num_attention_heads=4, seq_length=SEQ, multi_query_group_num=2,
                            param_init_type="float32", compute_dtype="float32", layernorm_compute_type="float32",
                            rotary_dtype="float32", do_sample=False, max_decode_length=SEQ)
    net = ChatGLM2ForConditionalGeneration(config)
    losses = _train_to_count(net, net)
    assert abs(losses[0] - np.log(VOCAB)) < 0.05 and np.mean(losses[-5:]) < 0.1, losses
    net.set_train(False)
    out = net.generate(_counting([3, 30])[:, :4].tolist(), max_length=12, do_sample=False)
    np.testing.assert_array_equal(np.array([list(o) for o in out]), _counting([3, 30])[:, :12])


# A run configuration in the layout of mindformers' configs/llama*/ YAMLs; the model section is TINY_LLAMA.
TRAINER_YAML = """
seed: 0
output_dir: '{output_dir}'
load_checkpoint: ''
auto_trans_ckpt: False
resume_training: False
run_mode: 'train'
use_parallel: False

trainer:
  type: CausalLanguageModelingTrainer
  model_name: 'llama_tiny'

runner_config:
  epochs: 2
  batch_size: {batch}
  sink_mode: False
  sink_size: 1

optimizer:
  type: AdamW
  betas: [0.9, 0.95]
  eps: 1.e-8
  weight_decay: 0.0

lr_schedule:
  type: CosineWithWarmUpLR
  learning_rate: 5.e-3
  lr_end: 2.e-3
  warmup_ratio: 0.0
  total_steps: -1

train_dataset: &train_dataset
  data_loader:
    type: MindDataset
    dataset_dir: '{data}'
    shuffle: False
  input_columns: ["input_ids"]
  num_parallel_workers: 1
  python_multiprocessing: False
  drop_remainder: True
  batch_size: {batch}
  repeat: 1
  numa_enable: False
  prefetch_size: 1
train_dataset_task:
  type: CausalLanguageModelDataset
  dataset_config: *train_dataset

parallel:
  parallel_mode: 0
  gradients_mean: False
  full_batch: True
parallel_config:
  data_parallel: 1
  model_parallel: 1
  pipeline_stage: 1
  micro_batch_num: 1
  vocab_emb_dp: True
  gradient_aggregation_group: 4
micro_batch_interleave_num: 1

{model}
runner_wrapper:
  type: MFTrainOneStepCell
  scale_sense: 1.0
  use_clip_grad: True

callbacks:
  - type: MFLossMonitor
  - type: CheckpointMonitor
    prefix: "llama_tiny"
    save_checkpoint_steps: 1000
    keep_checkpoint_max: 1
    integrated_save: False
    async_save: False

processor:
  return_tensors: ms
  tokenizer:
    type: LlamaTokenizerFast
    vocab_file: ~
    tokenizer_file: '{tokenizer}'
    add_bos_token: False
    pad_token: '<unk>'

context:
  mode: 0
  device_target: "CPU"
"""


def _run(mode, workdir):
    """`python -m mindseed.compat -m _mindformers_run MODE WORKDIR`, in WORKDIR; what it saw."""
    env = dict(os.environ, OMP_NUM_THREADS="1", LOCAL_DEFAULT_PATH=str(workdir),
               PYTHONPATH=os.pathsep.join([ROOT, HERE, require("mindformers")]))
    proc = subprocess.run([sys.executable, "-m", "mindseed.compat", "-m", "_mindformers_run", mode, str(workdir)],
                          cwd=workdir, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads((workdir / "result.json").read_text())


def test_trainer_trains_from_a_yaml_config_and_predicts(mindformers, tmp_path):
    """The documented flow of mindformers' run_mindformer.py: a YAML run configuration (model, optimizer, lr schedule,
    a MindRecord train dataset, callbacks, tokenizer) read by `MindFormerConfig`, its context set by `build_context`
    (GRAPH_MODE), `Trainer(args=config).train()`, then `trainer.predict(predict_checkpoint=True)` from the checkpoint
    the training wrote; here `pipeline("text_generation")` over a network loaded from that checkpoint. All continue
    the counting sequence, the ids a greedy loop by hand picks."""
    import yaml         # pyyaml comes with mindformers (its directory in ~/.cache/mindseed-eco)
    import mindspore as ms
    from mindspore.mindrecord import FileWriter
    from mindformers import pipeline
    from mindformers.models.llama import LlamaTokenizerFast
    data = str(tmp_path / "counting.mindrecord")
    writer = FileWriter(data, 1)
    writer.add_schema({"input_ids": {"type": "int32", "shape": [-1]}}, "counting")
    writer.write_raw_data([{"input_ids": row} for row in _counting(np.random.default_rng(0).integers(1, VOCAB, 128))])
    writer.commit()
    tokenizer_file = _word_tokenizer(tmp_path / "tokenizer.json")
    model = yaml.safe_dump({"model": {"model_config": {"type": "LlamaConfig", **TINY_LLAMA},
                                      "arch": {"type": "LlamaForCausalLM"}}}, sort_keys=False)
    (tmp_path / "run_llama_tiny.yaml").write_text(TRAINER_YAML.format(
        output_dir=tmp_path / "output", data=data, batch=BATCH, tokenizer=tokenizer_file, model=model))
    seen = _run("yaml", tmp_path)
    losses = seen["losses"]
    assert seen["mode"] == ms.GRAPH_MODE and len(losses) == 2 * 128 // BATCH, (seen["mode"], len(losses))
    assert abs(losses[0] - np.log(VOCAB)) < 0.05 and np.mean(losses[-5:]) < 0.1, losses
    expected = _counting([int(p.split()[0]) for p in PROMPTS])[:, :12]
    assert seen["texts"] == [" ".join(map(str, row)) for row in expected], seen["texts"]
    checkpoint = tmp_path / "output" / "checkpoint" / "rank_0" / "llama_tiny_rank_0-2_64.ckpt"
    assert checkpoint.is_file(), sorted(p.name for p in (tmp_path / "output").rglob("*"))
    net = _tiny_llama(seed=1)
    not_loaded, _ = ms.load_param_into_net(net, ms.load_checkpoint(str(checkpoint)))
    assert not not_loaded, not_loaded
    net.set_train(False)
    np.testing.assert_array_equal(_greedy(net, expected[:, :4], 12), expected)
    tokenizer = LlamaTokenizerFast(tokenizer_file=tokenizer_file, add_bos_token=False, pad_token="<unk>")
    generator = pipeline("text_generation", model=net, tokenizer=tokenizer, max_length=12, do_sample=False)
    assert [r["text_generation_text"][0] for r in generator(["9 10 11 12"])] == [" ".join(map(str, range(9, 21)))]


def test_trainer_with_training_arguments_and_a_model_instance(mindformers, tmp_path):
    """The other documented construction (mindformers' own `run_check` uses it): `TrainingArguments`, a model instance,
    a `GeneratorDataset`, mindformers' AdamW over `get_optimizer_grouped_parameters`; it trains in PyNative mode and
    the model then generates what a greedy loop by hand picks."""
    import mindspore as ms
    seen = _run("arguments", tmp_path)
    losses = seen["losses"]
    assert seen["mode"] == ms.PYNATIVE_MODE and len(losses) == 128 // BATCH, (seen["mode"], len(losses))
    assert abs(losses[0] - np.log(VOCAB)) < 0.05 and np.mean(losses[-5:]) < 0.3, losses
    assert seen["generated"] == seen["greedy"], seen


# mcore models (`use_legacy: False`) need mindformers' context, which is set up once per process (it makes MindSpore's
# once-only runtime settings): one for the module's last tests, undone after them.
MCORE_TINY = dict(num_hidden_layers=2, hidden_size=32, num_attention_heads=4, num_key_value_heads=4, head_dim=8,
                  intermediate_size=64, vocab_size=VOCAB, seq_length=SEQ, max_position_embeddings=SEQ,
                  compute_dtype="float32", params_dtype="float32", layernorm_compute_dtype="float32",
                  softmax_compute_dtype="float32", rotary_dtype="float32", pad_token_id=0, eos_token_id=0,
                  bos_token_id=0)


@pytest.fixture(scope="module")
def mcore(mindformers):
    from mindformers import build_context
    with _mindformers_context():
        build_context({"use_legacy": False, "context": {"mode": "GRAPH_MODE", "device_target": "CPU"}, "parallel": {}})
        yield


def _learns_to_count(net):
    """Train `net` (an mcore causal LM: `net(x, labels=y)[0]` is its loss) on the counting rows; it then continues
    prompts by counting. The losses."""
    losses = _train_to_count(net, lambda x, y: net(x, labels=y)[0])
    net.set_train(False)
    out = net.generate(_counting([5, 40])[:, :4].tolist(), max_length=12, do_sample=False)
    np.testing.assert_array_equal(np.array([list(o) for o in out]), _counting([5, 40])[:, :12])
    return losses


def test_mcore_qwen3_trains_and_generates_what_it_learned(mcore):
    """A newer "mcore" model: `Qwen3ForCausalLM` after `build_context` (GRAPH_MODE, `use_legacy: False`) is
    mindformers' `TrainingQwen3ForCausalLM` (GPTModel from Megatron-style layers: fused QKV with q/k RMSNorm, gated
    MLP, its counter-based `Dropout` over `Generator._step` and `DropoutExt`), built tiny, trained with separate
    labels and asked to continue the counting sequence."""
    import mindspore as ms
    from mindformers.models.qwen3 import Qwen3Config, Qwen3ForCausalLM
    ms.set_seed(0)
    net = Qwen3ForCausalLM(Qwen3Config(**MCORE_TINY, hidden_dropout=0.1))
    assert type(net).__name__ == "TrainingQwen3ForCausalLM"
    assert sum(int(np.prod(p.shape)) for p in net.trainable_params()) == (
        VOCAB * 32                                                          # embedding
        + 2 * (32 * 32 + 3 * 32 * 32 + 2 * 8 + 2 * 32 * 64 + 32 * 64 + 2 * 32)  # proj, qkv, q/k norms, mlp, norms
        + 32 + 32 * VOCAB)                                                  # final norm, output layer
    losses = _learns_to_count(net)
    assert abs(losses[0] - np.log(VOCAB)) < 0.1 and np.mean(losses[-5:]) < 0.2, losses


def _inference_twin(trained, build, monkeypatch, heads=4, groups=4):
    """The inference form of an mcore model (`RUN_MODE=predict`: mindformers' `Inference...ForCausalLM`, prefill of
    the prompts packed one after another in 'TH' flash attention, then decoding over a paged key/value cache) with
    the trained model's weights, moved from the training layouts (Megatron's: q, k, v rows interleaved per key/value
    group, gate and up rows interleaved) to the inference ones (all q, all k, all v; all gate, all up), as
    mindformers' weight conversion lays them out for each."""
    import mindspore as ms
    monkeypatch.setenv("RUN_MODE", "predict")
    net = build()
    assert type(net).__name__.startswith("Inference"), type(net).__name__
    weights = {}
    for p in trained.get_parameters():
        w = p.asnumpy()
        if p.name.endswith("linear_qkv.weight"):
            per_group = w.reshape(groups, -1, w.shape[-1])        # (groups, (heads / groups + 2) * dim, hidden)
            rep = heads // groups
            dim = per_group.shape[1] // (rep + 2)
            w = np.concatenate([t.reshape(-1, w.shape[-1])
                                for t in np.split(per_group, [rep * dim, (rep + 1) * dim], 1)], 0)
        elif p.name.endswith("mlp.linear_fc1.weight"):
            w = np.concatenate([w[0::2], w[1::2]], 0)
        weights[p.name] = ms.Parameter(ms.Tensor(w), name=p.name)
    not_loaded, _ = ms.load_param_into_net(net, weights)
    assert not not_loaded, not_loaded
    net.set_train(False)
    return net


def _generates_as_trained(trained, net):
    """The inference model continues prompts of different lengths (padded with 0) by counting, call after call, and
    its logits at each step are the trained model's."""
    prompts = [[5, 6, 7, 8], [40, 41, 0, 0]]
    for _ in range(2):      # the second generate runs the 'prefill' / 'increment' graphs the first compiled
        out = net.generate(prompts, max_length=12, do_sample=False)
        assert [list(map(int, o)) for o in out] == [list(range(5, 17)), list(range(40, 52))]
    want = trained.generate(prompts, max_length=8, do_sample=False, return_dict_in_generate=True, output_logits=True)
    got = net.generate(prompts, max_length=8, do_sample=False, return_dict_in_generate=True, output_logits=True)
    assert len(got.logits) == len(want.logits) == 6       # the second prompt needs 6 steps to reach 8 tokens
    for step, (g, w) in enumerate(zip(got.logits, want.logits)):
        rows = [0, 1] if step < 4 else [1]               # the first prompt is done after 4
        # NOTE: the training attention computes in float16 (FlashAttentionScore's dtypes), the inference one in float32
        np.testing.assert_allclose(np.asarray(g)[rows], np.asarray(w)[rows], rtol=1e-3, atol=5e-3)


def test_mcore_qwen3_inference_model_generates_with_a_paged_cache(mcore, monkeypatch):
    from mindformers.models.qwen3 import Qwen3Config, Qwen3ForCausalLM
    import mindspore as ms
    ms.set_seed(0)
    trained = Qwen3ForCausalLM(Qwen3Config(**MCORE_TINY))
    _learns_to_count(trained)
    net = _inference_twin(trained, lambda: Qwen3ForCausalLM(Qwen3Config(**MCORE_TINY)), monkeypatch)
    _generates_as_trained(trained, net)


def test_mcore_qwen3_moe_routes_tokens_to_experts_and_trains(mcore):
    """A mixture of experts: `Qwen3MoeForCausalLM` (mcore `TrainingQwen3MoeForCausalLM`: each layer's MLP a
    `MoELayer`, a softmax top-2 router over 4 experts whose grouped SwiGLU FFN runs as one `Morph` operator of token
    permutation, `GroupedMatmul` by the tokens per expert, unpermutation). The layer's output is the routed experts'
    weighted sum computed by hand; the model trains to count."""
    import mindspore as ms
    from mindformers.models.qwen3_moe import Qwen3MoeConfig, Qwen3MoeForCausalLM
    ms.set_seed(0)
    experts, top_k, ffn, hidden = 4, 2, 16, 32
    net = Qwen3MoeForCausalLM(Qwen3MoeConfig(**MCORE_TINY, num_experts=experts, num_experts_per_tok=top_k,
                                             moe_intermediate_size=ffn, moe_grouped_gemm=True,
                                             router_dense_type="float32", routed_scaling_factor=1.0))
    assert type(net).__name__ == "TrainingQwen3MoeForCausalLM"
    assert sum(int(np.prod(p.shape)) for p in net.trainable_params()) == (
        VOCAB * hidden
        + 2 * (32 * 32 + 3 * 32 * 32 + 2 * 8 + 2 * 32                # attention, q/k norms, norms
               + experts * hidden                                   # router
               + experts * (hidden * 2 * ffn + ffn * hidden))       # experts: gate and up, down
        + 32 + 32 * VOCAB)
    losses = _learns_to_count(net)
    assert abs(losses[0] - np.log(VOCAB)) < 0.1 and np.mean(losses[-5:]) < 0.2, losses
    # the first layer's MoE, on hidden states (sequence, batch, hidden), against the routing done by hand
    moe = dict(net.cells_and_names())["model.decoder.layers.0.mlp"]
    x = np.random.default_rng(3).standard_normal((SEQ, BATCH, hidden)).astype(np.float32)
    out = moe(ms.Tensor(x))[0].asnumpy()
    tokens = x.transpose(1, 0, 2).reshape(-1, hidden)
    logits = tokens @ moe.router.weight.asnumpy().T
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    chosen = np.argsort(-probs, -1)[:, :top_k]
    assert len(np.unique(chosen)) == experts, chosen                    # every expert gets tokens
    w1 = moe.experts.weight1.asnumpy().reshape(experts, hidden, 2 * ffn)
    w2 = moe.experts.weight2.asnumpy().reshape(experts, ffn, hidden)
    want = np.zeros_like(tokens)
    for t, token in enumerate(tokens):
        for e in chosen[t]:
            gate, up = np.split(token @ w1[e], 2)
            want[t] += probs[t, e] * ((gate / (1 + np.exp(-gate)) * up) @ w2[e])
    want = want.reshape(BATCH, SEQ, hidden).transpose(1, 0, 2)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5 * np.abs(want).max())


DEEPSEEK_TINY = dict({k: v for k, v in MCORE_TINY.items() if k != "head_dim"}, num_hidden_layers=2,
                     moe_intermediate_size=16, num_nextn_predict_layers=0, n_shared_experts=1, n_routed_experts=4,
                     routed_scaling_factor=1.0, kv_lora_rank=16, q_lora_rank=24, qk_rope_head_dim=4, v_head_dim=8,
                     qk_nope_head_dim=8, n_group=2, topk_group=1, num_experts_per_tok=2, first_k_dense_replace=1,
                     router_dense_type="float32", moe_grouped_gemm=True, multi_latent_attention=True,
                     moe_router_enable_expert_bias=True)


def test_mcore_deepseek_v3_with_latent_attention_and_shared_experts_trains(mcore):
    """DeepSeek-V3 (mcore `TrainingDeepseekV3ForCausalLM`): multi-latent attention (low-rank q and kv with a decoupled
    rotary part), a dense first layer then a MoE layer with a shared expert beside 4 routed ones, sigmoid scores
    routed top-2 within the best of 2 expert groups, with expert bias. Built tiny, it learns to count."""
    import mindspore as ms
    from mindformers.models.deepseek3 import DeepseekV3Config, DeepseekV3ForCausalLM
    ms.set_seed(0)
    config = dict(DEEPSEEK_TINY)
    net = DeepseekV3ForCausalLM(DeepseekV3Config(**config))
    assert type(net).__name__ == "TrainingDeepseekV3ForCausalLM"
    attention = (32 * 32                          # output projection from 4 heads of v 8
                 + (24 + 16 + 4) * 32             # down-projections: q rank 24, kv rank 16, shared rotary key 4
                 + 4 * (8 + 4) * 24               # q up-projection: per head 8 no-rope + 4 rope
                 + 4 * (8 + 8) * 16               # kv up-projection: per head key 8 + value 8
                 + 2 * 32)                        # the two norms
    assert sum(int(np.prod(p.shape)) for p in net.trainable_params()) == (
        VOCAB * 32
        + attention + 2 * 64 * 32 + 64 * 32                                  # layer 0: dense gated MLP
        + attention + 4 * 32 + 4 * (32 * 2 * 16 + 16 * 32) + 32 * 2 * 16 + 16 * 32   # layer 1: router, experts, shared
        + 32 + 32 * VOCAB)
    losses = _train_to_count(net, lambda x, y: net(x, labels=y)[0])
    assert abs(losses[0] - np.log(VOCAB)) < 0.1 and np.mean(losses[-5:]) < 0.2, losses


def test_learning_rate_schedules_in_graph_mode_follow_their_formulas(mindformers):
    """mindformers.core's warm-up schedules (their construct returns from a nested branch) in graph mode: the
    values of their documented examples."""
    import mindspore as ms
    from mindformers.core import CosineWithRestartsAndWarmUpLR, CosineWithWarmUpLR, PolynomialWithWarmUpLR
    mode = ms.get_context("mode")        # the mcore tests around run in mindformers' GRAPH_MODE context
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        poly = PolynomialWithWarmUpLR(learning_rate=0.005, warmup_steps=10, total_steps=20, lr_end=1e-7)
        cos = CosineWithWarmUpLR(learning_rate=0.005, warmup_steps=10, total_steps=20)
        restarts = CosineWithRestartsAndWarmUpLR(learning_rate=0.005, warmup_steps=10, total_steps=20)
        got = [[float(f(ms.Tensor(s)).asnumpy()) for s in (1, 15, 25)] for f in (poly, cos, restarts)]
    finally:
        ms.set_context(mode=mode)
    # warm-up 0.005 * 1/10; polynomial (power 1): lr_end + (lr - lr_end) * (1 - 5/10)
    np.testing.assert_allclose(got[0], [0.0005, 1e-7 + (0.005 - 1e-7) * 0.5, 1e-7], rtol=1e-5)
    np.testing.assert_allclose(got[1], [0.0005, 0.0025, 0.0], rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(got[2], [0.0005, 0.0025, 0.0], rtol=1e-5, atol=1e-9)


def test_mindformers_adamw_steps_match_a_numpy_reference(mindformers):
    """mindformers.core.optim.AdamW (decoupled weight decay, bias-corrected moments): three steps on one parameter
    equal the textbook update computed in numpy."""
    import mindspore as ms
    from mindformers.core.optim import AdamW
    w0 = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    grads = [np.array([[0.5, -1.0, 2.0], [0.1, 0.0, -0.3]], np.float32) * k for k in (1.0, -0.5, 2.0)]
    w = ms.Parameter(ms.Tensor(w0), name="w")
    opt = AdamW([w], learning_rate=0.1, weight_decay=0.01)
    for g in grads:
        opt((ms.Tensor(g),))
    ref, m, v = w0.astype(np.float64), 0.0, 0.0
    for t, g in enumerate(grads, 1):
        ref = ref * (1 - 0.1 * 0.01)
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        ref = ref - 0.1 / (1 - 0.9 ** t) * m / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    np.testing.assert_allclose(w.asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_mcore_deepseek_v3_inference_model_generates(mcore, monkeypatch):
    """DeepSeek-V3's inference form (`RUN_MODE=predict`): prefill attends with the full per-head keys (packed 'TH'
    flash attention), decoding with the absorbed latent ones over the paged cache (PagedAttention with the values in
    the first `mla_v_dim` = 512 latent channels, mindformers' fixed size: hence kv_lora_rank 512); the MoE layer's
    experts are one GroupedMatmulV4 over the tokens each receives. With weights drawn here (the latent absorption
    recomputed from them as mindformers' loading does), a decoding step gives the logits a prefill of the longer
    prompt gives, and prompts batched with padding what each gives alone."""
    import mindspore as ms
    from mindformers.models.deepseek3 import DeepseekV3Config, DeepseekV3ForCausalLM
    monkeypatch.setenv("RUN_MODE", "predict")
    net = DeepseekV3ForCausalLM(DeepseekV3Config(**dict(DEEPSEEK_TINY, kv_lora_rank=512), num_blocks=16,
                                                 block_size=16))
    assert type(net).__name__ == "InferenceDeepseekV3ForCausalLM"
    rng = np.random.default_rng(0)
    for p in net.get_parameters():
        w = rng.standard_normal(p.shape) * 0.3 + (1.0 if "norm" in p.name else 0.0)
        p.set_data(ms.Tensor(w.astype(np.float32)))
    net.process_weights_after_loading(net.model)
    net.set_train(False)

    def run(prompts, length):
        out = net.generate(prompts, max_length=length, do_sample=False, return_dict_in_generate=True,
                           output_logits=True)
        return [list(map(int, s)) for s in out.sequences], [np.asarray(x) for x in out.logits]
    (first,), logits = run([[5, 6, 7, 8]], 7)
    (longer,), prefill = run([first[:5]], 7)
    assert longer == first
    np.testing.assert_allclose(logits[1], prefill[0], rtol=1e-4, atol=1e-4)      # decode step == prefill
    np.testing.assert_allclose(logits[2], prefill[1], rtol=1e-4, atol=1e-4)
    assert np.abs(logits[1] - logits[0]).max() > 0.1                            # and the steps differ
    batch, _ = run([[5, 6, 7, 8], [40, 41, 0, 0]], 9)
    alone = [run([p], 9)[0][0] for p in ([5, 6, 7, 8], [40, 41])]
    assert batch == alone, (batch, alone)

