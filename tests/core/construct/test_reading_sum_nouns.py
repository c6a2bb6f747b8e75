"""A term of a sum or difference that is either a number of the question or an earlier result of
the same value is the one whose noun the sum's other terms count (issue 26.1), see
:mod:`qcstation.core.construct.make.rules.sum_nouns`; a decision that would leave the question's
number to another sum that counts something else is no decision: the seed stays refused.

The seeds are GSM8K *train* items (held out from tuning; their text is copied here)."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed

#: GSM8K train: "24 - 2" takes Lavinia's daughter's 2 years (step 1, "12 - 10 = 2 years old") from
#: the son's 24 years; the question's 2 is "2 times the age", which "12 * 2" multiplies by
AGES = {
    "question": "Lavinia’s daughter is 10 years younger than Katie’s daughter. Lavinia’s son is 2 times the "
                "age of Katie’s daughter. If Katie’s daughter is 12 years old, how many years older is "
                "Lavinia’s son than Lavinia’s daughter?",
    "solution": "Lavinia’s daughter is 12 - 10 = <<12-10=2>>2 years old\n"
                "Lavinia’s son is 12 * 2 = <<12*2=24>>24 years old\n"
                "Lavinia’s son is 24 - 2 = <<24-2=22>>22 years older than Lavinia’s daughter.",
    "answer_text": "22",
}

#: GSM8K train: the total's 5 is the third row's 5 blocks, but that leaves the "5-level" to
#: "5 - 2 = 3 blocks" (the fourth row's count of blocks): every reading binds the 5-level somewhere
#: it does not mean, so the seed stays refused
PYRAMID = {
    "question": "A child is making a 5-level pyramid by stacking some blocks. In the first row, he has 9 "
                "blocks. For the next rows, he has 2 less than the blocks he has from its bottom row. How "
                "many blocks did he use in all?",
    "solution": "On the second row, he used 9 - 2 = <<9-2=7>>7 blocks.\n"
                "On the third row, he used 7 - 2 = <<7-2=5>>5 blocks.\n"
                "On the fourth row, he used 5 - 2 = <<5-2=3>>3 blocks.\n"
                "On the fifth row, he used 3 - 2 = <<3-2=1>>1 block.\n"
                "Therefore, he used a total of 9 + 7 + 5 + 3 + 1 = <<9+7+5+3+1=25>>25 blocks.",
    "answer_text": "25",
}


def test_the_other_terms_noun_decides_a_difference() -> None:
    result = rule_for_seed(AGES)
    asserts = [ln for ln in result.smtlib.splitlines() if ln.startswith("(assert")]
    assert "(assert (= s2_years (* g1_years g3_times)))" in asserts  # 12 * 2: the "2 times"
    assert "(assert (= s3_years_older (- s2_years s1_years)))" in asserts  # 24 - 2: the daughter's 2 years
    assert result.value == 22
    (link,) = [x for x in result.links if x["step"] == "s3_years_older" and x["uses"] == "s1_years"]
    assert "other terms of its sum" in link["evidence"]


def test_a_decision_that_leaves_the_given_to_a_sum_of_another_noun_is_refused() -> None:
    with pytest.raises(RuleError, match="ambiguous solution"):
        rule_for_seed(PYRAMID)

