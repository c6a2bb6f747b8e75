"""The places of a value the question states more than once, chosen jointly over all its uses by
the words (issue 26, point 1; :mod:`qcstation.core.construct.make.rules.joint`): the dispatcher
reads a solution again this way when the independent check refused its first reading (each use
placed on its own, by order where its words did not tell), and takes it only when the check
finds nothing. A use's own words are never overruled; a place is used twice in one step only
where each use's words say so; every place is used; only one assignment may be left."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.joint import Use, joint_places


def _uses(seed: dict) -> dict[str, list[str]]:
    """Each step -> the question's words (20 characters from its span) of the givens it uses."""
    rule = rule_for_seed(seed)
    q = seed["question"]
    at = {str(g["name"]): q[g["span"][0]:g["span"][0] + 20] for g in rule.givens}
    out: dict[str, list[str]] = {}
    for st in rule.steps:
        names = re.findall(r"\bg\d+\w*", st.sexpr)
        out[st.name.split("_")[0]] = [at[n] for n in names if n in at]
    return out


def test_one_place_used_twice_in_a_step_where_the_words_of_both_uses_say_so(gsm8k: dict) -> None:
    # 133 "Pam rode the roller coaster 2 times ... each of them decided to ride the luge 2 times":
    # "The total times that they ride the luge is 2+2" is the luge's 2 twice (once each), and the
    # roller coaster's "2+4" Pam's 2; by order the luge's second 2 was Pam's
    uses = _uses(gsm8k["133"])
    assert uses["s1"] == ["2 times while Fred r", "4 times. After that,"]
    assert uses["s2"] == ["2 times. If each rid", "2 times. If each rid"]

def test_the_words_of_a_line_never_place_both_uses_of_its_step_at_one_place(gsm8k: dict) -> None:
    # 312 "three people eat three eggs each day": "Three persons eat 3 x 3" writes words of the
    # first place's clause for both uses, which says nothing of which 3 is which: never one place
    # twice (the check refused that reading: three people times three people). Its result names the
    # other place ("= 9 eggs each day"), so it is one of each (lane cover36,
    # test_reading_stated_twice); with a result that names no place it stays refused
    assert "(* g1_people g2_eggs)" in rule_for_seed(gsm8k["312"]).smtlib
    seed = dict(gsm8k["312"])
    seed["solution"] = seed["solution"].replace("<<3*3=9>>9 eggs each day", "<<3*3=9>>9 each day")
    # nor "5 - 3 = 2 persons eat", which names the people's 3 as its difference's term (lane cover37)
    seed["solution"] = seed["solution"].replace("<<5-3=2>>2 persons eat two eggs in a day", "<<5-3=2>>2")
    with pytest.raises(RuleError):
        rule_for_seed(seed)
    # 393 "Netflix for $10 a month ... Hulu and Disney Plus normally cost $10 a month" with no
    # "each": "Hulu and Disney Plus normally cost 10+10" would be the second $10 twice only if a
    # use of another step named Netflix's $10 ("16+10" names nothing): refused, not read by
    # elimination
    seed = dict(gsm8k["393"])
    seed["question"] = seed["question"].replace("$10 a month each but", "$10 a month but")
    with pytest.raises(RuleError, match="uncertain binding"):
        rule_for_seed(seed)


def test_a_place_each_one_s_of_the_names_it_follows_is_used_once_per_name(gsm8k: dict) -> None:
    # 393 "He gets Netflix for $10 a month. Hulu and Disney Plus normally cost $10 a month each":
    # "Hulu and Disney Plus normally cost 10+10" is the second $10 once for each of the two names
    # (each use's words chose it); "16+10" names nothing and is Netflix's $10 by elimination
    uses = _uses(gsm8k["393"])
    assert uses["s1"] == ["10 a month each but ", "10 a month each but "]
    assert uses["s4"] == ["10 a month.  Hulu an"]
    # the place is each one's of two names: a step that uses it three times is not read so
    q = "He gets Netflix for $10 a month. Hulu and Disney Plus cost $10 a month each. Total?"
    ten = Fraction(10)
    starts = [21, 60]
    assert q[21:23] == "10" and q[60:62] == "10"
    own = [frozenset({"$", "mont"}), frozenset({"$", "mont"})]
    line = "Hulu and Disney Plus cost 10+10+10 = <<10+10+10=30>>30"
    three = [Use(0, ten, k, (), once=False, swappable=True) for k in range(3)] + [Use(1, ten, 0, ())]
    assert joint_places(q, starts, own, three, [line, "So 30+10 = <<30+10=40>>40"]) is None
    two = [Use(0, ten, k, (), once=False, swappable=True) for k in range(2)] + [Use(1, ten, 0, ())]
    assert joint_places(q, starts, own, two, ["Hulu and Disney Plus cost 10+10 = <<10+10=20>>20",
                                              "So 20+10 = <<20+10=30>>30"]) == [1, 1, 0]


def test_elimination_and_the_clause_words_place_every_use(gsm8k: dict) -> None:
    # 243 "pen pal with 5 people. He stopped being penpals with 2 of them. They each send 2
    # letters a week that are 5 pages long"
    uses = _uses(gsm8k["243"])
    assert uses["s1"] == ["5 people.  He stoppe", "2 of them.  They eac"]
    assert uses["s2"] == ["2 letters a week tha"]
    assert uses["s3"] == ["5 pages long.  He re"]
    # 461 "a plastic bottle is worth three cents. She drinks three aluminum cans"
    uses = _uses(gsm8k["461"])
    assert uses["s1"] == ["two cents and a plas", "three aluminum cans "]
    assert uses["s2"] == ["three cents. She dri", "five plastic bottles"]


def test_what_the_result_counts_places_no_operand(gsm8k: dict) -> None:
    # 154 "three pigeons ... each pigeon ate three fries ... a raccoon stole two thirds": "The
    # raccoon left 1/3 behind, so there were 6 * 3 = 18 fries" undoes the raccoon's third; its
    # 3 is no pigeon's "three fries" (the result's "fries" says nothing of it): refused
    with pytest.raises(RuleError):
        rule_for_seed(gsm8k["154"])
    # 194 "18 pink plastic flamingos" on Friday and "another 18" on Sunday: "This left 18 pink -
    # 6" names neither; without "original" on the first line (the place no "another" marks) it
    # stays refused, never placed by order (as written, "This left" is what remains of "the original
    # 18" after its third: made, lane cover36, test_reading_stated_twice)
    seed = dict(gsm8k["194"])
    seed["solution"] = seed["solution"].replace("of the original 18", "of the 18")
    with pytest.raises(RuleError, match="uncertain binding"):
        rule_for_seed(seed)


def test_the_assignment_is_taken_only_when_one_is_left() -> None:
    q = "Ann has 2 cats and 2 dogs. How many pets?"
    starts = [8, 17]
    own = [frozenset({"cat"}), frozenset({"dog"})]
    two = Fraction(2)
    # "2 cats + 2 dogs": each use's words
    assert joint_places(q, starts, own, [Use(0, two, 0, ()), Use(0, two, 1, ())],
                        ["She has 2 cats + 2 dogs = <<2+2=4>>4 pets"]) == [0, 1]
    # one use named, the other by elimination (every place is used)
    assert joint_places(q, starts, own, [Use(0, two, 0, ()), Use(1, two, 0, ())],
                        ["2 dogs bark", "the others: 2 + 1 = <<2+1=3>>3"]) == [1, 0]
    # nothing names either use: two assignments are left, none is taken
    assert joint_places(q, starts, own, [Use(0, two, 0, ()), Use(1, two, 0, ())],
                        ["2 + 1 = <<2+1=3>>3", "2 * 5 = <<2*5=10>>10"]) is None
    # three uses of two places, one named: which of the other two is the second place is open
    assert joint_places(q, starts, own, [Use(0, two, 0, ()), Use(1, two, 0, ()), Use(2, two, 0, ())],
                        ["2 cats", "2 + 1 = <<2+1=3>>3", "2 * 5 = <<2*5=10>>10"]) is None
    # a place twice in a step, where only one use's words say so: not taken
    assert joint_places(q, starts, own, [Use(0, two, 0, ()), Use(0, two, 1, ())],
                        ["2 cats + 2 = <<2+2=4>>4"]) is None


def test_a_percent_as_written_is_the_percent_place() -> None:
    q = "In a class of 20 students, 20% dance. How many dance?"
    starts = [14, 27]
    own = [frozenset({"stud"}), frozenset({"%"})]
    twenty = Fraction(20)
    uses = [Use(0, twenty, 0, (Fraction(100),)), Use(0, twenty, 1, (Fraction(100),), per100=True),
            Use(1, twenty, 0, (Fraction(4),))]
    lines = ["There are 20 x 20/100 = <<20*20/100=4>>4 students who dance.", "20 - 4 = <<20-4=16>>16"]
    assert joint_places(q, starts, own, uses, lines) == [0, 1, 0]


def test_a_share_of_a_named_whole_places_its_count(gsm8k: dict) -> None:
    # 1178 "12 boys and 12 girls. One-third of the girls and one-fourth of the boys are on
    # varsity": "12 x 1/3" is the girls' 12 (the whole "One-third" is a share of), "12 x 1/4" the
    # boys'; "12 + 12 = 24 students" adds both (which is which leaves the sum unchanged), and the
    # clause words "class is composed of" name both listed counts, not the boys' alone
    uses = _uses(gsm8k["1178"])
    assert uses["s1"] == ["12 boys and 12 girls", "12 girls. One-third "]
    assert uses["s2"] == ["12 girls. One-third "]
    assert uses["s3"] == ["12 boys and 12 girls"]


def test_a_sum_of_unnamed_places_stays_open_without_the_share_noun(gsm8k: dict) -> None:
    # the trap: the shares name no whole ("One-third of one group and one-fourth of the other")
    # and the lines name no result ("12 x 1/3 = 4 are on varsity"): nothing tells which 12 is
    # multiplied by which share, and the sum's swap does not settle the products
    seed = dict(gsm8k["1178"])
    seed["question"] = seed["question"].replace("One-third of the girls and one-fourth of the boys",
                                                "One-third of one group and one-fourth of the other")
    seed["solution"] = seed["solution"].replace("4 girls are", "4 are").replace("3 boys are", "3 are")
    with pytest.raises(RuleError, match="uncertain binding: the question states 12 more than once"):
        rule_for_seed(seed)
    q = "Ann has 2 cats and 2 dogs. How many pets?"
    two = Fraction(2)
    # "2 + 2" in one step, swappable: one term; with a place for each use, one assignment
    assert joint_places(q, [8, 17], [frozenset({"cat"}), frozenset({"dog"})],
                        [Use(0, two, 0, (), swappable=True), Use(0, two, 1, (), swappable=True)],
                        ["2 + 2 = <<2+2=4>>4 pets"]) == [0, 1]
    # not swappable ("2 - 2" or two steps): both assignments stay, none is taken
    assert joint_places(q, [8, 17], [frozenset({"cat"}), frozenset({"dog"})],
                        [Use(0, two, 0, ()), Use(0, two, 1, ())], ["2 - 2 = <<2-2=0>>0"]) is None


def test_what_a_sum_or_a_halving_counts_places_its_operand(gsm8k: dict) -> None:
    # 1058 "4 movies every Saturday and half the number of movies on Sunday ... in 4 weeks":
    # "4 / 2 = 2 movies every Sunday" halves ("half" multiplies, counts nothing), so its 4 counts
    # movies; "4 + 2 = 6 movies every weekend" adds movies to movies; "6 x 4 = 24 movies in four
    # weeks" names the weeks by its own words
    uses = _uses(gsm8k["1058"])
    assert uses["s1"] == ["4 movies every Satur"]
    assert uses["s2"] == ["4 movies every Satur"]
    assert uses["s3"] == ["4 weeks?"]
    # 442 "Two sisters ... Elizabeth bought 1 pack of red and 2 packs of clear beads":
    # "Elizabeth bought 1 + 2 = 3 packs" sums packs, not the two sisters
    assert _uses(gsm8k["442"])["s1"] == ["1 pack of red and 2 ", "2 packs of clear bea"]


def test_a_result_that_names_nothing_places_no_operand(gsm8k: dict) -> None:
    # the trap: the same lines with no noun after their results: nothing says which 4 is halved
    # and which added
    seed = dict(gsm8k["1058"])
    seed["solution"] = (seed["solution"].replace("2 movies every Sunday", "2 on Sunday")
                        .replace("6 movies every weekend", "6 in all"))
    with pytest.raises(RuleError, match="uncertain binding"):
        rule_for_seed(seed)
