"""What a fresh reading of 25 random GSM8K test seeds (random.Random(83), 2026-11-27) found,
pinned: a corrected artifact, or a refusal with its reason."""

from __future__ import annotations

import re

import pytest

from qcstation.core.construct.make.inject import inject_errors
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.rules import rule_for_seed


def _keyinfo(seed: dict) -> dict:
    rule = rule_for_seed(seed)
    return keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps, givens=rule.givens)


def _names(seed: dict) -> dict[str, str]:
    return {str(g["name"]): str(g.get("words", g.get("text"))) for g in rule_for_seed(seed).givens}


def test_684_the_two_of_a_two_speed_mower_is_not_the_half_the_solution_divides_by(gsm8k: dict) -> None:
    # "60/2" halves the lawn ("mowing half in turtle mode"): the word "half", never "two-speed"
    # (and the 60 is the question's "1 hour" converted: test_reading_one_unit)
    rule = rule_for_seed(gsm8k["684"])
    assert "(assert (= s1_minutes_turtle (/ (* g2_hour k_minutes_per_hour) w_half_parts)))" in rule.smtlib
    assert not any(g["text"] == "two" for g in rule.givens)


@pytest.mark.parametrize(("seed", "words", "name"), [
    ("1017", "5", "g1_pct"),        # "5% of the original price": not g1_original (the 120 is the original)
    ("471", "1", "g3"),             # "$1 less than three times the price": not g3_three
    ("120", "40000", "g2"),         # "$40000 four years ago": not g2_four, nor g2_years
    ("381", "3,650", "g1"),         # "$3,650 for five months": not g1_five
    ("1310", "320", "g1"),          # "320 more than Alexandra": the 320 is not Alexandra's
    ("570", "63", "g3_weekend"),    # "$63 one weekend": "one" is no other quantity here
    ("1149", "three", "g1_dozen"),  # "three dozen eggs": the three counts dozens
])
def test_a_given_is_named_by_its_own_words_never_by_the_next_quantity(gsm8k: dict, seed: str, words: str,
                                                                        name: str) -> None:
    names = _names(gsm8k[seed])
    assert names.get(name) == words, names


def test_1017_an_instruction_after_the_question_stays_with_the_goal(gsm8k: dict) -> None:
    f = _keyinfo(gsm8k["1017"])
    assert f["goal"] == "What would be the price of carrots after three years? (Round to the nearest integer)"
    assert f["problem_scenario"].endswith("every year. It was $120 initially.")
    assert "It was $120 initially" in f["known_quantities"]
    assert not any("?" in k or "Round" in k for k in f["known_quantities"])


def test_1097_a_fact_after_the_question_is_a_fact_of_the_story(gsm8k: dict) -> None:
    f = _keyinfo(gsm8k["1097"])
    assert f["goal"] == "How many people does he help?"
    assert "There are 31 days in March" in f["known_quantities"]
    assert f["problem_scenario"].endswith("There are 31 days in March.")


def test_420_a_clause_whose_subject_is_a_pronoun_keeps_the_clause_that_says_who(gsm8k: dict) -> None:
    # listed alone after Stanley's sentence, "He was at an elevation of 3,000 feet" reads as Stanley
    known = _keyinfo(gsm8k["420"])["known_quantities"]
    assert known[-1] == "Stanley's brother, Oliver, was also on the mountain, but he was at an elevation of 3,000 feet"


def test_985_a_distractor_clause_is_irrelevant_information(gsm8k: dict) -> None:
    f = _keyinfo(gsm8k["985"])
    assert f["irrelevant_information"] == ["Pat's flowers grow 12 inches wide"]
    assert "She needs to leave 1.5 feet between every plant" in f["known_quantities"]
    assert not any("12 inches" in k for k in f["known_quantities"])
    # the scenario keeps the sentence: a fact of the story, though not one the solution uses
    assert "Pat's flowers grow 12 inches wide so she needs" in f["problem_scenario"]


_REFERS_BACK = re.compile(r"^(?:So|That is,|This means|In other words,|Here) (.+) = (.+)\.$")
_COMPUTED = re.compile(r"^(?:So|That is,|We have|This means|Note that|In other words,|Here|We know that|Keep in mind that"
                       r"|Also,) (.+) = (.+)\.$")


def test_a_redundant_line_that_refers_back_follows_the_line_it_restates(gsm8k: dict) -> None:
    # "In other words, 50*72 = 3600." after a line about percentages (1236) is no one's writing
    seen = later = 0
    for sid in sorted(gsm8k, key=int)[:300]:
        seed = gsm8k[sid]
        for k in range(3):
            try:
                res = inject_errors(seed["solution"] + "\n#### " + seed["answer_text"], types=["redundancy"],
                                    rng_seed=k, question=seed["question"])
            except Exception:
                continue
            err = res.errors[0]
            if err.related_step is None or not _COMPUTED.match(err.modified):
                continue  # a line repeated word for word
            if _REFERS_BACK.match(err.modified):
                seen += 1
                assert err.step == err.related_step + 1, (sid, res.steps)
            else:
                later += err.step > err.related_step + 1
    assert seen > 50 and later > 50


@pytest.mark.parametrize(("seed", "clause", "relationship"), [
    # "3/4ths of the teachers' cars' windows": the fraction with an ordinal's ending is a number of
    # the clause, which therefore states the 3/4 the solution uses (lane cover3)
    ("728", "She smashes a quarter of the students' cars' windows and 3/4ths of the teachers' cars' windows",
     "Q2 = 32 × 3/4"),
    ("1047", "A team of 4 painters worked on a mansion for 3/8ths of a day every day for 3 weeks",
     "Q1 = 3/8 × 24"),
    ("888", "Jerry counts six birds nesting in the bushes, 2/3rd of that number of birds flying overhead, "
            "and 3 groups of eight birds each feeding", "Q1 = 6 × 2/3"),
])
def test_a_fraction_with_an_ordinal_ending_is_placed_in_its_clause(gsm8k: dict, seed: str, clause: str,
                                                                   relationship: str) -> None:
    ki = _keyinfo(gsm8k[seed])
    assert clause in ki["known_quantities"]
    assert relationship in ki["relationships_and_constraints"]


def test_a_unit_fraction_with_an_ordinal_ending_stays_the_divisor_of_its_parts() -> None:
    from fractions import Fraction

    from qcstation.core.reading.textnumbers import numbers_in

    # "1/3rd of the calories" is divided by as "600 / 3": read as no number of the text (928)
    assert Fraction(1, 3) not in numbers_in("A mini pastry has 1/3rd of the calories of a normal version.")
    assert Fraction(3, 4) in numbers_in("She smashes 3/4ths of the teachers' cars' windows.")
    assert Fraction(3, 4) not in numbers_in("She smashes 3/4thirds of them.")
