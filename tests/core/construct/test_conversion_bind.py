"""A unit conversion's number is a named constant, never a given of equal value whose
sentence says nothing of that unit; one given used twice in a step where each use names a
different place of its value is two quantities (issue 26, point 1). Found by reading random
rule-made items: every earlier check passed these three wrong bindings (GSM8K 329, 1268, 521)."""

from __future__ import annotations

import pytest

from qcstation.core.construct.check.bindings import binding_problems
from qcstation.core.construct.check.selfcheck import _smt_definitions, audit_artifact
from qcstation.core.construct.make.rules import rule_for_seed

#: the formalizations the rules made before (each verified by Z3 and every earlier check)
OLD = {
    "329": """(set-logic QF_NRA)
(declare-const g1_charged Real)
(declare-const g2_minutes Real)
(declare-const k_percent Real)
(declare-const s1_percentage_points Real)
(declare-const s2_minutes_fully Real)
(declare-const s3_hours Real)
(declare-const answer Real)
(assert (= g1_charged 60))
(assert (= g2_minutes 3))
(assert (= k_percent 100))
(assert (= s1_percentage_points (- k_percent g1_charged)))
(assert (= s2_minutes_fully (* s1_percentage_points g2_minutes)))
(assert (= s3_hours (/ s2_minutes_fully g1_charged)))
(assert (= answer s3_hours))
(check-sat)
(get-value (answer))
""",
    "1268": """(set-logic QF_NRA)
(declare-const g1 Real)
(declare-const g2_legged Real)
(declare-const g3 Real)
(declare-const g4_legged Real)
(declare-const s1_legs Real)
(declare-const s2_legs Real)
(declare-const s3_legs Real)
(declare-const s4_pairs_legs Real)
(declare-const answer Real)
(assert (= g1 10))
(assert (= g2_legged 2))
(assert (= g3 15))
(assert (= g4_legged 4))
(assert (= s1_legs (* g1 g2_legged)))
(assert (= s2_legs (* g3 g4_legged)))
(assert (= s3_legs (+ s1_legs s2_legs)))
(assert (= s4_pairs_legs (/ s3_legs g2_legged)))
(assert (= answer s4_pairs_legs))
(check-sat)
(get-value (answer))
""",
    "521": """(set-logic QF_NRA)
(declare-const g1_skeins Real)
(declare-const g2_scarf Real)
(declare-const g3_sweater Real)
(declare-const g4_pair Real)
(declare-const g5_grandchildren Real)
(declare-const s1_skeins_wool Real)
(declare-const s2_skeins_wool Real)
(declare-const answer Real)
(assert (= g1_skeins 2))
(assert (= g2_scarf 4))
(assert (= g3_sweater 12))
(assert (= g4_pair 1))
(assert (= g5_grandchildren 3))
(assert (= s1_skeins_wool (+ g1_skeins g2_scarf g3_sweater g4_pair g1_skeins)))
(assert (= s2_skeins_wool (* g5_grandchildren s1_skeins_wool)))
(assert (= answer s2_skeins_wool))
(check-sat)
(get-value (answer))
""",
}


def _problems(smtlib: str, seed: dict) -> list[str]:
    parsed = _smt_definitions(smtlib)
    assert parsed is not None
    defs, values, _ = parsed
    return [b.describe() for b in binding_problems(defs, values, seed["question"], seed["solution"])]


@pytest.mark.parametrize(("seed", "wrong", "words"), [
    # "The phone is at 60% charged ... how long ... in hours?"; "120/60 = 2 hours": the 60 was
    # bound to the 60% (a variant moving the charge would move the minutes of an hour)
    ("329", "(/ s2_minutes_fully g1_charged)", "'60 hour'"),
    # "10 2-legged animals ... how many pairs of animal legs"; "80/2 = 40 pairs of legs": the 2
    # legs of a pair were bound to the 2 legs of a 2-legged animal
    ("1268", "(/ s3_legs g2_legged)", "'2 pair'"),
    # "2 skeins of wool to make a hat ... and 2 for a pair of socks"; "2 skeins per hat + ... + 2
    # skeins per pair of socks" as g1 + ... + g1: the socks' 2 was the hat's
    ("521", "(+ g1_skeins g2_scarf g3_sweater g4_pair g1_skeins)", "'2 skeins', '2 pair'"),
])
def test_the_old_wrong_binding_is_flagged_by_the_independent_check(gsm8k: dict, seed: str, wrong: str,
                                                                    words: str) -> None:
    assert wrong in OLD[seed]
    problems = _problems(OLD[seed], gsm8k[seed])
    assert any(words in p for p in problems), problems
    flags = audit_artifact("reasoning", {"smtlib": OLD[seed]}, gsm8k[seed])
    assert "given-words" in {f.code for f in flags}


def test_329_divides_by_the_minutes_of_an_hour(gsm8k: dict) -> None:
    rule = rule_for_seed(gsm8k["329"])
    assert "(assert (= k_minutes_per_hour 60))" in rule.smtlib
    assert "(assert (= s3_hours (/ s2_minutes_fully k_minutes_per_hour)))" in rule.smtlib
    q = gsm8k["329"]["question"]
    assert [q[g["span"][0]:g["span"][1] + 1] for g in rule.givens if g["value"] == "60"] == ["60%"]
    assert _problems(rule.smtlib, gsm8k["329"]) == []


def test_1268_divides_by_the_legs_of_a_pair(gsm8k: dict) -> None:
    rule = rule_for_seed(gsm8k["1268"])
    assert "(assert (= k_per_pair 2))" in rule.smtlib
    assert "(assert (= s4_pairs_legs (/ s3_legs k_per_pair)))" in rule.smtlib
    assert _problems(rule.smtlib, gsm8k["1268"]) == []


def test_521_is_not_bound_to_one_two(gsm8k: dict) -> None:
    # "2 skeins of wool to make a hat ... and 2 for a pair of socks": "2 skeins per hat + ... + 2
    # skeins per pair of socks" is the two places, one each (the joint reading by the words,
    # rules.joint); the old reading, both uses at the hat's 2, stays refused by the check (above)
    rule = rule_for_seed(gsm8k["521"])
    q = gsm8k["521"]["question"]
    twos = {str(g["name"]): q[g["span"][0]:g["span"][0] + 12] for g in rule.givens if g["value"] == "2"}
    assert sorted(twos.values()) == ["2 for a pair", "2 skeins of "]
    assert f"(+ {min(twos)} g2_scarf g3_sweater g4_pair {max(twos)})" in rule.smtlib
    assert _problems(rule.smtlib, gsm8k["521"]) == []


def test_917_pairs_of_its_own_balloons_stay_the_given(gsm8k: dict) -> None:
    # "$0.5 for 2 balloons"; "12/2 = 6 pairs of balloons": the pair is the question's own 2
    # balloons, a given, not the legs-of-a-pair kind of constant ("1 dozen balloons": the dozen a
    # unit after a number, its 12 the factor k_per_dozen)
    rule = rule_for_seed(gsm8k["917"])
    assert "(assert (= s1_pairs_balloons (/ k_per_dozen g1_balloons)))" in rule.smtlib
    assert _problems(rule.smtlib, gsm8k["917"]) == []
