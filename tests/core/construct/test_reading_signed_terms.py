"""Which of two earlier results of one value a sum takes away and which it adds, by the words after
each result (issue 26.1, lane cover39), see
:mod:`qcstation.core.construct.make.rules.signed_terms`. Where neither or both are named a
decrease, which prose mention comes first decides nothing and the seed stays refused."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def _asserts(seed: dict) -> list[str]:
    return [ln for ln in rule_for_seed(seed).smtlib.splitlines() if ln.startswith("(assert")]


def test_the_result_named_a_decrease_is_taken_away(gsm8k: dict) -> None:
    # 1030 "44-10-6+6": "she then had (1/2)*12 = 6 fewer yellow balloons" is the 6 taken away,
    # "she added 0.75*8 = 6 blue balloons" the 6 added
    got = _asserts(gsm8k["1030"])
    assert "(assert (= s3_fewer_yellow (* w_half g3_yellow)))" in got
    assert "(assert (= s5_balloons (+ (- s1_balloons s2_fewer_red s3_fewer_yellow) s4_blue_balloons)))" in got


@pytest.mark.parametrize(("old", "new"), [
    # neither result named a decrease: only the order of the line's words would say
    ("6 fewer yellow balloons", "6 yellow balloons"),
    # both named a decrease
    ("she added 0.75*8=<<75*.01*8=6>>6 blue balloons", "she added 0.75*8=<<75*.01*8=6>>6 fewer blue balloons"),
])
def test_no_single_decrease_stays_refused(gsm8k: dict, old: str, new: str) -> None:
    seed = dict(gsm8k["1030"])
    assert old in seed["solution"]
    seed["solution"] = seed["solution"].replace(old, new)
    with pytest.raises(RuleError, match="ambiguous solution"):
        rule_for_seed(seed)
