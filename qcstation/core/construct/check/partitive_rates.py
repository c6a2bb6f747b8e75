"""A part of a whole used as a rate (:func:`partitive_rate_problems`; issue 26.1): the question states
a value only as a part of a set ("who gives two of the eyes to his dog"), and a step's line writes
the same value as so many things per other thing ("With 2 eyes per fish, 24 eyes represent 24/2 =
12 fish"). A part of a set counts some of its members; it is never a size per unit, so the rate is a
fact the question does not state (fish have two eyes), bound to a given of equal value: a variant that
moves the dog's share would move the eyes of every fish with it. Flagged as a binding no words match,
so the formalization is refused.

Read from the texts only: each place of the value in the question (:class:`Occurrence`) and the
step's line; every place must be partitive ("N of the X", "N of his X") for the flag, so a question
that states the rate anywhere ("2 eyes each", "two of the eyes of each fish") is never flagged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from qcstation.core.construct.check.terms import names
from qcstation.core.reading.word_values import NUMBER_WORD_VALUES
from qcstation.core.reading.words import MAX_TEXT, Occurrence, solution_lines

__all__ = ["partitive_rate_problems"]

#: right after a place: the place counts some members of a set ("two of the eyes")
_PARTITIVE = re.compile(r"\s+of\s+(?:the|his|her|their|its|them|these|those|my|our|your)\b", re.I)

#: a word that makes a clause state a rate ("each mouse eats 2 of their pups")
_RATE_WORD = re.compile(r"\b(?:each|every|per|apiece)\b", re.I)

#: a rate's connective after "N things" ("2 eyes per fish", "2 eyes in each fish", "2 eyes/fish")
_RATE = r"\s+([a-z]+(?:\s+[a-z]+)?\s*(?:/\s*[a-z]+|\s(?:per|in each|in every|for each|for every|on each|each)\s+[a-z]+))"

#: the number itself at a place's start (its text holds the words after it as well)
_NUMBER = re.compile(r"\$?\d[\d,]*(?:\.\d+)?(?:/\d+)?|[A-Za-z]+")

#: the word of each whole number the question may write ("two", "forty-two")
_WORD_OF = {v: w for w, v in NUMBER_WORD_VALUES.items()}


def _written(v: Fraction) -> str:
    """How a line writes ``v`` as a whole number: its digits, or its word."""
    if v.denominator != 1 or v < 0:
        return ""
    word = _WORD_OF.get(v.numerator, "")
    return rf"(?:(?<![\d.,]){v.numerator}(?![\d.,]\d)" + (rf"|\b{word}\b" if word else "") + ")"


def _partitive(text: str, start: int) -> bool:
    """Is the number the question writes at ``start`` a part of a set ("two of the eyes") in a clause
    that states no rate ("5 of the numbers on each ticket", "each mouse eats 2 of their pups" do)?"""
    number = _NUMBER.match(text, start)
    if number is None or _PARTITIVE.match(text, number.end()) is None:
        return False
    before = max(text.rfind(c, 0, start) for c in ".,;:!?")
    after = min((i for i in (text.find(c, number.end()) for c in ".,;:!?") if i >= 0), default=len(text))
    return _RATE_WORD.search(text, before + 1, after) is None


def partitive_rate_problems(defs: dict[str, Any], values: dict[str, Fraction], question: str, solution: str,
                            occurrences: list[Occurrence], is_given: Callable[[Any], bool]
                            ) -> list[tuple[str, Fraction, tuple[str, ...], tuple[str, ...]]]:
    """(step, value, the rate's words, the question's places) of each step whose line writes a
    given's value as a rate where the question states that value only as a part of a set."""
    out: list[tuple[str, Fraction, tuple[str, ...], tuple[str, ...]]] = []
    text = question[:MAX_TEXT]
    lines = solution_lines(solution)
    for step, expr in defs.items():
        if step not in values or is_given(expr):
            continue
        for dep in sorted(names(expr)):
            if dep.startswith("k_") or dep not in defs or not is_given(defs[dep]) or dep not in values:
                continue
            v = values[dep]
            written = _written(v)
            places = [o for o in occurrences if o.value == v]
            if not written or not places or any(o.start < 0 for o in places):
                continue
            if not all(_partitive(text, o.start) for o in places):
                continue
            rate = re.compile(written + _RATE, re.I)
            for prose, results in lines:
                m = rate.search(prose) if values[step] in results else None
                if m is not None:
                    out.append((step, v, (m.group(1),), tuple(o.text for o in places)))
                    break
    return out
