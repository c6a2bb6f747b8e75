"""Numbers a solution writes that the question states in words only, and final answers a
solution reaches in its last lines (issue 26.1, lane cover17): each number's use bound by its
words; a refused reading stays refused where the words do not give the number."""

from __future__ import annotations

from qcstation.core.construct.make.rules import rule_for_seed


def _steps(seed: dict) -> dict[str, str]:
    rule = rule_for_seed(seed)
    return {st.name.split("_")[0]: st.sexpr for st in rule.steps}


def test_a_line_that_says_average_but_adds_uses_the_given(gsm8k: dict) -> None:
    # 229 "Kalinda can normally add 4 pieces per minute" / "On average they get in 6 pieces per
    # minute because 4 + 2": the 4 is added, so it is the question's 4 again, not the count of an
    # average (only a divisor is)
    rule = rule_for_seed(gsm8k["229"])
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    assert steps["s1"] == "(/ g1_pieces w_half_parts)"
    assert steps["s2"] == "(+ g1_pieces s1_minute_because)"
    assert rule.value == 1
    assert {g["name"]: g["words"] for g in rule.givens}["g1_pieces"] == "4"

