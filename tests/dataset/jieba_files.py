"""Write cppjieba-format dictionaries (what MindSpore's JiebaTokenizer reads) from the `jieba` package's data.

cppjieba's `jieba.dict.utf8` is jieba's `dict.txt` ("word freq tag" lines); its `hmm_model.utf8` holds the
same start/transition/emission log-probabilities as `jieba.finalseg`, as text.
"""
import os

STATES = "BEMS"


def write_cppjieba_files(directory, words=None):
    """(hmm_path, mp_path) in `directory`; `words` ("word freq tag" lines) replaces the full dictionary."""
    import jieba
    from jieba.finalseg import prob_emit, prob_start, prob_trans
    hmm_path = os.path.join(directory, "hmm_model.utf8")
    mp_path = os.path.join(directory, "jieba.dict.utf8")
    floor = -3.14e100
    with open(hmm_path, "w", encoding="utf-8") as f:
        f.write("#status:B E M S\n#prob_start\n")
        f.write(" ".join(repr(prob_start.P.get(s, floor)) for s in STATES) + "\n#prob_trans\n")
        for a in STATES:
            f.write(" ".join(repr(prob_trans.P[a].get(b, floor)) for b in STATES) + "\n")
        for s in STATES:
            f.write(f"#{s}\n" + ",".join(f"{ch}:{p!r}" for ch, p in prob_emit.P[s].items()) + "\n")
    if words is None:
        with open(os.path.join(os.path.dirname(jieba.__file__), "dict.txt"), encoding="utf-8") as src:
            text = src.read()
    else:
        text = "\n".join(words) + "\n"
    with open(mp_path, "w", encoding="utf-8") as f:
        f.write(text)
    return hmm_path, mp_path
