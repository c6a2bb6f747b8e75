"""A divisor that is the size of the unit its step's result is counted in (:func:`sized_unit_problems`;
issue 26.1, lane covB): "he has 180 contacts so that's 180/2 = 90 pairs of contacts" divides by the
two of a pair, a quantity the word "pairs" implies (a named constant), never a number of the question
stated under other words ("If he buys 2 boxes of contact": dividing by the boxes would make the count
of pairs move with the boxes bought). A step that divides by a given of value 2 whose line counts
its result in pairs (12: in dozens), where no place of that value in the question names pairs
(dozens), is such a binding, where the line names none of the things a place of that value counts
("$0.5 for 2 balloons" / "12/2 = 6 pairs of balloons": the 2 balloons are the group) and the dividend
is not counted in that unit already ("66 pairs of shoes / 2" for "half"). Reads only the reading floor.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from qcstation.core.reading.words import MAX_TEXT, Occurrence, line_stems, result_words, solution_lines

__all__ = ["sized_unit_problems"]

#: a unit's stem and how many things it counts
_SIZES: dict[str, Fraction] = {"pair": Fraction(2), "doze": Fraction(12)}


def sized_unit_problems(defs: dict[str, Any], values: dict[str, Fraction], solution: str,
                        occurrences: list[Occurrence], is_given: Callable[[Any], bool]
                        ) -> list[tuple[str, Fraction, tuple[str, ...], tuple[str, ...]]]:
    """(step, value, the line's words, the question's texts) of each step that divides by a given
    that is the size of the unit its result is counted in (see the module docstring)."""
    out: list[tuple[str, Fraction, tuple[str, ...], tuple[str, ...]]] = []
    lines = solution_lines(solution)
    text_lines = solution[:MAX_TEXT].splitlines()
    for step, expr in defs.items():
        if getattr(expr, "op", None) != "/" or type(expr.right).__name__ != "Name" or step not in values:
            continue
        dep = str(expr.right.name)
        if dep not in defs or not is_given(defs[dep]) or dep.startswith("k_") or dep not in values:
            continue
        size = values[dep]
        for unit, n in _SIZES.items():
            if n != size or any(o.value == size and (unit in o.words or unit in o.text.lower()[:5] or any(
                    w.startswith("~") and unit in w for w in o.words)) for o in occurrences):
                continue
            # the dividend is counted in that unit already ("66 pairs of shoes / 2" for "half"): no conversion
            left = getattr(expr.left, "name", None)
            if left in values and any(values[left] in res and unit in result_words(p, values[left]) for p, res in lines):
                continue
            places = [o for o in occurrences if o.value == size]
            # a line that computes this result by dividing by the size and counts it in that unit, naming
            # none of the things a place of the size counts ("$0.5 for 2 balloons" / "12/2 = 6 pairs of balloons")
            divides = re.compile(r"/\s*" + str(n) + r"(?![\d.])")
            if any(values[step] in results and unit in result_words(prose, values[step])
                   and i < len(text_lines) and divides.search(text_lines[i])
                   and not any((o.words - {"$", "%"}) & line_stems(prose) for o in places)
                   for i, (prose, results) in enumerate(lines)):
                out.append((step, size, (unit,), tuple(o.text for o in places)))
    return out
