"""A place of a value decided by what the other places leave (issue 26.1, lane cover40): a word
that multiplies ("triple") where every place of the value in digits is another given's, named by the
lines of its steps ("Each boy gets $18/3" for "shared among 3 boys"; 541); a factor of a product
whose result is money beside a count of days, the one place of the value that is money ("14 * 2 =
$28" beside "14 days", "about $2"; 498); the two of a pair the question names by their relation to
one person ("her mom and her sister 2 boxes of oranges each" / "2 x 2 = 4 boxes of oranges to her
mom and sister"; 973). Each with a near-miss that stays refused."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, RuleResult, rule_for_seed
from qcstation.core.construct.make.rules.implied import relative_lists


def _asserts(rule: RuleResult) -> set[str]:
    return {ln for ln in rule.smtlib.splitlines() if ln.startswith("(assert")}


def _spans(rule: RuleResult, question: str, more: int) -> dict[str, str]:
    return {g["name"]: question[g["span"][0]:g["span"][1] + more] for g in rule.givens if g.get("span")}


def test_541_triple_is_the_place_the_boys_leave(gsm8k: dict) -> None:
    seed = gsm8k["541"]
    rule = rule_for_seed(seed)
    assert rule.value == 39
    asserts = _asserts(rule)
    assert "(assert (= s1_boy (/ g1_shared g2_boys)))" in asserts
    assert "(assert (= s5 (* s4_spending w_triple)))" in asserts
    spans = _spans(rule, seed["question"], 5)
    assert spans["g2_boys"] == "3 boys" and spans["w_triple"] == "triple the "


def test_541_near_miss_a_line_that_names_no_boy_stays_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["541"])
    seed["solution"] = seed["solution"].replace("Each boy gets", "Each one gets")
    with pytest.raises(RuleError, match="'3 boys', 'triple'"):
        rule_for_seed(seed)


def test_498_the_two_dollars_of_a_cost(gsm8k: dict) -> None:
    seed = gsm8k["498"]
    rule = rule_for_seed(seed)
    assert rule.value == 112
    assert "(assert (= s2_afternoon_hand (* g1_days g3)))" in _asserts(rule)
    spans = _spans(rule, seed["question"], 0)
    assert seed["question"][rule.givens[2]["span"][0] - 1:][:2] == "$2" and spans["g3"] == "2"


def test_498_near_misses_stay_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["498"])
    # the line writes no money after the product: the units tie the 2 to nothing
    seed["solution"] = gsm8k["498"]["solution"].replace("= $<<14*2=28>>28", "= <<14*2=28>>28")
    with pytest.raises(RuleError, match="'2 \\$', 'two weeks', 'twice'"):
        rule_for_seed(seed)
    # two places of $2: which one the units never tell
    seed = dict(gsm8k["498"])
    seed["question"] = seed["question"].replace("He did that for 14 days.", "He did that for 14 days and paid a $2 toll once.")
    with pytest.raises(RuleError, match="given-words: s2_afternoon_hand uses 2"):
        rule_for_seed(seed)


def test_relative_lists() -> None:
    assert relative_lists("She gave her mom and her sister 2 boxes each.") == [("her mom and her sister", ("mom", "sister"))]
    assert relative_lists("He and his wife went.") == []


def test_973_her_mom_and_her_sister(gsm8k: dict) -> None:
    seed = gsm8k["973"]
    rule = rule_for_seed(seed)
    assert rule.value == 120
    assert "(assert (= s1_boxes_oranges (* g1_boxes w_her_mom_and_her_sister)))" in _asserts(rule)
    spans = _spans(rule, seed["question"], 8)
    assert spans["g1_boxes"] == "2 boxes o" and spans["w_her_mom_and_her_sister"].startswith("her mom and her sister")


def test_973_near_miss_a_line_that_names_no_pair_stays_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["973"])
    seed["solution"] = seed["solution"].replace("to her mom and sister", "to her family")
    with pytest.raises(RuleError, match="2 times itself"):
        rule_for_seed(seed)
