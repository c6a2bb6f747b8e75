"""An unknown of rule-made key information never states an earlier unknown's value in words (issue
26, lane kiU): "Each of the stalls gets four cows, meaning ..." where Q1 is the four new cows (GSM8K
test 255), "One foot less than 5 feet is ? feet" where Q1 is the foot (held-out train 265) gave Q1
away; the word is now named by its Q where the words say it is that unknown, and a coincidence
("Over the course of one week" where Q1 is one hour) stays as written."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.keyinfo_reading import keyinfo_for_seed
from qcstation.core.construct.make.unknown_named import earlier_named


def test_an_earlier_unknown_in_words_is_named(gsm8k_readings) -> None:
    assert gsm8k_readings.keyinfo("256")["unknown_quantities"][1:3] == [
        "Q2: Each of the stalls gets Q1 cows, meaning a total of ? cows are placed into eight of the stalls.",
        "Q3: Since each stall had 20 cows before Mr. Sylas added Q1 into each of the stalls, the total "
        "number of cows in eight of the stalls was ? cows."]
    ki = keyinfo_for_seed({
        "question": "Tom's hand is 4 feet above the floor, but his shoulder is 25% lower than his hand. If Kim "
                    "stands on Tom's shoulders and reaches 4 feet above them, how high can she reach?",
        "solution": "Tom's shoulder is 25% lower than 4 feet, or 4*.25=<<4*.25=1>>1 foot lower than 4 feet.\n"
                    "One foot less than 4 feet is 4-1=<<4-1=3>>3 feet.\nKim can reach 3+4=<<3+4=7>>7 feet.\n#### 7"})[0]
    assert ki["unknown_quantities"][1] == "Q2: Q1 foot less than 4 feet is ? feet."


@pytest.mark.parametrize(("desc", "earlier", "described", "expected"), [
    # a coincidence stays: the noun after the word is not the unknown's
    ("Over the course of one week, he exercises for ? hours.", {Fraction(1): "Q1"},
     {"Q1": "Tony walks 3 miles at 3 miles per hour for ? hour."}, None),
    ("There is a price difference of ? per key chain between the two choices.", {Fraction(2): "Q1"},
     {"Q1": "The cost of each key chain is ?"}, None),
    # "one of them" with no noun of its own is never named
    ("He gave one of them ? apples.", {Fraction(1): "Q1"}, {"Q1": "He has ? apples left."}, None),
    # "two-thirds" is a word of its own
    ("She ate two-thirds of ? cakes.", {Fraction(2): "Q1"}, {"Q1": "She baked ? cakes."}, None),
    ("If two paintings take an hour, 20 paintings take ? hours.", {Fraction(2): "Q1"},
     {"Q1": "She paints ? paintings in an hour."}, "If Q1 paintings take an hour, 20 paintings take ? hours."),
    ("then (Q5) two bags will have ? apples", {Fraction(2): "Q5"}, {"Q5": "He can buy ? bags of apples"},
     "then Q5 bags will have ? apples"),
])
def test_an_earlier_value_is_named_only_where_the_words_say_it(desc: str, earlier: dict, described: dict,
                                                             expected: str | None) -> None:
    assert earlier_named(desc, earlier, described) == (desc if expected is None else expected)
