"""mindformers' high-level training entry points run as its users run them, in a process of their own:

    python -m mindseed.compat -m _mindformers_run MODE WORKDIR

(mindformers' context set-up is once per process: it makes MindSpore's once-only runtime settings, so two runs with
different configurations cannot share one). MODE:

* `yaml`: the steps of mindformers' run_mindformer.py on WORKDIR/run_llama_tiny.yaml: `MindFormerConfig`,
  `build_context`, `Trainer(args=config).train()`, then `trainer.predict(predict_checkpoint=True)` of two prompts;
* `arguments`: `Trainer(task="text_generation", model=<instance>, args=TrainingArguments(...))` over a
  `GeneratorDataset` with mindformers' AdamW (how `mindformers.run_check` trains), then `generate` and a greedy loop.

What it saw goes to WORKDIR/result.json. The tiny Llama and the counting data are shared with test_mindformers.py.
"""
import json
import os
import sys

import numpy as np

VOCAB, SEQ, BATCH = 64, 16, 2
TINY_LLAMA = dict(batch_size=BATCH, seq_length=SEQ, hidden_size=32, num_layers=2, num_heads=4, vocab_size=VOCAB,
                  intermediate_size=64, compute_dtype="float32", param_init_type="float32",
                  layernorm_compute_type="float32", softmax_compute_type="float32", rotary_dtype="float32",
                  do_sample=False, max_decode_length=SEQ)
PROMPTS = ["5 6 7 8", "40 41 42 43"]      # what `yaml` asks the trained model to continue (to 12 tokens)


def counting(starts):
    """Rows of SEQ + 1 tokens counting up from each start (tokens 1 .. VOCAB - 1, wrapping past the end)."""
    return np.array([[(s + i - 1) % (VOCAB - 1) + 1 for i in range(SEQ + 1)] for s in starts], np.int32)


def tiny_llama(seed=0, use_past=False):
    import mindspore as ms
    from mindformers.models.llama import LlamaConfig, LlamaForCausalLM
    ms.set_seed(seed)
    return LlamaForCausalLM(LlamaConfig(**TINY_LLAMA, use_past=use_past))


def train_to_count(net, loss_fn=None, steps=60):
    """`steps` AdamWeightDecay steps on counting rows, of `loss_fn(input_ids, labels)` (labels: the next tokens) or,
    without `loss_fn`, of the network on rows of SEQ + 1 tokens (it shifts them itself); the losses."""
    import mindspore as ms
    from mindspore import nn
    net.set_train(True)
    optimizer = nn.AdamWeightDecay(net.trainable_params(), learning_rate=2e-3, weight_decay=0.0)
    step = ms.value_and_grad(loss_fn or net, None, optimizer.parameters)
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        rows = counting(rng.integers(1, VOCAB, BATCH))
        inputs = (rows,) if loss_fn is None else (rows[:, :SEQ], rows[:, 1:])
        loss, grads = step(*map(ms.Tensor, inputs))
        optimizer(grads)
        losses.append(float(loss.asnumpy().reshape(-1)[0]))
    return losses


def counting_llama():
    """The tiny Llama trained to count (greedy decoding continues a prompt t, t + 1, ... by t + 1), in predict mode."""
    net = tiny_llama()
    losses = train_to_count(net, steps=80)
    assert np.mean(losses[-5:]) < 0.1, losses
    net.set_train(False)
    return net


def greedy(net, prompts, length):
    """Continue `prompts` to `length` tokens by hand: the sequence, right-padded with 0 to the model's SEQ (causal
    attention: the padding does not reach earlier positions), through the network; argmax at its last token."""
    import mindspore as ms
    ids = np.array(prompts, np.int32)
    while ids.shape[1] < length:
        n = ids.shape[1]
        out = net(ms.Tensor(np.pad(ids, ((0, 0), (0, SEQ - n)))))
        logits = (out[0] if isinstance(out, tuple) else out).asnumpy().reshape(ids.shape[0], SEQ, -1)
        ids = np.concatenate([ids, logits[:, n - 1].argmax(-1)[:, None].astype(np.int32)], axis=1)
    return ids


def word_tokenizer(path):
    """A word-level tokenizer file (the `tokenizers` package's format) naming token i "i": 0-2 are <unk>, <s>, </s>."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, **{str(i): i for i in range(3, VOCAB)}}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.save(str(path))
    return str(path)


def loss_recorder():
    """A callback keeping each step's loss (the first of the training cell's outputs)."""
    from mindspore.train import Callback

    class Losses(Callback):
        def __init__(self):
            super().__init__()
            self.losses = []

        def on_train_step_end(self, run_context):
            out = run_context.original_args().net_outputs
            out = out[0] if isinstance(out, (tuple, list)) else out
            self.losses.append(float(out.asnumpy().reshape(-1)[0]))
    return Losses()


def run_yaml(workdir):
    import mindspore as ms
    from mindformers import MindFormerConfig, Trainer, build_context
    config = MindFormerConfig(os.path.join(workdir, "run_llama_tiny.yaml"))
    build_context(config)
    recorder = loss_recorder()
    trainer = Trainer(args=config, callbacks=[recorder])
    trainer.train()
    result = trainer.predict(predict_checkpoint=True, input_data=PROMPTS, max_length=12,
                             save_file=os.path.join(workdir, "predict.txt"))
    return {"mode": ms.get_context("mode"), "losses": recorder.losses,
            "texts": [r["text_generation_text"][0] for r in result]}


def run_arguments(workdir):
    import mindspore as ms
    from mindspore.dataset import GeneratorDataset
    from mindformers import Trainer, TrainingArguments
    from mindformers.core.optim import AdamW
    from mindformers.trainer.optimizer_grouped_parameters import get_optimizer_grouped_parameters
    rows = counting(np.random.default_rng(2).integers(1, VOCAB, 128))
    net = tiny_llama()
    args = TrainingArguments(output_dir=os.path.join(workdir, "output"), batch_size=BATCH, num_train_epochs=1,
                             sink_mode=False, learning_rate=5e-3, lr_scheduler_type="constant_with_warmup",
                             warmup_steps=0, max_grad_norm=1.0, save_steps=1000)
    recorder = loss_recorder()
    trainer = Trainer(task="text_generation", model=net, args=args, callbacks=[recorder],
                      train_dataset=GeneratorDataset(lambda: iter(rows), ["input_ids"], shuffle=False).batch(BATCH),
                      optimizers=AdamW(get_optimizer_grouped_parameters(model=net), learning_rate=5e-3))
    trainer.train()
    net.set_train(False)
    prompts = counting([20, 33])[:, :4]
    generated = net.generate(prompts.tolist(), max_length=12, do_sample=False)
    return {"mode": ms.get_context("mode"), "losses": recorder.losses,
            "generated": [list(map(int, g)) for g in generated], "greedy": greedy(net, prompts, 12).tolist()}


if __name__ == "__main__":
    mode, workdir = sys.argv[1:3]
    outcome = {"yaml": run_yaml, "arguments": run_arguments}[mode](workdir)
    with open(os.path.join(workdir, "result.json"), "w", encoding="utf-8") as f:
        json.dump(outcome, f)
