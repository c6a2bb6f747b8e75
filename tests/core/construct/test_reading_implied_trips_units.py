"""Numbers the words imply that the question never writes (issue 26.1, lane gold10a: the largest
group of held-out GSM8K train refusals, "a hard-coded result or an unstated fact"): the two ways of
a trip "to and from" / "each way", a bird's wings, a vehicle's tires, the radii of a diameter, one
person's parents, a chair's legs, units of volume and length, the months of a quarter, "Monday -
Friday", the month a line names, a list of weekdays counted as days. Each is a named constant (or
the list's count) tied to its words in both texts; each with a near-miss the rules refuse or read
otherwise. The problems are written for these tests."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from tests.core.construct.seeds import gsm8k_seed as _seed


def _asserts(seed: dict[str, str]) -> list[str]:
    return [ln for ln in rule_for_seed(seed).smtlib.splitlines() if ln.startswith("(assert")]


def _refused_or_without(seed: dict[str, str], name: str) -> None:
    """The near-miss: refused, or made without the constant ``name``."""
    try:
        steps = _asserts(seed)
    except RuleError:
        return
    assert not any(name in s for s in steps), steps


TO_AND_FROM = _seed(
    "Lena's school is 400 meters from her house. She walks to and from school every day. "
    "How many meters does she walk in 5 days?",
    "Each day she walks 400 x 2 = <<400*2=800>>800 meters to and from school.\n"
    "In 5 days she walks 800 x 5 = <<800*5=4000>>4000 meters.", "4000")

EACH_WAY = _seed(
    "Sam drives 15 miles to work each way, 5 days a week. How many miles does he drive for work in a week?",
    "He drives 15*2=<<15*2=30>>30 miles a day for work.\nSo he drives 30*5=<<30*5=150>>150 miles a week.", "150")


def test_to_and_from_and_each_way_are_the_two_ways_of_a_round_trip() -> None:
    steps = _asserts(TO_AND_FROM)
    assert "(assert (= k_ways_of_a_round_trip 2))" in steps
    assert any("(* g1_meters k_ways_of_a_round_trip)" in s for s in steps)
    steps = _asserts(EACH_WAY)
    assert any("(* g1_miles k_ways_of_a_round_trip)" in s for s in steps)


def test_a_trip_said_one_way_takes_no_round_trip() -> None:
    """Near-misses: the question says no way back; a line that names nothing of the trip's sentence;
    the front and back of a page are no trip."""
    _refused_or_without(dict(TO_AND_FROM, question=TO_AND_FROM["question"].replace(
        "She walks to and from school every day.", "She walks to school every day and rides home.")),
        "k_ways_of_a_round_trip")
    _refused_or_without(dict(EACH_WAY, solution="That is 15*2=<<15*2=30>>30 in all.\n"
                                                "So 30*5=<<30*5=150>>150 in all."), "k_ways_of_a_round_trip")
    _refused_or_without(_seed("Omar prints 150 pages of a report on the front and back of each sheet. "
                              "How many sheets does he use?",
                              "He uses 150/2 = <<150/2=75>>75 sheets.", "75"), "k_ways_of_a_round_trip")


WINGS = _seed("A pet shop has 7 parrots and 5 ducks. How many wings do the birds have altogether?",
              "There are 7 + 5 = <<7+5=12>>12 birds.\nEach bird has 2 wings, so there are 12 * 2 = <<12*2=24>>24 wings.",
              "24")


def test_a_birds_two_wings() -> None:
    assert "(assert (= k_wings_per_bird 2))" in _asserts(WINGS)
    # near-miss: a line that names no wings
    _refused_or_without(dict(WINGS, solution=WINGS["solution"].replace("Each bird has 2 wings, so there are", "So")),
                        "k_wings_per_bird")


TIRES = _seed("A garage fitted new tires on 6 cars and 3 motorcycles. How many tires did it fit?",
              "The cars took 6 * 4 = <<6*4=24>>24 car tires.\nThe motorcycles took 3 * 2 = <<3*2=6>>6 motorcycle "
              "tires.\nIn all it fitted 24 + 6 = <<24+6=30>>30 tires.", "30")


def test_a_vehicles_tires() -> None:
    steps = _asserts(TIRES)
    assert "(assert (= k_wheels_per_car 4))" in steps
    assert "(assert (= k_wheels_per_motorcycle 2))" in steps
    # near-miss: seats are no tires; a car's seats are not said
    _refused_or_without(_seed("A garage cleaned the seats of 6 cars. How many seats did it clean?",
                              "The cars have 6 * 4 = <<6*4=24>>24 car seats.", "24"), "k_wheels_per_car")


POOL = _seed("A round pool has a radius of 9 feet. How many yards long is its diameter?",
             "The diameter is 2 * 9 = <<2*9=18>>18 feet.\nIn yards that is 18 / 3 = <<18/3=6>>6 yards.", "6")


def test_the_radii_of_a_diameter() -> None:
    steps = _asserts(POOL)
    assert any("(* k_radii_per_diameter g1_feet)" in s for s in steps)
    # near-miss: a question that says no diameter
    _refused_or_without(dict(POOL, question="A round pool has a radius of 9 feet. How many yards is it across?"),
                        "k_radii_per_diameter")


PARENTS = _seed("Nora spent $200 on gifts. She spent $60 on her sister and the rest on her parents, who each got "
                "a gift of equal value. How much did she spend on each parent's gift?",
                "She spent $200 - $60 = $<<200-60=140>>140 on her parents.\nEach parent's gift cost $140 / 2 = "
                "$<<140/2=70>>70.", "70")


def test_one_persons_two_parents() -> None:
    assert "(assert (= k_parents_of_one_person 2))" in _asserts(PARENTS)
    # near-miss: the parents of a class are not two
    _refused_or_without(dict(PARENTS, question=PARENTS["question"].replace("her parents", "the parents")),
                        "k_parents_of_one_person")


CHAIRS = _seed("A carpenter made 40 legs for his chairs and tables. He built 6 chairs. How many tables did he build?",
               "The chairs took 6 chairs * 4 legs = <<6*4=24>>24 legs.\nThat leaves 40 - 24 = <<40-24=16>>16 legs.\n"
               "A table has 4 legs, so he built 16 / 4 = <<16/4=4>>4 tables.", "4")


def test_a_chairs_four_legs() -> None:
    steps = _asserts(CHAIRS)
    assert "(assert (= s1_legs (* g1_chairs k_legs_per_chair)))" in steps
    assert any("k_legs_per_table))" in s for s in steps)
    # near-miss: a stool's legs are not said
    _refused_or_without(_seed("A carpenter made 6 stools. How many legs did he make?",
                              "The stools took 6 stools * 3 legs = <<6*3=18>>18 legs.", "18"), "k_legs_per")


@pytest.mark.parametrize(("question", "solution", "answer", "name"), [
    ("A jug holds 2.5 quarts of juice. How many 8-ounce glasses can it fill?",
     "The jug holds 2.5 * 32 = <<2.5*32=80>>80 ounces.\nIt fills 80 / 8 = <<80/8=10>>10 glasses.", "10",
     "k_ounces_per_quart"),
    ("A tank holds 3 gallons of water. How many pints does it hold?",
     "It holds 3 * 8 = <<3*8=24>>24 pints.", "24", "k_pints_per_gallon"),
    ("A 12-meter rope is cut into pieces 40 centimeters long. How many pieces are there?",
     "The rope is 12 * 100 = <<12*100=1200>>1200 centimeters.\nThere are 1200 / 40 = <<1200/40=30>>30 pieces.", "30",
     "k_centimeters_per_meter"),
])
def test_units_the_question_says_both_of(question: str, solution: str, answer: str, name: str) -> None:
    assert any(s.startswith(f"(assert (= {name} ") for s in _asserts(_seed(question, solution, answer)))


def test_a_unit_the_question_does_not_say_is_refused() -> None:
    """Near-miss: the question says quarts and glasses, never ounces."""
    _refused_or_without(_seed("A jug holds 2.5 quarts of juice. How many glasses can it fill if a glass holds a "
                              "cup?", "The jug holds 2.5 * 32 = <<2.5*32=80>>80 ounces.\nIt fills 80 / 8 = "
                              "<<80/8=10>>10 glasses.", "10"), "k_ounces_per_quart")


QUARTERLY = _seed("Tom pays his phone bill quarterly at $90. How much does he pay in a year?",
                  "There are 3 months in a quarter, so there are 12 / 3 = <<12/3=4>>4 quarters in a year.\n"
                  "He pays 90 * 4 = $<<90*4=360>>360 a year.", "360")


def test_the_months_of_a_quarter() -> None:
    steps = _asserts(QUARTERLY)
    assert "(assert (= s1_quarters_year (/ k_months_per_year k_months_per_quarter)))" in steps
    # near-miss: a bill paid each season names no quarter
    _refused_or_without(dict(QUARTERLY, question=QUARTERLY["question"].replace("quarterly", "each season")),
                        "k_months_per_quarter")


WEEKDAYS_DASH = _seed("Pia reads 20 pages every day, Monday – Friday. How many pages does she read in 4 weeks?",
                      "Monday – Friday is 5 days, so she reads 20 * 5 = <<20*5=100>>100 pages a week.\n"
                      "In 4 weeks she reads 100 * 4 = <<100*4=400>>400 pages.", "400")


def test_monday_to_friday_with_a_dash() -> None:
    assert "(assert (= k_weekdays_per_week 5))" in _asserts(WEEKDAYS_DASH)
    # near-miss: Monday to Thursday is no work week
    _refused_or_without(_seed(WEEKDAYS_DASH["question"].replace("Friday", "Thursday"),
                              "She reads 20 * 5 = <<20*5=100>>100 pages a week.\n"
                              "In 4 weeks she reads 100 * 4 = <<100*4=400>>400 pages.", "400"), "k_weekdays_per_week")


JUNE_JULY = _seed("In June, Ava saves $3 every day. In July she saves $2 every day. How much does she save in June "
                  "and July together?",
                  "In June she saves $3 * 30 days = $<<3*30=90>>90.\nIn July she saves $2 * 31 days = $<<2*31=62>>62.\n"
                  "Together she saves $90 + $62 = $<<90+62=152>>152.", "152")


def test_the_days_of_the_month_the_line_names() -> None:
    steps = _asserts(JUNE_JULY)
    assert "(assert (= k_days_in_june 30))" in steps
    assert "(assert (= k_days_in_july 31))" in steps
    # near-miss: a line naming both months tells no month's days
    with pytest.raises(RuleError):
        rule_for_seed(dict(JUNE_JULY, solution=JUNE_JULY["solution"].replace(
            "In June she saves $3 * 30 days", "In June and July she saves $3 * 30 days")))


def test_a_month_the_line_names_on_a_daily_amount() -> None:
    seed = _seed("A parking lot charges $4 per day. Ray parks there every day of July. How much does he pay?",
                 "He pays 31 * $4 = $<<31*4=124>>124 for July.", "124")
    assert "(assert (= k_days_in_july 31))" in _asserts(seed)
    # near-miss: a line that names no month
    with pytest.raises(RuleError):
        rule_for_seed(dict(seed, solution="He pays 31 * $4 = $<<31*4=124>>124."))


SWIM = _seed("Kai swims 2 hours on Monday, Wednesday, and Friday each week. How many hours does he swim in 4 weeks?",
             "He swims 2 hours/day * 3 days = <<2*3=6>>6 hours a week.\nIn 4 weeks he swims 6 * 4 = <<6*4=24>>24 hours.",
             "24")


def test_a_list_of_weekdays_counted_as_days() -> None:
    assert "(assert (= w_monday_wednesday_and_friday 3))" in _asserts(SWIM)
    # near-miss: a line that writes no days
    with pytest.raises(RuleError):
        rule_for_seed(dict(SWIM, solution=SWIM["solution"].replace("2 hours/day * 3 days", "2 * 3")))
