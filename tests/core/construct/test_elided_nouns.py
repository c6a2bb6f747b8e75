"""A number whose noun the question leaves out ("the other 3 have 5 guinea pigs", "three are
wearing 2 inch heels") counts what the earlier place of its value counts
(:mod:`qcstation.core.construct.make.rules.elided`): the solution's "3 cages x 5 guinea pigs/cage"
then names both places, and the clause of the step's other number ties it to "the other 3" (GSM8K
561, one given of its own for each place). The check refuses a sum that adds one given to itself
where the question's other place of that value has a given of its own ("3 women + 3 women" as
g1 + g1 beside "three are wearing" as g3, 1110: move the second group and the count of women does
not move), but not where the sentence says the number is each one's ("each of them decided to ride
the luge 2 times": 2+2, 133)."""

from __future__ import annotations

from fractions import Fraction


from qcstation.core.construct.check.bindings import binding_problems
from qcstation.core.construct.make.rules import BinOp, Name, rule_for_seed
from qcstation.core.construct.make.rules.givens import question_numbers
from qcstation.core.reading.expr import Num


def test_the_other_place_counts_what_the_earlier_one_counts() -> None:
    g = question_numbers("3 of the cages have 10 hamsters and the other 3 have 5 guinea pigs.")
    threes = [n for n in g.numbers if n.value == 3]
    assert len(threes) == 2 and all("cage" in n.stems for n in threes)
    # a number followed by its noun keeps its own words only
    g = question_numbers("He has 3 cats and 3 dogs.")
    assert [n.stems for n in g.numbers if n.value == 3] == [frozenset({"cat"}), frozenset({"dog"})]


def test_each_group_of_cages_is_its_own_given(gsm8k: dict) -> None:
    rule = rule_for_seed(gsm8k["561"])
    assert "(* g1_cages g2_hamsters)" in rule.smtlib
    other = next(x for x in rule.givens if x["value"] == "3" and x["name"] != "g1_cages")
    assert gsm8k["561"]["question"][other["span"][0] - 10:other["span"][1]] == "the other 3"
    assert f"(* {other['name']} g4_guinea)" in rule.smtlib


def _defs(pairs: dict[str, object]) -> tuple[dict[str, object], dict[str, Fraction]]:
    from qcstation.core.reading.expr import evaluate

    defs: dict[str, object] = {}
    values: dict[str, Fraction] = {}
    for n, e in pairs.items():
        defs[n] = e
        values[n] = evaluate(e, values)  # type: ignore[arg-type]
    return defs, values


def test_one_given_added_to_itself_for_two_places_is_refused(gsm8k: dict) -> None:
    s = gsm8k["1110"]
    common = {"g1_women": Num(Fraction(3)), "g2_inch": Num(Fraction(4)), "g3_wearing": Num(Fraction(3)),
              "g4_inch": Num(Fraction(2)),
              "s1_inches": BinOp("*", Name("g1_women"), Name("g2_inch")),
              "s2_inches": BinOp("*", Name("g3_wearing"), Name("g4_inch")),
              "s3_inches": BinOp("+", Name("s1_inches"), Name("s2_inches"))}
    for second, refused in (("g1_women", True), ("g3_wearing", False)):
        pairs = {**common, "s4_women": BinOp("+", Name("g1_women"), Name(second)),
                 "s5_inches_woman": BinOp("/", Name("s3_inches"), Name("s4_women"))}
        defs, values = _defs(pairs)
        found = [b.describe() for b in binding_problems(defs, values, s["question"], s["solution"])]
        assert any(f.startswith("s4_women uses 3") for f in found) is refused, found
    # the rules make the reading the check accepts (lane cover36: "women" names both clauses, so the
    # clause of each step's other number decides, test_reading_stated_twice)
    assert "(+ g1_women g3_wearing)" in rule_for_seed(s).smtlib


def test_a_number_that_is_each_ones_may_be_added_to_itself(gsm8k: dict) -> None:
    rule = rule_for_seed(gsm8k["133"])
    assert "(+ g3_times g3_times)" in rule.smtlib
