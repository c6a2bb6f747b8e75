"""A given bound to a rank ("the 2nd competitor", "the 3rd floor") while the question states the
same value as a quantity elsewhere (issue 26.1/26.2, lane covA).

"The 2nd competitor ate twice that amount" / "So he ate 2*12": the 2 is "twice", not the rank of
"2nd"; "the 2nd fastest dog is 2 years younger than the first" / "10-2": the 2 is "2 years". A
rank is a label; a step that takes its digit where the question also writes that value as a number
or a word that states it ("twice", "half", "a pair") uses a number the words do not tie to the rank
(a derived item that moved "twice" would leave the step unchanged). Where the rank is the only place
of its value ("starts on the 3rd floor ... goes down 2 floors" / "3 - 2") nothing is said: the
rank's digit is then what the step counts from.

Read from the question and the givens' places alone (no binder code): each given whose span is a
digit followed by "st", "nd", "rd" or "th".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

__all__ = ["rank_problems"]

MAX_TEXT = 20_000
_RANK_AFTER = re.compile(r"(?:st|nd|rd|th)\b")
_ANNOTATION = re.compile(r"<<[^<>]{0,400}>>")


_NUMBER_AND_WORD = re.compile(r"(\d[\d,./]*)\s+([A-Za-z]{3,})")


def _writes(line: str, question: str, at: int) -> bool:
    """Does ``line`` write the number the question writes at ``at`` with the word after it as the
    question does ("2 years")?"""
    m = _NUMBER_AND_WORD.match(question, at, min(len(question), at + 60))
    if m is None:
        return False
    num, word = re.escape(m.group(1)), re.escape(m.group(2)[:4])
    return bool(re.search(rf"(?<![\d.]){num}\s+{word}", line, re.I))


#: a number in digits written as a rank ("2nd", "13th")
_RANK = re.compile(r"\d+(?:st|nd|rd|th)\b")


def rank_problems(givens: Iterable[Mapping[str, Any]], lines: Mapping[str, str], question: str) -> list[str]:
    """One line per given bound to a rank whose value the question also states as a quantity that
    a line using the given writes (``lines``: the solution lines of the steps using each given,
    by the given's name, joined)."""
    from qcstation.core.construct.make.rules.phrases import has_phrase
    from qcstation.core.reading.words import WORD_GIVENS, question_occurrences

    q = question[:MAX_TEXT]
    out: list[str] = []
    occurrences = None
    for g in givens:
        span, name = g.get("span"), str(g.get("name", ""))
        if name.startswith(("w_", "k_")) or not isinstance(span, (list, tuple)) or len(span) != 2:
            continue
        start, end = int(span[0]), int(span[1])
        if not 0 <= start < end <= len(q) or not _RANK_AFTER.match(q, end):
            continue
        try:
            v = Fraction(str(g.get("value")))
        except (ValueError, ZeroDivisionError):
            continue
        line = _ANNOTATION.sub(" ", lines.get(name, ""))[:MAX_TEXT]
        if not line:
            continue
        if occurrences is None:
            occurrences = question_occurrences(q)
        other = [o for o in occurrences if o.value == v and o.start >= 0 and o.start != start
                 and not _RANK.match(q, o.start) and _writes(line, q, o.start)]
        words = [p for p, values in WORD_GIVENS.items()
                 if v in values and has_phrase(q.lower(), p) and has_phrase(line.lower(), p)]
        if other or words:
            said = repr(words[0]) if words else repr(str(other[0].text)[:30])
            out.append(f"{name} is bound to the rank {q[start:end + 2]!r}, but the question also states "
                       f"{v} as {said}: which one the step uses no words tell")
    return out
