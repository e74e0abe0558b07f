"""mindformers 2.1.0, unmodified, on mindseed: its model and tokenizer hubs on local directories the tests write
(`save_pretrained` then `AutoConfig` / `AutoModel` / `AutoModelForCausalLM` / `AutoTokenizer.from_pretrained`),
`pipeline("text_generation")` from such a directory, its training callbacks (`MFLossMonitor`, `CheckpointMonitor`)
under `Model.train`, and its metrics. The model is the tiny Llama of test_mindformers.py; nothing is downloaded.
"""
import json
import os
import re

import numpy as np
import pytest

from _eco import use
from _mindformers_run import BATCH, SEQ, VOCAB, counting, counting_llama, loss_recorder, tiny_llama, word_tokenizer


@pytest.fixture(scope="module")
def mindformers(tmp_path_factory):
    # mindformers writes its logs under $LOCAL_DEFAULT_PATH (default ./output): keep them out of the work tree
    os.environ.setdefault("LOCAL_DEFAULT_PATH", str(tmp_path_factory.mktemp("mindformers_output")))
    return use("mindformers", "mindformers")


@pytest.fixture(scope="module")
def counter(mindformers):
    return counting_llama()


def _logits(net, rows):
    import mindspore as ms
    out = net(ms.Tensor(np.asarray(rows, np.int32)))
    return (out[0] if isinstance(out, tuple) else out).asnumpy()


def test_save_pretrained_then_auto_classes_give_the_same_model(mindformers, tmp_path):
    """`save_pretrained(save_json=True)` writes config.json and the weights; `AutoConfig` reads the configuration
    back, `AutoModelForCausalLM` the network with the same logits, `AutoModel` its backbone, whose hidden states
    through the saved output head are those logits."""
    from mindformers import AutoConfig, AutoModel, AutoModelForCausalLM
    from mindformers.models.llama import LlamaConfig, LlamaForCausalLM, LlamaModel
    net = tiny_llama(seed=5)
    net.set_train(False)
    rows = counting([3, 30])[:, :SEQ]
    want = _logits(net, rows)
    net.save_pretrained(str(tmp_path), save_json=True)
    assert sorted(os.listdir(tmp_path)) == ["config.json", "mindspore_model.ckpt"]
    saved = json.loads((tmp_path / "config.json").read_text())
    assert saved["architectures"] == ["LlamaForCausalLM"] and saved["compute_dtype"] == "float32", saved
    config = AutoConfig.from_pretrained(str(tmp_path))
    assert type(config) is LlamaConfig
    assert (config.hidden_size, config.num_layers, config.num_heads, config.vocab_size) == (32, 2, 4, VOCAB)
    loaded = AutoModelForCausalLM.from_pretrained(str(tmp_path))
    assert type(loaded) is LlamaForCausalLM
    loaded.set_train(False)
    np.testing.assert_array_equal(_logits(loaded, rows), want)
    backbone = AutoModel.from_pretrained(str(tmp_path))
    assert type(backbone) is LlamaModel
    backbone.set_train(False)
    hidden = _logits(backbone, rows)
    assert hidden.shape == (2, SEQ, 32)
    head = net.lm_head.weight.asnumpy()
    np.testing.assert_allclose(hidden.reshape(-1, 32) @ head.T, want.reshape(-1, VOCAB), rtol=1e-5, atol=1e-6)
    # and from a configuration alone: the architecture, freshly initialised
    assert type(AutoModelForCausalLM.from_config(config)) is LlamaForCausalLM


def test_save_pretrained_yaml_then_auto_classes(mindformers, tmp_path):
    """The original layout: mindspore_model.yaml and .ckpt. The YAML keeps the plain values of the configuration
    (the dtypes are MindSpore types, which mindformers leaves out), so the reloaded model takes the default float16
    parameters (its norms stay float32): the saved float32 weights cast to float16."""
    from mindformers import AutoConfig, AutoModelForCausalLM
    import mindspore as ms
    net = tiny_llama(seed=6)
    net.save_pretrained(str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["mindspore_model.ckpt", "mindspore_model.yaml"]
    config = AutoConfig.from_pretrained(str(tmp_path / "mindspore_model.yaml"))
    assert (config.hidden_size, config.seq_length, config.intermediate_size) == (32, SEQ, 64)
    loaded = AutoModelForCausalLM.from_pretrained(str(tmp_path))
    original = {p.name: p.asnumpy() for p in net.get_parameters()}
    dtypes = {p.name: p.dtype for p in loaded.get_parameters()}
    assert {n for n, t in dtypes.items() if t == ms.float32} == {n for n in dtypes if "norm" in n}, dtypes
    for p in loaded.get_parameters():
        np.testing.assert_array_equal(p.asnumpy(), original[p.name].astype(p.asnumpy().dtype))
    net.set_train(False)
    loaded.set_train(False)
    rows = counting([3, 30])[:, :SEQ]
    np.testing.assert_allclose(_logits(loaded, rows), _logits(net, rows), atol=2e-3)


def test_llama_tokenizer_from_a_sentencepiece_model_written_here(mindformers, tmp_path):
    """`LlamaTokenizer` over a sentencepiece model trained here: the ids are sentencepiece's with <s> first;
    `save_pretrained(save_json=True)` then `AutoTokenizer.from_pretrained` (a fast tokenizer converted from it) gives
    the same ids; `return_tensors="ms"` pads a batch into an int32 Tensor with its attention mask."""
    import sentencepiece as spm
    import mindspore as ms
    from mindformers import AutoTokenizer
    from mindformers.models.llama import LlamaTokenizer
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(["the quick brown fox jumps over the lazy dog", "hello world from a tiny tokenizer",
                                 "a counting model counts one two three four five"] * 20))
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(tmp_path / "sp"), vocab_size=80,
                                   model_type="bpe", unk_id=0, bos_id=1, eos_id=2, pad_id=-1, minloglevel=2)
    pieces = spm.SentencePieceProcessor(model_file=str(tmp_path / "sp.model"))
    tokenizer = LlamaTokenizer(vocab_file=str(tmp_path / "sp.model"))
    text = "hello world the lazy fox"
    ids = tokenizer(text)["input_ids"]
    assert ids == [1] + pieces.encode(text) and tokenizer.vocab_size == 80
    assert tokenizer.decode(ids, skip_special_tokens=True) == text
    tokenizer.save_pretrained(str(tmp_path / "saved"), save_json=True)
    reloaded = AutoTokenizer.from_pretrained(str(tmp_path / "saved"))
    assert reloaded(text)["input_ids"] == ids
    batch = reloaded(["hello world", "the dog"], padding="max_length", max_length=8, return_tensors="ms")
    assert batch["input_ids"].dtype == ms.int32 and batch["input_ids"].shape == (2, 8)
    short = [1] + pieces.encode("the dog")
    np.testing.assert_array_equal(batch["input_ids"].asnumpy()[1], short + [0] * (8 - len(short)))
    np.testing.assert_array_equal(batch["attention_mask"].asnumpy()[1], [1] * len(short) + [0] * (8 - len(short)))


def _word_tokenizer_dir(path):
    """A tokenizer directory as the hub lays it out: the word-level tokenizer.json and its tokenizer_config.json."""
    word_tokenizer(path / "tokenizer.json")
    (path / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "LlamaTokenizerFast", "add_bos_token": False, "add_eos_token": False,
        "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<unk>"}))


def test_text_generation_pipeline_from_a_directory_and_from_instances(counter, tmp_path):
    from mindformers import AutoTokenizer, pipeline
    counter.save_pretrained(str(tmp_path), save_json=True)
    _word_tokenizer_dir(tmp_path)
    generator = pipeline("text_generation", model=str(tmp_path), max_length=12, do_sample=False)
    assert [r["text_generation_text"] for r in generator(["5 6 7 8", "30 31"])] == \
        [[" ".join(map(str, range(5, 17)))], [" ".join(map(str, range(30, 42)))]]
    tokenizer = AutoTokenizer.from_pretrained(str(tmp_path))
    assert tokenizer("5 6 7 8")["input_ids"] == [5, 6, 7, 8]
    generator = pipeline("text_generation", model=counter, tokenizer=tokenizer, max_length=12, do_sample=False)
    assert generator("5 6 7 8", max_new_tokens=2) == [{"text_generation_text": ["5 6 7 8 9 10"]}]
    both = generator(["5 6 7 8", "30 31"], batch_size=2, do_sample=True, top_k=1)
    assert both == [{"text_generation_text": [" ".join(map(str, range(5, 17))), " ".join(map(str, range(30, 42)))]}]


def test_loss_monitor_and_checkpoint_monitor_under_model_train(mindformers, tmp_path, caplog):
    """`Model.train` of mindformers' training cell with `MFLossMonitor` (every 2 steps: the step's loss, the mean
    over the epoch so far, the learning rate of the schedule) and `CheckpointMonitor` (every 4 steps, the last 2 kept,
    the step counters saved beside the weights); the last checkpoint loads into a fresh network with the trained
    network's logits."""
    import logging
    import mindspore as ms
    from mindspore.dataset import GeneratorDataset
    from mindformers.core import CheckpointMonitor, CosineWithWarmUpLR, MFLossMonitor
    from mindformers.core.optim import AdamW
    from mindformers.wrapper import MFTrainOneStepCell
    rows = counting(np.random.default_rng(2).integers(1, VOCAB, 8 * BATCH))
    net = tiny_llama()
    net.set_train(True)
    lr = CosineWithWarmUpLR(learning_rate=5e-3, warmup_steps=2, total_steps=16)
    step = MFTrainOneStepCell(net, AdamW(net.trainable_params(), learning_rate=lr), use_clip_grad=True)
    recorder = loss_recorder()
    callbacks = [recorder,
                 MFLossMonitor(learning_rate=lr, per_print_times=2, origin_epochs=2, dataset_size=8),
                 CheckpointMonitor(prefix="tiny", directory=str(tmp_path), save_checkpoint_steps=4,
                                   keep_checkpoint_max=2, integrated_save=False)]
    with caplog.at_level(logging.INFO):
        ms.Model(step).train(2, GeneratorDataset(lambda: iter(rows), ["input_ids"], shuffle=False).batch(BATCH),
                             callbacks=callbacks, dataset_sink_mode=False)
    losses = recorder.losses
    assert len(losses) == 16 and losses[-1] < losses[0] - 0.5, losses
    printed = re.findall(r"Epoch:\[\s*(\d+)/\s*2\], step:\[\s*(\d+)/\s*8\], loss:\[([\d.]+)/([\d.]+)\], "
                         r"per_step_time: \d+ms, lr: ([\d.e-]+),", caplog.text)
    assert len(printed) == 8, printed
    for epoch, step_in_epoch, loss, mean, rate in printed:
        first = 8 * (int(epoch) - 1)
        k = first + int(step_in_epoch)         # the 1-based global step
        assert abs(float(loss) - losses[k - 1]) < 1e-6 and abs(float(mean) - np.mean(losses[first:k])) < 1e-6
        want = 5e-3 * (k - 1) / 2 if k - 1 < 2 else 5e-3 * 0.5 * (1 + np.cos(np.pi * (k - 3) / 14))
        np.testing.assert_allclose(float(rate), want, rtol=1e-5)
    directory = tmp_path / "checkpoint" / "rank_0"
    assert sorted(os.listdir(directory)) == ["meta.json", "tiny_rank_0-2_4.ckpt", "tiny_rank_0-2_8.ckpt"]
    assert json.loads((directory / "meta.json").read_text())["last_ckpt_file"] == "tiny_rank_0-2_8.ckpt"
    saved = ms.load_checkpoint(str(directory / "tiny_rank_0-2_8.ckpt"))
    assert (int(saved["epoch_num"].asnumpy()), int(saved["step_num"].asnumpy())) == (2, 16)
    assert int(saved["global_step"].asnumpy().reshape(-1)[0]) == 16
    fresh = tiny_llama(seed=9)
    not_loaded, _ = ms.load_param_into_net(fresh, saved)
    assert not not_loaded, not_loaded
    net.set_train(False)
    fresh.set_train(False)
    np.testing.assert_array_equal(_logits(fresh, rows[:2, :SEQ]), _logits(net, rows[:2, :SEQ]))


def test_perplexity_metric_under_model_eval(counter):
    """`PerplexityMetric` in `Model.eval` over an evaluation network returning (logits, input ids, mask) — the metric
    shifts them itself: its loss is the mean next-token cross entropy, computed here in numpy, and PPL its exp. The
    counting model is near-certain (PPL near 1); its documented example gives its documented value."""
    import mindspore as ms
    from mindspore import Tensor, nn
    from mindspore.dataset import GeneratorDataset
    from mindformers.core.metric import PerplexityMetric

    class WithLabels(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def construct(self, input_ids):
            logits = self.net(input_ids)
            logits = logits[0] if isinstance(logits, tuple) else logits
            return logits.reshape(input_ids.shape[0], input_ids.shape[1], -1), input_ids, ms.ops.ones_like(input_ids)

    rows = counting(np.random.default_rng(7).integers(1, VOCAB, 3 * BATCH))[:, :SEQ]
    metric = PerplexityMetric()
    result = ms.Model(counter, eval_network=WithLabels(counter), metrics={"ppl": metric}).eval(
        GeneratorDataset(lambda: iter(rows), ["input_ids"], shuffle=False).batch(BATCH), dataset_sink_mode=False)
    per_batch = []
    for batch in rows.reshape(3, BATCH, SEQ):
        logits = _logits(counter, batch).reshape(BATCH, SEQ, VOCAB)[:, :-1].astype(np.float64)
        logp = logits - logits.max(-1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(-1, keepdims=True))
        per_batch.append(-np.take_along_axis(logp, batch[:, 1:, None], -1).mean())
    np.testing.assert_allclose(result["ppl"]["loss"], np.mean(per_batch), rtol=1e-5)
    np.testing.assert_allclose(result["ppl"]["PPL"], np.exp(np.mean(per_batch)), rtol=1e-5)
    assert result["ppl"]["PPL"] < 1.2, result
    metric.clear()
    metric.update(Tensor(np.array([[[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]])), Tensor(np.array([[1, 0, 1]])),
                  Tensor(np.array([[1, 1, 1]])))
    np.testing.assert_allclose(list(metric.eval().values()), [0.8262470960617065, 2.284728265028813], rtol=1e-6)


def test_entity_score_and_adgen_metric(mindformers):
    """`EntityScore` (CLUENER's BIOS tags: precision, recall, F1 per entity type and overall) on predictions that find
    one of two entities and one false one; `ADGENMetric` (ROUGE on jieba words, BLEU-4 on characters, in %)."""
    from mindspore import Tensor
    from mindformers.core.metric import ADGENMetric, EntityScore
    score = EntityScore()
    tags = {tag: i for i, tag in score.id2label.items()}
    label = ["B-name", "I-name", "O", "S-address", "O", "O"]
    found = ["B-name", "I-name", "O", "O", "B-company", "I-company"]
    logits = np.zeros((1, 6, len(tags)), np.float32)
    logits[0, np.arange(6), [tags[t] for t in found]] = 1.0
    score.clear()
    score.update(Tensor(logits), Tensor(np.array([[tags[t] for t in label]])))
    overall, per_type = score.eval()
    assert overall == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    assert per_type == {"name": {"precision": 1.0, "recall": 1.0, "f1": 1.0},
                        "address": {"precision": 0.0, "recall": 0.0, "f1": 0.0}}
    adgen = ADGENMetric()
    adgen.clear()
    adgen.update(["今天天气很好", "我们去公园"], ["今天天气很好", "我们去公园散步"])
    result = adgen.eval()
    # the first pair is identical (100 everywhere); the second, in words 我们/去/公园 against 我们/去/公园/散步: F1 of
    # unigrams and of the longest common subsequence 2 * 3 / (3 + 4), of bigrams 2 * 2 / (2 + 3); in characters all
    # n-grams match and BLEU is the brevity penalty exp(1 - 7 / 5)
    want = {"rouge-1": (100 + 600 / 7) / 2, "rouge-2": (100 + 80) / 2, "rouge-l": (100 + 600 / 7) / 2,
            "bleu-4": (100 + 100 * np.exp(1 - 7 / 5)) / 2}
    assert result == pytest.approx(want, abs=1e-3), result
