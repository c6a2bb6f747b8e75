"""Percents a solution writes in a form the question does not (issue 26.1, lane covA): the parts
of a percent it divides by ("25% less than the 2nd's 24 hot dogs, which is 24/4"), and a share the
last step writes as a decimal where the question asks a percentage ("What percentage ... ?" /
"12/15 = .8"). Each is the question's own percent or the named percent factor, never a given of
equal value, and only where the words say so."""

from __future__ import annotations

import json

import pytest

from qcstation.core.construct.check.selfcheck import audit_artifact
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.verify.pool import VerifierPool
from tests.core.construct.seeds import gsm8k_seed as _seed


def _asserts(smtlib: str) -> set[str]:
    return {line for line in smtlib.splitlines() if line.startswith("(assert")}


def _verified(seed: dict[str, str], z3pool: VerifierPool) -> None:
    rule = rule_for_seed(seed)
    assert z3pool.verify(rule.smtlib, seed["answer_text"]).ok
    content = {"smtlib": rule.smtlib, "givens": rule.givens, "links": rule.links}
    assert audit_artifact("reasoning", json.dumps(content), seed) == []


_APPLES = _seed("Tom had 40 apples. He gave away 25% of them to his sister. How many apples does he have left?",
                "He gave away 25% of the 40 apples, which is 40/4=<<40/4=10>>10 apples.\n"
                "He has 40-10=<<40-10=30>>30 apples left.", "30")


def test_a_divisor_that_is_the_parts_of_the_percent_the_line_writes(z3pool: VerifierPool) -> None:
    rule = rule_for_seed(_APPLES)
    asserts = _asserts(rule.smtlib)
    pct = next(g for g in rule.givens if g["text"] == "25%")
    assert f"(assert (= {pct['name']} (/ 25 100)))" in asserts
    # the 4 is the question's 25%, so a derived item moving the percent moves the share
    assert any(a.startswith("(assert (= s1_") and f"(* g1_apples {pct['name']})" in a for a in asserts)
    assert not any(g["value"] == "4" for g in rule.givens)
    _verified(_APPLES, z3pool)


def test_the_parts_of_a_percent_need_the_line_to_write_it() -> None:
    # "Of those only 50% respond. He removes everyone who did not respond" / "removes 60/2": the 2
    # is the half that did not respond (the rest of the percent), which no words tie to the 50%
    with pytest.raises(RuleError, match="writes the number 4"):
        rule_for_seed({**_APPLES, "solution": _APPLES["solution"].replace("25% of the 40", "the 40")})
    # two percents of that value: which one the 4 is no words tell
    with pytest.raises(RuleError):
        rule_for_seed({**_APPLES, "question": _APPLES["question"].replace(
            "to his sister.", "to his sister and 25% of the pears to his brother. He had 8 pears.")})
    # the question states 4 itself: the binder reads it, not this reading
    # a percent divided by the percent ("40%/10% = 4 sets of 10%") is a ratio of two percents
    chips = _seed("Three blue chips are in a jar which is 10% of the entire chips. If 50% of the chips are white "
                  "and the rest are green, how many green chips are there?",
                  "10% + 50% = 60% of the chips in the jar are not green.\n"
                  "So, 100% - 60% = 40% of the chips are green.\n"
                  "There are 40%/10% = 4 sets of 10% to make 40%.\n"
                  "Hence, there are 3 chips x 4 sets = <<3*4=12>>12 green chips.", "12")
    assert "(assert (= s3_sets (/ s2_chips_green g1_pct)))" in rule_for_seed(chips).smtlib
    shared = rule_for_seed(_seed(
        "Tom had 40 apples. He gave away 25% of them to his 4 friends, sharing equally. How many did each friend get?",
        "He gave away 25% of 40 apples, which is 40*25/100=<<40*25/100=10>>10 apples.\n"
        "Each friend got an equal part of the 25% share: 10/4=<<10/4=2.5>>2.5 apples.", "2.5"))
    assert "(/ s1_apples g3_friends)" in shared.smtlib


_GLASSES = _seed("A class has 20 students and 5 of them wear glasses. What percentage of the students wear glasses?",
                 "The share of the students who wear glasses is 5/20=<<5/20=.25>>.25", "25")


def test_a_share_converted_to_the_percentage_asked(z3pool: VerifierPool) -> None:
    rule = rule_for_seed(_GLASSES)
    asserts = _asserts(rule.smtlib)
    assert "(assert (= k_percent 100))" in asserts
    assert "(assert (= s2_percent (* s1_wear_glasses k_percent)))" in asserts
    assert "(assert (= answer s2_percent))" in asserts
    assert rule.value == 25 and not any(g["value"] == "100" for g in rule.givens)
    _verified(_GLASSES, z3pool)


def test_the_percentage_conversion_near_misses() -> None:
    # not asked as a percentage
    with pytest.raises(RuleError, match="final answer 25 is not produced"):
        rule_for_seed({**_GLASSES, "question": _GLASSES["question"].replace("What percentage", "How many")})
    # the last result is an amount of money, not a share
    with pytest.raises(RuleError, match="final answer 25 is not produced"):
        rule_for_seed({**_GLASSES, "solution": "Each costs $5/20 = $<<5/20=.25>>.25"})
    # the conversion does not give the gold
    with pytest.raises(RuleError, match="final answer 20 is not produced"):
        rule_for_seed({**_GLASSES, "answer_text": "20"})


_ACCESSORIES = _seed("Jeremy bought a computer for $3000, and some accessories for 10% of the price of the computer. "
                     "How much did he spend in all?",
                     "The cost of the accessories is 3000 * 1/10 = $<<3000*1/10=300>>300.\n"
                     "In all he spent 3000 + 300 = $<<3000+300=3300>>3300.", "3300")


def test_the_percent_written_as_the_fraction_it_is(z3pool: VerifierPool) -> None:
    # "10% of the price" / "3000 * 1/10": the 1/10 is the question's 10%, its 1 no count
    rule = rule_for_seed(_ACCESSORIES)
    pct = next(g for g in rule.givens if g["text"] == "10%")
    assert any(f"(* g1 {pct['name']})" in a for a in _asserts(rule.smtlib))
    _verified(_ACCESSORIES, z3pool)
    # "1/10 * 3000" reads alike
    flipped = {**_ACCESSORIES, "solution": _ACCESSORIES["solution"].replace("3000 * 1/10 = $<<3000*1/10=300>>",
                                                                            "1/10 * 3000 = $<<1/10*3000=300>>")}
    assert "(assert (= s1_accessories (* g1_pct g2)))" in _asserts(rule_for_seed(flipped).smtlib)
    # the question states a tenth of its own: which one the 1/10 is no words tell (refused, as before)
    with pytest.raises(RuleError):
        rule_for_seed({**_ACCESSORIES, "question": _ACCESSORIES["question"].replace(
            "How much", "He gave a tenth of the accessories away. How much")})
