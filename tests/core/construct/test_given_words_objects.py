"""Which place a wordless number is, read by words the binder missed (issue 26.1, lane cover37):
of two word givens of one value, the one whose object alone the line names ("His dad will be
24 x 2" for "half the age of his dad", 980); a word whose clause the line restates beside other
words of its value ("Stacy finds 5 x 2", 1165); a term of a sum or difference whose result's words
name one place ("6 - 3 = 3 seahorses" for "3 fewer sea horses", 162; 312, 813); a word given whose
object the use's own words name ("2 towels/pillow case" for "twice as many towels", 468); a place another
line's words claim is not a wordless use's ("every 2 days is 6 x 2" / "2 x 3", 1164); two short words a
solution writes as one ("sea horses" / "seahorses"); "each" right after a number ("at 8 each" for "$8 each",
516). Each with a near-miss that stays refused."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import RuleError, RuleResult, rule_for_seed
from qcstation.core.construct.make.rules.constants import _clause_of
from qcstation.core.construct.make.rules.sum_terms import term_by_result
from qcstation.core.reading.expr import BinOp, Num
from qcstation.core.reading.words import joined_stems, words_at


def _asserts(rule: RuleResult) -> set[str]:
    return {ln for ln in rule.smtlib.splitlines() if ln.startswith("(assert")}


def _spans(rule: RuleResult, question: str, more: int = 0) -> dict[str, str]:
    return {g["name"]: question[g["span"][0]:g["span"][1] + more] for g in rule.givens if g.get("span")}


# -- of two word givens of one value, the one whose object the line names

def test_the_object_the_line_names() -> None:
    q = "Emil is 19. When he turns 24, he will be half the age of his dad but twice as old as his brother. Sum?"
    names = ["w_twice", "w_half_parts"]
    assert _clause_of(names, q, "His dad will be 24 x 2 = 48 years old") == "w_half_parts"
    assert _clause_of(names, q, "His brother will be 24 / 2 = 12 years old then.") == "w_twice"
    assert _clause_of(names, q, "He will be 24 x 2 = 48 years old") is None  # no object named


def test_a_line_naming_two_objects_decides_nothing() -> None:
    # 762: "Jana has 6*3 = 18 Pomeranians": Jana is two thirds', the Pomeranians one third's
    q = ("Two thirds of Jana's puppies are Pomeranians. One third of the Pomeranians are girls. "
         "If there are 6 Pomeranian girls, how many puppies does Jana have?")
    assert _clause_of(["w_two_thirds_parts", "w_one_third_parts"], q, "Jana has 6*3=<<6*3=18>>18 Pomeranians.") is None


def test_an_object_of_words_the_story_repeats_decides_nothing() -> None:
    # 307: "of the loaves" names the loaves, which the story writes twice; "half of what is left" nothing
    q = ("A bakery produces 60 loaves of bread each day. Two-thirds of the loaves are sold in the morning and "
         "half of what is left is sold equally in the afternoon and evening. How many loaves are sold?")
    line = "Therefore, 20/2 = <<20/2=10>>10 loaves of bread are sold in the afternoon."
    assert _clause_of(["w_two_thirds_numerator", "w_half_parts"], q, line) is None


def test_980_half_the_age_of_his_dad_undone(gsm8k: dict) -> None:
    seed = gsm8k["980"]
    rule = rule_for_seed(seed)
    assert rule.value == 50
    asserts = _asserts(rule)
    assert "(assert (= s1_years_emil (* g1 w_half_parts)))" in asserts  # the dad: half undone
    assert "(assert (= s2_years (/ g1 w_twice)))" in asserts  # the brother: twice undone
    spans = _spans(rule, seed["question"])
    assert spans["w_half_parts"] == "half" and spans["w_twice"] == "twice"


def test_980_near_miss_lines_naming_neither_stay_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["980"])
    seed["solution"] = seed["solution"].replace("His dad will be 24 x 2", "The first will be 24 x 2") \
        .replace("His brother will be 24 / 2", "The second will be 24 / 2")
    with pytest.raises(RuleError):
        rule_for_seed(seed)


# -- a word whose clause the line restates, beside other words of its value

def test_1165_stacy_finds_twice_as_many(gsm8k: dict) -> None:
    seed = gsm8k["1165"]
    rule = rule_for_seed(seed)
    assert rule.value == 9
    asserts = _asserts(rule)
    assert "(assert (= s2_eggs (* g3_eggs w_twice)))" in asserts
    assert "(assert (= s3_eggs (- s2_eggs g4)))" in asserts
    assert "(assert (= s4_eggs (/ s3_eggs w_half_parts)))" in asserts
    spans = _spans(rule, seed["question"], 10)
    assert spans["g4"] == "2 less than" and spans["w_twice"].startswith("twice as many")


def test_1165_near_miss_a_line_restating_no_clause_stays_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["1165"])
    seed["solution"] = seed["solution"].replace("Stacy finds 5 x 2", "She finds 5 x 2")
    with pytest.raises(RuleError):
        rule_for_seed(seed)


# -- a term of a sum or difference, by the words after its result

def test_two_short_words_a_solution_writes_as_one() -> None:
    q = "Anakin caught 6 sea horses and 3 clownfish; Locsin caught 3 fewer sea horses."
    assert "seah" in words_at(q, q.index("3 fewer"), q.index("3 fewer") + 1)
    assert joined_stems(q, q.index("3 fewer")) == frozenset({"seah"})
    assert joined_stems(q, q.index("3 clownfish")) == frozenset()
    assert joined_stems("He has 3 blue pens", 7) == frozenset()  # "blue" has a stem of its own


def test_the_place_the_sum_counts() -> None:
    minus = BinOp("-", Num(Fraction(6), "6"), Num(Fraction(3), "3"))

    class _N:  # a place of the question as the binder holds it: where, and the words that name it
        def __init__(self, start: int, stems: frozenset[str]) -> None:
            self.start, self.stems = start, stems

    nums = [_N(32, frozenset({"clow"})), _N(59, frozenset({"fewe", "sea", "hors", "seah"}))]
    assert term_by_result(minus, Fraction(3), "Locsin caught 6 - 3 = <<6-3=3>>3 seahorses", [0, 1], nums) == 1
    assert term_by_result(minus, Fraction(3), "Locsin caught 6 - 3 = <<6-3=3>>3 fish", [0, 1], nums) is None
    times = BinOp("*", Num(Fraction(6), "6"), Num(Fraction(3), "3"))  # a product counts no term's noun
    assert term_by_result(times, Fraction(3), "6 * 3 = <<6*3=18>>18 seahorses", [0, 1], nums) is None


def test_162_three_fewer_sea_horses(gsm8k: dict) -> None:
    seed = gsm8k["162"]
    rule = rule_for_seed(seed)
    assert rule.value == 32
    asserts = _asserts(rule)
    assert "(assert (= s3_seahorses (- g3_sea g4_fewer)))" in asserts
    assert "(assert (= s5_clownfish (+ g5_clownfish g6_clownfish)))" in asserts
    spans = _spans(rule, seed["question"], 12)
    assert spans["g4_fewer"] == "3 fewer sea h" and spans["g5_clownfish"].startswith("3 clownfish")


def test_162_near_miss_a_result_naming_no_place_stays_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["162"])
    seed["solution"] = seed["solution"].replace("6 - 3 = <<6-3=3>>3 seahorses", "6 - 3 = <<6-3=3>>3 animals")
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_312_five_less_the_three_people(gsm8k: dict) -> None:
    seed = gsm8k["312"]
    rule = rule_for_seed(seed)
    assert rule.value == 91
    assert "(assert (= s2_persons_eat (- g3 g1_people)))" in _asserts(rule)
    assert _spans(rule, seed["question"], 7)["g1_people"] == "three people"


def test_813_the_petals_of_one_flower_of_each(gsm8k: dict) -> None:
    seed = gsm8k["813"]
    rule = rule_for_seed(seed)
    assert rule.value == 79
    assert "(assert (= s6_petals_worth (+ g2_petals g4_petals g6_petals g8_petals)))" in _asserts(rule)
    spans = _spans(rule, seed["question"], 7)
    assert [spans[n] for n in ("g2_petals", "g4_petals", "g6_petals", "g8_petals")] == \
        ["5 petals", "6 petals", "4 petals", "7 petals"]


# -- a word given the use's own words name by its object; a place another line's words claim

def test_468_two_towels_per_pillow_case_is_the_second_twice(gsm8k: dict) -> None:
    seed = gsm8k["468"]
    rule = rule_for_seed(seed)
    assert rule.value == 1200
    asserts = _asserts(rule)
    assert "(assert (= s1_pillow_cases (* g1_sheets w_twice)))" in asserts
    assert "(assert (= s2_towels (* s1_pillow_cases w_twice_at2)))" in asserts
    spans = _spans(rule, seed["question"], 15)
    assert spans["w_twice"] == "twice as many pillow" and spans["w_twice_at2"] == "twice as many towels"


def test_468_near_miss_words_naming_no_object_stay_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["468"])
    seed["solution"] = seed["solution"].replace("4 pillow cases * 2 towels/pillow case", "4 pillow cases * 2 pieces")
    with pytest.raises(RuleError, match="2 pieces"):
        rule_for_seed(seed)


def test_1164_two_times_each_outing_and_every_2_days(gsm8k: dict) -> None:
    seed = gsm8k["1164"]
    rule = rule_for_seed(seed)
    assert rule.value == 12
    asserts = _asserts(rule)
    assert "(assert (= s1_face_masks (* g1_times g2_times)))" in asserts
    assert "(assert (= s2_uses_days (* s1_face_masks g3_days)))" in asserts
    spans = _spans(rule, seed["question"], 6)
    assert spans["g1_times"] == "two times" and spans["g3_days"] == "2 days?"


def test_1164_near_miss_no_line_naming_the_days_stays_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["1164"])
    seed["solution"] = seed["solution"].replace("face masks he uses every 2 days is 6 x 2", "face masks he uses is 6 x 2")
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_the_words_after_of_name_a_place() -> None:
    q = "Mr. Julius planted twenty trees of White Oak and twice as many Lodgepole Pine as White Oak."
    assert joined_stems(q, q.index("twenty")) == frozenset({"whit", "oak"})
    assert joined_stems("He has 20 boxes. Of these", 7) == frozenset()  # a sentence between


def test_1199_twice_as_many_pine_as_oak(gsm8k: dict) -> None:
    seed = gsm8k["1199"]
    rule = rule_for_seed(seed)
    assert rule.value == 140
    assert "(assert (= s1_lodgepole_pine (* w_twice g1_trees)))" in _asserts(rule)
    spans = _spans(rule, seed["question"], 19)
    assert spans["g1_trees"] == "twenty trees of White Oak" and spans["w_twice"].startswith("twice as many Lodgepole")


def test_1199_near_miss_another_kind_of_tree_stays_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["1199"])
    seed["question"] = seed["question"].replace("twenty trees of White Oak", "twenty trees of Birch")
    with pytest.raises(RuleError, match="20 oak"):
        rule_for_seed(seed)


def test_516_eight_each_is_the_price_each(gsm8k: dict) -> None:
    seed = gsm8k["516"]
    rule = rule_for_seed(seed)
    assert rule.value == 160
    assert "(assert (= s3_bags_earning (* s1_bags g4)))" in _asserts(rule)
    assert _spans(rule, seed["question"], 5)["g4"] == "8 each"


def test_516_near_miss_a_price_with_no_each_stays_refused(gsm8k: dict) -> None:
    seed = dict(gsm8k["516"])
    seed["question"] = seed["question"].replace("for $8 each", "for $8")
    with pytest.raises(RuleError, match="8 each earning"):
        rule_for_seed(seed)
