"""The count an average divides by (issue 26.1): a number no word of the question states, that
the step's line and the question call an average or mean, and that counts the terms of the sum it
divides ("80 + 60 + 100 = 240", "240 / 3"), is the named constant ``k_<n>_values_averaged``
(:mod:`qcstation.core.construct.make.rules.averaged`); never a given of equal value. An average
over another count than the terms written, or a count a list of names gives, keeps its reading.
A list of things the question shares equally among ("equal amounts of red, white, and purple
paint") gives the count a step divides by on a line that shares or divides."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import rule_for_seed
from qcstation.core.construct.make.rules.averaged import mark_average_counts
from qcstation.core.reading.expr import BinOp, Name, Num


def _steps(seed: dict) -> dict[str, str]:
    rule = rule_for_seed(seed)
    return {st.name.split("_")[0]: st.sexpr for st in rule.steps}


@pytest.mark.parametrize("seed_id, step, count", [
    ("32", "s4", 3),     # "their average guess": 80 + 60 + 100, three guesses
    ("171", "s3", 2),    # "the average of the costs of the hat and jacket": 25 + 75
    ("929", "s3", 5),    # Monday to Friday: 39 + 78 + 78 + 48 + 57, "the average ... per day"
    ("1232", "s2", 9),   # nine quiz scores summed, "her mean score"
])
def test_the_count_of_the_summed_values_is_named(gsm8k: dict, seed_id: str, step: str, count: int) -> None:
    rule = rule_for_seed(gsm8k[seed_id])
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    assert f"k_{count}_values_averaged" in steps[step]
    assert rule.value == int(gsm8k[seed_id]["answer_text"])
    assert all(g["name"] != f"k_{count}_values_averaged" for g in rule.givens)  # a constant, not a given


def test_a_list_of_names_keeps_its_count(gsm8k: dict) -> None:
    # 111 "On average they ate": the two of "Marcell and Beatrice" stays that list's count
    steps = _steps(gsm8k["111"])
    assert "w_marcell_and_beatrice" in steps["s4"] and "values_averaged" not in steps["s4"]


@pytest.mark.parametrize("seed_id, count", [
    ("405", "(+ g2_zebras k_one_a_zebra k_one_another_zebra)"),  # "88 stripes / 4 zebras" after "18 + 34 + 36":
    ("453", "(+ g2_hours g4_hour)"),  # "150 miles/3 hours" after "120 + 30": the hours are 2 + 1
])
def test_another_count_than_the_terms_is_no_count_of_the_terms(gsm8k: dict, seed_id: str, count: str) -> None:
    # two zebras are in the 34: never the 3 or 4 values summed; the question's parts of the count
    # (:mod:`.noun_counts`; they were refused before it)
    steps = _steps(gsm8k[seed_id])
    assert steps["s4"].endswith(f" {count})") and "values_averaged" not in steps["s4"]


def test_only_a_line_that_averages_a_flat_sum_is_marked() -> None:
    total = BinOp("+", BinOp("+", Name("a"), Name("b")), Name("c"))
    divided = BinOp("/", Name("s1"), Num(3, "3"))  # type: ignore[arg-type]
    q = "What is their average?"
    out = mark_average_counts(["s1", "s2"], [total, divided], ["", "The average is 240 / 3 = 80"], q)
    assert out[1] == BinOp("/", Name("s1"), Num(3, "k_3_values_averaged"))  # type: ignore[arg-type]
    # no "average" on the line, or in the question, or a sum of two terms: unchanged
    assert mark_average_counts(["s1", "s2"], [total, divided], ["", "Each gets 240 / 3"], q)[1] == divided
    assert mark_average_counts(["s1", "s2"], [total, divided], ["", "The average is 80"], "How many each?")[1] \
        == divided
    two = BinOp("+", Name("a"), Name("b"))
    assert mark_average_counts(["s1", "s2"], [two, divided], ["", "The average is 80"], q)[1] == divided


@pytest.mark.parametrize("seed_id, step, name", [
    # "equal amounts of red, white, and purple paint" / "equal amounts of the other three colors ... 6 / 3"
    ("1171", "s2", "w_red_white_and_purple"),
    # "divides the bag of raisins equally among the cookies, granola, and snack mix" / "27 / 3 ... dividing"
    ("526", "s1", "w_cookies_granola_and_snack"),
])
def test_a_list_shared_equally_gives_its_count(gsm8k: dict, seed_id: str, step: str, name: str) -> None:
    rule = rule_for_seed(gsm8k[seed_id])
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    assert name in steps[step]
    assert rule.value == int(gsm8k[seed_id]["answer_text"])
    assert any(g["name"] == name and g["kind"] == "word" for g in rule.givens)


def test_a_list_no_words_share_keeps_no_count() -> None:
    from fractions import Fraction

    from qcstation.core.construct.make.rules.implied import list_count, shared_lists

    q = "There are equal amounts of red, white, and purple paint. She likes cats, dogs, and birds."
    assert shared_lists(q, Fraction(3)) == ["red, white, and purple"]
    assert list_count(Fraction(3), q, "equal amounts of three colors: 6 / 3", "divisor") == "red, white, and purple"
    assert list_count(Fraction(3), q, "so 6 / 3 = 2", "divisor") is None          # the line shares nothing
    assert list_count(Fraction(3), q, "equal: 6 * 3", "times") is None             # no division
    assert shared_lists("She likes cats, dogs, and birds.", Fraction(3)) == []
