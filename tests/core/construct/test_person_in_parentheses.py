"""A 1 the solution writes before a name in parentheses ("1 (Leo) + 3 cousins = 4 people") counts
that person: never the question's "$1" (the binder took the question's one 1, a price, for it). The
seed is written for this test."""

from __future__ import annotations

from qcstation.core.construct.make.rules import rule_for_seed
from qcstation.core.construct.make.rules.binding_words import person_in_parentheses
from tests.core.construct.seeds import gsm8k_seed as _seed


def test_a_one_before_a_name_in_parentheses_is_that_person(z3pool) -> None:
    question = ("Leo and his three cousins share the cost of a pizza evenly. Leo's father bought the pizza "
                "and a bottle of soda that costs $1, and paid $17 in all. How much does each of them pay for "
                "the pizza?")
    solution = ("The pizza cost $17 - $1 = $<<17-1=16>>16.\n"
                "There are 1 (Leo) + 3 cousins = <<1+3=4>>4 people.\n"
                "Each pays $16 / 4 = $<<16/4=4>>4.\n#### 4")
    seed = _seed(question, solution, "4")
    rule = rule_for_seed(seed)
    s2 = next(ln for ln in rule.smtlib.splitlines() if ln.startswith("(assert (= s2"))
    price = next(g["name"] for g in rule.givens if g.get("span") and question[g["span"][0] - 1] == "$"
                 and g["value"] == "1")
    assert price not in s2, (rule.givens, s2)
    assert z3pool.verify(rule.smtlib, seed["answer_text"]).ok


def test_only_a_name_in_parentheses_is_read() -> None:
    assert person_in_parentheses("There are 1 (Mary) + 2 friends = <<1+2=3>>3 people", 0)
    assert not person_in_parentheses("There are 1 + 2 (friends) = <<1+2=3>>3 people", 0)
    assert not person_in_parentheses("It costs $1 (each) = $1", 0)
