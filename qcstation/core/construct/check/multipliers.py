"""A reading of the checks in :mod:`.bindings`: what a word that multiplies ("twice", "half",
"three times") multiplies, which ties a step's wordless number to that word
(:func:`vouched_by_multiplied`: "8 / 2 = 4 oranges" is "half the number of oranges", not
"twice the amount of apples"), and a word given whose own occurrence multiplies what the words
the line writes after it name (:func:`object_of_own_word`: "2 towels/pillow case" is the second
"twice", "twice as many towels as pillow cases"). Read from the question and the solution alone, like
:mod:`.bindings`, which calls it with the question's occurrences of the value and the
formalization's given names.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from qcstation.core.reading.clause_places import multiplied_stems
from qcstation.core.reading.words import (ANNOTATION, WORD_GIVEN_STEMS, Occurrence, result_words, stem)

__all__ = ["declared_word", "multiplies", "object_of_own_word", "own_word_givens", "vouched_by_multiplied"]

#: the words after a number that make it a multiplier ("three times that number")
_TIMES_STEMS = frozenset({"time"})


def multiplies(o: Occurrence) -> bool:
    """Is the place a word that multiplies or divides ("twice", "half", "a third") or a number of
    times ("three times that number")?"""
    return bool(o.words & WORD_GIVEN_STEMS or o.words & _TIMES_STEMS)


def _multiplied_stems(question: str, o: Occurrence) -> frozenset[str]:
    """What a multiplier place of the question multiplies (see
    :func:`~qcstation.core.reading.words.multiplied_stems`); empty for a place that multiplies
    nothing (a count of things: "two recipes")."""
    if o.start < 0 or not multiplies(o):
        return frozenset()
    first = re.match(r"\S+", question[o.start:])
    end = o.start + len(o.text) if o.words & WORD_GIVEN_STEMS else o.start + (first.end() if first else 0)
    return multiplied_stems(question, end)


def vouched_by_multiplied(given: str, line: str, v: Fraction, cands: list[Occurrence], question: str,
                           other: Fraction | None, occurrences: list[Occurrence], step: str,
                           values: dict[str, Fraction] | None) -> bool:
    """Is a given the line names with no words tied to one place of its value by what that place
    multiplies? Of the places of the value, exactly one is a multiplier ("twice", "half", "three
    times") whose multiplied words ("twice the amount of apples") name what the step counts: the
    words after the step's result ("= 10 apples") or the words of the step's other operand, a
    given stated at one place ("5 apples"); and no other place names it (neither another
    multiplier's multiplied words nor a count's own words: "two recipes"). 122: "5 x 2 = 10
    apples" is "twice the amount of apples", "8 / 2 = 4 oranges" is "half the number of oranges"."""
    if not question or not given or v in (0, 1):
        return False
    named: set[str] = set()
    if values is not None and step in values:
        named |= result_words(ANNOTATION.sub(" ", line), values[step]) - {"$", "%"}
    if other is not None:
        at = [o for o in occurrences if o.value == other and o.start >= 0]
        if len(at) == 1:
            named |= at[0].words - {"$", "%"}
    if not named:
        return False
    hits = []
    for i, o in enumerate(cands):
        ws = _multiplied_stems(question, o) if multiplies(o) else o.words
        if ws & named:
            hits.append(i)
    if len(hits) != 1 or not multiplies(cands[hits[0]]):
        return False
    best = cands[hits[0]]
    if best.words & WORD_GIVEN_STEMS:
        return given.startswith("w_" + re.sub(r"[^a-z]+", "_", best.text.lower()).strip("_"))
    m = re.fullmatch(r"g\d+_([a-z]+)(?:_[a-z_]*)?", given)
    return m is not None and stem(m.group(1)) in best.words and sum(1 for o in cands if stem(m.group(1)) in o.words) == 1


def own_word_givens(defs: dict[str, Any] | None, v: Fraction) -> frozenset[str]:
    """The word givens of value ``v`` a formalization declares (``w_twice = 2``), by name."""
    return frozenset(n for n, e in (defs or {}).items() if n.startswith("w_") and type(e).__name__ == "Num"
                     and getattr(e, "value", None) == v)


def declared_word(o: Occurrence, own_words: frozenset[str]) -> bool:
    """Is the place a word given ("twice") the formalization declares (``w_twice``)? Such a place
    is that given: a digit of the same value is not it (274: "the rosette takes twice as many"
    is ``w_twice``, so "630 / 2 ... each sleeve" is the "two sleeves")."""
    if not o.words & WORD_GIVEN_STEMS:
        return False
    phrase = "w_" + re.sub(r"[^a-z]+", "_", o.text.lower()).strip("_")
    return any(n == phrase or n == phrase + "_parts" for n in own_words)


#: the marker of the k-th occurrence of a word given's phrase in its name ("w_twice_at2")
_AT = re.compile(r"_at(\d+)(?=_parts$|_numerator$|$)")


def object_of_own_word(given: str, named: set[str], cands: list[Occurrence], question: str) -> bool:
    """Is a word given the line writes with words of its own that name no place of its value
    ("4 pillow cases * 2 towels/pillow case") tied to its own occurrence by what that occurrence
    multiplies ("twice as many towels as pillow cases", the second "twice": ``w_twice_at2``), no
    other place of the value multiplying what the words name?"""
    if not given.startswith("w_") or not named or not question:
        return False
    m = _AT.search(given)
    base = re.sub(r"_(?:parts|numerator)$", "", _AT.sub("", given))
    own = sorted((o for o in cands if o.start >= 0 and o.words & WORD_GIVEN_STEMS
                  and base == "w_" + re.sub(r"[^a-z]+", "_", o.text.lower()).strip("_")), key=lambda o: o.start)
    k = int(m.group(1)) if m else 1
    if len(own) < k:
        return False
    hits = [o for o in cands if multiplies(o) and _multiplied_stems(question, o) & named]
    return len(hits) == 1 and hits[0] is own[k - 1]
