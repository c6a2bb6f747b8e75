"""A number a step writes with its minus sign is the earlier negative result it restates
("-48 + 21 + (-3) = -30" then "-30/3"), sign included (:mod:`qcstation.core.construct.make.rules.links`);
and a place that restates a count the story lists ("these 3 countries") is a quantity of its
own, so a second use of its value is never the first place's given in a second role
(:func:`qcstation.core.construct.make.rules.defining.restated_counts`)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.defining import restated_counts


def _givens_by_name(seed: dict) -> tuple[dict[str, str], list[str]]:
    rule = rule_for_seed(seed)
    q = seed["question"]
    return ({str(g["name"]): q[g["span"][0]:g["span"][0] + 20] for g in rule.givens},
            [st.sexpr for st in rule.steps])


def test_a_signed_number_is_the_earlier_negative_result(gsm8k: dict) -> None:
    # 490 "-48 ... 21 ... -3 degrees Fahrenheit. What is the average highest temperature of these
    # 3 countries?" / "-48 + 21 + (-3) = -30", "-30/3 = -10": the -30 is the first step's result
    # (was refused: the 30 read as no step's, so the answer step left 21 and 48 unused)
    rule = rule_for_seed(gsm8k["490"])
    assert rule.value == Fraction(-10)
    assert [lk["uses"] for lk in rule.links] == ["s1"] and rule.links[0]["value"] == "-30"
    words, sexprs = _givens_by_name(gsm8k["490"])
    # the -3 degrees is a term of the sum, the 3 countries the divisor: two givens, each its place
    assert sexprs[0] == "(+ (- g1_degrees) g2_degrees (- g3_degrees))"
    assert sexprs[1] == "(/ s1 g4_countries)"
    assert words["g3_degrees"].startswith("3 degrees Fahrenheit")
    assert words["g4_countries"].startswith("3 countries")


def test_the_count_a_story_lists_is_its_own_place() -> None:
    q = "Ann is -3 degrees. Bo is 5 degrees. Cy is 1 degree. What is the average of these 3 people?"
    starts = [q.index("3 degrees"), q.index("3 people")]
    assert restated_counts(q, starts, [frozenset({"degr"}), frozenset({"peop"})]) == [1]
    # "the 3 degrees" names the first place's noun: a restatement of it, no count of its own
    q2 = q.replace("these 3 people", "the 3 degrees")
    starts2 = [q2.index("3 degrees"), q2.rindex("3 degrees")]
    assert restated_counts(q2, starts2, [frozenset({"degr"}), frozenset({"degr"})]) == []


def test_without_words_that_tell_the_two_threes_apart_it_stays_refused(gsm8k: dict) -> None:
    # the trap: "of 3 countries" (no "these": a place of its own like the "-3 degrees") leaves
    # the words deciding neither use; tied by order, the item is refused
    seed = dict(gsm8k["490"])
    seed["question"] = seed["question"].replace("these 3 countries", "3 countries")
    with pytest.raises(RuleError, match="uncertain binding"):
        rule_for_seed(seed)


def test_a_restatement_keeps_one_given_for_its_uses(gsm8k: dict) -> None:
    # 299 "3 other people each bid once. Carmen bids after each of the 3 other people": both
    # "3 bids * $50" are the one "3 other people" (the restatement is no count of its own)
    words, sexprs = _givens_by_name(gsm8k["299"])
    threes = [n for n, w in words.items() if w.startswith("3 ")]
    assert len(threes) == 1 and sexprs[0] == sexprs[1] == f"(* {threes[0]} g2_time)"
