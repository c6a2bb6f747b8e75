"""A 1 a step adds or takes away on a line that names the year the question puts one year from now
("Last year Dallas was 3 times the age of his sister Darcy" / "Last year Darcy was 16 - 1", "Dallas
is a year older now = 45 + 1") is the one year the words imply (issue 26.1), see
:func:`qcstation.core.construct.make.rules.ones._year_gap`: the named constant
``k_one_year_last_year``, never a given of equal value. A line that names no such year, or a 1
that counts something else, stays refused.

The seed is a GSM8K *train* item (held out from tuning; its text is copied here)."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed

AGES = {
    "question": "Last year Dallas was 3 times the age of his sister Darcy. Darcy is twice as old as Dexter who is 8 "
                "right now. How old is Dallas now?",
    "solution": "Darcy = 2*Dexter = 2*8 = 16\n"
                "Last year Darcy was 16 - 1 = <<16-1=15>>15\n"
                "Dallas was 3 times Darcy last year = 3*15 = <<3*15=45>>45\n"
                "Dallas is a year older now = 45 + 1 = <<45+1=46>>46\n"
                "Dallas is 46 years old now.",
    "answer_text": "46",
}


def test_last_years_one_is_the_year_the_words_imply() -> None:
    result = rule_for_seed(AGES)
    got = [ln for ln in result.smtlib.splitlines() if ln.startswith("(assert")]
    assert "(assert (= k_one_year_last_year 1))" in got
    assert "(assert (= s2_year_darcy (- s1_darcy_dexter k_one_year_last_year)))" in got
    assert "(assert (= s4_year_older (+ s3_darcy_year k_one_year_last_year)))" in got
    assert "(assert (= g2_times 3))" in got and "(assert (= g1_right 8))" in got
    assert result.value == 46


@pytest.mark.parametrize("solution", [
    # the line names no year: the 1 is tied by no words
    AGES["solution"].replace("Last year Darcy was 16 - 1", "Darcy was 16 - 1"),
    # the line's 1 counts an apple, not a year
    AGES["solution"].replace("Last year Darcy was 16 - 1", "Last year Darcy was 16 - 1 apple"),
])
def test_a_1_no_year_of_the_line_ties_stays_refused(solution: str) -> None:
    with pytest.raises(RuleError, match="writes the number 1"):
        rule_for_seed(dict(AGES, solution=solution))
