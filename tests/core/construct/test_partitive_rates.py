"""A part of a set is never a rate (check/partitive_rates; issue 26.1): "gives two of the eyes to his
dog" ... "With 2 eyes per fish, 24/2 = 12 fish" binds the eyes of every fish to the dog's share."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.check.bindings import binding_problems
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.reading.expr import BinOp, Name, Num

CATCH_Q = ("Ravi catches fish for his family every day and they split the fish equally. He keeps all of the "
           "eyes, gives two of the eyes to his cat and eats the rest. How many fish did he catch if he eats 18 eyes?")
CATCH_S = ("The cat eats 2 and Ravi eats 18, so there are 2+18=<<2+18=20>>20 eyes.\n"
           "With 2 eyes per fish, 20 eyes are 20/2=<<20/2=10>>10 fish.\n#### 10")


def _catch() -> tuple[dict[str, object], dict[str, Fraction]]:
    defs: dict[str, object] = {"g1_eyes": Num(Fraction(2)), "g2_eyes": Num(Fraction(18)),
                               "s1_eyes": BinOp("+", Name("g1_eyes"), Name("g2_eyes")),
                               "s2_fish": BinOp("/", Name("s1_eyes"), Name("g1_eyes"))}
    values = {"g1_eyes": Fraction(2), "g2_eyes": Fraction(18), "s1_eyes": Fraction(20), "s2_fish": Fraction(10)}
    return defs, values


def test_a_part_of_a_set_used_as_a_rate_is_a_binding_no_words_match() -> None:
    defs, values = _catch()
    found = [b for b in binding_problems(defs, values, CATCH_Q, CATCH_S) if b.step == "s2_fish"]
    assert found and found[0].solution_words == ("eyes per fish",), found
    assert "2 eyes per fish" in found[0].describe()


def test_the_rules_refuse_the_part_bound_as_a_rate() -> None:
    with pytest.raises(RuleError, match="eyes per fish"):
        rule_for_seed({"question": CATCH_Q, "solution": CATCH_S})


def test_near_miss_a_question_that_states_the_rate_is_no_such_binding() -> None:
    # the question also states two eyes per fish: not every place of 2 is a part of a set
    question = CATCH_Q.replace("every day and", "every day; each fish has 2 eyes and")
    defs, values = _catch()
    assert not [b for b in binding_problems(defs, values, question, CATCH_S)
                if b.solution_words == ("eyes per fish",)]


def test_near_miss_a_part_of_a_set_used_as_a_count_is_no_rate() -> None:
    question = "Mia has 12 apples. She gives 3 of her apples to Tom. How many apples does she have left?"
    solution = "She has 12-3=<<12-3=9>>9 apples left.\n#### 9"
    rule = rule_for_seed({"question": question, "solution": solution})
    assert rule.value == 9


@pytest.mark.parametrize("clause", ["gives two of the eyes of each fish to his cat",
                                    "gives each cat two of the eyes"])
def test_near_miss_a_part_in_a_clause_that_states_a_rate_is_no_such_binding(clause: str) -> None:
    # "5 of the numbers on each lottery ticket", "each adult mouse eats 2 of their pups": the clause states the rate
    question = CATCH_Q.replace("gives two of the eyes to his cat", clause)
    defs, values = _catch()
    assert not [b for b in binding_problems(defs, values, question, CATCH_S)
                if b.solution_words == ("eyes per fish",)]
