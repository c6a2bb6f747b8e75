"""An algebra solution whose answer is an expression in its unknown that the solution writes as a
definition, not a computation ("b = 5s - 4", "Lily = B/2 + 7"): the answer is that expression of
the unknown, its numbers bound to their words like the equation's (issue 26 point 1). Only one
such expression may give the gold (two that differ could be a coincidence). Real seeds, real Z3."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.algebra import _defining_expr, smt_from_algebra
from qcstation.core.reading.expr import expr_to_sexpr


@pytest.mark.parametrize("sid, equation, answer, places", [
    # "b = 5s - 4 and s + b = 116 ... s + 5s - 4 = 116 ... s = 20 ... b = 96"
    ("1246", "(= (- (+ x_strawberry_cubes (* g1_times x_strawberry_cubes)) g2) g3_ice)",
     "(= answer (- (* g1_times x_strawberry_cubes) g2))",
     {"g1_times": "5 times the", "g2": "4. If she", "g3_ice": "116 ice"}),
    # "Lily = B/2 + 7 ... B + B + 7 = 43 ... B = 18 ... Lily = 9 + 7 = 16"
    ("501", "(= (+ x_insects_collected x_insects_collected g1) g2_insects)",
     "(= answer (+ (/ x_insects_collected w_half_parts) g1))",
     {"g1": "7 more than", "g2_insects": "43 insects", "w_half_parts": "half of what"}),
])
def test_the_answer_is_the_solutions_expression_in_the_unknown(gsm8k: dict, z3pool, sid: str, equation: str,
                                                               answer: str, places: dict[str, str]) -> None:
    seed = gsm8k[sid]
    rule = rule_for_seed(seed)
    assert rule.rule == "gsm8k-algebra"
    asserts = [line for line in rule.smtlib.splitlines() if line.startswith("(assert")]
    assert f"(assert {equation})" in asserts and f"(assert {answer})" in asserts
    q = seed["question"]
    words = {g["name"]: q[g["span"][0]:g["span"][1] + 12] for g in rule.givens}
    for name, text in places.items():
        assert words[name].startswith(text), (name, words[name])
    assert rule.bound is True and not rule.uncertain
    assert z3pool.verify(rule.smtlib, seed["answer_text"]).ok


def test_two_different_expressions_that_give_the_gold_are_no_answer() -> None:
    eq = "x + 2 = 10"
    text = f"Let x be the apples. {eq}. So x = 8. Ann has 2x - 4 and Bo has x + 4."
    at = text.index(eq)
    assert _defining_expr(text, "x", Fraction(8), Fraction(12), at, at + len(eq)) is None
    one = text.replace("x + 4", "x + 5")
    found = _defining_expr(one, "x", Fraction(8), Fraction(12), at, at + len(eq))
    assert found is not None and expr_to_sexpr(found[0]) == "(- (* 2 x) 4)"
    # the equation's own sides never count, even when they give the gold
    assert _defining_expr(text, "x", Fraction(8), Fraction(10), at, at + len(eq)) is None


def test_a_solution_whose_equation_is_wrong_stays_refused(gsm8k: dict) -> None:
    # 932: "(2x + 10) + (x + 1) + x = 100" (x + 1 for x + 10) gives x = 89/4; the answer 2x + 10 is 50
    # only at the right x, so no expression of the unknown gives the gold
    seed = gsm8k["932"]
    with pytest.raises(RuleError, match="is not the gold 50"):
        smt_from_algebra(seed["solution"], seed["question"], Fraction(seed["answer_text"]))
