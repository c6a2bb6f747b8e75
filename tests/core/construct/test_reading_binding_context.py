"""A value the question states at several places, placed by what the step uses where its own line
names no place (issue 26, point 1; :func:`qcstation.core.construct.make.rules.joint._by_what_it_uses`),
and the independent check's vouch for a list sum (:mod:`qcstation.core.construct.check.context`):
the one sentence that states every other number of the sum, the name a line opens with where
each place's clause names its own subject, the noun a rate is per. The line of an earlier step
the step uses is no evidence, and a clause that leaves its subject out is no other person's."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from qcstation.core.construct.check.bindings import binding_problems
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.reading.expr import BinOp, Name, Num, evaluate


def _uses(seed: dict) -> dict[str, list[str]]:
    """Each step -> the question's words (20 characters from its span) of the givens it uses."""
    rule = rule_for_seed(seed)
    q = seed["question"]
    at = {str(g["name"]): q[g["span"][0]:g["span"][0] + 20] for g in rule.givens}
    return {st.name.split("_")[0]: [at[n] for n in re.findall(r"\bg\d+\w*", st.sexpr) if n in at]
            for st in rule.steps}


def test_a_list_sum_is_the_place_in_the_sentence_of_its_other_numbers(gsm8k: dict) -> None:
    # 296 "He does 100 pushups, 50 squats, and 20 dumbbell presses on the first day. On the
    # second day, he does 20 more pushups ... and doubles the number of dumbbell presses":
    # "100+50+20" is the first day's list; "100+20" the second day's 20 more (by elimination);
    # "2*20" the dumbbell presses (its words)
    uses = _uses(gsm8k["296"])
    assert uses["s1"] == ["100 pushups, 50 squa", "50 squats, and 20 du", "20 dumbbell presses "]
    assert uses["s2"] == ["100 pushups, 50 squa", "20 more pushups than"]
    assert uses["s4"] == ["20 dumbbell presses "]
    assert rule_for_seed(gsm8k["296"]).value == 370


def test_the_check_refuses_the_list_sum_bound_to_the_other_sentence(gsm8k: dict) -> None:
    # the same shape, wrongly bound: the first day's sum with the second day's "20 more pushups"
    seed = gsm8k["296"]
    rule = rule_for_seed(seed)
    defs: dict = {str(g["name"]): Num(Fraction(str(g["value"]))) for g in rule.givens}
    defs.update({str(f["name"]): Num(Fraction(str(f["value"]))) for f in rule.factors or []})
    values = {n: e.value for n, e in defs.items()}
    sums = {"right": BinOp("+", BinOp("+", Name("g1_pushups"), Name("g2_squats")), Name("g3_dumbbell")),
            "wrong": BinOp("+", BinOp("+", Name("g1_pushups"), Name("g2_squats")), Name("g4_pushups"))}
    found = {}
    for kind, term in sums.items():
        d = dict(defs, s1_activities_day=term)
        v = dict(values, s1_activities_day=evaluate(term, values))
        found[kind] = binding_problems(d, v, seed["question"], seed["solution"])
    assert found["right"] == []
    assert [p.step for p in found["wrong"]] == ["s1_activities_day"]


def test_the_name_a_line_opens_with_is_the_clause_with_that_subject(gsm8k: dict) -> None:
    # 183 "Jean is two years older than Mark.  Two years ago Mark was 5 years older than half
    # Jan's age": "2 years ago Jan was 30-2" (its words), "Mark is now 19+2" (Mark: the clause of
    # "Two years ago"), "So Jean is 21+2" (Jean: "two years older")
    uses = _uses(gsm8k["183"])
    assert uses["s1"] == ["30 how old is Jean?", "Two years ago Mark w"]
    assert uses["s3"] == ["Two years ago Mark w"]
    assert uses["s4"] == ["two years older than"]
    assert rule_for_seed(gsm8k["183"]).value == 23


def test_a_clause_without_its_own_subject_is_no_other_persons(gsm8k: dict) -> None:
    # 1075 "Teddy finished half of a 500 piece puzzle, and then started and finished another 500
    # piece puzzle": "Teddy completed 250 pieces + 500 pieces" opens with Teddy, the first name of
    # the first clause only because the second leaves its subject out: the 500 added is still
    # "another 500" (by its clause's other number, half)
    uses = _uses(gsm8k["1075"])
    assert uses["s2"] == ["500 piece puzzle wit"]


def test_the_line_of_an_earlier_step_is_no_evidence(gsm8k: dict) -> None:
    # 356 "The height of the tallest tree is twice the height of the two trees combined":
    # "2 x 17", 17 being "the combined height of the two trees", is "twice"; bound to "two
    # trees" (a given of equal value, another meaning) it stays refused
    with pytest.raises(RuleError, match="two trees"):
        rule_for_seed(gsm8k["356"])


def test_a_result_per_a_period_is_the_place_that_many_times_in_it(gsm8k: dict) -> None:
    # 362 "A train travels between 3 different cities ... It does this trip 3 times a day":
    # "So it goes 3*300 = 900 miles per day" is the trips a day, not the cities; 1166 "3
    # different apartment complexes ... 3 times a week": "1040*3 = 3120 apartments every week"
    assert _uses(gsm8k["362"])["s4"] == ["3 times a day.  The "]
    assert rule_for_seed(gsm8k["362"]).value == 20
    assert _uses(gsm8k["1166"])["s5"] == ["3 times a week from "]
    assert rule_for_seed(gsm8k["1166"]).value == 1248


def test_the_check_refuses_the_period_product_bound_to_the_count_of_things(gsm8k: dict) -> None:
    # the same shape, wrongly bound: the trips a day's product with the "3 different cities"
    seed = gsm8k["362"]
    rule = rule_for_seed(seed)
    q = seed["question"]
    defs: dict = {}
    for st in rule.steps:
        assert st.expr is not None
        defs[st.name] = st.expr
    for g in rule.givens:
        defs[str(g["name"])] = Num(Fraction(str(g["value"])))
    values = {n: e.value for n, e in defs.items() if isinstance(e, Num)}
    for name, e in defs.items():
        if not isinstance(e, Num):
            values[name] = evaluate(e, values)
    assert binding_problems(defs, values, q, seed["solution"]) == []
    wrong = dict(defs, g4_different=Num(Fraction(3)))
    wrong["s4_miles_day"] = BinOp("*", Name("g4_different"), Name("s3_miles"))
    del wrong["g4_times"]
    wrong_values = {n: v for n, v in values.items() if n != "g4_times"}
    wrong_values["g4_different"] = Fraction(3)
    found = binding_problems(wrong, wrong_values, q, seed["solution"])
    assert [p.step for p in found] == ["s4_miles_day"]
