"""A value the question states at several places, each use bound by the words (issue 26.1, lane
cover36), never by an equal value alone:

* the check reads a number word that counts the terms of the step's sum ("In three days he has
  caught 3+12+6", 982) as no words of an operand, and "N times" where no place of N is a number of
  times ("five people would perform the task 5 times as fast", 528) as no words of a place;
* a product of the given and an earlier result whose own line says it is each one's ("The dress pants
  cost 750/5=$150 each", then "150*10", 643) is the place that line names;
* a product of two uses of one value ("5 x 5 = 25 red pens") says nothing of which is which by its
  result's words; a word that only multiplies is a pure number ("5 x 2 = 10 packs", "twice"), and a
  count times a rate per what it counts is the rate's place ("10 x 5" after "= 10 packs" for "each
  pack has 5 pens", 1197);
* "the original 18" is the place no "another" marks, and what "This left" of a whole after its share
  ("18 - 6", 6 = 18*1/3) is the whole's place (194);
* "Cucumbers are $2 each": the clause's subject is what the rate is each of (765's binding).

Each near-miss, where the words do not decide, stays refused."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.check.context import counts_the_terms, times_of_no_place
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.reading.expr import BinOp, Name
from qcstation.core.reading.clause_places import operand_clause_choice
from qcstation.core.reading.words import question_occurrences


def _made(seed: dict) -> tuple[dict[str, str], dict[str, int]]:
    rule = rule_for_seed(seed)
    assert rule.bound and rule.value == Fraction(seed["answer_text"].replace(",", ""))
    steps = {st.name.split("_")[0]: st.sexpr for st in rule.steps}
    starts = {str(g["name"]): int(g["span"][0]) for g in rule.givens}
    return steps, starts


def _refused(seed: dict, question: tuple[str, str] | None = None, solution: tuple[str, str] | None = None) -> None:
    changed = dict(seed)
    for key, edit in (("question", question), ("solution", solution)):
        if edit is not None:
            assert edit[0] in changed[key]
            changed[key] = changed[key].replace(edit[0], edit[1])
    with pytest.raises(RuleError):
        rule_for_seed(changed)


def test_a_number_word_that_counts_the_terms(gsm8k: dict) -> None:
    # 982 "Joe caught 3 pounds of crawfish ... 1 serving of crawfish is 3 pounds": "In three days he
    # has caught 3+12+6" adds Thursday's 3 pounds; 21/3 divides by the serving's
    q = gsm8k["982"]["question"]
    steps, starts = _made(gsm8k["982"])
    assert steps["s3"] == "(+ g1_pounds s1_pounds s2_pounds)" and steps["s4"] == "(/ s3_pounds_crawfish g3_pounds)"
    assert q[starts["g1_pounds"]:].startswith("3 pounds of crawfish")
    assert q[starts["g3_pounds"]:].startswith("3 pounds, how many")
    a, b, c = Name("a"), Name("b"), Name("c")
    assert counts_the_terms(BinOp("+", BinOp("+", a, b), c), Fraction(3))
    assert not counts_the_terms(BinOp("+", a, b), Fraction(3))  # "three days" of two terms: words of a place
    assert not counts_the_terms(BinOp("*", BinOp("*", a, b), c), Fraction(3))


def test_times_the_line_derives(gsm8k: dict) -> None:
    # 528 "paint half a house in 5 days ... for 5 people": "Since five people would perform the task
    # 5 times as fast ... 10/5" divides by the 5 people
    q = gsm8k["528"]["question"]
    steps, starts = _made(gsm8k["528"])
    assert steps["s2"] == "(/ s1_days_paint g2_people)" and steps["s1"] == "(* g1_days w_half_parts)"
    assert q[starts["g2_people"]:].startswith("5 people") and q[starts["g1_days"]:].startswith("5 days")
    places = [o for o in question_occurrences(q) if o.value == 5]
    assert times_of_no_place(["times", "as", "fast"], places)
    # where a place of the value is a number of times, "5 times" may be its words
    times = [o for o in question_occurrences("He works 5 times a week for 5 days.") if o.value == 5]
    assert not times_of_no_place(["times"], times)


def test_a_product_of_a_price_each(gsm8k: dict) -> None:
    # 643 "10 suits and 10 dress pants ... the dress pants cost 1/5 that cost": "The dress pants cost
    # 750/5=$150 each", "So in total they cost 150*10" is the 10 dress pants; "3*10 dress shirts" the suits
    q = gsm8k["643"]["question"]
    steps, starts = _made(gsm8k["643"])
    assert steps["s3"] == "(* s2_dress_pants g3_dress)" and steps["s4"] == "(* g4_dress g2_suits)"
    assert q[starts["g3_dress"]:].startswith("10 dress pants") and q[starts["g2_suits"]:].startswith("10 suits")
    # the earlier line says no "each": nothing names the count (356's trap), refused
    _refused(gsm8k["643"], solution=("=$<<750/5=150>>150 each", "=$<<750/5=150>>150"))


def test_two_counts_of_one_value_and_a_rate_per_pack(gsm8k: dict) -> None:
    # 1197 "5 packs of red pens and also bought twice the amount of black pens ... each pack has 5
    # pens": 5 x 5 takes both places, 5 x 2 the packs, 10 x 5 the pens of each pack
    q = gsm8k["1197"]["question"]
    steps, starts = _made(gsm8k["1197"])
    assert steps["s1"] == "(* g1_packs g2_pens)" and steps["s2"] == "(* g1_packs w_twice)"
    assert steps["s3"] == "(* s2_packs_black g2_pens)"
    assert q[starts["g1_packs"]:].startswith("5 packs") and q[starts["g2_pens"]:].startswith("5 pens")
    # no clause says what the 5 pens are per: refused
    _refused(gsm8k["1197"], question=("If each pack has 5 pens", "If the packs have 5 pens"))


def test_the_original_and_what_is_left_of_it(gsm8k: dict) -> None:
    # 194 "placed 18 pink plastic flamingos ... they added another 18 pink plastic flamingos": "one
    # third of the original 18" and "This left 18 pink - 6" are Friday's 18, "On Sunday, 18 more" Sunday's
    q = gsm8k["194"]["question"]
    steps, starts = _made(gsm8k["194"])
    assert steps["s1"] == "(* g1_pink w_one_third)" and steps["s2"] == "(- g1_pink s1_white_flamingos)"
    assert steps["s3"] == "(+ s2_pink_flamingos g2_pink)"
    assert q[starts["g1_pink"] - 7:].startswith("placed 18") and q[starts["g2_pink"] - 8:].startswith("another 18")
    # without "original" nothing names the first use's place; without "left" the difference's 18 is
    # no remainder the words name: refused
    _refused(gsm8k["194"], solution=("of the original 18", "of the 18"))
    _refused(gsm8k["194"], solution=("This left 18 pink", "Then 18 pink"))


def test_a_rate_each_names_its_subject(gsm8k: dict) -> None:
    # 765 "Leila buys 3 cucumbers ... Cucumbers are $2 each ... Lettuce cost $3 each": "3 x $2" is
    # the 3 cucumbers (what the $2 is each of), not "$3 each" nor "the three of them"
    q = gsm8k["765"]["question"]
    three = [o for o in question_occurrences(q) if o.value == 3 and o.start >= 0]
    assert operand_clause_choice(q, [o.words for o in three], q.index("2 each")) == 0
    assert q[three[0].start:].startswith("3 cucumbers")
    # "each" that is followed by its noun reads that noun, as before
    assert operand_clause_choice("He has 3 dogs and 3 cats. A toy costs $2 for each dog.",
                                 [frozenset({"dog"}), frozenset({"cat"})], 39) == 0


def test_one_chain_of_two_places(gsm8k: dict) -> None:
    # 312 "three people eat three eggs each day": "Three persons eat 3 x 3 = 9 eggs each day" takes
    # one of each (the line names the people, its result the eggs); "5 - 3" is the people
    q = gsm8k["312"]["question"]
    steps, starts = _made(gsm8k["312"])
    assert steps["s1"] == "(* g1_people g2_eggs)" and steps["s2"] == "(- g3 g1_people)"
    assert q[starts["g1_people"]:].startswith("three people") and q[starts["g2_eggs"]:].startswith("three eggs")
    # the result names no place: "3 x 3" may be one quantity squared, refused (and "5 - 3 = 2 persons
    # eat two eggs" left out: its result's words name the people's 3 as the difference's term, lane cover37)
    seed = dict(gsm8k["312"])
    seed["solution"] = seed["solution"].replace("<<5-3=2>>2 persons eat two eggs in a day", "<<5-3=2>>2")
    _refused(seed, solution=("<<3*3=9>>9 eggs each day", "<<3*3=9>>9 each day"))


def test_the_place_of_the_other_number(gsm8k: dict) -> None:
    # 503 "her 5 friends. 2 of her friends want 5 gifts": "Two of Cherries friends in total want
    # 2*5" is the clause of the 2 the line names, so its 5 is the "5 gifts", not "her 5 friends"
    q = gsm8k["503"]["question"]
    steps, starts = _made(gsm8k["503"])
    assert steps["s1"] == "(* g1_friends g2_gifts)"
    assert q[starts["g1_friends"]:].startswith("2 of her friends") and q[starts["g2_gifts"]:].startswith("5 gifts")
    # the line names neither the 2 nor the 5: refused
    _refused(gsm8k["503"], solution=("Two of Cherries friends in total want", "In total they want"))


def test_one_word_given_named_alike_on_each_line(gsm8k: dict) -> None:
    # 403 "a quadruple batch ... 3 cups of flour and 1 cup milk ... 2-cup bags and ... 2-cup bottles":
    # "To make 4 brownies, Mark needs: 3 cups * 4" and "To make 4 brownies, Mark needs: 1 cup * 4"
    # name the two uses of "quadruple" alike (one quantity); "2 cups per bag" is the "2-cup bags"
    q = gsm8k["403"]["question"]
    steps, starts = _made(gsm8k["403"])
    assert steps["s1"] == "(* g1_cups w_quadruple)" and steps["s3"] == "(* g3_cup w_quadruple)"
    assert steps["s2"] == "(/ s1_cups_flour g2_cup)" and steps["s4"] == "(/ s3_cups_milk g4_cup)"
    assert q[starts["g2_cup"]:].startswith("2-cup bags") and q[starts["g4_cup"]:].startswith("2-cup bottles")
    # the lines name the two uses differently: one may be another quantity of the value, refused
    _refused(gsm8k["403"], solution=("To make 4 brownies, Mark needs: 1 cup", "To make 4 cakes, Mark needs: 1 cup"))


def test_a_place_whose_noun_is_left_out_shares_the_words_of_its_clause(gsm8k: dict) -> None:
    # 1110 "Three of the women ... are wearing 4 inch heels and three are wearing 2 inch heels": the
    # second three counts women too, so "women" on a line is no word of the first clause alone; "3
    # women * 2 inches/woman" is the clause of its 2, "3 women + 3 women" one of each
    q = gsm8k["1110"]["question"]
    steps, starts = _made(gsm8k["1110"])
    assert steps["s1"] == "(* g1_women g2_inch)" and steps["s2"] == "(* g3_wearing g4_inch)"
    assert steps["s4"] == "(+ g1_women g3_wearing)"
    assert starts["g1_women"] == 0 and q[starts["g3_wearing"]:].startswith("three are wearing 2")
    # the second clause names other people: "3 women * 2" is no place its words and clause agree on
    _refused(gsm8k["1110"], question=("three are wearing 2 inch", "three men are wearing 2 inch"))


def test_a_word_given_inside_a_longer_one_is_that_one(gsm8k: dict) -> None:
    # 372 "sold double that number ... sold one-half the amount": "half" inside "one-half" is no word
    # given of its own, so "28/2" divides by one-half's parts (not "double" a second time); the check
    # does not vouch for which word the bare 2 is (each word forwards is no reading the words make:
    # 980's "24 x 2" undoes "half the age of his dad"), and the seed stays refused
    from qcstation.core.construct.make.rules.calculator import smt_from_calculator_annotations

    s = gsm8k["372"]
    made = smt_from_calculator_annotations(s["solution"], Fraction(50), question=s["question"])
    assert "(/ s1_shoes w_one_half_parts)" in made.smtlib and "(* g1_pairs w_double)" in made.smtlib
    assert "w_half_parts" not in made.smtlib
    with pytest.raises(RuleError, match="given-words"):
        rule_for_seed(s)


def test_an_even_split_divides_by_the_people(gsm8k: dict) -> None:
    # 190 "Three friends spent $20.25 on 3 tickets ... If they agreed to split all the costs evenly":
    # "So each of them paid $102/3" divides by the three friends, not the 3 tickets
    q = gsm8k["190"]["question"]
    steps, starts = _made(gsm8k["190"])
    assert steps["s4"] == "(/ s3 g5_friends)" and q[starts["g5_friends"]:].startswith("Three friends")
    # the question shares nothing out evenly: which 3 the line divides by, no words say
    _refused(gsm8k["190"], question=("agreed to split all the costs evenly", "agreed to pay all the costs"))
    # both places count people: refused
    _refused(gsm8k["190"], question=("on 3 tickets", "on 3 kids' tickets"))
