"""A number the question names a thing by is no quantity the solution uses (issue 26.1): "8 chairs in
room 1, 14 chairs in room 2, and 6 chairs in room 3" names three rooms, so a line that writes "6 room 3
chairs" writes no 3 the formalization must use (refused before: "the answer step does not use the
given(s) 3"). A word is a name only where the question writes it before two numbers or more, and never
a verb ("sold 3 ... sold 5") or a word of the grammar."""

from __future__ import annotations

from qcstation.core.construct.make.rules.calculator import _labels
from qcstation.core.construct.make.rules.dispatch import rule_for_seed

ROOMS = ("There are 8 chairs in room 1, 14 chairs in room 2, and 6 chairs in room 3. If room 4 has 5 more chairs "
         "than room 3, how many chairs are in all 4 rooms?")


def test_a_room_the_question_names_by_its_number_is_no_given() -> None:
    made = rule_for_seed({"question": ROOMS, "solution": "Room 4 has 6 room 3 chairs + 5 = <<6+5=11>>11 chairs\n"
                          "All the rooms have 8 + 14 + 6 + 11 = <<8+14+6+11=39>>39 chairs",
                          "answer_text": "39", "source": "gsm8k"})
    assert made.value == 39
    assert sorted(g["value"] for g in made.givens) == ["14", "5", "6", "8"]


def test_only_a_noun_before_two_numbers_or_more_names_things() -> None:
    assert _labels(ROOMS) == {"room": frozenset({"1", "2", "3", "4"})}
    assert _labels("Her semester 2 average was 82. How much higher was her semester 1 average?") == {
        "semester": frozenset({"1", "2"})}
    assert _labels("He sold 3 cakes on Monday and sold 5 on Tuesday. On day 2 he rested.") == {}
    assert _labels("The hall seats 1,500 people, the room 2.5 times fewer.") == {}
