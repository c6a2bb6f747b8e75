"""The days of a week the question counts by naming them (issue 26.1, lane cover20): a range of
weekdays is its named constant, the rest of the week is the week's days less each day counted
before it; refused where the line does not say it or the days before are not read one way."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.constants import factor_value
from qcstation.core.construct.make.rules.givens import question_numbers
from qcstation.core.construct.make.rules.weekdays import week_days
from qcstation.core.reading.expr import BinOp, Num, evaluate


def _steps(seed: dict) -> dict[str, str]:
    return {st.name.split("_")[0]: st.sexpr for st in rule_for_seed(seed).steps}


def test_a_range_of_weekdays_and_the_rest_of_the_week(gsm8k: dict) -> None:
    # 571 "From Sunday through Wednesday ... For the rest of the week" / "For four days (Sunday
    # through Wednesday) he will spend 4*$10", "For the remaining 3 days he will spend 3*$10"
    rule = rule_for_seed(gsm8k["571"])
    steps = _steps(gsm8k["571"])
    assert steps["s2"] == "(* k_days_sunday_through_wednesday s1_equal_day)"
    assert "k_days_sunday_through_wednesday)" in steps["s4"] and "k_days_per_week" in steps["s4"]
    assert rule.value == 23
    assert factor_value("k_days_sunday_through_wednesday") == 4
    assert factor_value("k_days_friday_through_monday") == 4  # across the week's end


def test_the_rest_of_the_week_after_an_ordinal_day(gsm8k: dict) -> None:
    # 1264 "on the first day. The next day ... on the third day ... each day the rest of the week" /
    # "For the remaining days of the week ... 60 people/day * 4 days"
    rule = rule_for_seed(gsm8k["1264"])
    assert _steps(gsm8k["1264"])["s3"] == "(* g3_people (- k_days_per_week k_days_through_the_third_day))"
    assert rule.value == 500


def _days(question: str, line: str, value: int) -> object:
    e = BinOp("*", Num(Fraction(value), str(value)), Num(Fraction(10), "10"))
    return week_days([0], [e], question_numbers(question), line)[0]


def test_the_rest_of_the_week_counts_what_the_question_names_before_it() -> None:
    q = "Tom ran 3 miles on Monday and on Tuesday he ran 4 miles. For the rest of the week he ran 2 miles a day."
    got = _days(q, "For the rest of the week he ran 5*2 = 10 miles", 5)
    assert isinstance(got, BinOp) and evaluate(got.left) == 5            # 7 - Monday - Tuesday
    assert "k_one_monday" in repr(got) and "k_one_tuesday" in repr(got)
    # a line that does not say the rest: the 5 may be any quantity of that value
    assert _days(q, "He ran 5*2 = 10 miles", 5) == BinOp("*", Num(Fraction(5), "5"), Num(Fraction(10), "10"))
    # a value that is not the rest
    assert _days(q, "For the rest of the week he ran 6*2 = 12 miles", 6) == \
        BinOp("*", Num(Fraction(6), "6"), Num(Fraction(10), "10"))


def test_a_range_needs_the_line_to_write_both_days() -> None:
    q = "From Monday to Thursday she swims 2 laps a day. How many laps?"
    e = BinOp("*", Num(Fraction(4), "4"), Num(Fraction(2), "2"))
    got = week_days([0], [e], question_numbers(q), "Monday to Thursday is 4 days: 4*2 = 8 laps")[0]
    assert got == BinOp("*", Num(Fraction(4), "k_days_monday_through_thursday"), Num(Fraction(2), "2"))
    assert week_days([0], [e], question_numbers(q), "She swims 4*2 = 8 laps")[0] == e


def test_days_counted_two_ways_stay_refused() -> None:
    # "the first day" and a weekday name: which days came before the rest is not read one way
    q = ("On the first day, Monday, she read 10 pages. On the third day she read 20 pages. "
         "The rest of the week she read 5 pages a day. How many pages did she read in the week?")
    sol = ("She read 10 + 20 = <<10+20=30>>30 pages.\nThe remaining 4 days she read 4*5 = <<4*5=20>>20 pages.\n"
           "In all 30 + 20 = <<30+20=50>>50 pages.")
    with pytest.raises(RuleError, match="writes the number 4"):
        rule_for_seed({"question": q, "solution": sol, "answer_text": "50", "source": "gsm8k"})
    one_way = q.replace("On the first day, Monday, she", "On the first day she")
    made = rule_for_seed({"question": one_way, "solution": sol, "answer_text": "50", "source": "gsm8k"})
    assert made.steps[1].sexpr == "(* (- k_days_per_week k_days_through_the_third_day) g3_pages)"


def test_a_list_of_weekdays_counts_its_days(gsm8k: dict) -> None:
    # 155 "On Mondays, Wednesdays, and Fridays, college student Kimo has three 1-hour classes each
    # day. On Tuesdays and Thursdays, he has two 2-hour classes each day": "3 x 1 = 3 hours ... on
    # any given Monday", then "Each week, he spends 3 x 3 = 9 hours in class on Monday, Wednesday,
    # and Friday": the 3 days the line names, not the "three" classes a second time; "4 x 2 = 8
    # hours in class on Tuesday and Thursday" the 2 days, not the "2" of "2-hour"
    seed = gsm8k["155"]
    rule = rule_for_seed(seed)
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    assert steps["s1"] == "(* g1 g5_hour)"
    assert steps["s2"] == "(* w_mondays_wednesdays_and_fridays s1_hours_class)"
    assert steps["s4"] == "(* g3 g4_hour)"
    assert steps["s5"] == "(* s4_hours_class w_tuesdays_and_thursdays)"
    spans = {g["name"]: seed["question"][g["span"][0]:g["span"][1]] for g in rule.givens}
    assert spans["g1"] == "three" and spans["g5_hour"] == "1" and spans["g3"] == "two" and spans["g4_hour"] == "2"
    assert spans["w_mondays_wednesdays_and_fridays"] == "Mondays, Wednesdays, and Fridays"
    assert spans["w_tuesdays_and_thursdays"] == "Tuesdays and Thursdays"
    assert rule.value == 272 and rule.bound


def test_a_list_count_needs_weekdays_and_words() -> None:
    # near misses of 155: the days said by no list ("On three days of the week"), the 1 of the
    # hour not written right after the count of classes: the words decide nothing, refused
    q = ("On Mondays, Wednesdays, and Fridays, college student Kimo has three 1-hour  classes each day.  "
         "On Tuesdays and Thursdays, he has two 2-hour classes each day.  In one semester, there are 16 weeks "
         "of school.  In one semester, how many hours does Kimo spend attending classes?")
    s = ("Kimo spends 3 x 1 = <<3*1=3>>3 hours in class on any given Monday, Wednesday or Friday.\n"
         "Each week, he spends 3 x 3 = <<3*3=9>>9 hours in class on Monday, Wednesday, and Friday.\n"
         "In one semester, he spends 9 x 16 = <<9*16=144>>144 hours in class for Monday, Wednesday, and Friday.\n"
         "He spends 2 x 2 = <<2*2=4>>4 hours in class on any given Tuesday or Thursday.\n"
         "Each week, he spends 4 x 2 = <<4*2=8>>8 hours in class on Tuesday and Thursday.\n"
         "In one semester, he spends 8 x 16 = <<8*16=128>>128 hours in class on Tuesday and Thursday.\n"
         "In total for one semester, Kimo spends 144 + 128 = <<144+128=272>>272 hours attending classes.")
    assert rule_for_seed({"question": q, "solution": s, "answer_text": "272", "source": "gsm8k"}).value == 272
    for near in (q.replace("On Mondays, Wednesdays, and Fridays", "On three days of the week"),
                 q.replace("has three 1-hour  classes each day", "has three classes each day, each 1-hour long")):
        with pytest.raises(RuleError):
            rule_for_seed({"question": near, "solution": s, "answer_text": "272", "source": "gsm8k"})


def test_a_list_of_things_is_no_count_of_days(gsm8k: dict) -> None:
    # 204 "He ate cheese and egg omelets ... one more slice per omelet than he did per sandwich" /
    # "so they used 2 + 1": the 2 slices per sandwich again (an earlier step's), never the two of
    # "cheese and egg"
    steps = {st.name.split("_")[0]: st.sexpr for st in rule_for_seed(gsm8k["204"]).steps}
    assert steps["s2"] == "(+ g1_slices g2_slice)"


def test_a_range_to_the_end_of_a_named_day() -> None:
    q = ("A coach advises running at least 3 miles per day. From breakfast on Sunday to the end of the day on "
         "Wednesday, Kim has run 9 miles. How many miles per day does Kim need to run to meet the minimum for the week?")
    seed = {"question": q, "answer_text": "4", "source": "gsm8k", "solution":
            "There are 7 days in a week, so the week needs 7 days * 3 miles = <<7*3=21>>21 miles.\nKim has 21 - 9 = "
            "<<21-9=12>>12 miles left.\nSunday through Wednesday is 4 days, so 7 days - 4 days = <<7-4=3>>3 days are "
            "left.\nShe needs 12 / 3 = <<12/3=4>>4 miles per day.\n#### 4"}
    steps = _steps(seed)
    assert steps["s3"] == "(- k_days_per_week k_days_sunday_through_wednesday)"
    assert rule_for_seed(seed).value == 4
