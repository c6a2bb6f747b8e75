"""One given that steps apart use while the question states its value at another place no given
holds (issue 26.1, :mod:`qcstation.core.construct.check.unheld`): GSM8K 1141's "3 less than 6
potatoes to make 1 less than 3 scoops" read as 6-3 and 3-1 with both 3s the "3 scoops" passed
every other check. Real questions and a constructed one through the rules' gate
(``check_independently``, real Z3 through the rules for the seeds kept)."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import pytest

from qcstation.core.construct.make.rules import BinOp, Name, RuleError, rule_for_seed
from qcstation.core.construct.make.rules.dispatch import check_independently
from qcstation.core.construct.make.rules.result import RuleResult, RuleStep


def _at(question: str, pattern: str) -> list[int]:
    """The span of the number the pattern's group 1 matches (once in the question)."""
    found = list(re.finditer(pattern, question))
    assert len(found) == 1, pattern
    return [found[0].start(1), found[0].end(1)]


def _result(question: str, givens: list[tuple[str, int, str]], steps: list[tuple[str, Any]]) -> RuleResult:
    gs = [{"name": n, "value": str(v), "span": _at(question, p)} for n, v, p in givens]
    return RuleResult(smtlib="", steps=[RuleStep(n, "", Fraction(0), "", expr=e) for n, e in steps],
                      answer_step=steps[-1][0], value=Fraction(0), rule="gsm8k-calculator", givens=gs)


def _less(a: str, b: str) -> BinOp:
    return BinOp("-", Name(a), Name(b))


def _1141_shape(question: str, solution: str, wrong: bool, n: tuple[int, ...] = (23, 5, 6, 3, 1)) -> None:
    big, off, many, v, one = n
    givens = [("g1", big, rf"than ({big}) scoops"), ("g2", off, rf"ate ({off}) less"),
              ("g3", many, rf"than ({many}) potatoes"), ("g4", v, rf"than ({v}) scoops of mashed potatoes,"),
              ("g5", one, rf"make ({one}) less")]
    if not wrong:
        givens.append(("g6", v, rf"takes ({v}) less"))
    steps = [("s1", _less("g1", "g2")), ("s2", _less("g3", "g4" if wrong else "g6")), ("s3", _less("g4", "g5")),
             ("s4", BinOp("*", Name("s1"), BinOp("/", Name("s2"), Name("s3"))))]
    check_independently(_result(question, givens, steps), question, solution)


def test_1141_one_given_for_3_less_and_3_scoops_is_refused(gsm8k: dict) -> None:
    s = gsm8k["1141"]
    with pytest.raises(RuleError, match="no given holds"):
        _1141_shape(s["question"], s["solution"], wrong=True)
    # each 3 its own given: the guard has nothing to say
    _1141_shape(s["question"], s["solution"], wrong=False)


NEAR = ("Gomer ate 2 less than 20 scoops of mashed potatoes. If it takes 4 less than 9 potatoes to make "
        "1 less than 4 scoops of mashed potatoes, how many potatoes did Gomer eat?")
NEAR_SOLUTION = ("2 less than 20 scoops is 20-2=<<20-2=18>>18 scoops.\n4 less than 9 potatoes is 9-4=<<9-4=5>>5 potatoes.\n"
                 "1 less than 4 scoops is 4-1=<<4-1=3>>3 scoops.\nGomer ate 18*(5/3)=<<18*(5/3)=30>>30 potatoes.\n#### 30")


def test_a_constructed_question_of_that_shape_is_refused() -> None:
    """A near-miss of 1141 with no result equal to a number of the question: the use in 9 - 4
    pairs the 4 with the 9 of "4 less than 9", whose 4 no given holds; each 4 its own given is made."""
    with pytest.raises(RuleError, match="no given holds"):
        _1141_shape(NEAR, NEAR_SOLUTION, wrong=True, n=(20, 2, 9, 4, 1))
    _1141_shape(NEAR, NEAR_SOLUTION, wrong=False, n=(20, 2, 9, 4, 1))


@pytest.mark.parametrize(("seed", "value", "words"), [
    ("147", 500, "500"),    # "than the 500 piece one": a restatement, one given on purpose
    ("299", 3, "3"),        # "each of the 3 other people" restates "3 other people each bid once"
    ("805", 2, "2"),        # 60*2 and 70*2 both the "2 hours"; "Two cars" is no use of either
])
def test_a_given_of_steps_apart_is_kept_where_the_other_place_is_no_use(gsm8k: dict, seed: str, value: int,
                                                                         words: str) -> None:
    s = gsm8k[seed]
    rule = rule_for_seed(s)
    assert rule.bound
    at = [g for g in rule.givens if Fraction(str(g["value"])) == value]
    assert len(at) == 1 and s["question"][at[0]["span"][0]:at[0]["span"][1]] == words
    assert sum(at[0]["name"] in (st.sexpr or "") for st in rule.steps) >= 2


def test_an_each_of_another_clause_does_not_restate_the_place() -> None:
    """GSM8K train line 1631: "works for 8 hours each day, and on Friday, he only works from 8am to
    11am" / "11 - 8": the "each" is the 8 hours' clause, not the 8am's, so the "8am" no given
    holds is that use's and one given for two places is refused (issue 26.1, gold7's held-out
    reading: it was made with the 8am bound to the 8 hours)."""
    q = ("A cobbler can mend 3 pairs of shoes in an hour. From Monday to Thursday, the cobbler works for 8 hours "
         "each day, and on Friday, he only works from 8am to 11am. How many pairs of shoes can the cobbler mend in "
         "a week?")
    sol = ("From Monday to Thursday, the cobbler can mend 3 x 8 = <<3*8=24>>24 pairs of shoes a day.\n"
           "From Monday to Thursday, he can mend 24 x 4 = <<24*4=96>>96 pairs of shoes.\n"
           "On Friday, he works for 11 - 8 = <<11-8=3>>3 hours.\n"
           "On Friday, he can mend 3 x 3 = <<3*3=9>>9 pairs of shoes.\n"
           "In a week, he can mend 96 + 9 = <<96+9=105>>105 pairs of shoes.")
    with pytest.raises(RuleError, match="8am to 11am.*one given for two places"):
        rule_for_seed({"question": q, "solution": sol, "answer_text": "105", "source": "gsm8k"})
