"""The binding check is asked twice of one formalization: by the rules before they accept it
(givens as numbers) and by the make-time audit (read back from its SMT-LIB, a percent as a
quotient, with an answer line). The second answer is the first, kept; a formalization that
differs in what the check reads gets its own."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.check import bindings
from qcstation.core.construct.check.bindings import binding_problems
from qcstation.core.construct.make.rules import BinOp, Name, Num, evaluate, rule_for_seed
from qcstation.core.construct.check.selfcheck import _smt_definitions
from tests.must import must


def _rule_defs(rule) -> tuple[dict, dict]:
    """The definitions as the rules' own check builds them (rules.dispatch.check_independently)."""
    defs = {str(g["name"]): Num(Fraction(str(g["value"]))) for g in [*rule.givens, *(rule.factors or [])]}
    values = {n: e.value for n, e in defs.items()}
    for st in rule.steps:
        defs[st.name] = st.expr
        values[st.name] = evaluate(st.expr, values)
    return defs, values


@pytest.mark.parametrize("orig_id", ["1", "3", "4", "8", "24", "26"])
def test_the_audit_gets_the_rules_answer_for_the_same_formalization(gsm8k: dict, orig_id: str) -> None:
    seed = gsm8k[orig_id]
    rule = rule_for_seed(seed)
    q, s = seed["question"], seed["solution"]
    rule_defs, rule_values = _rule_defs(rule)
    smt_defs, smt_values, _ = must(_smt_definitions(rule.smtlib))
    assert smt_defs != rule_defs  # read back: numbers with their text, an answer line
    bindings._BINDINGS.clear()
    first = binding_problems(rule_defs, rule_values, q, s)
    second = binding_problems(smt_defs, smt_values, q, s)
    assert len(bindings._BINDINGS) == 1  # one formalization, checked once
    assert second == first == bindings._binding_problems(smt_defs, smt_values, q, s)


def test_a_problem_found_by_the_rules_is_the_audits_too() -> None:
    question = "Ann has one dog and 1 cat. Bob has 2 fish. How many pets do Ann's cat and Bob's fish make?"
    solution = "1 + 2 = <<1+2=3>>3"
    rule_defs = {"g1": Num(Fraction(1)), "g2": Num(Fraction(2)), "s1": BinOp("+", Name("g1"), Name("g2"))}
    rule_values = {"g1": Fraction(1), "g2": Fraction(2), "s1": Fraction(3)}
    smt_defs, smt_values, _ = must(_smt_definitions(
        "(declare-const g1 Real)\n(declare-const g2 Real)\n(declare-const s1 Real)\n(declare-const answer Real)\n"
        "(assert (= g1 1))\n(assert (= g2 (/ 4 2)))\n(assert (= s1 (+ g1 g2)))\n(assert (= answer s1))\n"
        "(check-sat)\n(get-value (answer))"))
    bindings._BINDINGS.clear()
    first = binding_problems(rule_defs, rule_values, question, solution)
    second = binding_problems(smt_defs, smt_values, question, solution)
    assert [p.value for p in first] == [Fraction(1)]
    assert len(bindings._BINDINGS) == 1
    assert second == first == bindings._binding_problems(smt_defs, smt_values, question, solution)


def test_a_formalization_that_differs_in_what_the_check_reads_is_checked_again() -> None:
    question = "Ann has one dog and 1 cat. Bob has 2 fish. How many pets do Ann's cat and Bob's fish make?"
    solution = "1 + 2 = <<1+2=3>>3"
    defs = {"g1": Num(Fraction(1)), "g2": Num(Fraction(2)), "s1": BinOp("+", Name("g1"), Name("g2"))}
    values = {"g1": Fraction(1), "g2": Fraction(2), "s1": Fraction(3)}
    bindings._BINDINGS.clear()
    assert [p.value for p in binding_problems(defs, values, question, solution)] == [Fraction(1)]
    # the same steps computing another value: no line of the solution computes it, nothing to check
    assert binding_problems(defs, {**values, "s1": Fraction(4)}, question, solution) == []
    # an answer that names the given itself is read by the checks (kept apart from one without it)
    named = {**defs, "answer": Name("g1")}
    assert binding_problems(named, {**values, "answer": Fraction(1)}, question, solution) \
        == bindings._binding_problems(named, {**values, "answer": Fraction(1)}, question, solution)
    assert len(bindings._BINDINGS) == 3
    # a term of another kind is checked without the memo
    odd = {**defs, "s2": ("not", "a term")}
    assert binding_problems(odd, values, question, solution) == bindings._binding_problems(odd, values, question, solution)
    assert len(bindings._BINDINGS) == 3
