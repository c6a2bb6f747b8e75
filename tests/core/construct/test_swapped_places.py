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


def test_gsm8k_1001_the_noun_after_the_number_keeps_each_place(gsm8k: dict) -> None:
    # "nine hours at the clinic ... if he has 9 inpatients": "Doctor Jones has 9 inpatients, so
    # his rounds will take 9 * 20" writes the noun of the 9 inpatients right after its 9; the
    # lines' other words ("Doctor Jones", "clinic") share more with the nine hours' sentence,
    # but the noun decides: the 9 inpatients times 20 minutes, the nine hours less 8
    rule = rule_for_seed(gsm8k["1001"])
    q = gsm8k["1001"]["question"]
    at = {str(g["name"]): q[g["span"][0]:g["span"][0] + 12] for g in rule.givens}
    sexpr = {st.name: st.sexpr for st in rule.steps}
    assert at["g1_inpatients"] == "9 inpatients" and at["g5_hours"] == "nine hours a"
    assert "g1_inpatients" in sexpr["s1_minutes"] and "g5_hours" in sexpr["s5_hour_update"]


def test_a_line_without_the_noun_or_naming_the_other_place_decides_nothing(gsm8k: dict) -> None:
    seed = dict(gsm8k["1001"])
    # the trap: no noun after the 9 on either line; the words of the lines still read swapped
    seed["solution"] = seed["solution"].replace("Doctor Jones has 9 inpatients, so his", "Doctor Jones's")
    with pytest.raises(RuleError, match="given-place: g1_inpatients and g5_hours"):
        rule_for_seed(seed)
    q = gsm8k["1001"]["question"]
    s = ("Doctor Jones has 9 hours at the clinic: 9 * 20 = <<9*20=180>>180 minutes.\n"
         "He has 9 inpatients left: 9 - 8 = <<9-8=1>>1.")
    givens = [{"name": "g1", "value": "9", "span": [357, 358]}, {"name": "g5", "value": "9", "span": [63, 67]}]
    assert q[357:358] == "9" and q[63:67] == "nine"
    # each line's noun names the other given's place: the words' swap, whatever the other words
    found = swapped_places(givens, {"g1": [0], "g5": [1]}, q, s)
    assert len(found) == 1 and "noun of the other's place" in found[0]
    # the same lines with each given at the place its noun names: kept
    assert swapped_places(givens, {"g1": [1], "g5": [0]}, q, s) == []
