"""An earlier result the solution writes as a percent ("100% - 40% = 60% of the quiz") of a value the
question states only as a count ("a 60-item quiz"), see
:mod:`qcstation.core.construct.make.rules.percent_results` and the independent check's
:func:`qcstation.core.construct.check.worded_links.percent_result_of_a_count_value`: the number a
step divides by 100 is that percent, the one it takes the percent of is the question's count.
Where the earlier result is written as no percent, or the question states the value as a percent
too, the words do not decide and the seed stays refused."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def _asserts(seed: dict) -> list[str]:
    return [ln for ln in rule_for_seed(seed).smtlib.splitlines() if ln.startswith("(assert")]


def test_the_percent_result_is_divided_by_100_and_the_count_is_the_question(gsm8k: dict) -> None:
    # 1022: "60 questions x 40/100 = 24 easy questions" takes 40% of the question's 60 items;
    # "60 questions x 60/100 = 36 average and difficult questions" takes the first step's 60% of them
    seed = gsm8k["1022"]
    assert "In a 60-item quiz" in seed["question"]
    got = _asserts(seed)
    for line in ("(assert (= g2_item 60))",
                 "(assert (= s1_quiz (- k_percent g1_pct)))",
                 "(assert (= s2_easy_questions (/ (* g2_item g1_pct) k_percent)))",
                 "(assert (= s3_average_difficult (/ (* g2_item s1_quiz) k_percent)))",
                 "(assert (= s5_points (/ s3_average_difficult w_half_parts)))"):
        assert line in got


def test_an_earlier_result_written_as_no_percent_stays_refused(gsm8k: dict) -> None:
    # "100 - 40 = 60 of the quiz": whether the 60 is a percent, the line no longer says
    seed = dict(gsm8k["1022"])
    seed["solution"] = seed["solution"].replace("100% - 40% = 60% of the quiz", "100 - 40 = 60 of the quiz")
    assert "100 - 40 = 60 of the quiz" in seed["solution"]
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_a_question_that_states_the_value_as_a_percent_too_stays_refused(gsm8k: dict) -> None:
    # the question's 60 is "60-item" and "60% of the easy questions": the step's "60/100" may be
    # the question's percent
    seed = dict(gsm8k["1022"])
    seed["question"] = seed["question"].replace("75% of the easy questions", "60% of the easy questions")
    assert "60% of the easy questions" in seed["question"]
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_a_hundred_the_percent_is_taken_from_is_the_percents(gsm8k: dict) -> None:
    # 871: "$400/4 = $100 per week", "Keenan pays for 100-60 = 40% of the groceries" (100%, not the
    # $100 a week), "$100*(40/100) = $40 per week" (the $100 a week, over the percent's hundred)
    seed = gsm8k["871"]
    assert "Madeline pays 60% of the cost" in seed["question"]
    got = _asserts(seed)
    for line in ("(assert (= s1_week (/ g1_month g2_week)))",
                 "(assert (= s2_groceries (- k_percent g3_pct)))",
                 "(assert (= s3_week (/ (* s1_week s2_groceries) k_percent)))"):
        assert line in got
    assert rule_for_seed(seed).value == 40


def test_a_difference_written_as_no_percent_stays_refused(gsm8k: dict) -> None:
    # "100-60 = 40 of the groceries": whether 100 is the whole percent or the $100 a week, the
    # result no longer says
    seed = dict(gsm8k["871"])
    seed["solution"] = seed["solution"].replace("<<100-60=40>>40%", "<<100-60=40>>40")
    assert "<<100-60=40>>40 of" in seed["solution"]
    with pytest.raises(RuleError):
        rule_for_seed(seed)
