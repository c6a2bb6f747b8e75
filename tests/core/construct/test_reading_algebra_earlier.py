"""The ``gsm8k-algebra`` rule where the equation writes the result of a computation the solution
makes before it ("(8 * 12) + 4 = <<8*12+4=100>>100 inches ... 9*x + 10 = 100", 727): that number
is written as its computation, each of whose numbers is bound on its own line; a letter the
equations write in the other case than its declaration ("let X be ... +x=27", 245); the N of
"N less than M times" taken from that multiple of the unknown ("3c - 2", 1226) is that place by
the words' structure. A given that both the equation and such a computation use, where the
question states its value at several places, is refused: one given in two roles (issue 26.1,
lane cover38; :mod:`qcstation.core.construct.make.rules.algebra`,
:mod:`qcstation.core.construct.check.equations`). Real seeds, real Z3."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.algebra import smt_from_algebra
from qcstation.core.construct.make.rules.dispatch import gold_from_seed


def _asserts(seed: dict) -> list[str]:
    return [ln for ln in rule_for_seed(seed).smtlib.splitlines() if ln.startswith("(assert")]


def _places(seed: dict) -> dict[str, str]:
    rule = rule_for_seed(seed)
    q = seed["question"]
    return {str(g["name"]): q[g["span"][0]:g["span"][0] + 16] for g in rule.givens}


def test_an_earlier_result_in_the_equation_is_its_computation(gsm8k: dict) -> None:
    # 727 "The length of one of his shoes is 10 inches longer than 9 times the length of one of
    # Bobby's shoes. If the length of one of Topher's shoes is 8-feet and 4-inches" / "(8 * 12) + 4
    # = <<8*12+4=100>>100 inches long. If we let the length of one of Bobby's shoes, in inches, be
    # x. ... 9*x + 10 = 100": the 100 is Topher's 8 feet 4 inches in inches (was refused: the
    # answer is written as a bare <<10=10>>, and 'let ... be x' named no unknown)
    rule = rule_for_seed(gsm8k["727"])
    assert rule.rule == "gsm8k-algebra" and rule.value == 10
    assert "(assert (= (+ (* g1_times x_length_shoes) g2_inches) (+ (* g3_feet k_inches_per_foot) g4_inches)))" \
        in _asserts(gsm8k["727"])
    assert _places(gsm8k["727"]) == {"g1_times": "9 times the leng", "g2_inches": "10 inches longer",
                                     "g3_feet": "8-feet and 4-inc", "g4_inches": "4-inches, how lo"}


def test_the_letter_its_equations_write_is_the_unknown(gsm8k: dict) -> None:
    # 245 "If we let X be the number of fries given to Griffin by Ginger, then 24-5-10-2+x=27":
    # Billy's 10 is 2*5 (twice Kyle's 5), Colby's 2 is 5-3
    rule = rule_for_seed(gsm8k["245"])
    assert rule.rule == "gsm8k-algebra" and rule.value == 20
    got = _asserts(gsm8k["245"])
    assert "(assert (= (+ (- g1_french g2 (* w_twice g2) (- g2 g4)) x_fries_given) g3_fries))" in got
    assert _places(gsm8k["245"])["g2"] == "5 of them.  Bill"


def test_the_n_less_than_a_multiple_is_that_place(gsm8k: dict) -> None:
    # 1226 "She makes 2 less than three times as many brownies as cupcakes. If Carly's class has
    # five people and each person gets two treats" / "5 people * 2 treats/person = <<5*2=10>>10 ...
    # 3c - 2 + c = 10": the 2 of "3c - 2" is "2 less", the 2 of 5*2 "two treats"
    rule = rule_for_seed(gsm8k["1226"])
    assert rule.rule == "gsm8k-algebra" and rule.value == 3
    assert "(assert (= (+ (- (* g1_times x_cupcakes) g2) x_cupcakes) (* g3_people g4_treats)))" \
        in _asserts(gsm8k["1226"])
    places = _places(gsm8k["1226"])
    assert places["g2"].startswith("2 less than") and places["g4_treats"].startswith("two treats")


def test_one_given_in_the_equation_and_its_earlier_computation_is_refused(gsm8k: dict) -> None:
    # the trap: without "2 less than three times" no words say which 2 "3c - 2" takes; the binder
    # put it at "two treats", the 5*2's place too (one given in two roles): refused. Since lane
    # cover37 the line "5 people * 2 treats/person" claims "two treats" by its words, so the bare 2
    # of "3c - 2" is the other place, "less 2"; with that line naming nothing it stays refused
    seed = dict(gsm8k["1226"])
    seed["question"] = seed["question"].replace("She makes 2 less than three times as many brownies as cupcakes.",
                                                "She makes three times as many brownies as cupcakes, less 2.")
    rule = smt_from_algebra(seed["solution"], seed["question"], gold_from_seed(seed))
    q = seed["question"]
    assert {str(g["name"]): q[g["span"][0]:g["span"][1] + 1] for g in rule.givens}["g2"] == "2."
    seed["solution"] = seed["solution"].replace("5 people * 2 treats/person", "5 * 2")
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_a_number_no_earlier_line_computes_stays_refused(gsm8k: dict) -> None:
    # 727 with Topher's shoe not computed: the 100 is a number the question does not state
    seed = dict(gsm8k["727"])
    seed["solution"] = seed["solution"].replace("(8 * 12) + 4 = <<8*12+4=100>>100 inches long",
                                                "a hundred inches long")
    with pytest.raises(RuleError):
        rule_for_seed(seed)
