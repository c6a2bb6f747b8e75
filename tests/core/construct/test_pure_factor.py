"""The independent check of a given used as a pure number (issue 26.2, check/purefactor.py).

Each formalization here is built by hand, as a binder that reads an equal value alone would make
it: the check must find the wrong binding from the texts' units on its own (no rule code), and
must say nothing of the right binding or of a rate ("300 miles / 5 hours")."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from qcstation.core.construct.check.purefactor import pure_factor_problems
from qcstation.core.construct.check.selfcheck import HARD_FLAGS, audit_artifact, hard_flags
from qcstation.core.construct.make.rules import RuleError, RuleResult
from qcstation.core.construct.make.rules.dispatch import check_independently
from qcstation.core.construct.make.rules.result import RuleStep
from qcstation.core.reading.expr import BinOp, Expr, Name, Num, evaluate, expr_to_sexpr

#: "half" divides the marbles; the "two" given back is a number of marbles
MARBLES_Q = ("Ivy had 16 marbles. She lent all of them to a friend but the friend lost half of them. "
             "She made the friend hand two back. How many of Ivy's marbles are left?")
MARBLES_S = ("Ivy had 16/2=<<16/2=8>>8 marbles left after the friend lost them.\n"
             "She made the friend hand two back, which left Ivy with 8+2=<<8+2=10>>10 marbles.\n#### 10")
#: "1/5 of the other members" divides; "5 minutes" is a time
CLUB_Q = ("A club has 30 members. 20% of them arrive in under 5 minutes. Twice that number arrive in "
          "under 9 minutes. 1/5 of the other members arrive late. How many members arrive late?")
CLUB_S = ("First find how many arrive in under 5 minutes: 30 members * 20% = <<30*20*.01=6>>6 members\n"
          "Then double it: 6 members * 2 = <<6*2=12>>12 members\n"
          "Then the others: 30 members - 6 members - 12 members = <<30-6-12=12>>12 members\n"
          "Then divide that number by 5: 12 members / 5 = <<12/5=2.4>>2.4 members\n#### 2.4")
TRAIN_Q = "A train travels 300 miles in 5 hours. Half of the trip is over a plain. How far does it go in 8 hours?"
TRAIN_S = ("In one hour the train goes 300 miles / 5 hours = <<300/5=60>>60 miles.\n"
           "In 8 hours it goes 60 miles * 8 = <<60*8=480>>480 miles.\n#### 480")


def _given(question: str, name: str, value: int, text: str, nth: int = 0) -> dict[str, Any]:
    at = -1
    for _ in range(nth + 1):
        at = question.index(text, at + 1)
    return {"name": name, "value": str(value), "text": text, "span": [at, at + len(text)], "words": text,
            "kind": "word" if text.isalpha() else "number"}


def _defs(givens: list[dict[str, Any]], steps: list[tuple[str, Expr]]) -> tuple[dict[str, Any], dict[str, Fraction]]:
    defs: dict[str, Any] = {g["name"]: Num(Fraction(g["value"])) for g in givens}
    values = {n: e.value for n, e in defs.items()}
    for name, expr in steps:
        defs[name] = expr
        values[name] = evaluate(expr, values)
    return defs, values


def _marbles(half_bound_to_two: bool) -> tuple[list[dict[str, Any]], list[tuple[str, Expr]]]:
    givens = [_given(MARBLES_Q, "g1_marbles", 16, "16"), _given(MARBLES_Q, "g2", 2, "two")]
    divisor = "g2"
    if not half_bound_to_two:
        givens.append(_given(MARBLES_Q, "w_half_parts", 2, "half"))
        divisor = "w_half_parts"
    steps: list[tuple[str, Expr]] = [("s1_marbles", BinOp("/", Name("g1_marbles"), Name(divisor))),
                                     ("s2_marbles", BinOp("+", Name("s1_marbles"), Name("g2")))]
    return givens, steps


def _club(six_bound_to_minutes: bool) -> tuple[list[dict[str, Any]], list[tuple[str, Expr]]]:
    givens = [_given(CLUB_Q, "g1_members", 30, "30"), _given(CLUB_Q, "g2_pct", 20, "20"),
              _given(CLUB_Q, "w_twice", 2, "Twice")]
    givens.append(_given(CLUB_Q, "g3_minutes", 5, "5") if six_bound_to_minutes
                  else _given(CLUB_Q, "g3_parts", 5, "5", nth=1))
    pct = BinOp("/", Name("g2_pct"), Num(Fraction(100), "100"))
    steps: list[tuple[str, Expr]] = [
        ("s1_members", BinOp("*", Name("g1_members"), pct)),
        ("s2_members", BinOp("*", Name("s1_members"), Name("w_twice"))),
        ("s3_members", BinOp("-", BinOp("-", Name("g1_members"), Name("s1_members")), Name("s2_members"))),
        ("s4_members", BinOp("/", Name("s3_members"), Name(givens[-1]["name"])))]
    return givens, steps


def test_half_bound_to_a_count_added_elsewhere_is_one_given_in_two_roles() -> None:
    givens, steps = _marbles(half_bound_to_two=True)
    defs, values = _defs(givens, steps)
    found = pure_factor_problems(defs, values, givens, MARBLES_Q, MARBLES_S)
    assert len(found) == 1 and found[0].startswith("g2 ")
    assert "marble" in found[0] and ("two roles" in found[0] or "'half'" in found[0])


def test_half_bound_to_its_own_word_passes() -> None:
    givens, steps = _marbles(half_bound_to_two=False)
    defs, values = _defs(givens, steps)
    assert pure_factor_problems(defs, values, givens, MARBLES_Q, MARBLES_S) == []


def test_a_unit_fraction_bound_to_minutes_is_flagged() -> None:
    givens, steps = _club(six_bound_to_minutes=True)
    defs, values = _defs(givens, steps)
    found = pure_factor_problems(defs, values, givens, CLUB_Q, CLUB_S)
    assert len(found) == 1 and found[0].startswith("g3_minutes") and "'1/5'" in found[0]
    good, good_steps = _club(six_bound_to_minutes=False)
    defs, values = _defs(good, good_steps)
    assert pure_factor_problems(defs, values, good, CLUB_Q, CLUB_S) == []


def test_a_rate_is_no_pure_number() -> None:
    """'300 miles / 5 hours = 60 miles' keeps the noun, but the line names the hours at the
    divisor and 'In one hour': a rate, though the question writes 'Half' as well (no 5 in it)."""
    givens = [_given(TRAIN_Q, "g1_miles", 300, "300"), _given(TRAIN_Q, "g2_hours", 5, "5"),
              _given(TRAIN_Q, "g3_hours", 8, "8")]
    steps: list[tuple[str, Expr]] = [("s1_miles", BinOp("/", Name("g1_miles"), Name("g2_hours"))),
                                     ("s2_miles", BinOp("*", Name("s1_miles"), Name("g3_hours")))]
    defs, values = _defs(givens, steps)
    assert pure_factor_problems(defs, values, givens, TRAIN_Q, TRAIN_S) == []
    # a divisor of the question's "half" value bound elsewhere: still a rate, not flagged
    q2 = TRAIN_Q.replace("5 hours", "2 hours")
    s2 = TRAIN_S.replace("/ 5 hours", "/ 2 hours").replace("300/5=60>>60", "300/2=150>>150") \
        .replace("60 miles *", "150 miles *").replace("60*8=480>>480", "150*8=1200>>1200").replace("480", "1200")
    givens = [_given(q2, "g1_miles", 300, "300"), _given(q2, "g2_hours", 2, "2"), _given(q2, "g3_hours", 8, "8")]
    defs, values = _defs(givens, steps)
    assert pure_factor_problems(defs, values, givens, q2, s2) == []


def _result(question: str, solution: str, givens: list[dict[str, Any]], steps: list[tuple[str, Expr]]) -> RuleResult:
    _defs_, values = _defs(givens, steps)
    lines = solution.splitlines()
    rule_steps = [RuleStep(name, "", values[name], expr_to_sexpr(expr), expr=expr, line=lines[min(i, len(lines) - 1)])
                  for i, (name, expr) in enumerate(steps)]
    smt = ["(set-logic QF_LRA)"] + [f"(declare-const {g['name']} Real)" for g in givens] \
        + [f"(declare-const {n} Real)" for n, _ in steps] + ["(declare-const answer Real)"] \
        + [f"(assert (= {g['name']} {g['value']}))" for g in givens] \
        + [f"(assert (= {st.name} {st.sexpr}))" for st in rule_steps] \
        + [f"(assert (= answer {steps[-1][0]}))", "(check-sat)", "(get-value (answer))"]
    return RuleResult("\n".join(smt) + "\n", rule_steps, steps[-1][0], values[steps[-1][0]], "gsm8k-calculator",
                      givens=givens, factors=[])


@pytest.mark.parametrize("case", ["marbles", "club"])
def test_the_gate_refuses_the_hand_built_wrong_binding(case: str) -> None:
    q, s, build = {"marbles": (MARBLES_Q, MARBLES_S, _marbles), "club": (CLUB_Q, CLUB_S, _club)}[case]
    wrong = _result(q, s, *build(True))
    with pytest.raises(RuleError, match="pure-factor|given-"):
        check_independently(wrong, q, s)
    content = {"smtlib": wrong.smtlib, "givens": wrong.givens}
    seed = {"question": q, "solution": s}
    assert "pure-factor" in HARD_FLAGS
    assert [f.code for f in hard_flags("reasoning", json.dumps(content), seed)] == ["pure-factor"]
    assert "pure-factor" in [f.code for f in audit_artifact("reasoning", content, seed)]
    right = _result(q, s, *build(False))
    assert hard_flags("reasoning", {"smtlib": right.smtlib, "givens": right.givens}, seed) == []


# -- the binder (issue 26.1): a divisor the question writes as a word, when its digits' place is another use's


def _smt_steps(question: str, solution: str) -> list[str]:
    from qcstation.core.construct.make.rules import rule_for_seed

    rule = rule_for_seed({"question": question, "solution": solution})
    return [ln for ln in rule.smtlib.splitlines() if ln.startswith("(assert (= s")]


def test_half_is_the_word_when_the_count_of_its_value_is_a_later_term() -> None:
    """'her dog ate half of them ... save two from the floor' / '12/2 = 6 muffins', '6+2 = 8
    muffins': the / 2 is 'half' (w_half_parts), the + 2 the 'two' saved; it was refused ('the
    question states 2 under different words') or bound both uses to the 'two'."""
    q = ("Mia baked 12 muffins. She left all of them on the table but her dog ate half of them. "
         "She was able to save two from the floor. How many of Mia's muffins are left?")
    s = ("Mia had 12/2=<<12/2=6>>6 muffins left after the dog ate them.\n"
         "She saved two from the floor, which left Mia with 6+2=<<6+2=8>>8 muffins.\n#### 8")
    steps = _smt_steps(q, s)
    assert steps[0].endswith("(/ g1_muffins w_half_parts)))") and steps[1].endswith("g2_floor)))")


def test_a_divisor_with_as_many_places_as_uses_is_not_the_word() -> None:
    """Near miss: '2 packs' may be the divisor's place ('24 / 2 = 12 pens'), the question writing
    'half' too; as many uses of 2 as places: the word is not taken by this reading (the words
    of the line decide, or the item is refused as before)."""
    from qcstation.core.construct.make.rules import RuleError as _RuleError

    q = ("Leo bought 24 pens in 2 packs. He gave half of the 10 pencils he had to his sister. "
         "How many pens are in each pack?")
    s = "Each pack has 24 / 2 = <<24/2=12>>12 pens.\n#### 12"
    try:
        steps = _smt_steps(q, s)
    except _RuleError as exc:
        assert "2" in str(exc)
    else:
        assert "w_half" not in steps[0]


def test_a_list_the_question_says_is_of_equal_parts_divides_not_a_count_taken_before() -> None:
    """'The garage and the shed share the rest and they have the same floor area' / 'Garage =
    300/2': the 2 is the two rooms the words list, never the '2 porches' an earlier step took
    (a derived item moving the porches moved the garage's share)."""
    q = ("A house has 900 square feet. It has 3 rooms that each measure 10 x 10 feet. There are 2 "
         "porches that are 5 x 10 feet each. The garage and shed fill the rest of the land and they "
         "have the same sized area. How many square feet is the garage?")
    s = ("Area of 1 room = 10 * 10 = <<10*10=100>>100 square feet\n"
         "Area of 3 rooms = 100 * 3 = <<100*3=300>>300 square feet\n"
         "Area of 1 porch = 5 * 10 = <<5*10=50>>50 square feet\n"
         "Area of 2 porches = 2 * 50 = <<2*50=100>>100 square feet\n"
         "Area of rooms and porches = 300 + 100 = <<300+100=400>>400 square feet\n"
         "Garage + shed = 900 - 400 = <<900-400=500>>500\n"
         "Garage = 500/2 = <<500/2=250>>250\n#### 250")
    steps = _smt_steps(q, s)
    assert steps[-1].endswith("w_garage_and_shed)))"), steps[-1]
    assert any("(* g" in st and "porches" in st for st in steps)


def test_a_digit_unit_fraction_divides_not_a_measure_of_its_value() -> None:
    """'1/4 of the other members arrive late' / '12 members / 4': the fraction's parts
    (w_1_4_parts), never 'under 4 minutes' (members divided by minutes are no members); it was
    bound to the minutes (the pure-factor check refused it)."""
    q = ("A club has 30 members. 20% of them arrive in under 4 minutes. Twice that number arrive in "
         "under 9 minutes. 1/4 of the other members take more than 15 minutes. How many members take more than 15 minutes?")
    s = ("First find how many arrive in under 4 minutes: 30 members * 20% = <<30*20*.01=6>>6 members\n"
         "Then double it: 6 members * 2 = <<6*2=12>>12 members\n"
         "Then the others: 30 members - 6 members - 12 members = <<30-6-12=12>>12 members\n"
         "Then divide that number by 4 to find how many members take more than 15 minutes: 12 members / 4 = <<12/4=3>>3 members\n"
         "#### 3")
    from qcstation.core.construct.make.rules.calculator import smt_from_calculator_annotations

    rule = smt_from_calculator_annotations(s, Fraction(3), question=q)  # the binder's reading, before the checks
    steps = [ln for ln in rule.smtlib.splitlines() if ln.startswith("(assert (= s")]
    assert steps[-1].endswith("w_1_4_parts)))"), steps[-1]
    assert "minutes" not in steps[-1]


# -- a measure used as a pure number (issue 26.2, read17/read18): the check reads the units alone

#: "every other day" halves the days; the 3 is "3 liters of water per minute"
BATH_Q = ("Mara takes a 5-minute bath every other day for 6 weeks. Her tap runs 3 liters of water per "
          "minute. How much water does she use in those 6 weeks?")
BATH_S = ("There are 6*7=<<6*7=42>>42 days in those 6 weeks\n"
          "That means she takes 42/2=<<42/2=21>>21 baths\n"
          "So she bathes a total of 21*5=<<21*5=105>>105 minutes\n"
          "So she uses 3*105=<<3*105=315>>315 liters of water\n#### 315")


def _bath(two_bound_to_liters: bool) -> tuple[list[dict[str, Any]], list[tuple[str, Expr]]]:
    """A hand-built binder's reading: the halving 2 bound to a given (a place of equal value) or
    not; here the tap runs 2 liters so that the wrong binding is possible."""
    q = BATH_Q.replace("3 liters", "2 liters")
    givens = [_given(q, "g1_weeks", 6, "6"), _given(q, "g2_liters", 2, "2"), _given(q, "g3_minute", 5, "5"),
              {"name": "k_days_per_week", "value": "7"}]
    half = "g2_liters" if two_bound_to_liters else "k_every_other_day"
    if not two_bound_to_liters:
        givens.append({"name": half, "value": "2"})
    steps: list[tuple[str, Expr]] = [
        ("s1_days", BinOp("*", Name("g1_weeks"), Name("k_days_per_week"))),
        ("s2_baths", BinOp("/", Name("s1_days"), Name(half))),
        ("s3_minutes", BinOp("*", Name("s2_baths"), Name("g3_minute"))),
        ("s4_liters", BinOp("*", Name("g2_liters"), Name("s3_minutes")))]
    return givens, steps


def test_days_divided_by_liters_count_no_baths() -> None:
    q = BATH_Q.replace("3 liters", "2 liters")
    s = BATH_S.replace("3*105=<<3*105=315>>315", "2*105=<<2*105=210>>210").replace("#### 315", "#### 210")
    givens, steps = _bath(True)
    defs, values = _defs(givens, steps)
    found = pure_factor_problems(defs, values, givens, q, s)
    assert len(found) == 1 and found[0].startswith("g2_liters divides day") and "count" in found[0], found
    good, good_steps = _bath(False)
    defs, values = _defs(good, good_steps)
    assert pure_factor_problems(defs, values, good, q, s) == []


def test_a_measure_dividing_a_measure_of_its_own_kind_or_named_is_not_flagged() -> None:
    """Near misses: '45 ounces / 15 ounces = 3 bottles' (one kind: a count of bottles), and a line
    that names the unit it divides by ('120 miles / 2 hours = 60 miles per hour': a rate)."""
    q = "Ada drinks 45 ounces of juice. A bottle holds 15 ounces. How many bottles does she drink?"
    s = "She drinks 45/15=<<45/15=3>>3 bottles.\n#### 3"
    givens = [_given(q, "g1_ounces", 45, "45"), _given(q, "g2_ounces", 15, "15")]
    defs, values = _defs(givens, [("s1_bottles", BinOp("/", Name("g1_ounces"), Name("g2_ounces")))])
    assert pure_factor_problems(defs, values, givens, q, s) == []
    q = "A car goes 120 miles in 2 hours. How many miles does it go each hour?"
    s = "It goes 120 miles / 2 hours = <<120/2=60>>60 miles each hour.\n#### 60"
    givens = [_given(q, "g1_miles", 120, "120"), _given(q, "g2_hours", 2, "2")]
    defs, values = _defs(givens, [("s1_miles", BinOp("/", Name("g1_miles"), Name("g2_hours")))])
    assert pure_factor_problems(defs, values, givens, q, s) == []


#: "1/2 of what she spends" is undone by a 2; "two weeks ago" is a time (read18: such a 2 was
#: bound to the weeks; another, "Two nights ago she read twice that many", to the nights)
RENT_Q = ("Nia started a new job two weeks ago. Her rent is $900, 1/2 of what she spends on food. "
          "How much does she spend on rent and food?")
RENT_S = ("She spends 900*2 = $<<900*2=1800>>1800 on food.\n"
          "In all she spends 900+1800 = $<<900+1800=2700>>2700.\n#### 2700")


def _rent(two_bound_to_weeks: bool) -> tuple[list[dict[str, Any]], list[tuple[str, Expr]]]:
    givens = [_given(RENT_Q, "g1", 900, "900")]
    if two_bound_to_weeks:
        givens.append(_given(RENT_Q, "g2_weeks", 2, "two"))
        factor: Expr = Name("g2_weeks")
    else:
        givens.append(_given(RENT_Q, "g2", 1, "1/2"))
        givens[-1]["value"] = "1/2"
        factor = BinOp("/", Num(Fraction(1), "1"), Name("g2"))
    steps: list[tuple[str, Expr]] = [("s1_food", BinOp("*", Name("g1"), factor)),
                                     ("s2_total", BinOp("+", Name("g1"), Name("s1_food")))]
    return givens, steps


def test_a_time_undoing_the_questions_half_is_flagged() -> None:
    givens, steps = _rent(True)
    defs, values = _defs(givens, steps)
    found = pure_factor_problems(defs, values, givens, RENT_Q, RENT_S)
    assert len(found) == 1 and found[0].startswith("g2_weeks multiplies $ into $") and "'1/2'" in found[0], found
    # so is a time bound where the question says "twice": "Two nights ago she read twice that many"
    q = "Three nights ago Ann read 15 pages. Two nights ago she read twice that many. How many pages in all?"
    s = "She read 15 x 2 = <<15*2=30>>30 pages two nights ago.\nIn all 15 + 30 = <<15+30=45>>45 pages.\n#### 45"
    givens = [_given(q, "g1_pages", 15, "15"), _given(q, "g2_nights", 2, "Two")]
    steps2: list[tuple[str, Expr]] = [("s1_pages", BinOp("*", Name("g1_pages"), Name("g2_nights"))),
                                      ("s2_pages", BinOp("+", Name("g1_pages"), Name("s1_pages")))]
    defs, values = _defs(givens, steps2)
    found = pure_factor_problems(defs, values, givens, q, s)
    assert len(found) == 1 and found[0].startswith("g2_nights multiplies page") and "'twice'" in found[0], found
    givens[1] = {**_given(q, "w_twice", 2, "twice"), "name": "w_twice"}
    steps2 = [("s1_pages", BinOp("*", Name("g1_pages"), Name("w_twice"))), steps2[1]]
    defs, values = _defs(givens, steps2)
    assert pure_factor_problems(defs, values, givens, q, s) == []
    right, right_steps = _rent(False)
    defs, values = _defs(right, right_steps)
    assert pure_factor_problems(defs, values, right, RENT_Q, RENT_S) == []
    # near miss: a rate the words name ("$900 a week ... for two weeks"): the weeks multiply on purpose
    q = "Nia rents a room for two weeks. Her rent is $900 a week. How much rent does she pay?"
    s = "She pays 900*2 = $<<900*2=1800>>1800 in rent.\n#### 1800"
    givens = [_given(q, "g1", 900, "900"), _given(q, "g2_weeks", 2, "two")]
    defs, values = _defs(givens, [("s1_rent", BinOp("*", Name("g1"), Name("g2_weeks")))])
    assert pure_factor_problems(defs, values, givens, q, s) == []


#: "every 3 laps he drinks 2 ounces"; "A 12 ounce bottle"
LAPS_Q = ("Omar runs 36 laps. Every 3 laps he drinks 4 ounces of water. A 12 ounce bottle costs $2. "
          "How much does he spend on water?")
LAPS_S = ("He drinks 36/3=<<36/3=12>>12 times.\n"
          "He drinks 48 ounces of water because 12 x 4 = <<12*4=48>>48\n"
          "He needs 4 bottles because 48 / 12 = <<48/12=4>>4\n"
          "He spends $8 because 4 x 2 = <<4*2=8>>8\n#### 8")


def test_ounces_times_ounces_are_no_ounces() -> None:
    """A binder that ties the first 12 of '12 x 4' to 'A 12 ounce bottle' (and the bottle's 12 to
    the 12 times): two measures of one kind multiplied into that kind."""
    givens = [_given(LAPS_Q, "g1_laps", 36, "36"), _given(LAPS_Q, "g2_laps", 3, "3"),
              _given(LAPS_Q, "g3_ounces", 4, "4"), _given(LAPS_Q, "g4_ounce", 12, "12"), _given(LAPS_Q, "g5", 2, "2")]

    def steps(swapped: bool) -> list[tuple[str, Expr]]:
        first, second = ("g4_ounce", "s1_times") if swapped else ("s1_times", "g4_ounce")
        return [("s1_times", BinOp("/", Name("g1_laps"), Name("g2_laps"))),
                ("s2_ounces", BinOp("*", Name(first), Name("g3_ounces"))),
                ("s3_bottles", BinOp("/", Name("s2_ounces"), Name(second))),
                ("s4_money", BinOp("*", Name("s3_bottles"), Name("g5")))]

    defs, values = _defs(givens, steps(True))
    found = pure_factor_problems(defs, values, givens, LAPS_Q, LAPS_S)
    assert any("g4_ounce and g3_ounces" in f and "weight" in f for f in found), found
    defs, values = _defs(givens, steps(False))
    assert pure_factor_problems(defs, values, givens, LAPS_Q, LAPS_S) == []


#: "midway" halves the distance; "the 2 cities" is a count of cities (held-out train 4710 did this
#: with "the 2 different US states")
ROAD_Q = ("The distance between Oslo and Rome is 2,000 km by plane. The distance between the 2 cities grows "
          "by 40% by car. Munich is midway between Oslo and Rome. How far is Munich from Rome by car?")
ROAD_S = ("It is 40% * 2,000 = <<40*.01*2000=800>>800 km longer by car.\n"
          "So by car it is 2,000 + 800 = <<2000+800=2800>>2,800 km.\n"
          "Munich is half of the way, which is 2,800 / 2 = <<2800/2=1400>>1,400.\n#### 1400")


def test_a_divisor_the_line_calls_half_bound_to_a_count_it_does_not_name() -> None:
    givens = [_given(ROAD_Q, "g1_pct", 40, "40"), _given(ROAD_Q, "g2_km", 2000, "2,000"),
              _given(ROAD_Q, "g3_cities", 2, "2", nth=1)]
    pct = BinOp("*", BinOp("*", Name("g1_pct"), Num(Fraction(1, 100), ".01")), Name("g2_km"))

    def steps(half: str) -> list[tuple[str, Expr]]:
        return [("s1_km", pct), ("s2_km", BinOp("+", Name("g2_km"), Name("s1_km"))),
                ("s3_km", BinOp("/", Name("s2_km"), Name(half)))]

    defs, values = _defs(givens, steps("g3_cities"))
    found = pure_factor_problems(defs, values, givens, ROAD_Q, ROAD_S)
    assert len(found) == 1 and found[0].startswith("g3_cities divides in s3_km as the line's 'half'"), found
    # the same 2 as a named constant ("midway": its words), or a line that names the cities: nothing said
    consts = [*givens, {"name": "k_midway_parts", "value": "2"}]
    defs, values = _defs(consts, steps("k_midway_parts"))
    assert pure_factor_problems(defs, values, consts, ROAD_Q, ROAD_S) == []
    named = ROAD_S.replace("which is 2,800 / 2", "the 2 cities share it, 2,800 / 2")
    defs, values = _defs(givens, steps("g3_cities"))
    assert pure_factor_problems(defs, values, givens, ROAD_Q, named) == []
    # near miss: "3 times as long" undone as "a third of it" is the multiplier's own place
    q = "A red rope is 3 times as long as a blue rope. The red rope is 12 meters. How long is the blue rope?"
    s = "The blue rope is a third of it: 12 / 3 = <<12/3=4>>4 meters.\n#### 4"
    givens = [_given(q, "g1_times", 3, "3"), _given(q, "g2_meters", 12, "12")]
    defs, values = _defs(givens, [("s1_meters", BinOp("/", Name("g2_meters"), Name("g1_times")))])
    assert pure_factor_problems(defs, values, givens, q, s) == []


def test_a_percent_used_as_its_number_of_parts_is_flagged() -> None:
    """'10% of his money is deducted' / '$40 / 10 = $4' (held-out train 345, lane covA): right only
    because 10% is 1/10; a variant with 20% would divide by 20. 'Since $133 is 7%, 1% is $133/7 ...
    $19 x 100' makes the quotient a hundredth and stays."""
    q = "Ada earns $50 a day. 10% of her pay is deducted as taxes. How much does she keep in 20 days?"
    s = ("The tax is $50 / 10 = $<<50/10=5>>5.\nShe keeps $50 - $5 = $<<50-5=45>>45 a day.\n"
         "In 20 days she keeps $45 * 20 = $<<45*20=900>>900.\n#### 900")
    givens = [_given(q, "g1", 50, "50"), _given(q, "g2_pct", 10, "10"), _given(q, "g3_days", 20, "20")]
    steps: list[tuple[str, Expr]] = [("s1_tax", BinOp("/", Name("g1"), Name("g2_pct"))),
                                     ("s2_keeps", BinOp("-", Name("g1"), Name("s1_tax"))),
                                     ("s3_keeps", BinOp("*", Name("s2_keeps"), Name("g3_days")))]
    defs, values = _defs(givens, steps)
    found = pure_factor_problems(defs, values, givens, q, s)
    assert len(found) == 1 and found[0].startswith("g2_pct is a percent its step divides by"), found
    q = "Zoe spent 7% of her pay, $133, on rent. What is her pay?"
    s = "1% is $133/7 = $<<133/7=19>>19.\nHer pay is $19 x 100 = $<<19*100=1900>>1900.\n#### 1900"
    givens = [_given(q, "g1_pct", 7, "7"), _given(q, "g2", 133, "133"), {"name": "k_percent", "value": "100"}]
    steps = [("s1_pct", BinOp("/", Name("g2"), Name("g1_pct"))), ("s2_pay", BinOp("*", Name("s1_pct"), Name("k_percent")))]
    defs, values = _defs(givens, steps)
    assert pure_factor_problems(defs, values, givens, q, s) == []
    # a ratio of percents is a count ("to cover 100%, 100 / 20 = 5 juices")
    q = "Each juice covers 20% of a person's needs. How many juices cover 100% of the needs of 30 people?"
    s = "One person needs 100 / 20 = <<100/20=5>>5 juices.\n30 people need 5 * 30 = <<5*30=150>>150 juices.\n#### 150"
    givens = [_given(q, "g1_pct", 20, "20"), _given(q, "g2_pct", 100, "100"), _given(q, "g3_people", 30, "30")]
    steps = [("s1_juices", BinOp("/", Name("g2_pct"), Name("g1_pct"))),
             ("s2_juices", BinOp("*", Name("s1_juices"), Name("g3_people")))]
    defs, values = _defs(givens, steps)
    assert pure_factor_problems(defs, values, givens, q, s) == []


def test_a_constant_of_the_words_squared_is_flagged() -> None:
    """'Two weeks has 2*2=4 weekend days' as k_weekend_days x k_weekend_days (read20): the first 2 is
    the question's '2 weeks'; a variant with 3 weeks would still count 4 weekend days."""
    q = "Lu reads 10 pages on weekdays and 20 pages on weekend days. How many pages does she read in 2 weeks?"
    s = ("Two weeks has 5*2=<<5*2=10>>10 weekdays.\nTwo weeks has 2*2=<<2*2=4>>4 weekend days.\n"
         "She reads 10*10 + 20*4 = <<10*10+20*4=180>>180 pages.\n#### 180")
    givens = [_given(q, "g1_pages", 10, "10"), _given(q, "g2_pages", 20, "20"), _given(q, "g3_weeks", 2, "2"),
              {"name": "k_weekdays_per_week", "value": "5"}, {"name": "k_weekend_days", "value": "2"}]

    def steps(first: str) -> list[tuple[str, Expr]]:
        return [("s1_weekdays", BinOp("*", Name("k_weekdays_per_week"), Name("g3_weeks"))),
                ("s2_weekend", BinOp("*", Name(first), Name("k_weekend_days"))),
                ("s3_pages", BinOp("+", BinOp("*", Name("g1_pages"), Name("s1_weekdays")),
                                   BinOp("*", Name("g2_pages"), Name("s2_weekend"))))]

    defs, values = _defs(givens, steps("k_weekend_days"))
    found = pure_factor_problems(defs, values, givens, q, s)
    assert found == ["k_weekend_days multiplies itself in s2_weekend: one of them is another quantity"], found
    defs, values = _defs(givens, steps("g3_weeks"))
    assert pure_factor_problems(defs, values, givens, q, s) == []
