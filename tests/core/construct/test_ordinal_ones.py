"""The one thing an ordinal names (issue 26.1, lane covB): a bare 1 a step adds or takes away where
the question writes "the first <noun>" (or second, last...) and the 1 counts that noun, on the line
("1 week + 1 week") or in the step's result ("16-1 = 15 tiles left"). Never a 1 of another noun."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from tests.core.construct.seeds import gsm8k_seed as _seed


def test_the_first_and_the_second_week_are_one_week_each() -> None:
    q = ("Ana paints 40 fences. She paints 5 fences the first week and 11 fences the second week, then 8 fences "
         "every week after that. How many weeks does she paint?")
    made = rule_for_seed(_seed(q, "She has 40-5-11=<<40-5-11=24>>24 fences left.\nThat takes 24/8=<<24/8=3>>3 weeks."
                                  "\nShe paints for 1 week + 1 week + 3 weeks = <<1+1+3=5>>5 weeks.\n#### 5", "5"))
    assert made.value == 5
    assert made.steps[-1].sexpr == "(+ k_one_the_first_week k_one_the_second_week s2_weeks)"


def test_the_result_counts_what_the_ordinal_names() -> None:
    q = "A path has 16 tiles. The first tile is white and the others are grey. How many grey tiles are there?"
    made = rule_for_seed(_seed(q, "There are 16-1=<<16-1=15>>15 tiles left.\n#### 15", "15"))
    assert made.steps[0].sexpr == "(- g1_tiles k_one_the_first_tile)"
    # the same one again, the result's noun after an adjective
    q = ("A path has 17 tiles. The first tile is white and half of the other tiles are white too. "
         "How many white tiles are there?")
    made = rule_for_seed(_seed(q, "There are 17-1=<<17-1=16>>16 tiles left.\nSo 16/2=<<16/2=8>>8 of them are white."
                                  "\nIn all there are 8+1=<<8+1=9>>9 white tiles.\n#### 9", "9"))
    assert made.steps[-1].sexpr.endswith(" k_one_the_first_tile)")


@pytest.mark.parametrize("question, solution", [
    # the 1 counts centimeters, not the third stick
    ("Ina has a stick of 6 centimeters. The third stick is shorter than it. How long is the third stick?",
     "The third stick is 6 - 1 = <<6-1=5>>5 centimeters long.\n#### 5"),
    # four ordinals of days, the line names none
    ("It rained for 4 days: 2 inches the first day, 6 the second day, 7 the third day and 5 the fourth day. "
     "The pond drains 8 inches a day except the fourth day. How much does it drain?",
     "It drained for 4-1=<<4-1=3>>3 days.\nSo 8*3=<<8*3=24>>24 inches.\n#### 24"),
])
def test_a_one_of_another_noun_or_of_no_ordinal_stays_refused(question: str, solution: str) -> None:
    with pytest.raises(RuleError, match="writes the number 1"):
        rule_for_seed(_seed(question, solution, solution.rsplit(" ", 1)[-1]))


def test_a_line_that_names_another_ordinal_is_not_the_questions() -> None:
    q = ("Mia has 50 grapes. She eats 5 of them at once. Starting on the second day, she eats 5 each day. "
         "How many days does it take her to eat them all?")
    with pytest.raises(RuleError, match="writes the number 1"):
        rule_for_seed(_seed(q, "After the first 5, 50-5=<<50-5=45>>45 grapes are left.\n"
                               "That takes 45/5=<<45/5=9>>9 days.\n"
                               "She also ate on the first day, so 9 + 1 = <<9+1=10>>10 days.\n#### 10", "10"))
