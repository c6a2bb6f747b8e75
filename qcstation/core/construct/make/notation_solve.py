"""Solving one equation linear in one unknown for the notation renderer
(:func:`.notation._solved_for_its_unknown`): the unknown's definition as a term of the other
constants, tidied so the rendered question reads as arithmetic ("a ÷ (b + c + d)", not
"a ÷ (1 × b + ...)"). Pure functions over :mod:`qcstation.core.reading.expr` terms."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from qcstation.core.reading.expr import BinOp, Expr, ExpressionError, Name, Neg, Num, evaluate

__all__ = ["solve_linear"]


def solve_linear(left: Expr, right: Expr, unknown: str, defs: Mapping[str, Expr]) -> Expr | None:
    """The term ``unknown`` equals by ``left = right`` (both linear in it, its coefficient not 0
    for the values ``defs`` give), or None."""
    lf, rf = _linear_in(left, unknown), _linear_in(right, unknown)
    if lf is None or rf is None:
        return None
    coef = _minus(lf[0], rf[0])
    if coef is None:
        return None
    env: dict[str, Fraction] = {}
    for name in defs:
        try:
            env[name] = evaluate(defs[name], env)
        except ExpressionError:
            continue  # a term of the unknown ("answer = x")
    try:
        if evaluate(coef, env) == 0:
            return None
    except ExpressionError:
        return None
    rest = _tidy(_minus(rf[1], lf[1]) or Num(Fraction(0)))
    coef = _tidy(coef)
    if isinstance(rest, Neg):  # (−a) ÷ (b − c) reads a ÷ (c − b)
        rest, coef = rest.operand, _tidy(Neg(coef))
    return rest if coef == Num(Fraction(1)) else BinOp("/", rest, coef)


def _tidy(e: Expr) -> Expr:
    """``e`` with what solving wrote around the equation's terms taken away: a product by 1,
    numbers only folded into one number (x + x: 1 + 1 = 2), a double minus."""
    if isinstance(e, Neg):
        inner = _tidy(e.operand)
        if isinstance(inner, Neg):
            return inner.operand
        if isinstance(inner, BinOp) and inner.op == "-":
            return BinOp("-", inner.right, inner.left)
        return Neg(inner)
    if not isinstance(e, BinOp):
        return e
    left, right = _tidy(e.left), _tidy(e.right)
    if isinstance(left, Num) and isinstance(right, Num) and not (e.op == "/" and right.value == 0):
        try:
            return Num(evaluate(BinOp(e.op, left, right)))
        except ExpressionError:
            pass
    one = Num(Fraction(1))
    if e.op == "*" and right == one:
        return left
    if e.op == "*" and left == one:
        return right
    if e.op == "/" and right == one:
        return left
    if e.op in "+-" and isinstance(right, Neg):
        return BinOp("-" if e.op == "+" else "+", left, right.operand)
    if e.op == "+" and isinstance(left, Neg):
        return BinOp("-", right, left.operand)
    if e.op == "-" and isinstance(left, Neg):  # −b − c reads −(b + c)
        return Neg(BinOp("+", left.operand, right))
    return BinOp(e.op, left, right)


def _plus(a: Expr | None, b: Expr | None) -> Expr | None:
    return b if a is None else a if b is None else BinOp("+", a, b)


def _minus(a: Expr | None, b: Expr | None) -> Expr | None:
    return Neg(b) if a is None and b is not None else a if b is None else BinOp("-", a, b)  # type: ignore[arg-type]


def _linear_in(e: Expr, x: str) -> tuple[Expr | None, Expr | None] | None:
    """(A, B) with ``e`` = A·x + B (None stands for 0), or None when ``e`` is not linear in x."""
    if isinstance(e, Name) and e.name == x:
        return Num(Fraction(1)), None
    if isinstance(e, (Num, Name)):
        return None, e
    if isinstance(e, Neg):
        inner = _linear_in(e.operand, x)
        if inner is None:
            return None
        return (None if inner[0] is None else Neg(inner[0])), (None if inner[1] is None else Neg(inner[1]))
    if not isinstance(e, BinOp):
        return None
    left, right = _linear_in(e.left, x), _linear_in(e.right, x)
    if left is None or right is None:
        return None
    if e.op == "+":
        return _plus(left[0], right[0]), _plus(left[1], right[1])
    if e.op == "-":
        return _minus(left[0], right[0]), _minus(left[1], right[1])
    if e.op == "*":
        if left[0] is not None and right[0] is not None:
            return None
        if left[0] is None:  # B_l * (A_r x + B_r)
            if left[1] is None:
                return None, None
            return (None if right[0] is None else BinOp("*", left[1], right[0]),
                    None if right[1] is None else BinOp("*", left[1], right[1]))
        if right[1] is None:
            return None, None
        return BinOp("*", left[0], right[1]), None if left[1] is None else BinOp("*", left[1], right[1])
    if e.op == "/":
        if right[0] is not None or right[1] is None:
            return None
        return (None if left[0] is None else BinOp("/", left[0], right[1]),
                None if left[1] is None else BinOp("/", left[1], right[1]))
    return None
