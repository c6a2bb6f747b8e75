"""The independent check of a given used as a pure number (issue 26.2, check/purefactor.py).

Each formalization here is built by hand, as a binder that reads an equal value alone would make
it: the check must find the wrong binding from the texts' units on its own (no rule code), and
must say nothing of the right binding or of a rate ("300 miles / 5 hours")."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from qcstation.core.construct.check.purefactor import pure_factor_problems
from qcstation.core.construct.check.selfcheck import HARD_FLAGS, audit_artifact, hard_flags
from qcstation.core.construct.make.rules import RuleError, RuleResult
from qcstation.core.construct.make.rules.dispatch import check_independently
from qcstation.core.construct.make.rules.result import RuleStep
from qcstation.core.reading.expr import BinOp, Expr, Name, Num, evaluate, expr_to_sexpr

#: "half" divides the marbles; the "two" given back is a number of marbles
MARBLES_Q = ("Ivy had 16 marbles. She lent all of them to a friend but the friend lost half of them. "
             "She made the friend hand two back. How many of Ivy's marbles are left?")
MARBLES_S = ("Ivy had 16/2=<<16/2=8>>8 marbles left after the friend lost them.\n"
             "She made the friend hand two back, which left Ivy with 8+2=<<8+2=10>>10 marbles.\n#### 10")
#: "1/5 of the other members" divides; "5 minutes" is a time
CLUB_Q = ("A club has 30 members. 20% of them arrive in under 5 minutes. Twice that number arrive in "
          "under 9 minutes. 1/5 of the other members arrive late. How many members arrive late?")
CLUB_S = ("First find how many arrive in under 5 minutes: 30 members * 20% = <<30*20*.01=6>>6 members\n"
          "Then double it: 6 members * 2 = <<6*2=12>>12 members\n"
          "Then the others: 30 members - 6 members - 12 members = <<30-6-12=12>>12 members\n"
          "Then divide that number by 5: 12 members / 5 = <<12/5=2.4>>2.4 members\n#### 2.4")
TRAIN_Q = "A train travels 300 miles in 5 hours. Half of the trip is over a plain. How far does it go in 8 hours?"
TRAIN_S = ("In one hour the train goes 300 miles / 5 hours = <<300/5=60>>60 miles.\n"
           "In 8 hours it goes 60 miles * 8 = <<60*8=480>>480 miles.\n#### 480")


def _given(question: str, name: str, value: int, text: str, nth: int = 0) -> dict[str, Any]:
    at = -1
    for _ in range(nth + 1):
        at = question.index(text, at + 1)
    return {"name": name, "value": str(value), "text": text, "span": [at, at + len(text)], "words": text,
            "kind": "word" if text.isalpha() else "number"}


def _defs(givens: list[dict[str, Any]], steps: list[tuple[str, Expr]]) -> tuple[dict[str, Any], dict[str, Fraction]]:
    defs: dict[str, Any] = {g["name"]: Num(Fraction(g["value"])) for g in givens}
    values = {n: e.value for n, e in defs.items()}
    for name, expr in steps:
        defs[name] = expr
        values[name] = evaluate(expr, values)
    return defs, values


def _marbles(half_bound_to_two: bool) -> tuple[list[dict[str, Any]], list[tuple[str, Expr]]]:
    givens = [_given(MARBLES_Q, "g1_marbles", 16, "16"), _given(MARBLES_Q, "g2", 2, "two")]
    divisor = "g2"
    if not half_bound_to_two:
        givens.append(_given(MARBLES_Q, "w_half_parts", 2, "half"))
        divisor = "w_half_parts"
    steps: list[tuple[str, Expr]] = [("s1_marbles", BinOp("/", Name("g1_marbles"), Name(divisor))),
                                     ("s2_marbles", BinOp("+", Name("s1_marbles"), Name("g2")))]
    return givens, steps


def _club(six_bound_to_minutes: bool) -> tuple[list[dict[str, Any]], list[tuple[str, Expr]]]:
    givens = [_given(CLUB_Q, "g1_members", 30, "30"), _given(CLUB_Q, "g2_pct", 20, "20"),
              _given(CLUB_Q, "w_twice", 2, "Twice")]
    givens.append(_given(CLUB_Q, "g3_minutes", 5, "5") if six_bound_to_minutes
                  else _given(CLUB_Q, "g3_parts", 5, "5", nth=1))
    pct = BinOp("/", Name("g2_pct"), Num(Fraction(100), "100"))
    steps: list[tuple[str, Expr]] = [
        ("s1_members", BinOp("*", Name("g1_members"), pct)),
        ("s2_members", BinOp("*", Name("s1_members"), Name("w_twice"))),
        ("s3_members", BinOp("-", BinOp("-", Name("g1_members"), Name("s1_members")), Name("s2_members"))),
        ("s4_members", BinOp("/", Name("s3_members"), Name(givens[-1]["name"])))]
    return givens, steps


def test_half_bound_to_a_count_added_elsewhere_is_one_given_in_two_roles() -> None:
    givens, steps = _marbles(half_bound_to_two=True)
    defs, values = _defs(givens, steps)
    found = pure_factor_problems(defs, values, givens, MARBLES_Q, MARBLES_S)
    assert len(found) == 1 and found[0].startswith("g2 ")
    assert "marble" in found[0] and ("two roles" in found[0] or "'half'" in found[0])


def test_half_bound_to_its_own_word_passes() -> None:
    givens, steps = _marbles(half_bound_to_two=False)
    defs, values = _defs(givens, steps)
    assert pure_factor_problems(defs, values, givens, MARBLES_Q, MARBLES_S) == []


def test_a_unit_fraction_bound_to_minutes_is_flagged() -> None:
    givens, steps = _club(six_bound_to_minutes=True)
    defs, values = _defs(givens, steps)
    found = pure_factor_problems(defs, values, givens, CLUB_Q, CLUB_S)
    assert len(found) == 1 and found[0].startswith("g3_minutes") and "'1/5'" in found[0]
    good, good_steps = _club(six_bound_to_minutes=False)
    defs, values = _defs(good, good_steps)
    assert pure_factor_problems(defs, values, good, CLUB_Q, CLUB_S) == []


def test_a_rate_is_no_pure_number() -> None:
    """'300 miles / 5 hours = 60 miles' keeps the noun, but the line names the hours at the
    divisor and 'In one hour': a rate, though the question writes 'Half' as well (no 5 in it)."""
    givens = [_given(TRAIN_Q, "g1_miles", 300, "300"), _given(TRAIN_Q, "g2_hours", 5, "5"),
              _given(TRAIN_Q, "g3_hours", 8, "8")]
    steps: list[tuple[str, Expr]] = [("s1_miles", BinOp("/", Name("g1_miles"), Name("g2_hours"))),
                                     ("s2_miles", BinOp("*", Name("s1_miles"), Name("g3_hours")))]
    defs, values = _defs(givens, steps)
    assert pure_factor_problems(defs, values, givens, TRAIN_Q, TRAIN_S) == []
    # a divisor of the question's "half" value bound elsewhere: still a rate, not flagged
    q2 = TRAIN_Q.replace("5 hours", "2 hours")
    s2 = TRAIN_S.replace("/ 5 hours", "/ 2 hours").replace("300/5=60>>60", "300/2=150>>150") \
        .replace("60 miles *", "150 miles *").replace("60*8=480>>480", "150*8=1200>>1200").replace("480", "1200")
    givens = [_given(q2, "g1_miles", 300, "300"), _given(q2, "g2_hours", 2, "2"), _given(q2, "g3_hours", 8, "8")]
    defs, values = _defs(givens, steps)
    assert pure_factor_problems(defs, values, givens, q2, s2) == []


def _result(question: str, solution: str, givens: list[dict[str, Any]], steps: list[tuple[str, Expr]]) -> RuleResult:
    _defs_, values = _defs(givens, steps)
    lines = solution.splitlines()
    rule_steps = [RuleStep(name, "", values[name], expr_to_sexpr(expr), expr=expr, line=lines[min(i, len(lines) - 1)])
                  for i, (name, expr) in enumerate(steps)]
    smt = ["(set-logic QF_LRA)"] + [f"(declare-const {g['name']} Real)" for g in givens] \
        + [f"(declare-const {n} Real)" for n, _ in steps] + ["(declare-const answer Real)"] \
        + [f"(assert (= {g['name']} {g['value']}))" for g in givens] \
        + [f"(assert (= {st.name} {st.sexpr}))" for st in rule_steps] \
        + [f"(assert (= answer {steps[-1][0]}))", "(check-sat)", "(get-value (answer))"]
    return RuleResult("\n".join(smt) + "\n", rule_steps, steps[-1][0], values[steps[-1][0]], "gsm8k-calculator",
                      givens=givens, factors=[])


@pytest.mark.parametrize("case", ["marbles", "club"])
def test_the_gate_refuses_the_hand_built_wrong_binding(case: str) -> None:
    q, s, build = {"marbles": (MARBLES_Q, MARBLES_S, _marbles), "club": (CLUB_Q, CLUB_S, _club)}[case]
    wrong = _result(q, s, *build(True))
    with pytest.raises(RuleError, match="pure-factor|given-"):
        check_independently(wrong, q, s)
    content = {"smtlib": wrong.smtlib, "givens": wrong.givens}
    seed = {"question": q, "solution": s}
    assert "pure-factor" in HARD_FLAGS
    assert [f.code for f in hard_flags("reasoning", json.dumps(content), seed)] == ["pure-factor"]
    assert "pure-factor" in [f.code for f in audit_artifact("reasoning", content, seed)]
    right = _result(q, s, *build(False))
    assert hard_flags("reasoning", {"smtlib": right.smtlib, "givens": right.givens}, seed) == []


# -- the binder (issue 26.1): a divisor the question writes as a word, when its digits' place is another use's


def _smt_steps(question: str, solution: str) -> list[str]:
    from qcstation.core.construct.make.rules import rule_for_seed

    rule = rule_for_seed({"question": question, "solution": solution})
    return [ln for ln in rule.smtlib.splitlines() if ln.startswith("(assert (= s")]


def test_half_is_the_word_when_the_count_of_its_value_is_a_later_term() -> None:
    """'her dog ate half of them ... save two from the floor' / '12/2 = 6 muffins', '6+2 = 8
    muffins': the / 2 is 'half' (w_half_parts), the + 2 the 'two' saved; it was refused ('the
    question states 2 under different words') or bound both uses to the 'two'."""
    q = ("Mia baked 12 muffins. She left all of them on the table but her dog ate half of them. "
         "She was able to save two from the floor. How many of Mia's muffins are left?")
    s = ("Mia had 12/2=<<12/2=6>>6 muffins left after the dog ate them.\n"
         "She saved two from the floor, which left Mia with 6+2=<<6+2=8>>8 muffins.\n#### 8")
    steps = _smt_steps(q, s)
    assert steps[0].endswith("(/ g1_muffins w_half_parts)))") and steps[1].endswith("g2_floor)))")


def test_a_divisor_with_as_many_places_as_uses_is_not_the_word() -> None:
    """Near miss: '2 packs' may be the divisor's place ('24 / 2 = 12 pens'), the question writing
    'half' too; as many uses of 2 as places: the word is not taken by this reading (the words
    of the line decide, or the item is refused as before)."""
    from qcstation.core.construct.make.rules import RuleError as _RuleError

    q = ("Leo bought 24 pens in 2 packs. He gave half of the 10 pencils he had to his sister. "
         "How many pens are in each pack?")
    s = "Each pack has 24 / 2 = <<24/2=12>>12 pens.\n#### 12"
    try:
        steps = _smt_steps(q, s)
    except _RuleError as exc:
        assert "2" in str(exc)
    else:
        assert "w_half" not in steps[0]


def test_a_list_the_question_says_is_of_equal_parts_divides_not_a_count_taken_before() -> None:
    """'The garage and the shed share the rest and they have the same floor area' / 'Garage =
    300/2': the 2 is the two rooms the words list, never the '2 porches' an earlier step took
    (a derived item moving the porches moved the garage's share)."""
    q = ("A house has 900 square feet. It has 3 rooms that each measure 10 x 10 feet. There are 2 "
         "porches that are 5 x 10 feet each. The garage and shed fill the rest of the land and they "
         "have the same sized area. How many square feet is the garage?")
    s = ("Area of 1 room = 10 * 10 = <<10*10=100>>100 square feet\n"
         "Area of 3 rooms = 100 * 3 = <<100*3=300>>300 square feet\n"
         "Area of 1 porch = 5 * 10 = <<5*10=50>>50 square feet\n"
         "Area of 2 porches = 2 * 50 = <<2*50=100>>100 square feet\n"
         "Area of rooms and porches = 300 + 100 = <<300+100=400>>400 square feet\n"
         "Garage + shed = 900 - 400 = <<900-400=500>>500\n"
         "Garage = 500/2 = <<500/2=250>>250\n#### 250")
    steps = _smt_steps(q, s)
    assert steps[-1].endswith("w_garage_and_shed)))"), steps[-1]
    assert any("(* g" in st and "porches" in st for st in steps)


def test_a_digit_unit_fraction_divides_not_a_measure_of_its_value() -> None:
    """'1/4 of the other members arrive late' / '12 members / 4': the fraction's parts
    (w_1_4_parts), never 'under 4 minutes' (members divided by minutes are no members); it was
    bound to the minutes (the pure-factor check refused it)."""
    q = ("A club has 30 members. 20% of them arrive in under 4 minutes. Twice that number arrive in "
         "under 9 minutes. 1/4 of the other members take more than 15 minutes. How many members take more than 15 minutes?")
    s = ("First find how many arrive in under 4 minutes: 30 members * 20% = <<30*20*.01=6>>6 members\n"
         "Then double it: 6 members * 2 = <<6*2=12>>12 members\n"
         "Then the others: 30 members - 6 members - 12 members = <<30-6-12=12>>12 members\n"
         "Then divide that number by 4 to find how many members take more than 15 minutes: 12 members / 4 = <<12/4=3>>3 members\n"
         "#### 3")
    from qcstation.core.construct.make.rules.calculator import smt_from_calculator_annotations

    rule = smt_from_calculator_annotations(s, Fraction(3), question=q)  # the binder's reading, before the checks
    steps = [ln for ln in rule.smtlib.splitlines() if ln.startswith("(assert (= s")]
    assert steps[-1].endswith("w_1_4_parts)))"), steps[-1]
    assert "minutes" not in steps[-1]
