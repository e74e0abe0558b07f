"""mindformers 2.1.0, unmodified, on mindseed: its legacy Llama (`mindformers.models.llama`) built from a tiny
`LlamaConfig`, run forward, trained a few steps with MindSpore's `value_and_grad` and optimizer, then `generate`.

The training data is a counting sequence (token t is followed by t + 1): a model that learns it continues any prompt
by counting, which `generate` shows token for token.
"""
import os

import numpy as np
import pytest

from _eco import use

VOCAB, SEQ, BATCH = 64, 16, 2


@pytest.fixture(scope="module")
def mindformers(tmp_path_factory):
    # mindformers writes its logs under $LOCAL_DEFAULT_PATH (default ./output): keep them out of the work tree
    os.environ.setdefault("LOCAL_DEFAULT_PATH", str(tmp_path_factory.mktemp("mindformers_output")))
    return use("mindformers", "mindformers")


def _tiny_llama(seed=0, use_past=False):
    import mindspore as ms
    from mindformers.models.llama import LlamaConfig, LlamaForCausalLM
    ms.set_seed(seed)
    config = LlamaConfig(batch_size=BATCH, seq_length=SEQ, hidden_size=32, num_layers=2, num_heads=4, vocab_size=VOCAB,
                         intermediate_size=64, compute_dtype="float32", param_init_type="float32",
                         layernorm_compute_type="float32", softmax_compute_type="float32", rotary_dtype="float32",
                         use_past=use_past, do_sample=False, max_decode_length=SEQ)
    return LlamaForCausalLM(config)


def _counting(starts):
    """Rows of SEQ + 1 tokens counting up from each start (tokens 1 .. VOCAB - 1, wrapping past the end)."""
    return np.array([[(s + i - 1) % (VOCAB - 1) + 1 for i in range(SEQ + 1)] for s in starts], np.int32)


def _train_with_labels(net, loss_fn, steps=60):
    """`steps` AdamWeightDecay steps of `loss_fn(input_ids, labels)` on counting rows (labels: the next tokens);
    the losses."""
    import mindspore as ms
    from mindspore import nn
    net.set_train(True)
    optimizer = nn.AdamWeightDecay(net.trainable_params(), learning_rate=2e-3, weight_decay=0.0)
    step = ms.value_and_grad(loss_fn, None, optimizer.parameters)
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        rows = _counting(rng.integers(1, VOCAB, BATCH))
        loss, grads = step(ms.Tensor(rows[:, :SEQ]), ms.Tensor(rows[:, 1:]))
        optimizer(grads)
        losses.append(float(loss.asnumpy().reshape(-1)[0]))
    return losses


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
    from mindspore import nn
    net = _tiny_llama()
    net.set_train(True)
    optimizer = nn.AdamWeightDecay(net.trainable_params(), learning_rate=2e-3, weight_decay=0.0)
    step = ms.value_and_grad(net, None, optimizer.parameters)
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(80):
        loss, grads = step(ms.Tensor(_counting(rng.integers(1, VOCAB, BATCH))))
        optimizer(grads)
        losses.append(float(loss.asnumpy().reshape(-1)[0]))
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
    losses = _train_with_labels(net, net)
    assert abs(losses[0] - np.log(VOCAB)) < 0.05 and np.mean(losses[-5:]) < 0.1, losses
    net.set_train(False)
    out = net.generate(_counting([3, 30])[:, :4].tolist(), max_length=12, do_sample=False)
    np.testing.assert_array_equal(np.array([list(o) for o in out]), _counting([3, 30])[:, :12])


def test_mcore_qwen3_trains_and_generates_what_it_learned(mindformers):
    """A newer "mcore" model: `Qwen3ForCausalLM` after `build_context` (GRAPH_MODE, `use_legacy: False`) is
    mindformers' `TrainingQwen3ForCausalLM` (GPTModel from Megatron-style layers: fused QKV with q/k RMSNorm, gated
    MLP, its counter-based `Dropout` over `Generator._step` and `DropoutExt`), built tiny, trained with separate
    labels and asked to continue the counting sequence."""
    import mindspore as ms
    from mindformers import build_context
    from mindformers.core.context.build_context import Context, MFContextOperator
    from mindformers.models.qwen3 import Qwen3Config, Qwen3ForCausalLM
    ms.set_seed(0)
    build_context({"use_legacy": False, "context": {"mode": "GRAPH_MODE", "device_target": "CPU"}, "parallel": {}})
    try:
        config = Qwen3Config(num_hidden_layers=2, hidden_size=32, num_attention_heads=4, num_key_value_heads=4,
                             head_dim=8, intermediate_size=64, vocab_size=VOCAB, seq_length=SEQ,
                             max_position_embeddings=SEQ, hidden_dropout=0.1, compute_dtype="float32",
                             params_dtype="float32", layernorm_compute_dtype="float32",
                             softmax_compute_dtype="float32", rotary_dtype="float32", pad_token_id=0,
                             eos_token_id=0, bos_token_id=0)
        net = Qwen3ForCausalLM(config)
        assert type(net).__name__ == "TrainingQwen3ForCausalLM"
        assert sum(int(np.prod(p.shape)) for p in net.trainable_params()) == (
            VOCAB * 32                                                          # embedding
            + 2 * (32 * 32 + 3 * 32 * 32 + 2 * 8 + 2 * 32 * 64 + 32 * 64 + 2 * 32)  # proj, qkv, q/k norms, mlp, norms
            + 32 + 32 * VOCAB)                                                  # final norm, output layer
        losses = _train_with_labels(net, lambda x, y: net(x, labels=y)[0])
        assert abs(losses[0] - np.log(VOCAB)) < 0.1 and np.mean(losses[-5:]) < 0.2, losses
        net.set_train(False)
        out = net.generate(_counting([5, 40])[:, :4].tolist(), max_length=12, do_sample=False)
        np.testing.assert_array_equal(np.array([list(o) for o in out]), _counting([5, 40])[:, :12])
    finally:
        Context.reset_instance()
        MFContextOperator.reset_instance()
        ms.set_context(mode=ms.PYNATIVE_MODE)
