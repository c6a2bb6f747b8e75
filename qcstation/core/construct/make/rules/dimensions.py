"""A number that multiplies or divides a quantity of one unit into a result of the same unit is
dimensionless (issue 26.1): "5 hours" times 2 is "10 hours" only if the 2 is a pure factor
("twice"), never "2 hours" (hours times hours are no hours); "6 hours / 2 = 3 hours" divides by
"half"'s two parts, never by "2 hours". The binder (:mod:`.binding`) asks :func:`unit_bars_places`
before it would bind such a use to a place of the question by its value: when every place of
the value names the unit the step's other operand and its result name, and the question writes
the value as a word that multiplies or divides ("twice", "half", "triple"), the use is that word
(declared by :mod:`.constants`), never the count of equal value.

Only a product or quotient of two terms whose result is the step's (it stands alone or as a term
of a sum or difference: the terms of a sum count what the sum counts) is read; the units are the
words the solution writes after the other operand (or its place's words in the question, or the
words after an earlier step's result) and after the step's result ("= 10 hours", "= $16").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction

from qcstation.core.reading.expr import BinOp, Expr, Name, Neg, Num
from qcstation.core.reading.units import result_unit, units_of_value

__all__ = ["unit_bars_places", "leaf_context"]


def leaf_context(root: Expr, leaf: Expr) -> tuple[BinOp, Expr] | None:
    """The product or quotient whose operand ``leaf`` is (found by identity) and its other
    operand, when every term above it is a sum or difference (so its unit is the step's
    result's); None otherwise (a leaf deeper in a product, the dividend, a leaf of a sum)."""
    path: list[Expr] = []

    def find(e: Expr, depth: int = 0) -> bool:
        if depth > 200:
            return False
        path.append(e)
        if e is leaf:
            return True
        if isinstance(e, BinOp) and (find(e.left, depth + 1) or find(e.right, depth + 1)):
            return True
        if isinstance(e, Neg) and find(e.operand, depth + 1):
            return True
        path.pop()
        return False

    if not find(root) or len(path) < 2:
        return None
    parent = path[-2]
    if not isinstance(parent, BinOp) or parent.op not in "*/":
        return None
    if parent.op == "/" and parent.right is not leaf:
        return None  # the dividend carries the result's unit itself
    if any(not (isinstance(e, BinOp) and e.op in "+-") for e in path[:-2]):
        return None
    other = parent.left if parent.right is leaf else parent.right
    if not isinstance(other, (Num, Name)):
        return None
    return parent, other


def operand_unit(other: Expr, line: str, lines: list[str] | None, place_units: list[frozenset[str]]) -> frozenset[str]:
    """The unit of the other operand: what the line writes after it; else, for a number of the
    question stated at one place, that place's unit; for an earlier step's result (``s<k>_...``),
    the unit after that step's result on its line."""
    if isinstance(other, Num):
        said = [u for u in units_of_value(line, other.value) if u]
        if said:
            return said[0]
        return place_units[0] if len(place_units) == 1 else frozenset()
    if isinstance(other, Name):
        m = re.match(r"s(\d+)(?:_|$)", other.name)
        if m and lines is not None and 0 < int(m.group(1)) <= len(lines):
            return result_unit(lines[int(m.group(1)) - 1])
    return frozenset()


def unit_bars_places(root: Expr, leaf: Num, line: str, lines: list[str] | None,
                     places: list[frozenset[str]],
                     places_of: Callable[[Fraction], list[frozenset[str]]]) -> bool:
    """Does every place of ``leaf``'s value (``places``: their units,
    :func:`~qcstation.core.reading.units.unit_after`) name the unit that both the step's other
    operand and its result name, so that multiplying or dividing by it could not give the
    result's unit? ``places_of``: the units of each place of a value the question states (for
    the other operand, when it is a number). False when a place names no unit, or the units are not read."""
    if not places or any(not p for p in places):
        return False
    ctx = leaf_context(root, leaf)
    if ctx is None:
        return False
    _, other = ctx
    if isinstance(other, Num) and other.value == leaf.value:
        return False
    result = result_unit(line)
    other_places = places_of(other.value) if isinstance(other, Num) else []
    unit = operand_unit(other, line, lines, other_places) & result
    if not unit - {"%"}:
        return False
    return all(p & unit for p in places)


def place_by_unit(root: Expr, leaf: Num, line: str, lines: list[str] | None, places: list[frozenset[str]],
                  places_of: Callable[[Fraction], list[frozenset[str]]]) -> int | None:
    """Of the places of ``leaf``'s value (``places``: their units, every one naming one), the one
    the units of a product or quotient allow, or None: a factor beside one that carries the
    result's unit is a count, never a place of that unit ("6 x 4 = 24 pepperoni pizza slices" of
    "4 pepperoni pizza slices" each: the "6 friends", not the "6 cheese pizza slices"); a factor
    beside one that carries another unit carries the result's ("2 x 3 = 6 kilograms" of "2
    Bulldogs": the "3 kilograms", not the "3 German Shepherds"); a divisor of a quantity in the
    result's unit is a count too. Only when exactly one place is left."""
    if len(places) < 2 or any(not p - {"%"} for p in places):
        return None
    ctx = leaf_context(root, leaf)
    if ctx is None:
        return None
    parent, other = ctx
    if isinstance(other, Num) and other.value == leaf.value:
        return None
    result = result_unit(line) - {"%"}
    other_places = places_of(other.value) if isinstance(other, Num) else []
    unit = operand_unit(other, line, lines, other_places) - {"%"}
    if not result or not unit:
        return None
    if unit & result:
        left = [i for i, p in enumerate(places) if not p & result]
    elif parent.op == "*":
        left = [i for i, p in enumerate(places) if p & result]
    else:
        return None  # "60 miles / 2 hours = 30 mph": a divisor of another unit may be a rate's
    return left[0] if len(left) == 1 else None
