"""Which of two word givens of one value a step uses, by the people its line names (issue 26.1, lane
covB): "Kiarra is twice as old as Bea. ... Harry is half as old as Figaro" / "Bea is 30 / 2" (the
"twice", undone: Bea is the one Kiarra's age is twice of) and "Harry is 52 / 2" (the "half"). Each
phrase is written once, in a sentence of its own; the line names people the question names (a
capitalised word the question writes at least once inside a sentence), all of them in one of those
sentences and none in another: that sentence's word given. None otherwise (no person named, two
sentences named, a phrase written twice or two phrases in one sentence, a word of the line that only
another candidate's sentence writes: "Betty has only half ... her grandparents twice as much" /
"Betty's grandparents gave her 15 * 2"): :mod:`.constants` then decides by the computation's role,
or refuses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from qcstation.core.reading.words import line_stems

__all__ = ["clause_by_names"]

_CAPITALISED = re.compile(r"\b[A-Z][a-z]+\b")
_SENTENCE_END = re.compile(r"[.?!](?:\s|$)")
_NOT_A_NAME = frozenset("""If When After Before Then So But And Or How What Each Every Both This That These Those
    There Their They He She It His Her Its We You The A An In On At Monday Tuesday Wednesday Thursday Friday
    Saturday Sunday January February March April May June July August September October November December""".split())


def _sentence(text: str, at: int) -> str:
    a = max((m.end() for m in _SENTENCE_END.finditer(text, 0, at)), default=0)
    m = _SENTENCE_END.search(text, at)
    return text[a:m.end() if m else len(text)]


def _people(question: str) -> frozenset[str]:
    """The capitalised words the question writes at least once inside a sentence (not as its first word)."""
    q = question[:20_000]
    openers = {m.start(1) for m in re.finditer(r"(?:^|[.?!]\s+)\s*([A-Z])", q)}
    inside = {m.group(0) for m in _CAPITALISED.finditer(q) if m.start() not in openers}
    return frozenset(inside - _NOT_A_NAME)


def clause_by_names(pairs: Sequence[tuple[str, re.Pattern[str]]], question: str, line: str) -> str | None:
    """Of ``pairs`` (a word given's name and the pattern of its phrase), the one whose sentence
    alone names the people the step's line names (see the module docstring), or None."""
    sentences = []
    for _, pattern in pairs:
        found = list(pattern.finditer(question[:20_000]))
        if len(found) != 1:
            return None
        sentences.append(_sentence(question, found[0].start()))
    if len(set(sentences)) != len(sentences):
        return None
    people = _people(question)
    said = {w for w in _CAPITALISED.findall(line[:2000]) if w in people}
    if not said:
        return None
    named = [i for i, s in enumerate(sentences) if said & set(_CAPITALISED.findall(s))]
    if len(named) != 1 or not said <= set(_CAPITALISED.findall(sentences[named[0]])):
        return None
    # a word the line shares with another candidate's sentence alone points there ("Betty's grandparents
    # gave her 15 * 2": Betty is in the sentence of "half", the grandparents in that of "twice")
    here = line_stems(line[:2000]) - {"$", "%"}
    chosen = line_stems(sentences[named[0]])
    if any((here & line_stems(s)) - chosen for i, s in enumerate(sentences) if i != named[0]):
        return None
    return pairs[named[0]][0]
