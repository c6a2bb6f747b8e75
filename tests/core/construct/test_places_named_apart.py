"""Two places of one value ("3 bike repairs and 3 car repairs"), each line of the solution naming
the words of one place and not the other's ("$12 x 3 = $36 for the bike repairs", "$40 x 3 = $120
for the car repairs"): each use is the place its line names, not the first free place by order. A
line that names both places' words stays tied by order (refused). The seeds are written for these
tests. The independent check vouches for the same reading and for no crossed one."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.check.lines_apart import vouched_by_lines_apart
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.reading.expr import BinOp, Name, Num
from qcstation.core.reading.words import question_occurrences
from tests.core.construct.seeds import gsm8k_seed as _seed

QUESTION = ("A shop fixes bikes and cars. A car repair costs $40 and a bike repair costs $12. This week "
            "they did 3 car repairs and 3 bike repairs. How much did they earn this week?")


def _solution(first: str) -> str:
    return (f"They earned $12 x 3 = $<<12*3=36>>36 {first}.\n"
            "They earned $40 x 3 = $<<40*3=120>>120 for the car repairs.\n"
            "They earned $36 + $120 = $<<36+120=156>>156 this week.\n#### 156")


def test_each_line_names_its_own_place(z3pool) -> None:
    seed = _seed(QUESTION, _solution("for the bike repairs"), "156")
    rule = rule_for_seed(seed)
    assert not rule.uncertain
    # the given of each "3" by the word after it: "3 car repairs", "3 bike repairs"
    of = {QUESTION[g["span"][1]:].split()[0]: g["name"] for g in rule.givens
          if g.get("span") and QUESTION[g["span"][0]:g["span"][1]] == "3"}
    steps = [ln for ln in rule.smtlib.splitlines() if ln.startswith("(assert (= s")]
    assert set(of) == {"car", "bike"}, rule.givens
    assert of["bike"] in steps[0] and of["car"] in steps[1], steps
    assert z3pool.verify(rule.smtlib, seed["answer_text"]).ok


def test_a_line_naming_both_places_stays_tied_by_order() -> None:
    with pytest.raises(RuleError, match="uncertain binding"):
        rule_for_seed(_seed(QUESTION, _solution("for the bike repairs, not the car repairs"), "156"))


def test_the_check_vouches_for_the_place_the_lines_name_apart() -> None:
    solution = _solution("for the bike repairs")
    cands = [o for o in question_occurrences(QUESTION) if o.value == 3]
    values = {k: Fraction(v) for k, v in {"g1": 12, "g2_bike": 3, "g3": 40, "g4_car": 3, "s1": 36, "s2": 120}.items()}

    def defs(first: str, second: str) -> dict[str, object]:
        return {"g1": Num(Fraction(12)), "g2_bike": Num(Fraction(3)), "g3": Num(Fraction(40)),
                "g4_car": Num(Fraction(3)), "s1": BinOp("*", Name("g1"), Name(first)),
                "s2": BinOp("*", Name("g3"), Name(second))}

    def is_given(e: object) -> bool:
        return isinstance(e, Num)

    right = defs("g2_bike", "g4_car")
    assert vouched_by_lines_apart("g2_bike", Fraction(3), cands, right, values, solution, is_given)
    assert vouched_by_lines_apart("g4_car", Fraction(3), cands, right, values, solution, is_given)
    crossed = defs("g4_car", "g2_bike")  # the bike line's 3 bound to "3 car repairs"
    assert not vouched_by_lines_apart("g4_car", Fraction(3), cands, crossed, values, solution, is_given)
    assert not vouched_by_lines_apart("g2_bike", Fraction(3), cands, crossed, values, solution, is_given)
