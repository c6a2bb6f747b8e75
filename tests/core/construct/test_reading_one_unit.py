"""A unit the question states as a quantity ("in 1 hour") that the solution writes converted
("He spends 60/2 = 30 minutes in turtle mode", GSM8K 684): the named factor stood alone for the
question's hour, so no given was tied to "1 hour" (issue 26: a number's use bound by its
words). Now the 1 is a given at its place and the use is that given converted. Real seeds."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import rule_for_seed


@pytest.mark.parametrize(("sid", "step", "place"), [
    ("684", "(assert (= s1_minutes_turtle (/ (* g2_hour k_minutes_per_hour) w_half_parts)))", "1 hour, or"),
    # "1 hour and 30 minutes": "One hour has 60 minutes. The first movie is 60 + 30"
    ("582", "(assert (= s1_minutes_long (+ (* g4_hour k_minutes_per_hour) g1_minutes)))", "1 hour and"),
])
def test_the_one_of_a_unit_the_factor_stood_for_is_a_given(gsm8k: dict, sid: str, step: str, place: str) -> None:
    seed = gsm8k[sid]
    rule = rule_for_seed(seed)
    assert step in rule.smtlib.splitlines()
    one = [g for g in rule.givens if g["name"].endswith("_hour") and g["value"] == "1"]
    assert len(one) == 1
    a, _ = one[0]["span"]
    assert seed["question"][a:a + len(place)] == place
    assert rule.bound


def test_a_conversion_of_another_quantity_is_no_stand_in(gsm8k: dict) -> None:
    # 1289: "840/60 = 14 hours" converts the minutes: the factor divides; its "1 hour of yoga" is
    # its own given already (g3_hour)
    rule = rule_for_seed(gsm8k["1289"])
    assert "(assert (= s4_hours (/ s3_minutes k_minutes_per_hour)))" in rule.smtlib.splitlines()
    assert [g["name"] for g in rule.givens if g["value"] == "1"] == ["g3_hour"]
    # 582's "2 hours is 2 x 60": the factor multiplies the given 2, unchanged
    assert "(assert (= s2_minutes (* g2_hours k_minutes_per_hour)))" in rule_for_seed(gsm8k["582"]).smtlib
