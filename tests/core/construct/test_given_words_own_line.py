"""The independent check reads each step on its own line and each operand by its own words (issue
26.1, lane covB): a step whose result equals one of its operands ("40-12-16 = 12 dog owners") does
not lend its result's words to the operand; two steps of the same result and operands ("12x3 = 36
cats", "12x3 = 36 dogs") are each read on their own line, so one given standing for "3 cats" and
"3 dogs each" is refused; of two words that multiply ("twice", "half"), the one whose sentence no
other given's line takes is vouched for by elimination. Each with a near miss that stays refused."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.check.bindings import binding_problems
from qcstation.core.construct.make.rules import RuleError, RuleResult, rule_for_seed
from qcstation.core.reading.expr import BinOp, Name, Num

PETS_Q = ("In a town of 40 houses, 12 houses have 3 cats, 16 houses have 1 cat, while the remaining "
          "houses have 3 dogs each. How many cats and dogs are there in the town?")
PETS_S = ("The 12 houses have 12x3=<<12*3=36>>36 cats.\n"
          "The 16 houses have 16x1=<<16*1=16>>16 cats.\n"
          "There are 40-12-16=<<40-12-16=12>>12 dog owners.\n"
          "The remaining houses have 12x3=<<12*3=36>>36 dogs.\n"
          "There are 36+16+36=<<36+16+36=88>>88 cats and dogs in the town.\n#### 88")


def _asserts(rule: RuleResult) -> set[str]:
    return {ln for ln in rule.smtlib.splitlines() if ln.startswith("(assert")}


def _places(rule: RuleResult, question: str, more: int) -> dict[str, str]:
    return {g["name"]: question[g["span"][0]:g["span"][1] + more] for g in rule.givens if g.get("span")}


def test_a_result_equal_to_an_operand_lends_it_no_words() -> None:
    rule = rule_for_seed({"question": PETS_Q, "solution": PETS_S})
    assert rule.value == 88
    places = _places(rule, PETS_Q, 7)
    by_step = {ln.split()[2]: ln for ln in _asserts(rule) if ln.startswith("(assert (= s")}
    # the 12 houses that have 3 cats are subtracted; the dogs' 3 is "3 dogs each", not "3 cats"
    s3 = by_step["s3_dog_owners"]
    s4 = next(ln for name, ln in by_step.items() if name.startswith("s4"))
    cats_3 = next(n for n, p in places.items() if p.startswith("3 cats"))
    dogs_3 = next(n for n, p in places.items() if p.startswith("3 dogs"))
    assert cats_3 != dogs_3 and dogs_3 in s4 and cats_3 not in s4
    assert next(n for n, p in places.items() if p.startswith("12 houses")) in s3


def _crossed() -> tuple[dict[str, object], dict[str, Fraction]]:
    """The pets formalization with one given for both 3s (the dogs' 3 bound to "3 cats")."""
    defs: dict[str, object] = {"g1": Num(Fraction(12)), "g2": Num(Fraction(3)), "g3": Num(Fraction(16)),
                               "g4": Num(Fraction(1)), "g5": Num(Fraction(40)),
                               "s1": BinOp("*", Name("g1"), Name("g2")), "s2": BinOp("*", Name("g3"), Name("g4")),
                               "s3": BinOp("-", BinOp("-", Name("g5"), Name("g1")), Name("g3")),
                               "s4": BinOp("*", Name("s3"), Name("g2")),
                               "s5": BinOp("+", BinOp("+", Name("s1"), Name("s2")), Name("s4"))}
    values = {k: Fraction(v) for k, v in {"g1": 12, "g2": 3, "g3": 16, "g4": 1, "g5": 40, "s1": 36, "s2": 16,
                                          "s3": 12, "s4": 36, "s5": 88}.items()}
    return defs, values


def test_two_steps_of_one_result_are_read_each_on_its_own_line() -> None:
    defs, values = _crossed()
    found = binding_problems(defs, values, PETS_Q, PETS_S)
    assert any(b.step == "g2" and set(b.question_texts) == {"3 cats", "3 dogs"} for b in found), found


def test_near_miss_one_given_for_one_place_twice_is_no_problem() -> None:
    # the dogs' own given (g6 = "3 dogs each"): nothing to refuse about g2
    defs, values = _crossed()
    defs["g6"], values["g6"] = Num(Fraction(3)), Fraction(3)
    defs["s4"] = BinOp("*", Name("s3"), Name("g6"))
    found = binding_problems(defs, values, PETS_Q, PETS_S)
    assert not any(b.step == "g2" for b in found), found


BAKE_Q = ("On Monday, Lena baked 24 muffins. On Tuesday, she baked 8 fewer than twice that number. "
          "And on Wednesday, she baked half as many as the day before. How many muffins did she bake "
          "over the three days?")
BAKE_S = ("Tuesday's batch was 2*24-8=<<2*24-8=40>>40.\nWednesday's was 40/2=<<40/2=20>>20.\n"
          "The sum is 24+40+20=<<24+40+20=84>>84.\n#### 84")


def test_twice_is_the_word_the_half_line_leaves() -> None:
    rule = rule_for_seed({"question": BAKE_Q, "solution": BAKE_S})
    assert rule.value == 84
    asserts = _asserts(rule)
    assert "(assert (= s1_tuesday_batch (- (* w_twice g1_muffins) g2_fewer)))" in asserts
    assert "(assert (= s2_wednesday (/ s1_tuesday_batch w_half_parts)))" in asserts
    places = _places(rule, BAKE_Q, 0)
    assert places["w_twice"] == "twice" and places["w_half_parts"] == "half"


def test_near_miss_lines_that_name_the_other_days_stay_refused() -> None:
    # each line names the other word's sentence: no reading of the words ties the 2s
    solution = BAKE_S.replace("Tuesday's batch", "X").replace("Wednesday's was", "Tuesday's was") \
        .replace("X", "Wednesday's batch")
    with pytest.raises(RuleError, match="'twice', 'half'"):
        rule_for_seed({"question": BAKE_Q, "solution": solution})


GARDEN_Q = ("In a garden, there are 4 roses, 7 tulips, and 9 lilies. The gardener plans to plant 7 roses, 2 tulips, "
            "and 4 lilies. How many flowers will be in the garden?")
GARDEN_S = ("Now the garden has 4 + 7 + 9 = <<4+7+9=20>>20 flowers.\n"
            "The gardener will add 7 + 2 + 4 = <<7+2+4=13>>13 flowers.\n"
            "So the garden will have 20 + 13 = <<20+13=33>>33 flowers.\n#### 33")


def test_a_number_is_the_place_stated_beside_the_steps_other_numbers() -> None:
    rule = rule_for_seed({"question": GARDEN_Q, "solution": GARDEN_S})
    assert rule.value == 33
    places = _places(rule, GARDEN_Q, 7)
    by_step = {ln.split()[2]: ln for ln in _asserts(rule) if ln.startswith("(assert (= s")}
    first = [n for n, p in places.items() if n in by_step["s1_flowers"]]
    second = [n for n, p in places.items() if n in by_step["s2_flowers"]]
    assert sorted(places[n] for n in first) == ["4 roses,", "7 tulips", "9 lilies"]
    assert sorted(places[n] for n in second) == ["2 tulips", "4 lilies", "7 roses,"]


def test_near_miss_one_other_number_is_no_evidence() -> None:
    # "13 + 7": the 7 beside an earlier result only; which 7 it is the sentence does not tell
    solution = GARDEN_S.replace("4 + 7 + 9 = <<4+7+9=20>>20 flowers",
                                "4 + 9 = <<4+9=13>>13 roses and lilies, and 7 more, so 13 + 7 = <<13+7=20>>20 flowers")
    with pytest.raises(RuleError, match="'7 tulips', '7 roses'"):
        rule_for_seed({"question": GARDEN_Q, "solution": solution})


SOCKS_Q = "Pia buys 3 packs of socks and 2 hats. Each pack has 8 socks. How many pairs of socks does she have?"
SOCKS_S = "She has 3*8=<<3*8=24>>24 socks.\nThat makes 24/2=<<24/2=12>>12 pairs of socks.\n#### 12"


def _socks(divisor: str) -> tuple[dict[str, object], dict[str, Fraction]]:
    defs: dict[str, object] = {"g1_packs": Num(Fraction(3)), "g2_socks": Num(Fraction(8)), divisor: Num(Fraction(2)),
                               "s1_socks": BinOp("*", Name("g1_packs"), Name("g2_socks")),
                               "s2_pairs": BinOp("/", Name("s1_socks"), Name(divisor))}
    values = {"g1_packs": Fraction(3), "g2_socks": Fraction(8), divisor: Fraction(2), "s1_socks": Fraction(24),
              "s2_pairs": Fraction(12)}
    return defs, values


def test_a_divisor_that_is_the_size_of_a_pair_is_no_given_of_other_words() -> None:
    # "24/2 = 12 pairs": the two of a pair, not the "2 hats" (the pairs would move with the hats)
    defs, values = _socks("g3_hats")
    found = binding_problems(defs, values, SOCKS_Q, SOCKS_S)
    assert any(b.step == "s2_pairs" and b.question_texts == ("2 hats",) for b in found), found
    # the named constant of a pair is no such binding
    defs, values = _socks("k_per_pair")
    assert not any(b.step == "s2_pairs" for b in binding_problems(defs, values, SOCKS_Q, SOCKS_S))
    # nor is a question's own pair ("a pair of hats" ... "24/2 = 12 pairs")
    question = SOCKS_Q.replace("and 2 hats", "and 2 pairs of gloves")
    defs, values = _socks("g3_pairs")
    assert not any(b.step == "s2_pairs" for b in binding_problems(defs, values, question, SOCKS_S))


def test_gsm8k_steps_read_on_their_own_lines(gsm8k: dict) -> None:
    # "The 2 middle shelves can hold a total of 2 * 10" was read on "The bottom shelf can hold
    # 2 * 10" (same result, same operands): its 2 is the "middle 2 shelves", the first one "twice"
    rule = rule_for_seed(gsm8k["1241"])
    assert rule.value == 2
    asserts = _asserts(rule)
    assert "(assert (= s1_books (* w_twice g1_books)))" in asserts
    assert "(assert (= s2_books (* g2_shelves g1_books)))" in asserts


def test_gsm8k_near_misses_one_given_read_by_clauses_stays_made(gsm8k: dict) -> None:
    # "12 + 12" uses both places of 12: its line's clause says nothing of either given
    rule = rule_for_seed(gsm8k["1178"])
    assert rule.value == 17
    # "He bought 3*10=30 dress shirts": "dress" is the 3's ("3 dress shirts per suit"), not the "10
    # dress pants"; the 10 is the suits' as in "The suits cost 750*10"
    rule = rule_for_seed(gsm8k["643"])
    assert rule.value == 10800
    assert "(assert (= s4_dress_shirts (* g4_dress g2_suits)))" in _asserts(rule)


TOYS_Q = ("A toy shop has six robots for sale. It has half as many kites, twice as many balls, and thrice as many "
          "puzzles for sale. How many toys are for sale in the shop?")
TOYS_S = ("The shop has 6/2 = <<6/2=3>>3 kites.\nIt has 6 x 2 = <<6*2=12>>12 balls.\n"
          "It has 6 x 3 = <<6*3=18>>18 puzzles.\nIn all, there are 6 + 3 + 12 + 18 = <<6+3+12+18=39>>39 toys.\n#### 39")


def test_a_word_that_only_multiplies_is_never_added() -> None:
    # "6 + 3 + 12 + 18" adds the 3 kites, not "thrice", which "6 x 3" takes
    rule = rule_for_seed({"question": TOYS_Q, "solution": TOYS_S})
    assert rule.value == 39
    asserts = _asserts(rule)
    assert "(assert (= s3_puzzles (* g1_robots w_thrice)))" in asserts
    assert "(assert (= s4_toys (+ g1_robots s1_kites s2_balls s3_puzzles)))" in asserts


def test_near_miss_a_count_of_that_value_may_be_added() -> None:
    # a value the question also states as a count ("3 shelves", "a pair") may be added: not ruled out
    from qcstation.core.construct.make.rules.added_multipliers import _only_multiplies
    from qcstation.core.construct.make.rules.givens import Givens

    assert _only_multiplies(Givens(TOYS_Q), Fraction(3))
    assert _only_multiplies(Givens("He bought two times the number of hardback books."), Fraction(2))
    assert not _only_multiplies(Givens(TOYS_Q.replace("for sale. How", "for sale on 3 shelves. How")), Fraction(3))
    assert not _only_multiplies(Givens("She has twice as many socks and a pair of shoes."), Fraction(2))
    assert not _only_multiplies(Givens("She rode the bumper car two times."), Fraction(2))


RIDE_Q = ("Nina had 9 liters of fuel in her scooter. She rode 5 miles to the library and back home. Three miles into "
          "her next ride she went back home and then rode 8 miles to the park. If she has 3 liters of fuel left, how "
          "many miles per liter did her scooter go?")
RIDE_S = ("The trip to the library and back is 5+5=<<5+5=10>>10 miles.\n"
          "The round trip of three miles each is 3+3=<<3+3=6>>6 miles.\n"
          "With the park, she rode 10+6+8=<<10+6+8=24>>24 miles.\nShe used 9-3=<<9-3=6>>6 liters.\n"
          "So the rate is 24/6=<<24/6=4>>4 miles per liter.\n#### 4")


def test_a_sum_of_two_givens_of_one_value_the_line_names_as_one_place() -> None:
    # "three miles each is 3+3": both terms are the "Three miles", not one of them the "3 liters"
    rule = rule_for_seed({"question": RIDE_Q, "solution": RIDE_S})
    assert rule.value == 4
    places = _places(rule, RIDE_Q, 6)
    s2 = next(ln for ln in _asserts(rule) if ln.startswith("(assert (= s2_miles"))
    miles_3 = next(n for n, p in places.items() if p.startswith("Three miles"))
    assert s2 == f"(assert (= s2_miles (+ {miles_3} {miles_3})))"


def test_a_place_that_points_back_to_the_same_quantity_settles_an_order_tie() -> None:
    # "among her 5 neighbors" ... "each of her 5 neighbors": one quantity, whichever place "75 ÷ 5" takes
    question = ("Mara picks 90 apples at the orchard. She wants to split her apples evenly among her 5 neighbors. If 15 "
                "apples fell out of her basket on the way home, how many apples will each of her 5 neighbors get?")
    solution = ("She only has 90 - 15 = <<90-15=75>>75 apples after losing 15 of them.\n"
                "She then gives each of her neighbors 75 \u00f7 5 = <<75/5=15>>15 apples.\n#### 15")
    rule = rule_for_seed({"question": question, "solution": solution})
    assert rule.value == 15
    assert _places(rule, question, 10)["g3_neighbors"] == "5 neighbors"


def test_near_miss_two_quantities_of_one_noun_stay_unsettled() -> None:
    # "the trucks have 4 wheels and the cars also have 4 wheels": nothing points back
    question = ("All the trucks on the street have 4 wheels and all the cars also have 4 wheels. If Ben saw 12 "
                "trucks and 13 cars, how many wheels did he see?")
    solution = "He saw 12 + 13 = <<12+13=25>>25 vehicles.\nHe saw 25 * 4 = <<25*4=100>>100 wheels.\n#### 100"
    with pytest.raises(RuleError, match="uncertain binding"):
        rule_for_seed({"question": question, "solution": solution})
