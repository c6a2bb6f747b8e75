"""Quantities the words imply, named where both texts say them (issue 26.1: a quantity the words
imply is a named constant, never a given of equal value), found refused among lane gold9's 1,000
held-out GSM8K train seeds (rng 20261216) as "a hard-coded result or an unstated fact" though a
reader finds them plain: a shape's sides, a person's eyes, a couple's two, "halfway". The real
seed texts through the rules (the gate included)."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from tests.core.construct.seeds import gsm8k_seed as _seed


def _asserts(seed: dict[str, str]) -> list[str]:
    return [ln for ln in rule_for_seed(seed).smtlib.splitlines() if ln.startswith("(assert")]


COOKIE_CUTTERS = _seed(  # GSM8K train 541
    "Emery looks through the drawer where her mom keeps the cookie cutters. There are 6 cookie cutters shaped "
    "like triangles, 4 square ones and 2 hexagons. How many sides are there on the cookie cutters in total?",
    "The 6 triangles have 3 sides each, for a total of 6 * 3 = <<6*3=18>>18 sides.\n"
    "The 4 squares have 4 sides each, for a total of 4 * 4 = <<4*4=16>>16 sides.\n"
    "The 2 hexagons have 6 sides each, for a total of 2 * 6 = <<2*6=12>>12 sides.\n"
    "The total numbers of sides is 18 + 16 + 12 = <<18+16+12=46>>46 sides.", "46")


def test_a_shapes_sides_are_named_constants() -> None:
    """"The 4 squares have 4 sides each, 4 * 4": one 4 is the question's "4 square ones", the other a
    square's sides (never that given twice); the 6 of "2 * 6" is a hexagon's sides, not the "6 cookie
    cutters"."""
    steps = _asserts(COOKIE_CUTTERS)
    assert "(assert (= s1_sides (* g1_cookie k_sides_per_triangle)))" in steps
    assert "(assert (= s2_sides (* g2_square k_sides_per_square)))" in steps
    assert "(assert (= s3_sides (* g3_hexagons k_sides_per_hexagon)))" in steps
    assert "(assert (= k_sides_per_hexagon 6))" in steps


def test_square_feet_are_no_square() -> None:
    """A square's 4 sides only where a square is a shape: "400 square feet ... 4 sides" names none."""
    seed = _seed("A room has 4 walls. Its floor is 100 square feet and each side of the floor is 10 feet. "
                 "How many feet of trim go around the floor?",
                 "The floor of 100 square feet has 4 sides of 10 feet, so 4 * 10 = <<4*10=40>>40 feet of trim.", "40")
    try:
        steps = _asserts(seed)
    except RuleError:
        return
    assert not any("k_sides_per_square" in s for s in steps)


def test_a_persons_two_eyes() -> None:
    """GSM8K train 6135: "How many eyes saw the airplane?" / "each student has two eyes ... 2*150"."""
    seed = _seed("There were 200 students on a field playing football. Suddenly a military plane flew by, and 3/4 "
                 "of the students looked up. How many eyes saw the airplane?",
                 "If there were 200 students on the field and 3/4 of the students looked up at the flying plane, "
                 "3/4*200 = <<3/4*200=150>>150 students saw the plane.\nSince each student has two eyes, the "
                 "number of eyes that looked at the plane is 2*150 = <<2*150=300>>300 years.", "300")
    assert "(assert (= k_eyes_per_person 2))" in _asserts(seed)
    # a line that names no eyes takes no person's eyes
    other = dict(seed, solution=seed["solution"].replace("Since each student has two eyes, the number of eyes that "
                                                         "looked at the plane is", "So the answer is"))
    with pytest.raises(RuleError):
        rule_for_seed(other)


def test_a_couple_is_two() -> None:
    """GSM8K train 805: "16 pandas, paired into mates ... panda couples" / "16 pandas / 2 = 8 panda couples"."""
    seed = _seed("A zoo has 16 pandas, paired into mates (in the same zoo). Only 25% of the panda couples get pregnant "
                 "after mating. If they each have one baby, how many panda babies are born?",
                 "First divide the number of pandas by 2 to find the number of couples: 16 pandas / 2 = "
                 "<<16/2=8>>8 panda couples\nThen multiply that number by 25% to find the number of babies: 8 panda "
                 "couples * 25% = <<8*25*.01=2>>2 panda babies", "2")
    assert "(assert (= s1_panda_couples (/ g1_pandas k_per_couple)))" in _asserts(seed)


@pytest.mark.parametrize(("question", "solution", "answer", "step"), [
    # GSM8K train 5033
    ("A portable battery charger can fully charge a smartphone in 26 minutes or a tablet in 53 minutes. Ana charged "
     "her tablet fully and her phone halfway. How many minutes did it take?",
     "Ana charged her phone halfway, so she took 26 / 2 = <<26/2=13>>13 minutes to charge her phone.\n"
     "Thus, it took Ana 13 + 53 = <<13+53=66>>66 minutes to charge her phone and tablet.", "66",
     "(assert (= s1_minutes_charge (/ g1_minutes w_halfway_parts)))"),
    # GSM8K train 5388: April's days, halved
    ("Jimmy's father receives 20 emails a day. Halfway through April, he subscribed to a news channel that sent 5 "
     "more emails per day to his email. What's the total number of emails Jimmy's father had at the end of the month?",
     "April has thirty days, so half will be 30 / 2 = <<30/2=15>>15.\nFor the first 15 days, he received 20 * 15 = "
     "<<20*15=300>>300 emails.\nFor the remaining 15 days, the number of emails increased to 20 + 5 = 25 emails.\n"
     "The total number of emails for the remaining days of the month is 25 * 15 = <<25*15=375>>375 emails.\n"
     "The total number of emails for April is 375 + 300 = <<375+300=675>>675 emails.", "675",
     "(assert (= s1_days_half (/ k_days_in_april w_halfway_parts)))"),
])
def test_halfway_is_a_half(question: str, solution: str, answer: str, step: str) -> None:
    assert step in _asserts(_seed(question, solution, answer))


def test_eyes_of_a_colour_are_no_count_of_eyes() -> None:
    """GSM8K train 3597: "Half of the students with brown eyes have black hair" / "6 * 2 = 12 students
    with brown eyes": the 2 is the question's "half", never a person's two eyes (the line counts no
    eyes: "two eyes" is what names them). The seed stays refused for its own reason (one "half" for
    two steps), not read with the eyes' 2."""
    seed = _seed("Two-thirds of the class have brown eyes. Half of the students with brown eyes have black hair. If "
                 "there are 6 students in the class with brown eyes and black hair, how many students are there in "
                 "total?",
                 "There are 6 * 2 = <<6*2=12>>12 students with brown eyes and hair of any color.\n"
                 "There are 12 * 3/2 = <<12*3/2=18>>18 students in total.", "18")
    with pytest.raises(RuleError, match="'half'"):
        rule_for_seed(seed)
