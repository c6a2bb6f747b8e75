"""Unknowns and known quantities of rule-made key information read as an annotator would read
them (issue 26.1, Understanding; lane un4): a description's form that reads as no sentence is
mended by the solution's and the question's own words (:mod:`...make.unknown_forms`): the words
between a computation's "=" and its result stay with the blank ("Charlie wears shoe size ?",
984), the solution's letter term before a blank goes ("there were ? votes", 757), a name and its
blank take the verb of the one sentence of the question that states the step's givens ("Cho
hiked ? km", 382; "On Tuesday they delivered ? letters", 1041), else is the blank's label ("Rug: ? feet",
504), a list of labels counts what its first given counts ("Mon, Tues, Thur, Fri: ?
reports", 1161), the value asked for said by its blank alone takes the unit the question asks
for ("? points", 448); unknowns with the same words are told apart by the one thing of the
question each multiplies by, or the share it divides by (854: "for 90 rooms", "for one-half of
the rooms"); a board's size the question writes ("the 2 x 4s", 116) is no computation shown; a
clause stating a 1 the solution counts is a known quantity ("She drops 1 of each", 813), and a comparison after "and" stays with the clause
whose verb it shares ("... and 10 more points than Dinar scored", 951). The
near-misses stay as they were or refused."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import pytest

from qcstation.core.construct.make.draft_reads import refuse_unread
from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.construct.make.unknown_forms import mended, restored_words, words_before_result
from qcstation.core.construct.make.unknown_words import told_apart
from qcstation.core.reading.expr import BinOp, Name, Num


@pytest.mark.parametrize(("seed", "index", "text"), [
    ("984", 0, "Q1: If Sophie wears size five shoes, Charlie wears shoe size ?"),
    ("984", 2, "Q3: The average for the shoe size the two wear is shoe size ? (the value asked for)"),
    ("1079", 2, "Q3: She'll have in ? more weeks. (the value asked for)"),
    ("757", 0, "Q1: Number of votes against the new regulation is ?"),
    ("757", 1, "Q2: Therefore, there were ? votes in favor of the new regulation. (the value asked for)"),
    ("382", 0, "Q1: Cho hiked ? km"),
    ("382", 1, "Q2: Chloe hiked ? km"),
    ("647", 1, "Q2: Stanley biked ? miles"),      # "Stanley biked at 10 miles per hour for 2.5 hours"
    ("1009", 0, "Q1: Matteo traveled ? miles"),
    ("1161", 0, "Q1: Mon, Tues, Thur, Fri: ? reports"),
    ("448", 2, "Q3: ? points (the value asked for)"),
    ("1041", 0, "Q1: On Tuesday they delivered ? letters"),
    ("1041", 2, "Q3: Total: ? letters (the value asked for)"),
    ("445", 1, "Q2: Movie B was ? minutes"),
    ("504", 0, "Q1: Rug: ? feet"),
    ("1137", 1, "Q2: Number of marbles Bob starts with is ?"),
    # the letter alone before its blank is the unknown the equation names: kept
    ("1246", 1, "Q2: Substituting this value back into the equation b = 5s - 4, we get b = ? (the value asked for)"),
])
def test_a_description_reads_as_a_sentence(gsm8k_readings, seed: str, index: int, text: str) -> None:
    assert gsm8k_readings.keyinfo(seed)["unknown_quantities"][index] == text


def test_the_words_after_an_equals_sign_are_put_back_once() -> None:
    assert words_before_result("Charlie wears 5 * shoe size 5 = shoe size ") == \
        ("Charlie wears 5 * shoe size 5 =", "shoe size ")
    assert restored_words("The two wear is shoe size", "shoe size ") == ""
    assert words_before_result("she made 5+3 = $") == ("she made 5+3 = $", "")  # a sign, no words


def _at(question: str, name: str, said: str) -> dict[str, object]:
    at = question.index(said)
    return {"name": name, "span": [at, at + len(said.split()[0])]}


def _step(expr: object) -> SimpleNamespace:
    return SimpleNamespace(expr=expr)


def test_a_name_takes_a_verb_only_from_its_one_sentence_that_states_a_given_of_the_step() -> None:
    question = "Cho hiked 14 kilometers per hour for 8 hours. Chloe hiked 9 kilometers per hour."
    givens = [_at(question, "g1", "14"), _at(question, "g2", "8 hours"), _at(question, "g3", "9")]
    assert mended("Cho ? km", _step(BinOp("*", Name("g1"), Name("g2"))), givens, question, [], False) == "Cho hiked ? km"
    # a given of another sentence alone (Chloe's 9): no verb of Cho's; the name is the blank's label
    assert mended("Cho ? km", _step(BinOp("*", Name("g3"), Name("s1"))), givens, question, [], False) == "Cho: ? km"
    # a name that opens two sentences: which one's verb?
    twice = question + " Cho rested 2 hours."
    assert mended("Cho ? km", _step(BinOp("*", Name("g1"), Name("g2"))), givens, twice, [], False) == "Cho: ? km"
    # a joining word is no name ("And 120/60 = <<...>>2 hours", 329)
    assert mended("And ? hours.", _step(BinOp("*", Name("g1"), Name("g2"))), givens, question, [], False) == \
        "And ? hours."
    # "On Tuesday they delivered 17 more than one-fifth as many as Monday" (1041)
    days = "On Monday they delivered 425 letters. On Tuesday they delivered 17 more than one-fifth as many as Monday."
    assert mended("Tuesday ? letters", _step(BinOp("+", Name("s1"), Name("g2"))),
                  [_at(days, "g1", "425"), _at(days, "g2", "17")], days, [], False) == \
        "On Tuesday they delivered ? letters"


def test_a_bare_blank_takes_the_asked_unit_only_as_the_value_asked_for() -> None:
    question = "Joey has 214 points. By how many points is Joey now winning?"
    step = _step(Num(Fraction(5), "5"))
    assert mended("And ?", step, [], question, [], True) == "? points"
    assert mended("And ?", step, [], question, [], False) == "And ?"
    two = "How many points does Joey have? How many points is Joey now winning by?"
    assert mended("And ?", step, [], two, [], True) == "And ?"


def test_a_letter_term_goes_only_as_a_computation_of_the_letter() -> None:
    step = _step(Num(Fraction(22), "22"))
    assert mended("there were 2V = ? votes", step, [], "", [("V", "")], False) == "there were ? votes"
    assert mended("we get b = ?", step, [], "", [("b", "")], False) == "we get b = ?"
    assert mended("there were 2V = ? votes", step, [], "", [("W", "")], False) == "there were 2V = ? votes"
    # the letter alone is the words the solution lets it stand for ("This means B = 60 - 24 = 36", 1137)
    assert mended("This means B ?", step, [], "", [("B", "the number of marbles Bob starts with")], False) == \
        "The number of marbles Bob starts with is ?"
    assert mended("This means B ?", step, [], "", [("C", "the number of cakes")], False) == "This means B ?"


@pytest.mark.parametrize(("seed", "text"), [
    ("813", "She drops 1 of each"),
    ("149", "Brittany's mom gives the cashier money for 1 child ticket and 1 adult ticket"),
    ("347", "Jenny buys 1 bag of cookies a week"),
    ("877", "The multiple-choice and true/false questions are worth 1 point each"),
])
def test_a_clause_stating_a_one_the_solution_counts_is_a_known_quantity(gsm8k_readings, seed: str,
                                                                       text: str) -> None:
    assert text in gsm8k_readings.keyinfo(seed)["known_quantities"]


@pytest.mark.parametrize(("seed", "text"), [
    ("951", "Bahati scored the most points and it was 20 more than Azibo scored and 10 more points than Dinar scored"),
    ("584", "At the event, she found out that her friend had brought 40 cups and 20 more dishes than she had brought"),
    ("1199", "On the second day, he planted 10 more White Oak trees and 1/4 more Lodgepole Pine trees than he "
             "planted on the first day"),
])
def test_a_comparison_after_and_stays_with_the_clause_whose_verb_it_shares(gsm8k_readings, seed: str,
                                                                           text: str) -> None:
    known = gsm8k_readings.keyinfo(seed)["known_quantities"]
    assert text in known
    assert not any(k[:1].isdigit() for k in known)  # ("10 more points than Dinar scored" was one)


def test_a_phrase_stating_a_one_with_no_subject_is_not_listed(gsm8k_readings) -> None:
    # 1057: "... 2 twin sets of sheets at a time and 1 king set of sheets at a time": the cut
    # phrase starts with its number, no clause of its own
    assert not any(k.startswith("1 king") for k in gsm8k_readings.keyinfo("1057")["known_quantities"])


def test_newly_made_seeds_read_against_their_questions(gsm8k_readings) -> None:
    ki = gsm8k_readings.keyinfo("854")
    assert ki["unknown_quantities"] == ["Q1: ? minutes (for 90 rooms)", "Q2: ? minutes (for one-half of the rooms)",
                                        "Q3: Q2 minutes = ? hours (the value asked for)"]
    assert ki["relationships_and_constraints"] == ["Q1 = 90 × 20", "Q2 = Q1 ÷ 2", "Q3 = Q2 ÷ 60"]
    ki = gsm8k_readings.keyinfo("116")
    assert ki["unknown_quantities"][:2] == ["Q1: She bought the 2 x 4s for ?", "Q2: She bought the 4 x 4s for ?"]
    assert ki["relationships_and_constraints"][3] == "Q4 = Q3 × (1 + 50%)"
    ki = gsm8k_readings.keyinfo("245")
    assert "In the end Griffin had 27 fries" in ki["known_quantities"]
    assert ki["unknown_quantities"] == ["Q1: Number of fries given to Griffin by Ginger is ? (the value asked for)"]
    assert ki["relationships_and_constraints"] == ["24 − 5 − 2 × 5 − (5 − 3) + Q1 = 27"]


def test_unknowns_told_apart_only_by_what_each_multiplies_by() -> None:
    question = "There are 90 rooms. It takes 20 minutes to clean each room. 5 people clean one-half of the rooms."
    givens = [_at(question, "g1", "90"), _at(question, "g2", "20"), _at(question, "g3", "5 people"),
              _at(question, "w_half", "one-half")]
    first = SimpleNamespace(name="s1", expr=BinOp("*", Name("g1"), Name("g2")), line="")
    half = SimpleNamespace(name="s2", expr=BinOp("/", Name("s1"), Name("w_half")), line="")
    assert told_apart(["Q1: ? minutes", "Q2: ? minutes"], [first, half], givens, question) == \
        ["Q1: ? minutes (for 90 rooms)", "Q2: ? minutes (for one-half of the rooms)"]
    # "1800 / 5": per person, never "for 5 people"
    per = SimpleNamespace(name="s2", expr=BinOp("/", Name("s1"), Name("g3")), line="")
    with pytest.raises(KeyInfoError, match="same words"):
        told_apart(["Q1: ? minutes", "Q2: ? minutes"], [first, per], givens, question)
    # a difference of givens of the blank's own unit (621: "1000-356=644 times") tells nothing
    with pytest.raises(KeyInfoError, match="same words"):
        told_apart(["Q1: ? minutes", "Q2: ? minutes"],
                   [SimpleNamespace(name="s1", expr=BinOp("-", Name("g2"), Name("g1")), line=""), per], givens,
                   question)


@pytest.mark.parametrize("seed", ["621", "1271", "490"])
def test_unknowns_no_words_of_the_question_tell_apart_stay_refused(gsm8k_readings, seed: str) -> None:
    with pytest.raises(KeyInfoError):
        gsm8k_readings.keyinfo(seed)


@pytest.mark.parametrize(("seed", "unknown"), [
    ("670", "Q1: ? tablespoons (for every muffin)"),   # 5 + 3 + 0.25, all of "For every muffin, ..."
    ("1051", "Q1: ? km (for 4 days)"),                  # 325 * 4: "drove 325 kilometers for 4 days"
    ("1131", "Q2: ? ounces (for the boxes)"),           # "25 boxes * 8 ounces per box = <<...>>200 ounces"
])
def test_an_unknown_of_its_unit_alone_takes_the_question_s_words(gsm8k_readings, seed: str, unknown: str) -> None:
    assert unknown in gsm8k_readings.keyinfo(seed)["unknown_quantities"]


def test_an_unknown_of_its_unit_alone_with_no_per_phrase_stays_as_it_is() -> None:
    question = "In the kitchen, Svetlana needed 5 tablespoons of flour and 3 tablespoons of sugar."
    givens = [_at(question, "g1", "5"), _at(question, "g2", "3")]
    step = SimpleNamespace(name="s1", expr=BinOp("+", Name("g1"), Name("g2")), line="")
    last = SimpleNamespace(name="s2", expr=BinOp("*", Name("s1"), Name("g1")), line="")
    unknown = ["Q1: ? tablespoons", "Q2: Svetlana needed ? tablespoons in all."]
    assert told_apart(unknown, [step, last], givens, question) == unknown
    per = "For every muffin, Svetlana needed 5 tablespoons of flour and 3 tablespoons of sugar."
    assert told_apart(unknown, [step, last], [_at(per, "g1", "5"), _at(per, "g2", "3")], per)[0] == \
        "Q1: ? tablespoons (for every muffin)"
    # a given of another sentence: the opening phrase is not said of it
    apart = "For every muffin, Svetlana needed 5 tablespoons of flour. She adds 3 tablespoons of sugar."
    assert told_apart(unknown, [step, last], [_at(apart, "g1", "5"), _at(apart, "g2", "3")], apart) == unknown


def test_a_computation_the_question_does_not_write_is_still_shown() -> None:
    question = "She has ten 2 x 4 x 10 boards that cost her $10 each."
    refuse_unread(["Q1: She bought the 2 x 4s for ?"], question)
    with pytest.raises(KeyInfoError, match="its computation"):
        refuse_unread(["Q1: She bought the 2 x 4s for ?"], "She has ten boards that cost her $10 each.")
    with pytest.raises(KeyInfoError, match="its computation"):
        refuse_unread(["Q1: Madeline spends $25*4 ? on food"], question)


def test_an_unknown_of_its_unit_alone_takes_its_line_s_one_other_thing_only() -> None:
    from qcstation.core.construct.make.unknown_words import _other_phrase

    line = "25 boxes * 8 ounces per box = <<25*8=200>>200 ounces."
    assert _other_phrase(SimpleNamespace(line=line), "? ounces.") == ["the boxes"]
    # two things besides the unit: which one?
    two = "25 boxes * 8 crayons = <<25*8=200>>200 ounces."
    assert _other_phrase(SimpleNamespace(line=two), "? ounces.") is None
    # bare numbers: nothing to say
    assert _other_phrase(SimpleNamespace(line="25 * 8 = <<25*8=200>>200 ounces."), "? ounces.") is None
