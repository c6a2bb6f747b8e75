"""Terse unknowns read as an annotator would read them (issue 26.1, Understanding): the value asked
for whose line says no more than its blank and unit ("? letters", 430; "? km", 382) is described by
the solution's concluding sentence ("Together Indras and her sister have ? letters in their
names."); another unknown described by its unit alone ("Q1: ? km") is refused (1051 and 670 read
by the question's words since lane un4); a label and its blank ("Ruins:220(.40)=88", 333) counts what the first given its step
computes with counts ("Ruins: ? castles"); the solution's letter stays noted where another unknown
writes it after a number ("2V", 757). "Drop 8 degrees = ? degrees" (1114) is refused: a label of
the blank's own unit reads as two quantities."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import pytest

from qcstation.core.construct.make.draft_reads import refuse_unread
from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.construct.make.unknown_words import letters_unused
from qcstation.core.construct.make.unknowns import _labelled
from qcstation.core.reading.expr import BinOp, Name, Num


@pytest.mark.parametrize(("seed", "index", "text"), [
    ("430", 1, "Q2: Together Indras and her sister have ? letters in their names. (the value asked for)"),
    ("382", 2, "Q3: Cho hiked ? kilometers farther than Chloe. (the value asked for)"),
    ("1161", 1, "Q2: The IRS received ? tax reports on Wednesday of last week. (the value asked for)"),
])
def test_a_terse_asked_value_takes_the_concluding_sentence(gsm8k_readings, seed: str, index: int,
                                                          text: str) -> None:
    assert gsm8k_readings.keyinfo(seed)["unknown_quantities"][index] == text


def test_an_unknown_named_by_its_unit_alone_is_refused() -> None:
    # (670's and 1051's Q1, "5 + 3 + 0.25 = 8.25 tablespoons" / "325 * 4 = 1300 km", read by the
    # question's words since lane un4, "for every muffin" / "for 4 days": test_keyinfo_mended)
    with pytest.raises(KeyInfoError, match="Q1 would read with only its unit"):
        refuse_unread(["Q1: ? km", "Q2: Bernice will still have ? kilometers to travel. (the value asked for)"], "")


@pytest.mark.parametrize(("seed", "index", "text"), [
    ("333", 0, "Q1: Ruins: ? castles"),        # "There are 220 castles in Scotland" / 220(.40)
    ("696", 0, "Q1: Bucks: ? deer"),           # "There are 50 deer in a field" / 50(.50)
    ("430", 0, "Q1: Sister: ? letters"),       # "Indras has 6 letters in her name" / 6/2 + 4
    ("271", 1, "Q2: Third Bag: ? M&Ms"),       # "The first bag has 300 M&Ms in it" / 300/2
])
def test_a_label_counts_what_its_first_given_counts(gsm8k_readings, seed: str, index: int, text: str) -> None:
    assert gsm8k_readings.keyinfo(seed)["unknown_quantities"][index] == text


def test_a_label_whose_given_names_no_noun_stays_as_it_is() -> None:
    question = "Becca has 12 more cards than Smendrick."
    step = SimpleNamespace(expr=BinOp("+", Name("g1"), Num(Fraction(3), "3")))
    givens = [{"name": "g1", "value": "12", "span": [10, 12]}]
    assert _labelled("Becca: ?", step, givens, question) == "Becca: ?"
    # a description with words of its own is no label
    assert _labelled("He buys ?", step, givens, question) == "He buys ?"


def test_the_letter_written_after_a_number_keeps_its_note() -> None:
    # (757's "2V = ?" is no longer written: its letter term goes, test_keyinfo_mended, and its note with it)
    assert letters_unused(["Q1: Number of strawberry cubes (s in the solution) is ?",
                           "Q2: Into b = 5s - 4, we get b = ?"])[0].endswith("(s in the solution) is ?")


def test_a_label_of_the_blank_s_own_unit_is_refused(gsm8k_readings) -> None:
    # "Drop 8 degrees = -6 degrees" (1114): 'Drop 8 degrees = ? degrees' reads as the drop or as the
    # temperature after it; the chain's computation is hidden, the words still do not say which
    with pytest.raises(KeyInfoError, match="Q1 would read as two quantities of one unit"):
        gsm8k_readings.keyinfo("1114")
