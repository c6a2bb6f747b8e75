"""Rule-made key information read as a reviewer reads it (issue 26.1, Understanding; lane un5):
a number phrase with no verb of its own is said by the clause before it, never a known quantity
cut from it (633, 319, 689, 1057); the item of a two-item list whose number the solution never
uses is a distractor said with the list's verb (365); a blank keeps the inch sign its value was
written with (1293), a sentence asking how many labels its blank (1131), a rate whose money sign
went reads "per month" (174), a rate multiplied by a number of what it is per is no rate (1027),
a rate a day times the days of a week is a rate a week (235);
an opening phrase of the solution's that writes a word given as a number before another noun goes
(403); the value asked for names the person whose age the question asks (1189); a blank with only
a unit of two words is refused (329). Near-misses stay as they were."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.construct.make.known_forms import unused_list_items, verbless_number_phrase
from qcstation.core.construct.make.unknown_forms import said_by_question, written_units


@pytest.mark.parametrize(("seed", "text"), [
    ("633", "He bought 3 more truck stamps than snowflake stamps, and 9 fewer rose stamps than truck stamps"),
    ("319", "A classroom has 3 times as many girls as they do boys, and 1/10 as many nongendered children "
            "as they do boys"),
    ("689", "John has 20 minutes of math homework, 40 minutes of reading homework, and 20 minutes of history "
            "homework and 3 hours before he has to eat dinner"),
    ("1057", "His laundry machine will only allow him to wash 2 twin sets of sheets at a time and 1 king set of "
             "sheets at a time"),
    ("425", "6 minibusses that can hold 30 employees, and 10 minivans that can hold 15 employees"),
])
def test_a_number_phrase_is_said_by_its_clause(gsm8k_readings, seed: str, text: str) -> None:
    known = gsm8k_readings.keyinfo(seed)["known_quantities"]
    assert text in known
    assert not any(k[:1].isdigit() and k != text and k in text for k in known)


@pytest.mark.parametrize(("seed", "text"), [
    # a clause of its own: its verb said again ("drank"), or a verb that is no noun ("want")
    ("809", "16 students each drank 2 quarts of tea"),
    ("1042", "6 people want the pasta salad at $6 per person"),
])
def test_a_clause_with_its_own_verb_stays_apart(gsm8k_readings, seed: str, text: str) -> None:
    assert text in gsm8k_readings.keyinfo(seed)["known_quantities"]


def test_which_phrases_have_no_verb() -> None:
    assert verbless_number_phrase("and 3 hours before he has to eat dinner")
    assert verbless_number_phrase("and 9 fewer rose stamps than truck stamps")
    assert not verbless_number_phrase("and 9 fewer rose stamps were sold")
    assert verbless_number_phrase("and 1 king set of sheets at a time", "wash 2 twin sets of sheets at a time")
    assert not verbless_number_phrase("and 1 king set of sheets at a time", "wash 2 twin sets of sheets")
    assert not verbless_number_phrase("and 16 students each drank 2 quarts of tea",
                                      "Four students each drank 1.5 quarts of tea")
    assert not verbless_number_phrase("and he has 3 hours")


def test_an_unused_list_item_is_a_distractor(gsm8k_readings) -> None:
    assert gsm8k_readings.keyinfo("365")["irrelevant_information"] == ["On Friday, 5 fourth-grade girls were absent"]
    unused = lambda t: "5" in t  # noqa: E731
    assert unused_list_items("On Friday, 5 girls and 4 boys were absent", unused) == ["On Friday, 5 girls were absent"]
    # both used, both unused, or a list said by no form of "be": nothing
    assert unused_list_items("On Friday, 6 girls and 4 boys were absent", unused) == []
    assert unused_list_items("On Friday, 5 girls and 5 boys were absent", unused) == []
    assert unused_list_items("On Friday, 5 girls and 4 boys left early", unused) == []


@pytest.mark.parametrize(("seed", "index", "text"), [
    ("1293", 0, 'Q1: Anne is twice the size of Albert, who is 36", so Anne is ?" tall'),
    ("1131", 0, "Q1: First find how many boxes Nik needs: ? boxes"),
    ("900", 0, "Q1: Subtract 4 from 100 to see how many cookies are left: ? cookies"),
    ("174", 0, "Q1: First find the total minimum payment each month: ? per month"),
    ("794", 1, "Q2: The overtime hourly rate is ? per hour."),
    ("1027", 2, "Q3: Then multiply the amount one dwarf can mine in a day with a steel pickaxe by the number of "
                "dwarves: ? pounds/day"),
    ("1027", 3, "Q4: Then multiply the daily amount of ore by the number of days to find the total ore mined in a "
                "month: ? pounds (the value asked for)"),
    ("403", 0, "Q1: Mark needs: ? cups of flour."),
    ("403", 1, "Q2: To get Q1 cups of flour, Mark needs to buy: ? bags"),
    ("1189", 2, "Q3: That means Jim is now ? (the value asked for)"),
    # a rate a day times the days of a week is a rate a week (the solution wrote "a day" twice)
    ("235", 1, "Q2: So together they eat ? tomatoes a day"),
    ("235", 2, "Q3: That means they eat ? tomatoes a week"),
    # the line's own rate is per second: the constant's name (minutes per hour) reads nothing
    ("627", 0, "Q1: With a speed of 20 kb per second, there are ? kb per minute."),
])
def test_an_unknown_reads_as_the_question_says(gsm8k_readings, seed: str, index: int, text: str) -> None:
    assert gsm8k_readings.keyinfo(seed)["unknown_quantities"][index] == text


def test_near_misses_of_the_unit_mends() -> None:
    # no inch sign after a number in the question: the quote is left
    assert written_units('so she is ? " tall', "", "She is 5 feet tall.") == 'so she is ? " tall'
    # a rate whose line multiplies by something else stays a rate
    assert written_units("in total: ? pounds/day", "36 pounds/day/dwarf * 40 dwarves = 1440 pounds/day", "") \
        == "in total: ? pounds/day"
    # a sentence that asks nothing keeps its stop
    assert written_units("He packs the crayons. ? boxes.", "", "") == "He packs the crayons. ? boxes."


def test_near_misses_of_the_question_words() -> None:
    quadruple = [{"name": "w_quadruple", "value": "4", "span": [17, 26]}]
    question = "Mark is making a quadruple batch of brownies. How old is Jim?"
    # the phrase counts what the word counts ("4 batches"): kept
    assert said_by_question("To make 4 batches, Mark needs: ?", quadruple, question, False) == \
        "To make 4 batches, Mark needs: ?"
    assert said_by_question("To make 4 brownies, Mark needs: ?", quadruple, question, False) == "Mark needs: ?"
    # the question writes the number in digits too: the solution's phrase may be the question's
    assert said_by_question("To make 4 brownies, Mark needs: ?", quadruple, question + " He has 4 pans.", False) \
        == "To make 4 brownies, Mark needs: ?"
    # two persons' ages asked, a name the question does not write, or not the value asked for: left
    ask_two = "John is 28. How old is Jim? How old is Ann?"
    assert said_by_question("That means John is now ?", [], ask_two, True) == "That means John is now ?"
    assert said_by_question("That means Jake is now ?", [], "John is 28. How old is Jim?", True) == \
        "That means Jake is now ?"
    assert said_by_question("That means John is now ?", [], "John is 28. How old is Jim?", False) == \
        "That means John is now ?"


def test_a_blank_with_a_unit_of_two_words_alone_is_refused(gsm8k_readings) -> None:
    with pytest.raises(KeyInfoError, match="only its unit"):
        gsm8k_readings.keyinfo("329")
    # a thing counted ("? white fish.", 784) is no unit alone
    assert gsm8k_readings.keyinfo("784")["unknown_quantities"][1] == "Q2: ? white fish."


def test_the_readers_take_a_step_without_a_line() -> None:
    assert written_units("? /week", str(SimpleNamespace().__dict__.get("line", "")), "") == "? per week"
