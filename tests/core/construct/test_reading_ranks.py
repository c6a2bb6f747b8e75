"""A rank the question writes as the ordinal "first" that a solution writes as 1 (issue 26.1, lane
cover20): the named first place, never a 1 the question states; refused where the line does not
write the rank."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.givens import question_numbers
from qcstation.core.construct.make.rules.ranks import first_place
from qcstation.core.reading.expr import BinOp, Num


def test_the_first_place_is_a_named_rank(gsm8k: dict) -> None:
    # 465 "She started off in first, but then fell back 5 spots ... jumped ahead 1 spot" /
    # "Finley started off at 1st place but then lost 5 spots, which translates to 1+5"
    rule = rule_for_seed(gsm8k["465"])
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    assert steps["s1"] == "(+ k_one_first_place g1_spots)"
    assert steps["s4"] == "(- s3_th_place g4_spot)"          # the stated "1 spot" keeps its given
    assert rule.value == 6


def test_the_rank_needs_its_words() -> None:
    q = "She started off in first, but then fell back 5 spots. What place did she finish in?"
    e = BinOp("+", Num(Fraction(1), "1"), Num(Fraction(5), "5"))
    assert first_place([0], [e], question_numbers(q), "at 1st place, then 1+5 = 6th")[0] \
        == BinOp("+", Num(Fraction(1), "k_one_first_place"), Num(Fraction(5), "5"))
    assert first_place([0], [e], question_numbers(q), "so 1+5 = 6th")[0] == e                 # no rank on the line
    day = "On the first day she ran 5 laps. What place?"
    assert first_place([0], [e], question_numbers(day), "at 1st place, then 1+5 = 6th")[0] == e  # a first day


def test_a_one_the_line_does_not_rank_stays_refused() -> None:
    q = "She started off in first, but then fell back 5 spots. What place did she finish in?"
    with pytest.raises(RuleError, match="writes the number 1"):
        rule_for_seed({"question": q, "solution": "She is 1+5=<<1+5=6>>6th.", "answer_text": "6",
                       "source": "gsm8k"})


def test_the_stories_up_to_a_floor_the_question_names(gsm8k: dict) -> None:
    # 1090 "he drops it from the third-floor balcony in the mall, where each story is 24 feet high" /
    # "24 feet/story * 3 stories = 72 feet"
    rule = rule_for_seed(gsm8k["1090"])
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    assert steps["s1"] == "(* g1_feet k_stories_up_to_the_third_floor)"
    assert rule.value == 32


def test_a_floor_needs_stories_on_the_line() -> None:
    from qcstation.core.construct.make.rules.ranks import floors

    q = "He drops it from the third-floor balcony, where each story is 24 feet high. How high?"
    e = BinOp("*", Num(Fraction(24), "24"), Num(Fraction(3), "3"))
    assert floors([0], [e], question_numbers(q), "24 feet/story * 3 stories = 72 feet")[0] == \
        BinOp("*", Num(Fraction(24), "24"), Num(Fraction(3), "k_stories_up_to_the_third_floor"))
    assert floors([0], [e], question_numbers(q), "24 * 3 = 72 feet")[0] == e        # no stories said
    assert floors([0], [e], question_numbers(q.replace("third-floor", "top")), "24 * 3 stories")[0] == e
