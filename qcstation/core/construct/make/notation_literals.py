"""A number definition's value read without the SMT-LIB parser, for the notation renderer's
near reading (:func:`.notation._read_near`: a derived item's formalization is its parent's
with other numbers in its given lines, and only those lines are read again).

:func:`literal_line_term` reads ``12``, ``2.5``, ``(- 5)``, ``(/ 25 100)``, ``(+ 1 2)``
(numerals and decimals only, one space apart) as the term :func:`.notation._term` makes of
the parsed line, and gives None for anything else: the caller then parses the line. Pure
functions over :mod:`qcstation.core.reading.expr` terms."""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.reading.expr import BinOp, Expr, Neg, Num

__all__ = ["fold_terms", "literal_line_term", "literal_number"]

_NUMERAL = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_LITERAL_TERM = re.compile(r"\(([-/]) ([0-9.]+(?: [0-9.]+)*)\)")


def literal_number(text: str) -> Num | None:
    """``text`` as :func:`.notation._term` reads a numeral or decimal token, or None when it
    is none."""
    if _NUMERAL.fullmatch(text) is None:
        return None
    return Num(Fraction(int(text)), text) if "." not in text else Num(Fraction(text), text)


def literal_line_term(text: str) -> Expr | None:
    """The term of a number definition's value ``text`` as :func:`.notation._term` reads it
    from the parsed line, without parsing the line; None for anything else."""
    if text[:1] != "(":
        return literal_number(text)
    m = _LITERAL_TERM.fullmatch(text)
    if m is None:
        return None
    parts: list[Expr] = []
    for t in m.group(2).split(" "):
        num = literal_number(t)
        if num is None:
            return None
        parts.append(num)
    return fold_terms(m.group(1), parts)


def fold_terms(op: str, parts: list[Expr]) -> Expr:
    """The term of ``(op part...)`` (``op`` one of + - * /, ``parts`` not empty): a unary minus
    is a negation, an exact rational literal such as ``(/ 3 2)`` one given number, else the
    parts joined left to right. Shared by the parsed reading (:func:`.notation._term`) and the
    direct one (:func:`literal_line_term`), so the two cannot drift apart."""
    if op == "-" and len(parts) == 1:
        return Neg(parts[0])
    if op == "/" and len(parts) == 2:
        p, q = parts
        if isinstance(p, Num) and isinstance(q, Num) and q.value != 0:
            value = p.value / q.value
            if value.denominator == q.value and value.numerator == p.value and q.value > 1:
                return Num(value, "")
    expr = parts[0]
    for part in parts[1:]:
        expr = BinOp(op, expr, part)
    return expr
