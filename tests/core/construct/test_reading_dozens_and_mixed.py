"""A mixed number the question writes ("1 1/2 dozen") is one given, and a dozen written after a
number ("4 dozen brownies") is a unit whose 12 is the named factor ``k_per_dozen`` (issue 26.1,
lane cover26); a dozen with no number before it ("a dozen cookies") stays a word given at its
place, and a clock's minutes before a fraction ("16:00 2/3") are no mixed number."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.check.bindings import _constant_of_every_place
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.constants import _dozen_a_unit
from qcstation.core.construct.make.rules.givens import Givens, text_numbers
from qcstation.core.reading.words import question_occurrences


def test_967_a_mixed_number_of_dozens_and_the_dozens_factor(gsm8k: dict) -> None:
    # "1/2 a dozen brownies ... 4 dozen brownies ... 1 1/2 dozen brownies were eaten" /
    # "12/2 = 6", "4-1.5 = 2.5", "1+2.5 = 3.5", "Every dozen is 12 ... 12*3.5 = 42", "42+6"
    rule = rule_for_seed(gsm8k["967"])
    assert rule.value == 48
    q = gsm8k["967"]["question"]
    words = {g["name"]: q[g["span"][0]:g["span"][1]] for g in rule.givens}
    assert words == {"g1_dozen": "4", "g2_dozen": "1 1/2", "g3_dozen": "one", "w_1_2_parts": "1/2"}
    assert {g["name"]: g["value"] for g in rule.givens}["g2_dozen"] == "3/2"
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    assert steps["s1"] == "(/ k_per_dozen w_1_2_parts)"
    assert steps["s2"] == "(- g1_dozen g2_dozen)"
    assert steps["s4"] == "(* k_per_dozen s3_dozen_brownies)"
    assert [f["name"] for f in rule.factors or []] == ["k_per_dozen"]


def test_a_mixed_number_is_one_number_but_a_clock_is_not() -> None:
    g = Givens("During the party, 1 1/2 dozen brownies were eaten.")
    assert [(n.value, n.text) for n in g.numbers if n.text[:1].isdigit()] == [(Fraction(3, 2), "1 1/2")]
    assert text_numbers("1 1/2 dozen") == {Fraction(3, 2)}
    # GSM8K 730: "by 16:00 2/3 of the remaining people had voted": the 00 is the clock's
    g = Givens("At 8:00, 5000 people lined up. By 16:00 2/3 of the remaining people had voted.")
    assert [(n.value, n.text) for n in g.numbers if "/" in n.text] == [(Fraction(2, 3), "2/3")]


def test_a_dozen_is_a_unit_only_after_a_number(gsm8k: dict) -> None:
    assert _dozen_a_unit("she sent 8 dozen glasses and 4 dozen plates")
    assert _dozen_a_unit("with 1/2 a dozen brownies and one dozen cookies")
    # 261 "Two cups of flour are needed to make a dozen cookies": a dozen is a count of 12 there,
    # the word given at its place
    assert not _dozen_a_unit(gsm8k["261"]["question"].lower())
    assert not _dozen_a_unit("how many dozens of eggs will she eat")
    rule = rule_for_seed(gsm8k["261"])
    # "a dozen" as the one phrase the question writes there (not "dozen" inside it: lane cover36)
    assert "w_a_dozen" in {g["name"] for g in rule.givens}


def test_the_check_takes_the_dozens_factor_only_where_every_place_is_the_dozen() -> None:
    occ = question_occurrences("She sent 8 dozen glasses and 4 dozen plates.")
    assert _constant_of_every_place("k_per_dozen", Fraction(12), occ)
    # a 12 the question writes in digits is another quantity the factor could be confused with
    occ = question_occurrences("She has 12 eggs and buys 2 dozen more.")
    assert not _constant_of_every_place("k_per_dozen", Fraction(12), occ)
    assert not _constant_of_every_place("g1_dozen", Fraction(12), occ)


def test_351_a_mixed_number_the_solution_writes_stays_refused(gsm8k: dict) -> None:
    # "3 / 2 = 1 1/2 hours", "1 + 3 + 1/2 + 1 1/2 + 2 = 8": the solution's mixed numbers are not
    # read (the reading floor's computations); the seed stays refused, never half-read
    with pytest.raises(RuleError):
        rule_for_seed(gsm8k["351"])
