"""A final answer the question asks in another unit than the solution's last step: "how much
will each pump cost, in cents?" where the last line writes "24/240 = $0.10" and the gold is
10. :func:`converted_answer` adds the conversion the solution leaves unwritten as one more
step (``s_last * k_cents_per_dollar``), only where the question asks for the unit in so many
words, the last step's result is written in the other unit, and the conversion gives the gold
exactly; the factor is a named constant (:mod:`.constants`), never a given of equal value."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from qcstation.core.construct.make.rules.links import Computation
from qcstation.core.reading.expr import BinOp, Num, fmt

__all__ = ["converted_answer"]


def _dollars(solution: str, comp: Computation) -> bool:
    """Is the computation's result written in dollars: "= $<<2/8=0.25>>0.25", "15/30 = $0.50"?"""
    if comp.source == "annotation":
        return bool(re.search(r"\$\s*$", solution[max(0, comp.start - 5):comp.start]))
    return bool(re.search(r"=\s*\$\s*[\d.]", comp.raw))


def _share(solution: str, comp: Computation) -> bool:
    """Is the computation's result written as a share of one, not as a percent or an amount: a
    decimal below 1 ("12/15=<<12/15=.8>>.8", "= 0.60") that no "%" or "$" follows or precedes?"""
    if not 0 < comp.written < 1:
        return False
    after = solution[comp.end:comp.end + 3] if comp.source == "annotation" else comp.raw[-3:]
    before = solution[max(0, comp.start - 5):comp.start]
    return "%" not in after and "$" not in before and "$" not in comp.raw


@dataclass(frozen=True)
class _Conversion:
    asks: re.Pattern[str]     #: the question's asking sentence names the unit of the answer
    written_in: Callable[[str, Computation], bool]  #: the last result is written in the other unit
    factor: Fraction
    op: str                   #: "*" or "/": last result (op) factor = the answer
    what: str
    line: str                 #: the step's line ({written}: the last result, {value}: the answer)
    label: str


_CONVERSIONS = (
    _Conversion(re.compile(r"\bin cents\b", re.I), _dollars, Fraction(100), "*", "in cents, the solution in dollars",
                "That is {written} dollars, or {value} cents.", "cents"),
    # "What percentage of the girls in the class like playing basketball?" / "12/15=<<12/15=.8>>.8"
    _Conversion(re.compile(r"\bwhat\s+(?:percent(?:age)?|%)|\bhow\s+many\s+percent|\bpercentage\b", re.I),
                _share, Fraction(100), "*",
                "as a percent, the solution as a share of one", "That share is {written}, or {value} percent.",
                "percent"),
)


def _decimal(v: Fraction) -> str | None:
    """``v`` as the solution writes a price ("0.25"); None unless it is a short decimal."""
    for places in range(0, 5):
        scaled = v * 10 ** places
        if scaled.denominator == 1:
            text = f"{scaled.numerator / 10 ** places:.{places}f}" if places else str(scaled.numerator)
            return text if Fraction(text) == v else None
    return None


# tried only where a sentence can start (from inside one, the rest of it was read again each time)
_ASKING = re.compile(r"(?:^|(?<=[.?!]))[^.?!]*\?")


@dataclass(frozen=True)
class Converted:
    """The conversion step: its computation, the note saying why, the line that describes it
    (the solution writes none: key information describes the step by it) and its label."""

    comp: Computation
    note: str
    line: str
    label: str


def converted_answer(comps: list[Computation], gold: Fraction | None, question: str | None,
                     solution: str) -> Converted | None:
    """The step that converts the solution's last computation's result to the unit the
    question asks (with a note saying so, and the line key information describes it by), or
    None: the last result must be written in the unit converted from."""
    if gold is None or not question or not comps:
        return None
    asking = " ".join(_ASKING.findall(question)) or question
    last = comps[-1]
    written = _decimal(last.written)
    if written is None:
        return None
    for conv in _CONVERSIONS:
        if not conv.asks.search(asking) or not conv.written_in(solution, last):
            continue
        value = last.value * conv.factor if conv.op == "*" else last.value / conv.factor
        if value != gold:
            continue
        factor = fmt(conv.factor)
        text = f"{written} {conv.op} {factor}"
        expr = BinOp(conv.op, Num(last.written, written), Num(conv.factor, factor))
        end = len(solution.rstrip())
        return Converted(Computation(end, end, text, text, expr, value, value, "inline"),
                         f"the question asks the answer {conv.what}: the last step's {written} converted "
                         f"({text} = {fmt(value)}), a step the solution leaves unwritten",
                         conv.line.format(written=written, value=fmt(value)), conv.label)
    return None
