"""Two givens of one value in one step, each place of the question once: which is which is
immaterial only where swapping them leaves the step's term the same function (issue 26, point
2: the given-words check of :mod:`qcstation.core.construct.check.bindings` is made more exact, by
the term itself, never by a value). "20 x 20/100" for "20 students, 20% enrolled" is the same
whichever 20 is the students; "20 - 20/100" is not, and stays refused."""

from __future__ import annotations

import re
from fractions import Fraction

from qcstation.core.construct.check.bindings import binding_problems
from qcstation.core.construct.check.context import swap_invariant as _swap_invariant
from qcstation.core.construct.make.rules import rule_for_seed
from qcstation.core.reading.expr import BinOp, Name, Num

Q = "In a class of 20 students, 20% enrolled in dance. How many students enrolled in dance?"


def _defs(step: BinOp) -> tuple[dict, dict]:
    defs = {"g1_students": Num(Fraction(20)), "g2_enrolled": Num(Fraction(20)),
            "k_percent": Num(Fraction(100)), "s1": step}
    values = {"g1_students": Fraction(20), "g2_enrolled": Fraction(20), "k_percent": Fraction(100)}
    from qcstation.core.reading.expr import evaluate

    values["s1"] = evaluate(step, values)
    return defs, values


def test_a_product_over_a_constant_is_the_same_whichever_given_is_which() -> None:
    product = BinOp("/", BinOp("*", Name("g1_students"), Name("g2_enrolled")), Name("k_percent"))
    assert _swap_invariant(product, ["g1_students", "g2_enrolled"])
    defs, values = _defs(product)
    sol = "There are 20 x 20/100 = <<20*20/100=4>>4 students who enrolled in dance."
    assert binding_problems(defs, values, Q, sol) == []


def test_a_term_that_a_swap_changes_is_still_checked_by_its_words() -> None:
    # the same shape of binding, two 20s in one step, where which is which matters: the
    # students less the percent, or the students over the percent, are not symmetric
    for step, written in ((BinOp("-", Name("g1_students"), BinOp("/", Name("g2_enrolled"), Name("k_percent"))),
                           "20-20/100=19.8"),
                          (BinOp("/", Name("g1_students"), BinOp("/", Name("g2_enrolled"), Name("k_percent"))),
                           "20/(20/100)=100")):
        assert not _swap_invariant(step, ["g1_students", "g2_enrolled"])
        defs, values = _defs(step)
        sol = f"There are <<{written}>>{written.split('=')[1]} in dance."
        assert binding_problems(defs, values, Q, sol), step
    # one given twice ("20 x 20/100" bound to the students both times) is no pair of places
    assert not _swap_invariant(BinOp("*", Name("g1_students"), Name("g1_students")), ["g1_students"])


def test_the_dance_class_is_made_with_each_20_at_its_own_place(gsm8k: dict) -> None:
    # 15 "In a dance class of 20 students, 20% enrolled in contemporary dance, 25% of the
    # remaining ...": "20 x 20/100" uses both places once, "20 - 4" and "12/20 x 100%" the
    # students (words: "students", and no percent on the line)
    seed = gsm8k["15"]
    rule = rule_for_seed(seed)
    q = seed["question"]
    at = {str(g["name"]): q[g["span"][0]:g["span"][0] + 12] for g in rule.givens}
    steps = {st.name.split("_")[0]: [at[n] for n in re.findall(r"\bg\d+\w*", st.sexpr) if n in at]
             for st in rule.steps}
    assert sorted(steps["s1"]) == ["20 students,", "20% enrolled"]
    assert steps["s2"] == ["20 students,"]
    assert steps["s5"] == ["20 students,"]
    assert rule.value == 60
