"""More of mindnlp 0.4.1's documented uses, run as a user runs them: `python -m mindseed.compat _mindnlp_breadth.py
OUT.npz WORKDIR` (see _mindnlp_runs.py for why a process of its own). Everything is small and random-init, nothing is
downloaded:

* the quick-start fine-tune: a BertTokenizer from a vocab.txt written here, `mindnlp.dataset.load_dataset("csv")`,
  the tutorial's map / TypeCast / padded_batch pipeline, `mindnlp.engine.Trainer` + `TrainingArguments` (evaluation,
  a metric, checkpoints each epoch, the best one loaded at the end), `predict`, `save_model` and `from_pretrained`,
  the tokenizer saved and read back with `AutoTokenizer`, the saved directory through a text-classification
  `pipeline`, a GPT2Tokenizer (byte-level BPE) from a vocab.json and merges.txt;
* the Trainer on an in-memory GeneratorDataset with gradient accumulation, a cosine schedule with warm-up,
  clipping and weight decay, resumed from a checkpoint;
* `mindnlp.peft` LoRA on a Llama: `get_peft_model`, the trainable-parameter count, training the adapters only,
  `save_pretrained` and `PeftModel.from_pretrained`; LoRA for sequence classification and on GPT-2, prompt,
  prefix and p-tuning, IA3 and AdaLoRA;
* other model families from small configs: forward, gradients with `mindspore.value_and_grad` (checked against a
  finite difference along the gradient), and `generate` (its scores against a full forward of what it generated).
What the test checks is written to OUT.npz.
"""
import csv
import json
import os
import sys

import numpy as np

import mindspore
from mindnlp.core import nn as mindnlp_nn, no_grad, optim
from mindnlp.core.autograd import value_and_grad
from mindnlp.dataset import load_dataset
from mindnlp.engine import Trainer, TrainingArguments
from mindnlp.peft import LoraConfig, PeftModel, TaskType, get_peft_model
from mindnlp import peft
from mindnlp import transformers as T
from mindspore import ops
from mindspore.dataset import GeneratorDataset, transforms

OUT, WORK = sys.argv[1], sys.argv[2]
out = {}

# -- the quick-start fine-tune through mindnlp's Trainer
GOOD = "good great fine nice happy superb lovely".split()
BAD = "bad awful poor sad ugly terrible boring".split()
NEUTRAL = "the movie was plot acting and a it really".split()
WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + GOOD + BAD + NEUTRAL
with open(os.path.join(WORK, "vocab.txt"), "w", encoding="utf-8") as f:
    f.write("\n".join(WORDS) + "\n")
rng = np.random.default_rng(0)
for split, n in (("train", 64), ("test", 32)):
    with open(os.path.join(WORK, f"{split}.csv"), "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "label"])
        for i in range(n):
            words = list(rng.choice(NEUTRAL, rng.integers(1, 3))) + list(rng.choice(GOOD if i % 2 else BAD,
                                                                                  rng.integers(3, 6)))
            rng.shuffle(words)
            writer.writerow([" ".join(words).capitalize(), i % 2])

tokenizer = T.BertTokenizer(os.path.join(WORK, "vocab.txt"))
out["tok_ids"] = np.array(tokenizer("The movie was GREAT, zebra!")["input_ids"])
splits = load_dataset("csv", data_files={s: os.path.join(WORK, f"{s}.csv") for s in ("train", "test")},
                      split=["train", "test"])


def process_dataset(dataset, max_seq_len=16, batch_size=16, shuffle=False):
    def tokenize(text):
        tokenized = tokenizer(text, truncation=True, max_length=max_seq_len)
        return tokenized["input_ids"], tokenized["attention_mask"]
    if shuffle:
        dataset = dataset.shuffle(batch_size)
    dataset = dataset.map(operations=[tokenize], input_columns="text", output_columns=["input_ids", "attention_mask"])
    dataset = dataset.map(operations=transforms.TypeCast(mindspore.int32), input_columns="label",
                          output_columns="labels")
    return dataset.padded_batch(batch_size, pad_info={"input_ids": (None, tokenizer.pad_token_id),
                                                      "attention_mask": (None, 0)})


train_ds, test_ds = process_dataset(splits["train"], shuffle=True), process_dataset(splits["test"])
mindspore.set_seed(0)
config = T.BertConfig(vocab_size=len(WORDS), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=64, max_position_embeddings=32, num_labels=2)
model = T.AutoModelForSequenceClassification.from_config(config)


def compute_metrics(p):
    return {"accuracy": float((p.predictions.argmax(-1) == p.label_ids).mean())}


args = TrainingArguments(output_dir=os.path.join(WORK, "out"), num_train_epochs=6, learning_rate=5e-3,
                         per_device_train_batch_size=16, per_device_eval_batch_size=16, evaluation_strategy="epoch",
                         save_strategy="epoch", logging_strategy="steps", logging_steps=2, save_total_limit=2,
                         load_best_model_at_end=True, metric_for_best_model="eval_loss")
trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=test_ds,
                  compute_metrics=compute_metrics)
result = trainer.train()
history = trainer.state.log_history
out["trainer_losses"] = np.array([h["loss"] for h in history if "loss" in h])
out["trainer_eval_losses"] = np.array([h["eval_loss"] for h in history if "eval_loss" in h])
out["trainer_eval_accuracy"] = np.array([h["eval_accuracy"] for h in history if "eval_accuracy" in h])
out["trainer_steps"] = np.array([result.global_step])
out["trainer_checkpoints"] = np.array(sorted(d for d in os.listdir(args.output_dir) if d.startswith("checkpoint")))
final = trainer.evaluate()
out["trainer_final_eval"] = np.array([final["eval_loss"], final["eval_accuracy"]])
prediction = trainer.predict(test_ds)
out["trainer_predictions"], out["trainer_label_ids"] = prediction.predictions, prediction.label_ids
saved = os.path.join(WORK, "saved")
trainer.save_model(saved)
tokenizer.save_pretrained(saved)
reloaded = T.AutoModelForSequenceClassification.from_pretrained(saved)
reloaded.set_train(False)
model.set_train(False)
batch = next(test_ds.create_dict_iterator())
out["reload_logits"] = reloaded(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits.asnumpy()
out["trained_logits"] = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits.asnumpy()
out["auto_tok_ids"] = np.array(T.AutoTokenizer.from_pretrained(saved)("The movie was GREAT, zebra!")["input_ids"])

# the saved directory through a pipeline: its scores are the model's softmax
classify = T.pipeline("text-classification", model=saved)
texts = ["The plot was lovely and superb", "a boring, awful movie"]
out["pipeline_scores"] = np.array([[r["score"], int(r["label"][-1])] for r in classify(texts)])
encoded = tokenizer(texts, padding=True, return_tensors="ms")
out["pipeline_logits"] = reloaded(input_ids=encoded["input_ids"],
                                  attention_mask=encoded["attention_mask"]).logits.asnumpy()

# a byte-level BPE tokenizer (GPT2Tokenizer) from a vocab.json and merges.txt written here
with open(os.path.join(WORK, "vocab.json"), "w", encoding="utf-8") as f:
    json.dump({"<|endoftext|>": 0, "a": 1, "b": 2, "c": 3, "\u0120": 4, "ab": 5, "\u0120a": 6, "\u0120ab": 7,
               "abc": 8}, f)
with open(os.path.join(WORK, "merges.txt"), "w", encoding="utf-8") as f:
    f.write("#version: 0.2\na b\n\u0120 a\n\u0120a b\nab c\n")
bpe = T.GPT2Tokenizer(os.path.join(WORK, "vocab.json"), os.path.join(WORK, "merges.txt"))
out["bpe_ids"] = np.array(bpe("abc ab a")["input_ids"])
out["bpe_text"] = np.array(bpe.decode(out["bpe_ids"].tolist()))

# -- the Trainer on an in-memory GeneratorDataset: accumulation, a cosine schedule with warm-up, clipping, weight decay,
# checkpoints every 8 steps, and training resumed from one of them
class Rows:
    def __init__(self, n):
        self.labels = (np.arange(n) % 2).astype(np.int32)
        self.ids = (np.random.default_rng(0).integers(4, 27, (n, 8)) + 23 * self.labels[:, None]).astype(np.int32)

    def __getitem__(self, i):
        return self.ids[i], self.labels[i]

    def __len__(self):
        return len(self.ids)


def bert():
    mindspore.set_seed(0)
    return T.BertForSequenceClassification(T.BertConfig(
        vocab_size=50, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
        max_position_embeddings=32, num_labels=2, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0))


args = TrainingArguments(output_dir=os.path.join(WORK, "resume"), num_train_epochs=4, learning_rate=2e-3,
                         per_device_train_batch_size=8, gradient_accumulation_steps=2, lr_scheduler_type="cosine",
                         warmup_steps=2, weight_decay=0.01, max_grad_norm=0.5, save_strategy="steps", save_steps=8,
                         logging_steps=4)
runs = []
for resume in (None, os.path.join(args.output_dir, "checkpoint-8")):
    trainer = Trainer(model=bert(), args=args, train_dataset=GeneratorDataset(Rows(64), ["input_ids", "labels"],
                                                                             shuffle=False))
    result = trainer.train(resume_from_checkpoint=resume)
    runs.append(trainer.model.classifier.weight.asnumpy())
    out["resume_steps" if resume else "full_steps"] = np.array([result.global_step])
out["full_losses"] = np.array([h["loss"] for h in trainer.state.log_history if "loss" in h])
out["full_lrs"] = np.array([h["learning_rate"] for h in trainer.state.log_history if "learning_rate" in h])
out["resume_weights"] = np.stack(runs)
out["resume_files"] = np.array(sorted(os.listdir(os.path.join(args.output_dir, "checkpoint-8"))))

# -- LoRA on a tiny Llama: only the adapters train
V = 32


def counting(starts, seq=10):
    return np.array([[(s + i - 1) % (V - 1) + 1 for i in range(seq)] for s in starts], np.int64)


mindspore.set_seed(0)
llama_config = T.LlamaConfig(vocab_size=V, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
base = T.LlamaForCausalLM(llama_config)
base.save_pretrained(os.path.join(WORK, "llama"))
before = {name: p.asnumpy().copy() for name, p in base.parameters_and_names()}
peft_model = get_peft_model(base, LoraConfig(task_type=TaskType.CAUSAL_LM, r=4, lora_alpha=8, lora_dropout=0.0,
                                             target_modules=["q_proj", "v_proj"]))
peft_model.print_trainable_parameters()
out["lora_counts"] = np.array(peft_model.get_nb_trainable_parameters())
params = peft_model.trainable_params()
optimizer = optim.AdamW(params, lr=3e-2)
grad_fn = value_and_grad(lambda x: peft_model(input_ids=x, labels=x).loss, params)
rng = np.random.default_rng(0)
losses = []
for _ in range(40):
    optimizer.zero_grad()
    losses.append(float(grad_fn(mindspore.Tensor(counting(rng.integers(1, V, 8)))).asnumpy()))
    optimizer.step()
out["lora_losses"] = np.array(losses)
after = {name.replace(".base_layer", ""): p.asnumpy() for name, p in base.parameters_and_names()}   # the wrapped
out["lora_base_changed"] = np.array([not np.array_equal(before[name], after[name]) for name in before])
peft_model.eval()
prompt = mindspore.Tensor(counting([3, 9], 6))
out["lora_logits"] = peft_model(input_ids=prompt).logits.asnumpy()
q_proj = base.model.layers[0].self_attn.q_proj
x = mindspore.Tensor(np.random.default_rng(1).standard_normal((3, 32)), mindspore.float32)
out["lora_q_x"], out["lora_q_out"] = x.asnumpy(), q_proj(x).asnumpy()
out["lora_q_w"] = q_proj.base_layer.weight.asnumpy()
out["lora_q_a"] = q_proj.lora_A["default"].weight.asnumpy()
out["lora_q_b"] = q_proj.lora_B["default"].weight.asnumpy()
peft_model.save_pretrained(os.path.join(WORK, "adapter"))
adapted = PeftModel.from_pretrained(T.LlamaForCausalLM.from_pretrained(os.path.join(WORK, "llama")),
                                    os.path.join(WORK, "adapter"))
adapted.eval()
out["lora_reload_logits"] = adapted(input_ids=prompt).logits.asnumpy()
plain = T.LlamaForCausalLM.from_pretrained(os.path.join(WORK, "llama"))
plain.set_train(False)
out["lora_base_logits"] = plain(input_ids=prompt).logits.asnumpy()


# -- other PEFT methods: only what they add trains
def roberta():
    mindspore.set_seed(0)
    return T.RobertaForSequenceClassification(T.RobertaConfig(
        vocab_size=50, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
        max_position_embeddings=40, num_labels=2, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0))


def gpt2():
    mindspore.set_seed(0)
    return T.GPT2LMHeadModel(T.GPT2Config(vocab_size=50, n_positions=32, n_embd=32, n_layer=2, n_head=4,
                                          resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0))


tokens = mindspore.Tensor(np.random.default_rng(0).integers(3, 50, (4, 8)), mindspore.int64)
classes = mindspore.Tensor([0, 1, 0, 1], mindspore.int64)
PEFT = {
    "lora_seq_cls": (roberta, lambda: LoraConfig(task_type="SEQ_CLS", r=4, lora_alpha=8,
                                                 target_modules=["query", "value"])),
    "lora_gpt2": (gpt2, lambda: LoraConfig(task_type="CAUSAL_LM", r=4, lora_alpha=8, target_modules=["c_attn"],
                                           fan_in_fan_out=True)),
    "prompt_tuning": (gpt2, lambda: peft.PromptTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=4)),
    "prefix_tuning": (gpt2, lambda: peft.PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=4)),
    "p_tuning": (gpt2, lambda: peft.PromptEncoderConfig(task_type="CAUSAL_LM", num_virtual_tokens=4,
                                                        encoder_hidden_size=16)),
    "ia3": (roberta, lambda: peft.IA3Config(task_type="SEQ_CLS", target_modules=["key", "value", "output.dense"],
                                            feedforward_modules=["output.dense"])),
    "adalora": (roberta, lambda: peft.AdaLoraConfig(task_type="SEQ_CLS", r=4, target_modules=["query", "value"],
                                                    total_step=10)),
}
for name, (build, make_config) in PEFT.items():
    base = build()
    originals = [(p, p.asnumpy().copy()) for p in base.get_parameters()]
    wrapped = get_peft_model(base, make_config())
    params = wrapped.trainable_params()
    labels = classes if build is roberta else tokens
    optimizer = optim.AdamW(params, lr=1e-2)
    grad_fn = value_and_grad(lambda: wrapped(input_ids=tokens, labels=labels).loss, params)  # noqa: B023
    losses = []
    for _ in range(10):
        optimizer.zero_grad()
        losses.append(float(grad_fn().asnumpy()))
        optimizer.step()
    out[f"peft_{name}"] = np.array([losses[0], losses[-1], *wrapped.get_nb_trainable_parameters(),
                                    sum(not np.array_equal(p.asnumpy(), v) for p, v in originals)])


# -- model families: forward, gradients (checked by a finite difference along them), generate
def ids(batch=2, length=8, seed=0, high=V):
    return mindspore.Tensor(np.random.default_rng(seed).integers(3, high, (batch, length)), mindspore.int64)


labels2 = mindspore.Tensor([0, 1], mindspore.int64)
pixels = mindspore.Tensor(np.random.default_rng(0).standard_normal((2, 3, 16, 16)), mindspore.float32)
features = mindspore.Tensor(np.random.default_rng(0).standard_normal((2, 8, 20)), mindspore.float32)
enc = dict(vocab_size=V, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
           max_position_embeddings=40, num_labels=2, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
dec = dict(vocab_size=V, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
           max_position_embeddings=64)
seq2seq = dict(vocab_size=V, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
               decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=40,
               dropout=0.0, attention_dropout=0.0)
FAMILIES = {
    "roberta": (lambda: T.RobertaForSequenceClassification(T.RobertaConfig(**enc)),
                lambda: dict(input_ids=ids(), labels=labels2)),
    "distilbert": (lambda: T.DistilBertForSequenceClassification(T.DistilBertConfig(
        vocab_size=V, dim=32, n_layers=2, n_heads=4, hidden_dim=64, max_position_embeddings=40, dropout=0.0,
        attention_dropout=0.0, seq_classif_dropout=0.0)), lambda: dict(input_ids=ids(), labels=labels2)),
    "albert": (lambda: T.AlbertForSequenceClassification(T.AlbertConfig(embedding_size=16, classifier_dropout_prob=0.0,
                                                                        **enc)),
               lambda: dict(input_ids=ids(), labels=labels2)),
    "electra": (lambda: T.ElectraForSequenceClassification(T.ElectraConfig(embedding_size=16, **enc)),
                lambda: dict(input_ids=ids(), labels=labels2)),
    "longformer": (lambda: T.LongformerForSequenceClassification(T.LongformerConfig(attention_window=4, **enc)),
                   lambda: dict(input_ids=ids(), labels=labels2)),
    "bert_qa": (lambda: T.BertForQuestionAnswering(T.BertConfig(**enc)),
                lambda: dict(input_ids=ids(), start_positions=labels2, end_positions=labels2 + 3)),
    "vit": (lambda: T.ViTForImageClassification(T.ViTConfig(
        image_size=16, patch_size=4, num_channels=3, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=64, num_labels=3, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)),
        lambda: dict(pixel_values=pixels, labels=labels2)),
    "llama": (lambda: T.LlamaForCausalLM(T.LlamaConfig(num_key_value_heads=2, **dec)),
              lambda: dict(input_ids=ids(), labels=ids())),
    "qwen2": (lambda: T.Qwen2ForCausalLM(T.Qwen2Config(num_key_value_heads=2, **dec)),
              lambda: dict(input_ids=ids(), labels=ids())),
    "mistral": (lambda: T.MistralForCausalLM(T.MistralConfig(num_key_value_heads=2, **dec)),
                lambda: dict(input_ids=ids(), labels=ids())),
    "gemma": (lambda: T.GemmaForCausalLM(T.GemmaConfig(num_key_value_heads=1, head_dim=8, **dec)),
              lambda: dict(input_ids=ids(), labels=ids())),
    "gpt_neox": (lambda: T.GPTNeoXForCausalLM(T.GPTNeoXConfig(**dec)),
                 lambda: dict(input_ids=ids(), labels=ids())),
    "opt": (lambda: T.OPTForCausalLM(T.OPTConfig(vocab_size=V, hidden_size=32, ffn_dim=64, num_hidden_layers=2,
                                                 num_attention_heads=4, max_position_embeddings=64,
                                                 word_embed_proj_dim=32, dropout=0.0)),
            lambda: dict(input_ids=ids(), labels=ids())),
    "bloom": (lambda: T.BloomForCausalLM(T.BloomConfig(vocab_size=V, hidden_size=32, n_layer=2, n_head=4)),
              lambda: dict(input_ids=ids(), labels=ids())),
    "t5": (lambda: T.T5ForConditionalGeneration(T.T5Config(
        vocab_size=V, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
        dropout_rate=0.0, decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)),
        lambda: dict(input_ids=ids(), labels=ids(length=5, seed=1))),
    "bart": (lambda: T.BartForConditionalGeneration(T.BartConfig(**seq2seq)),
             lambda: dict(input_ids=ids(), labels=ids(length=5, seed=1))),
    "whisper": (lambda: T.WhisperForConditionalGeneration(T.WhisperConfig(
        vocab_size=V, num_mel_bins=8, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
        decoder_attention_heads=2, d_model=16, encoder_ffn_dim=32, decoder_ffn_dim=32, max_source_positions=10,
        max_target_positions=20, decoder_start_token_id=1, pad_token_id=0, eos_token_id=2, bos_token_id=1,
        begin_suppress_tokens=None, suppress_tokens=None, dropout=0.0)),
        lambda: dict(input_features=features, labels=ids(length=5))),
}


def set_params(params, values):
    for p, v in zip(params, values):
        ops.assign(p, v)


for name, (build, inputs) in FAMILIES.items():
    mindspore.set_seed(0)
    net = build()
    net.set_train(False)
    kwargs = inputs()
    params = net.trainable_params()
    loss, grads = mindspore.value_and_grad(lambda: net(**kwargs).loss, None, params)()  # noqa: B023 (called here)
    norm = float(np.sqrt(sum((g.asnumpy().astype(np.float64) ** 2).sum() for g in grads)))
    start = [p.asnumpy().copy() for p in params]
    eps = 1e-3 / norm                                       # a step of 1e-3 along the unit gradient
    sides = []
    for sign in (1, -1):
        set_params(params, [mindspore.Tensor(s + sign * eps * g.asnumpy()) for s, g in zip(start, grads)])
        sides.append(float(net(**kwargs).loss.asnumpy()))
    set_params(params, [mindspore.Tensor(s) for s in start])
    out[f"{name}_loss"] = np.array([float(loss.asnumpy()), float(net(**kwargs).loss.asnumpy())])
    out[f"{name}_grad"] = np.array([norm ** 2, (sides[0] - sides[1]) / (2 * eps),
                                    sum(float(ops.abs(g).sum().asnumpy()) > 0 for g in grads), len(grads)])
    if "input_ids" in kwargs and "labels" in kwargs and kwargs["labels"].shape == kwargs["input_ids"].shape:
        prompt = ids(length=4, seed=2)                      # a causal LM: its scores are a full forward's logits
        gen = net.generate(prompt, attention_mask=ops.ones_like(prompt), max_new_tokens=5, min_new_tokens=5,
                           do_sample=False, return_dict_in_generate=True, output_scores=True, pad_token_id=0)
        out[f"{name}_gen_scores"] = np.stack([s.asnumpy() for s in gen.scores], 1)
        out[f"{name}_gen_logits"] = net(input_ids=gen.sequences).logits.asnumpy()[:, 3:-1]
        out[f"{name}_gen_sequences"] = gen.sequences.asnumpy()
    elif name in ("t5", "bart"):                            # encoder-decoder: against the decoder run on the output
        source = ids(seed=2)
        gen = net.generate(source, max_new_tokens=5, min_new_tokens=5, do_sample=False,
                           return_dict_in_generate=True, output_scores=True)
        out[f"{name}_gen_scores"] = np.stack([s.asnumpy() for s in gen.scores], 1)
        out[f"{name}_gen_logits"] = net(input_ids=source, decoder_input_ids=gen.sequences[:, :-1]).logits.asnumpy()
        out[f"{name}_gen_sequences"] = gen.sequences.asnumpy()
    elif name == "whisper":
        out["whisper_gen_sequences"] = net.generate(features, max_new_tokens=4, do_sample=False).asnumpy()

# -- beam search with the n-gram ban: its logits processor writes `scores[i, banned] = -inf` for each hypothesis,
# `banned` an empty list until a bigram would repeat; the same beams without the ban
net = gpt2()
net.set_train(False)
prompt = ids(length=4, seed=4, high=50)
beam = dict(attention_mask=ops.ones_like(prompt), max_new_tokens=12, min_new_tokens=12, do_sample=False, pad_token_id=0,
            num_beams=3)
out["beam_ngram_sequences"] = net.generate(prompt, no_repeat_ngram_size=2, **beam).asnumpy()
out["beam_sequences"] = net.generate(prompt, **beam).asnumpy()
out["beam_prompt"] = prompt.asnumpy()

# -- mindnlp's own .ckpt writer and reader (core.serialization: MindSpore's `_exec_save` / `_parse_ckpt_proto`, the
# dtype names its patch module makes "mindspore.float32"), and save_pretrained(safe_serialization=False)
from mindnlp.core.serialization import load_checkpoint as nlp_load_checkpoint  # noqa: E402
from mindnlp.core.serialization import save_checkpoint as nlp_save_checkpoint  # noqa: E402
state = net.state_dict()
nlp_save_checkpoint(state, os.path.join(WORK, "gpt2.ckpt"))
back = nlp_load_checkpoint(os.path.join(WORK, "gpt2.ckpt"))
out["ckpt_keys"] = np.array([sorted(back) == sorted(state), len(state)])
out["ckpt_max_diff"] = np.array(max(float(np.abs(back[k].asnumpy() - state[k].asnumpy()).max()) for k in state))
net.save_pretrained(os.path.join(WORK, "gpt2_ckpt"), safe_serialization=False)
out["ckpt_files"] = np.array(sorted(os.listdir(os.path.join(WORK, "gpt2_ckpt"))))
again = T.GPT2LMHeadModel.from_pretrained(os.path.join(WORK, "gpt2_ckpt"))
again.set_train(False)
out["ckpt_logits"] = np.stack([net(input_ids=prompt).logits.asnumpy(), again(input_ids=prompt).logits.asnumpy()])

# -- llm/inference/llama2's static-cache decoding (simple_/jit_/compile_inference_with_static_cache.py) on a small
# Llama: the prompt through the model filling a StaticCache, then one token at a time, eagerly, as a STRICT jit
# function (its cache reads `.item()` in the graph, its buffers are mindnlp Parameters updated in place by each call)
# and with the model's forward compiled (`model.compile`: its outputs, ModelOutputs, indexed by position)
def decode_one_tokens(model, cur_token, input_pos, cache_position, past_key_values):
    logits = model(cur_token, position_ids=input_pos, cache_position=cache_position, past_key_values=past_key_values,
                   return_dict=False, use_cache=True)[0]
    return ops.argmax(logits[:, -1], dim=-1)[:, None]


mindspore.set_seed(0)
llama = T.LlamaForCausalLM(T.LlamaConfig(num_key_value_heads=2, **dec))
llama.set_train(False)
prompt = ids(length=6, seed=3)
out["static_cache_generate"] = llama.generate(prompt, attention_mask=ops.ones_like(prompt), max_new_tokens=8,
                                              do_sample=False, pad_token_id=0).asnumpy()
STRICT = mindspore.JitConfig(jit_syntax_level="STRICT")
for label, decode in (("eager", decode_one_tokens), ("jit", mindspore.jit(decode_one_tokens, jit_config=STRICT)),
                      ("compile", decode_one_tokens)):
    with no_grad():
        past_key_values = T.StaticCache(config=llama.config, max_batch_size=2, max_cache_len=32, dtype=llama.dtype)
        batch_size, seq_length = prompt.shape
        generated_ids = ops.zeros((batch_size, seq_length + 8), mindspore.int32)
        generated_ids[:, :seq_length] = prompt.astype(mindspore.int32)
        logits = llama(prompt, cache_position=ops.arange(seq_length), past_key_values=past_key_values,
                       return_dict=False, use_cache=True)[0]
        next_token = ops.argmax(logits[:, -1], dim=-1)[:, None]
        generated_ids[:, seq_length] = next_token[:, 0]
        if label == "compile":          # compile_inference_with_static_cache.py: the model's forward as one graph
            llama.compile(jit_config=STRICT)
        cache_position = mindspore.tensor([seq_length])    # where the token just chosen goes in the cache
        for _ in range(1, 8):
            next_token = decode(llama, next_token, None, cache_position, past_key_values)
            cache_position += 1
            generated_ids[:, cache_position] = next_token.int()
    out[f"static_cache_{label}"] = generated_ids.asnumpy()
    out[f"static_cache_{label}_filled"] = np.array((past_key_values.key_cache[0].asnumpy()[0, 0] != 0).any(-1).sum())

# -- a BatchNorm (mindnlp.core.nn, the layer of its ResNets) in training mode under mindspore.jit: each call counts
# num_batches_tracked and moves the running statistics, as in PyNative
bn_net = mindnlp_nn.Sequential(mindnlp_nn.Conv2d(3, 4, 3, padding=1), mindnlp_nn.BatchNorm2d(4))
bn_net.train()
bn_x = mindspore.Tensor(np.random.default_rng(5).normal(1.0, 2.0, (4, 3, 6, 6)).astype(np.float32))


@mindspore.jit
def bn_step(x):
    return bn_net(x)


out["bn_conv_out"] = bn_net[0](bn_x).asnumpy()
out["bn_running_means"] = np.stack([(bn_step(bn_x), bn_net[1].running_mean.asnumpy().copy())[1] for _ in range(3)])
out["bn_num_batches_tracked"] = np.array(int(bn_net[1].num_batches_tracked))

np.savez(OUT, **out)
