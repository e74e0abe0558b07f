"""mindformers 2.1.0, unmodified, on mindseed: the generation options of `model.generate(...)` and `GenerationConfig`
(sampling with top-k / top-p / temperature under a seed, repetition penalty, length limits and end-of-sequence,
streamers, batches of prompts of different lengths) on the tiny Llama of test_mindformers.py, each checked against
what the network's own logits say the option must give, computed here in numpy.

mindformers applies its logits processors with MindSpore operators (`mint.topk`, `mint.sort`, `mint.gather`,
`mint.scatter`, `mint.where`, ...) and samples with numpy's global generator, seeded by `generate(seed=...)`: the same
draws from the same probabilities pick the same tokens.
"""
import threading

import numpy as np
import pytest

from _eco import use
from _mindformers_run import SEQ, counting, counting_llama, tiny_llama, word_tokenizer


@pytest.fixture(scope="module")
def mindformers(tmp_path_factory):
    import os
    # mindformers writes its logs under $LOCAL_DEFAULT_PATH (default ./output): keep them out of the work tree
    os.environ.setdefault("LOCAL_DEFAULT_PATH", str(tmp_path_factory.mktemp("mindformers_output")))
    return use("mindformers", "mindformers")


@pytest.fixture(scope="module")
def untrained(mindformers):
    """The tiny Llama at initialisation: its next-token distributions are near uniform, so sampling has choices."""
    net = tiny_llama(seed=3)
    net.set_train(False)
    return net


@pytest.fixture(scope="module")
def counter(mindformers):
    return counting_llama()


def _next_logits(net, rows):
    """The network's logits for the token after each row (rows of one length, right-padded with 0 to SEQ)."""
    import mindspore as ms
    rows = np.asarray(rows, np.int32)
    out = net(ms.Tensor(np.pad(rows, ((0, 0), (0, SEQ - rows.shape[1])))))
    logits = (out[0] if isinstance(out, tuple) else out).asnumpy().reshape(rows.shape[0], SEQ, -1)
    return logits[:, rows.shape[1] - 1].astype(np.float64)


def _warp(logits, temperature=1.0, top_k=0, top_p=1.0):
    """mindformers' sampling distribution, by its documented rules: logits / temperature; only the top_k largest kept;
    then only the most probable tokens whose cumulative probability before them is below top_p (at least one)."""
    logits = logits / temperature
    keep = np.ones_like(logits, bool)
    if top_k > 0:
        keep &= logits >= np.sort(logits, -1)[:, -top_k][:, None]
    if top_p < 1.0:
        masked = np.where(keep, logits, -np.inf)
        order = np.argsort(-masked, -1, kind="stable")
        probs = np.exp(masked - masked.max(-1, keepdims=True))
        cumulative = np.cumsum(np.take_along_axis(probs / probs.sum(-1, keepdims=True), order, -1), -1)
        nucleus = cumulative < top_p
        nucleus[:, 0] = True
        in_nucleus = np.zeros_like(keep)
        np.put_along_axis(in_nucleus, order, nucleus, -1)
        keep &= in_nucleus
    probs = np.where(keep, np.exp(logits - logits.max(-1, keepdims=True)), 0.0)
    return probs / probs.sum(-1, keepdims=True), keep


def _sample_by_hand(net, prompts, length, seed, **warp):
    """Continue `prompts` to `length` tokens drawing each token as mindformers does (numpy's global generator seeded
    with `seed`, one `np.random.choice` per row); the ids and, per step, the set of tokens allowed."""
    np.random.seed(seed)
    ids, allowed = np.array(prompts, np.int32), []
    while ids.shape[1] < length:
        probs, keep = _warp(_next_logits(net, ids), **warp)
        allowed.append(keep)
        drawn = [np.random.choice(probs.shape[1], p=p) for p in probs]
        ids = np.concatenate([ids, np.array(drawn, np.int32)[:, None]], 1)
    return ids, allowed


def _rows(out):
    return [list(map(int, row)) for row in out]


def test_sampling_with_top_k_and_temperature_draws_what_numpy_draws(untrained):
    prompts = counting([5, 40])[:, :4].tolist()
    # top_p=None: no nucleus filter (mindformers applies one even at top_p=1.0, where the float32 cumulative sum
    # reaching 1.0 may drop the last of the top_k)
    sample = dict(max_length=12, do_sample=True, top_k=3, top_p=None, temperature=0.7)
    out = np.array(_rows(untrained.generate(prompts, **sample, seed=11)))
    want, allowed = _sample_by_hand(untrained, prompts, 12, seed=11, temperature=0.7, top_k=3)
    np.testing.assert_array_equal(out, want)
    for step, keep in enumerate(allowed):       # every drawn token is one of that step's 3 most likely
        assert keep.sum(-1).tolist() == [3, 3] and keep[np.arange(2), out[:, 4 + step]].all()
    assert len({tuple(t) for t in out[:, 4:].T}) > 1        # it did sample: the steps do not all repeat
    # the seed makes it repeatable, another seed draws otherwise
    np.testing.assert_array_equal(_rows(untrained.generate(prompts, **sample, seed=11)), out)
    other = np.array(_rows(untrained.generate(prompts, **sample, seed=12)))
    assert (other != out).any()


def test_sampling_with_top_p_keeps_the_nucleus(untrained):
    prompts = counting([20])[:, :4].tolist()
    out = np.array(_rows(untrained.generate(prompts, max_length=12, do_sample=True, top_k=0, top_p=0.1, seed=5)))
    want, allowed = _sample_by_hand(untrained, prompts, 12, seed=5, top_p=0.1)
    np.testing.assert_array_equal(out, want)
    # near-uniform probabilities of ~1/64: the tokens before the cumulative 0.1 are a handful, not all 64
    sizes = [int(keep.sum()) for keep in allowed]
    assert all(4 <= s <= 9 for s in sizes), sizes


def test_sampling_with_top_k_1_is_greedy(untrained):
    prompts = counting([5, 40])[:, :4].tolist()
    greedy = _rows(untrained.generate(prompts, max_length=12, do_sample=False))
    for seed in (0, 1):
        assert _rows(untrained.generate(prompts, max_length=12, do_sample=True, top_k=1, temperature=0.5,
                                        seed=seed)) == greedy
    # and greedy is the argmax of the logits at each step
    ids = np.array(prompts)
    while ids.shape[1] < 12:
        ids = np.concatenate([ids, _next_logits(untrained, ids).argmax(-1)[:, None]], 1)
    # a row ends at its first end-of-sequence id (2) after the prompt: mindformers returns it unpadded
    ended = [row[:4 + row[4:].index(2) + 1] if 2 in row[4:] else row for row in ids.tolist()]
    assert greedy == ended


def test_repetition_penalty_divides_positive_and_multiplies_negative_logits_of_seen_tokens(untrained, counter):
    """`return_dict_in_generate` with `output_logits` (the raw logits) and `output_scores` (after the processors):
    the tokens already in the sequence have their logit divided by the penalty when positive, multiplied when negative;
    the others are unchanged, and greedy decoding takes the argmax of the penalised scores."""
    prompts = [[5, 6, 7, 8, 5, 6], [40, 41, 40, 41, 40, 41]]
    out = untrained.generate(prompts, max_length=10, do_sample=False, repetition_penalty=3.0,
                             return_dict_in_generate=True, output_scores=True, output_logits=True)
    sequences = np.array(_rows(out.sequences))
    assert len(out.logits) == len(out.scores) == 4
    penalised = 0
    for step, (raw, scores) in enumerate(zip(out.logits, out.scores)):
        seen = sequences[:, :6 + step]
        np.testing.assert_allclose(raw, _next_logits(untrained, seen), rtol=1e-5, atol=1e-6)
        for row in range(2):
            tokens = np.unique(seen[row])
            want = raw[row].astype(np.float64).copy()
            want[tokens] = np.where(want[tokens] < 0, want[tokens] * 3.0, want[tokens] / 3.0)
            # NOTE: mindformers penalises the pad id 0 too (it reads the padded sequence): left out of the comparison
            np.testing.assert_allclose(scores[row, 1:], want[1:], rtol=1e-6, atol=1e-7)
            penalised += len(tokens)
        assert sequences[:, 6 + step].tolist() == scores.argmax(-1).tolist()
    assert penalised >= 2 * (3 + 2)
    # the penalty changes the choice: the counting model continues 9 5 6 7 8 with 9, already seen
    assert _rows(counter.generate([[9, 5, 6, 7, 8]], max_new_tokens=1, do_sample=False))[0][-1] == 9
    assert _rows(counter.generate([[9, 5, 6, 7, 8]], max_new_tokens=1, do_sample=False,
                                  repetition_penalty=100.0))[0][-1] not in (5, 6, 7, 8, 9)


def test_max_new_tokens_min_new_tokens_and_eos(counter):
    """The counting model continues 5 6 7 8 with 9 10 11 ...: `max_new_tokens` stops it after that many tokens,
    an `eos_token_id` when it emits that token (the other row runs on to `max_length`), `min_new_tokens` forbids the
    end-of-sequence token (score -inf) until that many tokens are out."""
    from mindformers.generation import GenerationConfig
    prompts = counting([5, 40])[:, :4].tolist()
    assert _rows(counter.generate(prompts, max_new_tokens=3, do_sample=False)) == counting([5, 40])[:, :7].tolist()
    assert _rows(counter.generate(prompts, generation_config=GenerationConfig(max_length=9, do_sample=False))) == \
        counting([5, 40])[:, :9].tolist()
    out = _rows(counter.generate(prompts, max_length=12, do_sample=False, eos_token_id=[10]))
    assert out == [list(range(5, 11)), list(range(40, 52))], out
    out = counter.generate(prompts, max_length=12, do_sample=False, eos_token_id=[10], min_new_tokens=4,
                           return_dict_in_generate=True, output_scores=True)
    assert [float(s[0, 10]) for s in out.scores[:4]] == [-np.inf] * 4
    assert np.isfinite(out.scores[4]).all()
    first = list(map(int, out.sequences[0]))
    assert first[:5] == [5, 6, 7, 8, 9] and first[5] != 10 and len(first) > 6, first
    assert list(map(int, out.sequences[1])) == list(range(40, 52))
    # max_length above the model's seq_length is cut to it
    assert [len(r) for r in counter.generate(prompts, max_length=40, do_sample=False)] == [SEQ, SEQ]


def test_batched_prompts_of_different_lengths_padded(counter):
    """Prompts of different lengths right-padded with the pad id 0 in one batch: each row continues from its own last
    token (attention is causal, the padding is overwritten as tokens come), with and without the key/value cache."""
    import mindspore as ms
    prompts = [[5, 6, 7, 8, 9, 10], [40, 41, 0, 0, 0, 0], [20, 21, 22, 0, 0, 0]]
    out = _rows(counter.generate(prompts, max_new_tokens=4, do_sample=False))
    assert out == [list(range(5, 15)), list(range(40, 46)), list(range(20, 27))], out
    out = _rows(counter.generate(prompts, max_length=12, do_sample=False))
    assert out == [list(range(5, 17)), list(range(40, 52)), list(range(20, 32))], out
    cached = tiny_llama(seed=1, use_past=True)
    ms.load_param_into_net(cached, {p.name: p for p in counter.get_parameters()})
    cached.set_train(False)
    assert _rows(cached.generate(prompts, max_length=12, do_sample=False)) == out
    # an untrained model (no counting to fall back on): each padded row gives what it gives alone
    net = tiny_llama(seed=4)
    net.set_train(False)
    batch = _rows(net.generate(prompts, max_length=10, do_sample=False))
    alone = [_rows(net.generate([[t for t in p if t]], max_length=10, do_sample=False))[0] for p in prompts]
    assert batch == alone, (batch, alone)


@pytest.fixture(scope="module")
def tokenizer(mindformers, tmp_path_factory):
    """mindformers' `LlamaTokenizerFast` over a word-level `tokenizers` file naming token i "i"."""
    from mindformers.models.llama import LlamaTokenizerFast
    path = word_tokenizer(tmp_path_factory.mktemp("tokenizer") / "tokenizer.json")
    return LlamaTokenizerFast(tokenizer_file=path, add_bos_token=False, pad_token="<unk>")


def test_text_streamer_prints_the_text_as_it_is_generated(counter, tokenizer, capsys):
    from mindformers.generation import TextStreamer
    prompt = tokenizer("5 6 7 8")["input_ids"]
    assert prompt == [5, 6, 7, 8]
    out = counter.generate([prompt], max_length=12, do_sample=False, streamer=TextStreamer(tokenizer))
    assert _rows(out) == [list(range(5, 17))]
    printed = capsys.readouterr().out
    assert printed.endswith(" ".join(map(str, range(5, 17))) + "\n"), printed
    counter.generate([prompt], max_length=10, do_sample=False, streamer=TextStreamer(tokenizer, skip_prompt=True))
    assert capsys.readouterr().out.endswith("9 10 11 12 13 14\n")


def test_text_iterator_streamer_yields_the_generated_text(counter, tokenizer):
    """`generate` in a thread of its own, the streamer iterated as the text comes (mindformers' iterator yields None
    at the end of the stream rather than stopping)."""
    from mindformers.generation import TextIteratorStreamer
    streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, timeout=60)
    result = {}

    def run():
        result["ids"] = counter.generate([[20, 21, 22]], max_length=10, do_sample=False, streamer=streamer)
    thread = threading.Thread(target=run)
    thread.start()
    pieces = []
    for piece in streamer:
        if piece is None:
            break
        pieces.append(piece)
    thread.join()
    assert _rows(result["ids"]) == [list(range(20, 30))]
    assert len(pieces) > 3 and "".join(pieces) == " ".join(map(str, range(23, 30))), pieces
