"""Exact rule-based SMT-LIB formalizations, checked with real Z3 and the real GSM8K test set."""

from __future__ import annotations

import json
from typing import Any
from fractions import Fraction

import pytest
import z3

from qcstation.core.reading.answers import fraction_to_str, parse_number
from qcstation.core.construct.make.rules import (
    ANNOTATION_RE,
    BinOp,
    ExpressionError,
    Name,
    Neg,
    Num,
    RuleError,
    evaluate,
    expr_to_sexpr,
    find_inline_computations,
    fraction_to_smt,
    parse_expression,
    rule_for_seed,
    smt_from_calculator_annotations,
    smt_from_equation,
)
from qcstation.core.verify.smtlib import parse_script
from qcstation.common.errors import GenerationError
from tests.conftest import dataset

ALLOWED = {"set-logic", "declare-const", "define-fun", "assert", "check-sat", "get-value"}

JANET = (
    "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\n"
    "She makes 9 * 2 = $<<9*2=18>>18 every day at the farmer’s market.\n#### 18"
)


def z3_answer(smtlib: str) -> Fraction:
    solver = z3.Solver()
    solver.from_string(smtlib)
    assert solver.check() == z3.sat
    value = solver.model()[z3.Real("answer")]
    assert value is not None, "answer has no value in the model"
    return Fraction(value.numerator_as_long(), value.denominator_as_long())


def commands(smtlib: str) -> set[str]:
    return {c.name for c in parse_script(smtlib).commands}


# --------------------------------------------------------------------------- parser


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("16-3-4", Fraction(9)),
        ("2+3*4", Fraction(14)),
        ("(2+3)*4", Fraction(20)),
        ("10/4", Fraction(5, 2)),
        ("80,000*1.5", Fraction(120000)),
        (".25*8", Fraction(2)),
        ("-3+5", Fraction(2)),
        ("-(3+5)*2", Fraction(-16)),
        ("2**3", Fraction(8)),
        ("2^3^2", Fraction(512)),  # right associative
        ("2^-2", Fraction(1, 4)),
        ("5^0", Fraction(1)),
        ("50%*80", Fraction(40)),
        ("2(60)", Fraction(120)),
        ("50(.50)", Fraction(25)),
        ("12 × 3 ÷ 4 − 1", Fraction(8)),
        ("100-20-30", Fraction(50)),  # left associative
        ("100/10/2", Fraction(5)),
    ],
)
def test_parser_evaluates_exactly(text: str, value: Fraction) -> None:
    assert evaluate(parse_expression(text)) == value


@pytest.mark.parametrize(
    "text",
    ["", "5*x", "__import__('os').system('true')", "2**100", "2^0.5", "3+", "(3+4", "3+4)", "1 2", "3 $ 4"],
)
def test_parser_rejects_non_arithmetic(text: str) -> None:
    with pytest.raises(ExpressionError):
        evaluate(parse_expression(text))


def test_names_only_when_allowed_and_division_by_zero() -> None:
    expr = parse_expression("2x + 60", names=True)
    assert evaluate(expr, {"x": Fraction(20)}) == 100
    with pytest.raises(ExpressionError, match="unknown name"):
        evaluate(expr)
    with pytest.raises(ExpressionError, match="division by zero"):
        evaluate(parse_expression("5/(3-3)"))


def test_smt_literals_are_exact() -> None:
    assert fraction_to_smt(Fraction(16)) == "16"
    assert fraction_to_smt(Fraction(-5)) == "(- 5)"
    assert fraction_to_smt(Fraction(3, 2)) == "(/ 3 2)"
    assert fraction_to_smt(Fraction(-3, 2)) == "(- (/ 3 2))"
    # left-associative chains flatten; a right-nested one keeps its structure
    assert expr_to_sexpr(parse_expression("16-3-4")) == "(- 16 3 4)"
    assert expr_to_sexpr(parse_expression("16-(3-4)")) == "(- 16 (- 3 4))"
    assert expr_to_sexpr(parse_expression("1.5*x", names=True)) == "(* (/ 3 2) x)"
    assert expr_to_sexpr(Neg(Name("x"))) == "(- x)"
    assert expr_to_sexpr(BinOp("+", Num(Fraction(1), "1"), Neg(Num(Fraction(5), "5")))) == "(+ 1 (- 5))"


# --------------------------------------------------------------------------- calculator rule


def test_janet_becomes_a_dependency_chain() -> None:
    res = smt_from_calculator_annotations(JANET)
    assert res.rule == "gsm8k-calculator"
    assert res.value == 18
    assert [s.expr_text for s in res.steps] == ["16-3-4", "9*2"]
    first, second = res.steps
    assert first.result == 9 and first.refs == []
    assert second.refs == [first.name], "the 9 in 9*2 must reference the first step"
    assert first.name in second.sexpr and "9" not in second.sexpr
    assert first.name.startswith("s1") and second.name.startswith("s2")
    assert res.answer_step == second.name
    assert commands(res.smtlib) <= ALLOWED
    assert "(declare-const answer Real)" in res.smtlib
    assert z3_answer(res.smtlib) == 18
    # deterministic
    assert smt_from_calculator_annotations(JANET).smtlib == res.smtlib


def test_step_names_are_valid_smt_symbols_and_readable() -> None:
    res = smt_from_calculator_annotations(JANET)
    for step in res.steps:
        assert step.name.replace("_", "").isalnum() and step.name[0].isalpha()
    assert "duck" in res.steps[0].name


def test_answer_is_the_last_step_equal_to_gold_and_unused_steps_are_dropped() -> None:
    sol = "A: 2+3=<<2+3=5>>5\nB: 5*4=<<5*4=20>>20\nC: 7+1=<<7+1=8>>8 extra\n#### 20"
    res = smt_from_calculator_annotations(sol)
    assert res.value == 20
    assert res.answer_step.startswith("s2")
    assert [s.expr_text for s in res.steps] == ["2+3", "5*4"]
    assert any("left out" in n and "s3" in n for n in res.notes)
    assert z3_answer(res.smtlib) == 20
    # an explicit gold overrides the #### line
    res8 = smt_from_calculator_annotations(sol, Fraction(8))
    assert res8.value == 8 and z3_answer(res8.smtlib) == 8


def test_wrong_annotation_arithmetic_is_noted_and_the_computed_value_used() -> None:
    sol = "He has 5*3=<<5*3=16>>16 apples.\nThen 16+2=<<16+2=18>>18 in all.\n#### 18"
    res = smt_from_calculator_annotations(sol)
    assert any("evaluates to 15" in n for n in res.notes)
    assert any("is 17 in the chain" in n for n in res.notes)
    # the chain uses the computed 15, so the formalization gives 17: the verifier will see the mismatch
    assert z3_answer(res.smtlib) == 17
    assert res.value == 17


def test_rule_errors_say_why() -> None:
    with pytest.raises(RuleError, match="no calculator annotations"):
        smt_from_calculator_annotations("She has some apples.\n#### 4")
    with pytest.raises(RuleError, match=r"annotation 2 '<<5\*x=10>>' is not arithmetic"):
        smt_from_calculator_annotations("a 2+2=<<2+2=4>>4\nb <<5*x=10>>10\n#### 10")
    with pytest.raises(RuleError, match="final answer 99 is not produced by any step"):
        smt_from_calculator_annotations(JANET.replace("#### 18", "#### 99"))
    with pytest.raises(RuleError, match="bare number"):
        smt_from_calculator_annotations("x is <<8=8>>8\n#### 8")
    assert issubclass(RuleError, GenerationError)


def test_bare_annotation_uses_the_computation_written_before_it() -> None:
    sol = "He needs 7.5 / .5 = <<15=15>>15 toys.\n#### 15"
    res = smt_from_calculator_annotations(sol)
    assert res.steps[0].expr_text == "7.5 / .5"
    assert res.steps[0].sexpr == "(/ (/ 15 2) (/ 1 2))"
    assert z3_answer(res.smtlib) == 15


def test_unannotated_computations_in_the_text_are_steps_too() -> None:
    sol = (
        "The total is 10 + 21 + 23 = <<10+21+23=54>>54.\n"
        "Given away 9 + 28 = <<9+28=37>>37.\n"
        "Charlie has 54 − 37 = 17 stickers left.\n#### 17"
    )
    res = smt_from_calculator_annotations(sol)
    assert res.value == 17 and len(res.steps) == 3
    assert set(res.steps[2].refs) == {res.steps[0].name, res.steps[1].name}
    assert any("unannotated" in n for n in res.notes)
    assert z3_answer(res.smtlib) == 17
    with pytest.raises(RuleError, match="not produced"):
        smt_from_calculator_annotations(sol, inline=False)


def test_inline_arithmetic_without_annotations() -> None:
    sol = "Seven times 70 is 7*70 = 490 loaves.\nThe bakery has 490-40 = 450 loaves.\n#### 450"
    res = smt_from_calculator_annotations(sol)
    assert res.rule == "inline-arithmetic"
    assert z3_answer(res.smtlib) == 450


def test_inline_finder_reads_units_percent_and_checks_arithmetic() -> None:
    found = find_inline_computations("Jill makes $20/hour * 35 hours/week = $700/week and 12/20 x 100% = 60%.")
    assert [(c.expr_text, c.value) for c in found] == [("$20/hour * 35 hours/week", Fraction(700)),
                                                         ("12/20 x 100%", Fraction(60))]
    pct = find_inline_computations("The chance is 50% * 50% = 25%.")
    assert pct[0].value == 25
    # wrong arithmetic in the text is not a computation
    assert find_inline_computations("so 4/5 = 240 grams") == []


# --------------------------------------------------------------------------- equation rule


@pytest.mark.parametrize(
    ("equation", "value"),
    [
        ("x = (70 - 27)", Fraction(43)),
        ("X=((45.0*3.0))", Fraction(135)),
        ("(70 - 27)", Fraction(43)),
        ("(70 - 27) = x", Fraction(43)),
        ("x + 27 = 70", Fraction(43)),
        ("0.5*x = 3", Fraction(6)),
        ("2x+60=100", Fraction(20)),
        ("x = 10 / 4", Fraction(5, 2)),
        ("x=-5+2", Fraction(-3)),
        ("7+2=9", Fraction(9)),  # ASDiv's Formula: a computation with the result it states
        ("27 = (7+2)*3", Fraction(27)),
        ("1,200/4=300", Fraction(300)),
    ],
)
def test_equation_rule(equation: str, value: Fraction) -> None:
    res = smt_from_equation(equation)
    assert res.rule == "equation" and res.value == value
    assert commands(res.smtlib) <= ALLOWED
    assert z3_answer(res.smtlib) == value


def test_equation_rule_errors() -> None:
    with pytest.raises(RuleError, match="2 unknowns"):
        smt_from_equation("x + y = 10")
    with pytest.raises(RuleError, match="not linear"):
        smt_from_equation("x*x = 16")
    with pytest.raises(RuleError, match="2 equations"):
        smt_from_equation("x = 5; y = x + 1")
    with pytest.raises(RuleError, match="does not determine"):
        smt_from_equation("x + 1 = x + 2")
    with pytest.raises(RuleError, match="not arithmetic"):
        smt_from_equation("x = 5 apples")
    with pytest.raises(RuleError, match="'7\\+2=10' is false: 7\\+2 is 9, not 10"):
        smt_from_equation("7+2=10")
    noted = smt_from_equation("x = 70 - 27", Fraction(44))
    assert any("not the gold 44" in n for n in noted.notes)


# --------------------------------------------------------------------------- dispatch


def test_rule_for_seed_dispatch() -> None:
    janet_q = ("Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and "
               "bakes muffins for her friends every day with four. She sells the remainder at the "
               "farmers' market daily for $2 per fresh duck egg. How much in dollars does she make "
               "every day at the farmers' market?")
    raw = {"question": janet_q, "answer": JANET}
    assert rule_for_seed(raw).value == 18
    db_row = {"source": "gsm8k", "question": janet_q, "solution": JANET.rsplit("####", 1)[0].strip(), "answer_text": "18",
              "answer_value": "18", "equation": "16-3-4=9; 9*2=18"}
    assert rule_for_seed(db_row).rule == "gsm8k-calculator"
    # the equation's numbers are the question's (issue 26.6: each a given tied to its words)
    mawps = {"question": "Sam had 70 marbles. He gave 27 marbles to Ann. How many marbles does he have now?",
             "answer_text": "43", "equation": "x = (70 - 27)"}
    res = rule_for_seed(mawps)
    assert res.rule == "equation" and z3_answer(res.smtlib) == 43
    lequations = {"question": "A box holds 45 pens. How many pens are in 3 boxes?", "target": 135.0,
                  "lEquations": ["X=((45.0*3.0))"]}
    assert rule_for_seed(lequations).value == 135
    with pytest.raises(RuleError, match="no rule applies: no calculator annotations and no equation field"):
        rule_for_seed({"question": "q", "answer_text": "3", "solution": "It is three."})
    # a worked solution with no computation to read falls back to the equation field ...
    rescue = {"question": "Ann has 3 apples and buys 4 apples. How many apples does she have?",
              "solution": "She has 7.\n#### 7", "answer_text": "7", "equation": "x = 3 + 4"}
    assert rule_for_seed(rescue).rule == "equation"
    with pytest.raises(RuleError, match="calculator rule: .*equation rule: "):
        rule_for_seed({"solution": "She has 7.\n#### 7", "answer_text": "7", "equation": "x = 3 + 5 +"})
    # ... one whose computations were read and refused stays refused with its reason
    with pytest.raises(RuleError, match="^final answer 7 is not produced"):
        rule_for_seed({**rescue, "solution": "a 2+2=<<2+2=4>>4"})


# --------------------------------------------------------------------------- the real GSM8K test set


def test_gsm8k_test_coverage_with_real_z3() -> None:
    rows = [json.loads(line) for line in dataset("gsm8k/test.jsonl").read_text().splitlines()]
    assert len(rows) == 1319
    produced = 0
    no_annotations = 0
    for row in rows:
        solution, _, final = row["answer"].rpartition("####")
        gold = parse_number(final.strip())
        assert gold is not None
        if not ANNOTATION_RE.search(solution):
            no_annotations += 1
        seed = {"source": "gsm8k", "solution": solution.strip(), "answer_text": final.strip(),
                "answer_value": fraction_to_str(gold.value)}
        try:
            res = rule_for_seed(seed)
        except RuleError as exc:
            assert str(exc)  # a plain reason
            continue
        assert commands(res.smtlib) <= ALLOWED
        value = z3_answer(res.smtlib)
        assert value == res.value == gold.value, (row["answer"], res.smtlib)
        produced += 1
    assert no_annotations == 18
    # 1265 of 1319 (95.9%) at the time of writing; keep a margin for wording changes
    assert produced / len(rows) >= 0.95, produced


def test_evaluate_on_pairs_equals_fraction_arithmetic() -> None:
    """``evaluate`` works on (numerator, denominator) pairs: on random terms it gives what the
    node-by-node ``Fraction`` arithmetic gives, the same value, type and error (a name whose
    value is no ``Fraction`` is evaluated the plain way: 3 // 2 is no value, as before)."""
    import random

    from qcstation.core.reading.expr import MAX_VALUE_BITS, BinOp, Name, Neg, Num, bounded

    def plain(e: object, env: dict[str, object] | None) -> object:
        if isinstance(e, Num):
            return e.value
        if isinstance(e, Name):
            if env is None or e.name not in env:
                raise ExpressionError(f"unknown name {e.name!r}")
            return env[e.name]
        if isinstance(e, Neg):
            return -plain(e.operand, env)  # type: ignore[operator]
        assert isinstance(e, BinOp)
        a, b = plain(e.left, env), plain(e.right, env)
        if e.op == "+":
            return bounded(a + b)  # type: ignore[operator]
        if e.op == "-":
            return bounded(a - b)  # type: ignore[operator]
        if e.op == "*":
            return bounded(a * b)  # type: ignore[operator]
        if b == 0:
            raise ExpressionError("division by zero")
        return bounded(a / b)  # type: ignore[operator]

    rnd = random.Random(7)

    def term(depth: int) -> Any:
        r = rnd.random()
        if depth > 5 or r < 0.3:
            k = rnd.random()
            if k < 0.4:
                return Num(Fraction(rnd.randint(-5, 20), rnd.choice([1, 1, 2, 3, 100])), "")
            if k < 0.5:
                return Num(Fraction(rnd.choice([0, 2 ** (MAX_VALUE_BITS // 2 + 100), 3])), "")
            return Name(rnd.choice("abcdz"))
        if r < 0.38:
            return Neg(term(depth + 1))
        return BinOp(rnd.choice("+-*/"), term(depth + 1), term(depth + 1))

    def outcome(fn: object, e: object, env: object) -> tuple[object, ...]:
        try:
            v = fn(e, env)  # type: ignore[operator]
        except Exception as exc:
            return ("error", type(exc), str(exc))
        return (type(v), v)

    errors = 0
    for _ in range(20_000):
        e = term(0)
        env: dict[str, object] | None = {k: Fraction(rnd.randint(-9, 9), rnd.randint(1, 4)) for k in "abcd"}
        if rnd.random() < 0.05:
            env["a"] = 3  # type: ignore[index]
        if rnd.random() < 0.02:
            env = None
        want = outcome(plain, e, env)
        assert outcome(evaluate, e, env) == want
        errors += want[0] == "error"
    assert 2_000 < errors < 18_000   # both outcomes compared many times
