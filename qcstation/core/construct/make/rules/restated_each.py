"""A list that spells out one number per category (issue 26.1: each number's use bound by its words).

"He can have only one selection from each topping category (one cheese, one meat and one
vegetable)": the parenthesis states no quantity of its own; each of its numbers is the one
number before it ("one selection from each"), written once per category. A step that adds two or
more of them ("1 cheese + 1 meat + 1 vegetable = 3 bad choices") counts the categories the list
names, which is no quantity the question states, and each given of such a sum would stand for
the same one number: :func:`check_each_sums` refuses it (:class:`.RuleError`). Multiplying by one
of them, or using one alone, is left to the other rules.
"""

from __future__ import annotations

import re
from typing import Any

from qcstation.core.reading.expr import BinOp, Expr, Name, Neg
from qcstation.core.construct.make.rules.result import RuleError

#: "(one cheese, one meat and one vegetable)": a parenthesis of two or more items, bounded in size
_PAREN = re.compile(r"\(([^()]{3,200})\)")
_EACH = re.compile(r"\b(?:from|of|for|in)\s+each\b", re.I)


def each_lists(question: str, numbers: list[Any]) -> list[tuple[int, int]]:
    """The spans (start, end) of the parentheses that spell out, one per category, a number the
    same sentence states before them with "from each" (or "of each", "for each", "in each")
    between that number and the parenthesis; ``numbers`` are the question's places (``start``,
    ``value``, ``percent``)."""
    out = []
    for m in _PAREN.finditer(question):
        inside = [n for n in numbers if m.start(1) <= n.start < m.end(1)]
        values = {n.value for n in inside}
        if len(inside) < 2 or len(values) != 1 or any(n.percent for n in inside):
            continue
        a = max((x.end() for x in re.finditer(r"[.?!;](?:\s|$)", question[:m.start()])), default=0)
        before = [n for n in numbers if a <= n.start < m.start() and n.value in values]
        if before and _EACH.search(question, before[-1].start, m.start()):
            out.append((m.start(1), m.end(1)))
    return out


def _terms(e: Expr) -> list[Expr]:
    if isinstance(e, BinOp) and e.op in "+-":
        return _terms(e.left) + _terms(e.right)
    if isinstance(e, Neg):
        return _terms(e.operand)
    return [e]


def check_each_sums(question: str, numbers: list[Any], names: dict[str, Any], exprs: list[Expr]) -> None:
    """Refuse a step that adds two or more givens stated in one list of :func:`each_lists`
    (``names``: each given's place, with ``start``)."""
    lists = each_lists(question, numbers)
    if not lists:
        return
    for i, e in enumerate(exprs):
        for a, b in lists:
            inside = [t.name for t in _terms(e) if isinstance(t, Name) and t.name in names
                      and a <= names[t.name].start < b]
            if len(inside) >= 2:
                raise RuleError(
                    f"step {i + 1} adds {', '.join(inside)}, which the question writes in "
                    f"({question[a:b]!r}) once per category for the one number before it (\"… from "
                    f"each …\"): their sum counts the categories, no quantity the question states")

