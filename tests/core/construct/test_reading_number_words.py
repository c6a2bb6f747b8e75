"""Numbers a question writes in words that a solution computes with (issue 26.1, lane covB): "three
hundred feet" is one number, 300 (never a three); "ten percent" is also the fraction 1/10, as "10%"
is; "2 and a half dozen" is one number, 5/2; "four sixths" divides by its 6 parts and takes 4 of
them (its value is 2/3, its words say sixths). Each a given tied to its words, never borrowed."""

from __future__ import annotations

from fractions import Fraction

from qcstation.core.construct.make.rules import rule_for_seed
from qcstation.core.construct.make.rules.givens import question_numbers
from tests.core.construct.seeds import gsm8k_seed as _seed


def _given(made, name: str) -> dict:
    return next(g for g in made.givens if g["name"] == name)


def test_a_hundred_in_words_is_one_number() -> None:
    q = "A kite rose four hundred feet into the air. Its string is nine times as long. How many feet of string are there?"
    made = rule_for_seed(_seed(q, "The string is 400 * 9 = <<400*9=3600>>3600 feet long.\n#### 3600", "3600"))
    assert made.value == 3600
    assert made.steps[0].sexpr == "(* g1_feet g2_times)"
    given = _given(made, "g1_feet")
    assert given["value"] == "400" and q[slice(*given["span"])] == "four hundred"


def test_a_hundred_another_number_word_goes_on_is_not_read_as_hundreds() -> None:
    numbers = [(n.value, n.text) for n in question_numbers("Two hundred fifty people and three hundred thousand ants.").numbers]
    assert (Fraction(200), "Two hundred") not in numbers and (Fraction(300), "three hundred") not in numbers
    assert [(n.value, n.text) for n in question_numbers("She pays with a one hundred dollar bill.").numbers] == [
        (Fraction(100), "one hundred")]


def test_a_percent_in_words_is_also_its_fraction() -> None:
    q = ("Dora sells 20 pies a day. A new oven lets her sell Forty percent more pies per day. How many pies does "
         "she sell a day now?")
    made = rule_for_seed(_seed(q, "She sells 20 x 0.40 = <<20*0.40=8>>8 more pies.\nShe sells 20 + 8 = <<20+8=28>>28 "
                                  "pies a day.\n#### 28", "28"))
    assert made.value == 28
    assert made.steps[0].sexpr == "(* g1_pies g2_pct)"
    given = _given(made, "g2_pct")
    assert given["value"] == "2/5" and given["kind"] == "percent" and q[slice(*given["span"])] == "Forty"


def test_a_mixed_number_in_words_is_one_number() -> None:
    q = "Ava brings 3 and a half dozen muffins to school. The class eats 30 of them. How many muffins are left?"
    made = rule_for_seed(_seed(q, "Ava brings 3.5 x 12 = <<3.5*12=42>>42 muffins.\nThere are 42 - 30 = <<42-30=12>>12 "
                                  "muffins left.\n#### 12", "12"))
    assert made.value == 12
    given = _given(made, made.steps[0].sexpr.split()[1])
    assert given["value"] == "7/2" and q[slice(*given["span"])] == "3 and a half"


def test_a_fraction_in_words_is_divided_by_the_parts_its_words_say() -> None:
    q = "A shop had 1,200 hats. If only three sixths of the hats are left, how many hats did the shop sell?"
    made = rule_for_seed(_seed(q, "A sixth of the hats is 1200/6 = <<1200/6=200>>200 hats.\nThere are 3*200 = "
                                  "<<3*200=600>>600 hats left.\nThe shop sold 1200-600 = <<1200-600=600>>600 hats."
                                  "\n#### 600", "600"))
    assert [s.sexpr for s in made.steps[:2]] == ["(/ g1_hats w_three_sixths_parts)",
                                                 "(* w_three_sixths_numerator s1_hats)"]
    assert _given(made, "w_three_sixths_parts")["value"] == "6"


def test_a_digit_one_and_a_word_of_parts_divides_by_the_parts() -> None:
    q = "Leo weighs 90 kg. He gains 10% of his weight in muscle and 1 third that much in fat. How much does he weigh now?"
    made = rule_for_seed(_seed(q, "He gains 90*.1=<<90*.1=9>>9 kg of muscle.\nHe gains 9/3=<<9/3=3>>3 kg of fat.\nHe "
                                  "weighs 90+9+3=<<90+9+3=102>>102 kg now.\n#### 102", "102"))
    assert made.value == 102
    assert made.steps[1].sexpr == "(/ s1_kg_muscle w_1_third_parts)"
    given = _given(made, "w_1_third_parts")
    assert given["value"] == "3" and q[slice(*given["span"])] == "1 third"


def test_a_return_on_an_investment_is_a_percent_more() -> None:
    q = "Ada invested $2,000 and got a 30% return on her investment. How much money does she have now?"
    made = rule_for_seed(_seed(q, "She has $2,000 * 1.3 = $<<2000*1.3=2600>>2,600.\n#### 2600", "2600"))
    assert made.value == 2600
    assert made.steps[0].sexpr == "(* g1 (+ 1 g2_return_pct))"
