"""A quantity the solution restates in another unit with no operator written ("Movie C = 1.25
hours = 75 minutes", "48 quarts = 12 gallons", "15 gallons = 120 pints") is a conversion by its
named factor (:mod:`qcstation.core.construct.make.rules.restated`): the factor a named constant,
never a number of the question ("Four students" is no quarts in a gallon)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import rule_for_seed
from qcstation.core.construct.make.rules.restated import restated_quantities


@pytest.mark.parametrize("seed_id, step, factor", [
    ("445", "s1", "(* g1_hours k_minutes_per_hour)"),         # 1.25 hours = 75 minutes
    ("809", "s5", "(/ s4_quarts k_quarts_per_gallon)"),       # 48 quarts = 12 gallons
    ("434", "s1", "(* g1_gallons k_pints_per_gallon)"),       # 15 gallons = 120 pints
])
def test_a_restated_quantity_is_converted_by_its_factor(gsm8k: dict, seed_id: str, step: str, factor: str) -> None:
    rule = rule_for_seed(gsm8k[seed_id])
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    assert steps[step] == factor
    assert rule.value == int(gsm8k[seed_id]["answer_text"])
    assert not any(str(g["name"]).startswith("k_") for g in rule.givens)


def test_only_two_units_of_one_factor_that_convert_exactly() -> None:
    found = restated_quantities("Movie C = 1.25 hours = 75 minutes\nSince 100 cents = $1 she spends $1.")
    assert [(text, value) for _, _, _, text, _, value, _ in found] == [("1.25 * 60", Fraction(75)),
                                                                     ("100 / 100", Fraction(1))]
    assert restated_quantities("1.25 hours = 70 minutes") == []            # not exact
    assert restated_quantities("3 apples = 12 pears") == []                # no factor
    assert restated_quantities("12*1=12 inches=1 foot") == []              # a written result, no quantity
    assert restated_quantities("2 hours = 120 minutes + 5") == []          # a computation goes on


def test_a_unit_and_a_half_and_the_factor_the_line_names(gsm8k: dict) -> None:
    # 175 "about a minute and a half to peel a potato, but only about 5 seconds to cut it up":
    # "60 potatoes * 1.5 minutes" is the word given "a minute and a half"; "5 seconds * 60
    # potatoes / 60 seconds per minute" divides by the seconds in a minute, not the minutes in an hour
    rule = rule_for_seed(gsm8k["175"])
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    assert steps["s1"] == "(* g1_potatoes w_a_minute_and_a_half)"
    assert steps["s2"] == "(/ (* g2_seconds g1_potatoes) k_seconds_per_minute)"
    assert rule.value == 95
    assert any(g["name"] == "w_a_minute_and_a_half" and g["words"] == "a minute and a half" for g in rule.givens)
