"""A word the question writes for a unit (issue 26.1): "He can build 20 snowballs in an hour, but 2
melt every 15 minutes" / "each hour 2 * 60/15": the 60 beside the "15 minutes" on a line that names
the hour is "an hour" (60 minutes, a word given tied to its span), not the "60 snowballs" of equal
value (:func:`~qcstation.core.construct.make.rules.word_factors.unit_word_converts`). Where the
step's other number is no count of minutes, the words say nothing of the hour and the seed stays
refused."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def test_an_hour_is_the_sixty_beside_the_minutes(gsm8k: dict) -> None:
    seed = gsm8k["1188"]
    rule = rule_for_seed(seed)
    assert rule.bound and rule.value == 5
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    at = {str(g["name"]): g["span"] for g in rule.givens}
    assert steps["s1"] == "(/ (* g1_melt w_an_hour) g2_minutes)"
    assert steps["s3"] == "(/ g4_snowballs s2_snowballs)"
    q = seed["question"]
    assert q[at["w_an_hour"][0]:at["w_an_hour"][1]] == "an hour"
    assert q[at["g4_snowballs"][0]:at["g4_snowballs"][1] + 10] == "60 snowballs"


def test_no_minutes_beside_it_decides_nothing(gsm8k: dict) -> None:
    seed = dict(gsm8k["1188"])
    seed["question"] = seed["question"].replace("2 melt every 15 minutes", "2 melt for every 15 he builds")
    assert seed["question"] != gsm8k["1188"]["question"]
    with pytest.raises(RuleError):
        rule_for_seed(seed)
