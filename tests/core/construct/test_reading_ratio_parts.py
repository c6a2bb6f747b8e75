"""The parts of a whole that "N times as much as" splits into (issue 26.1, lane cover20): the
question's N plus the base's one share, never a number of equal value; the independent check lets
a multiplier word be added only to the base's share of its own comparison."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.check.bindings import binding_problems
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.reading.expr import BinOp, Name, Num
from tests.core.construct.seeds import gsm8k_seed as _seed


def _steps(seed: dict) -> dict[str, str]:
    return {st.name.split("_")[0]: st.sexpr for st in rule_for_seed(seed).steps}


@pytest.mark.parametrize("seed_id, step, term, answer", [
    # "divide 100 dollars between them. Jeff gets 4 times as much as Brad" / "Brad gets 100/5"
    ("545", "s1", "(/ g1_dollars (+ g2_times k_one_share_of_brad))", 80),
    # "A house and a lot cost $120,000. If the house cost three times as much as the lot" / "3/4 * $120,000"
    ("515", "s1", "(* (/ g1_times (+ g1_times k_one_share_of_lot)) g2)", 90000),
    # "60 animals ... all either chickens or cows. He has twice as many chickens as cows" / "60*(2/3)"
    ("340", "s1", "(* g1_animals (/ w_twice (+ w_twice k_one_share_of_cows)))", 160),
])
def test_the_parts_of_a_ratio(gsm8k: dict, seed_id: str, step: str, term: str, answer: int) -> None:
    rule = rule_for_seed(gsm8k[seed_id])
    assert _steps(gsm8k[seed_id])[step] == term
    assert rule.value == answer
    assert all(not g["name"].startswith("k_") for g in rule.givens)  # the base's share is no given


def test_legs_the_line_names_are_no_word_given(gsm8k: dict) -> None:
    # 340 "The chickens have 40*2=80 legs": a chicken's legs, not "twice" again
    steps = _steps(gsm8k["340"])
    assert steps["s3"] == "(* s1_chickens k_legs_per_chickens)"
    assert steps["s4"] == "(* s2_cows k_legs_per_cows)"


def test_parts_need_the_line_to_name_the_comparison() -> None:
    q = "Jeff and Brad divide 100 dollars between them. Jeff gets 4 times as much as Brad. How much does Jeff get?"
    made = rule_for_seed(_seed(q, "Brad gets 100/5=<<100/5=20>>20 dollars.\nJeff gets 20*4=<<20*4=80>>80 dollars.",
                               "80"))
    assert made.value == 80
    with pytest.raises(RuleError, match="writes the number 5"):  # the line names neither Jeff nor Brad
        rule_for_seed(_seed(q, "That is 100/5=<<100/5=20>>20.\nSo 20*4=<<20*4=80>>80 dollars.", "80"))
    # a number one more than N that multiplies is no count of parts
    with pytest.raises(RuleError, match="writes the number 5"):
        rule_for_seed(_seed(q, "Brad gets 100/4=<<100/4=25>>25 dollars.\nJeff gets 25*5=<<25*5=125>>125.", "125"))


def _problems(question: str, term: BinOp) -> list[str]:
    defs = {"g1_dollars": Num(Fraction(100)), "w_twice": Num(Fraction(2)), "k_one_share_of_brad": Num(Fraction(1)),
            "s1_dollars": term}
    values = {"g1_dollars": Fraction(100), "w_twice": Fraction(2), "k_one_share_of_brad": Fraction(1),
              "s1_dollars": Fraction(100, 3)}
    return [b.describe() for b in binding_problems(defs, values, question, "Brad gets 100/3 dollars.")]


def test_the_check_adds_a_multiplier_only_to_its_comparisons_base() -> None:
    parts = BinOp("/", Name("g1_dollars"), BinOp("+", Name("w_twice"), Name("k_one_share_of_brad")))
    assert _problems("Jeff and Brad divide 100 dollars. Jeff gets twice as much as Brad.", parts) == []
    # the same shape where the question compares with someone else, or says no "as much as"
    assert _problems("Jeff and Brad divide 100 dollars. Jeff gets twice as much as Tom.", parts)
    assert _problems("Jeff and Brad divide 100 dollars. Jeff's share doubled twice.", parts)
    # a multiplier word added to any other number is still refused
    wrong = BinOp("/", Name("g1_dollars"), BinOp("+", Name("w_twice"), Num(Fraction(1))))
    assert _problems("Jeff and Brad divide 100 dollars. Jeff gets twice as much as Brad.", wrong)


def test_a_list_the_line_names_is_no_word_given(gsm8k: dict) -> None:
    # 735 "Cindy's math and science books weigh 2 pounds each ... twice as much as her English book" /
    # "The math and science book weigh 2 pounds each so they weigh 2*2": the two books, not "twice"
    rule = rule_for_seed(gsm8k["735"])
    steps = _steps(gsm8k["735"])
    assert steps["s1"] == "(* g1_pounds w_math_and_science)"
    assert steps["s2"] == "(* w_twice g2_pounds)"
    assert rule.value == 17


def test_a_line_that_names_no_list_keeps_the_word_given() -> None:
    q = "Cindy's math and science books weigh 2 pounds each. Her history book weighs twice as much. Total?"
    sol = "They weigh 2*2 = <<2*2=4>>4 pounds.\nIn all 4 + 4 = <<4+4=8>>8 pounds."
    with pytest.raises(RuleError):  # "2*2" names neither book: the 2 is "twice" or the two books
        rule_for_seed(_seed(q, sol, "8"))


def test_a_fractions_parts_are_no_ratio_parts() -> None:
    # "gives 1/4 of his apples away" / "36/4": the 4 is the quarter's parts, never Tom's 3 and Ann's 1
    q = "Tom has 3 times as many apples as Ann. Ann has 12 apples. Tom gives 1/4 of his apples away. How many?"
    sol = "Tom has 3*12=<<3*12=36>>36 apples.\nTom gives away 36/4=<<36/4=9>>9 apples."
    rule = rule_for_seed(_seed(q, sol, "9"))
    assert "k_one_share_of" not in rule.smtlib
    assert "w_1_4_parts" in rule.smtlib
