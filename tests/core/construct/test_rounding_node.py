"""The rounding node of the expression language (issue 26.1): evaluated exactly as Z3 computes its
SMT-LIB, never read from text, walked by the atoms walk, and stated in words by the notation
question, which reads those words back to the same node."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.notation import NotationError, notation_to_smtlib, parse_notation_text, render_notation
from qcstation.core.reading.expr import (ROUNDINGS, Call, ExpressionError, Name, Num, atoms, evaluate,
                                         expr_names, expr_to_sexpr, parse_expression, rounded)
from qcstation.core.verify.solve import verify_in_process

def _z3_value(smtlib: str) -> Fraction:
    out = verify_in_process(smtlib)
    assert out.status == "verified" and out.value is not None, (out.status, out.message, smtlib)
    return out.value


@pytest.mark.parametrize("fn", ROUNDINGS)
@pytest.mark.parametrize("x", [Fraction(-7, 2), Fraction(-5, 4), Fraction(0), Fraction(5, 4), Fraction(5, 2),
                               Fraction(27, 4), Fraction(3), Fraction(-3)])
def test_a_rounding_evaluates_as_z3_computes_its_smtlib(fn: str, x: Fraction) -> None:
    expr = Call(fn, Name("x"))
    value = evaluate(expr, {"x": x})
    assert value == rounded(fn, x) and value.denominator == 1
    assert value - 1 < x <= value if fn == "ceil" else True
    assert value <= x < value + 1 if fn == "floor" else True
    smt = ("(set-logic QF_LIRA)\n(declare-const x Real)\n(declare-const answer Real)\n"
           f"(assert (= x {expr_to_sexpr(Num(abs(x)))}))\n" if x >= 0 else
           "(set-logic QF_LIRA)\n(declare-const x Real)\n(declare-const answer Real)\n"
           f"(assert (= x (- {expr_to_sexpr(Num(-x))})))\n")
    smt += f"(assert (= answer {expr_to_sexpr(expr)}))\n(check-sat)\n(get-value (answer))\n"
    assert _z3_value(smt) == value


def test_the_parser_never_reads_a_rounding_from_text() -> None:
    # "ceil(x)" is no function call in untrusted text: it is a product of two names, and without
    # names it is refused; only a rule builds a Call
    assert not isinstance(parse_expression("ceil(x)", names=True), Call)
    with pytest.raises(ExpressionError):
        parse_expression("ceil(2.5)")


def test_the_walks_see_inside_a_rounding() -> None:
    expr = Call("ceil", parse_expression("a / b", names=True))
    assert expr_names(expr) == ["a", "b"]
    assert [a.name for a in atoms(expr) if isinstance(a, Name)] == ["a", "b"]
    assert evaluate(expr, {"a": Fraction(50), "b": Fraction(12)}) == 5




@pytest.mark.parametrize(("sexpr", "fn", "words"), [
    ("(- (to_int (- s1)))", "ceil", "answer = the least whole number at least s1."),
    ("(to_int s1)", "floor", "answer = the greatest whole number at most s1."),
    ("(to_int (+ s1 (/ 1 2)))", "round", "answer = s1 rounded to the nearest whole number (ties round up)."),
])
def test_a_notation_question_states_a_rounding_in_words(sexpr: str, fn: str, words: str) -> None:
    smt = ("(set-logic QF_NIRA)\n(declare-const p Real)\n(declare-const q Real)\n(declare-const s1 Real)\n"
           "(declare-const answer Real)\n(assert (= p 27))\n(assert (= q 4))\n(assert (= s1 (/ p q)))\n"
           f"(assert (= answer {sexpr}))\n(check-sat)\n(get-value (answer))\n")
    gold = rounded(fn, Fraction(27, 4))
    assert _z3_value(smt) == gold
    notation = render_notation(smt)
    assert notation.text == f"Let a = 27 and b = 4. Let s1 = a ÷ b and {words} What is the value of answer?"
    assert notation.value == gold
    assert parse_notation_text(notation.text).definitions[-1][1] == Call(fn, Name("s1"))
    assert _z3_value(notation_to_smtlib(notation)) == gold


def test_a_to_int_of_another_form_is_a_floor_and_one_with_two_arguments_is_refused() -> None:
    base = ("(set-logic QF_NIRA)\n(declare-const p Real)\n(declare-const answer Real)\n(assert (= p (/ 7 2)))\n"
            "(assert (= answer {}))\n(check-sat)\n(get-value (answer))\n")
    assert render_notation(base.format("(to_int (* p 3))")).value == 10
    with pytest.raises(NotationError, match="one argument"):
        render_notation(base.format("(to_int p p)"))
