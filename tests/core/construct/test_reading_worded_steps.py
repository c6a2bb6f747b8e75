"""A solution that computes numbers of the question in words its annotations miss ("8 times 1/2
equals 4 ... 12 plus 14 plus 4 equals 30", 738) is read again with those computations as steps
when its first reading leaves the question's numbers it works with unused (issue 26, point 1), see
:func:`qcstation.core.construct.make.rules.calculator.smt_from_calculator_annotations`; and an
operator written as a word ("equals", "plus", "minus") names no number it follows, while "equal"
still may ("3 equal portions", 671, stays refused: the 3 people are not Robert's 3 pounds)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.reading.words import words_after_value


def test_computations_in_words_are_steps_when_the_annotations_leave_givens_unused(gsm8k: dict) -> None:
    got = [ln for ln in rule_for_seed(gsm8k["738"]).smtlib.splitlines() if ln.startswith("(assert")]
    for line in ("(assert (= g6_ounce (/ 1 2)))", "(assert (= g7_ounces 32))",
                 "(assert (= s3_water_because (* g5_small g6_ounce)))",
                 "(assert (= s4_water_because (+ s1_times_equals s2_times_equals s3_water_because)))",
                 "(assert (= s5_minus_equals (- g7_ounces s4_water_because)))"):
        assert line in got


def test_a_worded_operator_names_nothing_but_equal_portions_do() -> None:
    assert words_after_value("3 times 4 equals 12.", Fraction(4)) == [[]]
    assert words_after_value("12 plus 14 plus 4 equals 30", Fraction(12)) == [[]]
    assert words_after_value("they divide the candy into 3 equal portions.", Fraction(3)) == [["equal", "portions"]]


def test_the_number_of_sharers_is_not_a_stated_weight(gsm8k: dict) -> None:
    # 671 "divide the candy into 3 equal portions. 12/3": the 3 people sharing, which the question
    # states only as "three" in no number; its "3 pounds" is Robert's candy
    with pytest.raises(RuleError, match="given-words"):
        rule_for_seed(gsm8k["671"])


def test_a_second_reading_that_fails_keeps_the_first_reason(gsm8k: dict) -> None:
    # 676 ("There are 36 total toys.": the sum no line computes): no computation in words, so the
    # first reason stands (116, pinned here before, is made since its "2 x 4s" read as a name)
    with pytest.raises(RuleError, match="the answer step does not use the given"):
        rule_for_seed(gsm8k["676"])
