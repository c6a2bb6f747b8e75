"""A number the question writes with a scale word ("1 million Safe Moon tokens") that the solution
writes in full ("1000000 / 2"; issue 26.1, GSM8K train): the question's number times the named
scale ``k_per_million``, the number bound to its own place, never a hard-coded 1000000.

Only where it is one reading: the question writes "<N> thousand|million|billion" with N a number
of the question at that place, the step's literal is N times the scale, no place of the question
states the literal itself, and no other phrase of the question scales to it. A solution that keeps
the scale in words ("32 / 2 = 16 million") writes N, which binds as any given does."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from qcstation.core.reading.expr import BinOp, Expr, Name, Neg, Num

__all__ = ["SCALED_FACTORS", "scaled_literals", "scaled_values"]

#: each scale word's named factor and its value
SCALED_FACTORS: dict[str, Fraction] = {"k_per_thousand": Fraction(1000), "k_per_million": Fraction(10**6),
                                       "k_per_billion": Fraction(10**9)}
_SCALE_RE = re.compile(r"(?<![\w.,])(\d{1,6}(?:\.\d{1,3})?)\s+(thousand|million|billion)\b", re.I)


def _scaled_places(question: str, givens: Any) -> dict[Fraction, tuple[Fraction, str, str]]:
    """Full value -> (the question's number, its text, the scale's factor name), for each value
    exactly one phrase of the question scales to and no place of the question states."""
    found: dict[Fraction, list[tuple[Fraction, str, str]]] = {}
    for m in _SCALE_RE.finditer(question[:20000]):
        n = Fraction(m.group(1))
        if not any(q.value == n and not q.percent and q.start <= m.start(1) < q.start + len(q.text)
                   for q in givens.numbers):
            continue
        name = f"k_per_{m.group(2).lower()}"
        found.setdefault(n * SCALED_FACTORS[name], []).append((n, m.group(1), name))
    stated = {q.value for q in givens.numbers}
    return {v: ps[0] for v, ps in found.items() if len(ps) == 1 and v not in stated}


def scaled_values(givens: Any) -> frozenset[Fraction]:
    """The full values the question states with a scale word ("2 million": 2000000), as
    :func:`scaled_literals` reads them: a step's literal of such a value may be the question's
    number, so it is never an earlier result by its value alone (rules/links.py)."""
    question = getattr(givens, "question", None)
    if not question or not _SCALE_RE.search(question[:20000]):
        return frozenset()
    return frozenset(_scaled_places(question, givens))


def _rewrite(e: Expr, places: dict[Fraction, tuple[Fraction, str, str]], used: set[str], depth: int = 0) -> Expr:
    if depth > 200:
        return e
    if isinstance(e, Num):
        if e.text and e.value in places:
            n, text, name = places[e.value]
            used.add(name)
            return BinOp("*", Num(n, text), Name(name))
        return e
    if isinstance(e, Neg):
        return Neg(_rewrite(e.operand, places, used, depth + 1))
    if isinstance(e, BinOp):
        return BinOp(e.op, _rewrite(e.left, places, used, depth + 1), _rewrite(e.right, places, used, depth + 1))
    return e


def scaled_literals(question: str, givens: Any, exprs: list[Expr]) -> tuple[list[Expr], list[tuple[str, Fraction, Expr]]]:
    """The steps' terms with each literal that is a scaled number of the question written as that
    number times its scale, and the scales' constants (name, value, term) to declare."""
    if not _SCALE_RE.search(question[:20000]):
        return exprs, []
    places = _scaled_places(question, givens)
    if not places:
        return exprs, []
    used: set[str] = set()
    out = [_rewrite(e, places, used) for e in exprs]
    return out, [(name, SCALED_FACTORS[name], Num(SCALED_FACTORS[name])) for name in sorted(used)]
