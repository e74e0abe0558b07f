"""mindnlp 0.4.1, unmodified, on mindseed: tiny BERT and GPT-2 built from configs, trained and run.

mindnlp pins `pytest==7.2.0` and imports its internals (`_pytest.doctest.import_path`) when `import mindnlp` runs, so
it runs as a user runs it: a process of its own (`python -m mindseed.compat _mindnlp_runs.py`) with the packages its
line in packages.txt installs first on the path. That script fine-tunes a BertForSequenceClassification with
mindnlp's AdamW and `core.autograd.value_and_grad` (the PyNative executor's `new_graph`/`end_graph`/`grad`), takes
the same gradients with `mindspore.value_and_grad`, runs a BertModel, trains a GPT2LMHeadModel on a counting
sequence and generates greedily; this file checks what it saved against numpy: the classifier's gradients in closed
form, the pooler, and GPT-2's logits from a numpy forward of its weights.
"""
import os
import subprocess
import sys

import numpy as np
import pytest
from _eco import HERE, require

REPO = os.path.dirname(os.path.dirname(HERE))
VOCAB, SEQ = 32, 12


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    where = require("mindnlp")
    tmp = tmp_path_factory.mktemp("mindnlp")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([where, REPO]), OMP_NUM_THREADS="1",
               HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    proc = subprocess.run([sys.executable, "-m", "mindseed.compat", os.path.join(HERE, "_mindnlp_runs.py"),
                           str(tmp / "out.npz")], cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return dict(np.load(tmp / "out.npz"))


def test_bert_fine_tunes_with_mindnlps_optimizer(runs):
    losses = runs["bert_losses"]
    assert abs(losses[0] - np.log(2)) < 0.05 and losses[-1] < 0.1 and losses[-1] < losses[0] / 5, losses
    np.testing.assert_array_equal(runs["bert_predictions"], runs["bert_labels"])


def test_bert_gradients_through_the_executor_protocol(runs):
    # mindnlp's value_and_grad (new_graph / end_graph / grad) and mindspore.value_and_grad agree exactly
    assert runs["grad_losses"][0] == runs["grad_losses"][1]
    assert runs["grad_max_diff"].max() == 0.0 and runs["grad_norms"][0].max() > 0
    # and are the cross-entropy's: dL/dlogits = (softmax - onehot) / N, through the classifier's Dense
    logits = runs["grad_logits"].astype(np.float64)
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    d = (p - np.eye(2)[runs["bert_labels"]]) / len(logits)
    np.testing.assert_allclose(runs["grad_classifier_b"], d.sum(0), rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(runs["grad_classifier_w"], d.T @ runs["grad_pooled"], rtol=1e-4, atol=1e-7)


def test_bert_model_pooler(runs):
    hidden = runs["bert_hidden"]
    assert hidden.shape == (16, 8, 32)
    pooled = np.tanh(hidden[:, 0] @ runs["bert_pooler_w"].T + runs["bert_pooler_b"])
    np.testing.assert_allclose(runs["bert_pooled"], pooled, rtol=1e-5, atol=1e-6)


def _layer_norm(x, w, b):
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5) * w + b


def _gpt2_logits(w, ids, heads=4):
    """GPT-2's forward in numpy (float64) from the saved state dict."""
    w = {k[4:]: v.astype(np.float64) for k, v in w.items() if k.startswith("gpt.")}
    n, t = ids.shape
    h = w["transformer.wte.weight"][ids] + w["transformer.wpe.weight"][np.arange(t)]
    causal = np.triu(np.full((t, t), -np.inf), 1)
    for i in range(2):
        pre = f"transformer.h.{i}."
        a = _layer_norm(h, w[pre + "ln_1.weight"], w[pre + "ln_1.bias"])
        q, k, v = np.split(a @ w[pre + "attn.c_attn.weight"] + w[pre + "attn.c_attn.bias"], 3, -1)
        q, k, v = (x.reshape(n, t, heads, -1).transpose(0, 2, 1, 3) for x in (q, k, v))
        s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1]) + causal
        s = np.exp(s - s.max(-1, keepdims=True))
        o = (s / s.sum(-1, keepdims=True) @ v).transpose(0, 2, 1, 3).reshape(n, t, -1)
        h = h + o @ w[pre + "attn.c_proj.weight"] + w[pre + "attn.c_proj.bias"]
        m = _layer_norm(h, w[pre + "ln_2.weight"], w[pre + "ln_2.bias"]) @ w[pre + "mlp.c_fc.weight"]
        m = m + w[pre + "mlp.c_fc.bias"]
        m = 0.5 * m * (1 + np.tanh(np.sqrt(2 / np.pi) * (m + 0.044715 * m ** 3)))       # gelu_new
        h = h + m @ w[pre + "mlp.c_proj.weight"] + w[pre + "mlp.c_proj.bias"]
    h = _layer_norm(h, w["transformer.ln_f.weight"], w["transformer.ln_f.bias"])
    return h @ w["lm_head.weight"].T


def test_gpt2_trains_and_generates_what_it_learned(runs):
    losses = runs["gpt_losses"]
    assert abs(losses[0] - np.log(VOCAB)) < 0.2 and np.mean(losses[-5:]) < 0.6, losses
    counting = np.array([[(s + i - 1) % (VOCAB - 1) + 1 for i in range(SEQ)] for s in (5, 20)])
    np.testing.assert_array_equal(runs["gpt_sequences"], counting)
    np.testing.assert_array_equal(runs["gpt.lm_head.weight"], runs["gpt.transformer.wte.weight"])   # tied


def test_gpt2_logits_and_generate_scores_equal_a_numpy_forward(runs):
    sequences = runs["gpt_sequences"]
    reference = _gpt2_logits(runs, sequences)
    np.testing.assert_allclose(runs["gpt_logits"], reference, rtol=1e-4, atol=1e-4)
    # generate's scores at each new token (its key/value cache) are the logits of the last position so far
    scores = runs["gpt_scores"]
    assert scores.shape == (2, SEQ - 4, VOCAB)
    np.testing.assert_allclose(scores, reference[:, 3:-1], rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(scores.argmax(-1), sequences[:, 4:])


# -- more documented uses (_mindnlp_breadth.py): the Trainer, LoRA, tokenizers and other model families
FAMILIES = ("roberta", "distilbert", "albert", "electra", "longformer", "bert_qa", "vit", "llama", "qwen2", "mistral",
            "gemma", "gpt_neox", "opt", "bloom", "t5", "bart", "whisper")
CAUSAL = ("llama", "qwen2", "mistral", "gemma", "gpt_neox", "opt", "bloom")


@pytest.fixture(scope="module")
def breadth(tmp_path_factory):
    where = require("mindnlp")
    tmp = tmp_path_factory.mktemp("mindnlp_breadth")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([where, REPO]), OMP_NUM_THREADS="1",
               HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_DATASETS_CACHE=str(tmp / "hf"))
    proc = subprocess.run([sys.executable, "-m", "mindseed.compat", os.path.join(HERE, "_mindnlp_breadth.py"),
                           str(tmp / "out.npz"), str(tmp)], cwd=tmp, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return dict(np.load(tmp / "out.npz"))


def test_bert_tokenizer_from_a_local_vocab_and_auto_tokenizer(breadth):
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + "good great fine nice happy superb lovely".split() + \
        "bad awful poor sad ugly terrible boring".split() + "the movie was plot acting and a it really".split()
    # "The movie was GREAT, zebra!": lower-cased, punctuation split off; ",", "zebra" and "!" are not in the vocab
    expected = [words.index(w) if w in words else 1 for w in "[CLS] the movie was great , zebra ! [SEP]".split()]
    np.testing.assert_array_equal(breadth["tok_ids"], expected)
    np.testing.assert_array_equal(breadth["auto_tok_ids"], expected)         # saved, read back by AutoTokenizer


def test_gpt2_tokenizer_byte_level_bpe_from_local_files(breadth):
    # merges in rank order: a+b, G+a, Ga+b, ab+c (G the byte-level space); " ab" merges a+b first, then stops
    np.testing.assert_array_equal(breadth["bpe_ids"], [8, 4, 5, 6])              # abc, G, ab, Ga
    assert str(breadth["bpe_text"]) == "abc ab a"


def test_text_classification_pipeline_from_the_saved_directory(breadth):
    logits = breadth["pipeline_logits"].astype(np.float64)
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    scores, labels = breadth["pipeline_scores"].T
    np.testing.assert_allclose(scores, p.max(1), rtol=1e-5)
    np.testing.assert_array_equal(labels, p.argmax(1))
    np.testing.assert_array_equal(labels, [1, 0])            # the fine-tuned model: lovely/superb vs boring/awful


def test_trainer_fine_tunes_evaluates_and_keeps_checkpoints(breadth):
    losses, eval_losses = breadth["trainer_losses"], breadth["trainer_eval_losses"]
    assert abs(losses[0] - np.log(2)) < 0.05 and losses[-1] < 0.3, losses
    assert np.all(np.diff(eval_losses) < 0) and eval_losses[-1] < 0.3, eval_losses       # one evaluation an epoch
    assert breadth["trainer_eval_accuracy"][-1] == 1.0 and breadth["trainer_steps"][0] == 6 * 4   # 64 rows, batch 16
    # save_total_limit=2 keeps the best (by eval_loss: the last) and the latest; the best is what is loaded at the end
    assert list(breadth["trainer_checkpoints"]) == ["checkpoint-20", "checkpoint-24"]
    assert breadth["trainer_final_eval"][0] == pytest.approx(eval_losses[-1], rel=1e-6)
    # predict's logits give the evaluation's loss and accuracy
    logits, labels = breadth["trainer_predictions"].astype(np.float64), breadth["trainer_label_ids"]
    np.testing.assert_array_equal(labels, np.arange(32) % 2)
    logp = logits - logits.max(1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(1, keepdims=True))
    assert -logp[np.arange(32), labels].mean() == pytest.approx(eval_losses[-1], rel=1e-5)
    np.testing.assert_array_equal(logits.argmax(1), labels)
    # save_model then from_pretrained: the same network
    np.testing.assert_array_equal(breadth["reload_logits"], breadth["trained_logits"])


def test_trainer_accumulates_schedules_and_resumes_from_a_checkpoint(breadth):
    # 64 rows, batches of 8 accumulated 2 by 2: 4 optimizer steps an epoch, 16 in all
    assert breadth["full_steps"][0] == breadth["resume_steps"][0] == 16
    losses = breadth["full_losses"]
    assert np.all(np.diff(losses) < 0) and losses[0] < np.log(2), losses
    # cosine after 2 warm-up steps, logged every 4 steps
    steps = np.array([4, 8, 12, 16])
    np.testing.assert_allclose(breadth["full_lrs"], 2e-3 * 0.5 * (1 + np.cos(np.pi * (steps - 2) / 14)), rtol=1e-6)
    assert {"model.safetensors", "optimizer.ckpt", "scheduler.json", "trainer_state.json"} <= set(
        breadth["resume_files"])
    # resumed at step 8 (weights, optimizer moments, schedule), it ends where the uninterrupted run ended
    np.testing.assert_allclose(breadth["resume_weights"][1], breadth["resume_weights"][0], rtol=0, atol=1e-6)


def test_lora_trains_only_the_adapters(breadth):
    # r=4 on q_proj (32 -> 32) and v_proj (32 -> 16, two key/value heads) of two layers; the Llama itself has 20640
    lora = 2 * (4 * 32 + 32 * 4 + 4 * 32 + 16 * 4)
    np.testing.assert_array_equal(breadth["lora_counts"], [lora, 20640 + lora])
    losses = breadth["lora_losses"]
    assert np.mean(losses[-5:]) < losses[0] - 0.2, losses
    assert not breadth["lora_base_changed"].any() and breadth["lora_base_changed"].size == 21
    # a LoRA layer is W x + B A x * lora_alpha / r
    x = breadth["lora_q_x"].astype(np.float64)
    expected = x @ breadth["lora_q_w"].T + x @ breadth["lora_q_a"].T @ breadth["lora_q_b"].T * 2
    np.testing.assert_allclose(breadth["lora_q_out"], expected, rtol=1e-5, atol=1e-5)
    # the adapter saved and loaded onto the saved base model gives the same logits; without it they differ
    np.testing.assert_array_equal(breadth["lora_reload_logits"], breadth["lora_logits"])
    assert np.abs(breadth["lora_base_logits"] - breadth["lora_logits"]).max() > 1e-2


HEAD = 32 * 32 + 32 + 32 * 2 + 2             # RoBERTa's classification head: trained in full (modules_to_save)
PEFT_TRAINABLE = {
    "lora_seq_cls": 2 * 2 * (4 * 32 + 32 * 4) + HEAD,          # query and value of two layers, r=4
    "lora_gpt2": 2 * (4 * 32 + 96 * 4),                        # the fused c_attn (32 -> 96)
    "prompt_tuning": 4 * 32,                                   # 4 virtual token embeddings
    "prefix_tuning": 4 * 2 * 2 * 32,                           # a key and a value per layer per virtual token
    "p_tuning": 4 * 32 + (32 * 16 + 16) + (16 * 16 + 16) + (16 * 32 + 32),     # embeddings and the MLP encoder
    "ia3": 2 * (32 + 32 + 32 + 64) + HEAD,                     # key, value and both output.dense inputs
    "adalora": None,
}


@pytest.mark.parametrize("method", sorted(PEFT_TRAINABLE))
def test_peft_methods_train_what_they_add(breadth, method):
    first, last, trainable, total, base_changed = breadth[f"peft_{method}"]
    assert last < first and np.isfinite(last), (first, last)
    assert base_changed == 0                                   # the wrapped model's own weights stay as they were
    if PEFT_TRAINABLE[method] is not None:
        assert trainable == PEFT_TRAINABLE[method] and total > trainable


@pytest.mark.parametrize("family", FAMILIES)
def test_model_family_forward_gradients_generate(breadth, family):
    loss = breadth[f"{family}_loss"]
    assert loss[0] == loss[1] and np.isfinite(loss[0])      # value_and_grad's value is the forward's loss
    chance = {"vit": np.log(3), "bert_qa": np.log(8)}.get(family, np.log(2) if family in FAMILIES[:5] else np.log(32))
    assert abs(loss[0] - chance) < 1.0, (loss, chance)      # near chance: random init
    squared_norm, directional, nonzero, count = breadth[f"{family}_grad"]
    # every trainable parameter gets a gradient, but Longformer's last local query/key/value (weights and biases):
    # the classifier reads the first token, a global one, whose output the global projections make
    assert nonzero == count - (6 if family == "longformer" else 0), (nonzero, count)
    # the loss's finite difference along the gradient is the gradient's squared norm
    assert directional == pytest.approx(squared_norm, rel=1e-2)
    if family not in CAUSAL + ("t5", "bart", "whisper"):
        return
    sequences = breadth[f"{family}_gen_sequences"]
    if family == "whisper":
        assert sequences.shape == (2, 5) and (sequences[:, 0] == 1).all()     # the decoder start, 4 new tokens
        return
    scores, logits = breadth[f"{family}_gen_scores"], breadth[f"{family}_gen_logits"]
    assert scores.shape == logits.shape == (2, 5, 32)
    finite = scores > -1e30                  # processors (min length, forced eos) set some scores to the lowest,
    finite &= finite.sum(-1, keepdims=True) > 1             # and a forced token's to 0
    assert finite.mean() > 0.7
    np.testing.assert_allclose(scores[finite], logits[finite], rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(scores.argmax(-1), sequences[:, -5:])


def test_llama_static_cache_decoding_eager_and_strict_jit_equal_generate(breadth):
    """llm/inference/llama2's static-cache loop: the jitted (STRICT) decode step reads the cache length with
    `.item()` inside the graph and updates the cache's mindnlp Parameters in place at every call; `model.compile`
    indexes the inner model's ModelOutput by position inside the graph."""
    eager, jitted = breadth["static_cache_eager"], breadth["static_cache_jit"]
    assert eager.shape == (2, 14)
    np.testing.assert_array_equal(jitted, eager)
    np.testing.assert_array_equal(breadth["static_cache_compile"], eager)
    np.testing.assert_array_equal(eager, breadth["static_cache_generate"])
    assert [int(breadth[f"static_cache_{k}_filled"]) for k in ("eager", "jit", "compile")] == [13, 13, 13]


def test_beam_search_with_the_no_repeat_ngram_ban(breadth):
    """`generate(num_beams=3, no_repeat_ngram_size=2)` (mindnlp's NoRepeatNGramLogitsProcessor, an empty list
    index while nothing is banned): no bigram twice in a sequence, where the same beams without the ban repeat."""
    banned, plain, prompt = breadth["beam_ngram_sequences"], breadth["beam_sequences"], breadth["beam_prompt"]
    assert banned.shape == plain.shape == (2, 16)
    np.testing.assert_array_equal(banned[:, :4], prompt)
    for row in banned:
        bigrams = list(zip(row[:-1].tolist(), row[1:].tolist()))
        assert len(set(bigrams)) == len(bigrams), row
    assert any(len(set(zip(r[:-1].tolist(), r[1:].tolist()))) < 15 for r in plain), plain


def test_mindnlp_checkpoint_writer_and_reader_round_trip(breadth):
    """mindnlp's own `.ckpt` writer and reader (`core.serialization.save_checkpoint` / `load_checkpoint`, over
    MindSpore's `_exec_save` / `_parse_ckpt_proto`, its tensor types "mindspore.float32") give back every value, and
    `save_pretrained(safe_serialization=False)` + `from_pretrained` the same logits."""
    same_keys, count = breadth["ckpt_keys"]
    assert same_keys == 1 and count == 29                    # GPT-2, two layers: 4 + 12 per layer + 1 (lm_head)
    assert float(breadth["ckpt_max_diff"]) == 0.0
    assert "mindspore_model.ckpt" in list(breadth["ckpt_files"])
    np.testing.assert_array_equal(breadth["ckpt_logits"][0], breadth["ckpt_logits"][1])


def test_batch_norm_under_jit_counts_batches_and_moves_running_statistics(breadth):
    """mindnlp's BatchNorm2d (its ResNets' layer) in training mode, called through mindspore.jit three times on one
    batch: num_batches_tracked is 3 and the running mean after call k is (1 - 0.9^k) times the batch mean."""
    assert int(breadth["bn_num_batches_tracked"]) == 3
    batch_mean = breadth["bn_conv_out"].mean((0, 2, 3))
    want = np.stack([(1 - 0.9 ** k) * batch_mean for k in (1, 2, 3)])
    np.testing.assert_allclose(breadth["bn_running_means"], want, rtol=1e-5, atol=1e-6)
