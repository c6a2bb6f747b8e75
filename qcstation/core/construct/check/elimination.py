"""A given whose step's line names nothing after its value, vouched for by elimination
(:func:`vouched_by_elimination`): the question states the value at several places, the
formalization declares one given for each, and every other given is named by the lines of the
steps that use it with the words of one place each, a different place for each; the one place
left is this given's. Asked by :func:`~qcstation.core.construct.check.bindings.binding_problems`
(which passes what a given is) after the words, the clause, the operand and the roles found
nothing; this module reads only the reading floor.

GSM8K 193: "Tom plants 10 trees a year ... After 10 years": "He gets 10-2=8 new trees a year"
names nothing after its 10, but "After 10 years he has 8*10" names the other place, and the
formalization declares two givens of value 10: the first is "10 trees", and it must be named
for that place (``g1_trees``): the names are what the stored formalization says of the places, so
two givens crossed (the given named for "10 years" where the trees are counted) are not vouched
for. One given used for both places, or another given whose lines name no place, never is.

A word given ("triple") is the place left where every place of its value in digits or a number
word is another given's, whose steps' lines each name that place's noun (anywhere on the line),
and no line of the word given's steps names any of them (541: "Each boy gets $18/3" for "shared
among 3 boys"; "So, he now has $13*3" is "triple the amount he had left")."""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from qcstation.core.construct.check.claims import vouched_by_claims
from qcstation.core.construct.check.terms import names as _names
from qcstation.core.reading.words import (Occurrence, operand_values, solution_lines, stem, step_line,
                                          words_after_value)

__all__ = ["vouched_by_elimination"]



def _said(line: str, v: Fraction) -> frozenset[str]:
    """The stems of the words the line writes after each place it writes ``v``."""
    return frozenset(stem(w) for ws in (words_after_value(line, v) or []) for w in ws) - {"$"}


def vouched_by_elimination(given: str, v: Fraction, cands: list[Occurrence], defs: dict[str, Any],
                           values: dict[str, Fraction], solution: str, is_given: Callable[[Any], bool],
                           question: str = "") -> bool:
    """Is ``given`` (of value ``v``, stated at ``cands``) the one place of ``v`` no other given of
    the formalization takes by its words? See the module docstring. (Or the one place the givens
    of another value leave it, or the percent it is used as: :mod:`.claims`.)"""
    if vouched_by_claims(given, v, cands, defs, values, question, is_given, solution):
        return True
    if given.startswith("w_"):
        return _word_left(given, v, cands, defs, values, solution, is_given)
    places = list({o.start: o for o in cands if o.start >= 0 and o.words
                   and not any(w.startswith("~") for w in o.words)}.values())
    if len(places) < 2 or len(places) != len({o.start for o in cands}):
        return False
    same = sorted(g for g, e in defs.items() if is_given(e) and values.get(g) == v
                  and not g.startswith(("k_", "w_")))
    if given not in same or len(same) != len(places):
        return False
    lines = solution_lines(solution)
    steps = {n: e for n, e in defs.items() if not is_given(e) and type(e).__name__ != "Name" and n in values}

    def words_of(g: str) -> list[frozenset[str]] | None:
        out = []
        for n, e in steps.items():
            if g not in _names(e):
                continue
            at = step_line(solution, values[n], operand_values(e, values))
            if at is None:
                return None
            out.append(_said(lines[at][0], v))
        return out if out else None

    claimed: dict[str, int] = {}
    for g in same:
        if g == given:
            continue
        said = words_of(g)
        if said is None:
            return False
        found = set()
        for stems in said:
            hit = [i for i, o in enumerate(places) if o.words & stems]
            if len(hit) != 1:
                return False
            found.add(hit[0])
        if len(found) != 1:
            return False
        claimed[g] = found.pop()
    if len(set(claimed.values())) != len(claimed) or len(places) - len(claimed) != 1:
        return False
    mine = words_of(given)
    if mine is None:
        return False
    taken = [places[i].words for i in claimed.values()]
    if any(stems & w for stems in mine for w in taken):
        return False
    # and the given is named for that place (``g3_years``: the word after it), for no place taken:
    # the name is what the stored formalization says of where the given stands, so a given
    # named for a place another given's words took is no place left over (the two crossed)
    left = next(o for i, o in enumerate(places) if i not in claimed.values())
    m = re.fullmatch(r"g\d+_([a-z]+)(?:_[a-z_]*)?", given)
    if m is None:
        return False
    slug = "%" if m.group(1) == "pct" else stem(m.group(1))  # g2_pct: a percent the question states
    return slug in left.words and not any(slug in w for w in taken)


def _word_left(given: str, v: Fraction, cands: list[Occurrence], defs: dict[str, Any], values: dict[str, Fraction],
               solution: str, is_given: Callable[[Any], bool]) -> bool:
    """Is the word given ``given`` ("triple", ``w_triple``) the place of ``v`` left over: the
    formalization declares one given for each place of ``v`` written in digits or as a number word,
    the lines of the steps that use each name its place's noun (anywhere on the line: "Each boy
    gets $18/3" for "shared among 3 boys") and no other digit place's, a different place each, and
    no line of a step that uses ``given`` names any of them ("So, he now has $13*3" for "triple the
    amount he had left", 541)?"""
    from qcstation.core.reading.words import line_stems

    own = [o for o in cands if given.startswith("w_" + re.sub(r"[^a-z]+", "_", o.text.lower()).strip("_"))
           and any(w.startswith("~") for w in o.words)]
    digits = list({o.start: o for o in cands if o.start >= 0 and not any(w.startswith("~") for w in o.words)}.values())
    if len(own) != 1 or not digits or any(not o.words - {"$", "%"} for o in digits) \
            or len({o.start for o in cands}) != len(digits) + 1:
        return False
    same = [g for g, e in defs.items() if is_given(e) and values.get(g) == v and not g.startswith(("k_", "w_"))]
    if len(same) != len(digits):
        return False
    lines = solution_lines(solution)

    def named(g: str) -> set[int] | None:
        found: set[int] = set()
        for n, e in defs.items():
            if is_given(e) or type(e).__name__ == "Name" or n not in values or g not in _names(e):
                continue
            at = step_line(solution, values[n], operand_values(e, values))
            if at is None:
                return None
            said = line_stems(lines[at][0])
            found |= {i for i, o in enumerate(digits) if (o.words - {"$", "%"}) & said}
        return found
    claimed = []
    for g in same:
        hit = named(g)
        if hit is None or len(hit) != 1:
            return False
        claimed.append(hit.pop())
    mine = named(given)
    return len(set(claimed)) == len(digits) and mine is not None and not mine
