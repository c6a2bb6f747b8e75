"""A word given whose step's line names nothing of it, vouched for by the clauses of the other
word givens of its value (:func:`vouched_by_word_clauses`; issue 26.1, lane covB): the question
states the value only as words that multiply or divide ("twice", "half": 2), the formalization
declares one given for each of those places, the line of every step that uses each other given
shares words with that given's own clause alone (:func:`~qcstation.core.reading.clause_places.
clause_choice`), and no line of a step that uses this given chooses another place's clause: the
one place left is this given's. Where no clause shares the most words with a line, the place's
sentence does, where each place has a sentence of its own ("On Tuesday, she baked 8 fewer than
twice that number. And on Wednesday, she baked half as many as the day before" / "Tuesday's batch
was 2*24-8", "Wednesday's was 40/2": the clause after the comma leaves out the day).

Held-out train 2434: "On Saturday, she sold 10 fewer than twice that number. And on Sunday, she
sold half as many as Sunday" / "Saturday's total was 2*40-10" (names no word of "twice"'s clause,
which is "10 fewer than twice that number") and "Sunday's was 70/2" (the clause of "half"): the 2 of
the first line is "twice". A formalization that crossed them (``w_half_parts`` in the first line,
``w_twice`` in the second) is not vouched for: the second line chooses "half", not ``w_twice``'s
place; nor is one that declares a given for one place only (the other place's word used as another
value: ``w_half`` = 1/2 beside ``w_half_parts`` = 2 for "twice ... half", held-out train 2363).
A digit or a number word among the places ("2 hours", "two dogs") leaves this reading out: a count
of things may multiply as well, so which place is left the clauses alone do not tell.

This module reads only the reading floor, the stored names and the question's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from qcstation.core.construct.check.terms import names as _names
from qcstation.core.reading.clause_places import CLAUSE_STOP, clause_choice
from qcstation.core.reading.words import (_WORD, _WORD_GIVEN_RE, ANNOTATION, MAX_TEXT, NUMBER_WORD_VALUES,
                                          WORD_GIVEN_STEMS, Occurrence, operand_values, solution_lines, stem,
                                          step_line)

__all__ = ["vouched_by_word_clauses"]

#: the marker of a word given's k-th place of one phrase and of the part of the word it is
_SUFFIX = re.compile(r"(?:_at(?P<k>\d+))?(?:_parts|_numerator)?$")


def _place_of(name: str, places: list[Occurrence]) -> int | None:
    """Which of ``places`` (word givens, in the question's order) the given ``name`` stands for
    (``w_twice``: the first "twice"; ``w_half_at2_parts``: the second "half"); None for none."""
    for i, o in enumerate(places):
        phrase = "w_" + re.sub(r"[^a-z]+", "_", o.text.lower()).strip("_")
        if not name.startswith(phrase):
            continue
        m = _SUFFIX.fullmatch(name, len(phrase))
        if m is None:
            continue
        k = int(m.group("k") or 1)
        same = [j for j, p in enumerate(places) if p.text.lower() == o.text.lower()]
        if k <= len(same) and same[k - 1] == i:
            return i
    return None


_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


def _stems(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in _WORD.findall(text) if w.lower() not in CLAUSE_STOP
                     and w.lower() not in NUMBER_WORD_VALUES and not _WORD_GIVEN_RE.fullmatch(w) and w not in ("$", "%"))


def _sentence_choice(question: str, starts: list[int], line: str) -> int | None:
    """Of the places ``starts``, each in a sentence of its own, the one whose sentence alone shares
    the most words with ``line`` that the other places' sentences do not write; None otherwise."""
    q = question[:MAX_TEXT]
    ends = [m.end() for m in _SENTENCE_END.finditer(q)] + [len(q)]
    spans = []
    for s in starts:
        b = next(e for e in ends if e > s)
        a = max((e for e in ends if e <= s), default=0)
        spans.append((a, b))
    if len(set(spans)) != len(spans):
        return None
    own = [_stems(q[a:b]) for a, b in spans]
    common = frozenset.intersection(*own)
    here = _stems(ANNOTATION.sub(" ", line))
    scores = [len((o - common) & here) for o in own]
    top = max(scores, default=0)
    if not top or scores.count(top) != 1:
        return None
    return scores.index(top)


def vouched_by_word_clauses(given: str, v: Fraction, cands: list[Occurrence], defs: dict[str, Any],
                            values: dict[str, Fraction], solution: str, is_given: Callable[[Any], bool],
                            question: str) -> bool:
    """Is the word given ``given`` (of value ``v``, stated at ``cands``) the place of ``v`` that the
    clauses of the other word givens' lines leave it? See the module docstring."""
    if not given.startswith("w_") or not question or not solution:
        return False
    places = sorted({o.start: o for o in cands}.values(), key=lambda o: o.start)
    if len(places) < 2 or any(o.start < 0 or not o.words & WORD_GIVEN_STEMS for o in places):
        return False
    same = [g for g, e in defs.items() if is_given(e) and values.get(g) == v]
    where = {g: _place_of(g, places) for g in same}
    if given not in where or None in where.values() or len(same) != len(places) \
            or len(set(where.values())) != len(places):
        return False  # one declared given for each place, each at its own place
    starts = [o.start for o in places]
    lines = solution_lines(solution)
    steps = {n: e for n, e in defs.items() if not is_given(e) and type(e).__name__ != "Name" and n in values}

    def chosen(g: str) -> list[int | None] | None:
        out: list[int | None] = []
        for n, e in steps.items():
            if g not in _names(e):
                continue
            at = step_line(solution, values[n], operand_values(e, values))
            if at is None:
                return None
            line = lines[at][0]
            pick = clause_choice(question, starts, line)
            out.append(pick if pick is not None else _sentence_choice(question, starts, line))
        return out or None

    for g in same:
        picks = chosen(g)
        if picks is None:
            return False
        if g == given:
            if any(p is not None and p != where[g] for p in picks):
                return False  # a line of this given's steps chooses another place's clause
        elif any(p != where[g] for p in picks):
            return False  # another given's place not chosen by its own lines' words
    return True
