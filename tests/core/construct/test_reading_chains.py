"""A solution whose first reading leaves a number of the question unused or its answer unproduced
is read again with the computations the inline reader leaves (issue 26.1, lane cover33, see
:mod:`qcstation.core.construct.make.rules.chains`): a chain of equal terms ("5+2(3)=5+6=11") as its
first term, and a computation whose result is written as a fraction ("2/40 = 1/20"), which a later
step's fraction of that same text ("1/(1/10)") is (:func:`~.chains.protect_chain_fractions`)."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.calculator import mask_annotations
from qcstation.core.construct.make.rules.chains import chained_computations


def _asserts(seed: dict) -> list[str]:
    return [ln for ln in rule_for_seed(seed).smtlib.splitlines() if ln.startswith("(assert")]


def test_fraction_results_are_steps_a_later_fraction_of_their_text_uses(gsm8k: dict) -> None:
    # 1134: "2/40 = 1/20 miles per minute", "2 * 1/20 = 1/10 miles per minute",
    # "1/(1/10) = <<1/(1/10)=10>>10 minutes", "40+10 = <<40+10=50>>50": the beach's 2 miles over its
    # 40 minutes, twice that rate on the sidewalk, its 1 mile at that rate, plus the beach's 40
    result = rule_for_seed(gsm8k["1134"])
    assert result.value == 50
    got = _asserts(gsm8k["1134"])
    for line in ("(assert (= s1_miles_minute (/ g1_miles g2_minutes)))",
                 "(assert (= s2_miles_minute (* w_twice s1_miles_minute)))",
                 "(assert (= s3_minutes (/ g3_mile s2_miles_minute)))",
                 "(assert (= s4_minutes_walk (+ g2_minutes s3_minutes)))"):
        assert line in got
    q = gsm8k["1134"]["question"]
    places = {g["name"]: q[g["span"][0]:q.find(" on", g["span"][0])] for g in result.givens}
    assert places["g1_miles"] == "2 miles of walking"
    assert places["g3_mile"] == "1 mile of walking"


def test_a_fraction_no_earlier_line_writes_as_its_result_is_no_link(gsm8k: dict) -> None:
    # the same solution with the sidewalk's rate not written as "= 1/10": the "1/10" of
    # "1/(1/10)" is then a number no line computes and no words of the question give
    seed = dict(gsm8k["1134"])
    seed["solution"] = seed["solution"].replace("2 * 1/20 = 1/10 miles per minute", "twice 1/20 miles per minute")
    assert "1/10 miles" not in seed["solution"]
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_a_chain_of_equal_terms_is_its_first_term() -> None:
    found = chained_computations(mask_annotations("Harry:5+2(3)=5+6=11 trees\n11-3=<<11-3=8>>8 trees"))
    assert [(raw, text, str(value)) for _, _, raw, text, _, value, _ in found] == [
        ("5+2(3)=5+6=11", "5+2(3)", "11")]


@pytest.mark.parametrize("text", [
    "So 1/2 off of 1 pound is $3/2 = $1.50+$3.00=$4.50",   # a running total: its terms differ
    "He has 4 x 3 = 12 + 2 = 14 apples",                   # the same
    "Ferdinand has 6/2 = 3 trees",                         # one '=' and a whole result: the inline reader's
])
def test_a_running_total_or_a_plain_computation_is_no_chain(text: str) -> None:
    assert chained_computations(text) == []


def test_a_remaining_share_whose_numerator_a_step_divides_by_stays_refused(gsm8k: dict) -> None:
    # 385 "1 - 3/5 = 2/5 ... 1/5 is equal to 12.8/2": the 2 is the rest's numerator, which no
    # line computes as a number: read again with the chain, still refused
    with pytest.raises(RuleError):
        rule_for_seed(gsm8k["385"])
