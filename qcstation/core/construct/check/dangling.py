"""A link to an earlier result whose value the question also states, vouched for by the
formalization's structure (:func:`every_place_used`): the question's places of that value
each have their own use, so reading the step's number as one of them would use one given in
two roles (issue 26.1 refuses that unless the words say so), and the earlier result, which no
other step uses, would be computed for nothing. Asked by
:func:`~qcstation.core.construct.check.bindings.equal_value_links` (which passes what a given
is), after the words (:func:`~qcstation.core.construct.check.bindings.link_by_words`) found
nothing to decide; this module reads only the reading floor.

GSM8K 347: "her son eats 20 and her husband eats 7 so Jenny eats 36-20-7": the question's one
7 ("for 7 days") is the husband's days in "1*7 = 7 cookies"; the 7 cookies it computes are
what the last line subtracts. 719: "30 * 0.20 = 6 people" after "100 * 0.30 = 30 people": the
question's 30 is "30%", already the 0.30 of the first step."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from qcstation.core.reading.words import (operand_values, question_occurrences, result_words,
                                          solution_lines, stem, step_line, words_after_value)

__all__ = ["every_place_used"]


def _names(e: Any) -> Counter[str]:
    """How many times a term writes each name (a tree of any expression classes that name
    their kind Name, Neg, BinOp, as the SMT-LIB reader's and the rules' do)."""
    out: Counter[str] = Counter()
    stack, seen = [e], 0
    while stack and seen < 10_000:
        x = stack.pop()
        seen += 1
        kind = type(x).__name__
        if kind == "Name":
            out[str(x.name)] += 1
        elif kind == "Neg":
            stack.append(x.operand)
        elif kind == "BinOp":
            stack += [x.left, x.right]
    return out


def every_place_used(name: str, dep: str, v: Fraction, defs: dict[str, Any], values: dict[str, Fraction],
                     question: str, solution: str, is_given: Callable[[Any], bool]) -> bool:
    """Does the structure settle that step ``name`` uses the earlier result ``dep`` (of value
    ``v``, a value the question states)? All of:

    * ``dep`` is written once in ``name`` and used by no other step (the answer naming a step
      is no use): read as a given, it would be computed for nothing;
    * every place the question states ``v`` (digits, number words; a word given such as
      "twice" only where the step's line writes that word; a percent also by its fraction) is
      taken by a given of its own that the formalization uses once: there are at least as many
      givens of that value used as places, so the step's ``v`` as a given is a place used twice;
    * the words the step's line writes after ``v`` do not name one of the question's places
      of ``v`` without naming what ``dep`` computes ("7 days" where the earlier result is
      cookies)."""
    e = defs.get(name)
    if e is None or _names(e)[dep] != 1:
        return False
    # the steps (the answer naming one is no use of it)
    steps = {n: _names(x) for n, x in defs.items() if not is_given(x) and type(x).__name__ != "Name"}
    if any(c[dep] for n, c in steps.items() if n != name):
        return False
    at = step_line(solution, values[name], operand_values(e, values)) if name in values else None
    lines = solution_lines(solution)
    line = lines[at][0] if at is not None else None
    places = []
    for o in question_occurrences(question):
        if o.start < 0 or o.value != v:
            continue
        phrases = [w[1:] for w in o.words if w.startswith("~")]
        if phrases and line is not None and not any(
                re.search(r"\b" + re.escape(p) + r"\b", line, re.I) for p in phrases):
            continue  # "a week" is 7 only where the line says so
        places.append(o)
    if not places:
        return False
    percent = any("%" in o.words for o in places)
    uses: Counter[str] = sum(steps.values(), Counter())
    used = {g for g in uses if g in defs and is_given(defs[g]) and not g.startswith("k_")
            and (values.get(g) == v or (percent and values.get(g) == v / 100))}
    if len(used) < len(places):
        return False
    # each of them used once: a given already in two roles ("2 x 2 = 4 boxes to her mom and
    # sister", 973: the 2 boxes each and the two people) vouches for no place of its own
    if any(uses[g] != 1 for g in used):
        return False
    if line is None:
        return True
    here = {stem(w) for ws in (words_after_value(line, v) or []) for w in ws} - {"$"}
    if not here:
        return True
    dep_at = step_line(solution, v, operand_values(defs[dep], values))
    there = set(result_words(lines[dep_at][0], v)) if dep_at is not None else set()
    return bool(here & there) or not any(here & o.words for o in places)
