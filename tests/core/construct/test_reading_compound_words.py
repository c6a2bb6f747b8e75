"""A compound number word is one number ("forty-two 75-pound bales" is 42 bales, "fifty-four
students" 54), for the rules' givens and for the checks' reading of the question alike; before,
both read it as a forty and a two, and a solution's 42 was a number the question did not state.
Real seeds, real Z3."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import rule_for_seed
from qcstation.core.construct.make.rules.givens import question_numbers
from qcstation.core.reading.words import question_occurrences


def test_both_readers_read_a_compound_number_word_as_one_number() -> None:
    q = "He buys forty-two 75-pound bales and Twenty-one sacks; thirty people and five dogs."
    assert [(n.value, n.text) for n in question_numbers(q).numbers] == [
        (Fraction(42), "forty-two"), (Fraction(75), "75"), (Fraction(21), "Twenty-one"),
        (Fraction(30), "thirty"), (Fraction(5), "five")]
    assert sorted(o.value for o in question_occurrences(q)) == [5, 21, 30, 42, 75]


@pytest.mark.parametrize("sid, given, words, step", [
    ("460", "g5", "forty-two", "(assert (= s3_pounds_hay (* g5 g6_pound)))"),
    ("750", "g1_students", "fifty-four", "(assert (= s1_groups_formed (/ g1_students g2_groups)))"),
])
def test_a_solution_computes_with_the_compound_number(gsm8k: dict, z3pool, sid: str, given: str, words: str,
                                                      step: str) -> None:
    seed = gsm8k[sid]
    rule = rule_for_seed(seed)
    assert step in rule.smtlib
    spans = {g["name"]: seed["question"][g["span"][0]:g["span"][1]] for g in rule.givens}
    assert spans[given] == words and rule.bound is True
    assert z3pool.verify(rule.smtlib, seed["answer_text"]).ok
