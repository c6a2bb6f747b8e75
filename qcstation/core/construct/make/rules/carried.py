"""A result carried to the next line by a word of consequence (issue 26.1: ambiguous links decided
by the words).

"On Monday there are 20/100 * 25 = 5 cars passing the street less than on Tuesday. / So on Monday,
there are 25 - 5 = 20 cars": a line that opens with "So", "Thus", "Therefore", "Hence", "That
means" or "This means" states what follows from the line before it, and a number it writes once
whose value is the result that line just computed is that result, not a place of the question of
equal value (the weekend's "5 cars per day"). Only the computation right before the step, on the
line right before the step's own, is carried; "Then" (the next thing done, which may start
from a given: "Then find the area ...: 4 inches * 6 inches" after "= 6 square inches") carries
nothing, nor does a word of consequence before another computation of the same line.
:func:`decide_carried` keeps the one reading that agrees (partial decisions go to
:func:`.link_structure.decide_together`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Protocol

from qcstation.core.reading.expr import Expr
from qcstation.core.construct.make.rules.givens import Givens
from qcstation.core.construct.make.rules.link_structure import Readings, _Choices, _keep_decided, open_numbers


class Computation(Protocol):
    """What this module reads of a step (:class:`.links.Computation`)."""

    start: int
    written: Fraction

#: the words that open a line stating a consequence of the line before it
_CONSEQUENCE = re.compile(r"\s*(?:so|thus|therefore|hence|(?:that|this)\s+means)\b", re.I)
CARRIED_EVIDENCE = ("the words: the line opens with a word of consequence ('So', 'Thus', ...) and writes the "
                    "result the line before it computed")


def _line_span(solution: str, pos: int) -> tuple[int, int]:
    a = solution.rfind("\n", 0, pos) + 1
    b = solution.find("\n", pos)
    return a, b if b != -1 else len(solution)


def decide_carried(readings: Readings, ch: _Choices, comps: Sequence[Computation], exprs: list[Expr],
                   givens: Givens, solution: str) -> Readings:
    """For a number a step writes once, one of whose readings is the computation right before the
    step, on the line right before, whose result has that value: that result, where the step's line
    opens with a word of consequence and the step is the first computation of its line."""
    decided: dict[int, int | None] = {}
    for n, i, _k, terms, v in open_numbers(readings, ch, exprs):
        j = i - 1
        if j < 0 or j not in ch.options[n] or sum(1 for x in terms if x.value == v) != 1:
            continue
        a, b = _line_span(solution, comps[i].start)
        pa, pb = _line_span(solution, comps[j].start)
        if pb + 1 != a or not _CONSEQUENCE.match(solution, a, b):
            continue  # not the line right before; no word of consequence opens the step's line
        if any(a <= c.start < comps[i].start for c in comps[:i]):
            continue  # another computation of the line comes first: the word is that one's
        if sum(1 for c in comps[:i] if pa <= c.start < pb and c.written == v) != 1 or comps[j].written != v:
            continue  # the line before writes two results of this value, or not this one last
        decided[n] = j
    return _keep_decided(readings, ch, decided, lambda _j: CARRIED_EVIDENCE, partial=True)
