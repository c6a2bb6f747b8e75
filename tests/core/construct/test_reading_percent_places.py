"""A value the question states only as a percent ("40% of the students are girls") that an earlier
step computed as a count ("80 / 2 = 40 students"), see
:func:`qcstation.core.construct.make.rules.links._decide_percent_places` and the independent check's
:func:`qcstation.core.construct.check.bindings._count_of_a_percent_value`: where a step divides the
number by 100 it is the question's percent, where it writes it as no percent it is the earlier
count. Where the question also states the value as a count, or the earlier result is itself a
percent, the words do not decide and the seed stays refused."""

from __future__ import annotations

from fractions import Fraction

import pytest

from qcstation.core.construct.check.bindings import equal_value_links
from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.reading.expr import BinOp, Name, Num


def _asserts(seed: dict) -> list[str]:
    return [ln for ln in rule_for_seed(seed).smtlib.splitlines() if ln.startswith("(assert")]


def test_the_percent_is_divided_by_100_and_the_count_is_the_earlier_result(gsm8k: dict) -> None:
    # 743: "40/100 * 40 = 16 girls": the first 40 is the question's "40%", the second the 40
    # students of each class (step 1, "80 / 2 = 40 students"); "40 - 16" is those students again
    seed = gsm8k["743"]
    assert "40% of the students are girls" in seed["question"]
    got = _asserts(seed)
    for line in ("(assert (= g3_pct 40))",
                 "(assert (= s1_students (/ g1_students g2_classes)))",
                 "(assert (= s2_girls (* (/ g3_pct k_percent) s1_students)))",
                 "(assert (= s3_boys_class (- s1_students s2_girls)))"):
        assert line in got


def test_of_two_numbers_divided_by_100_the_stated_percent_is_the_percent(gsm8k: dict) -> None:
    # 736: "Candidate B got 20 x 50/100 = 10 more votes than candidate A": the 50 is the question's
    # "50% more", so the 20 is candidate A's 20 votes (step 1), not the question's "20%"
    seed = gsm8k["736"]
    assert "candidate A got 20% of the votes" in seed["question"]
    got = _asserts(seed)
    for line in ("(assert (= s1_votes (/ (* g1_voters g2_pct) k_percent)))",
                 "(assert (= s2_votes_candidate (/ (* s1_votes g3_pct) k_percent)))",
                 "(assert (= s3_votes (+ s1_votes s2_votes_candidate)))",
                 "(assert (= s4_votes (+ s1_votes s3_votes)))",
                 "(assert (= s5_votes (- g1_voters s4_votes)))"):
        assert line in got


def test_a_question_that_states_the_value_as_a_count_too_stays_refused(gsm8k: dict) -> None:
    # the question's 40 is "40%" and "40 desks": the solution's bare 40 may be the desks; the words
    # of the percent no longer decide
    seed = dict(gsm8k["743"])
    seed["question"] = seed["question"].replace("In a certain school,", "In a certain school with 40 desks,")
    assert "40 desks" in seed["question"]
    with pytest.raises(RuleError):
        rule_for_seed(seed)


def test_an_earlier_result_that_is_a_percent_decides_nothing(gsm8k: dict) -> None:
    # step 1 names its 40 as a percent ("= 40% of them"): a percent, like the question's, so the
    # 40 of "40 - 16" is not told apart from the question's "40%"
    seed = dict(gsm8k["743"])
    seed["solution"] = seed["solution"].replace("<<80/2=40>>40 students", "<<80/2=40>>40% of them")
    assert "40% of them" in seed["solution"]
    with pytest.raises(RuleError):
        rule_for_seed(seed)


_Q = "In a student council election, candidate A got 20% of the votes while candidate B got 50% more " \
     "than candidate A's votes. If there were 100 voters, how many votes did candidate B get?"
_S = "Candidate A got 100 x 20/100 = <<100*20/100=20>>20 votes.\n" \
     "Candidate B got 20 x 50/100 = <<20*50/100=10>>10 more votes than candidate A.\n" \
     "Thus, candidate B got 20 + 10 = <<20+10=30>>30 votes."


def _defs(second: BinOp) -> tuple[dict, dict[str, Fraction]]:
    defs = {"g1": Num(Fraction(100)), "g2": Num(Fraction(20)), "g3": Num(Fraction(50)),
            "k_percent": Num(Fraction(100)),
            "s1": BinOp("/", BinOp("*", Name("g1"), Name("g2")), Name("k_percent")), "s2": second,
            "s3": BinOp("+", Name("s1"), Name("s2"))}
    values = {"g1": Fraction(100), "g2": Fraction(20), "g3": Fraction(50), "k_percent": Fraction(100),
              "s1": Fraction(20), "s2": Fraction(10), "s3": Fraction(30)}
    return defs, values


def test_the_check_vouches_for_the_count_beside_a_stated_percent() -> None:
    # candidate A's 20 votes are used twice ("20 x 50/100", "20 + 10"): no structure forces either
    # link; the question's 20 is only "20%" and each line names a count of votes
    defs, values = _defs(BinOp("/", BinOp("*", Name("s1"), Name("g3")), Name("k_percent")))
    assert equal_value_links(defs, values, _Q, _S) == []


def test_the_check_refuses_the_earlier_result_taken_for_the_percent() -> None:
    # "(20 / 100) * 50": the earlier result stands where the question's 20% would; nothing vouches
    defs, values = _defs(BinOp("*", BinOp("/", Name("s1"), Name("k_percent")), Name("g3")))
    assert equal_value_links(defs, values, _Q, _S) == ["s2 uses s1 = 20, a value the question also states"]
