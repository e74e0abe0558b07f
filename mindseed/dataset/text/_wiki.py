"""FilterWikipediaXML: Matt Mahoney's wikifil.pl clean-up (lowercase letters and single spaces), as MindSpore
runs it.

MindSpore keeps the rules in a `std::map` keyed by the pattern, so they run in the patterns' sorted order rather
than wikifil's order, each result is whitespace-trimmed, and its table maps "R" to "" (a capital R is dropped);
the blank-line rule's replacement "\\n" is an ICU escape for a plain "n". Only the first string of an input is
filtered (the other elements come back empty) and a text holding "#redirect"/"#REDIRECT" becomes empty. All of
that is reproduced so outputs match MindSpore's.
"""
import re

import numpy as np

from mindseed.dataset.transforms._base import TensorOperation

__all__ = ["FilterWikipediaXML"]

_RULES = {r"<.*>": "", r"&amp;": "&", "&lt;": "<", "&gt;": ">", r"<ef[^<]*<\/ef>": "", "<[^>]*>": "",
          r"\[http:[^] ]*": "[", r"\|thumb": "", r"\|left": "", r"\|right": "", r"\|\d+px": "",
          r"\[\[image:[^\[\]]*\|": "", r"\[\[category:([^|\]]*)[^]]*\]\]": r"[[\1]]",
          r"\[\[[a-z\-]*:[^\]]*\]\]": "", r"\[\[[^\|\]]*\|": "[[", r"\{\{[^\}]*\}\}": "", r"\{[^\}]*\}": "",
          r"\[": "", r"\]": "", "&[^;]*;": " ",
          **{chr(c): ("" if chr(c) == "R" else chr(c).lower()) for c in range(ord("A"), ord("Z") + 1)},
          **{str(d): f" {w} " for d, w in enumerate("zero one two three four five six seven eight nine".split())},
          r"[^a-z\n]+": " ", r"\n ": "", r"\s+": " ", r"\n\s*\n": "n"}
_COMPILED = [(re.compile(p), _RULES[p]) for p in sorted(_RULES)]


def filter_wikipedia_text(text):
    if "#redirect" in text or "#REDIRECT" in text:
        return ""
    for pattern, repl in _COMPILED:
        text = pattern.sub(repl, text).strip()
    return text


class FilterWikipediaXML(TensorOperation):
    """Filter Wikipedia XML dump text to lowercase letters and single spaces (digits spelled out)."""

    def _apply(self, x):
        a = np.asarray(x)
        if a.dtype.kind != "U":
            raise RuntimeError("RegexReplace: input is not of type string.")  # (MindSpore's message)
        flat = a.reshape(-1).tolist()
        out = [""] * len(flat)
        if flat:
            first = flat[0]
            out[0] = filter_wikipedia_text(first)
        return np.array(out, dtype=str).reshape(a.shape)
