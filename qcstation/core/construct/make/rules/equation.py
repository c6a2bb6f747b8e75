"""The ``equation`` rule: an explicit equation field (``x = (70 - 27)``, a bare
expression, a computation with its result such as ``7+2=9``, or a linear equation in one
unknown such as ``x + 27 = 70``).

With the seed's question (SVAMP, ASDiv, MAWPS-style imports), every number of the equation
becomes a declared given tied to its place in the question, as the GSM8K rule's givens are
(:meth:`~.givens.Givens.bind`: ``g1_apples = 6``), a number the question states in words or
implies a word given or named factor (:func:`~.constants.declare_literals`: ``w_half``,
``k_minutes_per_hour``), and a number it neither states nor implies is refused with the
reason: the formalization is then no bare literal expression the audit flags
``step-literal``. A value the question states more than once, used more than once, is tied to
its places in order and recorded as uncertain (flagged for review)."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from qcstation.core.reading.expr import (BinOp, Call, Expr, ExpressionError, Name, Neg, Num,
                                                 evaluate, expr_names, expr_to_sexpr, fmt, parse_expression)
from qcstation.core.construct.make.rules.result import RuleError, RuleResult, RuleStep, build_smtlib


# --------------------------------------------------------------------------- equation rule


def _linear_form(expr: Expr, unknown: str) -> tuple[Fraction, Fraction]:
    """(a, b) with expr == a*unknown + b; raises ExpressionError when not linear."""
    if isinstance(expr, Num):
        return Fraction(0), expr.value
    if isinstance(expr, Name):
        if expr.name != unknown:
            raise ExpressionError(f"more than one unknown ({unknown!r} and {expr.name!r})")
        return Fraction(1), Fraction(0)
    if isinstance(expr, Neg):
        a, b = _linear_form(expr.operand, unknown)
        return -a, -b
    if isinstance(expr, Call):
        raise ExpressionError(f"the equation rounds ({expr.fn}): not a linear equation")
    la, lb = _linear_form(expr.left, unknown)
    ra, rb = _linear_form(expr.right, unknown)
    if expr.op == "+":
        return la + ra, lb + rb
    if expr.op == "-":
        return la - ra, lb - rb
    if expr.op == "*":
        if la and ra:
            raise ExpressionError("the equation is not linear in the unknown")
        return la * rb + ra * lb, lb * rb
    if ra:
        raise ExpressionError("the unknown appears in a divisor")
    if rb == 0:
        raise ExpressionError("division by zero")
    return la / rb, lb / rb


# "21 r2", "21 R 2", "21 remainder 2" (a division with a remainder, as SVAMP and ASDiv write it)
_REMAINDER_RE = re.compile(r"^\s*\(?\s*(\d+(?:\.\d+)?)\s*(?:r|R|rem|remainder)\.?\s*(\d+(?:\.\d+)?)\s*\)?\s*$")

_UNKNOWN_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


def _stated_result(parts: list[str]) -> tuple[int, Fraction] | None:
    """(side, value) when an equation of two sides without unknowns writes its result as a
    plain number on one side and a computation on the other (``7+2=9``, ``9 = 7+2``)."""
    if len(parts) != 2:
        return None
    plain = []
    for part in parts:
        try:
            e = parse_expression(part)
        except ExpressionError:
            return None
        plain.append(isinstance(e, Num) or isinstance(e, Neg) and isinstance(e.operand, Num))
    if plain[0] == plain[1]:
        return None
    side = 0 if plain[0] else 1
    return side, evaluate(parse_expression(parts[side]))


def _bind(exprs: list[Expr], question: str) -> tuple[list[Expr], list[tuple[str, Fraction, Expr]],
                                                     list[str], Any]:
    """The equation's terms with each number a declared constant tied to the question
    (``Givens.bind``, then word givens and factors), the constants, what was tied by order
    only, and the givens reader (for the records). RuleError names a number the question
    neither states nor implies."""
    from qcstation.core.construct.make.rules.constants import declare_literals
    from qcstation.core.construct.make.rules.givens import protect_fractions, question_numbers

    givens = question_numbers(question)
    exprs = [protect_fractions(e, givens) for e in exprs]
    exprs, consts = givens.bind(exprs, None)
    uncertain = givens.uncertain('equation')
    try:
        exprs, named = declare_literals(exprs, question, {n for n, _, _ in consts}, None)
    except RuleError as exc:
        raise RuleError(f"the equation uses a number the question does not state: {exc}",
                        "Number not in the question") from exc
    return exprs, consts + named, uncertain, givens


def _records(consts: list[tuple[str, Fraction, Expr]], givens: Any, question: str
             ) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    from qcstation.core.construct.make.rules.calculator import _constant_words, _given_record

    return ([_given_record(n, v, givens, question) for n, v, _ in consts if not n.startswith("k_")],
            [{"name": n, "value": fmt(v), "text": _constant_words(n)}
             for n, v, _ in consts if n.startswith("k_")])


def smt_from_equation(equation: str, gold: Fraction | None = None,
                      question: str | None = None) -> RuleResult:
    """Formalize an explicit equation field: ``x = (70 - 27)``, ``X=((45.0*3.0))``,
    a bare expression ``(70 - 27)``, a computation with the result it states (``7+2=9``,
    refused when false), or a linear equation in one unknown (``x + 27 = 70``,
    ``0.5*x = 3``). Raises RuleError otherwise."""
    text = equation.strip()
    if not text:
        raise RuleError("the equation field is empty")
    pieces = [p.strip() for p in text.split(";") if p.strip()]
    if len(pieces) > 1:
        raise RuleError(
            f"the equation field holds {len(pieces)} equations ({text[:80]!r}); the rule handles one"
        )
    text = pieces[0]
    parts = text.split("=")
    notes: list[str] = []
    uncertain: list[str] = []
    consts: list[tuple[str, Fraction, Expr]] = []
    givens: Any = None
    if len(parts) > 2:
        raise RuleError(f"equation {text!r} has more than one '='")
    for part in parts:
        rem = _REMAINDER_RE.match(part)
        if rem:
            raise RuleError(
                f"equation {text!r} states a quotient with a remainder ({rem.group(1)} remainder "
                f"{rem.group(2)}): two numbers, not one value; which of them the question asks "
                f"for is not in the equation", "Remainder answer")
    try:
        stated = _stated_result(parts)
        if len(parts) == 1 or _UNKNOWN_RE.match(parts[0]) or _UNKNOWN_RE.match(parts[1]) or stated:
            if len(parts) == 1:
                expr_text = parts[0].strip()
            elif stated:  # "7+2=9": the computation and the result it states
                expr_text = parts[1 - stated[0]].strip()
            elif _UNKNOWN_RE.match(parts[0]):
                expr_text = parts[1].strip()
            else:
                expr_text = parts[0].strip()
            expr = parse_expression(expr_text)
            value = evaluate(expr)
            if stated and value != stated[1]:
                raise RuleError(f"equation {text!r} is false: {expr_text} is {fmt(value)}, not {fmt(stated[1])}")
            if question is not None:
                (expr,), consts, uncertain, givens = _bind([expr], question)
            sexpr = expr_to_sexpr(expr)
            step = RuleStep("answer", expr_text, value, sexpr, [], expr)
            smtlib = build_smtlib([step], [expr], "answer", consts)
        else:
            left = parse_expression(parts[0], names=True)
            right = parse_expression(parts[1], names=True)
            unknowns = sorted(set(expr_names(left)) | set(expr_names(right)))
            if len(unknowns) != 1:
                raise RuleError(
                    f"equation {text!r} has {len(unknowns)} unknowns ({', '.join(unknowns) or 'none'}); "
                    "the rule needs exactly one"
                )
            unknown = unknowns[0]
            la, lb = _linear_form(left, unknown)
            ra, rb = _linear_form(right, unknown)
            if la == ra:
                raise RuleError(f"equation {text!r} does not determine {unknown} (coefficient 0)")
            value = (rb - lb) / (la - ra)
            if question is not None:
                (left, right), consts, uncertain, givens = _bind([left, right], question)
            renamed = {unknown: Name("answer")}

            def rename(e: Expr) -> Expr:
                if isinstance(e, Name):
                    return renamed.get(e.name, e)
                if isinstance(e, Neg):
                    return Neg(rename(e.operand))
                if isinstance(e, BinOp):
                    return BinOp(e.op, rename(e.left), rename(e.right))
                return e

            lhs_s = expr_to_sexpr(rename(left))
            rhs_s = expr_to_sexpr(rename(right))
            step = RuleStep("answer", text, value, f"(= {lhs_s} {rhs_s})", [])
            decls = "".join(f"(declare-const {n} Real)\n" for n, _, _ in consts)
            defs = "".join(f"(assert (= {n} {expr_to_sexpr(t)}))\n" for n, _, t in consts)
            smtlib = (
                f"(set-logic QF_LRA)\n{decls}(declare-const answer Real)\n{defs}"
                f"(assert (= {lhs_s} {rhs_s}))\n(check-sat)\n(get-value (answer))\n"
            )
            notes.append(f"linear equation in {unknown}: solved as answer = {fmt(value)}")
    except ExpressionError as exc:
        raise RuleError(f"equation {text!r} is not arithmetic: {exc}", "Equation not arithmetic") from exc
    if gold is not None and value != gold:
        notes.append(f"the equation evaluates to {fmt(value)}, not the gold {fmt(gold)}")
    result = RuleResult(smtlib, [step], "answer", value, "equation", notes, uncertain=uncertain)
    if question is not None:
        result.givens, result.factors = _records(consts, givens, question)
        result.bound = not uncertain
    return result
