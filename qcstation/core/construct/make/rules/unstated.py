"""Numbers the question's words give without writing them, read only where the words tie them to
a step (issue 26.1): each is a named constant or a word given, never a given of equal value.

``sentence_names``: a factor whose words the question writes once ("He walks there and back each
day", "printed on both sides") is a step's number where the step's line shares a content word with
a sentence that writes them ("He has to walk 3*2 = 6 miles", "150*2 = 300 pages"), though the line does not repeat
the phrase; a line of another sentence's quantity ("The plane tickets cost 5000*2" beside "a busy
weekend") shares none and stays refused.
"""

from __future__ import annotations

import re

from qcstation.core.reading.words import line_stems

__all__ = ["SENTENCE_GATED", "sentence_names"]

#: the named factors a line may tie to the question by the sentence of their words
SENTENCE_GATED: dict[str, re.Pattern[str]] = {
    "k_ways_of_a_round_trip": re.compile(r"\bback and forth\b|\bround[- ]trips?\b|\bthere and back\b", re.I),
    "k_both": re.compile(r"\bboth\b", re.I),
}


def _sentence_at(text: str, pos: int) -> str:
    a = max(text.rfind(c, 0, pos) for c in ".?!") + 1
    ends = [e for e in (text.find(c, pos) for c in ".?!") if e != -1]
    return text[a:min(ends) if ends else len(text)]


def sentence_names(name: str, question: str, line: str) -> bool:
    """Does the step's ``line`` name a sentence of the question that writes the words of the
    factor ``name`` (:data:`SENTENCE_GATED`): a content word of that sentence, other than the
    factor's own words, on the line? (A factor is one constant wherever its words are: "Blake runs
    back and forth 15 times. Kelly runs back and forth once" / "Kelly runs 200 yards at first
    because 100 x 2".)"""
    rx = SENTENCE_GATED.get(name)
    if rx is None:
        return False
    said = line_stems(rx.sub(" ", line)) - {"$", "%"}
    for sentence in {_sentence_at(question, m.start()) for m in rx.finditer(question[:20_000])}:
        own = line_stems(" ".join(m.group(0) for m in rx.finditer(sentence)))
        if (line_stems(rx.sub(" ", sentence)) & said) - own:
            return True
    return False
