"""A distance or time the question gives "one way" is the way out of a trip made both ways (issue 26.1,
lane covA): a step's 2 on a line that writes the trip's ways ("one way ... by 2", "both ways") is the
named constant k_ways_of_a_round_trip, never a number the line does not tie."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed

_Q = ("Lena's gym is 6 miles from her home, one way. She drives to the gym on 3 days a week. "
      "How many miles does she drive to the gym and home each week?")


def test_one_way_doubled_on_a_line_that_says_so_is_the_round_trip(z3pool) -> None:
    seed = {"question": _Q, "answer_text": "36",
            "solution": "She drives the 6 miles one way and back: 6 x 2 = <<6*2=12>>12 miles a day.\n"
                        "She drives 12 x 3 = <<12*3=36>>36 miles a week.\n#### 36"}
    rule = rule_for_seed(seed)
    assert "(* g1_miles k_ways_of_a_round_trip)" in rule.smtlib, rule.smtlib
    assert z3pool.verify(rule.smtlib, "36").ok


def test_a_line_of_another_sentence_is_not_the_round_trip() -> None:
    # the line shares no word with the "one way" sentence: its 2 is no way of the trip
    seed = {"question": "Lena's gym is 6 miles from her home, one way. At the gym she buys a drink for $3 "
                        "and a snack bar for $3. How much does she spend at the gym?", "answer_text": "6",
            "solution": "She spends 3 x 2 = <<3*2=6>>6 dollars on the drink and the snack bar.\n#### 6"}
    with pytest.raises(RuleError):
        rule_for_seed(seed)
