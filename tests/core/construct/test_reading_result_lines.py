"""Which of two earlier results of one value a step's number is, where the question states no
such number (issue 26, point 1), see :mod:`qcstation.core.construct.make.rules.result_lines`: the
step's line writes words that only one candidate's line writes ("pupils like green" after "20
pupils who like either green or yellow", not "20 pupils who like blue"); or the question compares
the step's other number with what only one candidate's line names ("three years older than Granny
Red"); or the line names a common factor with its unit ("2 hours * 7 days" for a week) where no
earlier result of that value is named so. Where the lines' words tell the candidates apart nowhere,
or a times sign is all they share, the seed stays refused."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed
from qcstation.core.construct.make.rules.clause_words import _plain_stems


def _asserts(seed: dict) -> list[str]:
    return [ln for ln in rule_for_seed(seed).smtlib.splitlines() if ln.startswith("(assert")]


@pytest.mark.parametrize(("seed", "lines"), [
    # "Hence, 20/4 = 5 pupils like green": the 20 who like either green or yellow (step 2), not
    # the 20 who like blue; "20 - 5 = 15 pupils like yellow" takes the green ones from the same 20
    ("377", ["(assert (= s3_pupils_like (/ s2_pupils_like w_one_fourth_parts)))",
             "(assert (= s4_pupils_like (- s2_pupils_like s3_pupils_like)))"]),
    # "3/5 of the remaining hats are blue ... 3/5*50": the remaining 50 (step 2), not the 50 red
    # hats; the words after "3/5 of" name what it is a part of, and the white ones are the rest
    # of the remaining
    ("1243", ["(assert (= s3_hats (* g2_remaining s2_hats_red)))",
              "(assert (= s4_white_hats (- s2_hats_red s3_hats)))"]),
    # "a total of 9 + 6 = 15 liters of water": the 9 liters of water from the pineapple drink
    # (step 1), so the 9 of "9 x 2/3" is the 9 liters of orange drink left (step 2)
    ("21", ["(assert (= s3_liters_water (* s2_liters_orange w_two_thirds)))",
            "(assert (= s4_liters_water (+ s1_liters_water s3_liters_water)))"]),
    # "Sally Two is three years older than Granny Red": "16+3" is Granny red's 16 (step 2, "Granny
    # red is 2*8 = 16 years old"), not the 16 years of Sally Thirtytwo and Sally Four together
    ("173", ["(assert (= s4_years (+ s2_years g3_years)))",
             "(assert (= s3_years (+ s1_years s2_years)))"]),
    # "2 hours every day for a week": "2 hours * 7 days" names the 7 with a week's unit (days),
    # not step 2's "0.5 hours * 14 days = 7 hours"; "30 – 7 – 14" takes those 7 hours away
    ("804", ["(assert (= s3_hours (* g2_hours w_a_week)))",
             "(assert (= s4_hours (- g3_hours s2_hours s3_hours)))"]),
])
def test_the_lines_words_decide_between_results(gsm8k: dict, seed: str, lines: list[str]) -> None:
    got = _asserts(gsm8k[seed])
    for line in lines:
        assert line in got


@pytest.mark.parametrize(("seed", "why"), [
    # "Charlie got 25 x 3/5" and "Anthony gave away 25 + 15": only the times sign "x" is shared
    # with "Brandon received 50 x 1/2 = 25", which is no word of what is counted
    ("774", "ambiguous solution"),
    # "he earned $40 x 2 = $80 for the two devices he bought last Monday": the question's "2
    # devices last Monday" compares nothing, and "Monday" is a name (whose cost or resale price,
    # no word of the line says)
    ("1157", "ambiguous solution"),
])
def test_lines_that_share_no_telling_word_stay_refused(gsm8k: dict, seed: str, why: str) -> None:
    with pytest.raises(RuleError, match=why):
        rule_for_seed(gsm8k[seed])


def test_a_times_sign_and_a_connective_are_no_evidence() -> None:
    assert _plain_stems("so he got 25 x 3/5 = 15 pencils, meaning he has", frozenset()) == {"penc"}


def test_a_comparison_names_what_it_compares_with() -> None:
    from qcstation.core.construct.make.rules.result_lines import _compared_with

    q = "The top shelf can hold 5 fewer books than the bottom shelf. If she has 110 books"
    at = q.index("5 fewer")
    assert _compared_with(q, at, at + 1) == {"bott", "shel"}
    q = "He bought 2 devices last Monday and 4 devices last Tuesday, how much more than he paid?"
    at = q.index("2 devices")
    assert _compared_with(q, at, at + 1) == frozenset()  # the comparison is in another clause
