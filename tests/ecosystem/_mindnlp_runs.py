"""mindnlp 0.4.1's first uses, run as a user runs them: `python -m mindseed.compat _mindnlp_runs.py OUT.npz`, with the
packages mindnlp pins (pytest 7.2.0 among them) first on the path. Tiny models from configs (random init, no
downloads): BertForSequenceClassification fine-tuned with mindnlp's `core.optim.AdamW` and `core.autograd
.value_and_grad` (the loop mindnlp's Trainer runs), its gradients also taken with `mindspore.value_and_grad`; BertModel
run forward; GPT2LMHeadModel trained on a counting sequence, then `generate` (greedy). What the test checks is
written to OUT.npz (the test computes its numpy references from the weights saved there).
"""
import sys

import numpy as np

import mindspore
from mindnlp.core import optim
from mindnlp.core.autograd import value_and_grad
from mindnlp.transformers import BertConfig, BertForSequenceClassification, BertModel, GPT2Config, GPT2LMHeadModel

VOCAB, SEQ = 32, 12
out = {}


def bert_config(dropout=0.1):
    return BertConfig(vocab_size=50, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                      max_position_embeddings=32, num_labels=2, hidden_dropout_prob=dropout,
                      attention_probs_dropout_prob=dropout)


def classification_data():
    """16 sequences of 8 tokens from 4 .. 49; label 1 where token 3 was put in."""
    rng = np.random.default_rng(0)
    ids = rng.integers(4, 50, (16, 8))
    labels = np.arange(16) % 2
    ids[labels == 1, rng.integers(0, 8, 8)] = 3
    return mindspore.Tensor(ids, mindspore.int64), mindspore.Tensor(labels, mindspore.int64)


# -- BERT: fine-tuning as mindnlp's Trainer does it (gradients attached to the parameters, AdamW steps)
mindspore.set_seed(0)
ids, labels = classification_data()
model = BertForSequenceClassification(bert_config())
optimizer = optim.AdamW(model.parameters(), lr=2e-3)
grad_fn = value_and_grad(lambda x, y: model(input_ids=x, labels=y).loss, model.trainable_params())
model.train()
losses = []
for _ in range(30):
    optimizer.zero_grad()
    losses.append(float(grad_fn(ids, labels).asnumpy()))
    optimizer.step()
model.eval()
out["bert_losses"] = np.array(losses)
out["bert_predictions"] = model(input_ids=ids).logits.asnumpy().argmax(-1)
out["bert_labels"] = labels.asnumpy()

# -- the same gradients two ways: mindnlp's value_and_grad (the PyNative executor's protocol) and MindSpore's,
# without dropout
mindspore.set_seed(1)
model = BertForSequenceClassification(bert_config(dropout=0.0))
params = model.trainable_params()
loss, grads = value_and_grad(lambda x, y: model(input_ids=x, labels=y).loss, params, attach_grads=False)(ids, labels)
loss_ms, grads_ms = mindspore.value_and_grad(lambda x, y: model(input_ids=x, labels=y).loss, None, params)(ids, labels)
out["grad_losses"] = np.array([float(loss.asnumpy()), float(loss_ms.asnumpy())])
out["grad_norms"] = np.array([[np.linalg.norm(g.asnumpy()) for g in gs] for gs in (grads, grads_ms)])
out["grad_max_diff"] = np.array([np.abs(a.asnumpy() - b.asnumpy()).max() for a, b in zip(grads, grads_ms)])
# what the classifier's gradients must be: (softmax(logits) - onehot(labels)) / N, against the pooled features
names = [name for name, p in model.named_parameters() if p.requires_grad]
out["grad_classifier_w"] = grads[names.index("classifier.weight")].asnumpy()
out["grad_classifier_b"] = grads[names.index("classifier.bias")].asnumpy()
out["grad_logits"] = model(input_ids=ids).logits.asnumpy()
out["grad_pooled"] = model.bert(input_ids=ids).pooler_output.asnumpy()

# -- BertModel forward: the pooler is tanh(dense(first token's hidden state))
bert = BertModel(bert_config(dropout=0.0))
bert.eval()
res = bert(input_ids=ids)
out["bert_hidden"] = res.last_hidden_state.asnumpy()
out["bert_pooled"] = res.pooler_output.asnumpy()
out["bert_pooler_w"] = bert.pooler.dense.weight.asnumpy()
out["bert_pooler_b"] = bert.pooler.dense.bias.asnumpy()


# -- GPT-2: learns to count, then generates
def counting(starts):
    return np.array([[(s + i - 1) % (VOCAB - 1) + 1 for i in range(SEQ)] for s in starts], np.int64)


mindspore.set_seed(0)
gpt = GPT2LMHeadModel(GPT2Config(vocab_size=VOCAB, n_positions=32, n_embd=32, n_layer=2, n_head=4, bos_token_id=0,
                                 eos_token_id=0, pad_token_id=0))
optimizer = optim.AdamW(gpt.parameters(), lr=3e-3)
grad_fn = value_and_grad(lambda x: gpt(input_ids=x, labels=x).loss, gpt.trainable_params())
gpt.train()
rng = np.random.default_rng(0)
losses = []
for _ in range(80):
    optimizer.zero_grad()
    losses.append(float(grad_fn(mindspore.Tensor(counting(rng.integers(1, VOCAB, 4)))).asnumpy()))
    optimizer.step()
gpt.eval()
out["gpt_losses"] = np.array(losses)
prompt = mindspore.Tensor(counting([5, 20])[:, :4])
gen = gpt.generate(prompt, attention_mask=mindspore.ops.ones_like(prompt), max_new_tokens=8, do_sample=False,
                   return_dict_in_generate=True, output_scores=True)
out["gpt_sequences"] = gen.sequences.asnumpy()
out["gpt_scores"] = np.stack([s.asnumpy() for s in gen.scores], 1)          # (batch, new tokens, vocab)
out["gpt_logits"] = gpt(input_ids=gen.sequences).logits.asnumpy()            # one forward over the whole output
for name, value in gpt.state_dict().items():
    out["gpt." + name] = value.asnumpy()

np.savez(sys.argv[1], **out)
