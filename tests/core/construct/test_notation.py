"""Notation-only questions rendered from SMT-LIB, checked back with real Z3."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
import z3

from qcstation.core.construct.make.notation import (
    NotationError,
    NotationQuestion,
    format_number,
    notation_to_smtlib,
    parse_notation_text,
    render_infix,
    render_notation,
)
from qcstation.core.construct.check.notation_rephrasing import check_rephrasing
from qcstation.core.construct.make.rules import RuleError, parse_expression, smt_from_calculator_annotations
from qcstation.common.errors import GenerationError

JANET = (
    "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\n"
    "She makes 9 * 2 = $<<9*2=18>>18 every day at the farmer’s market.\n#### 18"
)

MODEL_STYLE = """
; a formalization as a model might write it
(set-logic QF_NIA)
(declare-const eggs_per_day Int)
(declare-const eaten Int)
(declare-const baked Int)
(declare-const price Int)
(declare-const remaining Int)
(declare-const answer Int)
(assert (= eggs_per_day 16))
(assert (= 3 eaten))
(define-fun muffins () Int 4)
(assert (and (= baked muffins) (= price 2)))
(assert (= remaining (- eggs_per_day eaten baked)))
(assert (>= remaining 0))
(assert (= answer (* remaining price)))
(check-sat)
(get-value (answer))
"""


def z3_value(smtlib: str) -> Fraction:
    solver = z3.Solver()
    solver.from_string(smtlib)
    assert solver.check() == z3.sat
    model = solver.model()
    value = model.eval(z3.Real("answer")) if model[z3.Real("answer")] is not None else model.eval(z3.Int("answer"))
    if z3.is_int_value(value):
        return Fraction(value.as_long())
    return Fraction(value.numerator_as_long(), value.denominator_as_long())


def test_janet_renders_as_in_the_brief() -> None:
    q = render_notation(smt_from_calculator_annotations(JANET).smtlib)
    assert q.text == (
        "Let a = 16, b = 3, c = 4 and d = 2. Let s1 = a − b − c and answer = s1 × d. "
        "What is the value of answer?"
    )
    assert q.variables == {"a": 16, "b": 3, "c": 4, "d": 2}
    assert q.target == "answer"
    assert q.value == 18
    assert z3_value(notation_to_smtlib(q)) == 18


def test_model_style_smtlib_no_story_names_leak() -> None:
    q = render_notation(MODEL_STYLE)
    assert q.value == 18
    for story in ("eggs", "eaten", "baked", "price", "remaining", "muffins"):
        assert story not in q.text
    # named givens keep a variable each; the definition order is the dependency order
    assert list(q.variables.values()) == [16, 3, 4, 2]
    assert q.text.endswith("Let s1 = a − b − c and answer = s1 × d. What is the value of answer?")
    assert q.source_names["a"] == "eggs_per_day" and q.source_names["s1"] == "remaining"
    assert q.source_names["c"] == "muffins"  # baked = muffins is an alias of the define-fun
    assert z3_value(notation_to_smtlib(q)) == z3_value(MODEL_STYLE) == 18


def test_rendering_is_deterministic_bytes() -> None:
    smt = smt_from_calculator_annotations(JANET).smtlib
    assert render_notation(smt).text.encode() == render_notation(smt).text.encode()
    assert render_notation(MODEL_STYLE).text == render_notation(MODEL_STYLE).text


def test_repeated_number_in_one_step_is_two_givens_but_reused_across_steps() -> None:
    sol = "He sprints 3*3=<<3*3=9>>9 times.\nHe runs 9*60=<<9*60=540>>540 m.\nPlus 3+540=<<3+540=543>>543\n#### 543"
    q = render_notation(smt_from_calculator_annotations(sol).smtlib)
    assert q.text.startswith("Let a = 3, b = 3 and c = 60. Let s1 = a × b, s2 = s1 × c and answer = a + s2.")
    assert z3_value(notation_to_smtlib(q)) == 543


def test_fractions_decimals_and_negatives() -> None:
    assert format_number(Fraction(3, 2)) == "1.5"
    assert format_number(Fraction(1, 8)) == "0.125"
    assert format_number(Fraction(1, 3)) == "1/3"
    assert format_number(Fraction(-5)) == "−5"
    assert format_number(Fraction(-7, 3)) == "−7/3"
    smt = """(declare-const answer Real)
(assert (= answer (+ (* (/ 1 3) 9) (- 5) (* 0.25 8))))
(check-sat)"""
    q = render_notation(smt)
    assert q.variables == {"a": Fraction(1, 3), "b": 9, "c": -5, "d": Fraction(1, 4), "f": 8}
    assert "a = 1/3" in q.text and "c = −5" in q.text and "d = 0.25" in q.text
    assert q.value == 0
    assert z3_value(notation_to_smtlib(q)) == z3_value(smt) == 0


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("a-(b-c)", "a − (b − c)"),
        ("(a+b)*c", "(a + b) × c"),
        ("a/b*c", "a ÷ b × c"),
        ("a*(b/c)", "a × (b ÷ c)"),
        ("(-a)*b", "(−a) × b"),
        ("-(a+b)", "−(a + b)"),
        ("a-b-c", "a − b − c"),
        ("a+(b+c)", "a + (b + c)"),
    ],
)
def test_infix_uses_only_needed_parentheses_and_round_trips(text: str, rendered: str) -> None:
    tree = parse_expression(text, names=True)
    assert render_infix(tree) == rendered
    assert parse_expression(rendered, names=True) == tree


def test_notation_to_smtlib_reads_the_text_itself() -> None:
    q = render_notation(smt_from_calculator_annotations(JANET).smtlib)
    tampered = NotationQuestion(q.text.replace("s1 × d", "s1 + d"), q.variables, q.target, q.definitions)
    assert z3_value(notation_to_smtlib(tampered)) == 11
    with pytest.raises(NotationError):
        notation_to_smtlib(NotationQuestion("What is 2 + 2?", {}, "answer"))


@pytest.mark.parametrize(
    ("smt", "reason"),
    [
        ("(declare-const x Real)(declare-const answer Real)(assert (> x 3))(assert (= answer (* x 2)))",
         "not defined"),
        ("(declare-const answer Real)(assert (= (* answer answer) 16))", "not defined"),
        ("(declare-const answer Int)(assert (= answer (mod 17 5)))", "operator 'mod'"),
        ("(declare-const answer Real)(assert (= answer 42))", "nothing to compute"),
        ("(declare-const answer Bool)(assert answer)", "sort Bool"),
        ("(declare-const x Real)(declare-const answer Real)(assert (= x (+ answer 1)))(assert (= answer (- x 1)))",
         "depends on itself"),
        ("(declare-const answer Int)(assert (= answer (/ 7 2)))", "is an Int"),
        ("(declare-const x Real)(declare-const answer Real)(assert (= x 5))(assert (= answer (* x 2)))"
         "(assert (> answer 100))", "does not hold"),
        ("(declare-const answer Real)(assert (= answer (+ 1 2)", "cannot be read"),
        ("(declare-const y Real)(assert (= y (+ 1 2)))", "no target"),
    ],
)
def test_unrenderable_smtlib_raises_a_clear_error(smt: str, reason: str) -> None:
    with pytest.raises(NotationError, match=re.escape(reason)):
        render_notation(smt)
    assert issubclass(NotationError, GenerationError)


def test_alias_target_and_redundant_bounds() -> None:
    smt = """(declare-const total Real)(declare-const extra Real)(declare-const answer Real)
(assert (= total (+ 10 5)))(assert (= extra total))(assert (= answer extra))
(assert (<= 0 answer))(assert (distinct answer 0))
(check-sat)(get-value (answer))"""
    q = render_notation(smt)
    assert q.text == "Let a = 10 and b = 5. Let answer = a + b. What is the value of answer?"
    assert z3_value(notation_to_smtlib(q)) == 15


def test_check_rephrasing() -> None:
    q = render_notation(smt_from_calculator_annotations(JANET).smtlib)
    assert check_rephrasing(q, q.text) == []
    free_form = ("Given a = 16, b = 3, c = 4 and d = 2, define s1 = a − b − c. "
                 "Compute answer = s1 × d. What is answer?")
    assert check_rephrasing(q, free_form) == []
    # the pipeline rebuilds the question from stored text only
    bare = NotationQuestion(q.text, dict(q.variables), q.target)
    assert check_rephrasing(bare, free_form) == []

    missing = check_rephrasing(q, free_form.replace("c = 4 and ", ""))
    assert any("4 (c) is missing" in p for p in missing)
    new = check_rephrasing(q, free_form.replace("d = 2", "d = 2, e = 7"))
    assert any("new number" in p and "7" in p for p in new)
    story = check_rephrasing(q, "Janet has a = 16 eggs, b = 3, c = 4 and d = 2. s1 = a − b − c. "
                                "What is answer = s1 × d dollars?")
    assert any("Janet" in p and "eggs" in p and "dollars" in p for p in story)
    words = check_rephrasing(q, free_form.replace("d = 2", "d = two"))
    assert any("number word" in p and "two" in p for p in words)
    no_target = check_rephrasing(q, free_form.replace("answer", "result"))
    assert any("target 'answer'" in p for p in no_target)
    changed = check_rephrasing(q, q.text.replace("s1 × d", "s1 + d"))
    assert any("evaluates to 11, not 18" in p for p in changed)
    assert check_rephrasing(q, "  ") == ["the rephrased question is empty"]


def test_every_gsm8k_rule_result_renders_and_evaluates_to_the_same_value(gsm8k: dict, gsm8k_readings) -> None:
    rendered = 0
    for sid in gsm8k:
        try:
            rule = gsm8k_readings.rule(sid)
        except RuleError:
            continue
        q = render_notation(rule.smtlib)
        assert not re.search(r"s\d+_", q.text), "a descriptive SMT name leaked into the question"
        assert parse_notation_text(q.text).definitions == q.definitions
        assert z3_value(notation_to_smtlib(q)) == rule.value, q.text
        assert check_rephrasing(q, q.text) == []
        rendered += 1
    # ambiguous solutions (a number that could be a given or an earlier result), givens whose
    # words do not agree with their step and hard-coded literals go to a model: 660 of 1,319
    # are rule-made (issue 14: a faithful refusal is better than a wrong reference)
    assert rendered >= 600, rendered


def test_a_notation_questions_unreadable_character_is_named_once() -> None:
    """The notation reader names what it cannot read in the one visible form, escaped once:
    a backslash as itself, a zero-width space as \\u200b (not repr's doubled backslash)."""
    from qcstation.core.construct.check.notation_reader import read_notation
    from qcstation.core.construct.make.notation import NotationError

    for text, shown in (("Let a = 3 \\ 4. Find a.", "'\\'"),
                        ("Let a = 3\u200b. Find a.", "'\\u200b'")):
        with pytest.raises(NotationError) as err:
            read_notation(text)
        assert f"cannot read the character {shown}" in str(err.value)
