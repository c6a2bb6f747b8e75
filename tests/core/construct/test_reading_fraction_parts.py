"""A fraction the question states in words, used by the solution in two steps ("two thirds of
24": "24/3 = 8", then "2*8 = 16"): its parts and its numerator are word givens of that phrase
(``w_two_thirds_parts``, ``w_two_thirds_numerator``), never numbers the question does not
state; the parts used without the numerator ("three-fourths have one; 20 do not: 4 x 20") are
refused, since there the 4 is 1 / (1 - 3/4), equal to the parts only by the numerator's value.
A penny's hundredth of a dollar is a named constant. Real seeds, real Z3."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.verify.outcome import VerifyLimits
from qcstation.core.verify.pool import VerifierPool


@pytest.fixture(scope="module")
def z3pool():
    with VerifierPool(workers=1, limits=VerifyLimits()) as pool:
        yield pool


@pytest.mark.parametrize("sid, steps", [
    ("161", ["(assert (= s2_wednesday (/ s1_feet_water w_two_thirds_parts)))",
             "(assert (= s3_feet_water (* w_two_thirds_numerator s2_wednesday)))"]),
    ("714", ["(assert (= s1_sqft (/ g1_sq w_two_thirds_parts)))",
             "(assert (= s2_sq_ft (* s1_sqft w_two_thirds_numerator)))"]),
    ("262", ["(assert (= s1_pennies_cup (/ g1_pennies w_two_thirds_parts)))",
             "(assert (= s3_dollar_stack (/ s2_pennies_stack k_pennies_per_dollar)))"]),
])
def test_a_fraction_in_words_used_in_two_steps(gsm8k: dict, z3pool, sid: str, steps: list[str]) -> None:
    seed = gsm8k[sid]
    rule = rule_for_seed(seed)
    for line in steps:
        assert line in rule.smtlib
    assert "(assert (= w_two_thirds_parts 3))" in rule.smtlib
    assert "(assert (= w_two_thirds_numerator 2))" in rule.smtlib
    spans = {g["name"]: seed["question"][g["span"][0]:g["span"][1]] for g in rule.givens}
    assert spans["w_two_thirds_parts"] == spans["w_two_thirds_numerator"] == "two thirds"
    assert rule.bound is True
    assert z3pool.verify(rule.smtlib, seed["answer_text"]).ok


@pytest.mark.parametrize("sid", ["475", "994"])
def test_the_parts_without_the_numerator_are_refused(gsm8k: dict, sid: str) -> None:
    with pytest.raises(RuleError, match="used without the fraction's numerator"):
        rule_for_seed(gsm8k[sid])
