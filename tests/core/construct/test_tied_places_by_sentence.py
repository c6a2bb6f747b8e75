"""Places of one value whose words the solution's line matches alike ("3 stamps" for "3 stamps in
their album", "3 fish stamps" and "3 more stamps"): the sentence decides where the words after the
use cannot: the sentence of the step's other numbers ("5 stamps + 3 stamps + 6 stamps" of "collected 5
bird stamps, 3 fish stamps, and 6 ship stamps"), else the one sentence whose words the line writes
("Leo collected 14 stamps + 3 stamps" of "Leo collected 3 more stamps than Mia did"). A line whose words
name no sentence stays tied by order, refused. The seeds are written for these tests."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from tests.core.construct.seeds import gsm8k_seed as _seed

QUESTION = ("Mia and Leo already had 3 stamps in their album. Then they went to a fair to pick more. Mia "
            "collected 5 bird stamps, 3 fish stamps, and 6 ship stamps. Leo collected 3 more stamps than Mia "
            "did. How many stamps do the two have altogether?")


def _solution(second: str) -> str:
    return ("Mia collected 5 stamps + 3 stamps + 6 stamps = <<5+3+6=14>>14 stamps at the fair.\n"
            f"{second} 14 stamps + 3 stamps = <<14+3=17>>17 stamps at the fair.\n"
            "In total Mia and Leo have 3 stamps + 14 stamps + 17 stamps = <<3+14+17=34>>34 stamps.\n#### 34")


def _asserts(smtlib: str) -> list[str]:
    return [line for line in smtlib.splitlines() if line.startswith("(assert (= s")]


def test_tied_places_are_read_by_their_sentence(z3pool) -> None:
    seed = _seed(QUESTION, _solution("Leo collected"), "34")
    rule = rule_for_seed(seed)
    assert not rule.uncertain
    # the given of each "3" by the word after it: "3 fish stamps", "3 stamps in", "3 more stamps"
    of = {QUESTION[g["span"][1]:].split()[0]: g["name"] for g in rule.givens
          if g.get("span") and QUESTION[g["span"][0]:g["span"][1]] == "3"}
    steps = _asserts(rule.smtlib)
    assert set(of) == {"fish", "stamps", "more"}, rule.givens
    assert of["fish"] in steps[0] and of["more"] in steps[1] and of["stamps"] in steps[2], steps
    assert z3pool.verify(rule.smtlib, seed["answer_text"]).ok


def test_a_line_naming_no_sentence_stays_tied_by_order() -> None:
    # "The next sum is": neither "Leo collected 3 more stamps" nor "already had 3 stamps" is named
    with pytest.raises(RuleError, match="uncertain binding"):
        rule_for_seed(_seed(QUESTION, _solution("The next sum is"), "34"))


def test_a_step_writing_the_value_twice_is_not_read_by_one_sentence() -> None:
    # "4 cups / 4 cups/hour": one line, two uses; the sentence its words name ("paints ... cups an
    # hour with roses") is not the numerator's (the order's "4 rose cups"): stays tied by order
    question = ("Gina paints 4 cups an hour with roses and 5 cups an hour with lilies. An order asks for 4 "
                "rose cups and 10 lily cups. If she is paid $60 for the order, how much does she make per hour?")
    solution = ("Time to paint the rose cups: 4 cups / 4 cups/hour = <<4/4=1>>1 hour\n"
                "Time for the lily cups: 10 cups / 5 cups/hour = <<10/5=2>>2 hours\n"
                "Total time: 1 hour + 2 hours = <<1+2=3>>3 hours\n"
                "She makes $60 / 3 hours = $<<60/3=20>>20/hour\n#### 20")
    with pytest.raises(RuleError, match="uncertain binding"):
        rule_for_seed(_seed(question, solution, "20"))
