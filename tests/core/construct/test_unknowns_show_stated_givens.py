"""What a fresh reading of 25 random GSM8K test seeds (random.Random(89), 2026-11-27) found:
a '?' in the unknown quantities that hid a given the question states, because a step computes
the same value."""

from __future__ import annotations

from fractions import Fraction

from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.check.reread import value_leaks
from qcstation.core.construct.make.rules import rule_for_seed


def _unknowns(seed: dict) -> list[str]:
    rule = rule_for_seed(seed)
    return keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps,
                                    givens=rule.givens)["unknown_quantities"]


def test_8_the_given_40_percent_is_shown_though_a_step_computes_40_minutes(gsm8k: dict) -> None:
    q1, q2, q3, q4 = _unknowns(gsm8k["8"])
    assert q1 == "Q1: First find how many gigabytes are in 40% of the file: ? GB"
    assert "download 40% of the file" in q4 and "Q2 of the file" not in q4


def test_420_oliver_s_elevation_is_shown_though_the_answer_is_the_same_number(gsm8k: dict) -> None:
    q2 = _unknowns(gsm8k["420"])[1]
    assert q2.startswith("Q2: Thus Oliver, who was at an elevation of 3,000 feet, must climb ? feet")
    # the audit reads it as the given it is, not as the answer shown
    assert value_leaks([q2], gsm8k["420"]["question"], gsm8k["420"]["solution"], Fraction(3000)) == []


def test_the_answer_in_the_words_of_a_given_stays_hidden(gsm8k: dict) -> None:
    # 53: "He needs to remove 15 toys" is the answer; the question's 15 is "remove 15 pounds"
    assert _unknowns(gsm8k["53"])[-1].startswith("Q3: He needs to remove ? toys")
    # 360: "He bought 4 pounds of candy" is the answer; the question's "bought 40 gumballs" has no 4
    assert _unknowns(gsm8k["360"])[-1].startswith("Q4: He bought ? pounds of candy")
    leak = "Q3: He needs to remove 15 toys"
    assert value_leaks([leak], gsm8k["53"]["question"], gsm8k["53"]["solution"], Fraction(15)) != []
