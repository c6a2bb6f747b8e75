"""A digit the solution writes after the same word as one place of the question ("shoe size 5"
and "wears size five boots") is tied to that place when the given's name says it is that place:
the given-words check reads the word before a number as well as the words after it. A near-miss
where the word is another place's, or where two places share it, stays refused."""

from __future__ import annotations

from fractions import Fraction

from qcstation.core.construct.check.bindings import binding_problems
from qcstation.core.construct.make.rules import rule_for_seed
from qcstation.core.reading.expr import BinOp, Name, Num
from qcstation.core.reading.words import word_before, words_before_value

Q984 = ("Charlie has boots that are five times the size of Sophie's. If Sophie wears size five boots, "
        "what is the average size of shoe worn by the two?")
S984 = ("If Sophie wears size five shoes, Charlie wears 5 * shoe size 5 = shoe size <<5*5=25>>25\n"
        "Their combined shoes size for the two is shoe size 25 + shoe size 5 = <<25+5=30>>30\n"
        "The average for the shoe size the two wear is shoe size 30/2 = shoe size <<30/2=15>>15")


def _defs984(second: str) -> tuple[dict, dict]:
    defs = {"g1_times": Num(Fraction(5)), "g2_boots": Num(Fraction(5)), "g3": Num(Fraction(2)),
            "s1_shoe_size": BinOp("*", Name("g1_times"), Name("g2_boots")),
            "s2_shoe_size": BinOp("+", Name("s1_shoe_size"), Name(second)),
            "s3_shoe_size": BinOp("/", Name("s2_shoe_size"), Name("g3"))}
    values = {"g1_times": Fraction(5), "g2_boots": Fraction(5), "g3": Fraction(2),
              "s1_shoe_size": Fraction(25), "s2_shoe_size": Fraction(30), "s3_shoe_size": Fraction(15)}
    return defs, values


def test_the_word_before_a_number_is_read_outside_written_arithmetic() -> None:
    assert word_before("but lost 5", len("but lost ")) == "lost"
    assert word_before("Bobby has 5 fewer", len("Bobby has ")) is None  # a stop word names nothing
    line = "If Brian previously had 20 video games but lost 5, that means he now has 20-5= 15 video games"
    assert words_before_value(line, Fraction(5)) == ["lost"]  # "20-5" is an operand, not a place
    assert words_before_value("Their combined shoes size is shoe size 25 + shoe size 5 = 30", Fraction(5)) == ["size"]


def test_984_sophies_size_is_made_by_the_word_before_it(gsm8k: dict) -> None:
    assert gsm8k["984"]["question"] == Q984 and gsm8k["984"]["solution"] == S984
    rule = rule_for_seed(gsm8k["984"])
    assert rule.value == 15
    asserts = {ln for ln in rule.smtlib.splitlines() if ln.startswith("(assert")}
    assert "(assert (= s2_shoe_size (+ s1_shoe_size g2_boots)))" in asserts
    spans = {g["name"]: Q984[g["span"][0]:g["span"][1] + 6] for g in rule.givens}
    assert spans["g2_boots"] == "five boots" and spans["g1_times"] == "five times"
    defs, values = _defs984("g2_boots")
    assert binding_problems(defs, values, Q984, S984) == []


def test_984_near_miss_the_times_given_added_stays_refused() -> None:
    # "shoe size 5" added as the "five times" given: the word before names Sophie's size, not the multiplier
    defs, values = _defs984("g1_times")
    assert any(b.step == "s2_shoe_size" and b.value == 5 for b in binding_problems(defs, values, Q984, S984))


def test_two_places_after_the_same_word_stay_refused() -> None:
    # Sophie's "size five boots" and her sister's "size five sandals": "shoe size 5" may be either
    q = Q984.replace("wears size five boots", "wears size five boots and her sister size five sandals")
    defs, values = _defs984("g2_boots")
    assert any(b.step == "s2_shoe_size" and b.value == 5 for b in binding_problems(defs, values, q, S984))
