"""A percent the question states that a step takes by dividing by its parts, a number the
question does not state (issue 26.1, lane covA).

"the 3rd competitor ate 25% less than the 2nd competitor" / "The 3rd competitor ate 25% less than
the 2nd's 24 hot dogs, which is 24/4 = 6 hot dogs": the 4 is the parts of 25% (100/25), as the 2
of "half" is its parts. ``percent_parts`` writes ``x / d`` as ``x * p`` with the question's own
percent ``p`` (its given), so a derived item that moves the percent moves the share with it.

Only where the words tie the divisor to the percent: the step's own line writes that percent as
the question does ("25%") or as the fraction ``1/d`` it multiplies by ("3000 * 1/10" for "10% of
the price", where the question states no 1/10 of its own: the 1 is then the fraction's, no count), the question states exactly one percent of value ``1/d`` (written
once), ``d`` is no number the question states otherwise (a given, a word given, a fraction's
parts) and the division is by a bare number. A line that divides by 2 without writing the percent
("Of those only 50% respond. He removes everyone who did not respond" / "So he removes 60/2": the
half that did not respond, the rest of the percent) stays refused: no words tie that 2 to the 50%.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from qcstation.core.construct.make.rules.complements import line_at, names_other_quantity
from qcstation.core.reading.expr import BinOp, Expr, Neg, Num

if TYPE_CHECKING:
    from qcstation.core.construct.make.rules.givens import Givens

__all__ = ["percent_parts"]

_ANNOTATION = re.compile(r"<<[^<>]{0,400}>>")


def percent_parts(starts: Sequence[int], exprs: list[Expr], givens: Givens | None, solution: str) -> list[Expr]:
    """``exprs`` (one term per computation starting at ``starts``) with each ``x / d`` whose ``d``
    is the parts of the question's one percent that the step's line writes (see the module
    docstring) written ``x * p``."""
    if givens is None or not any(n.percent for n in givens.numbers):
        return exprs
    return [_walk(e, givens, _ANNOTATION.sub(" ", line_at(solution, at))) for e, at in zip(exprs, starts)]


def _walk(e: Expr, givens: Givens, line: str) -> Expr:
    if isinstance(e, Neg):
        return Neg(_walk(e.operand, givens, line))
    if not isinstance(e, BinOp):
        return e
    left = _walk(e.left, givens, line)
    right = _walk(e.right, givens, line)
    if e.op == "/" and isinstance(right, Num):
        # "3000 * 1/10" (read (3000 * 1) / 10) and "1/10 * 3000": the percent written as a fraction
        if _bare_one(left):
            pct = _percent_of_parts(right, givens, line, as_fraction=True)
            if pct is not None:
                return pct
        if isinstance(left, BinOp) and left.op == "*" and (_bare_one(left.left) or _bare_one(left.right)):
            pct = _percent_of_parts(right, givens, line, as_fraction=True)
            if pct is not None:
                return BinOp("*", left.left if _bare_one(left.right) else left.right, pct)
        pct = _percent_of_parts(right, givens, line)
        if pct is not None:
            return BinOp("*", left, pct)
    return BinOp(e.op, left, right)


def _bare_one(e: Expr) -> bool:
    return isinstance(e, Num) and e.value == 1 and bool(e.text) and not e.text.startswith("k_")


def _percent_of_parts(num: Num, givens: Givens, line: str, as_fraction: bool = False) -> Num | None:
    d = num.value
    if not num.text or num.text.startswith("k_") or "%" in num.text or d.denominator != 1 or d < 2:
        return None
    pcts = [n for n in givens.numbers if n.percent]
    found = [n for n in pcts if n.value == 1 / d]
    if len(found) != 1 or sum(1 for n in pcts if n.text == found[0].text) != 1:
        return None
    n = found[0]
    digits = re.escape(n.text.rstrip("%").strip())
    if not re.search(rf"(?<![\d.]){digits}\s*(?:%|percent\b)", line, re.I) \
            and not (as_fraction and _writes_one_over(d, line) and not _fraction_stated(givens, d)):
        return None  # the line does not write the percent (nor 1/d for it): no words tie the divisor to it
    if re.search(rf"/\s*{d.numerator}\s*(?:%|percent\b)", line, re.I):
        return None  # "40%/10% = 4 sets of 10%": a percent divided by the percent, a ratio of the two
    if re.search(r"(?<![\d.])1\s*(?:%|percent\b)", line, re.I):
        return None  # "so 1% is 30/10": the percent's digits, a step toward the whole (x 100)
    if _stated_otherwise(givens, d, {p.start for p in pcts}, line):
        return None  # a number the question gives otherwise, which the line names: the binder reads it
    return Num(n.value, n.text)


def _writes_one_over(d: Fraction, line: str) -> bool:
    """Does the line write the fraction ``1/d`` ("3000 * 1/10")?"""
    return bool(re.search(rf"(?<![\d.])1\s*/\s*{d.numerator}(?![\d.])", line))


def _fraction_stated(givens: Givens, d: Fraction) -> bool:
    """Does the question state the fraction ``1/d`` itself ("1/10", "a tenth"), as no percent?"""
    return any(n.value == 1 / d and not n.percent for n in givens.numbers) or 1 / d in givens.word_values


def _stated_otherwise(givens: Givens, d: Fraction, pct_starts: set[int], line: str) -> bool:
    """Does the question give ``d`` otherwise than as the digits of a percent ("10%" is also read
    as 10), in a form the step's line writes ("$10", "4 friends")? A word given of that value, or
    a fraction's parts, always counts (:func:`.complements.names_other_quantity`)."""
    if d in givens.word_values or (names_other_quantity(givens, d) and d not in givens.values):
        return True
    q = givens.question
    for m in givens.numbers:
        if m.value != d or m.percent or m.start in pct_starts:
            continue
        if q[max(0, m.start - 1):m.start] == "$":
            form = rf"\${re.escape(m.text)}(?![\d.])"
        else:
            after = re.match(r"\s*([A-Za-z]{3,})", q[m.start + len(m.text):m.start + len(m.text) + 30])
            if after is None:
                return True  # no word names this place: the line may mean it
            form = rf"\b{re.escape(after.group(1)[:4])}"
        if re.search(form, line, re.I):
            return True
    return False
