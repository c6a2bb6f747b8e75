"""The number a word that multiplies points back to, where the question names what it multiplies
only by pointing: "Elaine initially had 20 Pokemon cards. After a month, she collected three times
that number", "125 chimichangas on Wednesdays and twice as many on Friday" (no "as ..." of its
own), "He likes to double that amount" (issue 26.1, lane cover30). What it points to is the number
the question states right before the word, in the word's sentence or the one before it.

Asked by the binder (:mod:`.binding`) for a use of a value the question states at several places
whose words tell none, in a step that multiplies that use by the word and nothing else: the place
the word points to, where it is one of the value's places; else None (the binder's other readings
decide). The word must be the question's only writing of its value (one place or one word given),
so that the step's factor is that word and no other quantity of equal value.

Also what a word that multiplies by comparing can never be: a term of a sum or difference ("16 - 4 =
12 minutes longer" is Wayne's "four minutes", not "four times as long"; :func:`term_of_sum`,
:func:`multiplies_by_comparing`, :func:`term_place`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from qcstation.core.construct.make.rules.phrases import phrase_re
from qcstation.core.reading.expr import BinOp, Expr, Neg, Num
from qcstation.core.construct.make.rules.word_factors import sentence_bounds

__all__ = ["multiplies_by_comparing", "pointed_place", "term_of_sum", "term_place"]

#: after a word that multiplies ("three times", "double", "twice"): what it multiplies said only by
#: pointing back ("that number", "that amount", "as many" with no "as ..." of its own)
_POINTS_BACK = re.compile(r"\s+(?:times\s+)?(?:(?:that|this)\s+(?:number|amount|many|much|quantity)\b"
                          r"|as\s+(?:many|much)\b(?P<tail>[^.?!;]*))", re.I)
#: an "as many" that names its own comparison ("twice as many cookies as brownies", "than")
_OWN_COMPARISON = re.compile(r"\b(?:as|than)\b", re.I)


def pointed_place(question: str, starts: Sequence[int], value_places: Sequence[int],
                  factor_places: Sequence[tuple[int, int]], factor_phrases: Sequence[str]) -> int | None:
    """The start (one of ``value_places``) of the number the factor's word points back to, or None.

    ``starts``: where the question states each of its numbers; ``factor_places``: the (start, end)
    of each place that states the factor's value in digits or number words; ``factor_phrases``:
    the word givens of the factor's value ("twice")."""
    spans = list({s: (s, e) for s, e in factor_places}.values())
    for phrase in factor_phrases:
        spans += [(m.start(), m.end()) for m in phrase_re(phrase, True).finditer(question)]
    if len({s for s, _ in spans}) != 1:
        return None  # the factor's value written twice: which one the step multiplies by is not read here
    start, end = spans[0]
    m = _POINTS_BACK.match(question, end)
    if m is None or (m.group("tail") is not None and _OWN_COMPARISON.search(m.group("tail"))):
        return None
    before = [s for s in starts if s < start]
    if not before:
        return None
    nearest = max(before)
    bounds = sentence_bounds(question)
    at = next(i for i, e in enumerate(bounds) if start < e)
    if next(i for i, e in enumerate(bounds) if nearest < e) < at - 1:
        return None  # further back than the sentence before the word: no number it plainly points to
    return nearest if nearest in value_places else None


#: a word that multiplies by comparing ("four times as long as", "three times the number of"): never a
#: count of times in a period ("3 times a week"), which a sum may add
_TIMES_COMPARING = re.compile(r"\s*times\s+(?:as|the|that|this|his|her|their|its|what|more|less|bigger|larger|longer"
                              r"|greater|faster|older|higher|heavier|taller)\b", re.I)


def term_of_sum(e: Expr, leaf: Num) -> bool:
    """Is ``leaf`` (by identity) an operand of a sum or difference in ``e``?"""
    stack: list[Expr] = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, BinOp):
            if x.op in "+-" and (x.left is leaf or x.right is leaf):
                return True
            stack.extend((x.left, x.right))
        elif isinstance(x, Neg):
            stack.append(x.operand)
    return False


def multiplies_by_comparing(question: str, end: int) -> bool:
    """Is the number the question writes up to ``end`` a word that multiplies by comparing ("four
    times as long as", "three times the number of"), never a count of times in a period ("3 times a
    week", which a sum may add)?"""
    return _TIMES_COMPARING.match(question, end) is not None


def term_place(question: str, expr: Expr | None, leaf: Num | None, ends: Sequence[int]) -> int | None:
    """Of the places of a value that end at ``ends``, the index of the one a term ``leaf`` of a sum
    or difference in ``expr`` can be: the one left where every other multiplies by comparing
    (:func:`multiplies_by_comparing`); None if ``leaf`` is no such term or not one is left."""
    if leaf is None or expr is None or len(ends) < 2 or not term_of_sum(expr, leaf):
        return None
    left = [i for i, end in enumerate(ends) if not multiplies_by_comparing(question, end)]
    return left[0] if len(left) == 1 else None
