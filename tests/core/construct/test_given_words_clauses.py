"""Words that decide a place where the given-words check read the wrong ones (issue 26.1, lane
cover40): a number right before "and" and another clause's verb names nothing ("groups of 8 and put
them", "eats 2 and passes 14"); a relative clause that restates the question's verb ("the 14 that he
passed out" for "He passes 14 out"); "mph" for "miles per hour"; a stated 1 written twice in one
step where the question writes "another" of its noun ("1 hour ..., then another hour"). Each with a
near-miss that stays refused."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import RuleError, RuleResult, rule_for_seed
from qcstation.core.construct.make.rules.implied import another_one
from qcstation.core.reading.words import question_occurrences, words_after_value


def _asserts(rule: RuleResult) -> set[str]:
    return {ln for ln in rule.smtlib.splitlines() if ln.startswith("(assert")}


def _spans(rule: RuleResult, question: str, more: int) -> dict[str, str]:
    return {g["name"]: question[g["span"][0]:g["span"][1] + more] for g in rule.givens if g.get("span")}


def test_and_with_the_next_clause_names_nothing_of_the_number() -> None:
    assert words_after_value("eats 2 and passes 14 out", Fraction(2)) == [[]]
    words = {o.start: o.words for o in question_occurrences("into groups of 8 and put them into boxes")}
    assert words == {15: frozenset()}
    # an article after the "and" reads on as before ("the 3 and the shortest girl", 495)
    assert words_after_value("on top of the 3 and the shortest girl", Fraction(3)) == [["shortest", "girl"]]


def test_1131_groups_of_8_and_put_them_into_boxes(gsm8k: dict) -> None:
    seed = gsm8k["1131"]
    rule = rule_for_seed(seed)
    assert rule.value == 25
    assert "(assert (= s1_boxes (/ g1_crayons g2)))" in _asserts(rule)
    assert "(assert (= s2_ounces (* s1_boxes g3_ounces)))" in _asserts(rule)
    spans = _spans(rule, seed["question"], 9)
    assert spans["g2"] == "8 and put " and spans["g3_ounces"] == "8 ounces. "


def test_495_the_bottom_3_layers_stays_refused(gsm8k: dict) -> None:
    # "the 3 and the shortest girl" keeps its words: the solution's "bottom 3 layers" is no place
    with pytest.raises(RuleError, match="states 3 at several places"):
        rule_for_seed(gsm8k["495"])


def test_328_the_14_that_he_passed_out(gsm8k: dict) -> None:
    seed = gsm8k["328"]
    rule = rule_for_seed(seed)
    assert rule.value == 31
    assert "(assert (= s1_lollipops (- g1_lollipops g2_way g3_friends)))" in _asserts(rule)
    assert "(assert (= s2_lollipops (* w_twice g3_friends)))" in _asserts(rule)
    assert "(assert (= s4_lollipops (- s3_lollipops g4_night g5_morning)))" in _asserts(rule)
    spans = _spans(rule, seed["question"], 8)
    assert spans["g2_way"] == "2 on his " and spans["g5_morning"] == "2 more in"


def test_328_near_miss_a_relative_clause_of_another_verb_stays_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["328"])
    seed["solution"] = seed["solution"].replace("the 14 that he passed out", "the 14 that he ate")
    with pytest.raises(RuleError, match="14 ate"):
        rule_for_seed(seed)


def test_another_one() -> None:
    q = "She took 1 hour to walk the first 4 miles, then another hour to walk the next two miles."
    assert another_one(q, frozenset({"hour"})) == "k_one_another_hour"
    assert another_one(q, frozenset({"mile"})) is None
    assert another_one(q.replace("another hour", "another hour and another hour"), frozenset({"hour"})) is None


def test_20_four_mph_and_another_hour(gsm8k: dict) -> None:
    seed = gsm8k["20"]
    rule = rule_for_seed(seed)
    assert rule.value == 6
    asserts = _asserts(rule)
    assert "(assert (= s1_hours (/ g1_mile g2_miles)))" in asserts
    assert "(assert (= s2_hour (- s1_hours g3_hour k_one_another_hour)))" in asserts
    assert "(assert (= s3_miles (- g1_mile g4_miles g5_miles)))" in asserts
    spans = _spans(rule, seed["question"], 16)
    assert spans["g2_miles"] == "4 miles per hour," and spans["g4_miles"].startswith("4 miles, then")


def test_20_near_misses_stay_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["20"])
    # "an hour" is no "another": the stated "1 hour" would stand for both hours
    seed["question"] = gsm8k["20"]["question"].replace("then another hour", "then an hour")
    with pytest.raises(RuleError, match="writes 1 twice"):
        rule_for_seed(seed)
    # a speed the question does not write per hour: "4 mph" names no place of 4
    seed["question"] = gsm8k["20"]["question"].replace("4 miles per hour", "4 miles a day")
    with pytest.raises(RuleError, match="4 mph"):
        rule_for_seed(seed)
