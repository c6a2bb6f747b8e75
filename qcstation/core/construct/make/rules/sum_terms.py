"""A term of a sum or difference that the line names with no words, of a value the question states
at places of different nouns: the one place whose noun the words after the step's result name
("Locsin caught 6 - 3 = 3 seahorses" for "3 fewer sea horses", not "3 clownfish"): a sum's terms
count what the sum counts (asked by :mod:`.binding`, before the sentence of the step's other
numbers). Money ("$") and percents decide nothing here: every price of a story is dollars. Also
:func:`flat_ops`, a term's operators (is it one sum or one product), which the binder asks."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from qcstation.core.reading.expr import BinOp, Expr, Name, Neg, Num, leaves
from qcstation.core.reading.words import ANNOTATION, result_words
from qcstation.core.construct.make.rules.clause_words import annotated_results

__all__ = ["flat_ops", "term_by_result"]


def _additive(e: Expr, depth: int = 0) -> bool:
    """Is the term one sum or difference of numbers and names ("6 - 3", "20 + 5 + 8")?"""
    if depth > 50:
        return False
    if isinstance(e, BinOp):
        return e.op in "+-" and _additive(e.left, depth + 1) and _additive(e.right, depth + 1)
    return isinstance(e, (Num, Name))


def term_by_result(expr: Expr | None, v: Fraction, line: str, occ: list[int], nums: Sequence[Any]) -> int | None:
    """Of the places of ``v`` (``occ``: indexes into ``nums``, the question's numbers, each with the
    ``stems`` that name it), the one whose words the words after the line's one annotated result
    name, where the step is a sum or difference writing ``v`` once and every place names something;
    else None."""
    places = list({nums[j].start: j for j in occ}.values())
    if expr is None or not isinstance(expr, BinOp) or not _additive(expr) or len(places) < 2 \
            or any(not nums[j].stems for j in places) or sum(1 for leaf in leaves(expr) if leaf.value == v) != 1:
        return None
    results = annotated_results(line)
    if len(results) != 1:
        return None
    named = result_words(ANNOTATION.sub(" ", line), next(iter(results))) - {"$", "%"}
    hits = [j for j in places if nums[j].stems & named]
    return hits[0] if named and len(hits) == 1 else None


def flat_ops(e: Expr) -> set[str]:
    """The operators of a term (its leaves' parents), for "is it one sum or one product"."""
    if isinstance(e, BinOp):
        return {e.op} | flat_ops(e.left) | flat_ops(e.right)
    if isinstance(e, Neg):
        return {"neg"} | flat_ops(e.operand)
    return set()


def a_term(expr: Expr | None, leaf: Num | None) -> bool:
    """Is ``leaf`` (the number being bound) a term of a sum or difference of ``expr`` ("26 days - 1 day")?"""
    def parent(e: Expr) -> str | None:
        if isinstance(e, BinOp):
            if e.left is leaf or e.right is leaf:
                return e.op
            return parent(e.left) or parent(e.right)
        return parent(e.operand) if isinstance(e, Neg) else None
    return expr is not None and leaf is not None and parent(expr) in ("+", "-")
