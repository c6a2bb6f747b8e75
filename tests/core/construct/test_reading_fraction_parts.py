"""A fraction the question states in words, used by the solution in two steps ("two thirds of
24": "24/3 = 8", then "2*8 = 16"): its parts and its numerator are word givens of that phrase
(``w_two_thirds_parts``, ``w_two_thirds_numerator``), never numbers the question does not
state; the parts used without the numerator ("three-fourths have one; 20 do not: 4 x 20") are
refused where the solution does not write the rest (1 - 3/4 = 1/4), since there the 4 is
1 / (1 - 3/4), equal to the parts only by the numerator's value.
A penny's hundredth of a dollar is a named constant. Real seeds, real Z3."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.fraction_parts import digit_fraction_parts, writes_the_fraction


@pytest.mark.parametrize("sid, steps", [
    ("161", ["(assert (= s2_wednesday (/ s1_feet_water w_two_thirds_parts)))",
             "(assert (= s3_feet_water (* w_two_thirds_numerator s2_wednesday)))"]),
    ("714", ["(assert (= s1_sqft (/ g1_sq w_two_thirds_parts)))",
             "(assert (= s2_sq_ft (* s1_sqft w_two_thirds_numerator)))"]),
    ("262", ["(assert (= s1_pennies_cup (/ g1_pennies w_two_thirds_parts)))",
             "(assert (= s3_dollar_stack (/ s2_pennies_stack k_pennies_per_dollar)))"]),
])
def test_a_fraction_in_words_used_in_two_steps(gsm8k: dict, z3pool, sid: str, steps: list[str]) -> None:
    seed = gsm8k[sid]
    rule = rule_for_seed(seed)
    for line in steps:
        assert line in rule.smtlib
    assert "(assert (= w_two_thirds_parts 3))" in rule.smtlib
    assert "(assert (= w_two_thirds_numerator 2))" in rule.smtlib
    spans = {g["name"]: seed["question"][g["span"][0]:g["span"][1]] for g in rule.givens}
    assert spans["w_two_thirds_parts"] == spans["w_two_thirds_numerator"] == "two thirds"
    assert rule.bound is True
    assert z3pool.verify(rule.smtlib, seed["answer_text"]).ok


def test_the_parts_without_the_numerator_are_refused() -> None:
    # 475's "4 x 20" where the solution never writes the rest 1 - 3/4 = 1/4 (475 itself, which
    # writes it, is 20 / (1 - w_three_fourths): rules.complements, test_reading_complements)
    q = ("At a certain grade level, three-fourths of students have a desktop computer at home. If 20 "
         "students do not have desktop computers, how many students are there at that grade level?")
    seed = {"question": q, "solution": "So, there are 4 x 20 students = <<4*20=80>>80 students at that level.",
            "answer_text": "80", "source": "gsm8k"}
    with pytest.raises(RuleError, match="used without the fraction's numerator"):
        rule_for_seed(seed)


def test_a_digit_numerator_and_a_word_of_parts_on_a_line_that_writes_the_fraction(gsm8k: dict) -> None:
    """1235 "Regina wrote 9 novels last year. If this is 3 quarters of the number of novels she has
    written this year" / "(4/3)*9": the 4 is the parts of "quarters" (w_quarters_parts, tied to the
    word), the 3 the question's digit (issue 26.1, cover26)."""
    rule = rule_for_seed(gsm8k["1235"])
    assert rule.value == 12
    assert "(assert (= s1_novels (* (/ w_quarters_parts g1_quarters) g2_novels)))" in rule.smtlib
    assert {g["name"]: g["words"] for g in rule.givens} == {
        "g1_quarters": "3", "g2_novels": "9", "w_quarters_parts": "quarters"}


def test_the_parts_of_a_digit_fraction_on_a_line_that_does_not_write_it_stay_refused() -> None:
    # "20 students do not have one ... 20 x 4": 4 is 1 / (1 - 3/4), equal to the parts of
    # "3 quarters" only because the numerator is one less; the line writes no 3/4 or 4/3
    seed = {"question": "3 quarters of the students in a class have a pencil. 20 students do not have one. "
                        "How many students are in the class?",
            "solution": "There are 20 x 4 = <<20*4=80>>80 students in the class.", "answer_text": "80",
            "source": "gsm8k"}
    with pytest.raises(RuleError):
        rule_for_seed(seed)
    assert digit_fraction_parts("if this is 3 quarters of the number") == {"w_quarters_parts": (3, 4)}
    assert digit_fraction_parts("he has 3 quarters and 2 dimes") == {}  # coins, no fraction
    assert writes_the_fraction(3, 4, "Multiplying both sides by 4/3 gives (4/3)*9")
    assert not writes_the_fraction(3, 4, "There are 20 x 4 = 80 students")


@pytest.mark.parametrize("question, solution, answer", [
    # GSM8K train line 7176: the "/ 3" of "Two-thirds" was bound to "three times as many tadpoles"
    ("A frog pond has five frogs living in it. Some frogs laid eggs, and now there are three times as many "
     "tadpoles growing into more frogs as there are frogs. Two-thirds of the tadpoles will survive to maturity "
     "as frogs. The pond can only sustain eight frogs. How many frogs will have to find a new pond when the "
     "tadpoles grow up?",
     "There are three times the number of tadpoles as frogs, so there are 3 * 5 = <<3*5=15>>15 tadpoles.\n"
     "Two-thirds of the tadpoles will survive to become frogs, so 2 * 15 / 3 = <<2*15/3=10>>10 tadpoles will "
     "grow into frogs.\nWhen the tadpoles grow up, there will be 5 + 10 = <<5+10=15>>15 frogs in the pond.\n"
     "The pond can only sustain 8 frogs, so 15 - 8 = <<15-8=7>>7 frogs will need to find a new pond.", "7"),
    # GSM8K train line 475: "18 x 2/3" is the rest of "One-third" (1 - 1/3), not "Two-fifths"' numerator
    ("A club with 30 members ordered fruit juices. Two-fifths of them ordered lemon juice. One-third of the "
     "remaining members ordered mango juice, and the rest ordered orange juice. How many members ordered "
     "orange juice?",
     "30 x 2/5 = <<30*2/5=12>>12 members ordered lemon juice.\nSo, 30 - 12 = <<30-12=18>>18 members did not "
     "order lemon juice.\nSince 1/3 of the remaining ordered mango juice, then 18 x 2/3 = <<18*2/3=12>>12 "
     "members ordered mango juice.\nTherefore, 18 - 12 = <<18-12=6>>6 members ordered orange juice.", "6"),
])
def test_the_numerator_without_the_parts_is_refused(question: str, solution: str, answer: str) -> None:
    """A fraction's numerator in words used while what the step divides by is another number of equal
    value (issue 26.1, gold7's held-out reading): the transforms would move that number with it."""
    seed = {"question": question, "solution": solution, "answer_text": answer, "source": "gsm8k"}
    with pytest.raises(RuleError, match="used without the fraction's parts"):
        rule_for_seed(seed)
