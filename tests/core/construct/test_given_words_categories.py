"""The given-words check reads a category noun the solution writes for the question's own noun
("90 bugs" for "90 spiders", "400 students" for "400 fifth graders") from a small explicit
lexicon (check/categories), and a word right after a number that opens the next clause ("20% of
2400 so her car payment is") names nothing of the number. Near-misses stay refused: a noun that is
no member of the category, two places of the value the line cannot tell apart."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.check.categories import names_a_member
from qcstation.core.construct.make.rules import RuleError, RuleResult, rule_for_seed
from qcstation.core.reading.words import words_after_value


def _asserts(rule: RuleResult) -> set[str]:
    return {ln for ln in rule.smtlib.splitlines() if ln.startswith("(assert")}


def test_the_lexicon_reads_whole_words_never_first_letters() -> None:
    assert names_a_member([["bugs"]], "90 spiders")
    assert names_a_member([["students"]], "400 fifth graders")
    assert not names_a_member([["bugs"]], "90 millimeters")  # "mill..." is no millipede
    assert not names_a_member([["students"]], "400 teachers")
    assert not names_a_member([["bugs"], ["lamps"]], "90 spiders")  # every use must name the category


def test_399_the_spiders_are_bugs(gsm8k: dict) -> None:
    seed = gsm8k["399"]
    assert seed["question"].startswith("Nancy is cleaning out her old woodshed. She saw 90 spiders")
    rule = rule_for_seed(seed)
    assert rule.value == 168
    assert "(assert (= s4_bugs (+ s3_bugs s1_millipedes g1_spiders)))" in _asserts(rule)
    spans = {g["name"]: seed["question"][g["span"][0]:g["span"][1] + 8] for g in rule.givens if g.get("span")}
    assert spans["g1_spiders"] == "90 spiders"


def test_399_near_miss_a_noun_of_no_category_stays_refused(gsm8k: dict) -> None:
    # the question's and the first line's 90 are lamps: "90 bugs" then names another 90 than "90 lamps"
    seed = dict(gsm8k["399"])
    seed["question"] = seed["question"].replace("90 spiders, 1/3rd as many millipedes as spiders",
                                                "90 lamps, 1/3rd as many millipedes as lamps")
    seed["solution"] = seed["solution"].replace("90 spiders / 3 spiders/millipede", "90 lamps / 3 lamps/millipede")
    with pytest.raises(RuleError, match="90 bugs"):
        rule_for_seed(seed)


def test_807_fifth_graders_are_students(gsm8k: dict) -> None:
    seed = gsm8k["807"]
    assert "The 400 fifth graders" in seed["question"]
    rule = rule_for_seed(seed)
    assert rule.value == 70
    assert "(assert (= s5_students (+ g3_fifth g2_fourth g5_passed)))" in _asserts(rule)
    spans = {g["name"]: seed["question"][g["span"][0]:g["span"][1] + 14] for g in rule.givens if g.get("span")}
    assert spans["g3_fifth"] == "400 fifth graders"


def test_807_near_miss_teachers_are_no_students(gsm8k: dict) -> None:
    seed = dict(gsm8k["807"])
    seed["question"] = seed["question"].replace("The 400 fifth graders had", "The 400 teachers had")
    seed["solution"] = seed["solution"].replace(".8 * 400 fifth graders", ".8 * 400 teachers")
    with pytest.raises(RuleError, match="400 students"):
        rule_for_seed(seed)


def test_a_clause_opener_after_a_number_names_nothing() -> None:
    line = "Her car payment is 20% of 2400 so her car payment is .20*2400 = $480.00"
    assert words_after_value(line, Fraction(2400)) == [[], []]
    assert words_after_value("He sold 2400 car parts", Fraction(2400)) == [["car", "parts"]]


def test_699_the_paycheck_of_the_car_payment(gsm8k: dict) -> None:
    seed = gsm8k["699"]
    rule = rule_for_seed(seed)
    assert rule.value == 720
    assert "(assert (= s3_car_payment (* g3_pct k_percent_fraction g1)))" in _asserts(rule)


def test_699_near_miss_two_places_of_the_value_stay_refused(gsm8k: dict) -> None:
    # the line names nothing after the 2400: with "2400 miles" in the question too, no words tell which
    # (the clause "Her car has 2400 miles" shares "car" with the line: still no evidence of the place)
    seed = dict(gsm8k["699"])
    seed["question"] = seed["question"].replace("monthly car payment.", "monthly car payment. Her car has 2400 miles.")
    with pytest.raises(RuleError, match="2400"):
        rule_for_seed(seed)
