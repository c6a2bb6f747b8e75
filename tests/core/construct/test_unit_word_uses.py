"""A unit's word the question writes once ("a week": 7 days, "an hour": 60 minutes) that several
steps use (issue 26.1, lane covB): one quantity, the unit's size, wherever a using line names either
unit; a use whose line names neither stays refused (one given in two roles may hide there)."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed

_Q = ("A farm uses 350 liters of water a week. The barn uses 20 liters of water each day. "
      "How many liters a day does the rest of the farm use?")


def _seed(solution: str) -> dict[str, str]:
    return {"question": _Q, "solution": solution, "answer_text": "30", "source": "gsm8k"}


def test_a_week_used_twice_as_its_days() -> None:
    made = rule_for_seed(_seed("The barn uses 20*7=<<20*7=140>>140 liters in a week.\n"
                               "The rest uses 350-140=<<350-140=210>>210 liters in a week.\n"
                               "That is 210/7=<<210/7=30>>30 liters a day.\n#### 30"))
    assert made.value == 30
    assert made.steps[0].sexpr == "(* g1_liters w_a_week)"
    assert made.steps[2].sexpr == "(/ s2_liters_week w_a_week)"


def test_a_use_whose_line_names_no_unit_stays_refused() -> None:
    with pytest.raises(RuleError, match="is used by 2 steps"):
        rule_for_seed(_seed("The barn uses 20*7=<<20*7=140>>140 liters in a week.\n"
                            "The rest uses 350-140=<<350-140=210>>210 liters in a week.\n"
                            "So the answer is 210/7=<<210/7=30>>30.\n#### 30"))
