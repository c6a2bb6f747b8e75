"""An unknown quantity whose line states its result before computing it ("He walks 20 miles on
the weekend because 2 x 10 = <<2*10=20>>20") reads with its blank where that result is written,
and the asked value of an algebra solution is described by the solution's concluding sentence
(issue 26): 170, 435, 773, 1240, 501 and 1169 were refused ("Q2 would read with no blank"). A
written number that may be one the step computes with, or a line that writes no own value (988:
"They have 30 pounds left" where the step computes 3), is still refused."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import pytest

from qcstation.core.construct.make.keyinfo import KeyInfoError
from qcstation.core.construct.make.keyinfo_draft import keyinfo_from_annotations
from qcstation.core.construct.make.rules import rule_for_seed
from qcstation.core.construct.make.unknowns import _own_value_written
from qcstation.core.reading.expr import BinOp, Name, Num


def _keyinfo(seed: dict) -> dict:
    rule = rule_for_seed(seed)
    return keyinfo_from_annotations(seed["question"], seed["solution"], rule.steps, givens=rule.givens)


@pytest.mark.parametrize(("seed", "index", "text", "relationship"), [
    # 20 is the given "20 miles a day" too; the step computes 2 x 10
    ("170", 1, "Q2: He walks ? miles on the weekend", "Q2 = 2 × 10"),
    # a decimal without its leading zero
    ("435", 0, "Q1: George got ? in change", "Q1 = 5 × 1%"),
    # 3 is the given "reads for 3 hours" too; the step computes Q2 x 1/3
    ("773", 2, "Q3: She spends ? hours playing video games", "Q3 = Q2 × 1/3"),
    ("1240", 3, "Q4: They spend ? of their day cleaning classrooms", "Q4 = Q3 ÷ 8"),
    # the algebra solution's asked value: its formula line "Lily = B/2 + 7", its concluding sentence
    ("501", 1, "Q2: Lily found ? insects. (the value asked for)", "Q2 = Q1 ÷ 2 + 7"),
    ("1169", 1, "Q2: The red rope was ? cm long. (the value asked for)", "Q2 = 4 × (Q1 − 7)"),
])
def test_the_result_written_in_its_claim_is_the_blank(gsm8k: dict, seed: str, index: int, text: str,
                                                        relationship: str) -> None:
    fields = _keyinfo(gsm8k[seed])
    assert fields["unknown_quantities"][index] == text
    assert relationship in fields["relationships_and_constraints"]
    assert all(u.partition(": ")[2].count("?") == 1 for u in fields["unknown_quantities"])


def test_a_claim_that_writes_another_value_is_still_refused(gsm8k: dict) -> None:
    with pytest.raises(KeyInfoError, match="Q4 would read with no blank: 'They have 30 pounds left'"):
        _keyinfo(gsm8k["988"])


def _step(expr: object, result: int) -> SimpleNamespace:
    return SimpleNamespace(name="s2", expr=expr, expr_text="", result=result)


def test_a_written_value_the_step_may_compute_with_is_no_blank() -> None:
    given = {"g1": Fraction(20), "g2": Fraction(10)}
    # the step computes 20 from 2 and 10: the written 20 is its result
    assert _own_value_written("He walks 20 miles on the weekend", Fraction(20),
                              _step(BinOp("*", Num(Fraction(2), "2"), Name("g2")), 20), [], given, "") \
        == "He walks ? miles on the weekend"
    # the step computes with a 20 of its own (20 x 1): the written 20 may be that one
    step = _step(BinOp("*", Name("g1"), Num(Fraction(1), "1")), 20)
    assert _own_value_written("He walks 20 miles on the weekend", Fraction(20), step, [], given, "") \
        == "He walks 20 miles on the weekend"
    # written twice: which one is the result is not told
    step = _step(BinOp("*", Num(Fraction(2), "2"), Name("g2")), 20)
    assert _own_value_written("He walks 20 miles, 20 in all", Fraction(20), step, [], given, "") \
        == "He walks 20 miles, 20 in all"
    # a name of no known value: nothing is told apart
    step = _step(BinOp("*", Name("x_unknown"), Name("g2")), 20)
    assert _own_value_written("He walks 20 miles", Fraction(20), step, [], given, "") == "He walks 20 miles"


def test_the_clause_that_computes_the_value_describes_it_not_an_earlier_number_of_equal_value() -> None:
    """'By buying 8 at once in order to get the discount, she can save $40-$32 = $8' (held-out
    reading read18): the answer 8 is also the 8 shirts bought; the description kept the clause of
    the shirts with its '?' ('By buying ? at once in order to get the discount') and cut the
    clause that computes the saving."""
    seed = {"question": "Each shirt costs $5, but there is a discount of 20% on the total cost for people who buy "
                        "8 or more shirts at once. How much can she save by buying 8 shirts at once?",
            "solution": "Without the discount, 8 shirts cost 8*$5 = $<<8*5=40>>40\n"
                        "With a discount of 20% on the total cost, she pays $40-($40*(20/100)) = $<<40-(40*(20/100))=32>>32\n"
                        "By buying 8 at once in order to get the discount, she can save $40-$32 = $8\n#### 8"}
    f = _keyinfo(seed)
    assert f["unknown_quantities"][-1] == "Q3: She can save ? (the value asked for)", f["unknown_quantities"]
    assert f["relationships_and_constraints"][-1] == "Q3 = Q1 − Q2"
