"""A number the question writes with a scale word ("1 million Safe Moon tokens") that the solution
writes in full ("1000000 / 2") is the question's number times the named scale (issue 26.1), see
:mod:`qcstation.core.construct.make.rules.scaled`: the number bound to its own place, the scale a
named constant, never a hard-coded 1000000. A solution that keeps the scale in words ("32 / 2 =
$16 million") reads as before; a full number that no scaled phrase of the question makes stays
refused.

The seeds are GSM8K *train* items (held out from tuning; their text is copied here)."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed

TOKENS = {
    "question": "Sandy bought 1 million Safe Moon tokens. She has 4 siblings. She wants to keep half of them to "
                "herself and divide the remaining tokens among her siblings. After splitting it up, how many more "
                "tokens will she have than any of her siblings?",
    "solution": "She will keep 1000000 / 2 = <<1000000/2=500000>>500000 Safe Moon tokens for herself.\n"
                "For the remaining siblings, they will each receive 500000 / 4 = <<500000/4=125000>>125000 tokens.\n"
                "This means that Sandy will have 500000 - 125000 = <<500000-125000=375000>>375000 tokens more than "
                "any of her siblings.",
    "answer_text": "375000",
}

CITY = {
    "question": "Los Angeles has 6 million people living in it. If half the population is women and 1/3 of the "
                "women work in retail, how many women work in retail in Los Angeles?",
    "solution": "There are 3 million women in Los Angeles because 6,000,000 / 2 = <<6000000/2=3000000>>3,000,000\n"
                "1,000,000 women work in retail because 3,000,000 x (1/3) = <<3000000*(1/3)=1000000>>1,000,000",
    "answer_text": "1,000,000",
}

BUDGET = {
    "question": "The town’s annual budget totals $32 million. If half of the budget goes towards policing and $12 "
                "million goes towards education. How much money is left for managing public spaces?",
    "solution": "The annual budget for policing is 32 / 2 = $<<32/2=16>>16 million.\n"
                "The combined budget for education and policing is 16 + 12 = $<<16+12=28>>28 million.\n"
                "There is 32 - 28 = $<<32-28=4>>4 million to manage public spaces.",
    "answer_text": "4",
}


def _asserts(seed: dict) -> list[str]:
    return [ln for ln in rule_for_seed(seed).smtlib.splitlines() if ln.startswith("(assert")]


@pytest.mark.parametrize(("seed", "given", "use"), [
    (TOKENS, "(assert (= g1_million 1))", "(/ (* g1_million k_per_million) w_half_parts)"),
    (CITY, "(assert (= g1_million 6))", "(/ (* g1_million k_per_million) w_half_parts)"),
])
def test_a_scaled_number_written_in_full_is_the_number_times_its_scale(seed: dict, given: str, use: str) -> None:
    got = _asserts(seed)
    assert given in got
    assert "(assert (= k_per_million 1000000))" in got
    assert any(use in line for line in got)
    assert not any("1000000)" in line and "k_per_million 1000000" not in line for line in got)


def test_a_solution_that_keeps_the_scale_in_words_reads_as_before() -> None:
    got = _asserts(BUDGET)
    assert not any("k_per_" in line for line in got)
    assert "(assert (= g1_million 32))" in got


def test_a_full_number_no_scaled_phrase_makes_stays_refused() -> None:
    # the question's "1 million" is no 2000000: a hard-coded number, refused as before
    seed = dict(TOKENS, solution=TOKENS["solution"].replace("1000000/2=500000", "2000000/4=500000")
                .replace("1000000 / 2", "2000000 / 4"))
    with pytest.raises(RuleError, match="2000000"):
        rule_for_seed(seed)


TREES = {  # written for the attack (issue 30): the planted "2 million" equals step 1's result
    "question": "A town had 3 million trees. A storm knocked down 1 million trees. Then 2 million new trees were "
                "planted, and half of the trees standing were cut down. How many trees are left?",
    "solution": "After the storm 3000000 - 1000000 = <<3000000-1000000=2000000>>2000000 trees.\n"
                "After planting 2000000 + 2000000 = <<2000000+2000000=4000000>>4000000 trees.\n"
                "Half cut: 4000000 / 2 = <<4000000/2=2000000>>2000000 trees left.",
    "answer_text": "2000000",
}

CLUB = {  # its "2 thousand" is another club's: step 2's 2000 is step 1's result
    "question": "A club has 6 thousand members. A third of them are children. Another club has 2 thousand "
                "members. How many adult members does the first club have?",
    "solution": "Children: 6000 / 3 = <<6000/3=2000>>2000.\nAdults: 6000 - 2000 = <<6000-2000=4000>>4000.",
    "answer_text": "4000",
}


def test_a_full_number_a_scaled_phrase_states_is_no_earlier_result_by_value_alone() -> None:
    # it was read 's2 = s1 + s1' (verified: the values agree), dropping the 2 million trees
    # planted; a variant would keep '2 million' in its words and double the storm's result
    try:
        got = _asserts(TREES)
    except RuleError as exc:
        assert "2000000" in str(exc)
        return
    assert "(assert (= s2_trees (+ s1_trees s1_trees)))" not in got
    assert any("g3_million" in line for line in got if line.startswith("(assert (= s2"))


def test_a_scaled_phrase_of_something_else_leaves_the_earlier_result() -> None:
    got = _asserts(CLUB)
    assert "(assert (= s2 (- (* g1_thousand k_per_thousand) s1)))" in got
