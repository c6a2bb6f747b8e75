"""A word that multiplies and names what it multiplies only by pointing back ("three times that
number", "twice as many on Friday", issue 26.1): it multiplies the number the question states right
before it (:mod:`~qcstation.core.construct.make.rules.referents`). Where the question states the
multiplied value twice, that decides which place the step's use is, by the words, not by order.
Where the word names its own comparison ("twice as many as on Tuesdays"), or another number stands
between ("After 2 months"), nothing is pointed to and the seed stays refused.

Likewise a use multiplied by an earlier result is the one place whose clause is a rate per what that
result counts, named after it on its line ("each family calls 3 other families" for "9 x 3" after
"3 x 3 = 9 families called"); with no such rate, or a result its line names nothing of, it stays
refused. And a product of a use and earlier results only is the place whose clause states a number
those results multiply ("2 of the workers produce 6 toys an hour" for "60 toys * 2 workers", 60 =
6*10), where each such use finds its own place so. A term of a sum or difference is never a place
that multiplies by comparing ("16 - 4" for "four times as long as ... four minutes"); a count of
times in a period ("four times a week") may be one, and decides nothing."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def _made(seed: dict) -> tuple[dict[str, str], dict[str, int]]:
    rule = rule_for_seed(seed)
    assert rule.bound and rule.value == int(seed["answer_text"])
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    starts = {str(g["name"]): int(g["span"][0]) for g in rule.givens}
    return steps, starts


def test_three_times_that_number(gsm8k: dict) -> None:
    # 199 "Elaine initially had 20 Pokemon cards. After a month, she collected three times that
    # number. In the second month, she collected 20 fewer cards": 3*20 is the first 20, 60-20 the
    # second, "20 cards she initially had" the first again
    q = gsm8k["199"]["question"]
    steps, starts = _made(gsm8k["199"])
    assert steps["s1"] == "(* g1_times g2_pokemon)" and steps["s2"] == "(- s1_pokemon_cards g3_fewer)"
    assert q[starts["g2_pokemon"]:].startswith("20 Pokemon cards. After a month")
    assert q[starts["g3_fewer"]:].startswith("20 fewer cards")
    assert steps["s5"].startswith("(+ g2_pokemon")


def test_twice_as_many_on_friday(gsm8k: dict) -> None:
    # 886 "125 chimichangas on Tuesdays, 125 chimichangas on Wednesdays and twice as many on
    # Friday": 125*2 is Wednesday's 125; the sum of the three days takes both
    q = gsm8k["886"]["question"]
    steps, starts = _made(gsm8k["886"])
    assert steps["s1"] == "(* g1_chimichangas w_twice)"
    assert q[starts["g1_chimichangas"]:].startswith("125 chimichangas on Wednesdays")
    assert steps["s2"] == "(+ g2_chimichangas g1_chimichangas s1_chimichangas_friday)"
    assert q[starts["g2_chimichangas"]:].startswith("125 chimichangas on Tuesdays")


@pytest.mark.parametrize("seed_id, old, new", [
    # the word names its own comparison: it points back to nothing
    ("886", "twice as many on Friday", "twice as many as on Tuesdays on Friday"),
    # another number stands between the word and the value's places: what "that number" is, is
    # not a place of the value
    ("199", "After a month, she collected three times", "After 2 months, she collected three times"),
    # the value of the word written twice ("3 times"): which one the step multiplies by is not read
    ("199", "twice the combined number", "three times the combined number"),
])
def test_nothing_pointed_to_stays_refused(gsm8k: dict, seed_id: str, old: str, new: str) -> None:
    seed = dict(gsm8k[seed_id])
    seed["question"] = seed["question"].replace(old, new)
    assert seed["question"] != gsm8k[seed_id]["question"]
    with pytest.raises(RuleError, match="uncertain binding"):
        rule_for_seed(seed)


def test_a_rate_per_what_the_earlier_result_counts(gsm8k: dict) -> None:
    # 548 "Ali decided to call 3 families. Then each family calls 3 other families": "9 x 3 = 27
    # families called" after "3 x 3 = 9 families called" multiplies the families by the rate each
    # family calls, not Ali's 3 again; the first round's 3 x 3 takes both
    q = gsm8k["548"]["question"]
    steps, starts = _made(gsm8k["548"])
    assert steps["s1"] == "(* g1_families g2_families)"
    assert steps["s2"] == "(* s1_families_called g2_families)" and steps["s3"] == "(* s2_families_called g2_families)"
    assert q[starts["g2_families"] - len("each family calls "):].startswith("each family calls 3 other")


@pytest.mark.parametrize("field, old, new", [
    ("question", "Then each family calls 3 other families", "Then the families call 3 other families"),  # no rate
    # the earlier result's line names nothing it counts
    ("solution", "there are 3 x 3 = <<3*3=9>>9 families called", "there are 3 x 3 = <<3*3=9>>9"),
])
def test_no_rate_of_what_it_counts_stays_refused(gsm8k: dict, field: str, old: str, new: str) -> None:
    seed = dict(gsm8k["548"])
    seed[field] = seed[field].replace(old, new)
    assert seed[field] != gsm8k["548"][field]
    with pytest.raises(RuleError, match="uncertain binding"):
        rule_for_seed(seed)


def test_the_clause_of_what_the_earlier_result_multiplies(gsm8k: dict) -> None:
    # 1123 "2 of the workers produce 6 toys an hour, and another 2 workers produce 4 toys an hour":
    # "60 toys * 2 workers" (60 = 6*10) is the first 2, "40 toys * 2 workers" (40 = 4*10) the other
    q = gsm8k["1123"]["question"]
    steps, starts = _made(gsm8k["1123"])
    assert steps["s2"] == "(* s1_toys_shift g3_workers)" and steps["s4"] == "(* s3_toys_shift g5_workers)"
    assert q[starts["g3_workers"]:].startswith("2 of the workers produce 6 toys")
    assert q[starts["g5_workers"]:].startswith("2 workers produce 4 toys")


def test_earlier_numbers_in_one_clause_stay_refused(gsm8k: dict) -> None:
    # the 6 in the second 2's clause and the 4 in no place's: which 2 produces 6 the clauses do not say
    seed = dict(gsm8k["1123"])
    seed["question"] = seed["question"].replace(
        "2 of the workers produce 6 toys an hour, and another 2 workers produce 4 toys an hour",
        "2 of the workers and another 2 workers produce 6 toys an hour and 4 toys an hour")
    assert seed["question"] != gsm8k["1123"]["question"]
    with pytest.raises(RuleError, match="uncertain binding"):
        rule_for_seed(seed)


def test_a_term_is_no_word_that_multiplies(gsm8k: dict) -> None:
    # 440 "The drive from Bernadette's apartment takes four times as long as the drive from Wayne's
    # hotel. If it takes Wayne four minutes": "16 - 4 = 12 minutes longer" subtracts Wayne's four
    # minutes, never "four times"; the 4 * 4 takes both
    q = gsm8k["440"]["question"]
    steps, starts = _made(gsm8k["440"])
    assert steps["s1"] == "(* g1_times g2_minutes)" and steps["s2"] == "(- s1_minutes_theater g2_minutes)"
    assert q[starts["g1_times"]:].startswith("four times as long")
    assert q[starts["g2_minutes"]:].startswith("four minutes")


def test_times_in_a_period_may_be_a_term_and_stays_refused(gsm8k: dict) -> None:
    # "four times a week" counts times, which a sum may add: it decides nothing (the line names
    # nothing after its result either: since lane cover37 "= 12 minutes longer" would name the
    # "four minutes" as the term of its difference, test_given_words_objects)
    seed = dict(gsm8k["440"])
    seed["question"] = seed["question"].replace(
        "The drive from Bernadette’s apartment takes four times as long as the drive from Wayne’s hotel.",
        "Bernadette makes the drive four times a week.")
    seed["solution"] = seed["solution"].replace("12 minutes longer than Wayne’s", "12 longer than Wayne’s")
    assert seed["question"] != gsm8k["440"]["question"] and seed["solution"] != gsm8k["440"]["solution"]
    with pytest.raises(RuleError, match="uncertain binding"):
        rule_for_seed(seed)
