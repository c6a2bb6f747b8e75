"""Rule-made key information (Understanding) for GSM8K seeds the rules make in Reasoning whose
draft was refused (issue 26.1, lane un2): each unknown reads by the words around its numbers
and by what its step computes with, never by a value alone; near-misses the words do not
settle stay refused. Each newly made key information was read against its question."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.rules import rule_for_seed


def _fields(seed: dict) -> dict:
    rule = rule_for_seed(seed)
    return keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps, givens=rule.givens)


def _with_line(seed: dict, line: str, new: str) -> dict:
    assert line in seed["solution"]
    return {**seed, "solution": seed["solution"].replace(line, new)}


# ------------------------------------------- a use the words chose is no option for a later '?'


def test_a_use_the_words_chose_leaves_the_step_s_other_use_of_that_value(gsm8k: dict) -> None:
    # 507 "The snowshoes cost $12 per pair and he needs to buy 12 pairs": "$12 per pair" is the
    # given's price by its words ("$", "pair" against Q2's "pair of legs"); the step uses the
    # given once, so "12 pairs" is its other 12, Q2 (refused before: "pairs" matched both)
    u = _fields(gsm8k["507"])["unknown_quantities"]
    assert u[2] == ("Q3: The snowshoes cost $12 per pair and he needs to buy Q2 pairs so he will spend ? on "
                    "snowshoes (the value asked for)")
    # 1101 "a 30-minute lunch ... his 30-minute break": the lunch is the question's "30 min lunch",
    # so the break is Q1 (2 x 15 minutes)
    f = _fields(gsm8k["1101"])
    assert f["unknown_quantities"][1] == ("Q2: He also has a 30-minute lunch every day so together with his "
                                          "Q1-minute break he has a ?-minute break each day")
    assert f["relationships_and_constraints"][1] == "Q2 = 30 + Q1"


def test_where_no_use_is_chosen_by_its_words_the_blanks_stay_refused(gsm8k: dict) -> None:
    # the same step with no word that tells the price from the pairs: nothing to eliminate from
    seed = _with_line(gsm8k["507"], "The snowshoes cost $12 per pair and he needs to buy 12 pairs",
                      "The snowshoes cost 12 and he needs to buy 12")
    with pytest.raises(KeyInfoError, match="more than one blank"):
        _fields(seed)


def test_a_written_constant_the_step_uses_is_no_earlier_result_of_its_value(gsm8k: dict) -> None:
    # 1101 "60 minutes is in an hour so 300/60": the step divides by the minutes per hour and
    # does not use Q2 (60 minutes of break a day); it read "Q2 minutes is in an hour"
    assert _fields(gsm8k["1101"])["unknown_quantities"][3] == \
        "Q4: 60 minutes is in an hour so ? hours of break time (the value asked for)"
    # 602 "since there are 12 months in a year" read "there are Q1 months" (Q1: 12 games)
    u = _fields(gsm8k["602"])["unknown_quantities"]
    assert u[1] == ("Q2: Steve then buys 2 games per month for a year, and since there are 12 months in a year "
                    "that means he buys ? games")
    # a step that uses the earlier result of that value still names it (45: "his supplies cost Q2")
    assert "his supplies cost Q2" in _fields(gsm8k["45"])["unknown_quantities"][3]


# ------------------------------------------------------- a premise that says the value again


def test_a_premise_that_writes_the_value_goes_before_its_main_clause(gsm8k: dict) -> None:
    # 359 "Since 100 cents = $1 she spends $1 everyday.": the conversion's $1 and the step's $1
    # with no clause break between them; the premise goes, the main clause says the value
    u = _fields(gsm8k["359"])["unknown_quantities"]
    assert u[1] == "Q2: She spends ? everyday."
    assert u[3] == "Q4: If she saves Q3 every day for 5 days, she will have ? (the value asked for)"


@pytest.mark.parametrize("line", [
    "Since 100 cents = $1 Marisa spends $1 everyday.",  # no pronoun that starts the main clause
    "So 100 cents = $1 she spends $1 everyday.",        # no premise
])
def test_two_own_values_with_no_premise_or_main_clause_stay_refused(gsm8k: dict, line: str) -> None:
    seed = _with_line(gsm8k["359"], "Since 100 cents = $1 she spends $1 everyday.", line)
    with pytest.raises(KeyInfoError, match="two blanks for its own value"):
        _fields(seed)


# --------------------------------------------------------- the question's fraction in words


def test_a_fraction_the_question_states_in_words_stays(gsm8k: dict) -> None:
    # 957 "Of the remaining 3, 1/3 are to her boyfriend": 1/3 is "One-third of the other emails"
    # (read "?/Q3 are to her boyfriend", refused as a blank inside a fraction)
    f = _fields(gsm8k["957"])
    assert f["unknown_quantities"][3] == ("Q4: Of the remaining Q3, 1/3 are to her boyfriend, so Robyn sends him "
                                          "? email a day. (the value asked for)")
    assert f["relationships_and_constraints"][3] == "Q4 = Q3 × 1/3"


def test_a_fraction_the_question_does_not_state_is_still_read_by_its_parts() -> None:
    from qcstation.core.construct.make.unknown_describe import _describe

    line = "Of the remaining 3, 1/3 are to her boyfriend, so Robyn sends him 3 * 1 / 3 = <<3*1/3=1>>1 email a day."
    stated = {Fraction(16), Fraction(7)}
    results = {Fraction(9), Fraction(6), Fraction(3), Fraction(1)}
    earlier = {Fraction(3): "Q3"}
    assert "1/3 are" in _describe(line, stated, results, {}, earlier, Fraction(1), stated, results,
                                  fractions={Fraction(1, 3)})
    assert "1/3 are" not in _describe(line, stated, results, {}, earlier, Fraction(1), stated, results)


# ------------------------------------------------------- a computation in the unknown's letter


def test_a_computation_written_in_the_unknown_s_letter_is_the_blank(gsm8k: dict) -> None:
    # 1048 "In the first set, he retrieved 2B + 4 balls." (refused: no blank)
    f = _fields(gsm8k["1048"])
    assert f["unknown_quantities"][1] == "Q2: In the first set, he retrieved ? balls. (the value asked for)"
    assert f["relationships_and_constraints"][1] == "Q2 = 2 × Q1 + 4"
    # 501 and 1169 keep their concluding sentence ("Lily found ? insects.")
    assert _fields(gsm8k["501"])["unknown_quantities"][1] == "Q2: Lily found ? insects. (the value asked for)"


def test_a_computation_of_numbers_or_written_twice_is_not_read_so() -> None:
    from types import SimpleNamespace

    from qcstation.core.construct.make.unknowns import _expression_written

    st = SimpleNamespace(expr_text="2B + 4")
    assert _expression_written("he retrieved 2B + 4 balls", st) == "he retrieved ? balls"
    assert _expression_written("2B + 4 balls, then 2B + 4 more", st) == "2B + 4 balls, then 2B + 4 more"
    assert _expression_written("12B + 4 balls", st) == "12B + 4 balls"
    assert _expression_written("he got 2 + 4 balls", SimpleNamespace(expr_text="2 + 4")) == "he got 2 + 4 balls"


# ------------------------------------------------------------ a word glued to its computation


def test_a_word_glued_to_the_computation_after_it_is_read_as_if_spaced(gsm8k: dict) -> None:
    # 1132 "That gives him16*5=<<16*5=80>>80 planks." read "That gives him16*5 ? planks."
    u = _fields(gsm8k["1132"])["unknown_quantities"]
    assert u[2] == "Q3: That gives him ? planks."
    assert all("*" not in x and x.count("?") == 1 for x in u), u


# ---------------------------------------------------------------- a premise of the question


def test_both_of_them_is_the_subject_of_a_premise(gsm8k: dict) -> None:
    # 438 "If both of them decide to share them equally with their 6 other friends, how many ...?"
    f = _fields(gsm8k["438"])
    assert "Both of them decide to share them equally with their 6 other friends" in f["known_quantities"]
    assert f["relationships_and_constraints"] == ["Q1 = 34 + 22", "Q2 = 2 + 6", "Q3 = Q1 ÷ Q2"]



# ------------------------------------------------- defects read in made key informations


def test_a_computation_s_words_keep_what_the_line_says_before_it(gsm8k: dict) -> None:
    # 1289 "so in 7 days/1 week she meditates 30*7 = <<30*7=210>>210 minutes": "7 days/1 week she
    # meditates" was dropped as a second form of the computation ("so in ? minutes")
    u = _fields(gsm8k["1289"])["unknown_quantities"]
    assert u[1] == "Q2: She meditates Q1 minutes daily so in 7 days/1 week she meditates ? minutes"


def test_a_blank_alone_after_the_sentence_that_says_what_it_is_takes_its_subject(gsm8k: dict) -> None:
    # 515 "The cost of the house is 3/4 of the total cost, which is $120,000. 3/4 * $120,000 = ..."
    # read "... which is $120,000. ?"
    from qcstation.core.construct.make.unknown_forms import lone_blank as _lone_blank

    assert _fields(gsm8k["515"])["unknown_quantities"] == ["Q1: The cost of the house is ? (the value asked for)"]
    # a blank with its own words, or after a colon, is left as it is
    for desc in ("Subtract 4 from 100 to see how many cookies are left. ? cookies",
                 "First find the total cost of the vaccines: ?", "They have ? left."):
        assert _lone_blank(desc) == desc


def test_the_step_s_own_value_as_a_percent_keeps_its_sign(gsm8k: dict) -> None:
    # 1240 "They spend half their day ..." (.5) and "They spend 50% of their day ..." (50) read the same
    u = _fields(gsm8k["1240"])["unknown_quantities"]
    assert u[3] == "Q4: They spend ? of their day cleaning classrooms"
    assert u[4] == "Q5: They spend ?% of their day cleaning classrooms (the value asked for)"


@pytest.mark.parametrize(("seed", "told"), [
    # "3 selfie albums * 9 pictures" / "2 portrait albums * 9 pictures"
    ("1018", ["Q2: Olivia had ? pictures (for the selfie albums).", "Q3: Olivia had ? pictures (for the portrait albums)."]),
    # "20 private cars * 3 people" / "12 buses * 35 people"
    ("1098", ["Q1: There were ? people (for the private cars).", "Q2: There were ? people (for the buses)."]),
    # "2 yards of material / 4 small masks" / "2.25 yards of material / 3 large masks"
    ("904", ["Q1: It takes ? yards of material per mask (for the small masks).",
             "Q2: It takes ? yards of material per mask (for the large masks)."]),
])
def test_two_unknowns_of_the_same_words_are_told_apart_by_their_computations_words(
        gsm8k: dict, seed: str, told: list[str]) -> None:
    u = _fields(gsm8k[seed])["unknown_quantities"]
    assert all(t in u for t in told), u
    bodies = [x.partition(": ")[2].replace(" (the value asked for)", "") for x in u]
    assert len(set(bodies)) == len(bodies)


@pytest.mark.parametrize("seed", [
    "621",   # "1000-356=<<...>>644 times" / "1000-135=<<...>>865 times"
    # (670 and 1051: the value asked for reads by the concluding sentence since lane un3, and Q1,
    # "5 + 3 + 0.25 = 8.25 tablespoons" / "325 * 4 = 1300 km", by the question's words since lane un4:
    # "for every muffin", "for 4 days"; 854, "90 * 20 = 1800 minutes" / "1800/2 = 900 minutes", by what
    # each multiplies by, "90 rooms" / "one-half of the rooms": test_keyinfo_mended)
    "1271",  # "9000-2700=6300" / "6300-1890=4410"
])
def test_two_unknowns_no_words_tell_apart_are_refused(gsm8k: dict, seed: str) -> None:
    with pytest.raises(KeyInfoError, match="would read with the same words|would read with only its unit"):
        _fields(gsm8k[seed])
