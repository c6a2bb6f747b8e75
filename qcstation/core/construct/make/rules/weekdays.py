"""The days of a week the question counts by naming them, where a solution writes their count, a
number the question does not state (issue 26.1, lane cover20).

``week_days``: two readings, each only where the step's line says it:

* a range of weekdays the question names once ("From Sunday through Wednesday, he spent ...") is
  the named constant ``k_days_sunday_through_wednesday`` (4: both days and those between), where
  the line writes both days ("For four days (Sunday through Wednesday) he will spend 4*$10");
* the rest of the week after the days the question counts before it ("Sadie slept 8 hours on
  Monday. For the next two days ... If the rest of the week ..." / "The total for the rest of the
  week will be 4*7") is ``k_days_per_week`` less each of those: a weekday it names
  (``k_one_monday``), a range (``k_days_sunday_through_wednesday``), "the next two days" (the
  question's two, a given: a derived item that moves it moves the rest), or the days up to an
  ordinal day ("the first day ... The next day ... the third day": ``k_days_through_the_third_day``),
  where the line says rest, remaining or other. Only where the question names one rest of the week
  and the days before it are read one way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from qcstation.core.construct.make.rules.complements import line_at, names_other_quantity
from qcstation.core.reading.expr import BinOp, Expr, Neg, Num, evaluate
from qcstation.core.reading.words import NUMBER_WORD_VALUES

if TYPE_CHECKING:
    from qcstation.core.construct.make.rules.givens import Givens

__all__ = ["WEEKDAY_FACTORS", "week_days"]

_DAYS = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")
_DAY = r"(Sunday|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday)"
_RANGE = re.compile(rf"\b{_DAY}\s+(?:through|thru|to|until|till)\s+(?:the\s+end\s+of\s+the\s+day\s+on\s+)?{_DAY}\b", re.I)
_ORDINALS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
_ORDINAL_DAY = re.compile(r"\b(first|second|third|fourth|fifth|sixth)\s+day\b", re.I)
_NEXT_DAYS = re.compile(r"\b(?:the\s+)?next\s+(\d|two|three|four|five)\s+days\b", re.I)
_REST_OF_WEEK = re.compile(r"\b(?:the\s+)?(?:rest|remainder)\s+of\s+the\s+week\b"
                           r"|\b(?:the\s+)?remaining\s+days\s+of\s+the\s+week\b", re.I)
_REST_LINE = re.compile(r"\b(?:rest|remaining|remainder|other)\b", re.I)


def _span(a: str, b: str) -> int:
    return (_DAYS.index(b.lower()) - _DAYS.index(a.lower())) % 7 + 1


#: the named constants of this module by name (a range's days, the days up to an ordinal day)
WEEKDAY_FACTORS: dict[str, Fraction] = {
    **{f"k_days_{a}_through_{b}": Fraction((j - i) % 7 + 1)
       for i, a in enumerate(_DAYS) for j, b in enumerate(_DAYS) if a != b},
    **{f"k_days_through_the_{w}_day": Fraction(n) for w, n in _ORDINALS.items()},
}


def _range_name(m: re.Match[str]) -> str:
    return f"k_days_{m.group(1).lower()}_through_{m.group(2).lower()}"


def _counted_before(givens: Givens, end: int) -> Expr | None:
    """The days the question counts before ``end`` (where it says "the rest of the week"), as a
    term, or None where they are not read one way."""
    q = givens.question[:end]
    parts: list[Expr] = []
    ranges = list(_RANGE.finditer(q))
    in_range = [(m.start(), m.end()) for m in ranges]
    for m in ranges:
        parts.append(Num(Fraction(_span(m.group(1), m.group(2))), _range_name(m)))
    for m in re.finditer(rf"\b{_DAY}\b", q):
        if not any(a <= m.start() < b for a, b in in_range):
            parts.append(Num(Fraction(1), f"k_one_{m.group(1).lower()}"))
    for m in _NEXT_DAYS.finditer(q):
        raw = m.group(1)
        n = Fraction(int(raw)) if raw.isdigit() else Fraction(NUMBER_WORD_VALUES[raw.lower()])
        places = [x for x in givens.numbers if x.value == n and not x.percent and x.start == m.start(1)]
        if len(places) != 1 or sum(1 for x in givens.numbers if x.value == n and not x.percent) != 1:
            return None  # the count stated again elsewhere: its given would be chosen by words we do not have
        parts.append(Num(n, places[0].text))
    ordinals = [m.group(1).lower() for m in _ORDINAL_DAY.finditer(q)]
    if ordinals:
        if parts or "first" not in ordinals:
            return None  # days named two ways, or an ordinal day with no first: not read
        last = max((w for w in ordinals if w != "first"), key=lambda w: _ORDINALS[w], default=None)
        if last is None:
            return None
        parts.append(Num(_ORDINALS[last] * Fraction(1), f"k_days_through_the_{last}_day"))
    if not parts:
        return None
    out = parts[0]
    for p in parts[1:]:
        out = BinOp("+", out, p)
    return out


def _minus_each(total: Expr, counted: Expr) -> Expr:
    """``total - a - b ...`` for ``counted`` = ``a + b + ...``."""
    if isinstance(counted, BinOp) and counted.op == "+":
        return BinOp("-", _minus_each(total, counted.left), counted.right)
    return BinOp("-", total, counted)


def week_days(starts: Sequence[int], exprs: list[Expr], givens: Givens | None, solution: str) -> list[Expr]:
    """``exprs`` (one term per computation starting at ``starts``) with each count of days the
    question names by their words replaced by its term (see the module docstring)."""
    if givens is None:
        return exprs
    q = givens.question[:20_000]
    ranges = list(_RANGE.finditer(q))
    rests = list(_REST_OF_WEEK.finditer(q))
    if not ranges and len(rests) != 1:
        return exprs
    rest: Expr | None = None
    if len(rests) == 1 and re.search(r"\bweeks?\b", q, re.I):
        counted = _counted_before(givens, rests[0].start())
        if counted is not None and 0 < evaluate(counted) < 7:
            rest = _minus_each(Num(Fraction(7), "k_days_per_week"), counted)
    out = []
    for e, at in zip(exprs, starts):
        line = line_at(solution, at)
        out.append(_walk(e, givens, ranges, rest, line))
    return out


def _walk(e: Expr, givens: Givens, ranges: list[re.Match[str]], rest: Expr | None, line: str) -> Expr:
    if isinstance(e, Num):
        return _days(e, givens, ranges, rest, line) or e
    if isinstance(e, Neg):
        return Neg(_walk(e.operand, givens, ranges, rest, line))
    if isinstance(e, BinOp):
        return BinOp(e.op, _walk(e.left, givens, ranges, rest, line), _walk(e.right, givens, ranges, rest, line))
    return e


def _days(num: Num, givens: Givens, ranges: list[re.Match[str]], rest: Expr | None, line: str) -> Expr | None:
    v = num.value
    if not num.text or num.text.startswith("k_") or v.denominator != 1 or not 1 < v < 7 \
            or names_other_quantity(givens, v):
        return None
    named = [m for m in ranges if _span(m.group(1), m.group(2)) == v
             and re.search(rf"\b{m.group(1)}\b", line, re.I) and re.search(rf"\b{m.group(2)}\b", line, re.I)]
    if len(ranges) == 1 and len(named) == 1:
        return Num(v, _range_name(named[0]))
    if rest is not None and evaluate(rest) == v and _REST_LINE.search(line):
        return rest
    return None
