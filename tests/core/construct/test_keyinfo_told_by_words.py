"""Key information read as an annotator would read it (issue 26.1, Understanding): two unknowns
that point back to the line before them ("This is a total of ? toys.", 1123) are told apart by the
phrase that opens that line ("In the first group of workers, ..." / "In the second group of
workers, ..."), where no words of their own computations do; "There were 20 private cars and 12
buses parked outside the church" is one known quantity, not "There were 20 private cars" and a
subject cut from its verb (1098); the asking clause's "20 small and 8 large masks" is one phrase
(904: 'The question asks about "20 small"'); the solution's letter for an unknown ("(B in the
solution)", 1048) is noted only where another unknown's words write it. Near-misses: unknowns that
point back to lines opening with the same phrase, or to a line they do not compute with, stay
refused."""

from __future__ import annotations

import dataclasses

import pytest

from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.unknown_words import letters_unused


def test_unknowns_pointing_back_take_the_phrase_that_opens_the_line_before(gsm8k_readings) -> None:
    fields = gsm8k_readings.keyinfo("1123")
    assert fields["unknown_quantities"][:4] == [
        "Q1: In the first group of workers, each produces ? toys over their shift.",
        "Q2: This is a total of ? toys (in the first group of workers).",
        "Q3: In the second group of workers, each produces ? toys over their shift.",
        "Q4: This is a total of ? toys (in the second group of workers).",
    ]
    assert fields["relationships_and_constraints"][:5] == [
        "Q1 = 6 × 10", "Q2 = Q1 × 2", "Q3 = 4 × 10", "Q4 = Q3 × 2", "Q5 = Q2 + Q4"]


def _with_lines(gsm8k_readings, sid: str, lines: dict[int, str]) -> dict:
    seed, rule = gsm8k_readings.seeds[sid], gsm8k_readings.rule(sid)
    steps = [dataclasses.replace(st, line=lines[i]) if i in lines else st for i, st in enumerate(rule.steps)]
    return keyinfo_from_annotations(seed["question"], seed["solution"], steps, givens=rule.givens)


def test_lines_opening_with_the_same_phrase_tell_nothing(gsm8k_readings) -> None:
    same = "In the group of workers, each makes 4 toys * 10 hours = <<4*10=40>>40 toys over their shift."
    first = "In the group of workers, each produces 6 toys * 10 hours = <<6*10=60>>60 toys over their shift."
    with pytest.raises(KeyInfoError, match="Q2 and Q4 would read with the same words"):
        _with_lines(gsm8k_readings, "1123", {0: first, 2: same})


def test_a_line_the_unknown_does_not_compute_with_tells_nothing(gsm8k_readings) -> None:
    # Q4's "This" points back to the line before it; put Q3's line first, so that the line right
    # before Q4 is one whose result Q4 does not use
    seed, rule = gsm8k_readings.seeds["1123"], gsm8k_readings.rule("1123")
    steps = list(rule.steps)
    steps[2] = dataclasses.replace(steps[2], line="On the next day, the manager counts 4 toys * 10 hours = "
                                                   "<<4*10=40>>40 toys over their shift.")
    steps[3] = dataclasses.replace(steps[3], expr=steps[1].expr)  # Q4 computes with Q1, not Q3
    with pytest.raises(KeyInfoError, match="would read with the same words"):
        keyinfo_from_annotations(seed["question"], seed["solution"], steps, givens=rule.givens)


def test_a_number_phrase_after_and_keeps_its_there_were(gsm8k_readings) -> None:
    assert gsm8k_readings.keyinfo("1098")["known_quantities"] == [
        "There were 20 private cars and 12 buses parked outside the church",
        "After the ceremony, each bus carried 35 people", "Each car carried 3 people"]


def test_the_asking_clause_states_two_numbers_in_one_phrase(gsm8k_readings) -> None:
    known = gsm8k_readings.keyinfo("904")["known_quantities"]
    assert 'The question asks about "20 small and 8 large masks"' in known
    assert not any(k.endswith('"20 small"') for k in known)


def test_the_letter_of_the_solution_is_noted_only_where_another_unknown_writes_it(gsm8k_readings) -> None:
    assert gsm8k_readings.keyinfo("1048")["unknown_quantities"][0] == \
        "Q1: Number of tennis balls Rory retrieved in the third set is ?"
    # another unknown's words write the letter: the note stays, so the letter reads as Q1
    kept = ["Q1: Number of losses (L in the solution) is ?", "Q2: The team won 22 - L games"]
    assert letters_unused(kept) == kept
    assert letters_unused(["Q1: Number of losses (L in the solution) is ?", "Q2: Lou won ? games"]) == [
        "Q1: Number of losses is ?", "Q2: Lou won ? games"]
