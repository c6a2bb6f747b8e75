"""A group the question names by its other members, counted with the one who has them (issue
26.1, lane cover20): the question's N plus that person's named one, only where the question
shares among them all and the line writes the whole group's count before a word for people."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.givens import question_numbers
from qcstation.core.construct.make.rules.with_self import with_self
from qcstation.core.reading.expr import BinOp, Num


def _steps(seed: dict) -> dict[str, str]:
    return {st.name.split("_")[0]: st.sexpr for st in rule_for_seed(seed).steps}


@pytest.mark.parametrize("seed_id, step, term, answer", [
    # "Jenna has 4 roommates ... if they divide the share equally" / "Since there are 5 roommates ... 1200/5"
    ("753", "s2", "(/ s1_electricity_year (+ g2_roommates k_one_jenna))", 240),
    # "Maria invited 4 of her friends ... gave each person 3 more balloons" / "5 girls * 3 balloons"
    ("933", "s3", "(* (+ g2_friends k_one_maria) g4_balloons)", 24),
])
def test_a_group_with_the_one_who_has_it(gsm8k: dict, seed_id: str, step: str, term: str, answer: int) -> None:
    rule = rule_for_seed(gsm8k[seed_id])
    assert _steps(gsm8k[seed_id])[step] == term
    assert rule.value == answer
    assert all(not g["name"].startswith("k_") for g in rule.givens)


_Q = "Jenna has 4 roommates. Each month the bill is $100. How much will each pay if they divide it equally?"


def _count(question: str, line: str) -> object:
    e = BinOp("/", Num(Fraction(100), "100"), Num(Fraction(5), "5"))
    return with_self([0], [e], question_numbers(question), line)[0]


def test_the_group_needs_its_words() -> None:
    same = BinOp("/", Num(Fraction(100), "100"), Num(Fraction(5), "5"))
    assert _count(_Q, "There are 5 roommates, so 100/5 = 20") != same
    assert _count(_Q, "So 100/5 = 20 dollars") == same                          # no people counted on the line
    assert _count(_Q.replace(" if they divide it equally", ""), "There are 5 roommates, so 100/5") == same  # no sharing
    assert _count(_Q.replace("4 roommates", "4 roommates and 4 cats"), "There are 5 roommates, so 100/5") == same


def test_a_line_that_does_not_count_the_group_stays_refused() -> None:
    sol = "The bill is 100*12=<<100*12=1200>>1200 a year.\nSo 1200/5=<<1200/5=240>>240 dollars each."
    with pytest.raises(RuleError, match="writes the number 5"):
        rule_for_seed({"question": _Q, "solution": sol, "answer_text": "240", "source": "gsm8k"})


def test_the_others_of_a_group_the_question_names_one_of(gsm8k: dict) -> None:
    # 1259 "There are five phones on a phone plan. The main phone costs twice as much as each
    # additional phone" / "the four additional phones cost 4 * 10": five less the main phone
    rule = rule_for_seed(gsm8k["1259"])
    assert _steps(gsm8k["1259"])["s2"] == "(* (- g2_phones k_one_main_phone) s1_additional_phone)"
    assert rule.value == 60
    assert {g["name"]: g["words"] for g in rule.givens}["g2_phones"] == "five"


def test_the_others_need_the_line_to_say_them() -> None:
    from qcstation.core.construct.make.rules.with_self import the_others

    q = "There are five phones on a phone plan. The main phone costs twice as much as each additional phone."
    e = BinOp("*", Num(Fraction(4), "4"), Num(Fraction(10), "10"))
    got = the_others([0], [e], question_numbers(q), "the four additional phones cost 4 * 10 = 40")[0]
    assert got == BinOp("*", BinOp("-", Num(Fraction(5), "five"), Num(Fraction(1), "k_one_main_phone")),
                        Num(Fraction(10), "10"))
    assert the_others([0], [e], question_numbers(q), "they cost 4 * 10 = 40")[0] == e          # no others said
    assert the_others([0], [e], question_numbers(q.replace("The main phone", "Each phone")),  # no one named
                      "the four additional phones cost 4 * 10 = 40")[0] == e
