"""Bare 1s whose words say what they are (issue 26.1, lane covB): the base's one part of "N times
as many ... as" that a step adds to N, and the whole of "1 - (2/3) = 1/3" written on a line before
the step that uses its result. Never a 1 the words do not tie."""

from __future__ import annotations

import pytest

from qcstation.core.construct.make.rules import RuleError, rule_for_seed


def _seed(question: str, solution: str, answer: str) -> dict[str, str]:
    return {"question": question, "solution": solution, "answer_text": answer, "source": "gsm8k"}


def _terms(seed: dict[str, str]) -> list[str]:
    return [st.sexpr for st in rule_for_seed(seed).steps]


_RATIO_Q = ("A shelf holds 48 books in all, and there are 5 times as many novels as atlases on it. "
            "How many atlases are on the shelf?")


def test_the_one_added_to_a_ratio_is_the_base_share() -> None:
    seed = _seed(_RATIO_Q, "For every 5 novels there is 1 atlas, so a group has 5+1=<<5+1=6>>6 books.\n"
                           "There are 48/6=<<48/6=8>>8 groups of books.\n"
                           "So there are 8*1=<<8*1=8>>8 atlases.\n#### 8", "8")
    made = rule_for_seed(seed)
    assert made.value == 8
    terms = _terms(seed)
    assert terms[0] == "(+ g1_times k_one_share_of_atlases)"
    # one atlas a group: the same part, on a line that names the base
    assert terms[2] == "(* s2_groups_books k_one_share_of_atlases)"
    assert "k_one_share_of_atlases" in {f["name"] for f in made.factors or []}
    assert all(not g["name"].startswith("k_") for g in made.givens)  # no given of the question


def test_a_word_ratio_and_a_divisor_written_as_a_sum() -> None:
    q = "Ben and Ann picked 27 apples. Ben picked twice as many as Ann. How many apples did Ann pick?"
    made = rule_for_seed(_seed(q, "Ann picked 27 / (2+1) = <<27/(2+1)=9>>9 apples.\n#### 9", "9"))
    assert made.value == 9
    assert made.steps[0].sexpr == "(/ g1_apples (+ w_twice k_one_share_of_ann))"


def test_a_one_the_ratio_words_do_not_tie_stays_refused() -> None:
    # the line names neither the base nor the thing compared
    with pytest.raises(RuleError, match="writes the number 1"):
        rule_for_seed(_seed(_RATIO_Q, "That is 5+1=<<5+1=6>>6.\nThen 48/6=<<48/6=8>>8.\n#### 8", "8"))
    # two ratios: whose base the 1 is, no reader can tell
    q2 = _RATIO_Q.replace("on it.", "on it, and 2 times as many maps as atlases.")
    with pytest.raises(RuleError):
        rule_for_seed(_seed(q2, "For every 5 novels there is 1 atlas, so a group has 5+1=<<5+1=6>>6 books.\n"
                                "There are 48/6=<<48/6=8>>8 atlases.\n#### 8", "8"))
    # a 1 beside a number that is not the ratio's N
    with pytest.raises(RuleError, match="writes the number 1"):
        rule_for_seed(_seed(_RATIO_Q.replace("48 books", "48 books and 7 maps"),
                            "Novels and atlases: 7+1=<<7+1=8>>8 books.\n48/8=<<48/8=6>>6 atlases.\n#### 6", "6"))


def test_the_whole_less_a_fraction_written_before_its_use() -> None:
    q = "A tank holds 60 liters. 3/4 of it is full. How many liters are empty?"
    made = rule_for_seed(_seed(q, "1/4 of the tank is empty because 1 - (3/4) = 1/4\n"
                                  "So 60 x (1/4) = <<60*(1/4)=15>>15 liters are empty.\n#### 15", "15"))
    assert made.value == 15
    # the 1 is the whole tank the question's 3/4 is of; the 4 no given of its own
    assert [st.sexpr for st in made.steps] == ["(- 1 g1_full)", "(* g2_liters s1_empty_because)"]
    assert {g["value"] for g in made.givens} == {"3/4", "60"}
