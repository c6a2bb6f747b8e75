"""Two givens of equal value whose steps' lines read as each other's place
(qcstation.core.construct.check.places): the rules' gate refuses such a binding."""

from __future__ import annotations

import pytest

from qcstation.core.construct.check.places import swapped_places
from qcstation.core.construct.make.rules import RuleError, rule_for_seed

Q = ("Billy was paid $10 per hour. Later he was given a raise of $0.50 per hour. "
     "Sally's starting salary is $0.50 more per hour than Billy's starting salary was.")
S = ("Billy has a pay of $10+0.50=$<<10+0.5=10.50>>10.50 per hour after the raise.\n"
     "Sally is paid $0.50 more per hour than Billy's starting salary: $10+$0.50=$<<10+0.5=10.5>>10.50 per hour.")
RAISE = (60, 64)   # "0.50" of the raise
SALLY = (103, 107)  # "0.50" of Sally's salary


def _givens(first: tuple[int, int], second: tuple[int, int]) -> list[dict[str, object]]:
    return [{"name": "g2", "value": "1/2", "span": list(first)}, {"name": "g3", "value": "1/2", "span": list(second)}]


def test_spans_point_at_the_two_places() -> None:
    assert Q[RAISE[0]:RAISE[1]] == "0.50" and Q[SALLY[0]:SALLY[1]] == "0.50"
    assert "raise" in Q[RAISE[0] - 20:RAISE[0]] and "salary" in Q[SALLY[0] - 20:SALLY[0]]


def test_each_line_at_its_own_place_is_no_swap() -> None:
    # g2 (the raise) used on line 0 (Billy's pay), g3 (Sally's) on line 1
    assert swapped_places(_givens(RAISE, SALLY), {"g2": [0], "g3": [1]}, Q, S) == []


def test_the_places_swapped_are_found() -> None:
    found = swapped_places(_givens(SALLY, RAISE), {"g2": [0], "g3": [1]}, Q, S)
    assert len(found) == 1 and "g2 and g3" in found[0]


def test_two_places_in_one_sentence_or_one_step_are_no_swap() -> None:
    q = "He pays $5 for a pen and $5 for a cap."
    s = "The pen costs 5.\nThe cap costs 5."
    givens = [{"name": "a", "value": "5", "span": [9, 10]}, {"name": "b", "value": "5", "span": [25, 26]}]
    assert swapped_places(givens, {"a": [1], "b": [0]}, q, s) == []  # one sentence: words cannot tell
    assert swapped_places(_givens(SALLY, RAISE), {"g2": [0], "g3": [0]}, Q, S) == []


def test_gsm8k_799_billy_and_sally_swapped_is_refused(gsm8k: dict) -> None:
    # "Billy has a salary of $10+0.50+$1.00" was bound to Sally's "$0.50 more per hour than
    # Billy's starting salary", and Sally's line to Billy's raise: the answer is right, but a
    # derived item moving one would move the other quantity
    with pytest.raises(RuleError, match="given-place: .*both 1/2"):
        rule_for_seed(gsm8k["799"])
