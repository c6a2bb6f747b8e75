"""A number a step multiplies or divides by, of a value the question states both as a count ("the
two farms", "60 snowballs") and as a word ("twice", "double", "half", "an hour"): whether the
words say the use is the word (issue 26.1, lane cover23). Asked by the binder (:mod:`.binding`)
for a use the line names with no words; a True answer leaves the number to :mod:`.constants`,
which declares the word given tied to its span. Each reading holds only where the question writes
the value as one word of the use's role, once (:func:`clause_restated` also beside other words of the value):

* :func:`beside_its_operands`: every other number of the step is stated in the word's sentence
  and no count of the value is ("100 acres more than twice that" / "2*200+100");
* :func:`clause_restated`: the line restates the word's clause up to the word and writes the
  computation in its place ("Chikote howls for twice as long as Tobias" / "Chikote howls for
  20*2"), no count of the value in that sentence; where the question writes other words of the
  value too, the one word of the use's role whose clause the line restates ("Stacy finds twice as
  many as Lamar ... Mei finds half as many as Charlie" / "Stacy finds 5 x 2");
* :func:`unit_word_converts`: a unit's word ("an hour": 60 minutes) beside a number the question
  states in the smaller unit ("every 15 minutes"), on a line that names the unit ("each hour
  2 * 60/15"), every place of the value naming something else ("60 snowballs").

* :func:`word_object_named`: the words the line writes after the use name no place of the value
  but what one word that multiplies by it multiplies ("4 pillow cases * 2 towels/pillow case" for
  "twice as many towels as pillow cases").

Also the word givens of each value (``_PHRASES_OF``, ``_MULTIPLIERS_OF``) and where the question's
sentences end (:func:`sentence_bounds`), which the binder reads too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from qcstation.core.construct.make.rules.phrases import has_phrase, phrase_re
from qcstation.core.reading.expr import Expr, leaves
from qcstation.core.reading.clause_places import multiplied_stems
from qcstation.core.reading.words import WORD_GIVENS

__all__ = ["beside_its_operands", "parts_of_a_stated_fraction", "clause_restated", "sentence_bounds", "unit_word_converts", "word_object_named",
           "word_of_role"]


#: value -> the word givens that state it ("half": 1/2 and 2), in WORD_GIVENS' order
_PHRASES_OF: dict[Fraction, tuple[str, ...]] = {}
for _phrase, _vals in WORD_GIVENS.items():
    for _v in _vals:
        _PHRASES_OF[_v] = (*_PHRASES_OF.get(_v, ()), _phrase)


#: value -> the word givens that multiply by it ("twice": 2), which a number that names nothing
#: never stands for
_MULTIPLIERS_OF: dict[Fraction, tuple[str, ...]] = {
    Fraction(2): ("twice", "double", "doubled", "doubles"),
    Fraction(3): ("triple", "tripled", "thrice"),
    Fraction(4): ("quadruple", "quadrupled"),
}

def word_of_role(question: str, v: Fraction, role: str) -> bool:
    """Does the question write a word given of ``v`` that a number of that role can be: one that
    multiplies ("triple") for a factor, any word of the value ("a quarter", "half") for a divisor?
    Asked by the binder for a use of ``v`` every place of it in digits already holds, whose line
    names none of them ("So, he now has $13*3" beside "$18 is shared among 3 boys ... he was able to
    triple the amount", 541): the word, never that given in a second role."""
    words = _MULTIPLIERS_OF.get(v, ()) if role == "times" else _PHRASES_OF.get(v, ()) if role == "divisor" else ()
    return any(has_phrase(question, p, ignore_case=True) for p in words)


#: a word given that is a unit: (the stems of the smaller unit it counts and of itself, its word on a line)
_UNIT_WORDS: dict[str, tuple[str, str, re.Pattern[str]]] = {
    "an hour": ("minu", "hour", re.compile(r"\bhours?\b", re.I)),
    "a week": ("day", "week", re.compile(r"\bweeks?\b", re.I)),
}

_ANNOTATION = re.compile(r"<<[^<>]*>>")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


def sentence_bounds(question: str) -> list[int]:
    """Where the question's sentences end (a '.', '!' or '?' before a space or the end; the '.'
    of "$2.50" ends nothing)."""
    return [m.end() for m in _SENTENCE_END.finditer(question)] + [len(question)]


def _same_sentence(bounds: list[int], a: int, b: int) -> bool:
    return next(i for i, e in enumerate(bounds) if a < e) == next(i for i, e in enumerate(bounds) if b < e)


def _written_once(expr: Expr, v: Fraction) -> bool:
    return sum(1 for leaf in leaves(expr) if leaf.value == v) == 1


def multiplier_word(question: str, expr: Expr, role: str, v: Fraction) -> int | None:
    """Where the question writes ``v`` once as a word of the use's role ("twice", "double"; for a
    divisor "half", "a quarter") and as no other word, the step writing ``v`` once: that word's
    position; else None."""
    if role not in ("times", "divisor") or not _written_once(expr, v):
        return None
    written = [p for p in _PHRASES_OF.get(v, ()) if has_phrase(question, p, ignore_case=True)]
    if role == "times":
        fits = [p for p in written if p in _MULTIPLIERS_OF.get(v, ())]
    else:
        fits = [p for p in written if v.denominator == 1 and Fraction(1, v.numerator) in WORD_GIVENS[p]]
    if len(written) != 1 or len(fits) != 1:
        return None
    words = [m.start() for m in phrase_re(fits[0], True).finditer(question)]
    return words[0] if len(words) == 1 else None


def beside_its_operands(question: str, nums: Sequence[Any], by_value: dict[Fraction, list[int]], expr: Expr,
                        role: str, v: Fraction, occ: list[int]) -> bool:
    """The word, when the step's other numbers (each stated at one place) are all stated in the
    word's sentence and no place of the value is (``nums``: the question's numbers, ``occ`` the
    indexes of the value's places, ``by_value`` each value's)."""
    at = multiplier_word(question, expr, role, v) if occ else None
    if at is None:
        return False
    anchors = []
    for leaf in leaves(expr):
        if not leaf.text or leaf.value == v or leaf.value in (0, 1):
            continue
        places = by_value.get(leaf.value, [])
        if len({nums[j].start for j in places}) != 1:
            return False
        anchors.append(nums[places[0]].start)
    if not anchors:
        return False
    bounds = sentence_bounds(question)
    if len(anchors) == 1 and _points_back_to(question, nums, at, anchors[0], bounds):
        return True
    return all(_same_sentence(bounds, at, a) for a in anchors) \
        and not any(_same_sentence(bounds, nums[j].start, a) for j in occ for a in anchors)


#: after a word that multiplies or divides: what it applies to said only by pointing back ("half that
#: many", "twice that amount", "half as many" with no "as"/"than" of its own)
_POINTS_BACK = re.compile(r"\s+(?:(?:that|this)\s+(?:number|amount|many|much)\b"
                          r"|as\s+(?:many|much)\b(?![^.?!;]*\b(?:as|than)\b))", re.I)


def _points_back_to(question: str, nums: Sequence[Any], at: int, anchor: int, bounds: list[int]) -> bool:
    """Does the word at ``at`` point back ("another zebra with half that many stripes") to the
    step's one other number, the question's number right before it (``anchor``), in its sentence or
    the one before ("a zebra with 36 stripes, and another zebra with half that many" / "36 / 2";
    405: not "two zebras", stated earlier in that sentence)?"""
    m = re.match(r"[A-Za-z]+(?:\s+[A-Za-z]+)?", question[at:])
    if m is None or not _POINTS_BACK.match(question, at + len(m.group(0).split()[0])):
        return False
    before = [n.start for n in nums if n.start < at]
    if not before or max(before) != anchor:
        return False
    sentence = next(i for i, e in enumerate(bounds) if at < e)
    return next(i for i, e in enumerate(bounds) if anchor < e) >= sentence - 1


def clause_restated(question: str, nums: Sequence[Any], expr: Expr, role: str, v: Fraction, occ: list[int],
                    line: str) -> bool:
    """The word, when the line writes the words of its clause up to it (at least two) right before
    the computation, and no place of the value is in the word's sentence."""
    at = multiplier_word(question, expr, role, v) if occ else None
    if at is None and occ and role in ("times", "divisor") and _written_once(expr, v):
        # the question writes other words of the value too ("Stacy finds twice as many as Lamar ...
        # Mei finds half as many as Charlie"): the one word, written once, whose clause the line
        # restates ("Stacy finds 5 x 2")
        words = [m.start() for p in _PHRASES_OF.get(v, ()) if p in _MULTIPLIERS_OF.get(v, ())
                 or (role == "divisor" and v.denominator == 1 and Fraction(1, v.numerator) in WORD_GIVENS[p])
                 for m in phrase_re(p, True).finditer(question)]
        restating = [w for w in words if _restates(question, w, line)]
        at = restating[0] if len(restating) == 1 and len(set(words)) == len(words) else None
    if at is None:
        return False
    bounds = sentence_bounds(question)
    if any(_same_sentence(bounds, nums[j].start, at) for j in occ):
        return False
    return _restates(question, at, line)


def _restates(question: str, at: int, line: str) -> bool:
    """Does the line write the words of the question's clause up to ``at`` (at least two) right
    before its computation?"""
    clause = re.split(r"[.,;:!?]\s", question[:at])[-1]
    prose = _ANNOTATION.sub(" ", line)
    m = re.search(r"[$\d]", prose)
    if m is None:
        return False
    before = re.split(r"[.,;:!?]\s", prose[:m.start()])[-1]
    said = re.findall(r"[a-z']+", clause.lower())
    return len(said) >= 2 and said == re.findall(r"[a-z']+", before.lower())


def unit_word_converts(question: str, nums: Sequence[Any], by_value: dict[Fraction, list[int]], expr: Expr,
                       role: str, v: Fraction, occ: list[int], line: str) -> bool:
    """The unit's word, when the question writes it once, the line names the unit, every place of
    the value names something else than the unit or the smaller one, and another number of the
    step is stated at one place in the smaller unit."""
    if role not in ("times", "divisor") or not occ or not _written_once(expr, v):
        return False
    phrases = [p for p in _PHRASES_OF.get(v, ()) if p in _UNIT_WORDS and has_phrase(question, p, ignore_case=True)]
    if len(phrases) != 1 or len(list(phrase_re(phrases[0], True).finditer(question))) != 1:
        return False
    small, large, big = _UNIT_WORDS[phrases[0]]
    if not big.search(_ANNOTATION.sub(" ", line)) or any(not nums[j].stems or nums[j].stems & {small, large}
                                                         for j in occ):
        return False
    for leaf in leaves(expr):
        if not leaf.text or leaf.value == v or leaf.value in (0, 1):
            continue
        places = by_value.get(leaf.value, [])
        if len({nums[j].start for j in places}) == 1 and small in nums[places[0]].stems:
            return True
    return False


def word_object_named(question: str, v: Fraction, stems: frozenset[str], expr: Expr) -> bool:
    """The word, when the words the line writes after the use (``stems``, which name no place of
    the value) name what a word that multiplies by ``v`` multiplies, and no other such word's
    ("4 pillow cases * 2 towels/pillow case" for "twice as many towels as pillow cases"; "2
    pine/oak * 20 oak" for "twice as many Lodgepole Pine as White Oak"), the step writing ``v`` once."""
    if not _written_once(expr, v) or not stems:
        return False
    hits = 0
    for p in _MULTIPLIERS_OF.get(v, ()):
        for m in phrase_re(p, True).finditer(question):
            if multiplied_stems(question, m.end()) & stems:
                hits += 1
    return hits == 1


#: the stems of measured units: a place that names one is no count to divide into parts
_MEASURED = frozenset("seco minu hour day week mont year $ cent mile foot feet inch yard mete poun ounc "
                      "gall lite quar".split())


def parts_of_a_stated_fraction(question: str, nums: Sequence[Any], occ: list[int], v: Fraction) -> bool:
    """Is a divisor ``v`` whose words name no place the parts of the unit fraction ``1/v`` the
    question writes in digits, every place of ``v`` a measure ("24 kids / 6" of "1/6 of the remaining
    kids" beside "less than 6 minutes": kids divided by minutes are no kids)? Then the fraction's
    parts are declared by :mod:`.constants`, never the measure."""
    return bool(occ) and all(nums[j].stems & _MEASURED for j in occ) \
        and any(n.value == 1 / v and n.text.replace(" ", "") == f"1/{v}" for n in nums)
