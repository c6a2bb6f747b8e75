"""The computation a solution writes in its text where its annotation writes a number the question
states neither as a number nor in words (issue 26.1, lane cover35).

``stated_visible``: "half the number is 1/2*20=<<20-10=10>>10" (579): the annotation subtracts a
10 no words of the question give (a hard-coded half of 20), the text right before it computes the
same value with the question's numbers only (its 20, and 1/2 for "half"). The text's computation
is read, only where

* every number the annotation writes that the question states neither as a number nor in words is
  also no earlier computation's value (a result the step may use) and no unit or percent factor the
  question's words make plausible (".01" of "20*.01" for "20%", which :mod:`.constants` names), and
* every number the text writes is a number or a word given of the question (a fraction the question
  writes in words, "1/2" for "half", counts as one number), and the text's value is the annotation's.

Anything else keeps the annotation (and its refusal where a number stays unstated)."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import TYPE_CHECKING

from qcstation.core.reading.expr import BinOp, Expr, Num, leaves
from qcstation.core.reading.inline import visible_before

if TYPE_CHECKING:
    from qcstation.core.construct.make.rules.givens import Givens

__all__ = ["stated_visible"]


def _stated(givens: Givens) -> set[Fraction]:
    return set(givens.values) | set(givens.word_values) | {Fraction(0), Fraction(1)}


def _numbers(e: Expr, givens: Givens) -> list[Fraction]:
    """The numbers a term writes, a fraction the question writes in words ("1/2" for "half") as one."""
    if isinstance(e, BinOp) and e.op == "/" and isinstance(e.left, Num) and isinstance(e.right, Num) \
            and (e.left.value, e.right.value) in givens.word_fractions:
        return [e.left.value / e.right.value]
    if isinstance(e, BinOp):
        return _numbers(e.left, givens) + _numbers(e.right, givens)
    return [n.value for n in leaves(e)]


def stated_visible(solution: str, start: int, rhs: str, lhs: Expr, value: Fraction, givens: Givens | None,
                   earlier: Iterable[Fraction]) -> tuple[str, Expr, Fraction] | None:
    """The text's computation right before the annotation at ``start`` (see the module docstring),
    or None."""
    if givens is None:
        return None
    stated = _stated(givens)
    parts = {Fraction(x) for a, b in givens.word_fractions for x in (a, b)}
    unstated = {n.value for n in leaves(lhs)} - stated - parts  # "48*3/4" for "three-quarters": stated
    if not unstated or unstated & set(earlier) or any(v in givens.factors or (v and 1 / v in givens.factors)
                                                      for v in unstated):
        # an earlier result, or a factor the question's words make plausible ("20*.01" for "20%")
        return None
    visible = visible_before(solution, start, rhs)
    if visible is None or visible[2] != value:
        return None
    if not all(v in stated for v in _numbers(visible[1], givens)):
        return None
    return visible
