"""More words the given-words check reads for a place of the question: a noun of kinds ("4 types
of vanilla scents" names the scents), the unit of a rate ("80 toothpicks / 10 each week" for "10
toothpicks each week"), a named weekdays constant written "5 days", and a value the line spells
once for each of two givens of a bare product ("Three children each have three children ...
3*3"). Each with a near-miss that stays refused."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.check.bindings import _constant_named_by_line, binding_problems
from qcstation.core.construct.check.categories import rate_unit_after
from qcstation.core.construct.make.rules import RuleError, RuleResult, rule_for_seed
from qcstation.core.reading.expr import BinOp, Name, Num
from qcstation.core.reading.words import words_after_value


def _asserts(rule: RuleResult) -> set[str]:
    return {ln for ln in rule.smtlib.splitlines() if ln.startswith("(assert")}


def _spans(rule: RuleResult, question: str, more: int) -> dict[str, str]:
    return {g["name"]: question[g["span"][0]:g["span"][1] + more] for g in rule.givens if g.get("span")}


def test_a_noun_of_kinds_reads_on_after_its_of() -> None:
    line = "The store sold 4 types of vanilla scents * 5 sales each = 20 of the vanilla scents."
    assert words_after_value(line, Fraction(4)) == [["types", "vanilla", "scents"]]
    assert words_after_value("He has 4 boxes of pens", Fraction(4)) == [["boxes"]]  # no kind: "of" ends it


def test_771_four_types_of_vanilla_scents(gsm8k: dict) -> None:
    seed = gsm8k["771"]
    rule = rule_for_seed(seed)
    assert rule.value == 4
    assert "(assert (= s1_vanilla_scents (* g1_vanilla g2_vanilla)))" in _asserts(rule)
    spans = _spans(rule, seed["question"], 16)
    assert spans["g1_vanilla"].startswith("4 vanilla scents") and spans["g2_vanilla"].startswith("5 of each")


def test_the_unit_of_a_rate() -> None:
    assert rate_unit_after("saved 10 toothpicks each week for", len("saved 10")) == "week"
    assert rate_unit_after("80 toothpicks / 10 each week", len("80 toothpicks / 10")) == "week"
    assert rate_unit_after("10 toothpicks. Each week", len("10")) is None  # a sentence ends between
    assert rate_unit_after("10 - 2 per week", len("10")) is None


def test_1079_ten_toothpicks_each_week(gsm8k: dict) -> None:
    seed = gsm8k["1079"]
    rule = rule_for_seed(seed)
    assert rule.value == 8
    assert "(assert (= s3_weeks (/ s2_toothpicks_reach g1_toothpicks)))" in _asserts(rule)
    assert _spans(rule, seed["question"], 21)["g1_toothpicks"] == "10 toothpicks each week"


def test_1079_near_miss_a_rate_of_another_unit_stays_refused(gsm8k: dict) -> None:
    # "10 toothpicks each day": the line's "10 each week" is no rate the question states
    seed = dict(gsm8k["1079"])
    seed["question"] = seed["question"].replace("10 toothpicks each week", "10 toothpicks each day")
    with pytest.raises(RuleError, match="10 each week"):
        rule_for_seed(seed)


def test_a_weekdays_constant_is_named_by_days() -> None:
    assert _constant_named_by_line("k_weekdays_per_week", Fraction(5), "10 miles * 5 days = 50 miles per week")
    assert not _constant_named_by_line("k_weekdays_per_week", Fraction(5), "10 miles * 5 miles = 50")
    assert not _constant_named_by_line("k_months_per_year", Fraction(5), "10 miles * 5 days = 50")


def test_785_monday_to_friday_is_five_days(gsm8k: dict) -> None:
    seed = gsm8k["785"]
    rule = rule_for_seed(seed)
    assert rule.value == 15
    assert "(assert (= s2_miles_week (* s1_miles k_weekdays_per_week)))" in _asserts(rule)
    assert _spans(rule, seed["question"], 6)["g1_miles"] == "5 miles"


def test_698_three_children_each_have_three_children(gsm8k: dict) -> None:
    seed = gsm8k["698"]
    rule = rule_for_seed(seed)
    assert rule.value == 27
    assert "(assert (= s1_grandchildren (* g1_children g2_children)))" in _asserts(rule)
    spans = _spans(rule, seed["question"], 9)
    assert spans["g1_children"] == spans["g2_children"] == "three children"
    assert spans["g3_babies"].startswith("three babies")


def test_698_near_miss_a_given_of_no_spelled_place_stays_refused(gsm8k: dict) -> None:
    # "3*3" read as the children times the babies: the line spells "three children" twice, never the babies
    q, sol = gsm8k["698"]["question"], gsm8k["698"]["solution"]
    three = Num(Fraction(3))
    defs = {"g1_children": three, "g2_children": three, "g3_babies": three,
            "s1_grandchildren": BinOp("*", Name("g1_children"), Name("g3_babies")),
            "s2_great_grand": BinOp("*", Name("s1_grandchildren"), Name("g2_children"))}
    values = {"g1_children": Fraction(3), "g2_children": Fraction(3), "g3_babies": Fraction(3),
              "s1_grandchildren": Fraction(9), "s2_great_grand": Fraction(27)}
    assert any(b.step == "s1_grandchildren" for b in binding_problems(defs, values, q, sol))
    defs["s1_grandchildren"] = BinOp("*", Name("g1_children"), Name("g2_children"))
    defs["s2_great_grand"] = BinOp("*", Name("s1_grandchildren"), Name("g3_babies"))
    assert binding_problems(defs, values, q, sol) == []


def test_295_half_in_the_sentence_of_the_eight(gsm8k: dict) -> None:
    seed = gsm8k["295"]
    rule = rule_for_seed(seed)
    assert rule.value == 3
    assert "(assert (= s1_oranges (/ g1_years w_half_parts)))" in _asserts(rule)
    assert _spans(rule, seed["question"], 0)["w_half_parts"] == "half"


def test_295_near_miss_the_count_in_that_sentence_too_stays_refused(gsm8k: dict) -> None:
    # "his 2 sons" in the sentence of the 8 and of "half": the sentence no longer tells which 2 divides
    seed = dict(gsm8k["295"])
    seed["question"] = seed["question"].replace("The oldest son is 8 years old", "The oldest of his 2 sons is 8 years old")
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_416_half_and_twice_each_in_its_sentence(gsm8k: dict) -> None:
    seed = gsm8k["416"]
    rule = rule_for_seed(seed)
    assert rule.value == 350
    asserts = _asserts(rule)
    assert "(assert (= s1_apples_shortest (/ g1_apples w_half_parts)))" in asserts
    assert "(assert (= s2_apples_tallest (* g1_apples w_twice)))" in asserts


def test_679_the_line_restates_the_clause_up_to_twice(gsm8k: dict) -> None:
    seed = gsm8k["679"]
    assert seed["solution"].startswith("Karen earns $10 x 2")
    rule = rule_for_seed(seed)
    assert rule.value == 120
    asserts = _asserts(rule)
    assert "(assert (= s1_hour (* g1_hour w_twice)))" in asserts
    assert "(assert (= s3_two_days (* s2_day g3_days)))" in asserts


def test_679_near_miss_a_line_of_other_words_stays_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["679"])
    seed["solution"] = seed["solution"].replace("Karen earns $10 x 2", "That is $10 x 2")
    with pytest.raises(RuleError, match="uses 2"):
        rule_for_seed(seed)


def test_873_the_dollars_are_the_earlier_results_the_bare_3_the_bottles(gsm8k: dict) -> None:
    seed = gsm8k["873"]
    assert "Three bottles of soda cost $3.00 x 3" in seed["solution"]
    rule = rule_for_seed(seed)
    assert rule.value == 13
    assert "(assert (= s2_bottles_soda (* g3_bottles s1_bottle_soda)))" in _asserts(rule)
    assert _spans(rule, seed["question"], 8)["g3_bottles"] == "3 bottles"


def test_873_near_miss_two_threes_and_a_line_of_no_words_stays_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["873"])
    seed["question"] = "He has 3 coupons. " + seed["question"]
    seed["solution"] = seed["solution"].replace("Three bottles of soda cost $3.00 x 3", "They cost $3.00 x 3")
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_a_purpose_after_a_number_names_nothing() -> None:
    line = "Then divide the total stuffing amount by 2 to find the average stuffing amount: 10 pounds / 2 = 5 pounds"
    assert words_after_value(line, Fraction(2)) == [[], []]
    assert words_after_value("razors come 4 to a pack", Fraction(4)) == [["pack"]]


def test_363_the_two_kinds_averaged(gsm8k: dict) -> None:
    seed = gsm8k["363"]
    rule = rule_for_seed(seed)
    assert rule.value == 23
    assert "(assert (= s2_pounds (/ s1_pounds g3_kinds)))" in _asserts(rule)
    assert _spans(rule, seed["question"], 6)["g3_kinds"] == "two kinds"


def test_363_near_miss_no_count_of_kinds_is_the_averaged_constant(gsm8k: dict) -> None:
    # the question states no "two kinds": the 2 averaged over is the named constant, never "2 pounds"
    seed = dict(gsm8k["363"])
    seed["question"] = seed["question"].replace("between the first two kinds of beds", "between the Rottweiler and chihuahua beds")
    rule = rule_for_seed(seed)
    assert "(assert (= s2_pounds (/ s1_pounds k_2_values_averaged)))" in _asserts(rule)
