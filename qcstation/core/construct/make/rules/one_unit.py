"""A unit the question states as a quantity ("in 1 hour") that the solution writes converted
("60/2 = 30 minutes in turtle mode", GSM8K 684; "60 + 30 = 90 minutes" for "1 hour and 30
minutes", 582): the named factor (``k_minutes_per_hour``) stood alone for the question's "1
hour", so no given was tied to it and a derived question that moves the hour moved nothing.
:func:`one_unit_givens` declares that 1 as a given at its place and writes the use as the given
converted (``(* g3_hour k_minutes_per_hour)``): the same value, the hour bound to its words.

Only where it is one reading: the question states "1 <unit>" (or "one <unit>") at exactly one
place no given holds, and the factor stands alone (not multiplied by another term, not
dividing: those are conversions of another quantity) at exactly one use."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from qcstation.core.reading.expr import BinOp, Expr, Name, Neg, Num

__all__ = ["one_unit_givens"]

#: a named factor and the unit whose one it converts
_UNIT_OF = {"k_minutes_per_hour": "hour", "k_seconds_per_minute": "minute", "k_hours_per_day": "day",
            "k_days_per_week": "week", "k_months_per_year": "year", "k_inches_per_foot": "foot",
            "k_ounces_per_pound": "pound", "k_feet_per_yard": "yard"}


def _stand_ins(e: Expr, k: str, parent: str = "", side: str = "", depth: int = 0) -> int:
    """How many times ``e`` uses ``k`` alone (not a factor of a product, not a divisor)."""
    if depth > 200:
        return 0
    if isinstance(e, Name):
        return int(e.name == k and parent != "*" and not (parent == "/" and side == "right"))
    if isinstance(e, Neg):
        return _stand_ins(e.operand, k, "neg", "", depth + 1)
    if isinstance(e, BinOp):
        return _stand_ins(e.left, k, e.op, "left", depth + 1) + _stand_ins(e.right, k, e.op, "right", depth + 1)
    return 0


def _replace(e: Expr, k: str, g: str, parent: str = "", side: str = "", depth: int = 0) -> Expr:
    if depth > 200:
        return e
    if isinstance(e, Name):
        if e.name == k and parent != "*" and not (parent == "/" and side == "right"):
            return BinOp("*", Name(g), Name(k))
        return e
    if isinstance(e, Neg):
        return Neg(_replace(e.operand, k, g, "neg", "", depth + 1))
    if isinstance(e, BinOp):
        return BinOp(e.op, _replace(e.left, k, g, e.op, "left", depth + 1),
                     _replace(e.right, k, g, e.op, "right", depth + 1))
    return e


def one_unit_givens(givens: Any, question: str, exprs: list[Expr],
                    consts: list[tuple[str, Fraction, Expr]]) -> list[Expr]:
    """The steps' terms with each named factor that stands for the question's "1 <unit>" written
    as that given converted; the given is added to ``consts`` and to ``givens``' places."""
    names = {n for n, _, _ in consts}
    held = {n.start for n in getattr(givens, "_names", {}).values()}
    for k, unit in _UNIT_OF.items():
        if k not in names:
            continue
        after = re.compile(r"\s+" + unit + r"\b", re.I)
        places = [n for n in givens.numbers if n.value == 1 and not n.percent and n.start not in held
                  and after.match(question, n.start + len(n.text))]
        if len(places) != 1 or sum(_stand_ins(e, k) for e in exprs) != 1:
            continue
        g = f"g{sum(1 for n in names if n.startswith('g')) + 1}_{unit}"
        if g in names:
            continue
        exprs = [_replace(e, k, g) if _stand_ins(e, k) else e for e in exprs]
        givens._names[g] = places[0]
        held.add(places[0].start)
        consts.insert(sum(1 for n, _, _ in consts if not n.startswith(("k_", "w_"))), (g, Fraction(1), Num(Fraction(1))))
        names.add(g)
    return exprs
