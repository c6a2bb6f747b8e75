"""A given whose line names it with no words after its number, vouched for by the lines of every use
of its value: the question states the value at as many places as the solution has steps that use it
("5 nickels ... two pieces per nickel ... leaves with 2 nickels"), each step writes it once, and each
step's line names the own words of one place and of no other ("He spent 3 nickels because 5 - 2",
"He got 6 pieces of gum because 3 x 2"): a place's own words are those no other place of the value
has. The given is the place its lines name, and the given's name says which (``g2_nickels``) (called
by ``bindings``; the binder's reading is
:func:`~qcstation.core.construct.make.rules.clause_words.places_named_apart`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from qcstation.core.construct.check.terms import names as _names
from qcstation.core.reading.words import Occurrence, line_stems, operand_values, solution_lines, stem, step_line


def vouched_by_lines_apart(given: str, v: Fraction, cands: list[Occurrence], defs: dict[str, Any],
                           values: dict[str, Fraction], solution: str, is_given: Callable[[Any], bool]) -> bool:
    """Is ``given`` (of value ``v``, stated at ``cands``) the place of ``v`` that the lines of its
    steps name apart? See the module docstring."""
    m = re.fullmatch(r"g\d+_([a-z]+)(?:_[a-z_]*)?", given)
    places = list({o.start: o for o in cands if o.start >= 0}.values())
    if m is None or len(places) < 2 or len(places) != len({o.start for o in cands}):
        return False
    own = [o.words - frozenset().union(*(p.words for p in places if p is not o)) for o in places]
    mine = [i for i, w in enumerate(own) if stem(m.group(1)) in w]
    if len(mine) != 1:
        return False
    same = {g for g, e in defs.items() if is_given(e) and values.get(g) == v}
    lines = solution_lines(solution)
    named: dict[str, int] = {}  # step -> the place its line names
    for n, e in defs.items():
        if is_given(e) or n not in values or type(e).__name__ == "Name":
            continue
        uses = [g for g in _names(e) if g in same]
        if not uses:
            continue
        at = step_line(solution, values[n], operand_values(e, values))
        if len(uses) != 1 or _count(e, uses[0]) != 1 or at is None:
            return False
        said = line_stems(lines[at][0])
        hits = [i for i, w in enumerate(own) if w & said]
        if len(hits) != 1 or (uses[0] == given) != (hits[0] == mine[0]):
            return False
        named[n] = hits[0]
    return len(named) == len(places) and len(set(named.values())) == len(places)


def _count(e: Any, name: str, depth: int = 0) -> int:
    """How many times the term ``e`` uses ``name``."""
    if depth > 200:
        return 0
    kind = type(e).__name__
    if kind == "Name":
        return int(e.name == name)
    if kind == "Neg":
        return _count(e.operand, name, depth + 1)
    if kind == "BinOp":
        return _count(e.left, name, depth + 1) + _count(e.right, name, depth + 1)
    return 0
