"""The count of the values an average divides by (issue 26.1): "What is their average guess?" /
"240 / 3" after "80 + 60 + 100 = 240". The 3 is no number of the question: it is how many values
the step it divides added, a quantity the words "average" (or "mean") imply. It becomes the
named constant ``k_<n>_values_averaged``, never a given of equal value, and only where

* the question and the dividing step's line both say "average" or "mean";
* the step divides an earlier step's result (and nothing else) by that literal;
* that earlier step is a flat sum of exactly that many terms (``80 + 60 + 100``: three).

An average over another count than the terms written ("88 stripes / 4 zebras" after
"18 + 34 + 36", two zebras in the 34) keeps its literal, and the rules refuse it as before.
A literal the binder tied to a number of the question ("these 3 countries") is that given.
"""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.reading.expr import BinOp, Expr, Name, Neg, Num

__all__ = ["AVERAGED_COUNTS", "averaged_name", "mark_average_counts"]

#: the largest count of averaged values named (GSM8K averages at most nine quiz scores)
_MAX_TERMS = 20
_AVERAGE_RE = re.compile(r"\b(?:average[ds]?|mean)\b", re.I)


def averaged_name(n: int) -> str:
    return f"k_{n}_values_averaged"


#: each named count by its name (a named factor's value: see constants.FACTOR_VALUES)
AVERAGED_COUNTS: dict[str, Fraction] = {averaged_name(n): Fraction(n) for n in range(2, _MAX_TERMS + 1)}


def _sum_terms(e: Expr, depth: int = 0) -> list[Expr]:
    """The terms of a flat sum (``a + b + c``); a term that is no sum is one term."""
    if depth < 200 and isinstance(e, BinOp) and e.op == "+":
        return _sum_terms(e.left, depth + 1) + _sum_terms(e.right, depth + 1)
    return [e]


def mark_average_counts(names: list[str], exprs: list[Expr], lines: list[str], question: str) -> list[Expr]:
    """The steps' terms with each average's count marked as its named constant (see the module
    docstring); every other term unchanged. ``names``, ``exprs`` and ``lines``: the kept steps'
    names, their terms after the binder tied the question's numbers, and their lines."""
    if not _AVERAGE_RE.search(question):
        return exprs
    by_name = dict(zip(names, exprs))
    out: list[Expr] = []
    for i, e in enumerate(exprs):
        line = lines[i] if i < len(lines) else ""
        if isinstance(e, BinOp) and e.op == "/" and isinstance(e.left, Name) and isinstance(e.right, Num) \
                and e.right.text and not e.right.text.startswith("k_") and e.right.value.denominator == 1 \
                and 2 <= e.right.value <= _MAX_TERMS and e.left.name in by_name and _AVERAGE_RE.search(line):
            summed = by_name[e.left.name]
            terms = _sum_terms(summed) if isinstance(summed, BinOp) and summed.op == "+" else []
            if len(terms) == e.right.value and all(isinstance(t, (Name, Num, Neg)) for t in terms):
                e = BinOp("/", e.left, Num(e.right.value, averaged_name(int(e.right.value))))
        out.append(e)
    return out
