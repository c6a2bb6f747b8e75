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
from tests.core.construct.seeds import gsm8k_seed as _seed


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


def test_one_and_the_others_she_has_written_as_a_pair_of_words() -> None:
    # "<Name> and her N friends" / "herself and her N friends" / "for her and for N of her friends" (lane covB)
    q = "Lena and her 3 cousins baked 48 muffins. If they share the muffins equally, how many does each get?"
    made = rule_for_seed(_seed(q, "The 4 people get 48/4=<<48/4=12>>12 muffins each.\n#### 12", "12"))
    assert made.steps[0].sexpr == "(/ g1_muffins (+ g2_cousins k_one_lena))"
    q = "Tom wants to split 60 stickers between himself and his 4 classmates. How many does each get?"
    made = rule_for_seed(_seed(q, "Tom and his classmates get 60/5=<<60/5=12>>12 stickers each.\n#### 12", "12"))
    assert made.steps[0].sexpr == "(/ g1_stickers (+ g2_classmates k_one_himself))"
    q = "Ivy buys tickets for her and for two of her friends. A ticket costs $15. How much does she spend?"
    made = rule_for_seed(_seed(q, "She buys tickets for three people: 3*15=<<3*15=45>>45 dollars.\n#### 45", "45"))
    assert made.steps[0].sexpr == "(* (+ g1_friends k_one_herself) g2)"


@pytest.mark.parametrize("question, line", [
    # the line counts no people and names not the one
    ("Tom wants to split 60 stickers between himself and his 4 classmates. How many does each get?",
     "So 60/5=<<60/5=12>>12 stickers.\n#### 12"),
    # "with" a group no sharing or "for" makes each of them count
    ("Tom went to the park with his 4 classmates and found 60 stickers. How many does each get?",
     "Tom and his classmates get 60/5=<<60/5=12>>12 stickers each.\n#### 12"),
])
def test_a_pair_of_words_the_line_does_not_tie_stays_refused(question: str, line: str) -> None:
    with pytest.raises(RuleError, match="writes the number 5"):
        rule_for_seed(_seed(question, line, "12"))


def test_an_earlier_result_of_the_groups_count_stays_that_result() -> None:
    q = "Lena and her 3 cousins baked 48 muffins. If they share the muffins equally, how many does each get?"
    made = rule_for_seed(_seed(q, "There are 1 + 3 = <<1+3=4>>4 of them.\nLena gets 48/4=<<48/4=12>>12 muffins.\n#### 12",
                               "12"))
    assert made.steps[-1].sexpr == "(/ g2_muffins s1)"
