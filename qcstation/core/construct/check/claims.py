"""A given whose step's line names nothing after its value, vouched for by the places another
value claims (:func:`vouched_by_claims`): the question writes the value at several places, and
all but one of them are the written form of *another* value that the formalization declares and
uses as a given of its own, so this given, which cannot be that other value, is the one place left.

* A percent: "10% faster" is a place of 10 and of 1/10. A given of value 1/10 the formalization
  uses is that percent (its value is the percent's fraction; the question states 1/10 nowhere
  else), so a given of value 10 is not it: GSM8K 444's "170+10=180" is "Jon won by 10 minutes".
* A unit fraction in words: "One-fourth of the seats" is a place of 1/4 and, read as a divisor,
  of 4. A given of value 1/4 the formalization uses is that fraction, so a given of value 4 that
  divides nothing is not it: 619's "4 x 18" is "4 rows".
* A percent used as one: a given divided by the percent's named 100 (``k_percent``) in every use
  (or multiplied by its 1/100) is the percent the question states at one place: 551's "10/100 x
  $30" is "a 10% discount", not "a geometry set at $10".

A place left over is this given's only if its name agrees (``g6_minutes``, the word after it or
the word it is hyphened to, ``g1_foot`` for "an 80-foot tree";
``g1_pct`` a percent), as :mod:`.elimination` reads a given's name: a given named for the
percent that the claims leave at another place (696's "50 deer" tied to the words "50 percent")
is not vouched for. A given of the claimed value that is also used in the claimed role (one
given divided by 100 in one step and added as "$10" in another; a given of value 4 that divides)
is never vouched for by this: one number in two roles. Asked by
:func:`~qcstation.core.construct.check.elimination.vouched_by_elimination`; reads only the
reading floor and the formalization's terms (by shape, as :mod:`.bindings` does)."""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from qcstation.core.construct.check.terms import product_factors as _factors
from qcstation.core.construct.check.terms import subterms as _subterms
from qcstation.core.reading.words import (WORD_GIVEN_STEMS, Occurrence, number_word_stems, operand_values,
                                          question_occurrences, result_words, solution_lines, stem, step_line,
                                          words_after_value)

__all__ = ["vouched_by_claims"]


def _kind(e: Any) -> str:
    return type(e).__name__




def _is_name(e: Any, name: str) -> bool:
    return _kind(e) == "Name" and str(e.name) == name


def _percent_constant(e: Any, values: dict[str, Fraction], value: Fraction) -> bool:
    """Is ``e`` a named constant of a percent (``k_percent`` = 100, ``k_percent_fraction`` = 1/100)?"""
    return _kind(e) == "Name" and str(e.name).startswith("k_") and "percent" in str(e.name) \
        and values.get(str(e.name)) == value


def _uses(given: str, defs: dict[str, Any], values: dict[str, Fraction], is_given: Callable[[Any], bool]) \
        -> tuple[int, int, bool]:
    """(uses of ``given`` in the steps, those as a percent, whether any divides)."""
    uses = 0
    percent: set[int] = set()  # the given's terms that are a percent (each counted once)
    divides = False
    for e in defs.values():
        if is_given(e):
            continue
        terms = _subterms(e)
        uses += sum(1 for t in terms if _is_name(t, given))
        for t in terms:
            if _kind(t) != "BinOp":
                continue
            if t.op == "/" and _is_name(t.right, given):
                divides = True
            if t.op == "/" and _percent_constant(t.right, values, Fraction(100)):
                percent |= {id(f) for f in _factors(t.left) if _is_name(f, given)}  # "10/100 x $30"
            elif t.op == "*" and any(_percent_constant(f, values, Fraction(1, 100)) for f in _factors(t)):
                percent |= {id(f) for f in _factors(t) if _is_name(f, given)}  # "20 * 0.01 * 2400"
    return uses, len(percent), divides


_AFTER_PERCENT = re.compile(r"[\d.,]+\s*(?:%|percent\b)\s*([A-Za-z]+)", re.I)


def _name_agrees(given: str, place: Occurrence, question: str = "") -> bool:
    """Does the given's name say nothing against ``place`` (``g2_pct``: a percent; ``g6_minutes``:
    the word after the number; ``g7_discount`` for "a 10% discount": the word after a percent)?"""
    m = re.fullmatch(r"g\d+_([a-z]+)(?:_[a-z_]*)?", given)
    if m is None:
        return re.fullmatch(r"g\d+", given) is not None
    slug = "%" if m.group(1) == "pct" else stem(m.group(1))
    if slug in place.words | place.compound:  # "an 80-foot tree": the word it is hyphened to
        return True
    after = _AFTER_PERCENT.match(question[place.start:place.start + 40]) if "%" in place.words else None
    return after is not None and stem(after.group(1)) == slug


def vouched_by_claims(given: str, v: Fraction, cands: list[Occurrence], defs: dict[str, Any],
                      values: dict[str, Fraction], question: str, is_given: Callable[[Any], bool],
                      solution: str = "") -> bool:
    """Is ``given`` (value ``v``, stated at ``cands``) the one place of ``v`` that no given of
    another value claims, or the percent it is used as? See the module docstring."""
    if not given.startswith("g") or v <= 0 or not question:
        return False
    places = list({o.start: o for o in cands if o.start >= 0}.values())
    if len(places) < 2:
        return False
    uses, percent, divides = _uses(given, defs, values, is_given)
    if not uses:
        return False
    if percent:
        # used as a percent: in every use, and the question writes that percent at one place
        return percent == uses and sum(1 for o in places if "%" in o.words) == 1 \
            and _name_agrees(given, next(o for o in places if "%" in o.words), question)
    occurrences = question_occurrences(question)
    used = {str(t.name) for n, e in defs.items() if not is_given(e) for t in _subterms(e) if _kind(t) == "Name"}
    # the values a used given of the formalization has, other than this given's
    held = {values[g] for g, e in defs.items() if g != given and g in used and is_given(e) and g in values}

    def claimed(o: Occurrence) -> bool:
        other = v / 100 if "%" in o.words else None
        if other is None and any(w.startswith("~") for w in o.words) and not divides \
                and any(p.start == o.start and p.value == 1 / v for p in occurrences):
            other = 1 / v  # "One-fourth" read as 4: the given of 1/4 is that place
        if other is None or other not in held:
            return False
        # the other value is stated at this place only (else its given may be another place)
        return sum(1 for p in occurrences if p.value == other and p.start >= 0 and p.start != o.start) == 0 \
            and sum(1 for p in places if "%" in p.words) <= 1
    left = [o for o in places if not claimed(o)]
    if len(left) > 1 and solution:
        # a place of the value claimed by another given of the value whose every line names it
        taken = _anchored(given, v, left, defs, values, solution, is_given)
        left = [o for i, o in enumerate(left) if i not in taken]
    if len(left) != 1 or len(left) == len(places):
        return False
    o = left[0]
    if o.words & WORD_GIVEN_STEMS or any(w.startswith("~") for w in o.words) or "%" in o.words:
        return False  # a word given ("twice") or a percent left: its own kind of given, not this one
    return _name_agrees(given, o)


def _anchored(given: str, v: Fraction, places: list[Occurrence], defs: dict[str, Any], values: dict[str, Fraction],
              solution: str, is_given: Callable[[Any], bool]) -> set[int]:
    """The places (indexes into ``places``, each a digit or number word of ``v``) that another
    given of value ``v`` takes by the words of every line that uses it: the words after the value
    ("2 hours to min: 2(60)"), the value spelled ("$60 x 2 in two days"), or, where the given is a
    factor or divisor of its step, the words after the step's result ("2*20=40 hot dogs": the
    place "2 hot dogs", not "$2"; "21*20 = 420 cows": "20 cows per day", not "20 chickens"). The
    given's name must agree with the place (``g2_cows``), as for the given vouched for; two
    givens taking one place take none. A word given ("twice") and a given another value claims
    are not read here."""
    lines = solution_lines(solution)
    taken: dict[int, str] = {}
    for c, e in defs.items():
        if c == given or not is_given(e) or values.get(c) != v or c.startswith(("k_", "w_")):
            continue
        steps = [(n, x) for n, x in defs.items() if not is_given(x) and n in values
                 and any(_is_name(t, c) for t in _subterms(x))]
        if not steps:
            continue
        found: set[int] = set()
        for n, x in steps:
            at = step_line(solution, values[n], operand_values(x, values))
            if at is None:
                return set()
            line = lines[at][0]
            said = {stem(w) for ws in (words_after_value(line, v) or []) for w in ws} - {"$"}
            said |= {w for ws in number_word_stems(line, v) for w in ws}
            if not said and _kind(x) == "BinOp" and x.op in ("*", "/") \
                    and any(_is_name(f, c) for f in (_factors(x) if x.op == "*" else [x.left, x.right])):
                said = set(result_words(line, values[n])) - {"$"}
            hit = [i for i, o in enumerate(places) if o.words & said]
            if len(hit) != 1:
                return set()
            found.add(hit[0])
        if len(found) != 1:
            return set()
        i = found.pop()
        if i in taken or not _name_agrees(c, places[i]) or places[i].words & WORD_GIVEN_STEMS \
                or any(w.startswith("~") for w in places[i].words):
            return set()
        taken[i] = c
    return set(taken)
